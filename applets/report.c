// SPDX-License-Identifier: GPL-2.0
/* report: bin streams in, text, folded, pprof or an SVG flame graph out.
 *
//config:config REPORT
//config:	bool "report: turn bin streams into text, folded, pprof, SVG"
//config:	default y
//config:	help
//config:	  Reads what a collector wrote with -f bin (files, stdin,
//config:	  a serial capture), resyncs after corruption, resolves the
//config:	  raw addresses (on this machine, or offline with --symfs and
//config:	  --debug-dir) and writes text or folded exactly as the
//config:	  collector would have, or pprof, or an SVG flame graph.
//usage:usage: report [-f FORMAT] [-o FILE] [OPTIONS] [FILE]...
//usage:
//usage:Read bin streams (stackbox APPLET -f bin) from FILEs or standard
//usage:input ("-"), one after the other, and write their snapshots. A
//usage:corrupt or cut stream is read up to the damage and again from the
//usage:next key frame; what was skipped is counted on standard error.
//usage:
//usage:  -f FORMAT        text (default), folded: per snapshot, as the
//usage:                   collector prints them
//usage:  -o FILE          write to FILE, not standard output
//usage:  --top N          text: only the N biggest stacks
//usage:  --from TIME      only snapshots that end after TIME
//usage:  --to TIME        only snapshots that start before TIME
//usage:                   TIME: seconds since the epoch, "YYYY-MM-DD HH:MM:SS"
//usage:                   (local), or +DURATION after the first snapshot
//usage:  --pid PID[,PID...]  only rows of these processes
//usage:  --comm NAME      only rows whose comm is NAME
//usage:  --symfs DIR      find the profiled files under DIR (DIR/usr/bin/x)
//usage:  --debug-dir DIR  find unstripped files by build-id:
//usage:                   DIR/.build-id/xx/rest.debug (as /usr/lib/debug)
//usage:  -v               what was skipped, which file each mapping used
//usage:
//usage:Without --symfs and --debug-dir, frames resolve against this
//usage:machine's files, when their build-ids match the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bin_read.h"
#include "binfmt.h"
#include "collect.h"
#include "output.h"
#include "output_sink.h"
#include "stacks.h"
#include "syms.h"

struct report_args {
	int format;
	const char *output;
	long long top;
	const char *from, *to;
	struct {
		pid_t *pid;
		size_t n;
	} pids;
	const char *comm;
	const char *symfs, *debug_dir;
	int verbose;
};

static const char *opt_report_format(const struct opt *o, const char *arg,
				     void *dst)
{
	if (!strcmp(arg, "text"))
		*(int *)dst = FORMAT_TEXT;
	else if (!strcmp(arg, "folded"))
		*(int *)dst = FORMAT_FOLDED;
	else
		return "unknown format (text, folded)";
	if ((*(int *)dst == FORMAT_TEXT && !ENABLE_FORMAT_TEXT) ||
	    (*(int *)dst == FORMAT_FOLDED && !ENABLE_FORMAT_FOLDED))
		return "not in this build (see its configuration)";
	return NULL;
}

static const char *opt_report_pids(const struct opt *o, const char *arg,
				   void *dst)
{
	typeof(((struct report_args *)0)->pids) *p = dst;
	size_t cap = p->n;

	for (const char *s = arg; *s;) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || (*end && *end != ',') || v <= 0)
			return "not a process id (PID[,PID...])";
		p->pid = grow_array(p->pid, &cap, p->n + 1, sizeof(*p->pid));
		p->pid[p->n++] = v;
		s = *end ? end + 1 : end;
	}
	return p->n ? NULL : "no process id given";
}

#define R struct report_args
static const struct opt report_opts[] = {
	OPT_CUSTOM('f', "format", "FORMAT", opt_report_format, R, format,
		   ENABLE_FORMAT_TEXT ? "text" : "folded"),
	OPT_STRING('o', "output", "FILE", R, output, NULL),
	OPT_INT(0, "top", "N", R, top, 1, 1LL << 40, NULL),
	OPT_STRING(0, "from", "TIME", R, from, NULL),
	OPT_STRING(0, "to", "TIME", R, to, NULL),
	OPT_CUSTOM(0, "pid", "PID[,PID...]", opt_report_pids, R, pids, NULL),
	OPT_STRING(0, "comm", "NAME", R, comm, NULL),
	OPT_STRING(0, "symfs", "DIR", R, symfs, NULL),
	OPT_STRING(0, "debug-dir", "DIR", R, debug_dir, NULL),
	OPT_FLAG('v', "verbose", R, verbose),
	OPT_END,
};
#undef R

/* ---- time slicing ---- */
struct when {
	bool set, relative;
	double t; /* seconds: since the epoch, or after the first snapshot */
};

static struct when parse_when(const char *opt, const char *s)
{
	struct when w = {.set = s != NULL};
	struct tm tm = {0};
	uint64_t ns;
	char *end;

	if (!s)
		return w;
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
	struct stack_cache *stacks;
	size_t stacks_put; /* dictionary entries already in the cache */
	size_t ksyms_built;
	const struct bin_state *st;
	struct when from, to;
	double first; /* start of the first snapshot, for +DURATION */
	bool have_first;
	unsigned long written;
	int failed;
};

/* The collector's aux_name() for this stream: from its dictionary. */
static const struct bin_state *aux_state;
static const char *recorded_aux_name(__u32 aux)
{
	for (size_t i = 0; aux_state && i < aux_state->naux; i++)
		if (aux_state->aux_val[i] == aux)
			return aux_state->aux_name[i];
	return "?";
}

static const struct bin_state *cgroup_state;
static const char *recorded_cgroup(__u64 id)
{
	for (size_t i = 0; cgroup_state && i < cgroup_state->ncgroups; i++)
		if (cgroup_state->cgroup_id[i] == id)
			return cgroup_state->cgroup_path[i];
	return NULL;
}

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

static struct elf_symtab *find_file(void *ctx, const char *path,
				    const char *build_id)
{
	struct report *rp = ctx;
	struct elf_symtab *t = NULL;

	if (rp->a->debug_dir && strlen(build_id) > 2) {
		char *p = xasprintf("%s/.build-id/%.2s/%s.debug",
				    rp->a->debug_dir, build_id, build_id + 2);

		t = open_checked(p, "", "");
		free(p);
	}
	if (!t && rp->a->symfs)
		t = open_checked(path, rp->a->symfs, build_id);
	if (!t && !rp->a->symfs)
		t = open_checked(path, "", build_id);
	if (!t)
		verbose("%s (build-id %s): no file found, frames stay "
			"[module+offset]",
			path, *build_id ? build_id : "unknown");
	return t;
}

/* ---- from the reader ---- */
static void on_key(void *ctx, const struct bin_state *st)
{
	struct report *rp = ctx;

	/* dictionary indexes start again: so do the stack ids */
	stack_cache_free(rp->stacks);
	rp->stacks = stack_cache_new(-1);
	rp->stacks_put = 0;
	rp->ksyms_built = (size_t)-1;
	output_set_stacks(rp->out, rp->stacks);
}

static void on_maps(void *ctx, uint32_t tgid, const struct proc_map *m,
		    size_t n)
{
	struct report *rp = ctx;
	struct proc_syms *ps = output_procs(rp->out);

	if (ENABLE_SYMBOLIZE && ps)
		proc_syms_record(ps, tgid, m, n);
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

static void sync_dictionaries(struct report *rp, const struct bin_state *st)
{
	for (; rp->stacks_put < st->nstacks; rp->stacks_put++)
		stack_cache_put(rp->stacks, BIN_REF0 + rp->stacks_put,
				st->stacks[rp->stacks_put].ip,
				st->stacks[rp->stacks_put].n);
	if (ENABLE_SYMBOLIZE && rp->ksyms_built != st->nksyms) {
		output_set_ksyms(rp->out,
				 ksyms_from_pairs(st->ksym_addr, st->ksym_name,
						  st->nksyms));
		rp->ksyms_built = st->nksyms;
	}
	aux_state = cgroup_state = st;
}

static void on_snapshot(void *ctx, const struct bin_state *st,
			struct snapshot *s)
{
	struct report *rp = ctx;
	size_t n = 0;

	if (!in_time(rp, s))
		return;
	for (size_t i = 0; i < s->nrows; i++)
		if (row_wanted(rp->a, &s->rows[i]))
			s->rows[n++] = s->rows[i];
	s->nrows = n;
	s->aux_name = st->has_aux ? recorded_aux_name : NULL;
	sync_dictionaries(rp, st);
	if (output_snapshot(rp->out, s))
		rp->failed = 1;
	rp->written++;
}

/* ---- inputs ---- */
static void say_skipped(const char *name, const struct bin_stats *st)
{
	if (st->bytes_skipped || st->bad_frames || st->frames_unsynced ||
	    st->snapshots_broken || st->snapshots_missing)
		error_msg("%s: skipped %llu bytes (%llu bad frames) and %llu "
			  "frames before a key frame; %llu snapshots "
			  "incomplete, %llu missing",
			  name, (unsigned long long)st->bytes_skipped,
			  (unsigned long long)st->bad_frames,
			  (unsigned long long)st->frames_unsynced,
			  (unsigned long long)st->snapshots_broken,
			  (unsigned long long)st->snapshots_missing);
	if (st->unwritten)
		error_msg("%s: the collector could not write %llu snapshots "
			  "(its sink failed)",
			  name, (unsigned long long)st->unwritten);
	if (!st->snapshots)
		error_msg("%s: no complete snapshot", name);
}

static int read_input(struct report *rp, const char *name)
{
	const struct bin_reader_ops ops = {
		.ctx = rp,
		.key = on_key,
		.maps = on_maps,
		.snapshot = on_snapshot,
	};
	struct bin_reader *r = bin_reader_new(&ops);
	bool is_stdin = !strcmp(name, "-");
	int fd = is_stdin ? 0 : open(name, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;
	int err = 0;

	if (fd < 0) {
		perror_msg("%s", name);
		bin_reader_free(r);
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
		bin_reader_feed(r, buf, n);
	}
	bin_reader_end(r);
	say_skipped(is_stdin ? "standard input" : name, bin_reader_stats(r));
	if (!bin_reader_stats(r)->snapshots)
		err = 1;
	if (!is_stdin)
		close(fd);
	bin_reader_free(r);
	return err;
}

static int report_main(void *args, int argc, char **argv)
{
	struct report_args *a = args;
	struct collect_opts o = {
		.format = a->format, .output = a->output, .top = a->top};
	struct report rp = {.a = a};
	int err = 0;

	verbose_level = a->verbose;
	rp.from = parse_when("--from", a->from);
	rp.to = parse_when("--to", a->to);
	rp.out = output_open(&o);
	output_set_cgroup_names(rp.out, recorded_cgroup);
	if (ENABLE_SYMBOLIZE && output_procs(rp.out))
		proc_syms_set_finder(output_procs(rp.out), find_file, &rp);
	rp.stacks = stack_cache_new(-1);
	output_set_stacks(rp.out, rp.stacks);
	if (!argc)
		err |= read_input(&rp, "-");
	for (int i = 0; i < argc; i++)
		err |= read_input(&rp, argv[i]);
	if (output_close(rp.out))
		err = 1;
	stack_cache_free(rp.stacks);
	return err || rp.failed;
}

APPLET_DEFINE(report, report_main, report_opts, struct report_args);
