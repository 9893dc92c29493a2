// SPDX-License-Identifier: GPL-2.0
/*
 * Average-linkage agglomerative clustering over a distance matrix:
 * O(n^3) in the number of stacks, which is the anomalies of one time
 * window (tens), not the stacks of a profile.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "stackbox.h"

static unsigned shared_path(const struct cluster_item *a,
			    const struct cluster_item *b)
{
	unsigned c = 0;

	while (c < a->n && c < b->n && !strcmp(a->frame[c], b->frame[c]))
		c++;
	return c;
}

double cluster_distance(const struct cluster_item *a,
			const struct cluster_item *b)
{
	unsigned longer = a->n > b->n ? a->n : b->n;

	if (a->kind != b->kind)
		return 2; /* past any cut */
	if (!longer)
		return 0;
	return 1 - (double)shared_path(a, b) / longer;
}

/* Number clusters by their first item, so the result does not depend
 * on the order merges happened in. */
static unsigned renumber(unsigned *cluster, size_t n)
{
	unsigned *map = xmalloc((n + 1) * sizeof(*map)), next = 0;

	for (size_t i = 0; i < n; i++)
		map[i] = (unsigned)-1;
	for (size_t i = 0; i < n; i++) {
		if (map[cluster[i]] == (unsigned)-1)
			map[cluster[i]] = next++;
		cluster[i] = map[cluster[i]];
	}
	free(map);
	return next;
}

/* The closest pair of live clusters by average linkage; its distance. */
static double closest(const double *d, const size_t *size, size_t n, size_t *pa,
		      size_t *pb)
{
	double best = 3;

	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; size[a] && b < n; b++)
			if (size[b] && d[a * n + b] < best) {
				best = d[a * n + b];
				*pa = a;
				*pb = b;
			}
	return best;
}

unsigned cluster_stacks(const struct cluster_item *it, size_t n, double cut,
			unsigned *cluster)
{
	double *d = xmalloc((n * n + 1) * sizeof(*d));
	size_t *size = xmalloc((n + 1) * sizeof(*size)), a = 0, b = 0;
	unsigned k;

	for (size_t i = 0; i < n; i++) {
		cluster[i] = i;
		size[i] = 1;
		for (size_t j = 0; j < n; j++)
			d[i * n + j] = cluster_distance(&it[i], &it[j]);
	}
	while (n > 1 && closest(d, size, n, &a, &b) < cut) {
		/* b joins a: a's distances become the size-weighted mean */
		for (size_t j = 0; j < n; j++) {
			double m = (d[a * n + j] * size[a] +
				    d[b * n + j] * size[b]) /
				   (size[a] + size[b]);

			/* kinds never mix: a pair past any cut stays so */
			if (d[a * n + j] > 1 || d[b * n + j] > 1)
				m = 2;
			d[a * n + j] = d[j * n + a] = m;
		}
		size[a] += size[b];
		size[b] = 0;
		for (size_t i = 0; i < n; i++)
			if (cluster[i] == b)
				cluster[i] = a;
	}
	k = renumber(cluster, n);
	free(d);
	free(size);
	return k;
}

unsigned cluster_shared_depth(const struct cluster_item *it, size_t n,
			      const unsigned *cluster, unsigned c)
{
	const struct cluster_item *first = NULL;
	unsigned depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (cluster[i] != c)
			continue;
		if (!first) {
			first = &it[i];
			depth = first->n;
		} else {
			unsigned s = shared_path(first, &it[i]);

			depth = s < depth ? s : depth;
		}
	}
	return depth;
}
