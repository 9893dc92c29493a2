/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside report --anomalies: what its detection (anomalies.c) holds and
 * finds, and what its writers (anomalies_write.c) show of it. Streams,
 * their stacks, and the anomalies found, clustered and numbered.
 */
#ifndef STACKBOX_ANOMALIES_FOUND_H
#define STACKBOX_ANOMALIES_FOUND_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "output.h"

enum kind { APPEARED, VANISHED, GREW, SHRANK, SPIKE };

struct interval {
	double t0, t1; /* seconds since the epoch */
	__u64 total[SB_MAX_VALUES];
};

/* How many intervals of every stack's values are kept: what a finding
 * is judged on, and what its window's other metrics and flame graph
 * read. A change that lasts longer is judged on its first ones. */
#define WINDOW 512
/* The nominal interval is the median of the first this many, and
 * nothing is judged before they came: a shorter input is judged whole. */
#define NOMINAL_N WINDOW

struct track;
struct names;

struct stream {
	char *applet, *sig; /* sig: the applet and its metrics' names */
	unsigned idx;	    /* in the order streams appeared */
	struct metric metric[SB_MAX_VALUES];
	unsigned nmetrics, primary;
	struct interval *iv; /* the last WINDOW: interval i at i % WINDOW */
	size_t n;	     /* intervals seen */
	size_t used;	     /* intervals judged: a short last one is not */
	size_t busy;	     /* one past the last with a total */
	double t_first;	     /* when the first started */
	double nominal;	     /* the median interval, seconds */
	bool settled;	     /* nominal known: series are judged */
	bool final;	     /* the input ended */
	double dur[NOMINAL_N];
	double floor[SB_MAX_VALUES]; /* the smallest change that counts */
	size_t floor_at;	     /* intervals the floors were taken at */
	struct stack **sk;	     /* its stacks with a value in the window */
	size_t nsk, sk_cap;
	struct track **tr; /* the series it judges */
	size_t ntr, tr_cap;
	size_t untracked; /* series over the floor left out: TRACK_MAX */
	size_t tracked;	  /* series judged, in all */
	uint64_t reads;	  /* series values read to judge them */
};

struct stack {
	struct stream *st;
	const char **frame; /* root first: comm, user frames, kernel frames */
	unsigned nframes, nu;
	const char *aux;
	uint64_t hash;
	__u64 *pv; /* points first..n of the window: interval, values */
	size_t first, n, cap;
	struct track *tr[SB_MAX_VALUES]; /* a metric's series, if judged */
	unsigned refused;		 /* metrics left out: TRACK_MAX */
	bool held;			 /* a finding shows it */
	size_t seq;			 /* stacks in order of appearance */
	uint64_t uhash;			 /* of comm and user frames */
	struct stack *hnext;
};

struct found {
	struct stack *sk;
	unsigned metric;
	enum kind kind;
	size_t b0, i0, i1;	       /* baseline from b0, window i0..i1 */
	double t_base, t_start, t_end; /* when b0 and i0 start, i1 ends */
	double base, obs, share_base, share_obs, score;
	unsigned win, cluster, id;
	double best; /* its cluster's highest score */
	const char *label;
	bool dropped; /* merged into another metric of the same stack */
};

struct anomalies {
	struct stream **st;
	size_t nst, st_cap;
	struct stack **hash;
	struct names *names; /* every frame name, once */
	struct found *f;
	size_t nf, f_cap;
	unsigned nclusters;
	size_t nseq;	       /* stacks made */
	struct stack **row_sk; /* a snapshot's rows' stacks */
	size_t row_cap;
};

/* Another metric of the anomaly's code over its baseline and window. */
struct also {
	const struct stream *st;
	unsigned m;
	double base, obs;
};

/* Find, judge and cluster: the anomalies in output order, *out to free. */
size_t anomalies_find(struct anomalies *an, struct found ***out);
/* When the anomaly's window starts and ends, seconds since the epoch. */
double found_start(const struct found *f);
double found_end(const struct found *f);
/* Its code's other metrics, at most an->nst * SB_MAX_VALUES, in out. */
size_t found_also(const struct anomalies *an, const struct found *f,
		  struct also *out);
/* Each stack of the anomaly's stream and metric, per interval: mean
 * over the baseline and over the window (a level: where it got to).
 * -1: the baseline has left the window. */
int anomalies_diff(const struct anomalies *an, const struct found *a,
		   void (*row)(void *ctx, const char *key, double base,
			       double win),
		   void *ctx);

/* ---- anomalies_series.c: a (stack, metric) judged as it comes ---- */
/* The interval i of st, while it is in the window. */
const struct interval *stream_iv(const struct stream *st, size_t i);
/* A value as the series sees it: flows per nominal interval. */
double stream_norm(const struct stream *st, unsigned m, size_t i, __u64 v);
/* The stack's k-th point: its interval, then nmetrics values. */
static inline __u64 *stack_pt(const struct stack *sk, size_t k)
{
	return sk->pv + k * (sk->st->nmetrics + 1);
}
/* The stack's values in interval i, or NULL: none (0) or out of the
 * window. */
const __u64 *stack_point(const struct stack *sk, size_t i);
/* comm;[aux];user root..leaf;-;kernel root..leaf (anomalies_series.c) */
char *stack_key(const struct stack *sk);
/* A series from interval from; it reached the floor at high. */
struct track *track_new(struct stack *sk, unsigned m, size_t from, size_t high);
/* Judge (or learn) its points before ready; final: no more come. */
void track_run(struct anomalies *an, struct track *t, size_t ready, bool final);
/* Nothing waits, nothing is open, and it has not reached the floor in
 * a window: it can be let go. */
bool track_idle(const struct track *t, size_t ready);
void track_free(struct track *t);

#endif
