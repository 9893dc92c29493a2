/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF header of the collector needs and nothing else: the
 * includes, the registers of struct pt_regs, the common knobs, the stack
 * buffer, the per-CPU counters and the event ring, with their helpers.
 * The order is base.bpf.h < unwind.bpf.h < collect.bpf.h: each uses only
 * what comes before it.
 */
#ifndef STACKBOX_BASE_BPF_H
#define STACKBOX_BASE_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "sb.h"

/* Where struct pt_regs keeps the user's registers, in bytes: fixed by
 * each architecture's ABI (asm/ptrace.h). */
#if defined(__TARGET_ARCH_x86)
#define SB_REG_FP   (4 * 8)  /* bp */
#define SB_REG_RET  (10 * 8) /* ax */
#define SB_REG_ARG2 (12 * 8) /* dx */
#define SB_REG_ARG1 (13 * 8) /* si */
#define SB_REG_ARG0 (14 * 8) /* di */
#define SB_REG_NR   (15 * 8) /* orig_ax: the syscall's number */
#define SB_REG_PC   (16 * 8) /* ip */
#define SB_REG_SP   (19 * 8) /* sp */
#elif defined(__TARGET_ARCH_arm64)
#define SB_REG_RET  0	     /* x0 */
#define SB_REG_ARG0 0	     /* x0 */
#define SB_REG_ARG1 8	     /* x1 */
#define SB_REG_ARG2 16	     /* x2 */
#define SB_REG_FP   (29 * 8) /* x29 */
#define SB_REG_LR   (30 * 8) /* x30 */
#define SB_REG_SP   (31 * 8) /* sp */
#define SB_REG_PC   (32 * 8) /* pc */
#define SB_REG_NR   280	     /* syscallno */
#else
#error "stackbox knows the registers of x86 and arm64"
#endif
/* A register of a pt_regs the program may read directly (its context). */
#define SB_REG(regs, off) (*(const __u64 *)((const char *)(regs) + (off)))

/* 0 in the programs for kernels before 5.13 (CONFIG_BPF_LEGACY, built
 * with -DSB_LEGACY): their loader refuses callbacks and atomic fetch
 * operations in any code, run or not, so those are compiled out. */
#ifdef SB_LEGACY
#define SB_MODERN 0
#else
#define SB_MODERN 1
#endif

const volatile struct sb_config sb_cfg = {};

/* The per-CPU buffer stacks are captured in. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_stack);
} sb_scratch SEC(".maps");
/* The per-CPU counters (enum sb_stat), read as deltas every interval. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SB_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sb_stats SEC(".maps");
/* Process events to user space (struct sb_event). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} sb_events SEC(".maps");

static __always_inline void sb_stat_add(__u32 stat, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&sb_stats, &stat);

	if (v)
		*v += n; /* per-CPU: no other writer */
}

static __always_inline void sb_event_send(__u32 type, __u32 tgid, __u32 parent,
					  __u64 forked_at)
{
	struct sb_event *e = bpf_ringbuf_reserve(&sb_events, sizeof(*e), 0);

	if (!e) {
		sb_stat_add(SB_STAT_EVENTS_DROPPED, 1);
		return;
	}
	e->type = type;
	e->tgid = tgid;
	e->parent = parent;
	e->forked_at = forked_at;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void sb_event(__u32 type, __u32 tgid)
{
	sb_event_send(type, tgid, 0, 0);
}

/* A u64 of kernel memory; 0 where it cannot be read. */
static __always_inline __u64 sb_kread(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

static __always_inline struct sb_stack *sb_stack_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sb_scratch, &zero);
}

#endif
