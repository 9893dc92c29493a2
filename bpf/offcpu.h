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
	OFFCPU_STAT_SWITCH_IN_MISSED,		   /* a block ended unseen */
};

#endif
