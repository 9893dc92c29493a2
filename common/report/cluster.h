/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Agglomerative clustering of stacks with a distance cut, no preset
 * number of clusters: what report --anomalies uses to group the changes
 * of one time window into "these stacks under decode_frame grew".
 */
#ifndef STACKBOX_CLUSTER_H
#define STACKBOX_CLUSTER_H

#include <stddef.h>

/* One stack to cluster: frames root first; items of different kinds
 * never share a cluster. */
struct cluster_item {
	const char *const *frame;
	unsigned n;
	int kind;
};

/* Clusters whose average distance is below this are merged. */
#define CLUSTER_CUT 0.4

/* 0 for the same path, 1 for nothing in common: the share of the longer
 * stack that is not on the path both take from the root. Frames alike
 * past the first difference (a memcpy under two callers) count for
 * nothing. */
double cluster_distance(const struct cluster_item *a,
			const struct cluster_item *b);
/* Average linkage, merged while the closest pair is under cut: each
 * item's cluster, numbered from 0 in order of their first item, in
 * cluster[]; returns the number of clusters. */
unsigned cluster_stacks(const struct cluster_item *it, size_t n, double cut,
			unsigned *cluster);
/* Frames the members (cluster[i] == c) share from the root; the deepest
 * of them, frame[depth - 1] of any member, labels the cluster. */
unsigned cluster_shared_depth(const struct cluster_item *it, size_t n,
			      const unsigned *cluster, unsigned c);

#endif
