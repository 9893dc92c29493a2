/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user's registers of the current task, for the table walk, as the
 * address of its struct pt_regs (0: none). With kernel BTF (5.15+) the
 * kernel says where: bpf_task_pt_regs(). Without it (no BTF, or before
 * 5.15) they are where every entry from user mode saves them on x86_64
 * and arm64, at the top of the task's kernel stack: task->stack +
 * THREAD_SIZE - sizeof(struct pt_regs) (no padding above on either
 * arch). task_struct.stack's offset comes from kernel types (--btf, the
 * built-in minimal BTF) through sb_cfg.task_stack_off. THREAD_SIZE is
 * not in any BTF: 16 KiB, 32 KiB under KASAN, 64 KiB with arm64's 64 KiB
 * pages; the first whose registers are a user mode's is taken.
 *
 * Included by unwind.bpf.h after base.bpf.h; uses only base.bpf.h.
 */
#ifndef STACKBOX_UNWIND_REGS_BPF_H
#define STACKBOX_UNWIND_REGS_BPF_H

#include "base.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define SB_PT_REGS_SIZE (21 * 8)
/* cs and ss of a 64-bit user mode (__USER_CS, __USER_DS) */
static __always_inline int sb_regs_user(__u64 regs)
{
	return sb_kread(regs + 17 * 8) == 0x33 &&
	       sb_kread(regs + 20 * 8) == 0x2b;
}
#elif defined(__TARGET_ARCH_arm64)
/* regs[31], sp, pc, pstate, orig_x0, syscallno, ... exit_rcu: 336 bytes
 * from 5.10 to 6.12 */
#define SB_PT_REGS_SIZE 336
/* pstate's mode: EL0t, AArch64; a pc user space may have */
static __always_inline int sb_regs_user(__u64 regs)
{
	return (sb_kread(regs + 33 * 8) & 0x1f) == 0 &&
	       sb_kread(regs + SB_REG_PC) < (1ULL << 52);
}
#endif

static __always_inline __u64 sb_regs_at(__u64 stack, __u64 thread_size)
{
	__u64 regs = stack + thread_size - SB_PT_REGS_SIZE;

	return sb_regs_user(regs) ? regs : 0;
}

/* From the top of the current task's kernel stack. A global function:
 * one copy in the object, not one in each program that takes a stack
 * (memstack's grew 89 KB inlined). */
__noinline __u64 sb_regs_from_stack(void)
{
	__u64 task = bpf_get_current_task(), stack, regs;

	stack = sb_kread(task + sb_cfg.task_stack_off);
	if (!stack)
		return 0;
	regs = sb_regs_at(stack, 16384);
	if (!regs)
		regs = sb_regs_at(stack, 32768);
	if (!regs)
		regs = sb_regs_at(stack, 65536);
	return regs;
}

#if SB_MODERN
static __always_inline __u64 sb_user_regs(void)
{
	if (sb_cfg.task_stack_off)
		return sb_regs_from_stack();
	return bpf_task_pt_regs(bpf_get_current_task_btf());
}
#else
static __always_inline __u64 sb_user_regs(void)
{
	return sb_regs_from_stack(); /* before 5.13: no bpf_task_pt_regs */
}
#endif

#endif
