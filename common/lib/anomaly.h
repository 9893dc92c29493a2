/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming anomaly detector for one time series (one stack's value per
 * interval, say). It is shared by `report --anomalies` and the device
 * side, so its state is small and fixed and its work per point constant.
 * docs/anomaly.md says how it works and how it scores on NAB.
 */
#ifndef STACKBOX_ANOMALY_H
#define STACKBOX_ANOMALY_H

#include <stdint.h>

/* Points of recent history kept (as floats, relative to the first). */
#define ANOMALY_RING 256

/* One time series' detector: constant state (at most 2 KB), constant
 * work per point, no look-ahead, deterministic. */
struct anomaly {
	uint64_t n;	  /* points seen */
	double origin;	  /* the first point: the ring holds x - origin */
	double lo, hi;	  /* running minimum and maximum of all points */
	double sum, sum2; /* of the ring's values, and of their squares */
	uint32_t head;	  /* the ring's newest slot */
	uint32_t quiet;	  /* points left in which alarms are held back */
	float ring[ANOMALY_RING];
};

void anomaly_init(struct anomaly *a);
/* The score of x against the points before it, in [0, 1]; then x
 * joins the history. */
double anomaly_step(struct anomaly *a, double x);
/* Scores at or above this are anomalies (chosen against NAB). */
#define ANOMALY_THRESHOLD 0.5

#endif
