/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memstack's kernel hooks for the modes without uprobes: the mmap, munmap
 * and brk syscalls (--mode mmap), the kmem tracepoints (--mode kernel)
 * and the page-fault perf event (--mode faults).
 */
#ifndef STACKBOX_MEMSTACK_HOOKS_H
#define STACKBOX_MEMSTACK_HOOKS_H

struct collector;
struct memstack_bpf;

/* Loads the syscalls tracepoints' programs, else the raw_tp ones; says
 * which, for -v. */
const char *ms_choose_syscalls(struct memstack_bpf *s);
/* Where each kmem tracepoint keeps its fields; loads the programs of
 * those this kernel has, and exits without kmalloc or kfree. */
void ms_choose_kevents(struct memstack_bpf *s);
int ms_attach_faults(struct collector *c, struct memstack_bpf *s);

#endif
