/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Struct layouts from the running kernel's BTF, for BPF programs that
 * read kernel memory at offsets passed in .rodata instead of CO-RE
 * relocations (which would make the whole object need kernel BTF).
 */
#ifndef STACKBOX_KBTF_H
#define STACKBOX_KBTF_H

#include <stdbool.h>

struct btf;

/* Is /sys/kernel/btf/vmlinux there, readable and not empty? */
bool kbtf_available(void);
/* Byte offset of member in struct type, looking into anonymous structs
 * and unions as C does; *size is the member's size when size is not
 * NULL. -1 when there is no such member. */
int kbtf_member(const struct btf *btf, const char *type, const char *member,
		unsigned *size);

#endif
