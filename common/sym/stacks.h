/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space's copy of the BPF stack map. Every interval the map is
 * drained into this cache, so the map only ever holds stacks new since
 * the last drain; ids are hashes of the frames, so a cached stack stays
 * valid for as long as it is kept.
 */
#ifndef STACKBOX_STACKS_H
#define STACKBOX_STACKS_H

#include <linux/types.h>
#include <stddef.h>

struct stack_cache;

struct stack_cache *stack_cache_new(int map_fd);
/* Move every stack in the BPF map into the cache; returns how many. */
size_t stack_cache_drain(struct stack_cache *sc);
/* Frames leaf first and their number, or NULL when the id is unknown.
 * Marks the stack used in the current interval. */
const __u64 *stack_cache_get(struct stack_cache *sc, __u64 id, unsigned *n);
/* End of an interval: forget stacks unused for the last keep intervals. */
void stack_cache_expire(struct stack_cache *sc, unsigned keep);
/* Add a stack known otherwise (report: from a recording), leaf first. */
void stack_cache_put(struct stack_cache *sc, __u64 id, const __u64 *ip,
		     unsigned n);
size_t stack_cache_size(const struct stack_cache *sc);
void stack_cache_free(struct stack_cache *sc);

#endif
