/* SPDX-License-Identifier: GPL-2.0 */
/* offcpu: shared by offcpu.bpf.c and applets/offcpu.c. */
#ifndef STACKBOX_OFFCPU_H
#define STACKBOX_OFFCPU_H

/* Why a thread left the CPU: the key's aux, and bits of --state. */
enum offcpu_state {
	OFFCPU_S, /* sleeping, interruptible (also idle kthreads' TASK_IDLE) */
	OFFCPU_D, /* uninterruptible */
	OFFCPU_R, /* preempted while runnable: run-queue wait */
	OFFCPU_NSTATES,
};

enum offcpu_stat {
	OFFCPU_STAT_STARTS_FULL = SB_STAT_APPLET0, /* a block not tracked */
	/* a switch-in sched_switch did not report: the block before it */
	OFFCPU_STAT_MISSED_RAN,	  /* ended where the CPU time since says */
	OFFCPU_STAT_MISSED_WOKEN, /* ended at its wakeup (no CPU time) */
	OFFCPU_STAT_MISSED_CPU,	  /* ended at its CPU's last switch (same) */
	OFFCPU_STAT_MISSED_LOST,  /* dropped: no end known */
	/* switch-in way: a counted block's user stack not kept for its
	 * syscall's exit (the map of them full): counted without it */
	OFFCPU_STAT_LATER_FULL,
	/* switch-in and finish ways: a snapshot's part of a block under
	 * way, counted before its kernel stack (finish: its user stack
	 * too) is walked, at the block's end */
	OFFCPU_STAT_CUT_NO_KSTACK,
};

/* A thread's block under way: the starts map's value, by thread id. */
struct offcpu_start {
	__u64 ts;
	__u64 cut; /* counted up to here by snapshots; CONSUMED at switch-in */
	__u64 ran; /* the thread's CPU time at switch-out, ns; 0: unknown */
	__u64 woken; /* its first sched_waking since, ns; 0: none seen */
	/* switch-in way: the user stack is walked at the syscall's exit
	 * (key.user_stack not yet known) */
	__u64 user_later;
	struct sb_key key;
};

/* The switch-in way's requires bit: chosen for blocks that -m, -M or -s
 * may leave out, or when forced (STACKBOX_ATTACH=switch-in). */
#define OFFCPU_REQ_SWITCH_IN 1u
/* The finish way's: the same options, and a way to probe
 * finish_task_switch (STACKBOX_ATTACH=finish forces it). */
#define OFFCPU_REQ_FINISH 2u

#endif
