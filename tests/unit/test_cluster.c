// SPDX-License-Identifier: GPL-2.0
// layer: report
/*
 * Clustering of changed stacks (common/report/cluster.c) on synthetic
 * stacks: a subtree that changed together is one cluster labelled by its
 * deepest shared frame, an unrelated change is another, kinds never mix,
 * and the number of clusters is not preset.
 */
#include "check.h"
#include "cluster.h"

#define STACK(...) ((const char *const[]){__VA_ARGS__})
#define ITEM(kind, ...)                                                    \
	{                                                                  \
		STACK(__VA_ARGS__),                                        \
			sizeof(STACK(__VA_ARGS__)) / sizeof(const char *), \
			kind                                               \
	}

static const struct cluster_item items[] = {
	/* the subtree under decode_frame, all grew */
	ITEM(0, "app", "main", "loop", "decode_frame", "slice", "mb", "luma",
	     "idct"),
	ITEM(0, "app", "main", "loop", "decode_frame", "slice", "mb", "chroma",
	     "idct"),
	ITEM(0, "app", "main", "loop", "decode_frame", "slice", "mb", "luma",
	     "mc"),
	ITEM(0, "app", "main", "loop", "decode_frame", "slice", "deblock",
	     "filter"),
	/* unrelated: the logger thread, also grew */
	ITEM(0, "app", "start_thread", "logger", "format", "vsnprintf"),
	/* under the same loop but far from the subtree's leaves */
	ITEM(0, "app", "main", "loop", "poll_input", "read"),
	/* the subtree again, but a different kind of change */
	ITEM(1, "app", "main", "loop", "decode_frame", "slice", "mb", "luma",
	     "idct"),
};

int main(void)
{
	size_t n = sizeof(items) / sizeof(*items);
	unsigned c[sizeof(items) / sizeof(*items)], k, depth;

	CHECK("cluster: the same path is distance 0",
	      cluster_distance(&items[0], &items[0]) == 0, "%.2f",
	      cluster_distance(&items[0], &items[0]));
	CHECK("cluster: nothing shared past the comm is far",
	      cluster_distance(&items[0], &items[4]) > 0.8, "%.2f",
	      cluster_distance(&items[0], &items[4]));
	CHECK("cluster: siblings under mb are close",
	      cluster_distance(&items[0], &items[1]) < CLUSTER_CUT, "%.2f",
	      cluster_distance(&items[0], &items[1]));
	CHECK("cluster: a same leaf under other callers counts for nothing",
	      cluster_distance(&items[0], &items[5]) > CLUSTER_CUT, "%.2f",
	      cluster_distance(&items[0], &items[5]));
	k = cluster_stacks(items, n, CLUSTER_CUT, c);
	CHECK_INT("cluster: 4 clusters, none preset", k, 4);
	CHECK("cluster: the decode_frame subtree is one cluster",
	      c[0] == c[1] && c[1] == c[2] && c[2] == c[3], "%u %u %u %u", c[0],
	      c[1], c[2], c[3]);
	CHECK("cluster: the unrelated logger change is another", c[4] != c[0],
	      "%u", c[4]);
	CHECK("cluster: poll_input, shared only to loop, is another",
	      c[5] != c[0] && c[5] != c[4], "%u", c[5]);
	CHECK("cluster: another kind of change never joins", c[6] != c[0], "%u",
	      c[6]);
	depth = cluster_shared_depth(items, n, c, c[0]);
	CHECK_STR("cluster: labelled by the deepest shared frame",
		  depth ? items[0].frame[depth - 1] : "-", "slice");
	depth = cluster_shared_depth(items, n, c, c[4]);
	CHECK_STR("cluster: a cluster of one is labelled by its leaf",
		  items[4].frame[depth - 1], "vsnprintf");
	/* ids numbered by first item: the same input, the same answer */
	CHECK("cluster: numbered in order of their first item",
	      c[0] == 0 && c[4] == 1 && c[5] == 2 && c[6] == 3, "%u %u %u %u",
	      c[0], c[4], c[5], c[6]);
	return check_failed != 0;
}
