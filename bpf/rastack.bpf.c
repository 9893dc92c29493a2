// SPDX-License-Identifier: GPL-2.0
/*
 * rastack: pages read ahead per stack that started the readahead, and
 * how many of them were used.
 *
 * A readahead marks its thread: pages of that file, in the readahead's
 * range, that the thread adds to the page cache belong to it (the adds
 * happen in the caller, before the I/O). The first such page captures
 * the stack. The mark ends at the thread's next readahead or its next
 * read, fault or fault-around of the same file (those come after the
 * readahead they caused; a fault's comes before, and also names the page
 * the fault wants). A page is used when read, faulted or mapped while
 * tracked; eviction ends its tracking. Pages are tracked in runs of 64
 * per file (RA_RUN_PAGES bits).
 *
 * Events come from tracepoints (filemap 6.10+, readahead after 6.12):
 * raw ones, else classic ones (without kernel types), else fentry, else
 * kprobes on the same kernel functions. All but the classic tracepoints
 * read struct fields at offsets user space took from kernel BTF (no
 * CO-RE: the classic path needs no BTF).
 */
#include <stdbool.h>

#include "rastack.h"
#define SB_NVALUES RA_NMETRICS
#include "collect.bpf.h"

/* The handlers below are BPF subprograms (__noinline), called by every
 * way of attaching: the object holds one copy of each. */
#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif
/* The body of a loop over a range's runs. The verifier walks a loop
 * once per iteration, and each walk of the body is costly (its own
 * loop over the slots): in the modern programs the body is a global
 * function, verified once on its own (pointer arguments: 5.12+). The
 * legacy ones inline it. */
#if SB_MODERN
#define RA_RUN_BODY __noinline
#else
#define RA_RUN_BODY static __always_inline
#endif

/* Owner ids: 0 not captured yet, 1 could not be kept (map full). */
#define OWNER_NONE 1ULL
/* At most this many runs per event (2048 pages), so a huge read costs
 * a bounded time; a 1 MiB folio spans 4 runs. */
#define RA_MAX_RUNS 32

const volatile struct ra_tp_layout tp[RA_NTP] = {};
const volatile struct ra_kernel_layout kl = {};
const volatile __u8 atomics = 0; /* BPF atomic fetch ops (5.12+) */
/* Kernel BTF, bpf_task_pt_regs (5.15+) and the sync/async readahead
 * tracepoints: a thread's readaheads from one place share their stacks */
const volatile __u8 reuse_stacks = 0;

struct ra_file {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct ra_run_key {
	struct ra_file file;
	__u64 run; /* page index >> RA_RUN_SHIFT */
};

struct ra_run {
	__u64 tracked;	      /* pages read ahead, still in the page cache */
	__u64 used;	      /* of those, used */
	__u64 heads;	      /* first pages of folios (how far a folio goes) */
	__u64 mask[RA_SLOTS]; /* pages of each readahead stack */
	__u64 owner[RA_SLOTS]; /* its ra_owners key; 0: free slot */
};

struct ra_thread {
	struct ra_file ra;  /* readahead in progress: this file's pages */
	__u64 ra_lo, ra_hi; /* in [lo, hi) */
	__u64 owner;	    /* its stack (ra_owners), 0 until its first page */
	struct ra_file fault; /* the page the last fault wants */
	__u64 fault_index;
	struct ra_file memo; /* pages the last read marked used */
	__u64 memo_lo, memo_hi;
	struct ra_file read;	       /* a read that found nothing cached: */
	__u64 read_lo, read_hi;	       /* its pages, [lo, hi) */
	__u64 last_origin, last_owner; /* the last stacks captured, and where */
	__u8 ra_on, fault_on, memo_on, read_on;
	__u8 ra_way; /* what started the readahead: RA_WAY_* */
	__u8 kind;   /* RA_KIND_*: sync or async, 0 unknown */
};

enum { RA_WAY_UNBOUNDED = 1, RA_WAY_ORDER };
enum { RA_KIND_SYNC = 1, RA_KIND_ASYNC };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* --pages / RA_RUN_PAGES */
	__type(key, struct ra_run_key);
	__type(value, struct ra_run);
} ra_runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240); /* --rows */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct ra_owner);
} ra_owners SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct ra_thread);
} ra_threads SEC(".maps");

/* capture_owner's owner, per CPU: on on_add's stack it left the table
 * walk's frames under it 96 of 5.10's 512 bytes, all the walk takes */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ra_owner);
} ra_owner_buf SEC(".maps");

/* ---- bits and atomics ---- */

static __always_inline __u64 popcount(__u64 x)
{
	return __builtin_popcountll(x);
}

/* Old kernels lack the fetch forms: a race there can lose a bit, never
 * a count (counts are plain atomic adds, which every kernel has). */
static __always_inline __u64 fetch_or(__u64 *p, __u64 v)
{
	__u64 old;

	if (SB_MODERN && atomics)
		return __sync_fetch_and_or(p, v);
	old = *p;
	*p = old | v;
	return old;
}

static __always_inline void clear_bits(__u64 *p, __u64 v)
{
	if (SB_MODERN && atomics)
		__sync_fetch_and_and(p, ~v);
	else
		*p &= ~v;
}

/* Pages lo..hi (inclusive) that fall in run. */
static __always_inline __u64 run_bits(__u64 lo, __u64 hi, __u64 run)
{
	__u64 first = run << RA_RUN_SHIFT, last = first + RA_RUN_PAGES - 1;
	__u64 from = lo > first ? lo - first : 0;
	__u64 to = hi < last ? hi - first : RA_RUN_PAGES - 1;

	return (~0ULL >> (RA_RUN_PAGES - 1 - to)) & (~0ULL << from);
}

static __always_inline bool same_file(const struct ra_file *a,
				      const struct ra_file *b)
{
	return a->ino == b->ino && a->dev == b->dev;
}

/* ---- owners: one per stack that started readahead ---- */

static __always_inline __u64 key_hash(const struct sb_key *key)
{
	const __u64 *w = (const __u64 *)key;
	__u64 h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < sizeof(*key) / 8; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 31;
	}
	return h <= OWNER_NONE ? h + 2 : h;
}

/* The stack adding the page (inside the readahead): its owner id. */
static __always_inline __u64 capture_owner(void *ctx)
{
	__u32 zero = 0;
	struct ra_owner *o = bpf_map_lookup_elem(&ra_owner_buf, &zero);
	__u64 id;

	if (!o)
		return OWNER_NONE;
	__builtin_memset(o, 0, sizeof(*o));
	sb_key_init(ctx, &o->key, bpf_get_current_pid_tgid());
	id = key_hash(&o->key);
	if (bpf_map_lookup_elem(&ra_owners, &id))
		return id;
	if (bpf_map_update_elem(&ra_owners, &id, o, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&ra_owners, &id))
		return OWNER_NONE;
	return id;
}

/* Used pages to credit to one owner: a read's runs mostly share it, so
 * its counter is looked up once. */
struct ra_credit {
	__u64 id, n;
};

static __always_inline void credit_flush(struct ra_credit *c)
{
	struct ra_owner *o;
	__u64 id;

	if (!c->n)
		return;
	id = c->id; /* 6.1 takes a map key from the stack only */
	o = bpf_map_lookup_elem(&ra_owners, &id);
	if (o)
		__sync_fetch_and_add(&o->used, c->n);
	c->n = 0;
}

static __always_inline void credit(struct ra_credit *c, __u64 id, __u64 n)
{
	if (c->id != id) {
		credit_flush(c);
		c->id = id;
	}
	c->n += n;
}

/* ---- runs ---- */

/* The slot of owner id in r, claiming a free one; -1 when all are
 * taken by others. */
static __always_inline int run_slot(struct ra_run *r, __u64 id)
{
	int free = -1;

	for (int s = 0; s < RA_SLOTS; s++) {
		if (r->owner[s] == id)
			return s;
		if (!r->owner[s] && free < 0)
			free = s;
	}
	if (free < 0)
		return -1;
	if (!SB_MODERN || !atomics) {
		r->owner[free] = id;
		return free;
	}
	for (int s = free; s < RA_SLOTS; s++) {
		__u64 was = __sync_val_compare_and_swap(&r->owner[s], 0, id);

		if (!was || was == id)
			return s;
	}
	return -1;
}

/* Pages of r in bits are used now: credit their stacks, once. */
static __always_inline void run_use(struct ra_run *r, __u64 bits,
				    struct ra_credit *c)
{
	__u64 want = bits & r->tracked, fresh;

	if (!want)
		return;
	fresh = want & ~fetch_or(&r->used, want);
	if (!fresh)
		return;
	for (int s = 0; s < RA_SLOTS; s++) {
		__u64 n = popcount(fresh & r->mask[s]);

		if (n)
			credit(c, r->owner[s], n);
	}
}

/* Pages of run k in bits are used. (A global function's pointer
 * arguments may be NULL, as far as the verifier knows.) */
RA_RUN_BODY int use_run(const struct ra_run_key *k, __u64 bits,
			struct ra_credit *c)
{
	struct ra_run_key key;
	struct ra_run *r;

	if (!k || !c)
		return 0;
	key = *k; /* 6.1 takes a map key from the stack only */
	r = bpf_map_lookup_elem(&ra_runs, &key);
	if (r)
		run_use(r, bits, c);
	return 0;
}

/* The last page of index..last one event marks: RA_MAX_RUNS runs at
 * most. */
static __always_inline __u64 bounded_last(__u64 index, __u64 last)
{
	return last - index >= RA_MAX_RUNS * RA_RUN_PAGES
		       ? index + RA_MAX_RUNS * RA_RUN_PAGES - 1
		       : last;
}

/* Pages lo..hi of file are used. */
static __always_inline void mark_used(const struct ra_file *f, __u64 lo,
				      __u64 hi)
{
	struct ra_run_key k = {.file = *f};
	struct ra_credit c = {};

	for (int i = 0; i < RA_MAX_RUNS; i++) {
		k.run = (lo >> RA_RUN_SHIFT) + i;
		if (k.run > hi >> RA_RUN_SHIFT)
			break;
		use_run(&k, run_bits(lo, hi, k.run), &c);
	}
	credit_flush(&c);
}

/* The folio that starts at index is used: up to the next folio's first
 * page or an untracked page (the fallback knows folios, not ranges). */
static __always_inline void mark_folio_used(const struct ra_file *f,
					    __u64 index)
{
	struct ra_run_key k = {.file = *f, .run = index >> RA_RUN_SHIFT};
	__u64 from = index & (RA_RUN_PAGES - 1);
	struct ra_credit c = {};

	for (int i = 0; i < 9; i++) { /* 512 pages: a PMD-sized folio */
		struct ra_run *r = bpf_map_lookup_elem(&ra_runs, &k);
		__u64 bits = ~0ULL << from, stop;

		if (!r)
			break;
		stop = (r->heads | ~r->tracked) & bits;
		if (!i)
			stop &= ~(1ULL << from); /* the folio's own head */
		if (stop) {
			run_use(r, bits & ((stop & -stop) - 1), &c);
			break;
		}
		run_use(r, bits, &c);
		k.run++;
		from = 0;
	}
	credit_flush(&c);
}

/* Pages of run k in bits are read ahead by owner id (head: the bit of
 * a folio's first page, or 0): how many of them are newly tracked. */
RA_RUN_BODY int track_run(const struct ra_run_key *k, __u64 bits, __u64 head,
			  __u64 id)
{
	struct ra_run_key key;
	struct ra_run *r;
	__u64 fresh;
	int s;

	if (!k)
		return 0;
	key = *k; /* 6.1 takes a map key from the stack only */
	r = bpf_map_lookup_elem(&ra_runs, &key);
	if (!r) { /* a new run, made whole in one update */
		struct ra_run fresh_run = {
			.tracked = bits,
			.heads = head,
			.mask = {bits},
			.owner = {id},
		};

		if (!bpf_map_update_elem(&ra_runs, &key, &fresh_run,
					 BPF_NOEXIST))
			return popcount(bits);
		r = bpf_map_lookup_elem(&ra_runs, &key); /* raced */
	}
	if (!r) {
		sb_stat_add(RA_STAT_RUNS_FULL, popcount(bits));
		return 0;
	}
	s = run_slot(r, id);
	if (s < 0) {
		sb_stat_add(RA_STAT_SLOTS_FULL, popcount(bits));
		return 0;
	}
	fresh = bits & ~r->tracked; /* tracked: an add we missed */
	clear_bits(&r->used, fresh);
	fetch_or(&r->mask[s], fresh);
	if (head)
		fetch_or(&r->heads, head);
	fetch_or(&r->tracked, fresh);
	return popcount(fresh);
}

/* A readahead's folio: pages index..index + (1 << order) - 1. */
static __always_inline void track_folio(const struct ra_file *f, __u64 index,
					__u64 npages, __u64 id)
{
	struct ra_owner *o = bpf_map_lookup_elem(&ra_owners, &id);
	struct ra_run_key k = {.file = *f};
	__u64 hi = index + npages - 1;

	if (!o) {
		sb_stat_add(RA_STAT_STACKS_FULL, npages);
		return;
	}
	for (int i = 0; i < RA_MAX_RUNS; i++) {
		__u64 head = i ? 0 : 1ULL << (index & (RA_RUN_PAGES - 1));
		int n;

		k.run = (index >> RA_RUN_SHIFT) + i;
		if (k.run > hi >> RA_RUN_SHIFT)
			break;
		n = track_run(&k, run_bits(index, hi, k.run), head, id);
		if (n)
			__sync_fetch_and_add(&o->pages, n);
	}
}

/* Pages of run k in bits leave the page cache. */
RA_RUN_BODY int untrack_run(const struct ra_run_key *k, __u64 bits)
{
	struct ra_run_key key;
	struct ra_run *r;
	__u64 gone;

	if (!k)
		return 0;
	key = *k; /* 6.1 takes a map key from the stack only */
	r = bpf_map_lookup_elem(&ra_runs, &key);
	if (!r)
		return 0;
	gone = bits & r->tracked;
	if (!gone)
		return 0;
	if (gone == r->tracked) {
		bpf_map_delete_elem(&ra_runs, &key);
		return 0;
	}
	clear_bits(&r->tracked, gone);
	clear_bits(&r->used, gone);
	clear_bits(&r->heads, gone);
	for (int s = 0; s < RA_SLOTS; s++) {
		if (!(r->mask[s] & gone))
			continue;
		clear_bits(&r->mask[s], gone);
		if (!r->mask[s])
			r->owner[s] = 0;
	}
	if (!r->tracked)
		bpf_map_delete_elem(&ra_runs, &key);
	return 0;
}

/* Pages leave the page cache: their tracking ends, counts stay. */
static __noinline void untrack(const struct ra_file *f, __u64 index,
			       __u64 npages)
{
	struct ra_run_key k = {.file = *f};
	__u64 hi = index + npages - 1;

	for (int i = 0; i < RA_MAX_RUNS; i++) {
		k.run = (index >> RA_RUN_SHIFT) + i;
		if (k.run > hi >> RA_RUN_SHIFT)
			break;
		untrack_run(&k, run_bits(index, hi, k.run));
	}
}

/* ---- the events, whatever way they came ---- */

static __always_inline struct ra_thread *thread_get(__u32 tid)
{
	static const struct ra_thread zero = {};
	struct ra_thread *t = bpf_map_lookup_elem(&ra_threads, &tid);

	if (t)
		return t;
	bpf_map_update_elem(&ra_threads, &tid, &zero, BPF_ANY);
	return bpf_map_lookup_elem(&ra_threads, &tid);
}

/*
 * Where this thread's readahead comes from, for the price of a few
 * reads: the user registers at kernel entry (pc, stack and frame
 * pointers, and the return address the frame holds), the file, the
 * cgroup and the kernel path (sync or async, ra_order or unbounded).
 * Two readaheads that agree on all of it have the same stacks: stacks
 * are captured once per place, not per readahead (a kernel stack costs
 * ~30 us when its unwind data is cold). 0: not known, capture.
 */
static __always_inline __u64 origin(const struct ra_thread *t,
				    const struct ra_file *f)
{
	__u64 regs, pc, ret = 0, w[6];
	__u64 h = 0x9e3779b97f4a7c15ULL;

	if (!reuse_stacks || !t->kind)
		return 0;
	regs = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || !(pc = sb_kread(regs + SB_REG_PC)))
		return 0; /* a kernel thread: no user registers */
	w[0] = pc;
	w[1] = sb_kread(regs + SB_REG_SP);
	w[2] = sb_kread(regs + SB_REG_FP);
	bpf_probe_read_user(&ret, sizeof(ret), (void *)(w[2] + 8));
	w[3] = ret;
	w[4] = f->ino ^ ((__u64)f->dev << 32);
	w[5] = bpf_get_current_cgroup_id() ^ ((__u64)t->kind << 56) ^
	       ((__u64)t->ra_way << 48);
	for (int i = 0; i < 6; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
	}
	return h ? h : 1;
}

/* A readahead of pages [lo, hi) of f starts in this thread. */
static __noinline void on_readahead(const struct ra_file *f, __u64 lo, __u64 hi,
				    int way)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ra_thread *t;

	if (!sb_wanted(id >> 32) || hi <= lo)
		return;
	t = thread_get(id);
	if (!t)
		return;
	t->ra = *f;
	t->ra_lo = lo;
	t->ra_hi = hi;
	t->owner = 0;
	t->ra_way = way;
	t->ra_on = 1;
}

/* page_cache_async_ra: the readahead that follows (ra_order, unbounded)
 * is async (on_read_start says sync). */
static __noinline void on_async(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ra_thread *t;

	if (!sb_wanted(id >> 32))
		return;
	t = thread_get(id);
	if (t)
		t->kind = RA_KIND_ASYNC;
}

/* A folio was added to the page cache: by a readahead of this thread? */
static __noinline void on_add(void *ctx, const struct ra_file *f, __u64 index,
			      __u32 order)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct ra_thread *t = bpf_map_lookup_elem(&ra_threads, &tid);
	__u64 n = 1ULL << (order & 31);

	if (!t || !t->ra_on || !same_file(&t->ra, f) || index >= t->ra_hi ||
	    index + n <= t->ra_lo)
		return;
	if (!t->owner) {
		__u64 from = origin(t, f);

		if (from && from == t->last_origin) {
			t->owner = t->last_owner;
		} else {
			t->owner = capture_owner(ctx);
			t->last_origin = from;
			t->last_owner = t->owner;
		}
	}
	if (t->owner == OWNER_NONE) {
		sb_stat_add(RA_STAT_STACKS_FULL, n);
		return;
	}
	if (t->memo_on && same_file(&t->memo, f) && index < t->memo_hi &&
	    index + n > t->memo_lo)
		t->memo_on = 0; /* the read in progress marks these next */
	track_folio(f, index, n, t->owner);
	if (t->fault_on && same_file(&t->fault, f) && t->fault_index >= index &&
	    t->fault_index < index + n) {
		t->fault_on = 0; /* the fault maps this folio */
		mark_used(f, index, index + n - 1);
	}
}

/* This thread uses f: a readahead of f it started is over, and so is
 * its last fault (a fault's readahead comes before its next event). */
static __always_inline struct ra_thread *end_readahead(const struct ra_file *f)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct ra_thread *t = bpf_map_lookup_elem(&ra_threads, &tid);

	if (!t)
		return NULL;
	if (t->ra_on && same_file(&t->ra, f))
		t->ra_on = 0;
	if (t->fault_on && same_file(&t->fault, f))
		t->fault_on = 0;
	t->kind = 0; /* set again by the next readahead's sync or async */
	return t;
}

/* A read finds no page of f cached at index (page_cache_sync_ra,
 * before its readahead): it wants pages index..index + req - 1. A fault's
 * readahead comes through here too, after the fault's own event. */
static __noinline void on_read_start(const struct ra_file *f, __u64 index,
				     __u64 req)
{
	struct ra_thread *t = thread_get(bpf_get_current_pid_tgid());

	if (!t)
		return;
	t->kind = RA_KIND_SYNC;
	if (t->fault_on && same_file(&t->fault, f) && t->fault_index == index)
		return;
	t->read = *f;
	t->read_lo = index;
	t->read_hi = index + req;
	t->read_on = 1;
}

/* A read of pages index..last (filemap_get_pages: after its readahead).
 * A long read calls it once per batch with the rest of its range: the
 * thread remembers what it marked, until its readahead adds more.
 * A batch whose last folio is still being read from storage waits for
 * it, drops it and returns the folios before it without this event;
 * the next call's event starts at the dropped one. The read's start
 * (on_read_start) says what that first batch held. */
static __noinline void on_read(const struct ra_file *f, __u64 index, __u64 last)
{
	struct ra_thread *t = end_readahead(f);
	__u64 hi;

	if (last < index)
		return;
	if (t && t->read_on && same_file(&t->read, f)) {
		t->read_on = 0;
		if (t->read_lo < index && index < t->read_hi)
			index = t->read_lo;
	}
	hi = bounded_last(index, last);
	if (t && t->memo_on && same_file(&t->memo, f) && index >= t->memo_lo &&
	    hi < t->memo_hi)
		return;
	mark_used(f, index, hi);
	if ((hi >> RA_RUN_SHIFT) - (index >> RA_RUN_SHIFT) < 2)
		return; /* short: marking again costs as much as the memo */
	if (!t)
		t = thread_get(bpf_get_current_pid_tgid());
	if (t) {
		t->memo = *f;
		t->memo_lo = index;
		t->memo_hi = hi + 1;
		t->memo_on = 1;
	}
}

/* A fault of page index (before the readahead it may start). */
static __noinline void on_fault(const struct ra_file *f, __u64 index)
{
	struct ra_thread *t = end_readahead(f);

	mark_used(f, index, index);
	if (!t)
		t = thread_get(bpf_get_current_pid_tgid());
	if (t) {
		t->fault = *f;
		t->fault_index = index;
		t->fault_on = 1;
	}
}

/* Fault-around mapped what of index..last is cached. */
static __noinline void on_map(const struct ra_file *f, __u64 index, __u64 last)
{
	end_readahead(f);
	if (last >= index)
		mark_used(f, index, bounded_last(index, last));
}

/* The fallback's read: a folio was accessed (read, written, looked up). */
static __noinline void on_folio_accessed(const struct ra_file *f, __u64 index)
{
	end_readahead(f);
	mark_folio_used(f, index);
}

/* ---- tracepoints: fields at the offsets tracefs gave ---- */

/* The record is copied once; fields are read at offsets user space
 * took from tracefs, aligned to their size (the verifier wants aligned
 * stack reads, and knows the offsets: .rodata is frozen). */
struct ra_event {
	struct ra_file file;
	__u64 index, arg;
};

static __always_inline __u64
read_tp_field(const void *rec, const volatile struct ra_tp_field *fl)
{
	/* volatile scalars: a copy of the struct could fold to its zeros */
	__u16 off = fl->off, size = fl->size;

	if (off > RA_TP_RECORD - size)
		return 0;
	if (size == 8)
		return *(const __u64 *)(rec + off);
	if (size == 4)
		return *(const __u32 *)(rec + off);
	if (size == 2)
		return *(const __u16 *)(rec + off);
	if (size == 1)
		return *(const __u8 *)(rec + off);
	return 0;
}

static __always_inline bool tp_event(void *ctx, int which, struct ra_event *e)
{
	__u64 rec[RA_TP_RECORD / 8];
	__u16 len = tp[which].len;

	if (len > sizeof(rec) || bpf_probe_read_kernel(rec, len, ctx))
		return false;
	e->file.ino = read_tp_field(rec, &tp[which].ino);
	e->file.dev = read_tp_field(rec, &tp[which].dev);
	e->file.pad = 0;
	e->index = read_tp_field(rec, &tp[which].index);
	e->arg = read_tp_field(rec, &tp[which].arg);
	return true;
}

SEC("tracepoint/filemap/mm_filemap_add_to_page_cache")
int ra_tp_add(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_ADD, &e))
		on_add(ctx, &e.file, e.index, e.arg);
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_delete_from_page_cache")
int ra_tp_delete(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_DELETE, &e))
		untrack(&e.file, e.index, 1ULL << (e.arg & 31));
	return 0;
}

SEC("tracepoint/readahead/page_cache_ra_unbounded")
int ra_tp_unbounded(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_UNBOUNDED, &e))
		on_readahead(&e.file, e.index, e.index + e.arg,
			     RA_WAY_UNBOUNDED);
	return 0;
}

SEC("tracepoint/readahead/page_cache_ra_order")
int ra_tp_order(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_ORDER, &e))
		on_readahead(&e.file, e.index, e.index + e.arg, RA_WAY_ORDER);
	return 0;
}

SEC("tracepoint/readahead/page_cache_sync_ra")
int ra_tp_sync(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_SYNC, &e))
		on_read_start(&e.file, e.index, e.arg);
	return 0;
}

/* Attached by user space when reuse_stacks: the readahead that follows
 * (ra_order, unbounded) is async. A raw tracepoint whatever way the
 * others take: it reads no argument, and detaches at once. */
SEC("raw_tp/page_cache_async_ra")
int ra_raw_async(void *ctx)
{
	on_async();
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_get_pages")
int ra_tp_get_pages(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_GET_PAGES, &e))
		on_read(&e.file, e.index, e.arg);
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_fault")
int ra_tp_fault(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_FAULT, &e))
		on_fault(&e.file, e.index);
	return 0;
}

SEC("tracepoint/filemap/mm_filemap_map_pages")
int ra_tp_map_pages(void *ctx)
{
	struct ra_event e;

	if (tp_event(ctx, RA_TP_MAP_PAGES, &e))
		on_map(&e.file, e.index, e.arg);
	return 0;
}

/* ---- kernel structs, at the offsets BTF gave ---- */

/* An inode's file, as the tracepoints name it. */
static __always_inline bool inode_file(__u64 inode, struct ra_file *f)
{
	__u64 sb;
	__u32 dev = 0;

	if (!inode)
		return false;
	f->ino = sb_kread(inode + kl.inode_ino);
	sb = sb_kread(inode + kl.inode_sb);
	bpf_probe_read_kernel(&dev, sizeof(dev), (void *)(sb + kl.sb_dev));
	f->dev = dev;
	f->pad = 0;
	return true;
}

/* The file behind an address_space. false: none (an anonymous page's
 * mapping has its low bits set). */
static __always_inline bool mapping_file(__u64 mapping, struct ra_file *f)
{
	if (!mapping || (mapping & 3))
		return false;
	return inode_file(sb_kread(mapping + kl.mapping_host), f);
}

/* page_cache_ra_unbounded(ractl, nr_to_read, lookahead_size) */
static __always_inline void ra_unbounded(__u64 ractl, __u64 nr)
{
	struct ra_file f;
	__u64 index;

	if (!mapping_file(sb_kread(ractl + kl.ractl_mapping), &f))
		return;
	index = sb_kread(ractl + kl.ractl_index);
	on_readahead(&f, index, index + nr, RA_WAY_UNBOUNDED);
}

/* page_cache_ra_order(ractl, ra, ...) */
static __always_inline void ra_order(__u64 ractl, __u64 ra)
{
	struct ra_file f;
	__u32 size = 0;
	__u64 index;

	if (!mapping_file(sb_kread(ractl + kl.ractl_mapping), &f))
		return;
	index = sb_kread(ractl + kl.ractl_index);
	bpf_probe_read_kernel(&size, sizeof(size), (void *)(ra + kl.ra_size));
	on_readahead(&f, index, index + size, RA_WAY_ORDER);
}

/* Before 5.10: (mapping, file, index, nr_to_read, lookahead_size) */
static __always_inline void ra_mapping(__u64 mapping, __u64 index, __u64 nr)
{
	struct ra_file f;

	if (mapping_file(mapping, &f))
		on_readahead(&f, index, index + nr, RA_WAY_UNBOUNDED);
}

/* page_cache_sync_ra(ractl, req_count) */
static __always_inline void read_start(__u64 ractl, __u64 req)
{
	struct ra_file f;

	if (mapping_file(sb_kread(ractl + kl.ractl_mapping), &f))
		on_read_start(&f, sb_kread(ractl + kl.ractl_index), req);
}

static __always_inline void folio_accessed(__u64 folio)
{
	struct ra_file f;

	if (mapping_file(sb_kread(folio + kl.folio_mapping), &f))
		on_folio_accessed(&f, sb_kread(folio + kl.folio_index));
}

static __always_inline bool vmf_file(__u64 vmf, struct ra_file *f)
{
	__u64 file = sb_kread(sb_kread(vmf + kl.vmf_vma) + kl.vma_file);

	return file && mapping_file(sb_kread(file + kl.file_mapping), f);
}

static __always_inline void fault(__u64 vmf)
{
	struct ra_file f;

	if (vmf_file(vmf, &f))
		on_fault(&f, sb_kread(vmf + kl.vmf_pgoff));
}

/* filemap_map_pages(vmf, start_pgoff, end_pgoff) */
static __always_inline void map_pages(__u64 vmf, __u64 start, __u64 end)
{
	struct ra_file f;

	if (vmf_file(vmf, &f))
		on_map(&f, start, end);
}

/* ---- raw tracepoints: the classic ones' arguments ---- */

/* The kernel's folio_order(): 0 unless the folio is large (PG_head in
 * its flags, a page's first word), else the low byte of _flags_1. */
static __always_inline __u32 folio_order(__u64 folio)
{
	if (!(sb_kread(folio) & (1ULL << (kl.pg_head & 63))))
		return 0;
	return sb_kread(folio + kl.folio_flags_1) & 0xff;
}

/* mm_filemap_add_to_page_cache(folio) */
SEC("raw_tp/mm_filemap_add_to_page_cache")
int ra_raw_add(__u64 *ctx)
{
	__u64 folio = ctx[0];
	struct ra_file f;

	if (mapping_file(sb_kread(folio + kl.folio_mapping), &f))
		on_add(ctx, &f, sb_kread(folio + kl.folio_index),
		       folio_order(folio));
	return 0;
}

/* mm_filemap_delete_from_page_cache(folio) */
SEC("raw_tp/mm_filemap_delete_from_page_cache")
int ra_raw_delete(__u64 *ctx)
{
	__u64 folio = ctx[0];
	struct ra_file f;

	if (mapping_file(sb_kread(folio + kl.folio_mapping), &f))
		untrack(&f, sb_kread(folio + kl.folio_index),
			1ULL << folio_order(folio));
	return 0;
}

/* page_cache_ra_unbounded(inode, index, nr_to_read, lookahead_size) */
SEC("raw_tp/page_cache_ra_unbounded")
int ra_raw_unbounded(__u64 *ctx)
{
	struct ra_file f;

	if (inode_file(ctx[0], &f))
		on_readahead(&f, ctx[1], ctx[1] + ctx[2], RA_WAY_UNBOUNDED);
	return 0;
}

/* page_cache_ra_order(inode, index, ra) */
SEC("raw_tp/page_cache_ra_order")
int ra_raw_order(__u64 *ctx)
{
	struct ra_file f;
	__u32 size = 0;

	if (!inode_file(ctx[0], &f))
		return 0;
	bpf_probe_read_kernel(&size, sizeof(size),
			      (void *)(ctx[2] + kl.ra_size));
	on_readahead(&f, ctx[1], ctx[1] + size, RA_WAY_ORDER);
	return 0;
}

/* page_cache_sync_ra(inode, index, ra, req_count) */
SEC("raw_tp/page_cache_sync_ra")
int ra_raw_sync(__u64 *ctx)
{
	struct ra_file f;

	if (inode_file(ctx[0], &f))
		on_read_start(&f, ctx[1], ctx[3]);
	return 0;
}

/* mm_filemap_get_pages(mapping, index, last_index) */
SEC("raw_tp/mm_filemap_get_pages")
int ra_raw_get_pages(__u64 *ctx)
{
	struct ra_file f;

	if (mapping_file(ctx[0], &f))
		on_read(&f, ctx[1], ctx[2]);
	return 0;
}

/* mm_filemap_fault(mapping, index) */
SEC("raw_tp/mm_filemap_fault")
int ra_raw_fault(__u64 *ctx)
{
	struct ra_file f;

	if (mapping_file(ctx[0], &f))
		on_fault(&f, ctx[1]);
	return 0;
}

/* mm_filemap_map_pages(mapping, index, last_index) */
SEC("raw_tp/mm_filemap_map_pages")
int ra_raw_map_pages(__u64 *ctx)
{
	struct ra_file f;

	if (mapping_file(ctx[0], &f))
		on_map(&f, ctx[1], ctx[2]);
	return 0;
}

/* ---- fentry and kprobes: the same functions' arguments ---- */

SEC("fentry/page_cache_ra_unbounded")
int ra_fentry_unbounded(__u64 *ctx)
{
	ra_unbounded(ctx[0], ctx[1]);
	return 0;
}

SEC("fentry/page_cache_ra_order")
int ra_fentry_order(__u64 *ctx)
{
	ra_order(ctx[0], ctx[1]);
	return 0;
}

SEC("fentry/page_cache_sync_ra")
int ra_fentry_sync(__u64 *ctx)
{
	read_start(ctx[0], ctx[1]);
	return 0;
}

SEC("fentry/folio_mark_accessed")
int ra_fentry_accessed(__u64 *ctx)
{
	folio_accessed(ctx[0]);
	return 0;
}

SEC("fentry/filemap_fault")
int ra_fentry_fault(__u64 *ctx)
{
	fault(ctx[0]);
	return 0;
}

SEC("fentry/filemap_map_pages")
int ra_fentry_map_pages(__u64 *ctx)
{
	map_pages(ctx[0], ctx[1], ctx[2]);
	return 0;
}

/* kprobes: the arguments' registers, fixed by each ABI (pt_regs). */
#if defined(__TARGET_ARCH_x86)
#define ARG_OFF(n) \
	((n) == 0 ? 14 * 8 : (n) == 1 ? 13 * 8 : (n) == 2 ? 12 * 8 : 11 * 8)
#elif defined(__TARGET_ARCH_arm64)
#define ARG_OFF(n) ((n)*8)
#else
#error "rastack's kprobes know x86 and arm64"
#endif
#define ARG(ctx, n) (*(__u64 *)((char *)(ctx) + ARG_OFF(n)))

SEC("kprobe/page_cache_ra_unbounded")
int ra_kprobe_unbounded(void *ctx)
{
	ra_unbounded(ARG(ctx, 0), ARG(ctx, 1));
	return 0;
}

SEC("kprobe/page_cache_readahead_unbounded")
int ra_kprobe_unbounded_old(void *ctx)
{
	ra_mapping(ARG(ctx, 0), ARG(ctx, 2), ARG(ctx, 3));
	return 0;
}

SEC("kprobe/__do_page_cache_readahead")
int ra_kprobe_do_ra(void *ctx)
{
	ra_mapping(ARG(ctx, 0), ARG(ctx, 2), ARG(ctx, 3));
	return 0;
}

SEC("kprobe/page_cache_ra_order")
int ra_kprobe_order(void *ctx)
{
	ra_order(ARG(ctx, 0), ARG(ctx, 1));
	return 0;
}

SEC("kprobe/page_cache_sync_ra")
int ra_kprobe_sync(void *ctx)
{
	read_start(ARG(ctx, 0), ARG(ctx, 1));
	return 0;
}

SEC("kprobe/folio_mark_accessed")
int ra_kprobe_accessed(void *ctx)
{
	folio_accessed(ARG(ctx, 0));
	return 0;
}

SEC("kprobe/mark_page_accessed")
int ra_kprobe_page_accessed(void *ctx)
{
	folio_accessed(ARG(ctx, 0));
	return 0;
}

SEC("kprobe/filemap_fault")
int ra_kprobe_fault(void *ctx)
{
	fault(ARG(ctx, 0));
	return 0;
}

SEC("kprobe/filemap_map_pages")
int ra_kprobe_map_pages(void *ctx)
{
	map_pages(ARG(ctx, 0), ARG(ctx, 1), ARG(ctx, 2));
	return 0;
}
