// SPDX-License-Identifier: GPL-2.0
/*
 * memstack: memory held per allocation stack.
 *
 * Every allocation still held is a record in ms_allocs, keyed by the
 * process incarnation and address, that names its stack's row in
 * ms_rows; a row keeps what its stack holds now and what it ever
 * allocated, updated with atomics. User space reads the rows at each
 * snapshot without taking them away (outstanding memory is state), and
 * drops a process's rows and records once it has exited.
 *
 * Modes (ms_mode): the allocator's functions through uprobes (entry and
 * return), mmap/munmap/brk through syscall tracepoints, page faults
 * through a software perf event (counted per interval, not held), and
 * the kernel's kmem tracepoints. The alloc mode is the allocator's
 * functions without free: what each stack allocated, counted per
 * interval as the faults are, with no record to take back.
 */
#define SB_NVALUES 2 /* faults, alloc: bytes, and faults or calls */
#include "collect.bpf.h"
#include "memstack.h"

#include <stdbool.h>

#if defined(__TARGET_ARCH_x86)
#define NR_MMAP	  9
#define NR_MUNMAP 11
#define NR_BRK	  12
#elif defined(__TARGET_ARCH_arm64)
#define NR_MMAP	  222
#define NR_MUNMAP 215
#define NR_BRK	  214
#endif

#define EEXIST	 17
#define STALE_NS (10 * 1000000000ULL) /* no allocator call takes 10 s */

const volatile __u8 ms_mode = MS_MODE_USER;
const volatile __u64 sample_mean = 0; /* -s BYTES; 0: exact */
const volatile __u8 keep_time = 0;    /* --age: allocation times */
const volatile __u8 bad_frees = 0;    /* count them per stack */
const volatile __u32 self_tgid = 0;   /* the collector: never traced */
const volatile __u64 page_size = 4096;
/* task_struct.signal, signal_struct.live from kernel BTF; 0: unknown,
 * then a process ends when its leader does */
const volatile __u32 task_signal_off = 0;
const volatile __u32 signal_live_off = 0;
const volatile __u32 log2_tab[(1 << MS_LOG2_BITS) + 1] = {};
const volatile __u32 weight_tab[MS_WEIGHT_N + 1] = {};
const volatile struct ms_kfield kfields[MS_K_NEVENTS] = {};
/* Set once an allocation went untracked (a map full, a return lost):
 * its free will look bad, so user space marks bad frees uncertain. */
__u32 ms_untracked = 0;

/* A thread's call in flight (entry seen, return to come), and its
 * sampling state. Only the thread itself writes it. */
struct ms_thread {
	__u64 size;
	__u64 arg;	 /* realloc's old pointer, posix_memalign's &ptr */
	__u64 sp;	 /* at the outermost entry: nested calls are below */
	__u64 since;	 /* when it began */
	__u64 stack;	 /* user stack at that entry */
	__u64 countdown; /* -s: bytes until the next sample */
	__u32 tgid, gen;
	__u16 depth; /* allocator calls in flight, nested ones included */
	__u8 kind;   /* enum ms_kind */
	__u8 sampled;
	__u8 passed_kind; /* a per-function program's, for ms_entry_tail */
};

struct ms_proc {
	__u32 gen;
	__u32 pad;
	__u64 brk; /* the program break last seen; 0: not yet */
};

/*
 * Threads, processes, records and rows are allocated as they come, not
 * preallocated: that took 40 to 70 ms of the start here (ms_allocs'
 * 131072 records 25 to 45 of them), for runs that mostly hold a few.
 * User space preallocates records and rows for the kmem tracepoints,
 * which would see their own allocations.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ms_thread);
} ms_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ms_proc);
} ms_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072); /* --max-allocs */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ms_alloc_key);
	__type(value, struct ms_alloc);
} ms_allocs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240); /* --rows */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct ms_row);
} ms_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192); /* gone between two snapshots */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ms_exit_key);
	__type(value, __u64); /* when */
} ms_exited SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ms_row);
} ms_scratch SEC(".maps");

/* Slot 0: ms_entry_tail, set by user space where it is loaded. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ms_entry_jump SEC(".maps");

/* ---- sampling (-s): intervals and weights from user space's tables ---- */

/* Bytes to the next sample: mean x -ln(U), U uniform in (0, 1), from
 * -log2(U) = 32 - log2(r) for a random 32-bit r. */
static __always_inline __u64 draw_interval(void)
{
	__u32 r = bpf_get_prandom_u32() | 1, x = r, e = 0, m;
	__u64 neglog2;

	if (x >= 1 << 16)
		x >>= 16, e += 16;
	if (x >= 1 << 8)
		x >>= 8, e += 8;
	if (x >= 1 << 4)
		x >>= 4, e += 4;
	if (x >= 1 << 2)
		x >>= 2, e += 2;
	if (x >= 1 << 1)
		e += 1;
	m = e >= MS_LOG2_BITS ? r >> (e - MS_LOG2_BITS)
			      : r << (MS_LOG2_BITS - e);
	m &= (1 << MS_LOG2_BITS) - 1;
	neglog2 = ((__u64)(32 - e) << 16) - log2_tab[m]; /* 16.16 */
	/* x ln 2 (45426 / 2^16) */
	return (((sample_mean * neglog2) >> 16) * 45426 >> 16) + 1;
}

/* An allocation of size s is sampled with probability 1 - e^(-s/mean):
 * it stands for s / (1 - e^(-s/mean)) = mean x f(s/mean) bytes. */
static __always_inline __u64 sampled_bytes(__u64 size)
{
	__u64 x = (size << 16) / sample_mean, f;
	__u32 i = x >> 10, frac = x & 1023; /* table step 1/64 */

	if (i >= MS_WEIGHT_N)
		return size;
	f = weight_tab[i] +
	    (((__u64)(weight_tab[i + 1] - weight_tab[i]) * frac) >> 10);
	return (sample_mean * f) >> 16;
}

/* The calls a sampled allocation of size bytes, weighed bytes, stands
 * for: bytes / size, rounded up with the probability of its fraction.
 * Rounding to the nearest was biased where size is near the mean: at
 * -s 64k a 100 KiB allocation, sampled 79 % of the time, stood for 1
 * call, not 1.27 (a fifth of the calls missing). */
static __always_inline __u64 sampled_objs(__u64 bytes, __u64 size)
{
	__u64 r = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();

	return bytes / size + (r % size < bytes % size);
}

/* ---- processes, threads, rows ---- */

/* The filters, and never the collector's own calls (without -p its
 * allocations at each snapshot would feed themselves). */
static __always_inline bool wanted(__u64 id)
{
	return id >> 32 != self_tgid && sb_wanted(id >> 32);
}

static __always_inline struct ms_proc *proc_get(__u32 tgid)
{
	struct ms_proc *p = bpf_map_lookup_elem(&ms_procs, &tgid), n = {};
	__u64 now;

	if (p)
		return p;
	/* a new incarnation: its records never meet an older one's */
	now = bpf_ktime_get_ns();
	n.gen = now ^ (now >> 32);
	bpf_map_update_elem(&ms_procs, &tgid, &n, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ms_procs, &tgid);
}

static __always_inline struct ms_thread *thread_get(__u64 id)
{
	__u32 tid = id, tgid = id >> 32;
	struct ms_thread *t = bpf_map_lookup_elem(&ms_threads, &tid);
	struct ms_proc *p;

	if (t && t->tgid == tgid)
		return t;
	p = proc_get(tgid);
	if (p) {
		struct ms_thread n = {.tgid = tgid, .gen = p->gen};

		if (sample_mean)
			n.countdown = draw_interval();
		if (!bpf_map_update_elem(&ms_threads, &tid, &n, BPF_ANY))
			return bpf_map_lookup_elem(&ms_threads, &tid);
	}
	sb_stat_add(MS_STAT_THREADS_FULL, 1);
	ms_untracked = 1;
	return NULL;
}

static __always_inline __u64 row_ref(__u32 tgid, __u32 gen, __u64 ustack,
				     __u64 kstack)
{
	__u64 h = ((__u64)tgid << 32 | gen) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	h ^= ustack;
	h *= 0x9e3779b97f4a7c15ULL;
	h ^= h >> 29;
	h ^= kstack;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* The row of the current task's process and these stacks. */
static __always_inline struct ms_row *
row_get(__u32 tgid, __u32 gen, __u64 ustack, __u64 kstack, __u64 *ref)
{
	__u32 zero = 0;
	struct ms_row *r, *n;

	*ref = row_ref(tgid, gen, ustack, kstack);
	r = bpf_map_lookup_elem(&ms_rows, ref);
	if (r)
		return r;
	n = bpf_map_lookup_elem(&ms_scratch, &zero);
	if (!n)
		return NULL;
	__builtin_memset(n, 0, sizeof(*n));
	n->key.tgid = tgid;
	n->key.user_stack = ustack;
	n->key.kern_stack = kstack;
	n->key.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(n->key.comm, sizeof(n->key.comm));
	n->gen = gen;
	if (bpf_map_update_elem(&ms_rows, ref, n, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&ms_rows, ref)) {
		sb_stat_add(MS_STAT_ROWS_FULL, 1);
		return NULL;
	}
	sb_announce(tgid);
	return bpf_map_lookup_elem(&ms_rows, ref);
}

/* Take a record away and what it held from its row. Two threads freeing
 * one pointer: only the one whose delete succeeds subtracts. False when
 * nothing was held there. */
static __always_inline bool release(const struct ms_alloc_key *k, __u32 miss)
{
	struct ms_alloc *a = bpf_map_lookup_elem(&ms_allocs, k), copy;
	struct ms_row *r;

	if (!a) {
		if (miss)
			sb_stat_add(miss, 1);
		return false;
	}
	copy = *a;
	if (bpf_map_delete_elem(&ms_allocs, k))
		return true; /* the other thread's free took it */
	r = bpf_map_lookup_elem(&ms_rows, &copy.ref);
	if (!r)
		return true;
	__sync_fetch_and_add(&r->inuse_bytes, -copy.bytes);
	__sync_fetch_and_add(&r->inuse_objs, -copy.objs);
	return true;
}

/* A record of bytes at k, for the current task and these stacks. */
static __always_inline void hold(const struct ms_alloc_key *k, __u64 bytes,
				 __u64 objs, __u64 ustack, __u64 kstack)
{
	struct ms_alloc a = {.bytes = bytes, .objs = objs};
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct ms_row *r = row_get(tgid, k->gen, ustack, kstack, &a.ref);
	long err;

	if (!r) {
		ms_untracked = 1;
		return;
	}
	if (keep_time)
		a.time = bpf_ktime_get_ns();
	err = bpf_map_update_elem(&ms_allocs, k, &a, BPF_NOEXIST);
	if (err == -EEXIST) { /* its free was missed: the old one is gone */
		sb_stat_add(MS_STAT_REPLACED, 1);
		release(k, 0);
		err = bpf_map_update_elem(&ms_allocs, k, &a, BPF_NOEXIST);
	}
	if (err) {
		sb_stat_add(MS_STAT_ALLOCS_FULL, 1);
		ms_untracked = 1;
		return;
	}
	__sync_fetch_and_add(&r->inuse_bytes, bytes);
	__sync_fetch_and_add(&r->inuse_objs, objs);
	__sync_fetch_and_add(&r->alloc_bytes, bytes);
	__sync_fetch_and_add(&r->alloc_objs, objs);
}

/* A user allocation of size bytes at ptr, exact or sampled. */
static __always_inline void hold_user(struct ms_alloc_key *k, __u64 size,
				      __u64 ustack)
{
	__u64 bytes = size, objs = 1;

	if (sample_mean && size) {
		bytes = sampled_bytes(size);
		objs = sampled_objs(bytes, size);
	}
	hold(k, bytes, objs, ustack, SB_STACK_NONE);
}

/* --mode alloc: size bytes allocated by one call (or its sampled
 * weight), in the interval's counts: nothing is held, so no record. */
static __always_inline void count_alloc(__u64 id, __u64 size, __u64 ustack)
{
	struct sb_values v = {{size, 1}};
	struct sb_key key = {};

	if (sample_mean && size) {
		v.v[0] = sampled_bytes(size);
		v.v[1] = sampled_objs(v.v[0], size);
	}
	sb_key_task(&key, id);
	key.user_stack = ustack;
	sb_count(&key, &v);
}

/* The user stack; uregs: ctx is the user's registers (a uprobe's). A
 * tracepoint's context is its record: reading registers past it makes
 * attaching fail (EACCES). */
static __always_inline __u64 user_stack(void *ctx, bool uregs)
{
	if (!uregs)
		return sb_user_stack(ctx);
	return sb_user_stack_regs(ctx, SB_REG(ctx, SB_REG_PC),
				  SB_REG(ctx, SB_REG_SP),
				  SB_REG(ctx, SB_REG_FP));
}

/* A free (or realloc) of a pointer not held: counted on its own stack's
 * row. Only when every allocation is seen (-s: one in many is). */
static __always_inline void bad_free(__u32 tgid, __u32 gen, __u64 ustack)
{
	struct ms_row *r;
	__u64 ref;

	if (!bad_frees)
		return;
	r = row_get(tgid, gen, ustack, SB_STACK_NONE, &ref);
	if (r)
		__sync_fetch_and_add(&r->bad_frees, 1);
}

/* ---- the allocator's functions (uprobes) ---- */

/*
 * The entry of an allocating call. True when its return has work to do;
 * with uprobe sessions (session) only those run their return, and a
 * nested call never does: the outer call's return ends the call, so
 * depth stays 1. Only an unsampled malloc skips its return: malloc calls
 * no other allocator function, so no call inside it can take itself for
 * an outer one. The others keep theirs, sampled or not: musl's calloc,
 * aligned_alloc and realloc call malloc, glibc's realloc calls malloc
 * and free, and realloc's return moves a sampled old pointer.
 */
static __always_inline bool alloc_entry(void *ctx, __u8 kind, __u64 size,
					__u64 arg, bool session)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = SB_REG(ctx, SB_REG_SP);
	__u64 now = bpf_ktime_get_ns();
	struct ms_thread *t;
	__u8 sampled = 1;

	if (!wanted(id) || !(t = thread_get(id)))
		return false;
	/* called by another allocator function (glibc's realloc calls
	 * malloc, musl's calloc too), or tail-called by it (same stack
	 * pointer): the outer call counts. One that began long ago has
	 * lost its return (a uretprobe that could not be set up). */
	if (t->depth && sp <= t->sp && now - t->since < STALE_NS) {
		if (!session)
			t->depth++;
		return false;
	}
	if (t->depth) {
		sb_stat_add(MS_STAT_NO_RETURN, 1);
		ms_untracked = 1;
	}
	if (sample_mean) {
		if (size < t->countdown) {
			t->countdown -= size;
			sampled = 0;
		} else {
			t->countdown = draw_interval();
		}
	}
	if (session && !sampled && kind == MS_MALLOC) {
		t->depth = 0;
		return false;
	}
	t->since = now;
	t->depth = 1;
	t->sp = sp;
	t->kind = kind;
	t->size = size;
	t->arg = arg;
	t->sampled = sampled;
	t->stack = t->sampled ? user_stack(ctx, true) : SB_STACK_NONE;
	/* realloc of a pointer not held: counted now, since an allocator
	 * that catches it (glibc aborts) never returns */
	if (bad_frees && arg &&
	    (kind == MS_REALLOC || kind == MS_REALLOCARRAY)) {
		struct ms_alloc_key k = {
			.tgid = id >> 32, .gen = t->gen, .addr = arg};

		if (!bpf_map_lookup_elem(&ms_allocs, &k))
			bad_free(k.tgid, k.gen, t->stack);
	}
	return true;
}

static __always_inline __u64 times(__u64 n, __u64 size)
{
	__u64 most;

	if (!n)
		return 0;
	most = ~0ULL / n;
	/* kept from becoming a 128-bit multiply, which BPF has not */
	asm volatile("" : "+r"(most));
	return size > most ? ~0ULL : n * size; /* ~0: the call fails */
}

static __always_inline int free_entry(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ptr = SB_REG(ctx, SB_REG_ARG0);
	struct ms_alloc_key k = {.tgid = id >> 32, .addr = ptr};
	struct ms_thread *t;

	if (!ptr || !wanted(id) || !(t = thread_get(id)))
		return 0;
	if (t->depth && SB_REG(ctx, SB_REG_SP) <= t->sp)
		return 0; /* inside realloc: its return accounts for it */
	k.gen = t->gen;
	if (!release(&k, MS_STAT_FREE_MISS) && bad_frees)
		bad_free(k.tgid, k.gen, user_stack(ctx, true));
	return 0;
}

/* The entry of each function by its kind: size and pointer argument.
 * True when the call's return has work to do (alloc_entry()). */
static __always_inline bool entry(void *ctx, __u64 kind, bool session)
{
	__u64 a0 = SB_REG(ctx, SB_REG_ARG0), a1 = SB_REG(ctx, SB_REG_ARG1);

	switch (kind) {
	case MS_MALLOC:
	case MS_VALLOC:
		return alloc_entry(ctx, kind, a0, 0, session);
	case MS_CALLOC:
		return alloc_entry(ctx, kind, times(a0, a1), 0, session);
	case MS_REALLOC:
		return alloc_entry(ctx, kind, a1, a0, session);
	case MS_REALLOCARRAY:
		return alloc_entry(ctx, kind,
				   times(a1, SB_REG(ctx, SB_REG_ARG2)), a0,
				   session);
	case MS_POSIX_MEMALIGN: /* (&ptr, align, size) */
		return alloc_entry(ctx, kind, SB_REG(ctx, SB_REG_ARG2), a0,
				   session);
	case MS_MEMALIGN: /* (align, size) */
		return alloc_entry(ctx, kind, a1, 0, session);
	case MS_PVALLOC: /* whole pages, and pvalloc(0) one page */
		return alloc_entry(ctx, kind,
				   a0 ? (a0 + page_size - 1) & ~(page_size - 1)
				      : page_size,
				   0, session);
	case MS_FREE:
		free_entry(ctx);
		return false;
	}
	return false;
}

/*
 * Every entry in one program, the kind in its attach cookie: one
 * uprobe_multi link of them all (6.6+), or a perf event uprobe per
 * function (cookies: 5.15+). One program is verified once: the nine
 * that each walked the user stack took 3.8 s to load on 5.10 (TCG).
 */
SEC("uprobe")
int ms_entry(void *ctx)
{
	entry(ctx, bpf_get_attach_cookie(ctx), false);
	return 0;
}

/* Without cookies (before 5.15): a program per function passes its
 * kind in the thread's state to this one, which does the work. */
SEC("uprobe")
int ms_entry_tail(void *ctx)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct ms_thread *t = bpf_map_lookup_elem(&ms_threads, &tid);

	if (t)
		entry(ctx, t->passed_kind, false);
	return 0;
}

static __always_inline int pass_kind(void *ctx, __u8 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ms_thread *t;

	if (!wanted(id) || !(t = thread_get(id)))
		return 0;
	t->passed_kind = kind;
	bpf_tail_call(ctx, &ms_entry_jump, 0);
	sb_stat_add(MS_STAT_NO_ENTRY, 1); /* no program in the slot */
	ms_untracked = 1;
	return 0;
}

#define MS_PASS_KIND(name, kind)             \
	SEC("uprobe")                        \
	int ms_##name(void *ctx)             \
	{                                    \
		return pass_kind(ctx, kind); \
	}

MS_PASS_KIND(malloc, MS_MALLOC)
MS_PASS_KIND(calloc, MS_CALLOC)
MS_PASS_KIND(realloc, MS_REALLOC)
MS_PASS_KIND(reallocarray, MS_REALLOCARRAY)
MS_PASS_KIND(posix_memalign, MS_POSIX_MEMALIGN)
MS_PASS_KIND(memalign, MS_MEMALIGN)
MS_PASS_KIND(valloc, MS_VALLOC)
MS_PASS_KIND(pvalloc, MS_PVALLOC)
MS_PASS_KIND(free, MS_FREE)

/* An allocating call's return; entry_sp: its entry's stack pointer,
 * where known (sessions), so it ends no other call's state. */
static __always_inline void alloc_return(void *ctx, __u64 entry_sp)
{
	__u64 id = bpf_get_current_pid_tgid(), ptr = SB_REG(ctx, SB_REG_RET);
	__u32 tid = id;
	struct ms_thread *t = bpf_map_lookup_elem(&ms_threads, &tid);
	struct ms_alloc_key k = {.tgid = id >> 32};

	if (!t || !t->depth || (entry_sp && entry_sp != t->sp))
		return; /* not seen entering, or another call's state */
	if (--t->depth)
		return; /* a nested call */
	k.gen = t->gen;
	if (t->kind == MS_POSIX_MEMALIGN) {
		if ((int)ptr ||
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)t->arg))
			ptr = 0;
	}
	/* realloc moves what the old pointer held; realloc(p, 0) that
	 * returns NULL (glibc) has freed p; NULL otherwise: p is intact */
	if ((t->kind == MS_REALLOC || t->kind == MS_REALLOCARRAY) && t->arg &&
	    (ptr || !t->size) && ms_mode != MS_MODE_ALLOC) {
		k.addr = t->arg;
		release(&k, MS_STAT_FREE_MISS); /* a miss: counted at entry */
	}
	if (!ptr || !t->sampled)
		return;
	if (ms_mode == MS_MODE_ALLOC) {
		count_alloc(id, t->size, t->stack);
		return;
	}
	k.addr = ptr;
	hold_user(&k, t->size, t->stack);
}

/* Every allocating function's return. */
SEC("uretprobe")
int ms_alloc_return(void *ctx)
{
	alloc_return(ctx, 0);
	return 0;
}

#if SB_MODERN
static bool (*const session_is_return)(void) = (void *)
	MS_CALL_SESSION_IS_RETURN;
static __u64 *(*const session_cookie)(void) = (void *)MS_CALL_SESSION_COOKIE;
#endif

/*
 * -s with uprobe sessions (6.13+), one uprobe_multi link of them all:
 * run at each entry, and at the return only where the entry returns 0.
 * A call not sampled costs one trap, no return probe. The cookie keeps
 * the entry's stack pointer for its return. Never loaded elsewhere, but
 * in every object (the skeleton).
 */
SEC("uprobe")
int ms_session(void *ctx)
{
#if SB_MODERN
	__u64 *cookie = session_cookie(), sp = SB_REG(ctx, SB_REG_SP);

	/* read now: the verifier refuses ctx + offset kept for later */
	asm volatile("" : "+r"(sp));
	if (session_is_return()) {
		alloc_return(ctx, *cookie);
		return 0;
	}
	if (!entry(ctx, bpf_get_attach_cookie(ctx), true))
		return 1; /* no return probe */
	*cookie = sp;
#endif
	return 0;
}

/* ---- process lifetime: a gone incarnation's memory is dropped ---- */

static __always_inline bool group_dead(__u64 id)
{
	void *task = (void *)bpf_get_current_task(), *signal = NULL;
	int live = 1;

	if (!task_signal_off ||
	    bpf_probe_read_kernel(&signal, sizeof(signal),
				  task + task_signal_off) ||
	    !signal ||
	    bpf_probe_read_kernel(&live, sizeof(live),
				  signal + signal_live_off))
		return (__u32)id == id >> 32;
	return live == 0; /* the last thread to exit took it to 0 */
}

static __always_inline void proc_gone(__u32 tgid)
{
	struct ms_proc *p = bpf_map_lookup_elem(&ms_procs, &tgid);
	__u64 now = bpf_ktime_get_ns();
	struct ms_exit_key k = {.tgid = tgid};

	if (!p)
		return;
	k.gen = p->gen;
	if (ms_mode == MS_MODE_ALLOC) { /* no rows or records to drop */
		bpf_map_delete_elem(&ms_procs, &tgid);
		return;
	}
	if (bpf_map_update_elem(&ms_exited, &k, &now, BPF_ANY))
		sb_stat_add(MS_STAT_EXITS_LOST, 1);
	bpf_map_delete_elem(&ms_procs, &tgid);
}

SEC("raw_tp/sched_process_exit")
int ms_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;

	bpf_map_delete_elem(&ms_threads, &tid);
	if (group_dead(id))
		proc_gone(id >> 32);
	return 0;
}

/* (task, old_pid, bprm): the image is new, its memory too */
SEC("raw_tp/sched_process_exec")
int ms_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, old = ctx->args[1];

	bpf_map_delete_elem(&ms_threads, &tid);
	bpf_map_delete_elem(&ms_threads, &old);
	proc_gone(id >> 32);
	return 0;
}

/* ---- mmap, munmap, brk ---- */

static __always_inline __u64 page_up(__u64 len)
{
	return (len + page_size - 1) & ~(page_size - 1);
}

static __always_inline void mmap_enter(void *ctx, __u64 len)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ms_thread *t;

	if (!wanted(id) || !(t = thread_get(id)))
		return;
	if (t->depth)
		sb_stat_add(MS_STAT_NO_RETURN, 1);
	t->depth = 1;
	t->kind = MS_MMAP;
	t->size = page_up(len);
	t->stack = user_stack(ctx, false);
}

static __always_inline void mmap_exit(__s64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;
	struct ms_thread *t = bpf_map_lookup_elem(&ms_threads, &tid);
	struct ms_alloc_key k = {.tgid = id >> 32, .addr = ret};

	if (!t || !t->depth || t->kind != MS_MMAP)
		return;
	t->depth = 0;
	if (ret < 0 && ret > -4096)
		return; /* an error */
	k.gen = t->gen;
	hold(&k, t->size, 1, t->stack, SB_STACK_NONE);
}

/* Take [addr, end) away from the record at k, which starts there and
 * holds more: what is left is the record at end. */
static __always_inline void trim_front(struct ms_alloc_key *k, __u64 end,
				       __u64 new_addr)
{
	struct ms_alloc *a = bpf_map_lookup_elem(&ms_allocs, k), copy;
	struct ms_row *r;
	__u64 cut;

	if (!a)
		return;
	copy = *a;
	if (bpf_map_delete_elem(&ms_allocs, k))
		return;
	cut = end - (k->addr & ~MS_BRK_SEGMENT);
	copy.bytes -= cut;
	k->addr = new_addr;
	bpf_map_update_elem(&ms_allocs, k, &copy, BPF_NOEXIST);
	r = bpf_map_lookup_elem(&ms_rows, &copy.ref);
	if (r)
		__sync_fetch_and_add(&r->inuse_bytes, -cut);
}

/* Whole mappings from addr on, and the front of the last one. */
static __always_inline void munmap_enter(__u64 addr, __u64 len)
{
	__u64 id = bpf_get_current_pid_tgid(), end = addr + page_up(len);
	struct ms_alloc_key k = {.tgid = id >> 32};
	struct ms_thread *t;

	if (!wanted(id) || !(t = thread_get(id)))
		return;
	k.gen = t->gen;
	for (int i = 0; i < 8 && addr < end; i++) {
		struct ms_alloc *a;

		k.addr = addr;
		a = bpf_map_lookup_elem(&ms_allocs, &k);
		if (!a) {
			sb_stat_add(MS_STAT_FREE_MISS, 1);
			return;
		}
		if (a->bytes > end - addr) {
			trim_front(&k, end, end);
			return;
		}
		addr += a->bytes;
		release(&k, 0);
	}
}

/*
 * The program break: each growth is a record keyed by its end, so a
 * shrink finds the latest growth at the old break and takes growths
 * back newest first, the last one in part.
 */
static __always_inline void brk_exit(void *ctx, __u64 brk)
{
	__u64 id = bpf_get_current_pid_tgid(), cur;
	struct ms_alloc_key k = {.tgid = id >> 32};
	struct ms_thread *t;
	struct ms_proc *p;

	if (!wanted(id) || !(t = thread_get(id)) ||
	    !(p = bpf_map_lookup_elem(&ms_procs, &k.tgid)))
		return;
	k.gen = t->gen;
	cur = p->brk;
	p->brk = brk;
	if (!cur || brk == cur)
		return; /* the break as found, or a query */
	if (brk > cur) {
		k.addr = brk | MS_BRK_SEGMENT;
		hold(&k, brk - cur, 1, user_stack(ctx, false), SB_STACK_NONE);
		return;
	}
	for (int i = 0; i < 8 && brk < cur; i++) {
		struct ms_alloc *a;
		__u64 start;

		k.addr = cur | MS_BRK_SEGMENT;
		a = bpf_map_lookup_elem(&ms_allocs, &k);
		if (!a) {
			sb_stat_add(MS_STAT_FREE_MISS, 1);
			return;
		}
		start = cur - a->bytes;
		if (start < brk) { /* keep [start, brk): the end moves */
			struct ms_alloc copy = *a;
			struct ms_row *r =
				bpf_map_lookup_elem(&ms_rows, &copy.ref);

			if (bpf_map_delete_elem(&ms_allocs, &k))
				return;
			copy.bytes = brk - start;
			k.addr = brk | MS_BRK_SEGMENT;
			bpf_map_update_elem(&ms_allocs, &k, &copy, BPF_NOEXIST);
			if (r)
				__sync_fetch_and_add(&r->inuse_bytes,
						     -(cur - brk));
			return;
		}
		release(&k, 0);
		cur = start;
	}
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int ms_enter_mmap(struct sb_sys_enter *ctx)
{
	mmap_enter(ctx, ctx->args[1]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int ms_exit_mmap(struct sb_sys_exit *ctx)
{
	mmap_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_munmap")
int ms_enter_munmap(struct sb_sys_enter *ctx)
{
	munmap_enter(ctx->args[0], ctx->args[1]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_brk")
int ms_exit_brk(struct sb_sys_exit *ctx)
{
	brk_exit(ctx, ctx->ret);
	return 0;
}

/* Without the per-syscall tracepoints: every syscall's raw_tp, by number
 * (needs neither tracefs nor BTF). */
static __always_inline __u64 sys_arg(struct bpf_raw_tracepoint_args *ctx, int i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v),
			      (char *)ctx->args[0] +
				      (i ? SB_REG_ARG1 : SB_REG_ARG0));
	return v;
}

SEC("raw_tp/sys_enter")
int ms_raw_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = ctx->args[1];

	if (nr == NR_MMAP)
		mmap_enter(ctx, sys_arg(ctx, 1));
	else if (nr == NR_MUNMAP)
		munmap_enter(sys_arg(ctx, 0), sys_arg(ctx, 1));
	return 0;
}

SEC("raw_tp/sys_exit")
int ms_raw_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;
	struct ms_thread *t;
	__u64 nr;

	/* the number from the registers' orig_ax / syscallno is arch
	 * specific: what is in flight says which call this is */
	t = bpf_map_lookup_elem(&ms_threads, &tid);
	if (t && t->depth && t->kind == MS_MMAP) {
		mmap_exit(ctx->args[1]);
		return 0;
	}
	nr = 0;
#if defined(__TARGET_ARCH_x86)
	bpf_probe_read_kernel(&nr, sizeof(nr), (__u64 *)ctx->args[0] + 15);
#else
	bpf_probe_read_kernel(&nr, 4, (__u64 *)ctx->args[0] + 35);
#endif
	if (nr == NR_BRK)
		brk_exit(ctx, ctx->args[1]);
	return 0;
}

/* ---- page faults (counted per interval) ---- */

SEC("perf_event")
int ms_fault(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sb_values v = {{page_size, 1}};
	struct sb_key key = {};

	if (!(id >> 32) || !wanted(id))
		return 0;
	sb_key_init(ctx, &key, id);
	sb_count(&key, &v);
	return 0;
}

/* ---- kernel: kmem tracepoints, fields where tracefs says ---- */

static __always_inline __u64 kfield(void *ctx, __u16 off, __u8 size)
{
	__u64 v = 0;

	if (off != 0xffff)
		bpf_probe_read_kernel(&v, size == 8 ? 8 : 4, (char *)ctx + off);
	return v;
}

static __always_inline void k_alloc(void *ctx, int ev, bool page)
{
	__u64 id = bpf_get_current_pid_tgid(), bytes;
	struct ms_alloc_key k = {.gen = page};

	k.addr = kfield(ctx, kfields[ev].ptr, kfields[ev].ptr_size);
	if (k.addr <= 16 || k.addr == ~0ULL || !wanted(id))
		return; /* NULL, ZERO_SIZE_PTR, no page */
	if (page)
		bytes = page_size << (kfield(ctx, kfields[ev].order,
					     kfields[ev].order_size) &
				      31);
	else
		bytes = kfield(ctx, kfields[ev].bytes, kfields[ev].bytes_size);
	hold(&k, bytes, 1, user_stack(ctx, false), sb_kern_stack(ctx));
}

static __always_inline void k_free(void *ctx, int ev, bool page)
{
	struct ms_alloc_key k = {.gen = page};

	k.addr = kfield(ctx, kfields[ev].ptr, kfields[ev].ptr_size);
	if (k.addr > 16)
		release(&k, MS_STAT_FREE_MISS);
}

SEC("tracepoint/kmem/kmalloc")
int ms_kmalloc(void *ctx)
{
	k_alloc(ctx, MS_K_KMALLOC, false);
	return 0;
}

SEC("tracepoint/kmem/kmalloc_node")
int ms_kmalloc_node(void *ctx)
{
	k_alloc(ctx, MS_K_KMALLOC_NODE, false);
	return 0;
}

SEC("tracepoint/kmem/kmem_cache_alloc")
int ms_cache_alloc(void *ctx)
{
	k_alloc(ctx, MS_K_CACHE_ALLOC, false);
	return 0;
}

SEC("tracepoint/kmem/kmem_cache_alloc_node")
int ms_cache_alloc_node(void *ctx)
{
	k_alloc(ctx, MS_K_CACHE_ALLOC_NODE, false);
	return 0;
}

SEC("tracepoint/kmem/kfree")
int ms_kfree(void *ctx)
{
	k_free(ctx, MS_K_KFREE, false);
	return 0;
}

SEC("tracepoint/kmem/kmem_cache_free")
int ms_cache_free(void *ctx)
{
	k_free(ctx, MS_K_CACHE_FREE, false);
	return 0;
}

SEC("tracepoint/kmem/mm_page_alloc")
int ms_page_alloc(void *ctx)
{
	k_alloc(ctx, MS_K_PAGE_ALLOC, true);
	return 0;
}

SEC("tracepoint/kmem/mm_page_free")
int ms_page_free(void *ctx)
{
	k_free(ctx, MS_K_PAGE_FREE, true);
	return 0;
}

SEC("tracepoint/kmem/mm_page_free_batched")
int ms_page_free_batched(void *ctx)
{
	k_free(ctx, MS_K_PAGE_FREE_BATCHED, true);
	return 0;
}
