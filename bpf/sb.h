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

enum sb_unwind_mode {
	SB_UNWIND_FP,	    /* frame pointers: bpf_get_stack() */
	SB_UNWIND_EH_FRAME, /* .eh_frame rows, frame pointers where none */
	SB_UNWIND_AUTO,	    /* per process: EH_FRAME where user space set
			     * sb_unwind_proc.tables, else FP */
};

/* Knobs common to every applet, set in .rodata before load. */
struct sb_config {
	__u64 cgroup_id;  /* 0 = any cgroup */
	__u8 filter_tgid; /* only tgids in sb_tgids */
	__u8 user_stacks;
	__u8 kern_stacks;
	__u8 track_procs; /* report new/exec/exit tgids to user space */
	__u8 per_thread;  /* key by thread id as well as tgid */
	__u8 unwind;	  /* enum sb_unwind_mode */
	__u8 unwind_walk; /* enum sb_unwind_walk */
	__u8 pad;
	/* where the walk finds the user's registers: 0, bpf_task_pt_regs
	 * (kernel BTF); else task_struct.stack's offset, and they are at
	 * the top of the task's kernel stack (bpf/unwind_regs.bpf.h) */
	__u32 task_stack_off;
	__u32 pad2;
};

/* How the table walk loops over frames: bpf_loop (5.17+), or a bounded
 * loop the verifier walks through (any kernel: bpf/unwind_bounded.bpf.h). */
enum sb_unwind_walk {
	SB_WALK_LOOP,
	SB_WALK_BOUNDED,
};

/* What user space switches while BPF runs (.bss, mapped by the
 * skeleton): which interval's map counts, and the trigger gate. */
struct sb_ctl {
	/* the last flip: its CLOCK_MONOTONIC ns << 1 | the map counting
	 * since (0: sb_counts0, 1: sb_counts1). One word, read once: a
	 * program that counts late (a block's end, after a walk) still
	 * knows which side of the flip its event's time is on. */
	__u64 flip;
	/* the flip whose closing map is being drained: an event of the
	 * closing interval counted after that is counted in the next one
	 * (user space waits out the programs that read it before) */
	__u64 sealed;
	/* -T without -R: 1 while no trigger is active; events are not
	 * counted (the programs stay attached, so opening costs nothing) */
	__u32 paused;
	__u32 pad;
};

/*
 * --unwind eh_frame: one row of a file's call frame table (see
 * common/sym/ehframe.h), keyed by file offset. All files' rows share one
 * array; sb_unwind_files says where each file's rows are.
 */
enum sb_cfa { SB_CFA_NONE, SB_CFA_SP, SB_CFA_FP, SB_CFA_OTHER, SB_CFA_END };
#define SB_SAVED_FP 0x01 /* the caller's frame pointer is at CFA + fp_off */
#define SB_SAVED_RA 0x02 /* the return address is at CFA + ra_off */
struct sb_unwind_row {
	__u32 off; /* first file offset the row covers */
	__s16 cfa_off, fp_off, ra_off;
	__u8 cfa;   /* enum sb_cfa */
	__u8 saved; /* SB_SAVED_* */
};

struct sb_unwind_file_key {
	__u64 ino;
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u32 pad;
};

/* A file's rows are [first, first + count); count 0: none (no table,
 * or no room), so frame pointers. */
struct sb_unwind_file {
	__u32 first, count;
};

/* A process's executable file mappings, sorted by start, as user space
 * read them from /proc/PID/maps (SB_EV_NEW_TGID, SB_EV_EXEC). */
#define SB_UNWIND_MAPS 64
struct sb_unwind_map {
	__u64 start, end;
	__u64 offset; /* file offset of start */
	struct sb_unwind_file_key file;
};
struct sb_unwind_proc {
	__u32 n;
	__u32 stale; /* BPF met an address outside them: read them again */
	/* SB_UNWIND_AUTO: a file of the process has code without frame
	 * pointers that a table covers: walk it by the tables */
	__u32 tables;
	/* a number user space gives each write of an entry: a walk it
	 * remembers (unwind_memo.bpf.h) holds for these mappings only */
	__u32 gen;
	struct sb_unwind_map maps[SB_UNWIND_MAPS];
};

/* Per-CPU counters, read as deltas every interval. */
enum sb_stat {
	SB_STAT_USTACK_LOST,	/* user stack could not be stored */
	SB_STAT_KSTACK_LOST,	/* kernel stack could not be stored */
	SB_STAT_ROWS_DROPPED,	/* the counts map was full: event not counted */
	SB_STAT_EVENTS_DROPPED, /* the process event ring was full */
	SB_STAT_UNWIND_UNKNOWN, /* eh_frame: a stack walked by frame pointer
				 * before its process's mappings were read */
	SB_STAT_UNWIND_WALKS,	/* stacks walked by the tables */
	SB_STAT_UNWIND_RECALLED, /* ... not walked: the thread's last walk
				  * from there, proved the same */
	SB_STAT_APPLET0,	 /* first of the applet's own counters */
	SB_STAT_MAX = SB_STAT_APPLET0 + 8,
};

enum sb_event_type {
	SB_EV_NEW_TGID = 1, /* first sample of a process: capture its maps */
	SB_EV_EXEC,	    /* its mappings changed */
	SB_EV_EXIT,	    /* it is gone: keep what was captured */
	SB_EV_UNWIND_MAPS,  /* code outside its known mappings (dlopen) */
	SB_EV_CODE_MAPPED,  /* walked by frame pointers, it maps a file's
			     * code after a quiet while: look again */
};

struct sb_event {
	__u32 type;
	__u32 tgid;
	/* SB_EV_NEW_TGID: the tgid that forked it, when neither has
	 * exec'd since (its mappings are that process's); 0: unknown */
	__u32 parent;
	__u64 forked_at; /* when, CLOCK_MONOTONIC ns */
};

/* A kernel address's name, as sb_ksym writes it. */
#define SB_KSYM_LEN 160
struct sb_ksym_name {
	char name[SB_KSYM_LEN];
};

#endif
