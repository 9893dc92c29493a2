// SPDX-License-Identifier: GPL-2.0
/* Recorded kernel symbols by address; see bin_ksyms.h. */
#include <stdlib.h>
#include <string.h>

#include "bin_ksyms.h"
#include "stackbox.h"
#include "syms.h"
#include "u64map.h"

struct bin_ksyms {
	uint64_t *addr;	     /* the pairs seen, in dictionary order */
	const char **name;   /* as the dictionary gave them */
	char **own;	     /* our copies, which lookups return */
	struct u64map index; /* address -> its place + 1 */
	size_t n, cap;
};

struct bin_ksyms *bin_ksyms_new(void)
{
	return xzalloc(sizeof(struct bin_ksyms));
}

static void forget(struct bin_ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->own[i]);
	u64map_free(&k->index);
	k->n = 0;
}

struct ksyms *bin_ksyms_build(struct bin_ksyms *k, const uint64_t *addr,
			      const char *const *name, size_t n)
{
	if (k->n > n || (k->n && (memcmp(k->addr, addr, k->n * sizeof(*addr)) ||
				  memcmp(k->name, name, k->n * sizeof(*name)))))
		forget(k); /* another dictionary */
	if (n + 1 > k->cap) {
		k->addr = grow_array(k->addr, &k->cap, n + 1, sizeof(*k->addr));
		k->name = xrealloc(k->name, k->cap * sizeof(*k->name));
		k->own = xrealloc(k->own, k->cap * sizeof(*k->own));
	}
	for (; k->n < n; k->n++) {
		k->addr[k->n] = addr[k->n];
		k->name[k->n] = name[k->n];
		k->own[k->n] = xstrdup(name[k->n]);
		/* one name an address: the first, as the reader keeps */
		if (!u64map_get(&k->index, addr[k->n], NULL))
			u64map_put(&k->index, addr[k->n], k->n + 1);
	}
	return ksyms_exact(&k->index, (const char *const *)k->own);
}

void bin_ksyms_free(struct bin_ksyms *k)
{
	if (!k)
		return;
	forget(k);
	free(k->addr);
	free(k->name);
	free(k->own);
	free(k);
}
