/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI between every applet's BPF side and the collector core:
 * the stack key, the common knobs, the counters and the events.
 * Included by BPF code and by user space, so only fixed-size types.
 */
#ifndef STACKBOX_BPF_SB_H
#define STACKBOX_BPF_SB_H

#define SB_MAX_DEPTH  127 /* PERF_MAX_STACK_DEPTH */
#define SB_COMM_LEN   16
#define SB_MAX_VALUES 8

/* Stack ids are 64-bit hashes of the frames: stable across intervals, so
 * a stack read once is never read again. Two ids are reserved. */
#define SB_STACK_NONE 0ULL /* no stack of that kind (kernel thread, -U/-K) */
#define SB_STACK_LOST 1ULL /* there was a stack but it could not be kept */

struct sb_stack {
	__u64 ip[SB_MAX_DEPTH]; /* leaf first, zero-padded */
};

struct sb_key {
	__u64 user_stack;
	__u64 kern_stack;
	__u64 cgroup;
	/* a second task's stacks, when the applet has one (offcpu -w: the
	 * waker); SB_STACK_NONE and zeros otherwise */
	__u64 other_user_stack;
	__u64 other_kern_stack;
	__u32 tgid;
	__u32 pid; /* thread id, 0 when the applet counts per process */
	__u32 aux; /* applet-defined split (offcpu state, I/O direction) */
	__u32 other_tgid;
	char comm[SB_COMM_LEN];
	char other_comm[SB_COMM_LEN];
};

/* Knobs common to every applet, set in .rodata before load. */
struct sb_config {
	__u64 cgroup_id;  /* 0 = any cgroup */
	__u8 filter_tgid; /* only tgids in sb_tgids */
	__u8 user_stacks;
	__u8 kern_stacks;
	__u8 track_procs; /* report new/exec/exit tgids to user space */
	__u8 per_thread;  /* key by thread id as well as tgid */
	__u8 pad[3];
};

/* Per-CPU counters, read as deltas every interval. */
enum sb_stat {
	SB_STAT_USTACK_LOST,	/* user stack could not be stored */
	SB_STAT_KSTACK_LOST,	/* kernel stack could not be stored */
	SB_STAT_ROWS_DROPPED,	/* the counts map was full: event not counted */
	SB_STAT_EVENTS_DROPPED, /* the process event ring was full */
	SB_STAT_APPLET0,	/* first of the applet's own counters */
	SB_STAT_MAX = SB_STAT_APPLET0 + 8,
};

enum sb_event_type {
	SB_EV_NEW_TGID = 1, /* first sample of a process: capture its maps */
	SB_EV_EXEC,	    /* its mappings changed */
	SB_EV_EXIT,	    /* it is gone: keep what was captured */
};

struct sb_event {
	__u32 type;
	__u32 tgid;
};

#endif
