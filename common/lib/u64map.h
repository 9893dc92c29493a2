/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash map from u64 keys to values of one size (a u64 unless said):
 * open addressing, never shrinks. A zeroed struct is an empty map of u64
 * values; U64MAP_OF(type) one of another value type.
 */
#ifndef STACKBOX_U64MAP_H
#define STACKBOX_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *key;
	unsigned char *val, *used;
	size_t vsize; /* bytes per value; 0: a u64 */
	size_t cap, n;
};

#define U64MAP_OF(type) ((struct u64map){.vsize = sizeof(type)})

/* k's value, or NULL. */
void *u64map_find(const struct u64map *m, uint64_t k);
/* k's value, added zeroed when k is new. */
void *u64map_add(struct u64map *m, uint64_t k);
/* The same for u64 values. */
bool u64map_get(const struct u64map *m, uint64_t k, uint64_t *v);
void u64map_put(struct u64map *m, uint64_t k, uint64_t v);
/* The entry at or after slot *i, in no order: its key and value; false
 * at the end. Start with *i = 0, then one past the last entry's. */
bool u64map_next(const struct u64map *m, size_t *i, uint64_t *k, void **v);
/* Empty it, keeping its value size. */
void u64map_free(struct u64map *m);

#endif
