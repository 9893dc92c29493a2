/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table walk, remembered per thread: a thread that blocks again and
 * again where it blocked before (a reader in its loop, an allocation
 * site) starts each walk from the same registers and reads the same
 * words, so it gets the same stack. The walk is a function of where it
 * starts (pc, sp, fp, and lr on arm64), of the words of the stack it
 * reads and of the process's mappings and their tables. A memo keeps
 * the first, the addresses of the second with their values mixed in
 * order, and the mappings' gen (user space gives each write of them a
 * new one; a file's rows never change once a mapping names it). It is
 * taken only when the registers and gen are equal and the words, read
 * again, mix to the same sum: the check costs one read of the span they
 * lie in (SB_MEMO_SPAN) where the walk costs two searches and a dozen
 * lookups per frame.
 *
 * The code of a file the mappings name is taken to be the file's, as
 * its table already is: the instructions a scan for a return site reads
 * (x86_64 code without CFI) are not noted, the stack words it reads
 * are, those it passed over only as lying outside the file's code or
 * after no call (enum sb_note). Not remembered: a walk that read more
 * than SB_MEMO_READS words, or that read code to size a frame record
 * (arm64 frames without a row: the code may lie outside the files);
 * one whose process's mappings were written meanwhile.
 *
 * A memo lives in a slot of an array by thread id, as a direct-mapped
 * cache: threads whose ids collide take it from each other. A walk
 * writes its memo there as it goes (seq odd), and the memo holds once
 * the walk is done (seq even): nothing is copied.
 *
 * Included by unwind.bpf.h, after struct sb_unwinder and its map, and
 * by collect.bpf.h's order after sb_stacks.
 */
#ifndef STACKBOX_UNWIND_MEMO_BPF_H
#define STACKBOX_UNWIND_MEMO_BPF_H

/* user space sizes it (1 where nothing walks by the tables) */
#define SB_MEMO_SLOTS 1024
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SB_MEMO_SLOTS);
	__type(key, __u32);
	__type(value, struct sb_unwind_memo);
} sb_unwind_memos SEC(".maps");

/* The words of a memo are read again in one read of the span they lie
 * in, where it is at most this long (perf bench's stacks: 1.6 KiB, 3.7
 * at most), into this per-CPU buffer: a read of 2 KiB costs about what
 * one of a word does, and a memo has 14 words a walk (the median). */
#define SB_MEMO_SPAN 4096
struct sb_memo_span {
	__u64 w[SB_MEMO_SPAN / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_memo_span);
} sb_memo_spans SEC(".maps");

#if SB_MODERN
#define SB_MEMO_SEED 0x6d656d6fULL

static __always_inline __u64 sb_memo_mix(__u64 sum, __u64 v)
{
	sum ^= v;
	sum *= 0x9e3779b97f4a7c15ULL;
	return sum ^ (sum >> 29);
}

/* A user word, 0 where it does not read */
static __always_inline __u64 sb_memo_word(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* The walk's memo being written, or NULL when it is not kept */
static __always_inline struct sb_unwind_memo *
sb_memo_writing(struct sb_unwinder *u)
{
	return u->memo_ok ? bpf_map_lookup_elem(&sb_unwind_memos, &u->memo_slot)
			  : NULL;
}

/* What of a word read the walk's outcome depends on: */
enum sb_note {
	SB_NOTE_VALUE,	 /* its value */
	SB_NOTE_OUTSIDE, /* that it lies outside [out_lo, out_hi) */
	SB_NOTE_NOCALL,	 /* that no direct call is before it (x86_64) */
};

/* Note the word at addr, of value v, in the walk's memo, as kind (with
 * SB_NOTE_OUTSIDE, the range [lo, hi)). */
static __always_inline void sb_memo_note(struct sb_unwinder *u, __u64 addr,
					 __u64 v, enum sb_note kind, __u64 lo,
					 __u64 hi)
{
	struct sb_unwind_memo *m = sb_memo_writing(u);
	__s64 d;
	__u32 k;

	if (!m)
		return;
	d = addr - m->sp;
	k = m->n;
	if (k >= SB_MEMO_READS || d != (__s32)d) {
		u->memo_ok = 0;
		return;
	}
	barrier_var(k);
	m->at[k] = d;
	m->n = k + 1;
	if (!k || d < m->lo)
		m->lo = d;
	if (!k || d + 8 > m->hi)
		m->hi = d + 8;
	if (kind == SB_NOTE_VALUE) {
		m->sum = sb_memo_mix(m->sum, v);
	} else if (kind == SB_NOTE_NOCALL) {
		m->nocall |= 1ULL << k;
	} else {
		if (m->outside && (m->out_lo != lo || m->out_hi != hi))
			u->memo_ok = 0; /* one range a walk */
		m->out_lo = lo;
		m->out_hi = hi;
		m->outside |= 1ULL << k;
	}
}

/* A word of the stack the walk reads, noted: by its value or, with
 * lo < hi (a scan for a return site, which passes over a word outside
 * [lo, hi) whatever it holds: a local of the frame), by lying outside.
 * A subprogram: one copy of the note, not one at each read. */
static __noinline __u64 sb_uread_scanned(struct sb_unwinder *u, __u64 addr,
					 __u64 lo, __u64 hi)
{
	__u64 v = sb_memo_word(addr);

	sb_memo_note(u, addr, v,
		     lo < hi && (v < lo || v >= hi) ? SB_NOTE_OUTSIDE
						    : SB_NOTE_VALUE,
		     lo, hi);
	return v;
}

static __always_inline __u64 sb_uread_noted(struct sb_unwinder *u, __u64 addr)
{
	return sb_uread_scanned(u, addr, 0, 0);
}

#if defined(__TARGET_ARCH_x86)
/* ... read as a possible return site: one after no direct call is as
 * good as any other (a register's value where a frame pointer was
 * hoped for) */
static __always_inline __u64 sb_uread_called(struct sb_unwinder *u, __u64 addr)
{
	__u64 v = sb_memo_word(addr);

	sb_memo_note(u, addr, v, sb_callee(v) ? SB_NOTE_VALUE : SB_NOTE_NOCALL,
		     0, 0);
	return v;
}
#endif

/* The instruction word at addr, read by the walk's start (arm64, at a
 * function's entry): one such word is noted, by its address. */
static __always_inline __u32 sb_code_noted(struct sb_unwinder *u, __u64 addr)
{
	struct sb_unwind_memo *m = sb_memo_writing(u);
	__u32 insn = 0;

	if (bpf_probe_read_user(&insn, sizeof(insn), (void *)addr))
		insn = 0;
	if (m) {
		m->code_at = addr;
		m->sum = sb_memo_mix(m->sum, insn);
	}
	return insn;
}

/* The mappings' gen of tgid, or 0 when it has none (not remembered) */
static __always_inline __u32 sb_memo_gen(__u32 tgid)
{
	const struct sb_unwind_proc *p =
		bpf_map_lookup_elem(&sb_unwind_procs, &tgid);

	return p ? p->gen : 0;
}

/* Word k of memo m, read again as v: mixed into u->check, or checked
 * to be what its note says still. Inline in both checks: a frame less
 * under the programs whose stacks reach 512 bytes before 6.18 (iostack's
 * syscall exit, through sb_stack_tables and the bpf_loop callback). */
static __always_inline void sb_memo_take(struct sb_unwinder *u,
					 const struct sb_unwind_memo *m,
					 __u32 k, __u64 v)
{
	if (k < 64 && m->outside & 1ULL << k)
		u->check_bad |= v >= m->out_lo && v < m->out_hi;
#if defined(__TARGET_ARCH_x86)
	else if (k < 64 && m->nocall & 1ULL << k)
		u->check_bad |= sb_callee(v) != 0;
#endif
	else
		u->check = sb_memo_mix(u->check, v);
}

/* The next word of the memo read again, alone, as the walk read it
 * (sb_memo_take): the check where its span does not read in one. */
static long sb_memo_check_step(__u32 i, void *ctx)
{
	const struct sb_unwind_memo *m;
	struct sb_unwinder *u;
	__u32 zero = 0, k;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	m = u ? bpf_map_lookup_elem(&sb_unwind_memos, &u->memo_slot) : NULL;
	if (!m)
		return 1;
	k = u->check_at;
	if (k >= m->n || k >= SB_MEMO_READS)
		return 1;
	sb_memo_take(u, m, k, sb_memo_word(m->sp + m->at[k]));
	u->check_at = k + 1;
	return 0;
}

/* The words of m read again as sb_memo_check_step() does, in one read
 * of their span: 0 where it is longer than SB_MEMO_SPAN, a word lies
 * off the 8-byte grid from its start, or the span does not read whole
 * (then each word is read alone, as the walk read it). */
static __noinline int sb_memo_check_span(struct sb_unwinder *u,
					 const struct sb_unwind_memo *m)
{
	__s64 len = (__s64)m->hi - m->lo;
	struct sb_memo_span *b;
	__u32 zero = 0, k, o;

	b = bpf_map_lookup_elem(&sb_memo_spans, &zero);
	if (!b || len <= 0 || len > SB_MEMO_SPAN ||
	    bpf_probe_read_user(b->w, len, (void *)(m->sp + m->lo)))
		return 0;
	/* m's fields read again in the loop, not held: four values live
	 * across it fit the callee-saved registers, and the frame stays
	 * small (see below) */
	for (k = 0; k < SB_MEMO_READS; k++) {
		if (k >= m->n)
			break;
		o = m->at[k] - m->lo;
		if (o & 7 || o >= SB_MEMO_SPAN)
			return 0;
		o /= 8;
		barrier_var(o); /* the mask is what the verifier sees */
		sb_memo_take(u, m, k, b->w[o & (SB_MEMO_SPAN / 8 - 1)]);
	}
	return 1;
}

/* Whether m is this thread's memo of the walk u is about to make, and
 * holds: the same start, mappings and words. */
static __always_inline int sb_memo_holds(struct sb_unwinder *u,
					 const struct sb_unwind_memo *m,
					 __u32 pid, __u32 gen)
{
	__u64 seed = SB_MEMO_SEED;
	__u32 insn = 0;

	if (m->seq & 1 || m->pid != pid || m->tgid != u->tgid ||
	    m->gen != gen || !gen || m->pc != u->pc || m->sp != u->sp ||
	    m->fp != u->fp || m->lr != u->lr)
		return 0;
	if (m->code_at) {
		if (bpf_probe_read_user(&insn, sizeof(insn),
					(void *)m->code_at))
			insn = 0;
		seed = sb_memo_mix(seed, insn);
	}
	u->check = seed;
	u->check_bad = 0;
	if (!sb_memo_check_span(u, m)) { /* each word alone */
		u->check = seed;
		u->check_at = 0;
		u->check_bad = 0;
		bpf_loop(SB_MEMO_READS, sb_memo_check_step, NULL, 0);
	}
	return u->check == m->sum && !u->check_bad &&
	       bpf_map_lookup_elem(&sb_stacks, &m->id);
}

/*
 * A walk begins at the unwinder's registers: the stack id its memo
 * gives, when it holds; else 0, and the memo is begun afresh for this
 * walk (unfinished until sb_memo_keep()). A global function, as is
 * sb_memo_keep(): one copy in the object, not one in each program that
 * takes a stack (memstack's uprobe programs grew 40 KB inlined).
 */
__noinline __u64 sb_memo_begin(void)
{
	__u32 pid = bpf_get_current_pid_tgid(), zero = 0, gen;
	struct sb_unwind_memo *m;
	struct sb_unwinder *u;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	/* the bounded walk (no bpf_loop: 5.13 to 5.16) keeps no memo; a
	 * global function is checked even where nothing calls it */
	if (!u || sb_cfg.unwind_walk == SB_WALK_BOUNDED)
		return 0;
	gen = sb_memo_gen(u->tgid);
	u->memo_slot = pid % SB_MEMO_SLOTS;
	u->memo_ok = 0;
	u->walk = ++u->walks;
	m = bpf_map_lookup_elem(&sb_unwind_memos, &u->memo_slot);
	if (!m)
		return 0;
	if (sb_memo_holds(u, m, pid, gen))
		return m->id;
	if (!gen)
		return 0;
	m->seq |= 1; /* unfinished */
	m->pid = pid;
	m->tgid = u->tgid;
	m->gen = gen;
	m->pc = u->pc;
	m->sp = u->sp;
	m->fp = u->fp;
	m->lr = u->lr;
	m->code_at = 0;
	m->sum = SB_MEMO_SEED;
	m->n = 0;
	m->outside = 0;
	m->nocall = 0;
	u->memo_ok = 1;
	return 0;
}

/* The walk sb_memo_begin() began gave the stack id: its memo holds
 * from now on, unless it could not be kept, the walk was interrupted by
 * another on this CPU, or the mappings changed under it. */
__noinline int sb_memo_keep(__u64 id)
{
	struct sb_unwind_memo *m;
	struct sb_unwinder *u;
	__u32 zero = 0;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 0;
	m = sb_memo_writing(u);
	u->memo_ok = 0; /* an interrupted walk writes no more of it */
	if (!m || u->walk != u->walks || id <= SB_STACK_LOST ||
	    sb_memo_gen(m->tgid) != m->gen)
		return 0;
	m->id = id;
	barrier();
	m->seq++; /* odd to even: it holds */
	return 1;
}
#else
/* The legacy programs keep no memo (it is checked with bpf_loop): the
 * one read the walk's start notes is read as it is. */
static __always_inline __u32 sb_code_noted(struct sb_unwinder *u, __u64 addr)
{
	__u32 insn = 0;

	if (bpf_probe_read_user(&insn, sizeof(insn), (void *)addr))
		insn = 0;
	return insn;
}
#endif /* SB_MODERN */
#endif
