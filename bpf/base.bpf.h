/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF program of ours stands on, under both unwind.bpf.h and
 * collect.bpf.h: the user registers' layout, the maps user space shares
 * (the interval's rows, stacks, stats, processes, events) and the small
 * helpers on them. Included through collect.bpf.h, after SB_NVALUES.
 */
#ifndef STACKBOX_BASE_BPF_H
#define STACKBOX_BASE_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "sb.h"

struct sb_values {
	__u64 v[SB_NVALUES];
};

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
struct sb_ctl sb_ctl = {};

#define SB_COUNTS_MAP(name)                      \
	struct {                                 \
		__uint(type, BPF_MAP_TYPE_HASH); \
		__uint(max_entries, 10240);      \
		__type(key, struct sb_key);      \
		__type(value, struct sb_values); \
	} name SEC(".maps")
SB_COUNTS_MAP(sb_counts0);
SB_COUNTS_MAP(sb_counts1);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct sb_stack);
} sb_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_stack);
} sb_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SB_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} sb_stats SEC(".maps");

/* The processes to profile (-p, -- CMD), when sb_cfg.filter_tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} sb_tgids SEC(".maps");

/* Processes user space has been told about (SB_EV_NEW_TGID). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} sb_known SEC(".maps");

/*
 * Forks while we run, by the child's task (its first thread): who forked
 * it and when. Until it execs, a child maps what its parent mapped, so
 * user space copies the parent's mappings instead of reading
 * /proc/PID/maps again (the 160 forks of one perf bench round cost offcpu
 * 60 ms of reads). Keyed by task, not pid: the fork tracepoint gives the
 * child as a task pointer, and this way needs no kernel types. An entry
 * lives until the task execs or exits; one evicted only means a child is
 * read, not copied. Preallocated, as the next one: allocating per entry
 * failed for half of a burst of 80 forks (the per-CPU cache runs dry).
 */
struct sb_fork {
	__u64 at; /* bpf_ktime_get_ns() */
	__u32 parent;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct sb_fork);
} sb_forks SEC(".maps");

/* The last exec of every process that exec'd while we run and lives: a
 * parent that exec'd after a fork no longer maps what its child does.
 * Not LRU: a forgotten exec could pass a parent's new mappings to an old
 * child, so a full map turns the copying off (sb_execs_full). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} sb_execs SEC(".maps");
__u32 sb_execs_full = 0;

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

static __always_inline void sb_event_from(__u32 type, __u32 tgid,
					  const struct sb_fork *fork)
{
	struct sb_event *e = bpf_ringbuf_reserve(&sb_events, sizeof(*e), 0);

	if (!e) {
		sb_stat_add(SB_STAT_EVENTS_DROPPED, 1);
		return;
	}
	e->type = type;
	e->tgid = tgid;
	e->parent = fork ? fork->parent : 0;
	e->forked_at = fork ? fork->at : 0;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void sb_event(__u32 type, __u32 tgid)
{
	sb_event_from(type, tgid, NULL);
}

/* The current task's process makes its first row: user space reads its
 * mappings while it lives, or copies its parent's if it is a fork that
 * has not exec'd. */
static __always_inline void sb_announce(__u32 tgid)
{
	__u64 task = bpf_get_current_task(), *exec;
	struct sb_fork *f;
	__u8 one = 1;

	if (!sb_cfg.track_procs || !tgid ||
	    bpf_map_lookup_elem(&sb_known, &tgid))
		return;
	bpf_map_update_elem(&sb_known, &tgid, &one, BPF_ANY);
	f = bpf_map_lookup_elem(&sb_forks, &task);
	if (f && (f->parent == tgid || sb_execs_full))
		f = NULL;
	exec = f ? bpf_map_lookup_elem(&sb_execs, &f->parent) : NULL;
	if (exec && *exec >= f->at)
		f = NULL; /* the parent exec'd since */
	sb_event_from(SB_EV_NEW_TGID, tgid, f);
}

/* A u64 of kernel memory; 0 where it cannot be read. */
static __always_inline __u64 sb_kread(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

#endif
