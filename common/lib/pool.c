// SPDX-License-Identifier: GPL-2.0
/* Memory given back all at once (pool.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "stackbox.h"

/* Big enough that malloc maps it apart from the heap, where freeing it
 * gives the pages back */
#define CHUNK (256 * 1024)
#define ALIGN sizeof(max_align_t)

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	_Alignas(max_align_t) unsigned char data[];
};

void *pool_alloc(struct pool *p, size_t n)
{
	struct pool_chunk *c = p->chunks;
	size_t need = (n + ALIGN - 1) & ~(ALIGN - 1);
	void *at;

	if (!c || c->size - c->used < need) {
		size_t size =
			need > CHUNK - sizeof(*c) ? need : CHUNK - sizeof(*c);

		c = xmalloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		c->next = p->chunks;
		p->chunks = c;
	}
	at = c->data + c->used;
	c->used += need;
	return at;
}

void *pool_memdup(struct pool *p, const void *src, size_t n)
{
	return memcpy(pool_alloc(p, n), src, n);
}

char *pool_strdup(struct pool *p, const char *s)
{
	return pool_memdup(p, s, strlen(s) + 1);
}

char *pool_printf(struct pool *p, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		error_exit("out of memory");
	s = pool_alloc(p, n + 1);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void pool_clear(struct pool *p)
{
	while (p->chunks) {
		struct pool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
}

void pool_reset(struct pool *p)
{
	struct pool_chunk *keep = NULL;

	while (p->chunks) {
		struct pool_chunk *c = p->chunks;

		p->chunks = c->next;
		if (!keep && c->size == CHUNK - sizeof(*c))
			keep = c;
		else
			free(c);
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
		p->chunks = keep;
	}
}
