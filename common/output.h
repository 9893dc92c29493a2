/* SPDX-License-Identifier: GPL-2.0 */
/* A snapshot as the formats see it: resolved rows, counters, header. */
#ifndef STACKBOX_OUTPUT_H
#define STACKBOX_OUTPUT_H

#include <time.h>

#include "collect.h"

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

void format_text(FILE *f, const struct snapshot *s, long long top);
/* The core's counters in text's "lost:" line (report reads them back):
 * "lost: 3 user stacks, 1 events (row map full)", only those not zero,
 * then the applet's own; "lost: none" when all are. */
#define LOST_USTACKS "user stacks"
#define LOST_KSTACKS "kernel stacks"
#define LOST_ROWS    "events (row map full)"
#define LOST_EVENTS  "process events"
void format_folded(FILE *f, const struct snapshot *s);
/* Human form of a value of the given kind: "20.4 ms", "1.5 MiB", "42". */
const char *format_value(char *buf, size_t len, enum metric_kind kind, __u64 v);
/* Metric m of values v (a row's, or the totals), ratios worked out. */
const char *format_metric(char *buf, size_t len, const struct metric *m,
			  const __u64 *v, unsigned index);

#endif
