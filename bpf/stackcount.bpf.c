// SPDX-License-Identifier: GPL-2.0
/*
 * stackcount: count the stacks at any event: a tracepoint (raw or
 * classic), a kprobe, a uprobe or a USDT probe. Each event has a slot
 * and a program of each kind for it; user space loads the one it
 * attaches. The slot number is the row's aux, so rows are per event.
 */
#define SB_NVALUES 2
#include "collect.bpf.h"
#include "stackcount.h"

#include <stdbool.h>

const volatile struct sc_slot sc_slots[SC_MAX_EVENTS] = {};

/* A tracepoint's record, copied once per event to be read at offsets
 * the verifier need not know, then the task's comm (SC_COMM_OFF), and
 * slack for an 8-byte read at the last offset. */
#define SC_BUF_MASK (2 * SC_REC_MAX - 1)
struct sc_record {
	__u8 b[2 * SC_REC_MAX + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_record);
} sc_record SEC(".maps");

/* The field of size bytes at off, sign-extended where it is signed. */
static __always_inline __s64 sc_field(const struct sc_record *r, __u32 off,
				      __u32 size, __u32 sign)
{
	__u64 v = 0;

	off &= SC_BUF_MASK;
	__builtin_memcpy(&v, &r->b[off], 8); /* little and big: masked below */
	if (size >= 8)
		return v;
	v &= (1ULL << (size * 8)) - 1;
	if (sign && (v >> (size * 8 - 1)))
		v |= ~0ULL << (size * 8);
	return v;
}

static __always_inline bool sc_compare(__s64 a, __s64 b, __u32 cmp, bool sign)
{
	if (cmp == SC_EQ)
		return a == b;
	if (cmp == SC_NE)
		return a != b;
	if (!sign) {
		if (cmp == SC_LT)
			return (__u64)a < (__u64)b;
		if (cmp == SC_LE)
			return (__u64)a <= (__u64)b;
		if (cmp == SC_GT)
			return (__u64)a > (__u64)b;
		return (__u64)a >= (__u64)b;
	}
	if (cmp == SC_LT)
		return a < b;
	if (cmp == SC_LE)
		return a <= b;
	if (cmp == SC_GT)
		return a > b;
	return a >= b;
}

/* A char[] field equals the string: the string's bytes, then a NUL or
 * the field's end. */
static __always_inline bool sc_str_eq(const struct sc_record *r,
				      const volatile struct sc_insn *in)
{
	__u32 off = in->off, size = in->size;
	int i;

	for (i = 0; i < SC_STR_LEN; i++) {
		char c = r->b[(off + i) & SC_BUF_MASK];

		if (i >= size)
			return true; /* the whole field matched */
		if (c != in->str[i])
			return false;
		if (!c)
			return true;
	}
	return true;
}

/* Run slot's filter on the record: a stack of truth values, one bit
 * each, top in bit 0. */
static __always_inline bool sc_filter(const struct sc_record *r, __u32 slot)
{
	const volatile struct sc_slot *s = &sc_slots[slot];
	__u64 st = 0, a;
	int i;

	for (i = 0; i < SC_MAX_INSNS; i++) {
		const volatile struct sc_insn *in = &s->insns[i];

		if (i >= s->ninsns)
			break;
		switch (in->op) {
		case SC_OP_CMP:
			st = st << 1 | sc_compare(sc_field(r, in->off, in->size,
							   in->sign),
						  in->val, in->cmp, in->sign);
			break;
		case SC_OP_STR_EQ:
			st = st << 1 | sc_str_eq(r, in);
			break;
		case SC_OP_NOT:
			st ^= 1;
			break;
		default: /* AND, OR: the top two */
			a = st & 1;
			st >>= 1;
			a = in->op == SC_OP_AND ? a & st : a | st;
			st = (st & ~1ULL) | (a & 1);
		}
	}
	return st & 1;
}

/* Where a program's context comes from, for its filter's fields. */
enum sc_src {
	SC_SRC_RECORD, /* a classic tracepoint's record */
	SC_SRC_REGS,   /* registers: arguments and return value (k:, u:) */
	SC_SRC_NONE,   /* raw_tp, fentry, fexit: no fields */
};

/* The registers of the first six arguments that collect.bpf.h does not
 * name, by each architecture's pt_regs. */
#if defined(__TARGET_ARCH_x86)
#define SC_REG_ARG3 (11 * 8) /* cx */
#define SC_REG_ARG4 (9 * 8)  /* r8 */
#define SC_REG_ARG5 (8 * 8)  /* r9 */
#else
#define SC_REG_ARG3 (3 * 8) /* x3 */
#define SC_REG_ARG4 (4 * 8)
#define SC_REG_ARG5 (5 * 8)
#endif

/* A probe's fields, as user space lays them out: arg0..arg5, then ret
 * (SC_ARGS_SIZE bytes). */
static __always_inline void sc_regs_record(void *ctx, struct sc_record *r)
{
	__u64 w[7] = {
		SB_REG(ctx, SB_REG_ARG0), SB_REG(ctx, SB_REG_ARG1),
		SB_REG(ctx, SB_REG_ARG2), SB_REG(ctx, SC_REG_ARG3),
		SB_REG(ctx, SC_REG_ARG4), SB_REG(ctx, SC_REG_ARG5),
		SB_REG(ctx, SB_REG_RET),
	};

	__builtin_memcpy(r->b, w, sizeof(w));
}

/* The record's filter and value: false when the filter leaves it out. */
static __always_inline bool sc_record_ok(void *ctx, __u32 slot, int src,
					 __u64 *value)
{
	const volatile struct sc_slot *s = &sc_slots[slot];
	__u32 zero = 0, len = s->rec_size;
	struct sc_record *r;

	if (src == SC_SRC_NONE || (!s->ninsns && !s->value_size))
		return true;
	r = bpf_map_lookup_elem(&sc_record, &zero);
	if (!r)
		return false;
	if (len > SC_REC_MAX)
		len = SC_REC_MAX;
	if (len < 8)
		len = 8;
	if (src == SC_SRC_REGS)
		sc_regs_record(ctx, r);
	else if (bpf_probe_read_kernel(r->b, len, ctx))
		return false;
	if (s->ninsns)
		bpf_get_current_comm(&r->b[SC_COMM_OFF], SB_COMM_LEN);
	if (s->ninsns && !sc_filter(r, slot))
		return false;
	if (s->value_size) {
		__s64 v =
			sc_field(r, s->value_off, s->value_size, s->value_sign);

		*value = v < 0 ? 0 : v;
	}
	return true;
}

/* One copy for the 40 programs (not inlined in each: the object was
 * 880 KB). A static function, so the verifier checks it with each
 * caller's constants: a tracepoint program never reaches the reads of
 * registers past its record (which would make attaching it fail). */
static __noinline int sc_hit(void *ctx, __u32 slot, int src)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sb_values d = {{1, 0}};
	struct sb_key key = {};

	if (!sb_wanted(id >> 32))
		return 0;
	if (!sc_record_ok(ctx, slot, src, &d.v[SC_VALUE]))
		return 0;
	if (src == SC_SRC_REGS && sc_slots[slot].kind == SC_KIND_UPROBE)
		sb_key_init_uregs(ctx, &key, id, SB_REG(ctx, SB_REG_PC),
				  SB_REG(ctx, SB_REG_SP),
				  SB_REG(ctx, SB_REG_FP));
	else
		sb_key_init(ctx, &key, id);
	key.aux = slot;
	sb_count(&key, &d);
	return 0;
}

/* A classic tracepoint's context is its record; a raw one's the
 * arguments (no fields: no filter); a kprobe's or uprobe's the
 * registers; fentry's and fexit's the function's arguments. The kernel
 * functions' programs get their target at load (k:, kr:). */
#define SC_SLOT(n)                                    \
	SEC("tracepoint")                             \
	int sc_tp##n(void *ctx)                       \
	{                                             \
		return sc_hit(ctx, n, SC_SRC_RECORD); \
	}                                             \
	SEC("raw_tp")                                 \
	int sc_raw##n(void *ctx)                      \
	{                                             \
		return sc_hit(ctx, n, SC_SRC_NONE);   \
	}                                             \
	SEC("kprobe")                                 \
	int sc_probe##n(void *ctx)                    \
	{                                             \
		return sc_hit(ctx, n, SC_SRC_REGS);   \
	}                                             \
	SEC("fentry")                                 \
	int sc_fentry##n(void *ctx)                   \
	{                                             \
		return sc_hit(ctx, n, SC_SRC_NONE);   \
	}                                             \
	SEC("fexit")                                  \
	int sc_fexit##n(void *ctx)                    \
	{                                             \
		return sc_hit(ctx, n, SC_SRC_NONE);   \
	}

SC_SLOT(0)
SC_SLOT(1)
SC_SLOT(2)
SC_SLOT(3)
SC_SLOT(4)
SC_SLOT(5)
SC_SLOT(6)
SC_SLOT(7)
