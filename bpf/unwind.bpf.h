/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind eh_frame: walk a user stack with the call frame tables user
 * space extracted from each file's .eh_frame (common/core/unwind.c), so code
 * without frame pointers unwinds. Per frame: the process's mappings
 * (sb_unwind_procs, from /proc/PID/maps) give the file and offset of
 * the code address, a binary search the file's row, and the row where
 * the CFA, the caller's frame pointer and the return address are.
 * Where a process's mappings are not known yet, a file has no table, or
 * a table has a gap (code without CFI: musl, hand-written assembly),
 * the frame is walked by frame pointer, checked to stay on the stack.
 *
 * bpf_find_vma() would name the file without user space's help, but
 * where interrupts are off (perf_event, sched_switch) it works once per
 * program run: its deferred unlock keeps the next call busy.
 *
 * The walk's state lives in a per-CPU map, not on the stack: the
 * verifier then knows no frame count or address, so it checks each loop
 * body in a few passes instead of once per possible frame.
 *
 * Under the default (--unwind auto) a process is walked so when user
 * space found code without frame pointers in one of its files
 * (sb_unwind_proc.tables), and by the kernel's frame-pointer walk
 * otherwise: sb_unwind_wanted().
 *
 * Included by collect.bpf.h, uses base.bpf.h, unwind_regs.bpf.h (where
 * the user's registers are) and unwind_bounded.bpf.h (the walk without
 * bpf_loop: before 5.17, and in the legacy programs); this walk needs
 * Linux 5.17+ (bpf_loop) when it runs: CONFIG_UNWIND_EH_FRAME.
 */
#ifndef STACKBOX_UNWIND_BPF_H
#define STACKBOX_UNWIND_BPF_H

#include "base.bpf.h"
#include "unwind_regs.bpf.h"

#define SB_UNWIND_SEARCH 22	      /* binary search steps: 4M rows */
#define SB_STACK_SPAN	 (8ULL << 20) /* a frame record lies this near sp */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* user space sizes it: --unwind-rows */
	__type(key, __u32);
	__type(value, struct sb_unwind_row);
} sb_unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct sb_unwind_file_key);
	__type(value, struct sb_unwind_file);
} sb_unwind_files SEC(".maps");

/* The row last found for a hash of (file, offset), per CPU: a walk meets
 * the same return sites again and again, and checking a hint costs two
 * lookups where the search costs one step per halving. A hint is only
 * taken when its row brackets the offset in the file's rows, so a stale,
 * colliding or torn one (a program that interrupted another) is a miss,
 * never a wrong row. */
#define SB_ROW_HINTS 1024
#define SB_MAP_HINTS 256 /* then a process's mapping for a hash of pc */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SB_ROW_HINTS + SB_MAP_HINTS);
	__type(key, __u32);
	__type(value, __u32);
} sb_unwind_hints SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* only user space inserts */
	__type(key, __u32);
	__type(value, struct sb_unwind_proc);
} sb_unwind_procs SEC(".maps");

/* A scan for a return site (x86_64's code without CFI: sb_scan()). */
struct sb_scan_state {
	__u64 sp;
	struct sb_unwind_map m; /* the frame's mapping and file, copied */
	struct sb_unwind_file f;
	__u64 below; /* a frame record's address: scan below it */
	__u64 in;    /* the function whose frame record that is, or 0 */
	__u64 slot, ra, record; /* what was found */
	__u32 fp_row;		/* the caller finds its frame by fp */
	/* the bounded walk's: how many words it scans, the next one, and
	 * what it looks for (0: no scan, 1: a return site, 2: a record) */
	__u32 words, k, phase;
};

/* A binary search for a file's row (sb_row_of()): in the unwinder, as
 * its callback cannot be given a map value, so that no frame under the
 * walk holds it. 6.12 x86_64 checks their stacks combined against 512
 * bytes (6.1: each rounded up to 32). */
struct sb_row_search {
	__u32 lo, hi; /* the answer is lo - 1, when lo > first */
	__u64 key;
	__u32 first; /* the file's first row */
	__u32 hit;   /* its hint was right: lo - 1 without a search */
};

/* A walk as remembered (unwind_memo.bpf.h): where it started, the
 * words of the stack it read, the mappings it used (their gen), and the
 * stack it gave. */
#define SB_MEMO_READS 48 /* more words read: not remembered */
struct sb_unwind_memo {
	__u64 pc, sp, fp, lr;
	__u64 code_at; /* arm64: the instruction word read at the start */
	__u64 sum;     /* the words read, mixed in order */
	__u64 id;
	__u32 pid, tgid, gen;
	__u32 n;   /* words read */
	__u32 seq; /* odd while written, or left unfinished */
	__u32 pad;
	__s32 lo, hi;		 /* the words' span: at[] from lo, below hi */
	__s32 at[SB_MEMO_READS]; /* each word's address less sp */
	/* words a scan for a return site read and passed over, a bit per
	 * word of at[]: all that matters of them is that they lie outside
	 * [out_lo, out_hi), or that no direct call is before them */
	__u64 outside, nocall;
	__u64 out_lo, out_hi;
};

struct sb_unwinder {
	struct sb_scan_state sc;
	struct sb_row_search rows;
	__u64 pc, sp, fp, lr;
	__u32 n; /* frames written */
	__u32 tgid;
	/* pc may be in code without CFI, of a file that has a table, that
	 * left no frame record: the leaf, or what called the vDSO (a frame
	 * walked by frame pointer out of no file). A caller's return site
	 * is looked for above sp there, nowhere else: above the outermost
	 * such code (musl's thread start) lie words of calls that returned */
	__u32 scan;
	__u32 hint; /* sb_unwind_hints' key: here, not on the BPF stack */
	/* the walk's memo (unwind_memo.bpf.h): its slot, whether the walk
	 * so far can be remembered, which walk on this CPU it is (one that
	 * interrupted it leaves it unfinished) */
	__u32 memo_slot, memo_ok, walks, walk;
	__u64 check;	 /* the memo's words read again, mixed */
	__u32 check_at;	 /* the next of them */
	__u32 check_bad; /* a word noted by what it is not no longer is */
	/* the bounded walk's: the frame's row (cfa SB_CFA_NONE: none), and
	 * whether its code is in a file (1) with a table (2) */
	struct sb_unwind_row row;
	__u32 file;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_unwinder);
} sb_unwind_state SEC(".maps");

#if defined(__TARGET_ARCH_x86)
/* The function a return site's direct call went to, or 0. */
static __always_inline __u64 sb_callee(__u64 ra)
{
	__u8 call[5];

	if (ra < sizeof(call) ||
	    bpf_probe_read_user(call, sizeof(call), (void *)(ra - 5)) ||
	    call[0] != 0xe8)
		return 0;
	return ra + (__s32)(call[1] | call[2] << 8 | call[3] << 16 |
			    (__u32)call[4] << 24);
}
#endif

#include "unwind_memo.bpf.h"

/* What is below holds no callback nor atomic the legacy programs
 * (SB_LEGACY) would call: they walk with unwind_bounded.bpf.h. */
static __always_inline __u64 sb_uread(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* Binary searches run as bpf_loop() callbacks: the verifier checks a
 * step once, where an unrolled search would multiply its states. */
struct sb_search {
	__u32 lo, hi; /* the answer is lo - 1, when lo > first */
	__u64 key;
	const struct sb_unwind_proc *in;
};

static long sb_map_step(__u32 i, void *ctx)
{
	struct sb_search *s = ctx;
	__u32 mid = s->lo + (s->hi - s->lo) / 2;

	if (s->lo >= s->hi || mid >= SB_UNWIND_MAPS)
		return 1;
	if (s->in->maps[mid].start <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

static long sb_row_step(__u32 i, void *ctx)
{
	const struct sb_unwind_row *r;
	struct sb_row_search *s;
	struct sb_unwinder *u;
	__u32 zero = 0, mid;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 1;
	s = &u->rows;
	mid = s->lo + (s->hi - s->lo) / 2;
	if (s->lo >= s->hi)
		return 1;
	r = bpf_map_lookup_elem(&sb_unwind_rows, &mid);
	if (!r)
		return 1;
	if (r->off <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* Two words mixed into a hint's slot */
static __always_inline __u32 sb_hint_hash(__u32 a, __u32 b)
{
	return a * 0x9e3779b1u ^ b * 0x85ebca6bu;
}

/* The mapping of p holding pc, or NULL; a miss asks user space, once,
 * to read the process's mappings again. A hint (sb_unwind_hints, past
 * the rows' slots) is taken when its mapping holds pc. */
static __always_inline const struct sb_unwind_map *
sb_map_of(struct sb_unwinder *u, struct sb_unwind_proc *p, __u32 tgid, __u64 pc)
{
	struct sb_search s = {.key = pc, .in = p};
	__u32 *hint, i;

	u->hint = SB_ROW_HINTS + sb_hint_hash(pc >> 12, tgid) % SB_MAP_HINTS;
	hint = bpf_map_lookup_elem(&sb_unwind_hints, &u->hint);

	s.hi = p->n < SB_UNWIND_MAPS ? p->n : SB_UNWIND_MAPS;
	if (hint) {
		i = *hint;
		if (i < s.hi && i < SB_UNWIND_MAPS && p->maps[i].start <= pc &&
		    pc < p->maps[i].end)
			return &p->maps[i];
	}
	bpf_loop(8, sb_map_step, &s, 0); /* log2(SB_UNWIND_MAPS) + 2 */
	i = s.lo - 1;
	if (s.lo && i < SB_UNWIND_MAPS && pc < p->maps[i].end) {
		if (hint)
			*hint = i;
		return &p->maps[i];
	}
	if (!__sync_val_compare_and_swap(&p->stale, 0, 1))
		sb_event(SB_EV_UNWIND_MAPS, tgid);
	return NULL;
}

/* u->rows' slot among the hints */
static __always_inline __u32 sb_row_slot(const struct sb_row_search *s)
{
	return sb_hint_hash(s->key, s->first) % SB_ROW_HINTS;
}

/* Before the search (one bpf_loop step, so its lookups spill nothing
 * into the walk's own frame): when the hinted row covers the key (it
 * is the row the search would find), the search is done. */
static long sb_row_hint_step(__u32 i, void *ctx)
{
	const struct sb_unwind_row *r, *next;
	struct sb_row_search *s;
	struct sb_unwinder *u;
	__u32 zero = 0, *h;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 1;
	s = &u->rows;
	u->hint = sb_row_slot(s);
	h = bpf_map_lookup_elem(&sb_unwind_hints, &u->hint);
	if (!h)
		return 1;
	u->hint = *h;
	if (u->hint < s->first || u->hint >= s->hi)
		return 1;
	r = bpf_map_lookup_elem(&sb_unwind_rows, &u->hint);
	if (!r || r->off > s->key)
		return 1;
	u->hint++;
	if (u->hint < s->hi) {
		next = bpf_map_lookup_elem(&sb_unwind_rows, &u->hint);
		if (!next || s->key >= next->off)
			return 1;
	}
	s->lo = s->hi = u->hint;
	s->hit = 1;
	return 1;
}

/* After a search that found row lo - 1: that is the slot's hint. */
static long sb_row_keep_step(__u32 i, void *ctx)
{
	struct sb_unwinder *u;
	__u32 zero = 0, *h;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 1;
	u->hint = sb_row_slot(&u->rows);
	h = bpf_map_lookup_elem(&sb_unwind_hints, &u->hint);
	if (h)
		*h = u->rows.lo - 1;
	return 1;
}

/* The row covering off among a file's rows, or NULL. */
static __always_inline const struct sb_unwind_row *
sb_row_of(struct sb_unwinder *u, const struct sb_unwind_file *f, __u64 off)
{
	__u32 first = f->first, i;

	u->rows = (struct sb_row_search){first, first + f->count, off, first};
	bpf_loop(1, sb_row_hint_step, NULL, 0);
	bpf_loop(SB_UNWIND_SEARCH, sb_row_step, NULL, 0);
	if (u->rows.lo == first || u->rows.lo < u->rows.hi)
		return NULL;
	if (!u->rows.hit)
		bpf_loop(1, sb_row_keep_step, NULL, 0);
	i = u->rows.lo - 1;
	return bpf_map_lookup_elem(&sb_unwind_rows, &i);
}

/* how far above sp a return site is looked for, in words (x86_64) */
#define SB_SCAN_FAR 1024

/* The scan with bpf_loop, its reads noted for the memo: not in the
 * legacy programs (their walk is unwind_bounded.bpf.h's). */
#if defined(__TARGET_ARCH_x86) && SB_MODERN

/*
 * Code without CFI, in a file that has a table (musl's libc linked into
 * a program: musl is built without unwind tables), may have no frame
 * record either: a leaf, or the caller of the vDSO (musl's
 * clock_gettime, whose vDSO frame the frame pointer walked). On x86_64 a
 * call pushes its return address at the caller's sp - 8, so the caller
 * is found by looking above sp for a return site that proves itself: a
 * direct call just before it, from code the table covers into code it
 * does not. Words the code reserved and did not write may hold return
 * sites of calls that returned: where a frame record lies near above sp
 * (the caller keeps frame pointers), its return address names, by the
 * call before it, the function the caller is in, and the return site
 * taken is the one in it (the least above its entry, below the record);
 * elsewhere, the first one above sp. The scan's state is the unwinder's
 * (struct sb_scan_state), not on the stack: these callbacks run three
 * calls deep under an applet's own subprograms.
 */
static long sb_scan_step(__u32 i, void *ctx)
{
	const struct sb_unwind_row *r;
	struct sb_unwinder *u;
	__u64 addr, w, target;
	__u32 zero = 0;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 1;
	addr = u->sc.sp + i * 8;
	if (u->sc.below && addr >= u->sc.below)
		return 1;
	w = sb_uread_scanned(u, addr, u->sc.m.start + 5, u->sc.m.end);
	if (w < u->sc.m.start + 5 || w >= u->sc.m.end ||
	    (u->sc.in && (w < u->sc.in || (u->sc.ra && w >= u->sc.ra))))
		return 0;
	target = sb_callee(w);
	if (target < u->sc.m.start || target >= u->sc.m.end)
		return 0;
	r = sb_row_of(u, &u->sc.f, w - 1 - u->sc.m.start + u->sc.m.offset);
	if (!r || (r->cfa != SB_CFA_SP && r->cfa != SB_CFA_FP))
		return 0;
	u->sc.fp_row = r->cfa == SB_CFA_FP;
	r = sb_row_of(u, &u->sc.f, target - u->sc.m.start + u->sc.m.offset);
	if (r && r->cfa != SB_CFA_NONE)
		return 0;
	u->sc.slot = addr;
	u->sc.ra = w;
	return !u->sc.below;
}

/*
 * The caller a scan found finds its frame by frame pointer, but the code
 * without CFI used that register for something else: its frame record
 * is the first pair of words above the return site's slot that reads as
 * one, a pointer up the stack and then a return site after a direct
 * call in the same file.
 */
static long sb_record_step(__u32 i, void *ctx)
{
	struct sb_unwinder *u;
	__u64 addr, up, w;
	__u32 zero = 0;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u)
		return 1;
	addr = u->sc.slot + 8 + i * 8;
	/* a return site first: a word that cannot be one passes the pair
	 * over, whatever the word before it holds */
	w = sb_uread_scanned(u, addr + 8, u->sc.m.start + 5, u->sc.m.end);
	if (w < u->sc.m.start + 5 || w >= u->sc.m.end)
		return 0;
	up = sb_uread_noted(u, addr);
	if (up <= addr || up - addr > SB_STACK_SPAN || up & 7 || !sb_callee(w))
		return 0;
	u->sc.record = addr;
	return 1;
}

/* The caller of a frame in code without CFI, by its return site: 1 and
 * u->sc says where (slot, ra, record), 0 when none proves itself. Not
 * through pointers to the caller's locals: they would take its stack. */
static __always_inline int sb_scan(struct sb_unwinder *u,
				   const struct sb_unwind_map *m,
				   const struct sb_unwind_file *f)
{
	u->sc = (struct sb_scan_state){.sp = u->sp, .m = *m, .f = *f};
	if (u->fp > u->sp && u->fp - u->sp <= SB_SCAN_FAR * 8 && !(u->fp & 7)) {
		u->sc.below = u->fp;
		u->sc.in = sb_callee(sb_uread_called(u, u->fp + 8));
	}
	/* without a record, the first return site (code that reserved
	 * much, as musl's sendmsg, 1 KiB, has it far up) */
	bpf_loop(u->sc.below ? (u->fp - u->sp) / 8 : SB_SCAN_FAR, sb_scan_step,
		 NULL, 0);
	if (!u->sc.ra)
		return 0;
	if (u->sc.fp_row && !u->sc.below)
		bpf_loop(SB_SCAN_FAR, sb_record_step, NULL, 0);
	return 1;
}
#endif

#if defined(__TARGET_ARCH_arm64)
#define SB_TAIL_SCAN 16 /* instructions of a callee searched for a tail b */

/* N when the function at fn opens with "stp x29, x30, [sp, #-N]!" (a
 * hint such as paciasp or bti before it), else 0. */
static __always_inline __u64 sb_entry_frame(__u64 fn)
{
	__u32 insn[3] = {0};
	int k;

	if (bpf_probe_read_user(insn, sizeof(insn), (void *)fn))
		return 0;
	for (k = 0; k < 3; k++) {
		if ((insn[k] & 0xfffff01f) == 0xd503201f) /* a hint */
			continue;
		if ((insn[k] & 0xffc07fff) != 0xa9807bfd) /* stp x29, x30 */
			return 0;
		return -(__s64)((__s32)(insn[k] << 10) >> 25) * 8;
	}
	return 0;
}

/*
 * The size of the frame whose record a return address came from: N of
 * the prologue above, of the function its bl called or, when that one
 * has none, of a function it ends in a tail branch to (musl's
 * pthread_mutex_lock: a fast path, then "b pthread_mutex_timedlock",
 * whose record is the one found). Its caller's sp is the record's
 * address plus N, not plus 16, and a caller the table covers needs that
 * sp exactly (musl's code keeps frame records, -O2 code finds its frame
 * from sp). 16 when not known. A global function where the walk runs
 * in bpf_loop: the verifier checks its nested searches once, not again
 * under each state of the walk's step (6.1 gave up on iostack's exit
 * program at a million instructions when the step grew the memo's
 * notes). The legacy programs keep it inline: 5.10's bounded walk has
 * no frame to spare under it (unwind_bounded.bpf.h).
 */
#if SB_MODERN
__noinline __u64 sb_record_frame(__u64 ra)
#else
static __always_inline __u64 sb_record_frame(__u64 ra)
#endif
{
	__u64 callee, n, at;
	__u32 insn = 0;
	int k;

	ra &= 0x0000ffffffffffffULL;
	if (ra < 4 || bpf_probe_read_user(&insn, 4, (void *)(ra - 4)) ||
	    (insn & 0xfc000000) != 0x94000000) /* bl imm26 */
		return 16;
	callee = ra - 4 + ((__s64)((__s32)(insn << 6) >> 6) << 2);
	n = sb_entry_frame(callee);
	for (k = 0; !n && k < SB_TAIL_SCAN; k++) {
		at = callee + k * 4;
		if (bpf_probe_read_user(&insn, 4, (void *)at))
			break;
		if ((insn & 0xfc000000) == 0x14000000) /* b imm26 */
			n = sb_entry_frame(
				at + ((__s64)((__s32)(insn << 6) >> 6) << 2));
	}
	return n ? n : 16;
}
#endif

#if SB_MODERN
/* One frame: record pc, then find the caller's pc, sp and fp. */
static long sb_unwind_step(__u32 i, void *ctx)
{
	const struct sb_unwind_file *f = NULL;
	const struct sb_unwind_map *m = NULL;
	const struct sb_unwind_row *r = NULL;
	struct sb_unwind_proc *p;
	struct sb_unwinder *u;
	struct sb_stack *st;
	__u64 cfa, ra, fp, at;
	__u32 zero = 0, n;

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	st = bpf_map_lookup_elem(&sb_scratch, &zero);
	if (!u || !st)
		return 1;
	n = u->n;
	if (n >= SB_MAX_DEPTH || !u->pc)
		return 1;
	/* the bound is checked on n as it is now, not on a copy the
	 * compiler spilled before: 6.1 does not carry it to the spill
	 * ("unbounded memory access") */
	barrier_var(n);
	st->ip[n] = u->pc;
	/* a return address is after its call: look up the call itself */
	at = n ? u->pc - 1 : u->pc;
	p = bpf_map_lookup_elem(&sb_unwind_procs, &u->tgid);
	if (p) {
		m = sb_map_of(u, p, u->tgid, at);
		/* a caller outside the process's code is garbage from a
		 * frame pointer that was not one: stop before it */
		if (!m && n)
			return 1;
	}
	u->n = n + 1;
	if (m)
		f = bpf_map_lookup_elem(&sb_unwind_files, &m->file);
	if (f && f->count)
		r = sb_row_of(u, f, at - m->start + m->offset);
	if (r && r->cfa == SB_CFA_END)
		return 1;
	if (r && (r->cfa == SB_CFA_SP || r->cfa == SB_CFA_FP)) {
		cfa = (r->cfa == SB_CFA_SP ? u->sp : u->fp) + r->cfa_off;
		fp = r->saved & SB_SAVED_FP ? sb_uread_noted(u, cfa + r->fp_off)
					    : u->fp;
#if defined(__TARGET_ARCH_x86)
		ra = sb_uread_noted(u, cfa - 8);
#else
		if (r->saved & SB_SAVED_RA)
			ra = sb_uread_noted(u, cfa + r->ra_off);
		else if (!n) /* a leaf that has not saved the link register */
			ra = u->lr;
		else
			return 1;
#endif
	} else {
#if defined(__TARGET_ARCH_x86)
		if (u->scan && f && f->count && m && sb_scan(u, m, f)) {
			cfa = u->sc.slot + 8;
			ra = u->sc.ra;
			fp = u->sc.record ? u->sc.record : u->fp;
			goto step;
		}
#endif
		/* no row: a frame record, if fp looks like one */
		if (u->fp < u->sp || u->fp - u->sp > SB_STACK_SPAN || u->fp & 7)
			return 1;
		cfa = u->fp + 16;
		fp = sb_uread_noted(u, u->fp);
		ra = sb_uread_noted(u, u->fp + 8);
#if defined(__TARGET_ARCH_arm64)
		cfa = u->fp + sb_record_frame(ra);
		u->memo_ok = 0; /* it read code: not remembered */
#endif
	}
#if defined(__TARGET_ARCH_x86)
step:
#endif
#if defined(__TARGET_ARCH_arm64)
	ra &= 0x0000ffffffffffffULL; /* a pointer authentication code */
#endif
	/* callers' frames are above: anything else is a loop or garbage
	 * (an arm64 leaf returning through x30 may use no stack at all) */
	if (cfa < u->sp || (cfa == u->sp && n) || !ra)
		return 1;
	u->pc = ra;
	u->sp = cfa;
	u->fp = fp;
	u->scan = !f;
	return 0;
}
#endif

#if defined(__TARGET_ARCH_arm64)
/*
 * At the very entry of a function (a uprobe), before its prologue, the
 * return address is still in x30 and sp is the caller's: when x30
 * returns right after a bl to this pc, that is the first frame, table
 * or not (musl's code has none and may keep no frame record).
 */
static __always_inline int sb_at_entry(struct sb_unwinder *u, __u64 pc,
				       __u64 lr)
{
	__u32 insn;

	lr &= 0x0000ffffffffffffULL; /* a pointer authentication code */
	if (lr < 4)
		return 0;
	insn = sb_code_noted(u, lr - 4);
	if ((insn & 0xfc000000) != 0x94000000) /* bl imm26 */
		return 0;
	return lr - 4 + ((__s64)((__s32)(insn << 6) >> 6) << 2) == pc;
}
#endif

#include "unwind_bounded.bpf.h"

/* The walk's first frame: the user's registers into u (the walk's
 * state); 0 when they are not there. */
static __always_inline int sb_unwind_start(struct sb_unwinder *u)
{
	__u64 regs = sb_user_regs();

	if (!regs)
		return 0;
	u->tgid = bpf_get_current_pid_tgid() >> 32;
	u->n = 0;
	u->scan = 1;
	u->pc = sb_kread(regs + SB_REG_PC);
	u->sp = sb_kread(regs + SB_REG_SP);
	u->fp = sb_kread(regs + SB_REG_FP);
	u->lr = 0;
#if defined(__TARGET_ARCH_arm64)
	u->lr = sb_kread(regs + SB_REG_LR);
#endif
	return 1;
}

/* The user stack of the current task into st; its length in bytes.
 * Or, when this thread's memo of the same walk holds, nothing walked:
 * the stack's id in *recalled (0 otherwise). Before 5.17 (no
 * bpf_loop), and in the legacy programs, the walk is the bounded one,
 * which keeps no memo (it checks one with bpf_loop). */
static __always_inline long sb_unwind_user(struct sb_stack *st, __u64 *recalled)
{
	struct sb_unwinder *u;
	__u32 zero = 0;
	int entry = 0;
	__u64 n;

	*recalled = 0;
	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!u || !sb_unwind_start(u))
		return 0;
	u->memo_ok = 0;
#if SB_MODERN
	if (sb_cfg.unwind_walk != SB_WALK_BOUNDED) {
		*recalled = sb_memo_begin();
		if (*recalled)
			return 0;
	}
#endif
#if defined(__TARGET_ARCH_arm64)
	entry = sb_at_entry(u, u->pc, u->lr);
#endif
	if (entry) {
		st->ip[0] = u->pc;
		u->n = 1;
		u->pc = u->lr & 0x0000ffffffffffffULL;
	}
#if SB_MODERN
	if (sb_cfg.unwind_walk != SB_WALK_BOUNDED)
		bpf_loop(SB_MAX_DEPTH, sb_unwind_step, NULL, 0);
	else
#endif
		sb_unwind_bounded(u);
	n = u->n;
	sb_bounded_put(st, n, 0); /* readers stop at the first zero */
	return n * sizeof(__u64);
}

/* The walk sb_unwind_user() made gave the stack id: remembered. */
static __always_inline void sb_unwind_remember(__u64 id)
{
#if SB_MODERN
	sb_memo_keep(id);
#endif
}

/*
 * Whether the current task's user stack is walked with the tables:
 * always under --unwind eh_frame, under the default where user space
 * said so for its process. A process whose mappings are not known yet
 * is walked by frame pointer and counted. A global function: a call is
 * all each program that takes a stack holds of it.
 */
__noinline int sb_unwind_wanted_here(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct sb_unwind_proc *p;

	p = bpf_map_lookup_elem(&sb_unwind_procs, &tgid);
	if (!p)
		sb_stat_add(SB_STAT_UNWIND_UNKNOWN, 1);
	if (sb_cfg.unwind == SB_UNWIND_EH_FRAME)
		return 1;
	return p && p->tables;
}

static __always_inline int sb_unwind_wanted(void)
{
	return sb_cfg.unwind != SB_UNWIND_FP && sb_unwind_wanted_here();
}

/* A process exec'd: its mappings are gone. Until user space has read the
 * new ones (SB_EV_EXEC, late on a busy machine), walk it as unknown: by
 * frame pointer, counted, not by the old image's tables, which stop the
 * walk at the leaf. */
static __always_inline void sb_unwind_forget(__u32 tgid)
{
	bpf_map_delete_elem(&sb_unwind_procs, &tgid);
}

/* A file's code mapped into a process walked by frame pointers (a slow
 * loader, a dlopen) after its code was long the same: user space looks
 * at its mappings again (SB_EV_CODE_MAPPED), and gives it the tables if
 * the new code needs them. A walk would never ask: frame pointers stop
 * nowhere outside the mappings. */
static __always_inline void sb_unwind_code_mapped(__u32 tgid)
{
	struct sb_unwind_proc *p;

	if (sb_cfg.unwind != SB_UNWIND_AUTO)
		return;
	p = bpf_map_lookup_elem(&sb_unwind_procs, &tgid);
	if (p && !p->tables)
		sb_event(SB_EV_CODE_MAPPED, tgid);
}
#endif
