/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory that lives exactly as long as one snapshot (its frame names and
 * frame arrays): taken from big chunks and given back all at once. Many
 * small allocations freed together would leave holes between the few
 * that stay (a new process's symbols, the stack cache), and the heap of
 * a long run would grow by what the holes waste.
 */
#ifndef STACKBOX_POOL_H
#define STACKBOX_POOL_H

#include <stddef.h>

struct pool_chunk;
struct pool {
	struct pool_chunk *chunks; /* the newest first */
};

/* n bytes aligned for any object; never NULL (out of memory exits). */
void *pool_alloc(struct pool *p, size_t n);
void *pool_memdup(struct pool *p, const void *src, size_t n);
char *pool_strdup(struct pool *p, const char *s);
char *pool_printf(struct pool *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Give back everything taken: what it handed out is invalid after. */
void pool_clear(struct pool *p);
/* The same, but one chunk is kept for what is taken next: a pool
 * emptied every snapshot would map, fault in and unmap it each time. */
void pool_reset(struct pool *p);

#endif
