/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data model every layer above the symbols shares: what a value
 * measures (struct metric), a snapshot of resolved rows with its
 * counters and header, and the marks written with it. The collector
 * fills it, the formats write it, report reads it back from a stream.
 */
#ifndef STACKBOX_SNAPSHOT_H
#define STACKBOX_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>
#include <time.h>

#include "sb.h"

enum metric_kind { METRIC_COUNT, METRIC_NS, METRIC_BYTES, METRIC_RATIO };
/* What a value measures, for report (pprof types, SVG colours); the
 * default follows the kind: ns are time blocked, bytes are bytes. */
enum metric_measure {
	MEASURE_OF_KIND,
	MEASURE_COUNT,
	MEASURE_CPU_TIME,
	MEASURE_BLOCKED_TIME,
	MEASURE_BYTES,
	MEASURE_MEMORY, /* bytes of memory held or allocated */
	MEASURE_PAGES,
};
struct metric {
	const char *name;      /* "samples", "blocked" */
	enum metric_kind kind; /* how text prints it and its unit */
	/* METRIC_RATIO: v[num] / v[den] of the same row (or of the totals),
	 * shown by text as a percentage; BPF never counts it, folded and
	 * pprof leave it out. */
	unsigned char num, den;
	/* A level at the snapshot (memory held), not a count over its
	 * interval: a profile of many snapshots takes the last, not the
	 * sum. */
	bool level;
	enum metric_measure measure;
};

static inline enum metric_measure metric_measure(const struct metric *m)
{
	if (m->measure != MEASURE_OF_KIND)
		return m->measure;
	return m->kind == METRIC_NS	 ? MEASURE_BLOCKED_TIME
	       : m->kind == METRIC_BYTES ? MEASURE_BYTES
					 : MEASURE_COUNT;
}

struct row {
	struct sb_key key;
	__u64 v[SB_MAX_VALUES];
	/* frames root to leaf; NULL when that stack was not collected */
	const char **ustack, **kstack;
	unsigned nu, nk;
	/* per ustack frame, true for a call inlined into the frame before
	 * it (at the same address); NULL when none is */
	const bool *uinlined;
	/* the key's other task (offcpu -w: the waker), root to leaf */
	const char **other_ustack, **other_kstack;
	unsigned other_nu, other_nk;
	const char *cgroup; /* path, or NULL when unknown */
	__u32 nspid;	    /* the pid in its own namespace; 0: the same */
};

/* A trigger's firing or clearing, or the flight recorder's window,
 * written with the snapshot that follows it (docs/triggers.md). */
enum mark_kind { MARK_FIRED = 1, MARK_CLEARED, MARK_WINDOW, MARK_MAX };
struct mark {
	unsigned long n; /* 1, 2, ... in the run */
	enum mark_kind kind;
	struct timespec when; /* CLOCK_REALTIME */
	const char *cause;
};
extern const char *const mark_kind_name[MARK_MAX];

struct snapshot {
	const char *applet;
	unsigned long seq; /* 1, 2, ... */
	bool final;
	struct timespec start, end; /* CLOCK_REALTIME, unless boot_clock */
	/* start and end count from boot (perf's clock, report's perf script
	 * input): no date to print, nor to send as one */
	bool boot_clock;
	const struct metric *metrics;
	unsigned nmetrics;
	/* the metric rows are sorted by, text's share is of, and folded
	 * and flame graphs show (iostack --value): an index of metrics */
	unsigned primary;
	const char *describe; /* applet's header line, may be "" */
	__u64 period_ns;      /* what one count stands for; 0: not sampled */
	const char *(*aux_name)(__u32 aux);
	bool per_thread;
	struct row *rows; /* sorted by v[primary], biggest first */
	size_t nrows;
	__u64 total[SB_MAX_VALUES];
	/* what could not be counted in this interval */
	__u64 lost_ustacks, lost_kstacks, dropped_rows, dropped_events;
	/* --unwind eh_frame: its tables, and the user stacks walked by frame
	 * pointer before their process's code was known; NULL: fp */
	const char *unwind;
	__u64 unwind_unknown;
	/* rows carry their frames named already (report's perf script
	 * input): there are no stack ids to resolve */
	bool resolved;
	const char *const *applet_stat_names; /* and their counts: */
	__u64 applet_stats[SB_STAT_MAX - SB_STAT_APPLET0];
	const struct mark *marks; /* since the last snapshot written */
	unsigned nmarks;
};

#endif
