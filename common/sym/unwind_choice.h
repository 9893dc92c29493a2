/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind auto, the default: which walk each file's code needs, decided
 * from its .eh_frame table (which strip keeps, where a prologue check
 * needs symbols), and so which walk a process gets: the kernel's
 * frame-pointer walk when every file it maps keeps frame records, the
 * tables (bpf/unwind.bpf.h) when one has code without them. Each file is
 * read once a run; -v says what each got and why.
 */
#ifndef STACKBOX_UNWIND_CHOICE_H
#define STACKBOX_UNWIND_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "ehframe.h"
#include "sb.h"

enum file_walk {
	WALK_FP,    /* its code keeps frame records: frame pointers */
	WALK_TABLE, /* code without them that its table covers */
	WALK_NONE,  /* no table (or another machine's): frame pointers */
};

/* What a table says of its code: WALK_FP when it covers at least half
 * of the file's code (code bytes, its executable sections) and at least
 * half of what it covers finds its CFA from the frame pointer (the body
 * of every function that sets one up), else WALK_TABLE; WALK_NONE
 * without rows. *fp_pct and *cfi_pct are those shares. */
enum file_walk walk_of_rows(const struct cfa_row *rows, size_t n,
			    unsigned long long code, unsigned *fp_pct,
			    unsigned *cfi_pct);
/* The bytes of the ELF file at path's executable sections; 0 unknown. */
unsigned long long walk_code_bytes(const char *path);

/* The C library and its loader (glibc's libc, ld.so, libm, libpthread;
 * musl's libc): without frame pointers on every distribution, but only
 * at the leaves and the outermost frames of a program, where leaf repair
 * puts back the caller the frame-pointer walk loses. They alone do not
 * make a process need the tables. */
bool walk_c_library(const char *name);

/* The walks already decided, by file. */
struct walk_cache;
struct walk_cache *walk_cache_new(void);
struct proc_map;
/* The walk of m's file (key), reading its table the first time; -v says
 * the verdict once. machine: the e_machine whose code we walk. Not
 * asked of the C library, whose walk decides nothing. */
enum file_walk walk_of_file(struct walk_cache *wc,
			    const struct sb_unwind_file_key *key,
			    const struct proc_map *m, unsigned machine);
void walk_cache_free(struct walk_cache *wc);

#endif
