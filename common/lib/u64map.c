// SPDX-License-Identifier: GPL-2.0
/* The one u64-keyed hash map: dictionaries, previous counts, sets. */
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"
#include "u64map.h"

static size_t vsize(const struct u64map *m)
{
	return m->vsize ? m->vsize : sizeof(uint64_t);
}

static size_t slot_of(const struct u64map *m, uint64_t k)
{
	size_t i = (k * 0x9e3779b97f4a7c15ULL >> 20) & (m->cap - 1);

	while (m->used[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void u64map_free(struct u64map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	*m = (struct u64map){.vsize = m->vsize};
}

static void grow(struct u64map *m)
{
	struct u64map old = *m;
	size_t vs = vsize(m);

	m->cap = old.cap ? old.cap * 2 : 256;
	m->n = 0;
	m->key = xmalloc(m->cap * sizeof(*m->key));
	m->val = xmalloc(m->cap * vs);
	m->used = xzalloc(m->cap);
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			memcpy(u64map_add(m, old.key[i]), old.val + i * vs, vs);
	u64map_free(&old);
}

void *u64map_find(const struct u64map *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot_of(m, k);
	return m->used[i] ? m->val + i * vsize(m) : NULL;
}

void *u64map_add(struct u64map *m, uint64_t k)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	i = slot_of(m, k);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->key[i] = k;
		memset(m->val + i * vsize(m), 0, vsize(m));
		m->n++;
	}
	return m->val + i * vsize(m);
}

bool u64map_get(const struct u64map *m, uint64_t k, uint64_t *v)
{
	const void *p = u64map_find(m, k);

	if (p && v)
		memcpy(v, p, sizeof(*v));
	return p != NULL;
}

void u64map_put(struct u64map *m, uint64_t k, uint64_t v)
{
	memcpy(u64map_add(m, k), &v, sizeof(v));
}

bool u64map_next(const struct u64map *m, size_t *i, uint64_t *k, void **v)
{
	for (; *i < m->cap; (*i)++)
		if (m->used[*i]) {
			*k = m->key[*i];
			*v = m->val + *i * vsize(m);
			(*i)++;
			return true;
		}
	return false;
}
