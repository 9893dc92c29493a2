/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu's switch-in way, included by offcpu.bpf.c only: at switch-out
 * a block keeps its time, state and ids; its stacks are walked when it
 * ends and only if it is counted (-m, -M, -s decide on its length).
 *
 * - The kernel stack: the task being switched in (sched_switch's next)
 *   has not run since it blocked, so bpf_get_task_stack() on it walks
 *   the stack it blocked with, from __schedule down.
 * - The user stack: walked at switch-out from the registers the task
 *   entered the kernel with; or (user_at_exit) for a task that blocked inside a system call, at that call's exit,
 *   where its user registers are the same (raw_syscalls:sys_exit runs in
 *   the task), the block counted there. A task that blocked elsewhere
 *   (preempted in user mode, a page fault) has its user stack walked at
 *   switch-out. A task that blocks again before its syscall returns is
 *   still in it: the walk at that switch-out serves both blocks.
 *
 * The finish way (stacks_at_finish) goes further: at switch-out only the
 * block's time, state and ids; when it ends, both stacks are walked in
 * the task's own context, from finish_task_switch (fentry, else kprobe),
 * which every switched-in task runs first.
 *
 * Needs offcpu_start, starts and sb_count_in(); uses pt_regs' fixed layout
 * (SB_REG_*, base.bpf.h) through bpf_task_pt_regs() (5.15).
 */
#ifndef STACKBOX_SWITCHIN_BPF_H
#define STACKBOX_SWITCHIN_BPF_H

/* ids_at_count: a block's comm, cgroup id and its process's first-row
 * announcement are taken when the block is counted, from its task, not
 * at every switch-out (most blocks are left out by -m or -s). Set with
 * task storage (whose cut has the tasks too), where kernel BTF gives
 * these offsets: task_struct.comm, .cgroups, css_set.dfl_cgrp,
 * cgroup.kn, kernfs_node.id (bpf_get_current_cgroup_id()'s walk). */
const volatile __u8 ids_at_count = 0;
const volatile __u32 task_comm_off = 0;
const volatile __u32 task_cgroups_off = 0;
const volatile __u32 cset_dfl_cgrp_off = 0;
const volatile __u32 cgroup_kn_off = 0;
const volatile __u32 kn_id_off = 0;

/* The finish way: blocks are counted, and their stacks walked, in
 * finish_task_switch, whose text is [finish_lo, finish_hi) (kallsyms):
 * a kernel stack walked there starts with the probe's frames and that
 * function's, which are dropped. */
const volatile __u8 stacks_at_finish = 0;
const volatile __u64 finish_lo = 0;
const volatile __u64 finish_hi = 0;

/* A counted block waiting for its user stack at its syscall's exit,
 * and when it ended: its map is chosen when it is counted
 * (sb_interval_at), a flip may come between. */
struct offcpu_later {
	struct sb_key key;
	__u64 value;
	__u64 end;
};

/* sized by user space: the switch-in way's, else 1 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_later);
} later SEC(".maps");

/* Is the current task inside a system call, with user registers (not a
 * kernel thread, whose pt_regs are zeros)? On x86 orig_ax is -1 in every
 * other entry (interrupts, exceptions); arm64 sets syscallno to
 * NO_SYSCALL (-1) on every entry from user mode but svc. */
static __always_inline int in_syscall(void)
{
	__u64 regs = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	int nr = -1; /* both: negative is none; 32 bits enough */

	if (!regs || !sb_kread(regs + SB_REG_PC))
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)(regs + SB_REG_NR));
	return nr >= 0;
}

/* The current task's user stack from the registers it entered the
 * kernel with: frame pointers walked without the kernel's fault at the
 * chain's end (sb_user_stack_fp), else as sb_user_stack(). */
static __always_inline __u64 user_stack_now(void *ctx)
{
	__u64 regs = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 pc = regs ? sb_kread(regs + SB_REG_PC) : 0;

	if (!pc)
		return sb_user_stack(ctx); /* a kernel thread: none */
	return sb_user_stack_regs(ctx, pc, sb_kread(regs + SB_REG_SP),
				  sb_kread(regs + SB_REG_FP));
}

/* The default cgroup's id of a task (its address), or 0. */
static __always_inline __u64 task_cgroup_id(__u64 task)
{
	__u64 cset = sb_kread(task + task_cgroups_off);
	__u64 cgrp = cset ? sb_kread(cset + cset_dfl_cgrp_off) : 0;
	__u64 kn = cgrp ? sb_kread(cgrp + cgroup_kn_off) : 0;

	return kn ? sb_kread(kn + kn_id_off) : 0;
}

/* With ids_at_count, what a block's key left for its count: from task,
 * a task_struct's address (0 on the ways without task storage: none). */
static __always_inline void key_ids_at_count(struct sb_key *key, __u64 task)
{
	if (!ids_at_count || !task)
		return;
	key->cgroup = task_cgroup_id(task);
	bpf_probe_read_kernel_str(key->comm, sizeof(key->comm),
				  (void *)(task + task_comm_off));
	sb_announce_task(key->tgid, task);
}

/* A block's key at switch-out: its ids (with ids_at_count, the thread's
 * only); its user stack, unless it can wait for the syscall's exit
 * (user_exit) or was walked already (ustack). */
static __always_inline void key_at_switch_out(void *ctx,
					      struct offcpu_start *st, __u64 id,
					      __u64 ustack, int user_exit)
{
	if (ids_at_count) {
		st->key.tgid = id >> 32;
		st->key.pid = sb_cfg.per_thread ? (__u32)id : 0;
		st->key.user_stack = SB_STACK_NONE;
		st->key.kern_stack = SB_STACK_NONE;
	} else {
		sb_key_task(&st->key, id);
	}
	if (stacks_at_finish) { /* walked when the block ends, or lost */
		st->key.user_stack =
			sb_cfg.user_stacks ? SB_STACK_LOST : SB_STACK_NONE;
		st->key.kern_stack =
			sb_cfg.kern_stacks ? SB_STACK_LOST : SB_STACK_NONE;
	} else if (ustack != SB_STACK_NONE || !sb_cfg.user_stacks)
		st->key.user_stack = ustack;
	else if (user_exit && in_syscall())
		st->user_later = 1;
	else
		st->key.user_stack = user_stack_now(ctx);
}

/* pid switches out with a counted block still waiting for its user
 * stack: its syscall has not returned (it blocks again in it), or it
 * left without one. Its registers are the block's: walked now, the
 * block counted, and the stack returned for the block that starts. */
static __always_inline __u64 flush_later(void *ctx, __u32 pid)
{
	struct offcpu_later *l = bpf_map_lookup_elem(&later, &pid);
	__u64 ustack;

	if (!l)
		return SB_STACK_NONE;
	ustack = sb_user_stack(ctx);
	l->key.user_stack = ustack;
	sb_count_in(sb_counts_of(sb_interval_at(sb_ctl.flip, l->end)), &l->key,
		    &(struct sb_values){{l->value}});
	bpf_map_delete_elem(&later, &pid);
	return ustack;
}

/* The kernel stack of a task that is not running, as sb_stack_id()
 * keeps stacks: equal frames, equal id. */
static __always_inline __u64 task_kern_stack(void *task)
{
	struct sb_stack *st = sb_stack_buf();

	if (!sb_cfg.kern_stacks)
		return SB_STACK_NONE;
	if (!st)
		return sb_counted(SB_STACK_LOST, SB_STAT_KSTACK_LOST);
	return sb_counted(sb_stack_done(st,
					bpf_get_task_stack(task, st->ip,
							   sizeof(st->ip), 0),
					SB_HASH_KERN),
			  SB_STAT_KSTACK_LOST);
}

/* The len bytes of frames in st, walked inside finish_task_switch, less
 * its frame and those before it (a trampoline's, a kprobe's: the first
 * few): the new length. None of its frames: the stack is kept whole. */
static __always_inline long drop_probe_frames(struct sb_stack *st, long len)
{
	int i, n = len / 8, skip = 0;

	for (i = 0; i < 8 && i < n; i++)
		if (st->ip[i] >= finish_lo && st->ip[i] < finish_hi) {
			skip = i + 1;
			break;
		}
	for (i = 0; i + skip < n && i + skip < SB_MAX_DEPTH; i++)
		st->ip[i] = st->ip[i + skip];
	/* the buffer ends in zeros: the skip frames moved up leave theirs
	 * (at most 8: a loop the compiler does not make a memset) */
	for (int k = 0; k < 8 && k < skip; k++)
		if (n - skip + k >= 0 && n - skip + k < SB_MAX_DEPTH)
			st->ip[n - skip + k] = 0;
	return (long)(n - skip) * 8;
}

/* The current task's kernel stack in finish_task_switch, from its
 * caller (__schedule) down, as sb_stack_id() keeps stacks. */
static __always_inline __u64 finish_kern_stack(void *ctx)
{
	struct sb_stack *st = sb_stack_buf();
	long len;

	if (!sb_cfg.kern_stacks)
		return SB_STACK_NONE;
	if (!st)
		return sb_counted(SB_STACK_LOST, SB_STAT_KSTACK_LOST);
	len = bpf_get_stack(ctx, st->ip, sizeof(st->ip), 0);
	if (len > 0)
		len = drop_probe_frames(st, len);
	return sb_counted(sb_stack_done(st, len, SB_HASH_KERN),
			  SB_STAT_KSTACK_LOST);
}

/* A counted block's row, in the map of the interval holding its end
 * (end). Switch-in way (next: the task switched in): its kernel stack
 * now; its user stack now known, or at its syscall's exit. owner: the
 * block's task on the switch-in way (next, or prev whose switch-in was
 * not reported), else NULL. */
static __always_inline void count_row(void *ctx, struct sb_key *key,
				      struct sb_values *v,
				      struct offcpu_start *s, __u32 pid,
				      void *next, void *owner, __u64 end,
				      int at_finish)
{
	void *counts = sb_counts_of(sb_interval_at(sb_ctl.flip, end));
	struct offcpu_later l;

	key_ids_at_count(key, (__u64)owner);
	if (at_finish) { /* in the block's task: both stacks are its */
		key->kern_stack = finish_kern_stack(ctx);
		if (sb_cfg.user_stacks)
			key->user_stack = user_stack_now(ctx);
		sb_count_in(counts, key, v);
		return;
	}
	if (!next) {
		/* the switch-in and finish ways, a switch-in the kernel
		 * did not report: the stacks walked when a block ends are
		 * lost, and counted so */
		if (kstack_at_switch_in && sb_cfg.kern_stacks)
			key->kern_stack =
				sb_counted(SB_STACK_LOST, SB_STAT_KSTACK_LOST);
		if ((stacks_at_finish && sb_cfg.user_stacks) || s->user_later)
			key->user_stack =
				sb_counted(SB_STACK_LOST, SB_STAT_USTACK_LOST);
		sb_count_in(counts, key, v);
		return;
	}
	key->kern_stack = task_kern_stack(next);
	if (!s->user_later) {
		sb_count_in(counts, key, v);
		return;
	}
	l.key = *key;
	l.value = v->v[0];
	l.end = end;
	if (bpf_map_update_elem(&later, &pid, &l, BPF_ANY)) {
		sb_stat_add(OFFCPU_STAT_LATER_FULL, 1);
		key->user_stack = SB_STACK_LOST;
		sb_count_in(counts, key, v);
	}
}

/* The syscall returns: the user registers are the block's. */
SEC("raw_tp/sys_exit")
int offcpu_sys_exit(void *ctx)
{
#if SB_MODERN
	__u32 pid = bpf_get_current_pid_tgid();
	struct offcpu_later *l = bpf_map_lookup_elem(&later, &pid);

	if (!l)
		return 0;
	l->key.user_stack = sb_user_stack(ctx);
	sb_count_in(sb_counts_of(sb_interval_at(sb_ctl.flip, l->end)), &l->key,
		    &(struct sb_values){{l->value}});
	bpf_map_delete_elem(&later, &pid);
#endif
	return 0;
}

#endif
