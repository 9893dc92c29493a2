// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: time between a thread's switch-out and its next switch-in, per
 * stack at switch-out and per reason; with -s, sampled by blocked time.
 * One handler behind four ways to attach to sched_switch: tp_btf, raw_tp
 * (both read task_struct, whose layout comes from kernel BTF) and the
 * classic tracepoint (no BTF) walk both stacks at every switch-out;
 * switch-in (tp_btf too) walks them only for blocks that are counted,
 * once the block has ended (see switchin.bpf.h).
 */
#define SB_NVALUES 1
#include "collect.bpf.h"
#include "offcpu.h"

const volatile __u64 min_ns = 0;
const volatile __u64 max_ns = ~0ULL;
const volatile __u8 state_mask = (1 << OFFCPU_NSTATES) - 1;
const volatile __u8 state_arg = 0; /* sched_switch passes prev_state */
/* task_struct layout, read from kernel BTF by user space: no CO-RE, so
 * the tracepoint path loads where the kernel has no BTF at all. */
const volatile __u32 task_pid_off = 0;
const volatile __u32 task_state_off = 0;
const volatile __u32 task_state_size = 4;
/* task_struct.se.sum_exec_runtime; 0: unknown (no BTF) */
const volatile __u32 task_runtime_off = 0;
/* The kernel has atomic xchg/cmpxchg and bpf_for_each_map_elem (5.13+):
 * threads still blocked at a snapshot are counted in it (offcpu_cut). */
const volatile __u8 cut_blocked = 0;
const volatile __u8 wakers_on = 0;  /* -w */
const volatile __u64 sample_ns = 0; /* -s PERIOD; 0: every block counted */
/* switch-in: user stacks of blocks in syscalls at the syscall's exit */
const volatile __u8 user_at_exit = 0;
/* switch-in: a block's kernel stack is walked when it ends, so the part
 * a snapshot cuts from a block under way is counted without it */
const volatile __u8 kstack_at_switch_in = 0;

#define CONSUMED (~0ULL)

/* The classic tracepoint's record: a stable layout, no BTF needed. */
struct sched_switch_tp {
	__u64 common;
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} starts SEC(".maps");

#include "taskstore.bpf.h"

/* The time of each CPU's last sched_switch (ours ran there then). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cpu_switched SEC(".maps");

/* Who woke a blocked thread, kept until its switch-in. */
struct waker {
	__u64 user_stack, kern_stack;
	__u32 tgid;
	char comm[SB_COMM_LEN];
};

/* sized by user space: 16384 with -w, else 1 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct waker);
} wakers SEC(".maps");

/* Both encodings keep TASK_INTERRUPTIBLE (1) and TASK_UNINTERRUPTIBLE (2);
 * -1: a state we do not count (stopped, traced, dead). */
static __always_inline int classify_sleep(long state)
{
	if (state & 2)
		return OFFCPU_D;
	if (state & 1)
		return OFFCPU_S;
	return -1;
}

static __always_inline int classify_raw(int preempt, unsigned int state)
{
	if (preempt || !state)
		return OFFCPU_R;
	if (state & 0x400) /* TASK_NOLOAD: TASK_IDLE, an idle kthread's wait */
		return OFFCPU_S;
	/* TASK_FROZEN (6.1+): in the freezer until thawed (a suspend); the
	 * tracepoint and /proc report it as D, as 5.10's freezer was */
	if (state & 0x8000)
		return OFFCPU_D;
	return classify_sleep(state);
}

/* The tracepoint reports task_state_index bits; preemption as the bit
 * above them all (TASK_REPORT_MAX). */
static __always_inline int classify_report(long state)
{
	if (!state || state >= 0x100)
		return OFFCPU_R;
	if (state & 0x80) /* I: idle kthread */
		return OFFCPU_S;
	return classify_sleep(state);
}

/* CPU time the current task (prev, at a switch-out) has had, or 0. */
static __always_inline __u64 current_runtime(void)
{
	__u64 ran = 0;

	if (task_runtime_off)
		bpf_probe_read_kernel(&ran, sizeof(ran),
				      (void *)bpf_get_current_task() +
					      task_runtime_off);
	return ran;
}

/*
 * -s: a block d long, shorter than the period, is counted with
 * probability d/period, as the period: its expected value is d, so each
 * stack's sum is unbiased. Longer blocks are exact (the part not yet cut
 * into a snapshot). 0: this one is not counted. The 64-bit draw makes
 * the modulo's bias period/2^64.
 */
static __always_inline __u64 sampled(__u64 d, __u64 exact)
{
	__u64 r;

	if (!sample_ns || d >= sample_ns)
		return exact;
	r = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
	return r % sample_ns < d ? sample_ns : 0;
}

#include "switchin.bpf.h"

#if SB_MODERN
/* A thread still blocked at the flip (sb_ctl.flip's value): its time up
 * to the flip belongs to the interval being closed. */
static __noinline void cut_start(struct offcpu_start *s, __u64 task, __u64 flip)
{
	__u64 t = flip >> 1, old = s->cut, from;

	/* -m, -s: judged on the time known so far, which only grows (no
	 * cut under -M: a block may pass it after its part was counted);
	 * a block cut at t already (or consumed) has nothing before it */
	if (!s->ts || old >= t || t <= s->ts || t - s->ts < min_ns ||
	    t - s->ts < sample_ns)
		return;
	if (__sync_val_compare_and_swap(&s->cut, old, t) != old)
		return; /* woken meanwhile: switch-in counts it all */
	from = old > s->ts ? old : s->ts;
	if (t > from) {
		struct sb_values v = {{t - from}};
		struct sb_key key = s->key;

		key_ids_at_count(&key, task);
		if (kstack_at_switch_in && sb_cfg.kern_stacks) {
			key.kern_stack = SB_STACK_LOST;
			sb_stat_add(OFFCPU_STAT_CUT_NO_KSTACK, 1);
		}
		sb_count_in(sb_counts_of(sb_interval_at(flip, t)), &key, &v);
	}
}
#endif

/* The block of s ends at end (a switch-in): counted, unless -m/-M leave
 * it out, -s does not draw it, or a snapshot's cut counted it up to
 * s->cut already (only a block as long as the period: see cut_one). */
static __always_inline void count_block(void *ctx, struct offcpu_start *s,
					__u32 pid, __u64 end, void *next,
					void *owner, int at_finish)
{
	__u64 cut = 0, from, d = end - s->ts, value = 0;

#if SB_MODERN
	if (cut_blocked) {
		__u64 flip = sb_ctl.flip, at = flip >> 1;

		/* it spans the last flip, and the cut pass has not reached
		 * it (a thaw wakes every thread with the collector): its
		 * part before the flip is cut here, as the pass would */
		if (end > at && s->ts < at && s->cut < at)
			cut_start(s, (__u64)owner, flip);
		/* take the entry from a concurrent cut: after the swap, the
		 * pass leaves it alone; before it, the cut moved s->cut */
		cut = __sync_lock_test_and_set(&s->cut, CONSUMED);
	}
#endif
	from = cut > s->ts ? cut : s->ts;

	if (cut != CONSUMED && d >= min_ns && d <= max_ns && end > from)
		value = sampled(d, end - from);
	if (value) {
		struct sb_values v = {{value}};
		struct waker *w =
			wakers_on ? bpf_map_lookup_elem(&wakers, &pid) : NULL;

		/* the record ends here: its key takes the waker, and the
		 * row is made in one place (it is inlined: one copy) */
		if (w) {
			s->key.other_user_stack = w->user_stack;
			s->key.other_kern_stack = w->kern_stack;
			s->key.other_tgid = w->tgid;
			__builtin_memcpy(s->key.other_comm, w->comm,
					 sizeof(s->key.other_comm));
		}
		count_row(ctx, &s->key, &v, s, pid, next, owner, end,
			  at_finish);
	}
	start_end(pid, s);
	if (wakers_on)
		bpf_map_delete_elem(&wakers, &pid);
}

/*
 * prev leaves the CPU still holding a block: the kernel ran it without
 * reporting the switch-in (seen on a 6.18 guest: no sched_switch, nor
 * any sched event, while the current task belongs to PID 1). It was off
 * the CPU for the time since that block began less the CPU time it had
 * since: counted so, under the stack it blocked in, instead of lost to
 * the new block. Without its CPU time (no BTF) the block ends at the
 * later of two times before the unseen switch-in: its wakeup, and this
 * CPU's last reported switch (prev, not PID 1's, was switched in after
 * it: a later switch would have been prev's switch-out). Neither later
 * than its start: dropped. Each way has its counter.
 */
static __always_inline void missed_switch_in(void *ctx, struct offcpu_start *s,
					     __u32 pid, __u64 now, __u64 ran,
					     __u64 cpu_last, void *prev)
{
	__u64 on = ran > s->ran ? ran - s->ran : 0;
	__u64 seen = s->woken > cpu_last ? s->woken : cpu_last;

	if (s->ran && ran && on <= now - s->ts) {
		sb_stat_add(OFFCPU_STAT_MISSED_RAN, 1);
		count_block(ctx, s, pid, now - on, NULL, prev, 0);
	} else if (seen > s->ts && seen <= now) {
		sb_stat_add(seen == s->woken ? OFFCPU_STAT_MISSED_WOKEN
					     : OFFCPU_STAT_MISSED_CPU,
			    1);
		count_block(ctx, s, pid, seen, NULL, prev, 0);
	} else {
		sb_stat_add(OFFCPU_STAT_MISSED_LOST, 1);
		start_end(pid, s);
	}
}

/* This CPU's last reported switch before now; now is the next one's. */
static __always_inline __u64 cpu_switched_at(__u64 now)
{
	__u32 zero = 0;
	__u64 *t = bpf_map_lookup_elem(&cpu_switched, &zero), last = 0;

	if (t) {
		last = *t;
		*t = now;
	}
	return last;
}

/* prev, next: the tasks, for the switch-in way (NULL: the others) */
static __always_inline void on_switch(void *ctx, int cls, __u32 next_pid,
				      void *next, int user_exit, void *prev)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 cpu_last = cpu_switched_at(now);
	__u64 id = bpf_get_current_pid_tgid(); /* current is prev */
	__u32 pid = id;
	struct offcpu_start *s;

	if (pid && sb_wanted(id >> 32)) {
		__u64 ran = current_runtime();
		__u64 ustack =
			user_exit ? flush_later(ctx, pid) : SB_STACK_NONE;

		s = start_of(pid, prev);
		if (s)
			missed_switch_in(ctx, s, pid, now, ran, cpu_last, prev);
		if (cls >= 0 && (state_mask & (1 << cls))) {
			struct offcpu_start st = {.ts = now, .ran = ran};

			if (next)
				key_at_switch_out(ctx, &st, id, ustack,
						  user_exit);
			else
				sb_key_init(ctx, &st.key, id);
			st.key.aux = cls;
			if (start_put(pid, prev, &st))
				sb_stat_add(OFFCPU_STAT_STARTS_FULL, 1);
		}
	}
	if (stacks_at_finish) /* counted in next's own context */
		return;
	s = start_of(next_pid, next);
	if (s)
		count_block(ctx, s, next_pid, now, next, next, 0);
}

/* The finish way: the task switched in ends its block, in its own
 * context (both stacks its); a block the probe missed is counted at
 * the task's next switch-out (missed_switch_in), its stacks lost. */
#if SB_MODERN
static __always_inline void on_finish(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid();
	void *task = task_store ? bpf_get_current_task_btf() : NULL;
	struct offcpu_start *s;

	if (!pid)
		return;
	s = start_of(pid, task);
	if (s)
		count_block(ctx, s, pid, bpf_ktime_get_ns(), NULL,
			    (void *)bpf_get_current_task(), 1);
}
#endif

/*
 * pid is woken; if it is blocked here, note when (the end of its block
 * should its switch-in go unreported and its CPU time be unknown) and,
 * with -w, who woke it: current, whose stacks are kept. sched_waking
 * runs in the waker; sched_wakeup may run later on the wakee's CPU (a
 * queued remote wakeup), in whatever task was there.
 */
static __always_inline void on_wakeup(void *ctx, __u32 pid, void *task)
{
	struct offcpu_start *s = start_of(pid, task);
	struct waker w = {};

	if (!s)
		return;
	if (!s->woken) /* the first ends it; a later one, after an unseen run */
		s->woken = bpf_ktime_get_ns();
	if (!wakers_on)
		return;
	w.user_stack = sb_user_stack(ctx);
	w.kern_stack = sb_kern_stack(ctx);
	w.tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	bpf_map_update_elem(&wakers, &pid, &w, BPF_ANY);
}

#if SB_MODERN
static long cut_one(void *map, __u32 *pid, struct offcpu_start *s, void *ctx)
{
	/* no ids_at_count without task storage */
	cut_start(s, 0, sb_ctl.flip);
	return 0;
}

#endif

/* Run by user space (BPF_PROG_TEST_RUN) at every snapshot; never loaded
 * where cut_blocked is 0, but there in every object (the skeleton). */
SEC("raw_tp")
int offcpu_cut(void *ctx)
{
#if SB_MODERN
	bpf_for_each_map_elem(&starts, cut_one, NULL, 0);
#endif
	return 0;
}

/* The same with task_store: task storage cannot be walked with
 * bpf_for_each_map_elem before 6.x, so every task is visited (a task
 * iterator, 5.8; user space reads it at every snapshot): (meta, task). */
SEC("iter/task")
int offcpu_cut_tasks(__u64 *ctx)
{
#if SB_MODERN
	void *task = (void *)ctx[1];
	struct offcpu_start *s = task ? task_record(task, 0) : NULL;

	if (s)
		cut_start(s, (__u64)task, sb_ctl.flip);
#endif
	return 0;
}

static __always_inline __u32 task_pid(void *task)
{
	__u32 pid = 0;

	bpf_probe_read_kernel(&pid, sizeof(pid), task + task_pid_off);
	return pid;
}

static __always_inline unsigned int task_state(void *task)
{
	__u64 state = 0; /* little endian: 4 or 8 bytes read the same */

	bpf_probe_read_kernel(&state, task_state_size == 8 ? 8 : 4,
			      task + task_state_off);
	return state;
}

/* tp_btf and raw_tp: (preempt, prev, next[, prev_state]) */
static __always_inline void on_switch_args(void *ctx, __u64 *args)
{
	unsigned int state =
		state_arg ? (unsigned int)args[3] : task_state((void *)args[1]);

	on_switch(ctx, classify_raw(args[0], state), task_pid((void *)args[2]),
		  NULL, 0, NULL);
}

SEC("tp_btf/sched_switch")
int offcpu_tp_btf(__u64 *ctx)
{
	on_switch_args(ctx, ctx);
	return 0;
}

/* The switch-in way: tp_btf's next is a task pointer the verifier
 * knows, which bpf_get_task_stack() takes. User stacks at switch-out
 * (from the saved registers), or with user_at_exit at the syscall's
 * exit. Never loaded by the kernels the legacy programs are for (it
 * needs bpf_task_pt_regs, 5.15): there an empty program of that name. */
SEC("tp_btf/sched_switch")
int offcpu_switch_in(__u64 *ctx)
{
#if SB_MODERN
	unsigned int state =
		state_arg ? (unsigned int)ctx[3] : task_state((void *)ctx[1]);

	on_switch(ctx, classify_raw(ctx[0], state), task_pid((void *)ctx[2]),
		  (void *)ctx[2], user_at_exit, (void *)ctx[1]);
#endif
	return 0;
}

/* The finish way's end of a block. finish_task_switch's argument (prev)
 * is not read: its name may be a copy GCC made with other arguments. */
SEC("fentry/finish_task_switch")
int offcpu_finish_fentry(__u64 *ctx)
{
#if SB_MODERN
	on_finish(ctx);
#endif
	return 0;
}

SEC("kprobe/finish_task_switch")
int offcpu_finish_kprobe(struct pt_regs *ctx)
{
#if SB_MODERN
	on_finish(ctx);
#endif
	return 0;
}

SEC("raw_tp/sched_switch")
int offcpu_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	on_switch_args(ctx, ctx->args);
	return 0;
}

SEC("tp_btf/sched_waking")
int offcpu_wakeup_tp_btf(__u64 *ctx)
{
	on_wakeup(ctx, task_pid((void *)ctx[0]), (void *)ctx[0]);
	return 0;
}

SEC("raw_tp/sched_waking")
int offcpu_wakeup_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	on_wakeup(ctx, task_pid((void *)ctx->args[0]), NULL);
	return 0;
}

/* sched_wakeup_template's record (sched_waking shares it) */
struct sched_wakeup_tp {
	__u64 common;
	char comm[16];
	int pid;
};

SEC("tracepoint/sched/sched_waking")
int offcpu_wakeup_tracepoint(struct sched_wakeup_tp *ctx)
{
	on_wakeup(ctx, ctx->pid, NULL);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int offcpu_tracepoint(struct sched_switch_tp *ctx)
{
	on_switch(ctx, classify_report(ctx->prev_state), ctx->next_pid, NULL, 0,
		  NULL);
	return 0;
}
