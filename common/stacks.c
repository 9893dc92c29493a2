// SPDX-License-Identifier: GPL-2.0
/* The stack cache: an open-addressing table from stack id to frames. */
#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "mapwalk.h"
#include "sb.h"
#include "stackbox.h"
#include "stacks.h"

struct cached_stack {
	__u64 id; /* 0: empty slot */
	__u64 *ip;
	unsigned n;
	unsigned long used; /* interval it was last used in */
};

struct stack_cache {
	int map_fd;
	struct cached_stack *slot;
	size_t cap, count; /* cap is a power of two */
	unsigned long interval;
};

struct stack_cache *stack_cache_new(int map_fd)
{
	struct stack_cache *sc = xzalloc(sizeof(*sc));

	sc->map_fd = map_fd;
	sc->cap = 1024;
	sc->slot = xzalloc(sc->cap * sizeof(*sc->slot));
	return sc;
}

static struct cached_stack *find_slot(struct cached_stack *slot, size_t cap,
				      __u64 id)
{
	size_t i = (id ^ (id >> 32)) & (cap - 1);

	while (slot[i].id && slot[i].id != id)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static void rehash(struct stack_cache *sc, size_t cap)
{
	struct cached_stack *old = sc->slot;
	size_t oldcap = sc->cap;

	sc->slot = xzalloc(cap * sizeof(*sc->slot));
	sc->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].id)
			*find_slot(sc->slot, cap, old[i].id) = old[i];
	free(old);
}

static void insert(struct stack_cache *sc, __u64 id, const struct sb_stack *st)
{
	struct cached_stack *c;
	unsigned n = 0;

	if ((sc->count + 1) * 2 > sc->cap)
		rehash(sc, sc->cap * 2);
	c = find_slot(sc->slot, sc->cap, id);
	if (c->id) {
		c->used = sc->interval;
		return;
	}
	while (n < SB_MAX_DEPTH && st->ip[n])
		n++;
	c->id = id;
	c->n = n;
	c->ip = xmalloc(n * sizeof(*c->ip));
	memcpy(c->ip, st->ip, n * sizeof(*c->ip));
	c->used = sc->interval;
	sc->count++;
}

void stack_cache_put(struct stack_cache *sc, __u64 id, const __u64 *ip,
		     unsigned n)
{
	struct sb_stack st = {0};

	memcpy(st.ip, ip, (n < SB_MAX_DEPTH ? n : SB_MAX_DEPTH) * sizeof(*ip));
	insert(sc, id, &st);
}

static void take_stack(const void *key, const void *value, void *ctx)
{
	insert(ctx, *(const __u64 *)key, value);
}

size_t stack_cache_drain(struct stack_cache *sc)
{
	return map_walk(sc->map_fd, sizeof(__u64), sizeof(struct sb_stack),
			true, take_stack, sc);
}

const __u64 *stack_cache_get(struct stack_cache *sc, __u64 id, unsigned *n)
{
	struct cached_stack *c = find_slot(sc->slot, sc->cap, id);

	if (!c->id)
		return NULL;
	c->used = sc->interval;
	*n = c->n;
	return c->ip;
}

void stack_cache_expire(struct stack_cache *sc, unsigned keep)
{
	size_t live = 0;

	for (size_t i = 0; i < sc->cap; i++) {
		struct cached_stack *c = &sc->slot[i];

		if (c->id && sc->interval - c->used >= keep) {
			free(c->ip);
			c->id = 0;
			sc->count--;
		}
		live += !!c->id;
	}
	/* deleting from open addressing breaks probe chains: rebuild */
	rehash(sc,
	       sc->cap > 1024 && live * 8 < sc->cap ? sc->cap / 2 : sc->cap);
	sc->interval++;
}

size_t stack_cache_size(const struct stack_cache *sc)
{
	return sc->count;
}

void stack_cache_free(struct stack_cache *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->cap; i++)
		free(sc->slot[i].ip);
	free(sc->slot);
	free(sc);
}
