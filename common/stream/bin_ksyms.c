// SPDX-License-Identifier: GPL-2.0
/* Recorded kernel symbols in address order; see bin_ksyms.h. */
#include <stdlib.h>
#include <string.h>

#include "bin_ksyms.h"
#include "stackbox.h"
#include "syms.h"

struct kpair {
	uint64_t addr;
	size_t i; /* its place in the dictionary: ties keep that order */
};

struct bin_ksyms {
	struct kpair *order; /* the n pairs seen, by address */
	uint64_t *addr;	     /* the pairs seen, in dictionary order */
	const char **name;
	size_t n, cap;
};

struct bin_ksyms *bin_ksyms_new(void)
{
	return xzalloc(sizeof(struct bin_ksyms));
}

static int by_addr(const void *a, const void *b)
{
	const struct kpair *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Pairs from seen on, sorted, merged into order[0, seen) from the back. */
static void merge_new(struct bin_ksyms *k, const uint64_t *addr, size_t seen,
		      size_t n)
{
	size_t t = n - seen, i = seen, j = t, at = n;
	struct kpair *add = xmalloc((t + 1) * sizeof(*add));

	for (size_t p = 0; p < t; p++)
		add[p] = (struct kpair){addr[seen + p], seen + p};
	qsort(add, t, sizeof(*add), by_addr);
	while (j)
		k->order[--at] = i && by_addr(&k->order[i - 1], &add[j - 1]) > 0
					 ? k->order[--i]
					 : add[--j];
	free(add);
}

struct ksyms *bin_ksyms_build(struct bin_ksyms *k, const uint64_t *addr,
			      const char *const *name, size_t n)
{
	size_t seen = k->n;
	uint64_t *a = xmalloc((n + 1) * sizeof(*a));
	const char **nm = xmalloc((n + 1) * sizeof(*nm));
	struct ksyms *ks;

	if (seen > n || (seen && (memcmp(k->addr, addr, seen * sizeof(*addr)) ||
				  memcmp(k->name, name, seen * sizeof(*name)))))
		seen = 0; /* another dictionary */
	if (n + 1 > k->cap) {
		k->order =
			grow_array(k->order, &k->cap, n + 1, sizeof(*k->order));
		k->addr = xrealloc(k->addr, k->cap * sizeof(*k->addr));
		k->name = xrealloc(k->name, k->cap * sizeof(*k->name));
	}
	if (n > seen) {
		merge_new(k, addr, seen, n);
		memcpy(k->addr + seen, addr + seen, (n - seen) * sizeof(*addr));
		memcpy(k->name + seen, name + seen, (n - seen) * sizeof(*name));
	}
	k->n = n;
	/* in address order, ksyms' own sort has nothing left to do */
	for (size_t p = 0; p < n; p++) {
		a[p] = addr[k->order[p].i];
		nm[p] = name[k->order[p].i];
	}
	ks = ksyms_from_pairs(a, nm, n);
	free(a);
	free(nm);
	return ks;
}

void bin_ksyms_free(struct bin_ksyms *k)
{
	if (!k)
		return;
	free(k->order);
	free(k->addr);
	free(k->name);
	free(k);
}
