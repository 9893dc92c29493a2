/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table walk for kernels without bpf_loop (before 5.17) and the
 * legacy programs (before 5.13): the same walk as unwind.bpf.h's, in
 * bounded loops the verifier follows to their end (5.3+). It checks
 * every frame and every binary search step on its own, so the walk is
 * kept small enough for its limits (a million instructions, 8192
 * branches pending):
 * - the tables walk the first SB_BOUNDED_FRAMES frames; the callers
 *   above them are walked by frame pointer, as the kernel's walk goes;
 * - x86_64's scan for the return site above code without CFI (see
 *   sb_scan in unwind.bpf.h) runs for one frame only (the leaf, or
 *   what called the vDSO), over SB_BOUNDED_SCAN words, its
 *   return sites told in two passes: the words that follow a direct
 *   call into the same mapping, then at most SB_BOUNDED_CANDS of them
 *   by the tables.
 * Every loop but the frames' is unrolled: 5.10's verifier refuses a
 * loop whose way back is a fall-through ("back-edge"), and in a loop it
 * keeps a state at the head only every 20 branches, so a search step's
 * two ways would meet again only every few steps. The frames' loop is
 * not (jumps reach 32767 instructions at most). No atomics, no callbacks: the legacy
 * programs load it.
 *
 * Included by unwind.bpf.h after its maps and the arch's
 * helpers (sb_callee, sb_record_frame, sb_at_entry); uses those and
 * base.bpf.h.
 */
#ifndef STACKBOX_UNWIND_BOUNDED_BPF_H
#define STACKBOX_UNWIND_BOUNDED_BPF_H

#include "base.bpf.h"

#define SB_BOUNDED_FRAMES 16
#define SB_BOUNDED_SCAN	  96
#define SB_BOUNDED_CANDS  4
#define SB_BOUNDED_RECORD 64

/* A binary search's bounds and the scan's candidates live in a map: the
 * verifier then knows no value of them, and each step's two ways meet
 * again (known constants would make it follow every path apart). */
struct sb_bounded {
	__u32 lo, hi;
	__u32 n; /* candidates */
	__u32 pad;
	__u64 slot[4]; /* SB_BOUNDED_CANDS */
	__u64 words;   /* how many the scan reads */
	__u64 word;    /* sb_bounded_uread's */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_bounded);
} sb_unwind_bounded_state SEC(".maps");

static __always_inline struct sb_bounded *sb_bounded_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sb_unwind_bounded_state, &zero);
}

/* A u64 of user memory, 0 where it cannot be read: read through the
 * map, so that the verifier never sees the 0 as a constant. */
static __always_inline __u64 sb_bounded_uread(__u64 addr)
{
	struct sb_bounded *b = sb_bounded_get();

	if (!b)
		return 0;
	bpf_probe_read_user(&b->word, sizeof(b->word), (void *)addr);
	return b->word;
}

/* The mapping of p holding pc, or NULL (then user space is asked, once,
 * to read the process's mappings again). */
static __always_inline const struct sb_unwind_map *
sb_bounded_map(struct sb_unwind_proc *p, __u32 tgid, __u64 pc)
{
	struct sb_bounded *b = sb_bounded_get();
	__u32 mid, k, i;

	if (!b)
		return NULL;
	b->lo = 0;
	b->hi = p->n < SB_UNWIND_MAPS ? p->n : SB_UNWIND_MAPS;
#pragma unroll
	for (k = 0; k < 7; k++) { /* log2(SB_UNWIND_MAPS) + 1 */
		if (b->lo >= b->hi)
			break;
		mid = (b->lo + (b->hi - b->lo) / 2) & (SB_UNWIND_MAPS - 1);
		if (p->maps[mid].start <= pc)
			b->lo = mid + 1;
		else
			b->hi = mid;
	}
	i = (b->lo - 1) & (SB_UNWIND_MAPS - 1);
	if (b->lo && pc < p->maps[i].end)
		return &p->maps[i];
	if (!p->stale) { /* no atomics before 5.12: asked twice at worst */
		p->stale = 1;
		sb_event(SB_EV_UNWIND_MAPS, tgid);
	}
	return NULL;
}

/* The row covering off among a file's rows, or NULL. */
static __always_inline const struct sb_unwind_row *
sb_bounded_row(const struct sb_unwind_file *f, __u64 off)
{
	struct sb_bounded *b = sb_bounded_get();
	const struct sb_unwind_row *r;
	__u32 mid, k;

	if (!b)
		return NULL;
	b->lo = f->first;
	b->hi = f->first + f->count;
#pragma unroll
	for (k = 0; k < SB_UNWIND_SEARCH; k++) {
		if (b->lo >= b->hi)
			break;
		mid = b->lo + (b->hi - b->lo) / 2;
		r = bpf_map_lookup_elem(&sb_unwind_rows, &mid);
		if (!r)
			return NULL;
		if (r->off <= off)
			b->lo = mid + 1;
		else
			b->hi = mid;
	}
	if (b->lo == f->first || b->lo < b->hi)
		return NULL;
	mid = b->lo - 1;
	return bpf_map_lookup_elem(&sb_unwind_rows, &mid);
}

#if defined(__TARGET_ARCH_x86)
/* Whether the word w at addr may be a return site in m: a direct call
 * before it into m (and, under a frame record, after the entry of the
 * function the record's call names). */
static __always_inline int sb_bounded_site(struct sb_unwinder *u, __u64 w)
{
	__u64 target;

	if (w < u->sc.m.start + 5 || w >= u->sc.m.end ||
	    (u->sc.in && w < u->sc.in))
		return 0;
	target = sb_callee(w);
	return target >= u->sc.m.start && target < u->sc.m.end;
}

/* A return site, proved: from code a row covers into code none does;
 * sets sc.fp_row. */
static __always_inline int sb_bounded_proved(struct sb_unwinder *u, __u64 w)
{
	const struct sb_unwind_row *r;
	__u64 base = u->sc.m.offset - u->sc.m.start;

	r = sb_bounded_row(&u->sc.f, w - 1 + base);
	if (!r || (r->cfa != SB_CFA_SP && r->cfa != SB_CFA_FP))
		return 0;
	u->sc.fp_row = r->cfa == SB_CFA_FP;
	r = sb_bounded_row(&u->sc.f, sb_callee(w) + base);
	return !r || r->cfa == SB_CFA_NONE;
}

/* The caller of a frame in code without CFI (sb_scan's, bounded): 1 and
 * its cfa, ra, fp; 0 when none proves itself. */
static __always_inline int sb_bounded_scan(struct sb_unwinder *u,
					   const struct sb_unwind_map *m,
					   const struct sb_unwind_file *f,
					   __u64 *cfa, __u64 *ra, __u64 *fp)
{
	struct sb_bounded *c = sb_bounded_get();
	__u64 addr, w;
	__u32 k;

	if (!c)
		return 0;
	c->n = 0;
	c->words = SB_BOUNDED_SCAN;
	u->sc = (struct sb_scan_state){.sp = u->sp, .m = *m, .f = *f};
	if (u->fp > u->sp && u->fp - u->sp <= SB_BOUNDED_SCAN * 8 &&
	    !(u->fp & 7)) {
		u->sc.below = u->fp;
		u->sc.in = sb_callee(sb_bounded_uread(u->fp + 8));
		c->words = (u->fp - u->sp) / 8;
	}
#pragma unroll
	for (k = 0; k < SB_BOUNDED_SCAN; k++) {
		if (k >= c->words || c->n >= SB_BOUNDED_CANDS)
			break;
		addr = u->sc.sp + k * 8;
		w = sb_bounded_uread(addr);
		if (sb_bounded_site(u, w))
			c->slot[c->n++ & (SB_BOUNDED_CANDS - 1)] = addr;
	}
	/* the first proved, or under a record the least one */
#pragma unroll
	for (k = 0; k < SB_BOUNDED_CANDS; k++) {
		if (k >= c->n)
			break;
		addr = c->slot[k];
		w = sb_bounded_uread(addr);
		if ((u->sc.ra && w >= u->sc.ra) || !sb_bounded_proved(u, w))
			continue;
		u->sc.slot = addr;
		u->sc.ra = w;
		if (!u->sc.below)
			break;
	}
	if (!u->sc.ra)
		return 0;
	*cfa = u->sc.slot + 8;
	*ra = u->sc.ra;
	*fp = u->fp;
	if (!u->sc.fp_row || u->sc.below)
		return 1;
		/* the caller's frame record, above its return site (sb_record_step) */
#pragma unroll
	for (k = 0; k < SB_BOUNDED_RECORD; k++) {
		__u64 up;

		addr = u->sc.slot + 8 + k * 8;
		up = sb_bounded_uread(addr);
		w = sb_bounded_uread(addr + 8);
		if (up <= addr || up - addr > SB_STACK_SPAN || up & 7 ||
		    w < u->sc.m.start + 5 || w >= u->sc.m.end || !sb_callee(w))
			continue;
		*fp = addr;
		break;
	}
	return 1;
}
#else
static __always_inline int sb_bounded_scan(struct sb_unwinder *u,
					   const struct sb_unwind_map *m,
					   const struct sb_unwind_file *f,
					   __u64 *cfa, __u64 *ra, __u64 *fp)
{
	return 0; /* arm64 code keeps frame records: no scan */
}
#endif

/* The caller's cfa, ra and fp by the row r; 0 where it cannot be told. */
static __always_inline int sb_bounded_by_row(struct sb_unwinder *u,
					     const struct sb_unwind_row *r,
					     __u32 n, __u64 *cfa, __u64 *ra,
					     __u64 *fp)
{
	*cfa = (r->cfa == SB_CFA_SP ? u->sp : u->fp) + r->cfa_off;
	*fp = r->saved & SB_SAVED_FP ? sb_bounded_uread(*cfa + r->fp_off)
				     : u->fp;
#if defined(__TARGET_ARCH_x86)
	*ra = sb_bounded_uread(*cfa - 8);
#else
	if (r->saved & SB_SAVED_RA)
		*ra = sb_bounded_uread(*cfa + r->ra_off);
	else if (!n) /* a leaf that has not saved the link register */
		*ra = u->lr;
	else
		return 0;
#endif
	return 1;
}

/* ... by a frame record, if fp looks like one */
static __always_inline int
sb_bounded_by_record(struct sb_unwinder *u, __u64 *cfa, __u64 *ra, __u64 *fp)
{
	if (u->fp < u->sp || u->fp - u->sp > SB_STACK_SPAN || u->fp & 7)
		return 0;
	*fp = sb_bounded_uread(u->fp);
	*ra = sb_bounded_uread(u->fp + 8);
#if defined(__TARGET_ARCH_arm64)
	*cfa = u->fp + sb_record_frame(*ra);
#else
	*cfa = u->fp + 16;
#endif
	return 1;
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

/* One frame by the tables (sb_unwind_step's, bounded): record pc, move
 * to the caller; 0 at the end of the stack. */
static __always_inline int sb_bounded_step(struct sb_unwinder *u,
					   struct sb_stack *st, int scan)
{
	const struct sb_unwind_file *f = NULL;
	const struct sb_unwind_map *m = NULL;
	const struct sb_unwind_row *r = NULL;
	struct sb_unwind_proc *p;
	__u64 cfa, ra, fp, at;
	__u64 n = u->n; /* 64 bits: 5.10 bounds a u32 index too loosely */

	if (n >= SB_MAX_DEPTH || !u->pc)
		return 0;
	at = n ? u->pc - 1 : u->pc;
	p = bpf_map_lookup_elem(&sb_unwind_procs, &u->tgid);
	if (p) {
		m = sb_bounded_map(p, u->tgid, at);
		if (!m && n)
			return 0;
	}
	sb_bounded_put(st, n, u->pc);
	u->n = n + 1;
	if (m)
		f = bpf_map_lookup_elem(&sb_unwind_files, &m->file);
	if (f && f->count)
		r = sb_bounded_row(f, at - m->start + m->offset);
	if (r && r->cfa == SB_CFA_END)
		return 0;
	if (r && (r->cfa == SB_CFA_SP || r->cfa == SB_CFA_FP)) {
		if (!sb_bounded_by_row(u, r, n, &cfa, &ra, &fp))
			return 0;
	} else if (!(scan && u->scan && f && f->count && m &&
		     sb_bounded_scan(u, m, f, &cfa, &ra, &fp)) &&
		   !sb_bounded_by_record(u, &cfa, &ra, &fp)) {
		return 0;
	}
#if defined(__TARGET_ARCH_arm64)
	ra &= 0x0000ffffffffffffULL; /* a pointer authentication code */
#endif
	if (cfa < u->sp || (cfa == u->sp && n) || !ra)
		return 0;
	u->pc = ra;
	u->sp = cfa;
	u->fp = fp;
	u->scan = !f;
	return 1;
}

/* A leaf in code of no table (the vDSO) is left by its frame record, so
 * that the scan, checked once, serves its caller. */
static __always_inline void sb_bounded_hop(struct sb_unwinder *u,
					   struct sb_stack *st)
{
	const struct sb_unwind_file *f = NULL;
	const struct sb_unwind_map *m;
	struct sb_unwind_proc *p;
	__u64 cfa, ra, fp;

	p = bpf_map_lookup_elem(&sb_unwind_procs, &u->tgid);
	if (!p || u->n)
		return;
	m = sb_bounded_map(p, u->tgid, u->pc);
	if (m)
		f = bpf_map_lookup_elem(&sb_unwind_files, &m->file);
	if ((f && f->count) || !sb_bounded_by_record(u, &cfa, &ra, &fp) ||
	    cfa <= u->sp || !ra)
		return;
	st->ip[0] = u->pc;
	u->n = 1;
	u->pc = ra;
	u->sp = cfa;
	u->fp = fp;
}

/* The user stack of the current task into the stack buffer; its length
 * in bytes. A global function: one copy in the object, checked once per
 * program (inlined, each of memstack's programs had its own, and the
 * binary grew tenfold). */
__noinline long sb_unwind_bounded(void)
{
	__u64 regs = sb_user_regs(), frame[2];
	struct sb_stack *st = sb_stack_buf();
	struct sb_unwinder *u;
	__u32 zero = 0, k;
	__u64 n; /* 64 bits: 5.10 bounds a u32 index too loosely */

	u = bpf_map_lookup_elem(&sb_unwind_state, &zero);
	if (!regs || !u || !st)
		return 0;
	u->tgid = bpf_get_current_pid_tgid() >> 32;
	u->n = 0;
	u->scan = 1;
	u->pc = sb_kread(regs + SB_REG_PC);
	u->sp = sb_kread(regs + SB_REG_SP);
	u->fp = sb_kread(regs + SB_REG_FP);
#if defined(__TARGET_ARCH_arm64)
	u->lr = sb_kread(regs + SB_REG_LR);
	if (sb_at_entry(u->pc, u->lr)) {
		st->ip[0] = u->pc;
		u->n = 1;
		u->pc = u->lr & 0x0000ffffffffffffULL;
	}
#endif
	sb_bounded_hop(u, st);
	if (sb_bounded_step(u, st, 1) && sb_bounded_step(u, st, 0))
		for (k = 2; k < SB_BOUNDED_FRAMES; k++)
			if (!sb_bounded_step(u, st, 0))
				goto end;
	/* deeper: the frame reached, then by frame records, each above the
	 * last (as sb_user_stack_fp) */
	frame[1] = u->pc;
#pragma unroll
	for (k = SB_BOUNDED_FRAMES; k < SB_MAX_DEPTH; k++) {
		n = u->n;
		if (n >= SB_MAX_DEPTH || !frame[1])
			break;
		sb_bounded_put(st, n, frame[1]);
		u->n = n + 1;
		if (u->fp < u->sp || u->fp & 7 ||
		    bpf_probe_read_user(frame, sizeof(frame), (void *)u->fp))
			break;
		u->sp = u->fp + sizeof(frame);
		u->fp = frame[0];
	}
end:
	n = u->n;
	sb_bounded_put(st, n, 0); /* readers stop at the first zero */
	return n * sizeof(__u64);
}

#endif
