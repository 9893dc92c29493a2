// SPDX-License-Identifier: GPL-2.0
/* report: bin streams in, text, folded, pprof or an SVG flame graph out.
 *
//config:config REPORT
//config:	bool "report: turn bin streams into text, folded, pprof, SVG, HTML"
//config:	default y
//config:	help
//config:	  Reads what a collector wrote with -f bin (files, stdin,
//config:	  a serial capture), resyncs after corruption, resolves the
//config:	  raw addresses (on this machine, or offline with --symfs and
//config:	  --debug-dir) and writes text or folded exactly as the
//config:	  collector would have, or pprof, or an SVG flame graph, or
//config:	  one HTML page of the recording in time. perf script output
//config:	  and folded stacks are inputs too.
//usage:usage: report [-f FORMAT] [-o FILE] [OPTIONS] [FILE]...
//usage:
//usage:Read bin streams (stackbox APPLET -f bin) from FILEs or standard
//usage:input ("-"), one after the other, and write their snapshots. A
//usage:damaged or cut stream loses the snapshots (or their pieces) that
//usage:were hit, repairs a flipped bit, and says on standard error what
//usage:it lost (-v: where and why).
//usage:A FILE may also be what `perf script` prints of a recording with
//usage:callchains (perf record -g, any event): its value is samples, or
//usage:the event's period where perf prints it. Or what an applet
//usage:printed as text (its default): names and values as printed, no
//usage:addresses (said in one line). Or folded stacks ("a;b;c COUNT",
//usage:flamegraph.pl's and ours, ";-;" before kernel frames): one profile
//usage:of samples, no times. -o FILE is written whole on success or not
//usage:at all.
//usage:
//usage:  -f FORMAT        text (default), folded: per snapshot, as the
//usage:                   collector prints them; pprof: one gzipped
//usage:                   profile.proto of all snapshots (go tool pprof);
//usage:                   svg: one flame graph of all snapshots;
//usage:                   html: one page, no network: a heatmap of the
//usage:                   snapshots in time, the flame graph of a range
//usage:                   selected (drag, arrow keys), of a second one the
//usage:                   differential; marks and anomalies on the time
//usage:                   axis; #from=T&to=T[&base_from=T&base_to=T] in
//usage:                   its address selects (T as --from takes). Size:
//usage:                   the names, then 4 bytes + the value's digits a
//usage:                   stack a snapshot: an hour at -i 1s, 200 stacks
//usage:                   each, counts (<1000): 6 MB; us (<10^7): 9 MB
//usage:  -o FILE          write to FILE, not standard output
//usage:  --base FILE      svg: a differential flame graph, FILE (any input) the
//usage:                   before: red grew, blue shrank (more: --base F --base G)
//usage:  --title TEXT     svg: the title (default: applet, total, host, span)
//usage:  --push URL       send the profile (pprof) to a Pyroscope server:
//usage:                   POST URL/ingest (http only); --app NAME names it
//usage:  --app NAME       the application name for --push (stackbox.APPLET)
//usage:  --top N          text: only the N biggest stacks
//usage:  -i DURATION      perf script input: a snapshot per DURATION of
//usage:                   perf's clock (default: one for all)
//usage:  --from TIME      only snapshots that end after TIME
//usage:  --to TIME        only snapshots that start before TIME
//usage:                   TIME: seconds since the epoch, "YYYY-MM-DD HH:MM:SS"
//usage:                   (local), +DURATION after the first snapshot, or
//usage:                   mark:N[+|-DURATION]: the time of the collector's
//usage:                   mark N (-T), and DURATION after or before it:
//usage:                   --from mark:1-60s --to mark:1 is the minute
//usage:                   before the first firing (FILE arguments only)
//usage:  --pid PID[,PID...]  only rows of these processes
//usage:  --comm NAME      only rows whose comm is NAME
//usage:  --symfs DIR      find the profiled files under DIR (DIR/usr/bin/x)
//usage:  --debug-dir DIR  find unstripped files by build-id:
//usage:                   DIR/.build-id/xx/rest.debug (as /usr/lib/debug)
//usage:  --anomalies      the stacks that changed: when, how (appeared,
//usage:                   vanished, grew, shrank, spike), clustered; -f json:
//usage:                   one object each; -f folded, svg: the differential
//usage:                   of one anomaly's window against its baseline
//usage:  --anomaly N      -f folded, svg: which anomaly (1)
//usage:  --hotcold        -f folded, svg, pprof: on-CPU and off-CPU streams
//usage:                   (oncpu, offcpu) of the same run as one profile
//usage:                   in time: samples x period, blocked time; under
//usage:                   root frames [on-cpu] and [off-cpu], warm and blue
//usage:  -v               what was skipped, which file each mapping used;
//usage:                   --anomalies: whole stacks
//usage:
//usage:Without --symfs and --debug-dir, frames resolve against this
//usage:machine's files, when their build-ids match the recording. Names
//usage:come from, in order: --debug-dir; the file's .symtab; its debug file
//usage:(/usr/lib/debug/.build-id/, .gnu_debuglink: same directory, .debug/,
//usage:/usr/lib/debug/DIR/, under --symfs); its .gnu_debugdata; a server
//usage:of DEBUGINFOD_URLS (http://, debuginfod's cache: DEBUGINFOD_CACHE_PATH,
//usage:else ~/.cache/debuginfod_client); its .dynsym.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "applet.h"
#include "bin_replay.h"
#include "anomalies.h"
#include "bin_read.h"
#include "debuginfod.h"
#include "binfmt.h"
#include "collect.h"
#include "flame.h"
#include "folded_read.h"
#include "folded_rows.h"
#include "hotcold.h"
#include "html.h"
#include "out_file.h"
#include "perf_script.h"
#include "pprof.h"
#include "push.h"
#include "text_read.h"
#include "output.h"
#include "output_sink.h"
#include "stacks.h"
#include "syms.h"

struct report_args {
	int format;
	struct {
		const char **file;
		size_t n;
	} base;
	const char *title, *push, *app;
	const char *output;
	long long top;
	const char *from, *to;
	struct pid_list pids;
	const char *comm;
	const char *symfs, *debug_dir;
	int verbose;
	int anomalies;
	long long anomaly;
	int hotcold;
	uint64_t interval;
};

static const struct opt_formats report_formats = {
	1 << FORMAT_TEXT | 1 << FORMAT_FOLDED | 1 << FORMAT_PPROF |
		1 << FORMAT_SVG | 1 << FORMAT_JSON | 1 << FORMAT_HTML,
	"unknown format (text, folded, pprof, svg, json, html)"};

static const char *opt_files(const struct opt *o, const char *arg, void *dst)
{
	typeof(((struct report_args *)0)->base) *b = dst;
	size_t cap = b->n;

	b->file = grow_array(b->file, &cap, b->n + 1, sizeof(*b->file));
	b->file[b->n++] = arg;
	return NULL;
}

#define R struct report_args
static const struct opt report_opts[] = {
	OPT_CUSTOM(0, "base", "FILE", opt_files, R, base, NULL),
	OPT_STRING(0, "title", "TEXT", R, title, NULL),
	OPT_STRING(0, "push", "URL", R, push, NULL),
	OPT_STRING(0, "app", "NAME", R, app, NULL),
	OPT_TABLE('f', "format", "FORMAT", opt_format, R, format,
		  report_formats, ENABLE_FORMAT_TEXT ? "text" : "folded"),
	OPT_STRING('o', "output", "FILE", R, output, NULL),
	OPT_INT(0, "top", "N", R, top, 1, 1LL << 40, NULL),
	OPT_DURATION('i', "interval", "DURATION", R, interval, 1, 1LL << 62,
		     NULL),
	OPT_STRING(0, "from", "TIME", R, from, NULL),
	OPT_STRING(0, "to", "TIME", R, to, NULL),
	OPT_CUSTOM(0, "pid", "PID[,PID...]", opt_pids, R, pids, NULL),
	OPT_STRING(0, "comm", "NAME", R, comm, NULL),
	OPT_STRING(0, "symfs", "DIR", R, symfs, NULL),
	OPT_STRING(0, "debug-dir", "DIR", R, debug_dir, NULL),
	OPT_FLAG('v', "verbose", R, verbose),
	OPT_FLAG(0, "anomalies", R, anomalies),
	OPT_INT(0, "anomaly", "N", R, anomaly, 1, 1LL << 30, "1"),
	OPT_FLAG(0, "hotcold", R, hotcold),
	OPT_END,
};
#undef R

/* ---- time slicing ---- */
struct when {
	bool set, relative;
	double t; /* seconds: since the epoch, or after the first snapshot */
	unsigned long mark; /* mark:N: t is an offset to mark N's time */
};

static struct when parse_when(const char *opt, const char *s)
{
	struct when w = {.set = s != NULL};
	struct tm tm = {0};
	uint64_t ns;
	char *end;

	if (!s)
		return w;
	if (!strncmp(s, "mark:", 5)) {
		w.mark = strtoul(s + 5, &end, 10);
		if (!w.mark || (*end && *end != '+' && *end != '-') ||
		    (*end && parse_duration(end + 1, &ns)))
			help_exit("%s %s: not mark:N[+|-DURATION] (mark:1-60s)",
				  opt, s);
		w.t = *end ? (*end == '-' ? -1.0 : 1.0) * ns / 1e9 : 0;
		return w;
	}
	if (*s == '+') {
		if (parse_duration(s + 1, &ns))
			help_exit("%s %s: not +DURATION (+10s, +2m)", opt, s);
		w.relative = true;
		w.t = ns / 1e9;
		return w;
	}
	w.t = strtod(s, &end);
	if (end != s && !*end)
		return w;
	end = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!end || *end)
		help_exit("%s %s: not a time (seconds since the epoch, "
			  "\"YYYY-MM-DD HH:MM:SS\" or +DURATION)",
			  opt, s);
	tm.tm_isdst = -1;
	w.t = mktime(&tm);
	return w;
}

/* ---- the report's state ---- */
struct report {
	struct report_args *a;
	struct output *out;
	struct bin_replay *replay; /* the recording's stacks and symbols */
	const struct bin_state *st;
	struct when from, to;
	double first; /* start of the first snapshot, for +DURATION */
	bool have_first;
	unsigned long written;
	int failed;
	/* -f pprof, -f svg, --push: one profile of every snapshot */
	struct pprof *pp;
	bool cpu_time;	 /* samples of CPU time: also cpu nanoseconds */
	int cpu_metric;	 /* the metric of those samples */
	unsigned levels; /* pprof types that are levels (memory held) */
	int64_t period;	 /* ns per sample */
	unsigned weigh;	 /* the pprof type that weighs main binaries */
	struct flame *fl;
	bool base_mode; /* reading --base inputs */
	char applet[32], metric[32], host[64];
	enum metric_kind kind;
	bool cpu;	  /* the metric measures CPU time */
	uint64_t unit_ns; /* ns a count of it stands for, 0: not time */
	enum flame_palette palette;
	int64_t t0, t1;		    /* first start, last end, ns */
	bool boot_clock;	    /* t0, t1 count from boot (perf's) */
	struct anomalies *an;	    /* --anomalies */
	struct hotcold *hc;	    /* --hotcold, but for -f pprof */
	struct html *html;	    /* -f html */
	struct anomalies *html_an;  /* -f html: its findings */
	bool hc_seen[2];	    /* --hotcold: [on-CPU] streams were read */
	struct perf_script *perf;   /* the perf script input being read */
	struct text_read *text;	    /* the stackbox text input being read */
	struct folded_read *folded; /* the folded input being read */
	struct out_file out_file;   /* -o FILE, renamed there on success */
	const char *path;	    /* what -o FILE is written to meanwhile */
	char **missing; /* "path (build-id ...)" of files not found */
	size_t nmissing, missing_cap;
	struct debuginfod *dbg; /* DEBUGINFOD_URLS, once asked for */
	bool dbg_read;
};

/* ---- finding the profiled files ---- */
static struct elf_symtab *open_checked(const char *path, const char *root,
				       const char *build_id)
{
	struct elf_symtab *t = elf_symtab_open(path, root);

	if (!t)
		return NULL;
	if (*build_id && *elf_symtab_build_id(t) &&
	    strcmp(build_id, elf_symtab_build_id(t))) {
		verbose("%s%s: build-id %s, the recording has %s: not used",
			root, path, elf_symtab_build_id(t), build_id);
		elf_symtab_free(t);
		return NULL;
	}
	verbose("%s: symbols from %s%s", path, root, path);
	return t;
}

/* This machine's copy of a file the recording names, only when its
 * build-id is the recording's: the same build, wherever it came from. */
static struct elf_symtab *same_build_here(const char *path,
					  const char *build_id)
{
	struct elf_symtab *t;

	if (!*build_id || !(t = elf_symtab_open(path, "")))
		return NULL;
	if (strcmp(build_id, elf_symtab_build_id(t))) {
		elf_symtab_free(t);
		return NULL;
	}
	verbose("%s: not under --symfs; this machine's has its build-id", path);
	return t;
}

static void note_missing(struct report *rp, const char *path,
			 const char *build_id)
{
	rp->missing = grow_array(rp->missing, &rp->missing_cap,
				 rp->nmissing + 1, sizeof(*rp->missing));
	rp->missing[rp->nmissing++] =
		xasprintf("%s (build-id %s)", path, *build_id ? build_id : "-");
}

/* Its KIND file (debuginfo, executable) from a debuginfod server or its
 * cache, when DEBUGINFOD_URLS names one; *got the path (malloc'ed). */
static struct elf_symtab *from_debuginfod(struct report *rp,
					  const char *build_id,
					  const char *kind, char **got)
{
	struct elf_symtab *t;
	char *p;

	if (!rp->dbg_read) {
		rp->dbg = debuginfod_new();
		rp->dbg_read = true;
	}
	if (!*build_id || !(p = debuginfod_find(rp->dbg, build_id, kind)))
		return NULL;
	t = open_checked(p, "", build_id);
	if (t && got)
		*got = p;
	else
		free(p);
	return t;
}

/*
 * Names, in order: the debug file by build-id in --debug-dir; the binary
 * (under --symfs, or this machine's when no --symfs or not there, if it
 * is the same build) with its .symtab, its debug file (build-id and
 * .gnu_debuglink conventions, under --symfs) or its MiniDebugInfo; else
 * a debuginfod server; else what the binary's .dynsym names. The binary
 * also gives leaf repair the code bytes it reads, as on the device.
 */
static struct elf_symtab *find_file(void *ctx, const char *path,
				    const char *build_id, int *code_fd)
{
	struct report *rp = ctx;
	const char *root = rp->a->symfs ? rp->a->symfs : "";
	struct elf_symtab *t = NULL, *bin = open_checked(path, root, build_id);
	char *exe;

	if (!bin && *root && (bin = same_build_here(path, build_id)))
		root = "";

	if (rp->a->debug_dir && strlen(build_id) > 2) {
		char *p = xasprintf("%s/.build-id/%.2s/%s.debug",
				    rp->a->debug_dir, build_id, build_id + 2);

		t = open_checked(p, "", "");
		free(p);
	}
	if (!t && (!bin || elf_symtab_names(bin) == ELF_NAMES_DYNSYM))
		t = from_debuginfod(rp, build_id, "debuginfo", NULL);
	/* not here: the binary itself from debuginfod, for its names, or
	 * its program headers (a debug file's are not the binary's) and
	 * leaf repair's code bytes */
	if (!bin && (bin = from_debuginfod(rp, build_id, "executable", &exe))) {
		*code_fd = open(exe, O_RDONLY | O_CLOEXEC);
		free(exe);
	} else if (bin) {
		char *p = xasprintf("%s%s", root, path);

		*code_fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
	}
	if (t && bin)
		elf_symtab_use_loads(t, bin);
	if (!t)
		t = bin;
	else
		elf_symtab_free(bin);
	if (!t) {
		verbose("%s (build-id %s): no file found, frames stay "
			"[module+offset]",
			path, *build_id ? build_id : "unknown");
		note_missing(rp, path, build_id);
	}
	return t;
}

/* One line, whatever -v, when files were not found: the frames left
 * unnamed, the files that would have named them, and what to pass. */
static void say_unnamed(struct report *rp)
{
	enum { SHOWN = 4 };
	unsigned long n = output_unnamed_frames(rp->out);
	char list[1024] = "";
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < rp->nmissing && i < SHOWN; i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? ", " : "", rp->missing[i]);
	if (rp->nmissing > SHOWN)
		snprintf(list + len, sizeof(list) - len, " and %zu more",
			 rp->nmissing - SHOWN);
	if (rp->nmissing) /* else [vdso], or stripped: -v says */
		error_msg("%lu user frames unnamed: %zu file%s not found: %s; "
			  "pass --symfs DIR (a copy of the device's root) or "
			  "--debug-dir DIR (.build-id/xx/rest.debug)",
			  n, rp->nmissing, rp->nmissing > 1 ? "s" : "", list);
	else
		verbose("%lu user frames unnamed: no symbol of the files "
			"found covers them ([vdso], or stripped: --debug-dir "
			"DIR)",
			n);
}

/* ---- from the reader ---- */
static void on_key(void *ctx, const struct bin_state *st)
{
	bin_replay_key(((struct report *)ctx)->replay);
}

static void on_maps(void *ctx, uint32_t tgid, const struct rec_map *m, size_t n)
{
	bin_replay_maps(((struct report *)ctx)->replay, tgid, m, n);
}

static bool row_wanted(const struct report_args *a, const struct row *r)
{
	bool ok = !a->pids.n;

	for (size_t i = 0; i < a->pids.n; i++)
		ok |= (pid_t)r->key.tgid == a->pids.pid[i];
	return ok && (!a->comm || !strcmp(a->comm, r->key.comm));
}

static bool in_time(struct report *rp, const struct snapshot *s)
{
	double start = s->start.tv_sec + s->start.tv_nsec / 1e9;
	double end = s->end.tv_sec + s->end.tv_nsec / 1e9;
	double from = rp->from.t, to = rp->to.t;

	if (!rp->have_first) {
		rp->first = start;
		rp->have_first = true;
	}
	from += rp->from.relative ? rp->first : 0;
	to += rp->to.relative ? rp->first : 0;
	return (!rp->from.set || end > from) && (!rp->to.set || start < to);
}

/* ---- one profile of all snapshots: pprof, SVG, push ---- */
static const char *unit_of(enum metric_kind k)
{
	return k == METRIC_NS	   ? "nanoseconds"
	       : k == METRIC_BYTES ? "bytes"
				   : "count";
}

/* The metric that counts samples of CPU time, or -1. */
static int cpu_metric(const struct snapshot *s)
{
	for (unsigned m = 0; s->period_ns && m < s->nmetrics; m++)
		if (metric_measure(&s->metrics[m]) == MEASURE_CPU_TIME)
			return m;
	return -1;
}

/* --hotcold: time (the two together, shown first), then each side's;
 * off-CPU's is not named "cpu", which Pyroscope would file as CPU */
static const char *const hotcold_types[] = {"time", "cpu", "blocked"};
static const char *const hotcold_units[] = {"nanoseconds", "nanoseconds",
					    "nanoseconds"};

static void start_pprof(struct report *rp, const struct snapshot *s)
{
	const char *types[SB_MAX_VALUES + 1], *units[SB_MAX_VALUES + 1];
	unsigned n = 0;
	int primary = 0;

	if (rp->a->hotcold) {
		rp->pp = pprof_new(hotcold_types, hotcold_units,
				   ARRAY_SIZE(hotcold_types), -1, 0, 0);
		rp->weigh = 0;
		return;
	}
	for (unsigned m = 0; m < s->nmetrics; m++) {
		/* a ratio is no sample value: pprof works it out itself */
		if (s->metrics[m].kind == METRIC_RATIO)
			continue;
		if (m == s->primary)
			primary = n;
		if (s->metrics[m].level)
			rp->levels |= 1u << n;
		/* Pyroscope files any sample type containing "cpu" as CPU:
		 * only samples of CPU time may (offcpu's is "blocked") */
		types[n] = s->metrics[m].name;
		units[n++] = unit_of(s->metrics[m].kind);
	}
	rp->weigh = primary;
	rp->period = s->period_ns;
	rp->cpu_metric = cpu_metric(s);
	rp->cpu_time = rp->cpu_metric >= 0;
	if (rp->cpu_time) {
		types[n] = "cpu";
		units[n++] = "nanoseconds";
	}
	/* oncpu: cpu time, the last type, as pprof defaults to; time
	 * sampled by itself (offcpu -s): its own type is the period's */
	rp->pp = pprof_new(types, units, n,
			   rp->cpu_time ? (int)n - 1
			   : rp->period ? primary
					: -1,
			   rp->period, rp->cpu_time ? -1 : primary);
}

static const struct rec_map *map_of(const struct rec_map *m, size_t n,
				    uint64_t ip)
{
	for (size_t i = 0; i < n; i++)
		if (ip >= m[i].start && ip < m[i].end)
			return &m[i];
	return NULL;
}

/* A process's executable: its lowest mapping of a file. The kernel
 * loads a program below the libraries ld.so maps from the top down
 * (x86_64, arm64, arm), and a static one maps nothing else. */
static const struct rec_map *exe_of(const struct rec_map *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].path[0] == '/')
			return &m[i];
	return NULL;
}

/* Frames of one stack, leaf first, with addresses when the names line up
 * with the recorded stack one to one, calls inlined at an address (per
 * name in inlined[], or NULL) counting as its one. */
static unsigned add_frames(struct report *rp, struct pprof_frame *out,
			   const char **names, const bool *inlined, unsigned n,
			   __u64 ref, const struct rec_map *maps, size_t nmaps)
{
	const struct bin_stack *st =
		rp->st && ref >= BIN_REF0 && ref - BIN_REF0 < rp->st->nstacks
			? &rp->st->stacks[ref - BIN_REF0]
			: NULL;
	unsigned addrs = 0, at = 0;

	for (unsigned i = 0; i < n; i++)
		addrs += !(inlined && inlined[i]);
	for (unsigned i = 0; i < n; i++) {
		bool inl = inlined && inlined[i];
		/* names are root first and may stop early (kernel stacks
		 * end at our own programs): address k is st->ip[st->n-1-k] */
		uint64_t ip = st && addrs <= st->n ? st->ip[st->n - 1 - at] : 0;

		/* the function comes before the calls inlined into it */
		at += i + 1 < n && !(inlined && inlined[i + 1]);
		out[n - 1 - i] = (struct pprof_frame){
			names[i], ip,
			ip && maps ? map_of(maps, nmaps, ip) : NULL, inl};
	}
	return n;
}

static void add_pprof(struct report *rp, const struct snapshot *s)
{
	/* kernel frames, user frames with the calls inlined at each, the
	 * hot/cold marker */
	struct pprof_frame *f = xmalloc((SB_MAX_DEPTH + 2) *
					(2 + USYM_INLINE_MAX) * sizeof(*f));
	struct proc_syms *ps = output_procs(rp->out);
	uint64_t ns = 0;
	unsigned hm = 0;
	bool on = false;

	if (rp->a->hotcold)
		hotcold_side(s, &on, &ns, &hm);
	if (!rp->pp)
		start_pprof(rp, s);
	pprof_snapshot(rp->pp, rp->levels);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];
		struct rec_map *maps = NULL;
		size_t nmaps = ENABLE_SYMBOLIZE && ps
				       ? proc_syms_maps(ps, r->key.tgid, &maps)
				       : 0;
		int64_t v[SB_MAX_VALUES + 1];
		const char *labels[11] = {"comm", r->key.comm};
		unsigned n = 0, nl = 2, nv = 0;
		char tid[16], nspid[16];

		n += add_frames(rp, f, r->kstack, NULL, r->nk,
				r->key.kern_stack, NULL, 0);
		n += add_frames(rp, f + n, r->ustack, r->uinlined, r->nu,
				r->key.user_stack, maps, nmaps);
		for (unsigned k = 0; rp->perf && k < n; k++)
			perf_script_frame_at(rp->perf, f[k].name, &f[k].addr,
					     &f[k].map);
		if (rp->a->hotcold) {
			/* the side's root frame, as in folded and SVG; time,
			 * on-CPU time, off-CPU time */
			f[n++] = (struct pprof_frame){on ? FLAME_ON_CPU
							 : FLAME_OFF_CPU};
			v[0] = r->v[hm] * ns;
			v[1] = on ? v[0] : 0;
			v[2] = on ? 0 : v[0];
		}
		for (unsigned m = 0; !rp->a->hotcold && m < s->nmetrics; m++)
			if (s->metrics[m].kind != METRIC_RATIO)
				v[nv++] = r->v[m];
		if (rp->cpu_time)
			v[nv] = r->v[rp->cpu_metric] * rp->period;
		if (s->per_thread) {
			snprintf(tid, sizeof(tid), "%u", r->key.pid);
			labels[nl++] = "thread";
			labels[nl++] = tid;
		}
		if (s->aux_name && *s->aux_name(r->key.aux)) {
			labels[nl++] = "state";
			labels[nl++] = s->aux_name(r->key.aux);
		}
		if (r->key.other_tgid) {
			labels[nl++] = "waker";
			labels[nl++] = r->key.other_comm;
		}
		if (r->nspid) { /* beside "pid", the host's */
			snprintf(nspid, sizeof(nspid), "%u", r->nspid);
			labels[nl++] = "nspid";
			labels[nl++] = nspid;
		}
		pprof_add(rp->pp, f, n, v, labels, r->key.tgid);
		pprof_weigh_main(rp->pp, exe_of(maps, nmaps), v[rp->weigh]);
		free(maps);
	}
	free(f);
}

static void flame_row(void *ctx, const char *stack, size_t len, uint64_t v)
{
	struct report *rp = ctx;

	flame_add_stack(rp->fl, stack, len, v, rp->base_mode);
}

static void add_flame(struct report *rp, const struct snapshot *s)
{
	if (!rp->fl)
		rp->fl = flame_new();
	/* memory held: the last snapshot's, not the sum of all */
	if (s->metrics[s->primary].level)
		flame_snapshot(rp->fl, rp->base_mode);
	folded_rows(s, flame_row, rp);
}

/* CPU time warm, memory green, the rest (waiting on something) blue. */
static enum flame_palette palette_of(const struct snapshot *s)
{
	enum flame_palette p = PALETTE_IO;

	for (unsigned m = 0; m < s->nmetrics; m++)
		if (metric_measure(&s->metrics[m]) == MEASURE_CPU_TIME)
			return PALETTE_CPU;
		else if (metric_measure(&s->metrics[m]) == MEASURE_MEMORY)
			p = PALETTE_MEM;
	return p;
}

/* output.c hands each resolved snapshot here instead of text/folded */
static void profile_writer(void *ctx, FILE *unused, const struct snapshot *s)
{
	struct report *rp = ctx;
	int64_t start =
		s->start.tv_sec * (int64_t)NS_PER_SEC + s->start.tv_nsec;
	int64_t end = s->end.tv_sec * (int64_t)NS_PER_SEC + s->end.tv_nsec;

	if (!rp->applet[0]) {
		snprintf(rp->applet, sizeof(rp->applet), "%s", s->applet);
		snprintf(rp->metric, sizeof(rp->metric), "%s",
			 s->metrics[s->primary].name);
		snprintf(rp->host, sizeof(rp->host), "%s",
			 rp->st ? rp->st->host
			 : rp->perf && perf_script_host(rp->perf)
				 ? perf_script_host(rp->perf)
				 : "unknown");
		rp->kind = s->metrics[s->primary].kind;
		rp->cpu = metric_measure(&s->metrics[s->primary]) ==
			  MEASURE_CPU_TIME;
		rp->unit_ns = rp->kind == METRIC_NS ? 1000 /* folded's us */
			      : rp->cpu		    ? s->period_ns
						    : 0;
		rp->palette = palette_of(s);
	}
	if (rp->base_mode) {
		add_flame(rp, s);
		return;
	}
	rp->boot_clock |= s->boot_clock;
	if (!rp->t0 || start < rp->t0)
		rp->t0 = start;
	if (end > rp->t1)
		rp->t1 = end;
	if (rp->a->hotcold) {
		uint64_t ns;
		unsigned m;
		bool on;

		if (!hotcold_side(s, &on, &ns, &m))
			error_exit("--hotcold: %s's %s is neither samples of "
				   "CPU time (oncpu) nor blocked time (offcpu)",
				   s->applet, s->metrics[s->primary].name);
		rp->hc_seen[on] = true;
		if (rp->a->format == FORMAT_PPROF)
			add_pprof(rp, s);
		else
			hotcold_add(rp->hc, s);
		return;
	}
	if (rp->html) {
		html_snapshot(rp->html, NULL, s);
		anomalies_snapshot(rp->html_an, NULL, s);
		return;
	}
	if (rp->a->format == FORMAT_SVG)
		add_flame(rp, s);
	if (rp->a->format == FORMAT_PPROF || rp->a->push)
		add_pprof(rp, s);
}

/* One snapshot's wanted rows to the output. st: the bin stream's state;
 * NULL for perf script's, whose frames are named already. */
static void emit(struct report *rp, const struct bin_state *st,
		 struct snapshot *s)
{
	size_t n = 0;

	rp->st = st;
	if (!in_time(rp, s))
		return;
	for (size_t i = 0; i < s->nrows; i++)
		if (row_wanted(rp->a, &s->rows[i]))
			s->rows[n++] = s->rows[i];
	s->nrows = n;
	if (st)
		bin_replay_sync(rp->replay, st, s);
	if (output_snapshot(rp->out, s))
		rp->failed = 1;
	rp->written++;
}

static void on_snapshot(void *ctx, const struct bin_state *st,
			struct snapshot *s)
{
	emit(ctx, st, s);
}

/* perf script's and stackbox text's snapshots: named already */
static void on_named_snapshot(void *ctx, struct snapshot *s)
{
	emit(ctx, NULL, s);
}

/* ---- inputs ---- */
static void say_skipped(const char *name, const struct bin_stats *st)
{
	if (!st->frames && !st->bytes_skipped) {
		error_msg("%s: empty", name);
		return;
	}
	if (!st->frames) {
		/* nothing to count the damage against: say what it is not */
		error_msg("%s: neither a bin stream (no frame in %llu bytes), "
			  "stackbox text, folded stacks nor perf script output",
			  name, (unsigned long long)st->bytes_skipped);
		return;
	}
	if (st->bytes_skipped || st->bad_frames || st->frames_unsynced ||
	    st->snapshots_broken || st->snapshots_missing)
		error_msg("%s: skipped %llu bytes (%llu bad frames; %llu lost "
			  "frames rebuilt from parity) and %llu "
			  "frames before a key frame; %llu snapshots "
			  "incomplete, %llu missing",
			  name, (unsigned long long)st->bytes_skipped,
			  (unsigned long long)st->bad_frames,
			  (unsigned long long)st->frames_rebuilt,
			  (unsigned long long)st->frames_unsynced,
			  (unsigned long long)st->snapshots_broken,
			  (unsigned long long)st->snapshots_missing);
	if (st->frames_headless || st->pieces_lost || st->rows_dropped)
		error_msg("%s: lost %llu snapshot frames without their header, "
			  "%llu pieces of snapshots, %llu rows whose stack or "
			  "name was lost (-v: where and why)",
			  name, (unsigned long long)st->frames_headless,
			  (unsigned long long)st->pieces_lost,
			  (unsigned long long)st->rows_dropped);
	if (st->frames_repaired)
		verbose("%s: %llu damaged frames repaired", name,
			(unsigned long long)st->frames_repaired);
	if (st->unwritten)
		error_msg("%s: the collector could not write %llu snapshots "
			  "(its sink failed)",
			  name, (unsigned long long)st->unwritten);
	if (!st->snapshots)
		error_msg("%s: no complete snapshot", name);
}

/* The first piece of an input says what it is: stackbox text, folded
 * stacks, perf script's, else a bin stream (whose reader finds frames anywhere). */
static void start_input(struct report *rp, const char *what, const void *buf,
			size_t n, struct bin_reader **r,
			const struct bin_reader_ops *ops)
{
	if (text_read_detect(buf, n)) {
		rp->text = text_read_new(on_named_snapshot, rp);
		/* said always: what the user gave cannot do all bin can */
		error_msg("%s: stackbox text output: names only, no addresses, "
			  "values as rounded in print; record with -f bin to "
			  "resolve symbols later",
			  what);
	} else if (folded_read_detect(buf, n)) {
		rp->folded = folded_read_new(on_named_snapshot, rp);
	} else if (perf_script_detect(buf, n)) {
		rp->perf =
			perf_script_new(rp->a->interval, on_named_snapshot, rp);
	} else {
		*r = bin_reader_new(ops);
	}
}

static int end_input(struct report *rp, const char *what, struct bin_reader *r,
		     const struct bin_reader_ops *ops)
{
	int err;

	if (rp->text) {
		err = !text_read_end(rp->text, what);
		text_read_free(rp->text);
		rp->text = NULL;
	} else if (rp->folded) {
		err = !folded_read_end(rp->folded, what);
		folded_read_free(rp->folded);
		rp->folded = NULL;
	} else if (rp->perf) {
		err = !perf_script_end(rp->perf, what);
		perf_script_free(rp->perf);
		rp->perf = NULL;
	} else {
		if (!r)
			r = bin_reader_new(ops);
		bin_reader_end(r);
		say_skipped(what, bin_reader_stats(r));
		err = !bin_reader_stats(r)->snapshots;
		bin_reader_free(r);
	}
	return err;
}

static int read_input(struct report *rp, const char *name)
{
	const struct bin_reader_ops ops = {
		.ctx = rp,
		.key = on_key,
		.maps = on_maps,
		.snapshot = on_snapshot,
	};
	struct bin_reader *r = NULL;
	bool is_stdin = !strcmp(name, "-");
	const char *what = is_stdin ? "standard input" : name;
	int fd = is_stdin ? 0 : open(name, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;
	int err = 0;

	if (fd < 0) {
		perror_msg("%s", name);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("reading %s", name);
			err = 1;
			break;
		}
		if (!r && !rp->perf && !rp->text && !rp->folded)
			start_input(rp, what, buf, n, &r, &ops);
		if (rp->text)
			text_read_feed(rp->text, buf, n);
		else if (rp->folded)
			folded_read_feed(rp->folded, buf, n);
		else if (rp->perf)
			perf_script_feed(rp->perf, buf, n);
		else
			bin_reader_feed(r, buf, n);
	}
	err |= end_input(rp, what, r, &ops);
	if (!is_stdin)
		close(fd);
	return err;
}

/* ---- --from/--to mark:N: the marks' times, from a first reading ---- */
struct mark_times {
	double *t; /* by mark number - 1; 0: not seen */
	size_t n, cap;
};

static void note_marks(void *ctx, const struct bin_state *st,
		       struct snapshot *s)
{
	struct mark_times *m = ctx;

	for (unsigned i = 0; i < s->nmarks; i++) {
		size_t k = s->marks[i].n, old = m->cap;

		if (!k || k > 1u << 20)
			continue;
		m->t = grow_array(m->t, &m->cap, k, sizeof(*m->t));
		memset(m->t + old, 0, (m->cap - old) * sizeof(*m->t));
		m->t[k - 1] = s->marks[i].when.tv_sec +
			      s->marks[i].when.tv_nsec / 1e9;
		m->n = k > m->n ? k : m->n;
	}
}

static void note_text_marks(void *ctx, struct snapshot *s)
{
	note_marks(ctx, NULL, s);
}

static void scan_marks(const char *name, struct mark_times *m)
{
	const struct bin_reader_ops ops = {.ctx = m, .snapshot = note_marks};
	struct bin_reader *r = NULL;
	struct text_read *t = NULL;
	char buf[65536];
	ssize_t n;
	int fd = open(name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		perror_exit("%s", name);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (!r && !t && text_read_detect(buf, n))
			t = text_read_new(note_text_marks, m);
		else if (!r && !t)
			r = bin_reader_new(&ops);
		if (t)
			text_read_feed(t, buf, n);
		else
			bin_reader_feed(r, buf, n);
	}
	if (t) {
		text_read_end(t, NULL); /* read again and judged later */
		text_read_free(t);
	} else if (r) {
		bin_reader_end(r);
		bin_reader_free(r);
	}
	close(fd);
}

static void resolve_mark(struct when *w, const char *opt,
			 const struct mark_times *m)
{
	if (!w->mark)
		return;
	if (w->mark > m->n || !m->t[w->mark - 1])
		error_exit(
			"%s mark:%lu: the input has no mark %lu (it has %zu)",
			opt, w->mark, w->mark, m->n);
	w->t += m->t[w->mark - 1];
}

/* mark:N needs the marks' times before the first snapshot is judged:
 * the files are read once for them (standard input cannot be). */
static void resolve_marks(struct report *rp, int argc, char **argv)
{
	struct mark_times m = {0};

	if (!rp->from.mark && !rp->to.mark)
		return;
	if (!argc)
		help_exit("--from/--to mark:N: read FILE arguments, not "
			  "standard input");
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-"))
			help_exit(
				"--from/--to mark:N: not with standard input");
		scan_marks(argv[i], &m);
	}
	resolve_mark(&rp->from, "--from", &m);
	resolve_mark(&rp->to, "--to", &m);
	free(m.t);
}

/* ---- the SVG's title ---- */
/* 1234567 as "1,234,567": a total in a title is read, not parsed */
static const char *grouped(char *buf, size_t len, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}

/* "2,345 samples (23.40 s of CPU)", "812,345 us blocked (812.3 ms)",
 * "1,048,576 bytes inuse_space (1.0 MiB)": the total as folded sums it,
 * in folded's unit, and what it comes to. */
static void title_total(char *buf, size_t len, const struct report *rp,
			uint64_t total)
{
	const char *unit = rp->kind == METRIC_NS      ? "us"
			   : rp->kind == METRIC_BYTES ? "bytes"
						      : rp->metric;
	char n[32], v[32], human[48] = "";

	if (rp->unit_ns)
		snprintf(human, sizeof(human), " (%s%s)",
			 format_value(v, sizeof(v), METRIC_NS,
				      total * rp->unit_ns),
			 rp->cpu ? " of CPU" : "");
	else if (rp->kind == METRIC_BYTES)
		snprintf(human, sizeof(human), " (%s)",
			 format_value(v, sizeof(v), METRIC_BYTES, total));
	snprintf(buf, len, "%s %s%s%s%s", grouped(n, sizeof(n), total), unit,
		 strcmp(unit, rp->metric) ? " " : "",
		 strcmp(unit, rp->metric) ? rp->metric : "", human);
}

/* "2026-11-27 13:40:01 .. 13:41:01 (60.00 s)", the date again past
 * midnight; "boot+10.000s .. boot+10.600s (600.0 ms)" on perf's clock */
static void title_span(char *buf, size_t len, const struct report *rp)
{
	time_t t0 = rp->t0 / NS_PER_SEC, t1 = rp->t1 / NS_PER_SEC;
	struct tm a, b;
	char d[32], from[32], to[32];
	int n;

	format_value(d, sizeof(d), METRIC_NS, rp->t1 - rp->t0);
	if (rp->boot_clock) {
		snprintf(buf, len, "boot+%.3fs .. boot+%.3fs (%s)",
			 rp->t0 / 1e9, rp->t1 / 1e9, d);
		return;
	}
	localtime_r(&t0, &a);
	localtime_r(&t1, &b);
	strftime(from, sizeof(from), "%Y-%m-%d %H:%M:%S", &a);
	n = a.tm_yday == b.tm_yday && a.tm_year == b.tm_year ? 11 : 0;
	strftime(to, sizeof(to), "%Y-%m-%d %H:%M:%S", &b);
	snprintf(buf, len, "%s .. %s (%s)", from, to + n, d);
}

/* "oncpu: 2,345 samples (23.40 s of CPU) on HOST, SPAN"; a differential
 * graph's says the base's total too ("... against 2,100 (differential)"). */
static void flame_title(char *buf, size_t len, const struct report *rp)
{
	char total[128], base[48] = "", span[128] = "";

	title_total(total, sizeof(total), rp, flame_total(rp->fl, false));
	if (rp->a->base.n) { /* the number only: the title fits the width */
		strcpy(base, " against ");
		grouped(base + 9, sizeof(base) - 9, flame_total(rp->fl, true));
	}
	if (rp->t1)
		title_span(span, sizeof(span), rp);
	snprintf(buf, len, "%s: %s%s%s on %s%s%s", rp->applet, total, base,
		 rp->a->base.n ? " (differential)" : "", rp->host,
		 *span ? ", " : "", span);
}

/* -f html: the page, with --anomalies' findings on its time axis */
static int write_html(struct report *rp, FILE *f)
{
	char title[512], span[128] = "", *json = NULL;
	size_t len = 0;
	FILE *j = open_memstream(&json, &len);
	int err;

	if (!j)
		error_exit("out of memory");
	anomalies_write(rp->html_an, j, ANOMALIES_JSON, 1, 0);
	fclose(j);
	if (rp->t1)
		title_span(span, sizeof(span), rp);
	snprintf(title, sizeof(title), "%s on %s%s%s", rp->applet, rp->host,
		 *span ? ", " : "", span);
	err = html_write(rp->html, f, rp->a->title ? rp->a->title : title,
			 json);
	free(json);
	return err;
}

/* The one profile of -f pprof / -f svg, to -o FILE or standard output. */
static int write_profile(struct report *rp)
{
	struct report_args *a = rp->a;
	FILE *f = rp->path && strcmp(rp->path, "-") ? fopen(rp->path, "w")
						    : stdout;
	char title[512];
	int err = 0;

	if (!f)
		perror_exit("-o %s", a->output);
	if (rp->an) {
		err = anomalies_write(rp->an, f,
				      a->format == FORMAT_JSON	? ANOMALIES_JSON
				      : a->format == FORMAT_SVG ? ANOMALIES_SVG
				      : a->format == FORMAT_FOLDED
					      ? ANOMALIES_FOLDED
					      : ANOMALIES_TEXT,
				      a->anomaly, a->verbose);
	} else if (rp->hc) {
		snprintf(
			title, sizeof(title),
			"hot/cold: on-CPU (warm) and off-CPU (blue) time on %s",
			rp->host);
		err = hotcold_write(rp->hc, f, a->format == FORMAT_SVG,
				    a->title ? a->title : title);
	} else if (rp->html) {
		err = write_html(rp, f);
	} else if (a->format == FORMAT_PPROF && rp->pp) {
		/* pprof's time is a date: none rather than one in 1970 */
		pprof_time(rp->pp, rp->boot_clock ? 0 : rp->t0,
			   rp->t1 - rp->t0);
		err = pprof_write(rp->pp, f);
	} else if (a->format == FORMAT_SVG && rp->fl) {
		flame_title(title, sizeof(title), rp);
		flame_write_svg(rp->fl, f, a->title ? a->title : title,
				rp->palette,
				rp->kind == METRIC_NS	   ? "us"
				: rp->kind == METRIC_BYTES ? "bytes"
							   : rp->metric);
	}
	if (fflush(f) || ferror(f) || (f != stdout && fclose(f))) {
		perror_msg("writing %s",
			   a->output ? a->output : "standard output");
		err = -1;
	}
	return err ? 1 : 0;
}

static int push(struct report *rp)
{
	char *app = rp->a->app ? xstrdup(rp->a->app)
			       : xasprintf("stackbox.%s", rp->applet);
	size_t len;
	unsigned char *gz;
	int err;

	if (!rp->pp) {
		error_msg("--push: no snapshot to send");
		free(app);
		return 1;
	}
	pprof_time(rp->pp, rp->t0, rp->t1 - rp->t0);
	gz = pprof_encode(rp->pp, &len);
	err = push_pyroscope(rp->a->push, app, rp->host, rp->t0 / NS_PER_SEC,
			     (rp->t1 + NS_PER_SEC - 1) / NS_PER_SEC,
			     rp->cpu_time ? NS_PER_SEC / rp->period : 0, gz,
			     len);
	free(gz);
	free(app);
	return err ? 1 : 0;
}

/* An SVG or a gzip'ed profile on a terminal is a screenful of noise:
 * said before any input is read, with a name to pass. */
static void refuse_terminal(const struct report_args *a, int argc, char **argv)
{
	const char *ext = a->format == FORMAT_SVG     ? "svg"
			  : a->format == FORMAT_PPROF ? "pb.gz"
			  : a->format == FORMAT_HTML  ? "html"
						      : NULL;
	const char *in = argc ? strrchr(argv[0], '/') : NULL;

	if (!ext || a->anomalies || (a->output && strcmp(a->output, "-")) ||
	    !isatty(STDOUT_FILENO))
		return;
	in = in ? in + 1 : argc ? argv[0] : "profile";
	help_exit("-f %s: standard output is a terminal: name a file, "
		  "-o %s.%s",
		  ext[0] == 'p' ? "pprof" : ext,
		  strcmp(in, "-") ? in : "profile", ext);
}

static int report_main(void *args, int argc, char **argv)
{
	struct report_args *a = args;
	bool profile = a->format == FORMAT_PPROF || a->format == FORMAT_SVG ||
		       a->format == FORMAT_HTML || a->anomalies || a->hotcold;
	struct output_opts o = {.format = profile ? FORMAT_TEXT : a->format,
				.top = a->top};
	struct report rp = {.a = a};
	int err = 0;

	verbose_level = a->verbose;
	refuse_terminal(a, argc, argv);
	if (a->base.n && a->format != FORMAT_SVG)
		help_exit("--base: only for -f svg");
	rp.from = parse_when("--from", a->from);
	rp.to = parse_when("--to", a->to);
	rp.path = a->output ? out_file_begin(&rp.out_file, a->output) : NULL;
	o.output = profile ? NULL : rp.path;
	rp.out = output_open(&o);
	rp.replay = bin_replay_new(rp.out);
	if (a->format == FORMAT_HTML &&
	    (a->anomalies || a->hotcold || a->base.n || a->push))
		help_exit("-f html: no --anomalies (the page has them), "
			  "--hotcold, --base (select one on the page), --push");
	if (a->anomalies ? a->format == FORMAT_PPROF || a->push || a->base.n
			 : a->format == FORMAT_JSON)
		help_exit(
			"--anomalies: -f text, json, folded or svg; no --base, "
			"--push");
	if (a->hotcold &&
	    (a->format == FORMAT_TEXT || a->format == FORMAT_JSON ||
	     a->anomalies || a->push || a->base.n))
		help_exit("--hotcold: -f folded, svg or pprof; no --base, "
			  "--push, --anomalies");
	if (a->hotcold && a->format != FORMAT_PPROF)
		rp.hc = hotcold_new();
	if (a->format == FORMAT_HTML) {
		rp.html = html_new();
		rp.html_an = anomalies_new();
	}
	if (a->anomalies)
		output_set_writer(rp.out, anomalies_snapshot,
				  rp.an = anomalies_new());
	else if (profile || a->push)
		output_set_writer(rp.out, profile_writer, &rp);
	if (ENABLE_SYMBOLIZE && output_procs(rp.out))
		proc_syms_set_finder(output_procs(rp.out), find_file, &rp);
	resolve_marks(&rp, argc, argv);
	rp.base_mode = true;
	for (size_t i = 0; i < a->base.n; i++)
		err |= read_input(&rp, a->base.file[i]);
	rp.base_mode = false;
	if (!argc)
		err |= read_input(&rp, "-");
	for (int i = 0; i < argc; i++)
		err |= read_input(&rp, argv[i]);
	for (int on = 0; a->hotcold && on < 2; on++) {
		if (!rp.hc_seen[on]) {
			error_msg("--hotcold: no %s stream among the inputs "
				  "(%s -f bin)",
				  on ? "on-CPU" : "off-CPU",
				  on ? "oncpu" : "offcpu");
			err = 1;
		}
	}
	if (profile)
		err |= write_profile(&rp);
	if (a->push)
		err |= push(&rp);
	say_unnamed(&rp);
	for (size_t i = 0; i < rp.nmissing; i++)
		free(rp.missing[i]);
	free(rp.missing);
	debuginfod_free(rp.dbg);
	bin_replay_free(rp.replay);
	if (output_close(rp.out))
		err = 1;
	if (a->output && out_file_end(&rp.out_file, !err && !rp.failed))
		err = 1;
	pprof_free(rp.pp);
	flame_free(rp.fl);
	anomalies_free(rp.an);
	hotcold_free(rp.hc);
	html_free(rp.html);
	anomalies_free(rp.html_an);
	return err || rp.failed;
}

APPLET_DEFINE(report, report_main, report_opts, struct report_args);
