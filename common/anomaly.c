// SPDX-License-Identifier: GPL-2.0
/*
 * First cut of the detector: a point is scored by how far it leaves the
 * running range of the points before it, in units of that range. A first
 * step that later commits replace; the API (anomaly.h) stays.
 */
#include <string.h>

#include "anomaly.h"

/* Points in which a second alarm is held back after one. */
#define QUIET_POINTS 50
/* Leaving the range by this share of it scores 0.5; twice as far, 1. */
#define RANGE_MARGIN 0.05

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
	out /= 2 * RANGE_MARGIN * range;
	return out > 1 ? 1 : out;
}

double anomaly_step(struct anomaly *a, double x)
{
	double score = a->n ? range_excess(a, x) : 0;

	if (!a->n || x < a->lo)
		a->lo = x;
	if (!a->n || x > a->hi)
		a->hi = x;
	a->n++;
	if (a->quiet) {
		a->quiet--;
		return score < ANOMALY_THRESHOLD ? score
						 : ANOMALY_THRESHOLD * 0.99;
	}
	if (score >= ANOMALY_THRESHOLD)
		a->quiet = QUIET_POINTS;
	return score;
}
