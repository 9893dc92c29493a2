// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "anomaly.h"

#ifndef P_QUIET
#define P_QUIET 100
#endif
#ifndef P_MARGIN
#define P_MARGIN 0.01
#endif
#ifndef P_SHORT
#define P_SHORT 16
#endif
#ifndef P_Z
#define P_Z 4
#endif
#ifndef P_MIN
#define P_MIN 10
#endif

/* The square root of v >= 0 without libm (the core links none): a first
 * guess from the exponent's bits, then Newton's steps. */
static double root(double v)
{
	union {
		double d;
		uint64_t u;
	} g = {.d = v};

	if (v <= 0)
		return 0;
	g.u = (g.u >> 1) + (UINT64_C(1023) << 51);
	for (int i = 0; i < 6; i++)
		g.d = 0.5 * (g.d + v / g.d);
	return g.d;
}

static double absolute(double v)
{
	return v < 0 ? -v : v;
}

void anomaly_init(struct anomaly *a)
{
	memset(a, 0, sizeof(*a));
}

static double range_excess(const struct anomaly *a, double x)
{
	double range = a->hi - a->lo;
	double out = x > a->hi ? x - a->hi : x < a->lo ? a->lo - x : 0;

	if (out <= 0)
		return 0;
	if (range <= 0)
		return 1;
	return out / range / P_MARGIN;
}

static double shift_z(const struct anomaly *a, double x)
{
	uint32_t w = a->n < ANOMALY_RING ? a->n : ANOMALY_RING;
	double mean, var, s = x;

	if (w < P_MIN)
		return 0;
	mean = a->sum / w;
	var = a->sum2 / w - mean * mean;
	for (int i = 1; i < P_SHORT; i++)
		s += a->ring[(a->head + ANOMALY_RING - i) % ANOMALY_RING];
	s /= P_SHORT;
	var = var > 0 ? var : 0;
	return absolute(s - mean) /
	       (root(var) + 1e-3 * (a->hi - a->lo) + 1e-12) / P_Z;
}

static void remember(struct anomaly *a, double x)
{
	uint32_t next = (a->head + 1) % ANOMALY_RING;

	if (a->n >= ANOMALY_RING) {
		double old = a->ring[next];
		a->sum -= old;
		a->sum2 -= old * old;
	}
	a->ring[next] = x;
	a->head = next;
	a->sum += (float)x;
	a->sum2 += (double)(float)x * (float)x;
	if (!a->n || x < a->lo)
		a->lo = x;
	if (!a->n || x > a->hi)
		a->hi = x;
	a->n++;
}

double anomaly_step(struct anomaly *a, double x)
{
	double r = a->n ? range_excess(a, x) : 0;
	double z = shift_z(a, x);
	double score;

	r = r > z ? r : z;
	score = r / (1 + r); /* 1 (the margin) maps to 0.5 */
	remember(a, x);
	if (a->quiet) {
		a->quiet--;
		return score < ANOMALY_THRESHOLD * 0.99
			       ? score
			       : ANOMALY_THRESHOLD * 0.99;
	}
	if (score >= ANOMALY_THRESHOLD)
		a->quiet = P_QUIET;
	return score;
}
