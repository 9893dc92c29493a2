/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF object's large preallocated hash maps, created in a thread while
 * the start goes on (mapmake.c).
 */
#ifndef STACKBOX_MAPMAKE_H
#define STACKBOX_MAPMAKE_H

struct bpf_object;
struct map_maker;

/* Start creating obj's large preallocated hash maps, as they are
 * defined and sized now; NULL when there are none or no thread. */
struct map_maker *map_maker_start(struct bpf_object *obj);

/* Wait for them and give obj each one still defined as it was made;
 * libbpf creates the others at load, as it would have. Frees m. */
void map_maker_finish(struct map_maker *m, struct bpf_object *obj);

#endif
