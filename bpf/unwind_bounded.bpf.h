/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table walk for kernels without bpf_loop (before 5.17) and the
 * legacy programs (before 5.13): unwind.bpf.h's walk, frame for frame,
 * in a bounded loop (5.3+) whose body calls global functions.
 *
 * A global function (scalar arguments, scalar result) is checked once
 * per program, on its own, whatever calls it; a call to it costs the
 * caller a few instructions. Each pass of the walk's loop calls three:
 * a frame's two halves (sb_bounded_find: its mapping and row;
 * sb_bounded_step: to its caller) and one word of x86_64's scan for a
 * return site (sb_bounded_scan_tick; sb_scan in unwind.bpf.h), each
 * doing nothing when it is not its turn, and the loop leaves when one
 * says the stack ended. So the verifier follows the loop once: a body
 * that went on two ways would double its paths at every pass, as
 * 5.10's verifier keeps a state to prune against in a loop only every
 * 20 branches. For the same reason the binary searches pick their
 * bounds with a mask (sb_pick), not a jump.
 *
 * Two frames deep under the program's own, none above 64 bytes: 5.10
 * counts each frame as at least 32 bytes against the 512 of all, and
 * rastack's legacy programs leave the walk 96 (sb_stack_tables' frame
 * and one of these). Hence the searches are inline, and the halves.
 *
 * The loops are loops, not unrolled: an unrolled walk took 24k
 * instructions in each of the twelve objects and doubled the binary;
 * this one is about 1,000.
 *
 * No atomics, no callbacks: the legacy programs load it. Included by
 * unwind.bpf.h after its maps and the arch's helpers (sb_uread,
 * sb_callee, sb_record_frame); uses those and base.bpf.h.
 */
#ifndef STACKBOX_UNWIND_BOUNDED_BPF_H
#define STACKBOX_UNWIND_BOUNDED_BPF_H

#include "base.bpf.h"

#define SB_BOUNDED_MAP_STEPS 7 /* log2(SB_UNWIND_MAPS) + 1 */
#if defined(__TARGET_ARCH_x86)
/* frames, and scans: 1024 words for a return site, 1024 for a record */
#define SB_BOUNDED_TICKS (SB_MAX_DEPTH + 2 * SB_SCAN_FAR)
#else
#define SB_BOUNDED_TICKS SB_MAX_DEPTH
#endif

/* All ones when x <= y, else 0 (both below 2^63), without a branch:
 * the compiler is kept from turning it back into a comparison. */
static __always_inline __u64 sb_le_mask(__u64 x, __u64 y)
{
	__u64 m = ((y - x) >> 63) - 1;

	asm volatile("" : "+r"(m));
	return m;
}

/* a where mask is all ones, b where it is 0 */
static __always_inline __u32 sb_pick(__u64 mask, __u32 a, __u32 b)
{
	return b ^ ((a ^ b) & (__u32)mask);
}

static __always_inline struct sb_unwinder *sb_bounded_unwinder(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sb_unwind_state, &zero);
}

/* The row covering off among a file's rows, or NULL. */
static __always_inline const struct sb_unwind_row *
sb_bounded_row(const struct sb_unwind_file *f, __u64 off)
{
	const struct sb_unwind_row *r;
	__u32 first = f->first, lo = first, hi = first + f->count, mid, k;
	__u64 right;

#pragma clang loop unroll(disable)
	for (k = 0; k < SB_UNWIND_SEARCH; k++) {
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(&sb_unwind_rows, &mid);
		if (!r)
			return NULL;
		right = sb_le_mask(r->off, off); /* the row is mid or after */
		lo = sb_pick(right, mid + 1, lo);
		hi = sb_pick(right, hi, mid);
	}
	if (lo == first || lo < hi)
		return NULL;
	mid = lo - 1;
	return bpf_map_lookup_elem(&sb_unwind_rows, &mid);
}

/* The mapping of p holding pc, or NULL (then user space is asked, once,
 * to read the process's mappings again). */
static __always_inline const struct sb_unwind_map *
sb_bounded_map(struct sb_unwind_proc *p, __u32 tgid, __u64 pc)
{
	__u32 lo = 0, hi, mid, k;
	__u64 right;

	hi = p->n < SB_UNWIND_MAPS ? p->n : SB_UNWIND_MAPS;
#pragma clang loop unroll(disable)
	for (k = 0; k < SB_BOUNDED_MAP_STEPS; k++) {
		if (lo >= hi)
			break;
		mid = (lo + (hi - lo) / 2) & (SB_UNWIND_MAPS - 1);
		right = sb_le_mask(p->maps[mid].start, pc);
		lo = sb_pick(right, mid + 1, lo);
		hi = sb_pick(right, hi, mid);
	}
	mid = (lo - 1) & (SB_UNWIND_MAPS - 1);
	if (lo && pc < p->maps[mid].end)
		return &p->maps[mid];
	if (!p->stale) { /* no atomics before 5.12: asked twice at worst */
		p->stale = 1;
		sb_event(SB_EV_UNWIND_MAPS, tgid);
	}
	return NULL;
}

/* st->ip[n] = v, n checked in the register the store uses: 5.10's
 * verifier forgets a bound checked after n was spilled to the stack and
 * reloaded ("unbounded memory access"). */
static __always_inline void sb_bounded_put(struct sb_stack *st, __u64 n,
					   __u64 v)
{
	asm volatile("" : "+r"(n));
	if (n < SB_MAX_DEPTH)
		st->ip[n] = v;
}

/* To the caller of frame n at cfa, ra, fp; 0 where that is no caller
 * (callers' frames are above: anything else is a loop or garbage). */
static __always_inline int sb_bounded_move(struct sb_unwinder *u, __u64 n,
					   __u64 cfa, __u64 ra, __u64 fp)
{
#if defined(__TARGET_ARCH_arm64)
	ra &= 0x0000ffffffffffffULL; /* a pointer authentication code */
#endif
	if (cfa < u->sp || (cfa == u->sp && n) || !ra)
		return 0;
	u->pc = ra;
	u->sp = cfa;
	u->fp = fp;
	return 1;
}

/* ... by a frame record, if fp looks like one */
static __always_inline int sb_bounded_by_record(struct sb_unwinder *u, __u64 n)
{
	__u64 fp, ra;

	if (u->fp < u->sp || u->fp - u->sp > SB_STACK_SPAN || u->fp & 7)
		return 0;
	fp = sb_uread(u->fp);
	ra = sb_uread(u->fp + 8);
#if defined(__TARGET_ARCH_arm64)
	return sb_bounded_move(u, n, u->fp + sb_record_frame(ra), ra, fp);
#else
	return sb_bounded_move(u, n, u->fp + 16, ra, fp);
#endif
}

#if defined(__TARGET_ARCH_x86)
/* The scan (sb_scan's) for the caller of a frame in code without CFI
 * starts (the frame's mapping and file in u->sc): the scan's ticks go
 * on. */
static __always_inline void sb_bounded_scan(struct sb_unwinder *u)
{
	u->sc.sp = u->sp;
	u->sc.k = 0;
	u->sc.words = SB_SCAN_FAR;
	if (u->fp > u->sp && u->fp - u->sp <= SB_SCAN_FAR * 8 && !(u->fp & 7)) {
		u->sc.below = u->fp;
		u->sc.in = sb_callee(sb_uread(u->fp + 8));
		u->sc.words = (u->fp - u->sp) / 8;
	}
	u->sc.phase = 1;
}
#endif

/* A frame, first half (sb_unwind_step's): record pc, find its mapping
 * and row (into u->row, u->file); 0 at the end of the stack. 1 and
 * nothing done while a scan goes on. */
__noinline int sb_bounded_find(void)
{
	struct sb_unwinder *u = sb_bounded_unwinder();
	struct sb_stack *st = sb_stack_buf();
	const struct sb_unwind_file *f = NULL;
	const struct sb_unwind_map *m = NULL;
	const struct sb_unwind_row *r = NULL;
	struct sb_unwind_proc *p;
	__u64 n; /* 64 bits: 5.10 bounds a u32 index too loosely */

	if (!u || !st)
		return 0;
	if (u->sc.phase)
		return 1;
	n = u->n;
	if (n >= SB_MAX_DEPTH || !u->pc)
		return 0;
	/* a return address is after its call: look up the call itself */
	u->sc.sp = n ? u->pc - 1 : u->pc;
	p = bpf_map_lookup_elem(&sb_unwind_procs, &u->tgid);
	if (p) {
		m = sb_bounded_map(p, u->tgid, u->sc.sp);
		if (!m && n) /* garbage from a frame pointer that was none */
			return 0;
	}
	sb_bounded_put(st, n, u->pc);
	u->n = n + 1;
	u->file = 0;
	u->row.cfa = SB_CFA_NONE;
	if (m)
		f = bpf_map_lookup_elem(&sb_unwind_files, &m->file);
	if (!f)
		return 1;
	u->file = 1;
	if (!f->count)
		return 1;
	u->file = 2;
	r = sb_bounded_row(f, u->sc.sp - m->start + m->offset);
	if (r)
		u->row = *r;
	/* for sb_bounded_scan; field by field, not through a copy on the
	 * stack */
	if (u->scan && u->row.cfa != SB_CFA_SP && u->row.cfa != SB_CFA_FP) {
		u->sc.m = *m;
		u->sc.f = *f;
		u->sc.below = u->sc.in = 0;
		u->sc.slot = u->sc.ra = u->sc.record = 0;
		u->sc.fp_row = 0;
	}
	return u->row.cfa != SB_CFA_END;
}

/* ... second half: move to the caller by the row, else by a frame
 * record, or start a scan; 0 at the end of the stack. */
__noinline int sb_bounded_step(void)
{
	struct sb_unwinder *u = sb_bounded_unwinder();
	__u64 cfa, ra, fp, n;

	if (!u)
		return 0;
	if (u->sc.phase)
		return 1;
	n = u->n - 1;
	if (u->row.cfa == SB_CFA_SP || u->row.cfa == SB_CFA_FP) {
		cfa = (u->row.cfa == SB_CFA_SP ? u->sp : u->fp) +
		      u->row.cfa_off;
		fp = u->row.saved & SB_SAVED_FP ? sb_uread(cfa + u->row.fp_off)
						: u->fp;
#if defined(__TARGET_ARCH_x86)
		ra = sb_uread(cfa - 8);
#else
		if (u->row.saved & SB_SAVED_RA)
			ra = sb_uread(cfa + u->row.ra_off);
		else if (!n) /* a leaf that has not saved the link register */
			ra = u->lr;
		else
			return 0;
#endif
		u->scan = 0;
		return sb_bounded_move(u, n, cfa, ra, fp);
	}
#if defined(__TARGET_ARCH_x86)
	if (u->scan && u->file == 2) {
		sb_bounded_scan(u);
		u->scan = 0;
		return 1;
	}
#endif
	u->scan = !u->file;
	return sb_bounded_by_record(u, n);
}

#if defined(__TARGET_ARCH_x86)
/* Whether the word at addr is the return site the scan looks for
 * (sb_scan_step's tests); u->sc says where it is when it is. */
static __always_inline int sb_bounded_site(struct sb_unwinder *u, __u64 addr)
{
	const struct sb_unwind_row *r;
	__u64 w, target, base;
	__u32 fp_row;

	w = sb_uread(addr);
	if (w < u->sc.m.start + 5 || w >= u->sc.m.end ||
	    (u->sc.in && (w < u->sc.in || (u->sc.ra && w >= u->sc.ra))))
		return 0;
	target = sb_callee(w);
	if (target < u->sc.m.start || target >= u->sc.m.end)
		return 0;
	base = u->sc.m.offset - u->sc.m.start;
	r = sb_bounded_row(&u->sc.f, w - 1 + base);
	if (!r || (r->cfa != SB_CFA_SP && r->cfa != SB_CFA_FP))
		return 0;
	fp_row = r->cfa == SB_CFA_FP;
	r = sb_bounded_row(&u->sc.f, target + base);
	if (r && r->cfa != SB_CFA_NONE)
		return 0;
	u->sc.fp_row = fp_row;
	u->sc.slot = addr;
	u->sc.ra = w;
	return 1;
}

/* Whether the words at addr read as a frame record (sb_record_step's) */
static __always_inline int sb_bounded_record(struct sb_unwinder *u, __u64 addr)
{
	__u64 up = sb_uread(addr), w = sb_uread(addr + 8);

	return up > addr && up - addr <= SB_STACK_SPAN && !(up & 7) &&
	       w >= u->sc.m.start + 5 && w < u->sc.m.end && sb_callee(w);
}

/* The scan is over: to the caller it found, else by a frame record. */
static __always_inline int sb_bounded_scanned(struct sb_unwinder *u)
{
	__u64 n = u->n - 1;

	u->sc.phase = 0;
	if (!u->sc.ra)
		return sb_bounded_by_record(u, n);
	return sb_bounded_move(u, n, u->sc.slot + 8, u->sc.ra,
			       u->sc.record ? u->sc.record : u->fp);
}

/* One word of the scan, when one goes on: 0 at the end of the stack. */
__noinline int sb_bounded_scan_tick(void)
{
	struct sb_unwinder *u = sb_bounded_unwinder();
	__u64 addr;

	if (!u)
		return 0;
	if (u->sc.phase == 1) { /* a return site above sp */
		addr = u->sc.sp + u->sc.k * 8;
		if (u->sc.k++ < u->sc.words &&
		    !(sb_bounded_site(u, addr) && !u->sc.below))
			return 1;
		if (u->sc.ra && u->sc.fp_row && !u->sc.below) {
			/* the caller finds its frame by fp, which the code
			 * without CFI used for something else: a frame
			 * record above the site */
			u->sc.phase = 2;
			u->sc.k = 0;
			return 1;
		}
	} else if (u->sc.phase == 2) {
		addr = u->sc.slot + 8 + u->sc.k * 8;
		if (u->sc.k++ < SB_SCAN_FAR) {
			if (!sb_bounded_record(u, addr))
				return 1;
			u->sc.record = addr;
		}
	} else {
		return 1;
	}
	return sb_bounded_scanned(u);
}
#else
static __always_inline int sb_bounded_scan_tick(void)
{
	return 1; /* arm64 code keeps frame records: no scan */
}
#endif

/* The walk from u's registers into st (sb_unwind_user's, bounded). */
static __always_inline void sb_unwind_bounded(struct sb_unwinder *u)
{
	__u32 k;

	u->sc.phase = 0;
#pragma clang loop unroll(disable)
	for (k = 0; k < SB_BOUNDED_TICKS; k++)
		if (!sb_bounded_find() || !sb_bounded_step() ||
		    !sb_bounded_scan_tick())
			break;
}

#endif
