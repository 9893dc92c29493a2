/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The anomaly detector on the device: a trigger source. Called once per
 * snapshot with its rows, it watches the biggest series (one per stack,
 * one metric) with a detector each (anomaly.h) and fires when one breaks
 * from its history, so a flight recorder can dump the minute before.
 * Memory is bounded: at most max_series series are watched, the rest are
 * counted. Fires are held back per series for a cool-down and globally
 * by a rate limit. Not yet wired to a collector: the trigger issue plugs
 * it in (-T anomaly).
 */
#ifndef STACKBOX_ANOMALY_WATCH_H
#define STACKBOX_ANOMALY_WATCH_H

#include <stdint.h>

#include "output.h"

/* What fired: the stack, the value against its history, the score. */
struct anomaly_cause {
	struct sb_key key; /* stack ids, process, split */
	unsigned metric;   /* index into the applet's metrics */
	double value;	   /* this snapshot's */
	double baseline;   /* the series' running mean before it */
	double score;	   /* the detector's, >= ANOMALY_THRESHOLD to fire */
	bool appeared;	   /* a stack never seen in any row before */
	uint64_t when_ns;  /* the snapshot's time, as given */
};

struct anomaly_watch_ops {
	void *ctx;
	/* a series broke from its history (not held back) */
	void (*fire)(void *ctx, const struct anomaly_cause *c);
	/* the series that fired scores normal again */
	void (*clear)(void *ctx, const struct anomaly_cause *c);
};

struct anomaly_watch_cfg {
	unsigned max_series;  /* watch at most this many, the biggest */
	unsigned metric;      /* the rows' value watched */
	uint64_t cooldown_ns; /* per series: no fire within this of its last */
	unsigned max_fires;   /* globally: at most this many fires ... */
	uint64_t per_ns;      /* ... in any window this long */
};

struct anomaly_watch_stats {
	uint64_t snapshots;
	uint64_t rows_unwatched; /* rows not among the biggest, summed */
	uint64_t evicted;	 /* series dropped for a bigger one */
	uint64_t fired, cleared;
	uint64_t held_cooldown, held_rate; /* alarms held back */
};

struct anomaly_watch;
struct anomaly_watch *anomaly_watch_new(const struct anomaly_watch_cfg *cfg,
					const struct anomaly_watch_ops *ops);
/* One snapshot's rows (any order); now_ns: its time. Returns the number
 * of fires. */
unsigned anomaly_watch_snapshot(struct anomaly_watch *w, const struct row *rows,
				size_t n, uint64_t now_ns);
const struct anomaly_watch_stats *
anomaly_watch_stats(const struct anomaly_watch *w);
/* Bytes the watch holds, all allocated by anomaly_watch_new. */
size_t anomaly_watch_bytes(const struct anomaly_watch *w);
void anomaly_watch_free(struct anomaly_watch *w);

#endif
