/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF half of the collector core, included once by every NAME.bpf.c
 * after it has defined SB_NVALUES (how many u64 values a row carries).
 *
 * Rows are counted in one of two maps, chosen by sb_ctl.flip: user space
 * flips it every interval and drains the other one, so an interval's
 * rows are read while the next interval is being counted. Stacks live in
 * one map keyed by a hash of their frames (see sb_stack_id()).
 */
#ifndef STACKBOX_COLLECT_BPF_H
#define STACKBOX_COLLECT_BPF_H

#include "base.bpf.h"

#ifndef SB_NVALUES
#error "define SB_NVALUES before including collect.bpf.h"
#endif

struct sb_values {
	__u64 v[SB_NVALUES];
};

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

#ifdef SB_WITH_UNWIND
#include "unwind.bpf.h"
#else
static __always_inline int sb_unwind_wanted(void)
{
	return 0; /* no walk but the kernel's in this build */
}

static __always_inline long sb_unwind_user(struct sb_stack *st, __u64 *recalled)
{
	*recalled = 0;
	return 0;
}

static __always_inline void sb_unwind_remember(__u64 id)
{
}

static __always_inline void sb_unwind_forget(__u32 tgid)
{
}

static __always_inline void sb_unwind_code_mapped(__u32 tgid)
{
}

static __always_inline __u64 sb_user_regs(void)
{
	return 0;
}
#endif

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

/* When each process that lives last changed its code while we run (an
 * exec, or an executable mapping made or moved: sb_code_changed): a
 * parent that changed it after a fork may no longer map what its child
 * does. Not LRU: a forgotten change could pass a parent's new mappings
 * to an old child, so a full map turns the copying off
 * (sb_code_changes_full). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} sb_code_changes SEC(".maps");
__u32 sb_code_changes_full = 0;

static __always_inline void sb_event_from(__u32 type, __u32 tgid,
					  const struct sb_fork *fork)
{
	sb_event_send(type, tgid, fork ? fork->parent : 0, fork ? fork->at : 0);
}

/* The process of task (a task_struct's address) makes its first row:
 * user space reads its mappings while it lives, or copies its parent's
 * if it is a fork that has not exec'd. */
static __always_inline void sb_announce_task(__u32 tgid, __u64 task)
{
	__u64 *changed;
	struct sb_fork *f;
	__u8 one = 1;

	if (!sb_cfg.track_procs || !tgid ||
	    bpf_map_lookup_elem(&sb_known, &tgid))
		return;
	bpf_map_update_elem(&sb_known, &tgid, &one, BPF_ANY);
	f = bpf_map_lookup_elem(&sb_forks, &task);
	if (f && (f->parent == tgid || sb_code_changes_full))
		f = NULL;
	changed = f ? bpf_map_lookup_elem(&sb_code_changes, &f->parent) : NULL;
	if (changed && *changed >= f->at)
		f = NULL; /* the parent changed its code since */
	sb_event_from(SB_EV_NEW_TGID, tgid, f);
}

/* ... of the current task */
static __always_inline void sb_announce(__u32 tgid)
{
	sb_announce_task(tgid, bpf_get_current_task());
}

/* Filters run here, in BPF, before any work is done for an event. */
static __always_inline int sb_wanted(__u32 tgid)
{
	if (sb_ctl.paused)
		return 0;
	if (sb_cfg.filter_tgid && !bpf_map_lookup_elem(&sb_tgids, &tgid))
		return 0;
	if (sb_cfg.cgroup_id && bpf_get_current_cgroup_id() != sb_cfg.cgroup_id)
		return 0;
	return 1;
}

/* Stack ids hash the frames, leaf first, from a seed per kind: */
#define SB_HASH_USER 0x75736572ULL
#define SB_HASH_KERN 0x6b65726eULL
static __always_inline __u64 sb_stack_hash(__u64 h, __u64 ip)
{
	h ^= ip;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/*
 * Keep the frames in st, whose hash is h, in the stack map; their id,
 * or SB_STACK_LOST. An applet that walks a stack its own way (iostack,
 * from the registers a syscall saved) hashes each frame as it goes and
 * keeps the stack here, so equal stacks get one id whoever walked them.
 */
static __always_inline __u64 sb_stack_keep(struct sb_stack *st, __u64 h)
{
	if (h <= SB_STACK_LOST)
		h += 2;
	if (bpf_map_lookup_elem(&sb_stacks, &h))
		return h;
	if (bpf_map_update_elem(&sb_stacks, &h, st, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&sb_stacks, &h))
		return SB_STACK_LOST;
	return h;
}

/* The id of the len bytes of frames in st (a walk's result): 0 is no
 * stack of that kind, below 0 a lost one. */
static __always_inline __u64 sb_stack_done(struct sb_stack *st, long len,
					   __u64 h)
{
	int i;

	if (len == 0)
		return SB_STACK_NONE;
	if (len < 0)
		return SB_STACK_LOST;
	for (i = 0; i < SB_MAX_DEPTH; i++) {
		if (i * 8 >= len)
			break;
		h = sb_stack_hash(h, st->ip[i]);
	}
	return sb_stack_keep(st, h);
}

/* The user stack walked by unwind.bpf.h, kept: its id. A global function:
 * one copy of the walk's call, the hash and the keeping per object, not
 * one in every program that takes a stack. */
#ifdef SB_WITH_UNWIND
__noinline __u64 sb_stack_tables(void)
{
	struct sb_stack *st = sb_stack_buf();
	__u64 id = 0;
	long len;

	if (!st)
		return SB_STACK_LOST;
	len = sb_unwind_user(st, &id);
	sb_stat_add(id ? SB_STAT_UNWIND_RECALLED : SB_STAT_UNWIND_WALKS, 1);
	if (id)
		return id; /* the thread's last walk, proved the same */
	id = sb_stack_done(st, len, SB_HASH_USER);
	sb_unwind_remember(id);
	return id;
}
#else
static __always_inline __u64 sb_stack_tables(void)
{
	return SB_STACK_NONE;
}
#endif

/*
 * The one place stacks are captured. Returns a stack id: a hash of the
 * frames, SB_STACK_NONE or SB_STACK_LOST. With tables, the user stack is
 * walked by unwind.bpf.h, else by the kernel.
 */
static __always_inline __u64 sb_stack_by(void *ctx, __u64 flags, int tables)
{
	struct sb_stack *st = sb_stack_buf();
	__u64 h = (flags & BPF_F_USER_STACK) ? SB_HASH_USER : SB_HASH_KERN;

	if (tables)
		return sb_stack_tables();
	if (!st)
		return SB_STACK_LOST;
	/* 0: no stack of this kind (kernel thread, a user-mode sample's
	 * kernel part). Unlike bpf_get_stackid(), -EFAULT here means the
	 * kernel had no callchain buffer free (nested capture): lost. */
	return sb_stack_done(
		st, bpf_get_stack(ctx, st->ip, sizeof(st->ip), flags), h);
}

static __always_inline __u64 sb_stack_id(void *ctx, __u64 flags)
{
	return sb_stack_by(ctx, flags,
			   (flags & BPF_F_USER_STACK) && sb_unwind_wanted());
}

/*
 * The user stack by frame pointers, for a program that has the user's
 * registers (a uprobe's context, the registers a syscall saved): the
 * pc, then each frame record's return address, as the kernel's walk in
 * bpf_get_stack() goes, but ending where the chain does, at a null frame
 * pointer (the outermost frame's) or one that does not lie above the
 * last. The kernel's walk reads through the null pointer at the end of
 * every stack and takes a fault for it, which costs more than the rest
 * of the walk (0.4 of 1.4 us per syscall measured in iostack). Each
 * frame is hashed as it is read, so the verifier sees one loop. The
 * stack's id, or SB_STACK_LOST.
 *
 * A global function (scalar arguments only): the verifier checks it
 * once, not once for each path that reaches its caller, each walking
 * the loop 127 times (memstack's uprobe program: 50,295 instructions
 * processed, not 8,784; iostack's raw_tp one: 199,732, some 0.1 s of
 * its start). The legacy programs keep it inline: the kernels they are
 * for were never tried with it.
 */
#if SB_MODERN
__noinline __u64 sb_user_stack_fp(__u64 ip, __u64 sp, __u64 fp)
#else
static __always_inline __u64 sb_user_stack_fp(__u64 ip, __u64 sp, __u64 fp)
#endif
{
	struct sb_stack *st = sb_stack_buf();
	__u64 above = sp, h;
	int n;

	if (!st)
		return SB_STACK_LOST;
	st->ip[0] = ip;
	h = sb_stack_hash(SB_HASH_USER, ip);
	for (n = 1; n < SB_MAX_DEPTH; n++) {
		__u64 frame[2]; /* the caller's frame pointer, return address */

		if (fp < above || fp & 7 ||
		    bpf_probe_read_user(frame, sizeof(frame), (void *)fp) ||
		    !frame[1])
			break;
		st->ip[n] = frame[1];
		h = sb_stack_hash(h, frame[1]);
		above = fp + sizeof(frame);
		fp = frame[0];
	}
	if (n < SB_MAX_DEPTH)
		st->ip[n] = 0; /* the buffer is reused: end the stack */
	return sb_stack_keep(st, h);
}

/* Fill the identity part of a key for the current task: all but its
 * stacks. */
static __always_inline void sb_key_task(struct sb_key *key, __u64 pid_tgid)
{
	key->tgid = pid_tgid >> 32;
	key->pid = sb_cfg.per_thread ? (__u32)pid_tgid : 0;
	key->cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	key->user_stack = SB_STACK_NONE;
	key->kern_stack = SB_STACK_NONE;
	sb_announce(key->tgid);
}

/* A stack id for a key: one that could not be kept is counted. */
static __always_inline __u64 sb_counted(__u64 id, __u32 lost_stat)
{
	if (id == SB_STACK_LOST)
		sb_stat_add(lost_stat, 1);
	return id;
}

/* ... for a program that has the user's registers (ip, sp, fp): with
 * frame pointers, walked from them. */
static __always_inline __u64 sb_user_stack_regs(void *ctx, __u64 ip, __u64 sp,
						__u64 fp)
{
	if (!sb_cfg.user_stacks)
		return SB_STACK_NONE;
	if (sb_unwind_wanted())
		return sb_counted(sb_stack_by(ctx, BPF_F_USER_STACK, 1),
				  SB_STAT_USTACK_LOST);
	return sb_counted(sb_user_stack_fp(ip, sp, fp), SB_STAT_USTACK_LOST);
}

/* The current task's user stack (none under -K), by the unwinder --unwind
 * chose. Where the tables may walk, the user's registers are known:
 * frame pointers are walked from them too (sb_user_stack_fp), not by
 * the kernel, whose walk faults at the chain's end. */
static __always_inline __u64 sb_user_stack(void *ctx)
{
	__u64 regs, pc;

	if (!sb_cfg.user_stacks)
		return SB_STACK_NONE;
	/* the legacy programs keep the kernel's walk (they find the
	 * registers only for the tables, by the kernel stack's top) */
	regs = SB_MODERN && sb_cfg.unwind != SB_UNWIND_FP ? sb_user_regs() : 0;
	pc = regs ? sb_kread(regs + SB_REG_PC) : 0;
	if (pc) /* not a kernel thread's (zeros) */
		return sb_user_stack_regs(ctx, pc, sb_kread(regs + SB_REG_SP),
					  sb_kread(regs + SB_REG_FP));
	return sb_counted(sb_stack_id(ctx, BPF_F_USER_STACK),
			  SB_STAT_USTACK_LOST);
}

/* The current task's kernel stack (none under -U). */
static __always_inline __u64 sb_kern_stack(void *ctx)
{
	if (!sb_cfg.kern_stacks)
		return SB_STACK_NONE;
	return sb_counted(sb_stack_id(ctx, 0), SB_STAT_KSTACK_LOST);
}

/* Fill the identity part of a key and its stacks for the current task. */
static __always_inline void sb_key_init(void *ctx, struct sb_key *key,
					__u64 pid_tgid)
{
	sb_key_task(key, pid_tgid);
	key->user_stack = sb_user_stack(ctx);
	key->kern_stack = sb_kern_stack(ctx);
}

/* ... for a program that has the user's registers. */
static __always_inline void sb_key_init_uregs(void *ctx, struct sb_key *key,
					      __u64 pid_tgid, __u64 ip,
					      __u64 sp, __u64 fp)
{
	sb_key_task(key, pid_tgid);
	key->user_stack = sb_user_stack_regs(ctx, ip, sp, fp);
	key->kern_stack = sb_kern_stack(ctx);
}

/* The syscalls:sys_enter_NAME and sys_exit_NAME records (struct
 * syscall_trace_enter and _exit), stable since they were added. */
struct sb_sys_enter {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct sb_sys_exit {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/* Add delta to the row of key in one interval's map. */
static __always_inline void sb_count_in(void *counts, const struct sb_key *key,
					const struct sb_values *delta)
{
	struct sb_values *v;
	int i;

	v = bpf_map_lookup_elem(counts, key);
	if (!v) {
		if (!bpf_map_update_elem(counts, key, delta, BPF_NOEXIST))
			return;
		v = bpf_map_lookup_elem(counts, key);
		if (!v) {
			sb_stat_add(SB_STAT_ROWS_DROPPED, 1);
			return;
		}
	}
	for (i = 0; i < SB_NVALUES; i++)
		if (delta->v[i]) /* an atomic add costs even when it adds 0 */
			__sync_fetch_and_add(&v->v[i], delta->v[i]);
}

/* The map of the interval holding t (CLOCK_MONOTONIC ns), by the flip
 * a program read: the one counting since that flip, or for a time
 * before it (an event counted late: a block's end, a syscall's exit)
 * the one being closed, until user space seals it for its drain; then
 * the current one, never a map already drained (its rows would show
 * two snapshots later). */
static __always_inline __u32 sb_interval_at(__u64 flip, __u64 t)
{
	return (flip & 1) ^ (t <= flip >> 1 && sb_ctl.sealed != flip);
}

static __always_inline void *sb_counts_of(__u32 interval)
{
	return interval ? (void *)&sb_counts1 : (void *)&sb_counts0;
}

/* ... in the interval being counted now */
static __always_inline void sb_count(const struct sb_key *key,
				     const struct sb_values *delta)
{
	sb_count_in(sb_counts_of(sb_ctl.flip & 1), key, delta);
}

/* Process lifetime, so user space captures mappings while they exist.
 * raw_tp: needs neither tracefs nor BTF. */
SEC("raw_tp/sched_process_fork")
int sb_on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 child = ctx->args[1]; /* (parent, child) */
	struct sb_fork f = {bpf_ktime_get_ns(),
			    bpf_get_current_pid_tgid() >> 32};

	bpf_map_update_elem(&sb_forks, &child, &f, BPF_ANY);
	/* the parent's mappings are read before its children's turn come:
	 * only a capture older than a fork is copied to the child */
	if (sb_wanted(f.parent))
		sb_announce(f.parent);
	return 0;
}

/* The current process changes its code now: how long since its last
 * change (now, when none was seen). */
static __always_inline __u64 sb_code_changed(__u32 tgid)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 *last = bpf_map_lookup_elem(&sb_code_changes, &tgid);
	__u64 since = now - (last ? *last : 0);

	if (bpf_map_update_elem(&sb_code_changes, &tgid, &now, BPF_ANY))
		sb_code_changes_full = 1;
	return since;
}

SEC("raw_tp/sched_process_exec")
int sb_on_exec(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 task = bpf_get_current_task();

	bpf_map_delete_elem(&sb_forks, &task); /* its own mappings now */
	sb_unwind_forget(tgid);
	sb_code_changed(tgid);
	if (bpf_map_lookup_elem(&sb_known, &tgid))
		sb_event(SB_EV_EXEC, tgid);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int sb_on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), task = bpf_get_current_task();
	__u32 tgid = id >> 32;

	bpf_map_delete_elem(&sb_forks, &task); /* its address may come back */
	if ((__u32)id == tgid)
		bpf_map_delete_elem(&sb_code_changes, &tgid);
	if ((__u32)id == tgid && bpf_map_lookup_elem(&sb_known, &tgid)) {
		bpf_map_delete_elem(&sb_known, &tgid);
		sb_event(SB_EV_EXIT, tgid);
	}
	return 0;
}

/*
 * Code mapped (mmap, mprotect with PROT_EXEC) or a mapping moved (mremap
 * of any: it may be code) after a fork: the parent's mappings read then
 * are not the child's, and before them they are (plan.c attaches these
 * beside the process programs, and says when it cannot). The calls' own
 * tracepoints: raw_syscalls would run at every system call.
 */
#define SB_PROT_EXEC	 4
#define SB_MAP_ANONYMOUS 0x20 /* x86_64 and arm64 */
/* a file's code mapped after this long without a change starts a new
 * round of loading: the looks of the last one (core/looks.h) are over */
#define SB_CODE_QUIET_NS (400 * 1000000ULL)

SEC("tracepoint/syscalls/sys_enter_mmap")
int sb_on_mmap(struct sb_sys_enter *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!(ctx->args[2] & SB_PROT_EXEC))
		return 0;
	if (sb_code_changed(tgid) >= SB_CODE_QUIET_NS &&
	    (int)ctx->args[4] >= 0 && !(ctx->args[3] & SB_MAP_ANONYMOUS))
		sb_unwind_code_mapped(tgid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mprotect")
int sb_on_mprotect(struct sb_sys_enter *ctx)
{
	if (ctx->args[2] & SB_PROT_EXEC)
		sb_code_changed(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mremap")
int sb_on_mremap(struct sb_sys_enter *ctx)
{
	sb_code_changed(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

/*
 * Kernel symbol names without /proc/kallsyms: user space runs this with
 * one address (BPF_PROG_TEST_RUN, args[0]) and reads back what the kernel
 * calls it ("%pS": name+off/size [module]). Reading all of kallsyms costs
 * 70 ms of kernel time and 4 MB for the ~100 names a run shows. Without
 * bpf_snprintf (5.13) the name stays empty and user space reads kallsyms.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_ksym_name);
} sb_ksym_names SEC(".maps");

/* A global in .rodata, not a literal nor a static: either exists in the
 * modern build only (a .rodata.str1.1 map; a shifted .rodata), and the
 * one skeleton must find the same maps and offsets in both builds. */
const volatile char sb_ksym_format[4] = "%pS";

SEC("raw_tp")
int sb_ksym(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	struct sb_ksym_name *out = bpf_map_lookup_elem(&sb_ksym_names, &zero);

	if (!out)
		return 0;
	out->name[0] = 0;
#if SB_MODERN
	__u64 ip = ctx->args[0]; /* the helper reads it from the stack */

	bpf_snprintf(out->name, sizeof(out->name), (const char *)sb_ksym_format,
		     &ip, sizeof(ip));
#endif
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

#endif
