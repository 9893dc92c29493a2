/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the table walk (--unwind eh_frame, the default's) runs on this
 * kernel: with bpf_loop (5.17+) or in the bounded loop any kernel's
 * verifier takes (bpf/unwind_bounded.bpf.h), and where it finds the
 * user's registers: bpf_task_pt_regs (kernel BTF, 5.17+ here) or the
 * top of the task's kernel stack, at task_struct.stack's offset from
 * any kernel types (--btf, the built-in minimal BTF).
 */
#ifndef STACKBOX_UNWIND_WALK_H
#define STACKBOX_UNWIND_WALK_H

#include <stdbool.h>

struct unwind_walk {
	bool bounded;		 /* no bpf_loop: SB_WALK_BOUNDED */
	unsigned task_stack_off; /* 0: bpf_task_pt_regs */
};

/* Whether the walk loops without bpf_loop here (SB_WALK_BOUNDED):
 * before 5.17, or as STACKBOX_UNWIND_WALK says. */
bool unwind_walk_bounded(void);
/* This kernel's walk into w; NULL, or what it lacks for any (one
 * phrase: the feature and where it comes from). */
const char *unwind_walk_choose(struct unwind_walk *w);
/* The walk in a few words, for -v and check ("bpf_loop, registers by
 * bpf_task_pt_regs"). */
void unwind_walk_words(const struct unwind_walk *w, char *buf, unsigned len);

#endif
