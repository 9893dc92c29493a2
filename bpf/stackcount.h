/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackcount: shared by stackcount.bpf.c and user space (applets/
 * stackcount.c, common/stackcount_*.c). Each event the command line
 * names has a slot: its kind, its filter compiled to a fixed list of
 * comparisons on its tracepoint record, and the field --value sums.
 */
#ifndef STACKBOX_STACKCOUNT_H
#define STACKBOX_STACKCOUNT_H

#include <linux/types.h>

#include "sb.h"

#define SC_MAX_EVENTS 8	  /* one program of each kind per slot */
#define SC_MAX_INSNS  16  /* comparisons and operators of one filter */
#define SC_STR_LEN    16  /* a string compared with a char[] field */
#define SC_REC_MAX    512 /* bytes of a tracepoint record read */
/* A probe's fields (k:, u:): arg0..arg5 at 8 * i, ret after them. */
#define SC_ARGS_RET  48
#define SC_ARGS_SIZE 56
/* Where the filter finds the current task's comm, after the record:
 * "comm" where the record has no field of that name. */
#define SC_COMM_OFF SC_REC_MAX

/* The metrics, in the order of a row's values. */
enum sc_metric { SC_HITS, SC_VALUE, SC_NMETRICS };

/* How a slot's program finds the user's registers. */
enum sc_kind {
	SC_KIND_RECORD, /* a tracepoint (raw or classic): no user registers */
	SC_KIND_KPROBE, /* kernel registers: the user stack by the kernel */
	SC_KIND_UPROBE, /* the user's registers (uprobes, USDT) */
};

/* A filter is in postfix order: a comparison pushes true or false, an
 * operator pops one (NOT) or two (AND, OR) and pushes its result. */
enum sc_op {
	SC_OP_CMP,    /* field (off, size, sign) cmp val */
	SC_OP_STR_EQ, /* char[] field (off, size) == str: true when equal */
	SC_OP_AND,
	SC_OP_OR,
	SC_OP_NOT,
};

enum sc_cmp { SC_EQ, SC_NE, SC_LT, SC_LE, SC_GT, SC_GE };

struct sc_insn {
	__u8 op;   /* enum sc_op */
	__u8 cmp;  /* enum sc_cmp */
	__u8 size; /* the field's bytes: 1, 2, 4, 8; SC_OP_STR_EQ: up to 16 */
	__u8 sign; /* the field is signed */
	__u16 off; /* its offset in the record */
	__u16 pad;
	__s64 val;
	char str[SC_STR_LEN];
};

struct sc_slot {
	__u8 kind;	 /* enum sc_kind */
	__u8 ninsns;	 /* 0: no filter */
	__u8 value_size; /* 0: --value not given: values stay 0 */
	__u8 value_sign;
	__u16 value_off;
	__u16 rec_size; /* bytes to read of the record: the last field's end */
	struct sc_insn insns[SC_MAX_INSNS];
};

#endif
