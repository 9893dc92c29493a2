// SPDX-License-Identifier: GPL-2.0
/*
 * Two cheap tests, the larger of them the score (docs/anomaly.md):
 *  - range: how far x leaves the running minimum..maximum of every point
 *    before it, in units of that range (a new high or low);
 *  - shift: how far the mean of the last SHIFT_POINTS points (x included)
 *    lies from the mean of the ring, in the ring's standard deviations (a
 *    change of level or of spread inside the range).
 * Each is divided by the size at which it is an anomaly, and r maps to
 * r / (1 + r): 1 becomes ANOMALY_THRESHOLD. After an alarm the score is
 * held below the threshold for QUIET_POINTS points, since NAB (and a
 * person reading a report) counts the first alarm of an event and charges
 * every further one as a false positive.
 * The constants were tuned against NAB (bench/nab.sh).
 */
#include <string.h>

#include "anomaly.h"

/* Leaving the running range by this share of it is an anomaly. */
#define RANGE_SHARE 0.0072
/* The recent mean this many standard deviations away is an anomaly. */
#define SHIFT_SIGMAS 3.2
#define SHIFT_POINTS 16
/* The shift test waits for this many points of history. */
#define MIN_POINTS   10
#define QUIET_POINTS 20

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
	for (int i = 0; i < 4; i++)
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

static double range_test(const struct anomaly *a, double x)
{
	double range = a->hi - a->lo;
	double out = x > a->hi ? x - a->hi : x < a->lo ? a->lo - x : 0;

	if (!a->n || out <= 0)
		return 0;
	if (range <= 0)
		return 1e9; /* the first change of a constant series */
	return out / range / RANGE_SHARE;
}

static float ring_back(const struct anomaly *a, uint32_t i)
{
	return a->ring[(a->head + ANOMALY_RING - i) % ANOMALY_RING];
}

static double shift_test(const struct anomaly *a, double x)
{
	uint32_t k, w = a->n < ANOMALY_RING ? a->n : ANOMALY_RING;
	double mean, var, sd, recent = x - a->origin;

	if (w < MIN_POINTS)
		return 0;
	mean = a->sum / w;
	var = a->sum2 / w - mean * mean;
	k = w < SHIFT_POINTS - 1 ? w : SHIFT_POINTS - 1;
	for (uint32_t i = 0; i < k; i++)
		recent += ring_back(a, i);
	recent /= k + 1;
	/* a floor on the deviation, so a flat line's first wobble is not
	 * infinitely surprising */
	sd = root(var) + 1e-3 * (a->hi - a->lo) + 1e-12;
	return absolute(recent - mean) / sd / SHIFT_SIGMAS;
}

/* The ring's sums, from scratch once a lap, so that adding and taking
 * away floats does not drift over millions of points. */
static void resum(struct anomaly *a)
{
	a->sum = a->sum2 = 0;
	for (uint32_t i = 0; i < ANOMALY_RING && i < a->n; i++) {
		a->sum += a->ring[i];
		a->sum2 += (double)a->ring[i] * a->ring[i];
	}
}

static void remember(struct anomaly *a, double x)
{
	uint32_t next = (a->head + 1) % ANOMALY_RING;
	float v, old = a->ring[next];

	if (!a->n) {
		a->origin = a->lo = a->hi = x;
		next = 0;
	}
	v = x - a->origin;
	if (a->n >= ANOMALY_RING) {
		a->sum -= old;
		a->sum2 -= (double)old * old;
	}
	a->ring[next] = v;
	a->head = next;
	a->sum += v;
	a->sum2 += (double)v * v;
	a->lo = x < a->lo ? x : a->lo;
	a->hi = x > a->hi ? x : a->hi;
	a->n++;
	if (next == ANOMALY_RING - 1)
		resum(a);
}

double anomaly_step(struct anomaly *a, double x)
{
	double r = range_test(a, x), s = shift_test(a, x);
	double score;

	r = r > s ? r : s;
	score = r / (1 + r) * 2 * ANOMALY_THRESHOLD;
	score = score < 1 ? score : 1;
	remember(a, x);
	if (a->quiet) {
		a->quiet--;
		return score < ANOMALY_THRESHOLD * 0.99
			       ? score
			       : ANOMALY_THRESHOLD * 0.99;
	}
	if (score >= ANOMALY_THRESHOLD)
		a->quiet = QUIET_POINTS;
	return score;
}
