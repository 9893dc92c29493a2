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

#include "output.h"

enum kind { APPEARED, VANISHED, GREW, SHRANK, SPIKE };

struct interval {
	double t0, t1; /* seconds since the epoch */
	__u64 total[SB_MAX_VALUES];
};

struct stream {
	char *applet, *sig; /* sig: the applet and its metrics' names */
	struct metric metric[SB_MAX_VALUES];
	unsigned nmetrics, primary;
	struct interval *iv;
	size_t n, cap;
	size_t used;	/* intervals judged: a short last one is not */
	double nominal; /* the median interval, seconds */
};

struct point {
	size_t at;
	__u64 v[SB_MAX_VALUES];
};

struct stack {
	struct stream *st;
	char *key;    /* comm;[aux];user root..leaf;-;kernel root..leaf */
	char *ukey;   /* comm;user root..leaf: the same code in other applets */
	char **frame; /* root first: comm, user frames, kernel frames */
	unsigned nframes, nu;
	const char *aux;
	struct point *p;
	size_t n, cap;
	struct stack *hnext;
};

struct found {
	struct stack *sk;
	unsigned metric;
	enum kind kind;
	size_t b0, i0, i1; /* baseline from b0, window i0..i1 */
	double base, obs, share_base, share_obs, score;
	unsigned win, cluster, id;
	double best; /* its cluster's highest score */
	const char *label;
	bool dropped; /* merged into another metric of the same stack */
};

struct anomalies {
	struct stream **st;
	size_t nst, st_cap;
	struct stack **sk;
	size_t nsk, sk_cap;
	struct stack **hash;
	struct found *f;
	size_t nf, f_cap;
	unsigned nclusters;
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
 * over the baseline and over the window (a level: where it got to). */
void anomalies_diff(const struct anomalies *an, const struct found *a,
		    void (*row)(void *ctx, const char *key, double base,
				double win),
		    void *ctx);

#endif
