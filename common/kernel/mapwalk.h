/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one walk over a BPF hash map's entries: in batches
 * (bpf_map_lookup_batch, or lookup_and_delete_batch to take them), or
 * key by key on kernels without batch operations (before 5.6).
 */
#ifndef STACKBOX_MAPWALK_H
#define STACKBOX_MAPWALK_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each entry; key and value are only valid during the call. */
typedef void (*map_visit_fn)(const void *key, const void *value, void *ctx);

/* Visit every entry of the map fd; with take, each entry read is deleted.
 * The entries visited. Entries BPF adds meanwhile may be missed, as with
 * any walk of a live map. */
size_t map_walk(int fd, size_t key_size, size_t value_size, bool take,
		map_visit_fn visit, void *ctx);

#endif
