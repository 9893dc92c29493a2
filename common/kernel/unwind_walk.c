// SPDX-License-Identifier: GPL-2.0
/* The table walk this kernel takes (see unwind_walk.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "kfeatures.h"
#include "unwind_walk.h"

bool unwind_walk_bounded(void)
{
	/* tests take the older kernels' ways on this one */
	const char *force = getenv("STACKBOX_UNWIND_WALK");

	return !feature_usable(SB_F_BPF_LOOP) ||
	       (force && strstr(force, "bounded"));
}

const char *unwind_walk_choose(struct unwind_walk *w)
{
	int off;
	const char *force = getenv("STACKBOX_UNWIND_WALK");

	w->bounded = unwind_walk_bounded();
	w->task_stack_off = 0;
	/* bpf_task_pt_regs needs the kernel's own BTF, and 5.15: with
	 * bpf_loop (5.17) it is there */
	if (kbtf_available() && feature_usable(SB_F_BPF_LOOP) &&
	    !(force && strstr(force, "stack")))
		return NULL;
	if (!kbtf_layouts())
		return "kernel types for task_struct.stack (kernel BTF, "
		       "--btf FILE or CONFIG_BTF_EMBED) to find the user's "
		       "registers";
	off = kbtf_member("task_struct", "stack", NULL);
	if (off <= 0)
		return "task_struct.stack in the kernel types, to find the "
		       "user's registers";
	w->task_stack_off = off;
	return NULL;
}

void unwind_walk_words(const struct unwind_walk *w, char *buf, unsigned len)
{
	const char *regs = w->task_stack_off
				   ? "from the top of the kernel stack "
				     "(task_struct.stack)"
				   : "by bpf_task_pt_regs";

	if (w->bounded)
		snprintf(buf, len,
			 "a bounded loop (no bpf_loop, Linux 5.17); "
			 "registers %s",
			 regs);
	else
		snprintf(buf, len, "bpf_loop; registers %s", regs);
}
