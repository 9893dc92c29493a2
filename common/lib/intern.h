/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of distinct byte strings (names, or arrays of ids), each given
 * the next index, 0 first, when first added; kept until intern_free. A
 * key's bytes are 8-byte aligned and followed by a NUL, so a string key
 * reads as a C string and an array of integers as one. A zeroed struct
 * is an empty table.
 */
#ifndef STACKBOX_INTERN_H
#define STACKBOX_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "pool.h"

struct intern_slot;

struct intern {
	char **key; /* by index */
	size_t n, cap;
	struct intern_slot *slot;
	size_t nslots;
	struct pool pool; /* the keys */
};

/* A 64-bit hash of n bytes, read a word at a time. */
uint64_t hash_bytes(const void *p, size_t n);
/* The key's index, adding it when new. */
size_t intern_add(struct intern *t, const void *k, size_t n);
/* Index i's key and its length. */
static inline const char *intern_key(const struct intern *t, size_t i)
{
	return t->key[i];
}
static inline size_t intern_len(const struct intern *t, size_t i)
{
	return ((const size_t *)t->key[i])[-1];
}
void intern_free(struct intern *t);

#endif
