/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a stack's frames, as every format shows them: kernel
 * frames through the running kernel's names, kallsyms or a recording's;
 * user frames through the process's files, with the calls inlined at
 * each address and the caller a leaf's walk lost, or [module+offset]
 * where a file names nothing there. Frames of our own BPF programs and
 * the tracing that runs them end a kernel stack. Names live in a pool
 * until frames_clear(), once a snapshot is written.
 */
#ifndef STACKBOX_FRAMES_H
#define STACKBOX_FRAMES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "pool.h"

struct frames {
	struct stack_cache *stacks; /* the ids' addresses */
	struct ksyms *ksyms;	    /* loaded at the first kernel frame */
	bool ksyms_tried;
	struct kernel_names *knames; /* the running kernel's, before ksyms */
	struct proc_syms *procs;     /* user frames; NULL: addresses */
	struct pool names;	     /* this snapshot's names and arrays */
	/* frames_of() builds a stack here, then keeps n of them */
	const char **frame_buf;
	bool *inlined_buf;
	size_t frame_cap, inlined_cap;
	unsigned long unnamed; /* user frames shown as [module+offset] */
};

/* Frames root to leaf for one stack id; *n = 0 when there is none. A
 * lost stack is one frame saying so (*lost counts ids the cache no
 * longer has). A user stack's inlined calls are marked in *inlined
 * (NULL when it has none; inlined may be NULL when not wanted). */
const char **frames_of(struct frames *fr, __u64 id, __u32 tgid, bool kernel,
		       unsigned *n, __u64 *lost, const bool **inlined);
/* A kernel address's function, or NULL. */
const char *frames_kernel_sym(struct frames *fr, __u64 ip);
/* The snapshot is written: its names go. */
void frames_clear(struct frames *fr);
/* Everything, with ksyms and procs. */
void frames_free(struct frames *fr);

#endif
