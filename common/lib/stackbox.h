/* SPDX-License-Identifier: GPL-2.0 */
/* What every part of stackbox shares: errors, allocation, options, applets. */
#ifndef STACKBOX_H
#define STACKBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "autoconf.h" /* generated from .config: ENABLE_X, IF_X() */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NS_PER_SEC    1000000000ULL
#define NS_PER_MS     1000000ULL

/* ---- errors: every message starts with the applet's name ---- */
extern const char *applet_name;
extern int verbose_level;
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void perror_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void error_exit(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
_Noreturn void perror_exit(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* A usage error: the message, then a pointer to --help; exit 2. */
_Noreturn void help_exit(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* -v: what was chosen, what fell back, what was dropped. */
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- allocation and I/O that die with a message instead of failing ---- */
void *xmalloc(size_t size);
void *xzalloc(size_t size);
/* p, or exit with "out of memory" when it is NULL */
void *check_alloc(void *p);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Read a whole (small, /proc-like) file; NULL with errno on failure. */
char *read_file(const char *path, size_t *len);
/* Grow *arr (of *cap elements of size elem) to hold at least n. */
void *grow_array(void *arr, size_t *cap, size_t n, size_t elem);
/* Big blocks in mappings of their own (once, at start). */
void tune_malloc(void);
/* Give the pages free() kept back to the kernel (after a snapshot). */
void release_free_memory(void);
/* CLOCK_MONOTONIC in ns: BPF's clock (bpf_ktime_get_ns). */
uint64_t now_ns(void);
/* CLOCK_BOOTTIME in ns: also counts suspend; neither jumps. */
uint64_t boot_ns(void);

/* ---- option parsing: one table per applet is the only declaration ---- */
struct opt;
/* Parse arg into dst; return NULL or a message naming what is wrong. */
typedef const char *(*opt_parse_fn)(const struct opt *o, const char *arg,
				    void *dst);
struct opt {
	char short_name;	   /* 0: long only */
	const char *long_name;	   /* NULL: short only */
	const char *arg_name;	   /* NULL: a flag, no argument */
	opt_parse_fn parse;	   /* NULL with OPT_INCLUDE */
	size_t offset;		   /* where in the applet's args struct */
	long long min, max;	   /* range for numbers and durations */
	const char *dflt;	   /* parsed before the command line */
	const char *conflicts;	   /* short names this one excludes */
	const struct opt *include; /* a nested table at offset */
	const void *data;	   /* the parser's table (OPT_NAME) */
	unsigned flags;		   /* OPT_UNIT, OPT_SHOWN */
	/* On a table's end: its options' help, which "@COMMON" in the usage
	 * text of a table that includes it expands to. */
	const char *help;
};

/* A duration that refuses a bare number: where tools of the same
 * purpose read one in another unit (offcputime's -m is microseconds),
 * "1000" would be a guess. */
#define OPT_UNIT (1u << 0)
/* A filter: the command line's value goes into each snapshot's header
 * (opts_shown()), so a profile says what it left out. */
#define OPT_SHOWN (1u << 1)

const char *opt_flag(const struct opt *, const char *, void *);
const char *opt_int(const struct opt *, const char *, void *); /* long long */
const char *opt_duration(const struct opt *, const char *, void *); /* u64 ns */
const char *opt_string(const struct opt *, const char *, void *);   /* char * */

/* ---- parsers the collectors and report share ---- */
/* Names of a table, NULL entries no name; err is what any other gets. */
struct opt_names {
	const char *const *name;
	unsigned n;
	const char *err;
};
/* The index of a name in a table, or -1. */
int name_index(const struct opt_names *t, const char *s);
const char *opt_name(const struct opt *, const char *, void *); /* int */
/* "a,b,c": 1 << index of each name; none empty or unknown. */
const char *opt_name_list(const struct opt *, const char *, void *); /* int */
/* PID[,PID...], added to a list. */
struct pid_list {
	pid_t *pid;
	size_t n;
};
const char *opt_pids(const struct opt *, const char *, void *);
/* -f: the output formats; opt's data is a struct opt_formats. */
enum output_format {
	FORMAT_TEXT,
	FORMAT_FOLDED,
	FORMAT_BIN,
	FORMAT_PPROF,
	FORMAT_SVG,
	FORMAT_JSON,
	FORMAT_HTML,
};
struct opt_formats {
	unsigned mask; /* 1 << each format the command writes */
	const char *err;
};
const char *opt_format(const struct opt *, const char *, void *); /* int */
/* "4096", "64k", "1.5M", "2G" (1024-based): bytes; *end after the
 * suffix, as strtod sets it. */
double parse_size(const char *s, char **end);

/* clang-format off */
/* The last argument, optional, sets more fields: .flags = OPT_SHOWN. */
#define OPT_(s, l, arg, fn, type, field)                                       \
	.short_name = s, .long_name = l, .arg_name = arg, .parse = fn,         \
	.offset = offsetof(type, field)
#define OPT_FLAG(s, l, type, field, ...)                                       \
	{ OPT_(s, l, NULL, opt_flag, type, field), __VA_ARGS__ }
#define OPT_FLAG_X(s, l, type, field, excl)                                    \
	{ OPT_(s, l, NULL, opt_flag, type, field), .conflicts = excl }
#define OPT_INT(s, l, arg, type, field, lo, hi, def)                           \
	{ OPT_(s, l, arg, opt_int, type, field), .min = lo, .max = hi,         \
	  .dflt = def }
#define OPT_DURATION(s, l, arg, type, field, lo, hi, def, ...)                 \
	{ OPT_(s, l, arg, opt_duration, type, field), .min = lo, .max = hi,    \
	  .dflt = def, __VA_ARGS__ }
#define OPT_STRING(s, l, arg, type, field, def, ...)                           \
	{ OPT_(s, l, arg, opt_string, type, field), .dflt = def, __VA_ARGS__ }
#define OPT_CUSTOM(s, l, arg, fn, type, field, def, ...)                       \
	{ OPT_(s, l, arg, fn, type, field), .dflt = def, __VA_ARGS__ }
#define OPT_TABLE(s, l, arg, fn, type, field, tbl, def, ...)                  \
	{ OPT_(s, l, arg, fn, type, field), .data = &(tbl), .dflt = def,       \
	  __VA_ARGS__ }
#define OPT_INCLUDE(tbl, type, field)                                          \
	{ .offset = offsetof(type, field), .include = tbl }
#define OPT_END                                                                \
	{ 0 }
#define OPT_END_HELP(text)                                                     \
	{ .help = text }
/* clang-format on */

/*
 * Fill args from defaults and argv. Stops at "--" or the first operand;
 * returns the index of the first unparsed argument. Errors go through
 * help_exit(). "--help" prints usage and exits 0.
 */
int opts_parse(const struct opt *tbl, void *args, int argc, char **argv,
	       const char *usage);
/* The OPT_SHOWN options the last opts_parse() took, as given on the
 * command line ("-p 42 -m 1ms --state S,D"); "" when none. */
const char *opts_shown(void);
/* Parse "10", "10s", "500ms", "1.5m", "2h" into ns; NULL or an error. */
const char *parse_duration(const char *s, uint64_t *ns);
/* ns as parse_duration reads it back, in the largest unit it fills:
 * "10ms", "1.5s", "250us"; buf of 32 bytes is enough. Returns buf. */
char *format_duration(char *buf, size_t len, uint64_t ns);

#endif
