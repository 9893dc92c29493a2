// SPDX-License-Identifier: GPL-2.0
/* The stack cache: stack id to frames. */
#include <bpf/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "mapwalk.h"
#include "sb.h"
#include "stackbox.h"
#include "stacks.h"
#include "u64map.h"

struct cached_stack {
	__u64 *ip;
	unsigned n;
	unsigned long used; /* interval it was last used in */
};

struct stack_cache {
	int map_fd;
	struct u64map stacks; /* stack id -> struct cached_stack */
	unsigned long interval;
};

struct stack_cache *stack_cache_new(int map_fd)
{
	struct stack_cache *sc = xzalloc(sizeof(*sc));

	sc->map_fd = map_fd;
	sc->stacks = U64MAP_OF(struct cached_stack);
	return sc;
}

static void insert(struct stack_cache *sc, __u64 id, const struct sb_stack *st)
{
	struct cached_stack *c = u64map_find(&sc->stacks, id);
	unsigned n = 0;

	if (c) {
		c->used = sc->interval;
		return;
	}
	while (n < SB_MAX_DEPTH && st->ip[n])
		n++;
	c = u64map_add(&sc->stacks, id);
	c->n = n;
	c->ip = xmalloc(n * sizeof(*c->ip));
	memcpy(c->ip, st->ip, n * sizeof(*c->ip));
	c->used = sc->interval;
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
	struct cached_stack *c = u64map_find(&sc->stacks, id);

	if (!c)
		return NULL;
	c->used = sc->interval;
	*n = c->n;
	return c->ip;
}

/* The map never shrinks: the stacks kept move to a new one. */
void stack_cache_expire(struct stack_cache *sc, unsigned keep)
{
	struct u64map kept = U64MAP_OF(struct cached_stack);
	struct cached_stack *c;
	size_t at = 0;
	uint64_t id;
	void *v;

	while (u64map_next(&sc->stacks, &at, &id, &v)) {
		c = v;
		if (sc->interval - c->used >= keep)
			free(c->ip);
		else
			*(struct cached_stack *)u64map_add(&kept, id) = *c;
	}
	u64map_free(&sc->stacks);
	sc->stacks = kept;
	sc->interval++;
}

size_t stack_cache_size(const struct stack_cache *sc)
{
	return sc->stacks.n;
}

void stack_cache_free(struct stack_cache *sc)
{
	size_t at = 0;
	uint64_t id;
	void *v;

	if (!sc)
		return;
	while (u64map_next(&sc->stacks, &at, &id, &v))
		free(((struct cached_stack *)v)->ip);
	u64map_free(&sc->stacks);
	free(sc);
}
