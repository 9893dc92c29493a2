// SPDX-License-Identifier: GPL-2.0
/*
 * Open addressing over slots that hold the key's address and 32 bits of
 * its hash: a probe rejects other keys without touching them, and a hit
 * reads the slot and the key, its length just before it. Keys are
 * copied into a pool, not one allocation each.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "pool.h"
#include "stackbox.h"

struct intern_slot {
	const char *key; /* NULL: empty */
	uint32_t tag;	 /* the hash's high half */
	uint32_t index;
};

#define MUL 0x9e3779b97f4a7c15ULL

/* A word at a time: a multiply and a shift per 8 bytes, against a
 * multiply per byte for FNV, with the bits mixed at the end so the low
 * ones (the slot) depend on every byte. */
uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = n * MUL, w;

	for (; n >= 8; n -= 8, c += 8) {
		memcpy(&w, c, 8);
		h = (h ^ w) * MUL;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		memcpy(&w, c, n);
		h = (h ^ w) * MUL;
	}
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static void rehash(struct intern *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024;
	struct intern_slot *slot = xzalloc(ns * sizeof(*slot));

	for (size_t j = 0; j < t->nslots; j++) {
		const struct intern_slot *s = &t->slot[j];
		size_t i;

		if (!s->key)
			continue;
		i = hash_bytes(s->key, intern_len(t, s->index)) & (ns - 1);
		while (slot[i].key)
			i = (i + 1) & (ns - 1);
		slot[i] = *s;
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = ns;
}

/* The key, its length before it and a NUL after. */
static char *store(struct intern *t, const void *k, size_t n)
{
	char *at = pool_alloc(&t->pool, sizeof(n) + n + 1);

	memcpy(at, &n, sizeof(n));
	at += sizeof(n);
	memcpy(at, k, n);
	at[n] = 0;
	return at;
}

size_t intern_add(struct intern *t, const void *k, size_t n)
{
	uint64_t h;
	uint32_t tag;
	size_t i;

	if ((t->n + 1) * 2 > t->nslots)
		rehash(t);
	h = hash_bytes(k, n);
	tag = h >> 32;
	for (i = h & (t->nslots - 1); t->slot[i].key;
	     i = (i + 1) & (t->nslots - 1)) {
		const struct intern_slot *s = &t->slot[i];

		if (s->tag == tag && ((const size_t *)s->key)[-1] == n &&
		    !memcmp(s->key, k, n))
			return s->index;
	}
	t->key = grow_array(t->key, &t->cap, t->n + 1, sizeof(*t->key));
	t->key[t->n] = store(t, k, n);
	t->slot[i] = (struct intern_slot){t->key[t->n], tag, t->n};
	return t->n++;
}

void intern_free(struct intern *t)
{
	pool_clear(&t->pool);
	free(t->key);
	free(t->slot);
	*t = (struct intern){0};
}
