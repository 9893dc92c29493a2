// SPDX-License-Identifier: GPL-2.0
/* The table walk this kernel takes (see unwind_walk.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "kfeatures.h"
#include "unwind_walk.h"

const char *unwind_walk_choose(struct unwind_walk *w)
{
	int off;

	/* tests take a kernel without BTF's way on this one */
	const char *force = getenv("STACKBOX_UNWIND_WALK");

	w->task_stack_off = 0;
	if (!feature_usable(SB_F_BPF_LOOP))
		return "bpf_loop (Linux 5.17)";
	/* bpf_task_pt_regs needs the kernel's own BTF */
	if (kbtf_available() && !(force && strstr(force, "stack")))
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
	snprintf(buf, len, "bpf_loop; registers %s",
		 w->task_stack_off ? "from the top of the kernel stack "
				     "(task_struct.stack)"
				   : "by bpf_task_pt_regs");
}
