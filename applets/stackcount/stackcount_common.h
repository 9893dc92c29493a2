/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackcount's user side beyond its applet file: the events a command
 * line names (stackcount_events.c), tracepoint record layouts and the
 * --filter / --value compiler (stackcount_filter.c), USDT notes
 * (stackcount_usdt.c). Each refuses bad input with one line through
 * error_exit(), naming the event, field or expression.
 */
#ifndef STACKBOX_STACKCOUNT_COMMON_H
#define STACKBOX_STACKCOUNT_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "stackcount.h" /* bpf/: struct sc_slot */

enum sc_event_type {
	SC_EV_TRACEPOINT, /* t:CATEGORY:NAME, CATEGORY:NAME */
	SC_EV_KPROBE,	  /* k:FUNCTION */
	SC_EV_KRETPROBE,  /* kr:FUNCTION */
	SC_EV_UPROBE,	  /* u:FILE:FUNCTION */
	SC_EV_URETPROBE,  /* ur:FILE:FUNCTION */
	SC_EV_USDT,	  /* U:FILE:PROVIDER:NAME */
};

struct sc_event {
	enum sc_event_type type;
	const char *spec; /* as the command line gave it */
	/* tracepoint: category, name; k/kr: -, function; u/ur: file,
	 * function; USDT: file, name, and provider in c */
	char *a, *b, *c;
};

/* Parse one EVENT operand; exits with one line naming it when it is
 * not one. */
void sc_event_parse(const char *spec, struct sc_event *ev);

/* A tracepoint record's field, from its format file. */
struct tp_field {
	char name[64];
	unsigned off, size;
	bool sign;
	bool chars;    /* char NAME[N]: compared as a string */
	bool data_loc; /* __data_loc: elsewhere in the record */
};
struct tp_format {
	struct tp_field *fields;
	unsigned n;
	unsigned size; /* where the last field ends */
};
/* Read category:name's format file; exits naming it when it cannot. */
void tp_format_read(const char *category, const char *name,
		    struct tp_format *fmt);
/* A probe's fields (k:, u: arg0..arg5; kr:, ur: ret, signed), as the
 * BPF program lays out the registers. */
void tp_format_args(bool ret, struct tp_format *fmt);
/* The same from a format file's text (cut in place). */
void tp_format_parse(char *text, struct tp_format *fmt);
void tp_format_free(struct tp_format *fmt);

/* Compile expr against fmt into slot's instructions ("count > 100 &&
 * comm == \"x\""); exits with one line naming what is wrong: an unknown
 * field (with those there are), a bad token, too many comparisons. */
void sc_filter_compile(const char *expr, const char *event,
		       const struct tp_format *fmt, struct sc_slot *slot);
/* --value FIELD: a numeric field of fmt into slot; exits when it has
 * none of that name or it is not a number. */
void sc_value_field(const char *field, const char *event,
		    const struct tp_format *fmt, struct sc_slot *slot);

/* A USDT probe of a file (sys/sdt.h's .note.stapsdt); its strings
 * live only during the call that gives it. */
struct usdt_probe {
	const char *provider, *name, *args;
	uint64_t off;	   /* file offset of the probe */
	uint64_t sema_off; /* file offset of its semaphore; 0: none */
};
typedef void (*usdt_fn)(const struct usdt_probe *p, void *arg);
/* fn for each USDT probe in the file at path: how many, or -1 with
 * errno when it cannot be read as ELF. */
int usdt_each(const char *path, usdt_fn fn, void *arg);

#endif
