// SPDX-License-Identifier: GPL-2.0
/* The common CLI of every collector applet: collect_options, its help. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "output.h"
#include "trigger.h"

static const struct opt_formats collect_formats = {
	1 << FORMAT_TEXT | 1 << FORMAT_FOLDED | 1 << FORMAT_BIN,
	"unknown format (text, folded, bin)"};

/* SIZE[,COUNT]: 10M, 512k, 100000; COUNT old files kept (default 2).
 * Unused in a build without the file sink. */
static __attribute__((unused)) const char *
opt_rotate(const struct opt *o, const char *arg, void *dst)
{
	typeof(((struct output_opts *)0)->rotate) *r = dst;
	char *end;
	double v = parse_size(arg, &end);
	long count = 2;

	if (*end == ',') {
		count = strtol(end + 1, &end, 10);
		if (count < 1 || count > 1000)
			return "COUNT is 1 to 1000";
	}
	if (*end || v < 1024 || v > 1e15)
		return "not SIZE[,COUNT] (1M, 512k,4; at least 1k)";
	r->size = v;
	r->count = count;
	return NULL;
}

static const char *opt_status(const struct opt *o, const char *arg, void *dst)
{
	if (strcmp(arg, "kmsg") && strcmp(arg, "syslog"))
		return "not a status sink (kmsg, syslog)";
	*(const char **)dst = arg;
	return NULL;
}

static const char *opt_unwind(const struct opt *o, const char *arg, void *dst)
{
	if (!strcmp(arg, "auto")) /* without the walk: frame pointers */
		*(int *)dst =
			ENABLE_UNWIND_EH_FRAME ? SB_UNWIND_AUTO : SB_UNWIND_FP;
	else if (!strcmp(arg, "fp"))
		*(int *)dst = SB_UNWIND_FP;
	else if (!strcmp(arg, "eh_frame"))
		*(int *)dst = SB_UNWIND_EH_FRAME;
	else
		return "unknown unwinder (auto, fp, eh_frame)";
	if (*(int *)dst == SB_UNWIND_EH_FRAME && !ENABLE_UNWIND_EH_FRAME)
		return "not in this build (CONFIG_UNWIND_EH_FRAME)";
	return NULL;
}

/* -T SPEC, repeatable: the specs in a list; their sources parse the
 * rest when they open, before BPF is loaded. */
static const char *opt_trigger(const struct opt *o, const char *arg, void *dst)
{
	typeof(((struct collect_opts *)0)->triggers) *t = dst;
	size_t cap = t->n;
	const char *err = trigger_spec_check(arg);

	if (err)
		return err;
	t->spec = grow_array(t->spec, &cap, t->n + 1, sizeof(*t->spec));
	t->spec[t->n++] = arg;
	return NULL;
}

/* --record-bytes N: 64k, 4M; at least 4k, so one snapshot fits */
static const char *opt_bytes(const struct opt *o, const char *arg, void *dst)
{
	char *end;
	double v = parse_size(arg, &end);

	if (*end || end == arg || v < 4096 || v > 1e12)
		return "not a size of at least 4k (64k, 4M)";
	*(long long *)dst = v;
	return NULL;
}

/* -i: 0 (one snapshot at the end) or at least 10 ms: every snapshot
 * drains and resolves the maps, and a typo such as -i 1us would spend a
 * CPU on it */
static const char *opt_interval(const struct opt *o, const char *arg, void *dst)
{
	const char *err = opt_duration(o, arg, dst);

	if (!err && *(uint64_t *)dst && *(uint64_t *)dst < 10 * NS_PER_MS)
		return "must be 0 (one snapshot at the end) or at least 10ms";
	return err;
}

/* What "@COMMON" in an applet's usage text expands to. */
/* clang-format off */
static const char collect_usage[] =
	"  -p PID[,PID...]  only these processes (all their threads)\n"
	"  -c CGROUP        only this cgroup v2 (path, absolute or below its "
	"mount)\n"
	"  -d DURATION      stop after DURATION (10, 10s, 500ms, 2m); "
	"default: at a signal\n"
	"  -i INTERVAL      a snapshot every INTERVAL (default 5s, at least "
	"10ms); 0: one\n"
	"                   at the end\n"
	"  -U, -K           user stacks only, kernel stacks only\n"
	"  -f FORMAT        "
	IF_FORMAT_TEXT("text (default)") IF_FORMAT_FOLDED(", folded: "
	"comm;user frames;-;kernel frames COUNT") IF_FORMAT_BIN(",\n"
	"                   bin: framed stream for files and serial lines "
	"(stackbox report)") "\n"
	IF_SINK_FILE("  -o FILE          write to FILE, not standard output; a "
	"terminal (serial\n"
	"                   port) is switched to raw mode\n"
	"  --rotate SIZE[,COUNT]  start FILE again past SIZE bytes (10M, "
	"512k), keeping\n"
	"                   COUNT older ones as FILE.1... (default 2)\n"
	"  --baud N         the serial port's speed (115200)\n")
	"  --status kmsg|syslog  one-line records: start, attach path, "
	"drops, sink failures\n"
	"  --top N          text: only the N biggest stacks\n"
	"  --stacks N       keep N new stacks per interval (8192); more are "
	"counted as lost\n"
	"  --rows N         count N rows per interval (10240); more are "
	"counted as dropped\n"
	"  --unwind HOW     user stacks by auto (default): per process, "
	".eh_frame tables\n"
	"                   where a file has code without frame pointers "
	"(5.17+), else\n"
	"                   fp: frame pointers; or always fp, or always "
	"eh_frame\n"
	"  --unwind-rows N  auto, eh_frame: table rows for all files "
	"(262144, 12 bytes\n"
	"                   each)\n"
	"                   --stacks, --rows, --unwind-rows and --record-bytes "
	"together\n"
	"                   take at most 1/8 of RAM, 256 MiB at most (check "
	"shows it)\n"
	"  --btf FILE       kernel types from FILE (vmlinux, or raw BTF such as "
	"make btf-min's),\n"
	"                   for kernels without /sys/kernel/btf/vmlinux\n"
	"  -v               say which attach path was chosen, what fell back, "
	"what was dropped\n"
	"  -T SPEC          write only while a trigger is active (any of "
	"them): cpu, memory,\n"
	"                   io[:some|full]:STALL/WINDOW (PSI), load:N "
	"(runnable > N),\n"
	"                   dstate:N (blocked on I/O > N), signal (SIGUSR1), "
	"file:PATH,\n"
	"                   anomaly (a stack breaks from its history; -R "
	"only)\n"
	"  --hold DURATION  write on this long after the triggers clear "
	"(10s)\n"
	"  -R WINDOW        flight recorder: keep the last WINDOW in memory, "
	"write it when\n"
	"                   a trigger fires (needs -T)\n"
	"  --record-bytes N  the recorder's memory bound (1M; 64k, 4M)\n"
	"  -- CMD [ARG]...  start CMD once attached, profile only it, stop "
	"when it exits\n"
	"                   and exit with its status\n";
/* clang-format on */

/* IF_X() entries stand on lines of their own: keep clang-format out. */
/* clang-format off */
#define C struct collect_opts
const struct opt collect_options[] = {
	OPT_CUSTOM('p', "pid", "PID[,PID...]", opt_pids, C, pids, NULL,
		   .flags = OPT_SHOWN),
	OPT_STRING('c', "cgroup", "CGROUP", C, cgroup, NULL,
		   .flags = OPT_SHOWN),
	OPT_DURATION('d', "duration", "DURATION", C, duration, 1, 1LL << 62,
		     NULL),
	OPT_CUSTOM('i', "interval", "INTERVAL", opt_interval, C, interval,
		   "5s"),
	OPT_FLAG_X('U', "user", C, user_only, "K"),
	OPT_FLAG_X('K', "kernel", C, kernel_only, "U"),
	OPT_TABLE('f', "format", "FORMAT", opt_format, C, out.format,
		  collect_formats, ENABLE_FORMAT_TEXT ? "text" : "folded"),
	IF_SINK_FILE(OPT_STRING('o', "output", "FILE", C, out.output, NULL),)
	IF_SINK_FILE(OPT_CUSTOM(0, "rotate", "SIZE[,COUNT]", opt_rotate, C,
				out.rotate, NULL),)
	IF_SINK_FILE(OPT_INT(0, "baud", "N", C, out.baud, 50, 4000000, NULL),)
	OPT_CUSTOM(0, "status", "kmsg|syslog", opt_status, C, status, NULL),
	OPT_INT(0, "top", "N", C, out.top, 1, 1LL << 40, NULL),
	OPT_INT(0, "stacks", "N", C, stacks, 1, 1 << 24, "8192"),
	OPT_INT(0, "rows", "N", C, rows, 1, 1 << 24, "10240"),
	OPT_CUSTOM(0, "unwind", "HOW", opt_unwind, C, unwind, "auto"),
	OPT_INT(0, "unwind-rows", "N", C, unwind_rows, 1024, 1 << 24, "262144"),
	OPT_STRING(0, "btf", "FILE", C, btf, NULL),
	OPT_FLAG('v', "verbose", C, verbose),
	OPT_CUSTOM('T', "trigger", "SPEC", opt_trigger, C, triggers, NULL),
	OPT_DURATION(0, "hold", "DURATION", C, hold, 0, 1LL << 62, "10s"),
	OPT_DURATION('R', "record", "WINDOW", C, record, 1, 1LL << 62, NULL),
	OPT_CUSTOM(0, "record-bytes", "N", opt_bytes, C, record_bytes, "1M"),
	OPT_END_HELP(collect_usage),
};
#undef C

/* clang-format on */
