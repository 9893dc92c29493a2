/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel memory a BPF object's maps take at the sizes the options
 * gave them, and the ceiling no option may take them past: a typo in
 * --stacks must not ask a head unit for gigabytes it cannot give back.
 */
#ifndef STACKBOX_MAPMEM_H
#define STACKBOX_MAPMEM_H

#include <stdint.h>

struct bpf_object;

/* Bytes of kernel memory the maps and the recorder (-R) may use here:
 * an eighth of the machine's memory, at most 256 MiB. */
uint64_t mem_ceiling(void);

/* What the object's maps take at their sizes now: the figure -v's
 * "memory: maps" line says, and stackbox check gives per applet. */
uint64_t mem_maps(const struct bpf_object *obj);

/* Exit naming the largest map and its option when the maps (and extra
 * bytes of the process's own, the recorder's bound) pass the ceiling;
 * -v says the figure otherwise. */
void mem_check(const struct bpf_object *obj, uint64_t extra);

#endif
