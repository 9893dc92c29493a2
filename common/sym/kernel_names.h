/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel frames named by the running kernel, one address at a time
 * (collect.bpf.h's sb_ksym), and cached: no /proc/kallsyms table.
 */
#ifndef STACKBOX_KERNEL_NAMES_H
#define STACKBOX_KERNEL_NAMES_H

#include <bpf/libbpf.h>
#include <stdint.h>

struct kernel_names;

/* After load. NULL where the kernel cannot (no bpf_snprintf, before
 * 5.13): /proc/kallsyms then. */
struct kernel_names *kernel_names_open(struct bpf_object *obj);
/* ip's function, or NULL when no symbol holds it. Valid until _free. */
const char *kernel_names_lookup(struct kernel_names *kn, uint64_t ip);
/* How many addresses the kernel was asked about. */
unsigned long kernel_names_asked(const struct kernel_names *kn);
void kernel_names_free(struct kernel_names *kn);

#endif
