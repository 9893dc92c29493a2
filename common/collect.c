// SPDX-License-Identifier: GPL-2.0
/* The collector core's lifecycle; see collect.h. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "collect.h"
#include "output.h"
#include "output_sink.h"
#include "privs.h"
#include "sink.h"
#include "stacks.h"
#include "syms.h"
#include "unwind.h"

#define MAX_HOOKS	     8
#define STACK_KEEP_INTERVALS 4	     /* unused stacks stay cached this long */
#define FLIP_GRACE_NS	     1000000 /* for BPF programs still on the old map */

/* ---- the common CLI ---- */

static const char *opt_pids(const struct opt *o, const char *arg, void *dst)
{
	typeof(((struct collect_opts *)0)->pids) *p = dst;
	char *copy = xstrdup(arg), *tok, *save = NULL;
	size_t cap = p->n;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || v <= 0 || v > 0x3fffffff) {
			free(copy);
			return "not a process id (PID[,PID...])";
		}
		p->pid = grow_array(p->pid, &cap, p->n + 1, sizeof(*p->pid));
		p->pid[p->n++] = v;
	}
	free(copy);
	return p->n ? NULL : "no process id given";
}

static const char *opt_format(const struct opt *o, const char *arg, void *dst)
{
	if (!strcmp(arg, "text"))
		*(int *)dst = FORMAT_TEXT;
	else if (!strcmp(arg, "folded"))
		*(int *)dst = FORMAT_FOLDED;
	else if (!strcmp(arg, "bin"))
		*(int *)dst = FORMAT_BIN;
	else
		return "unknown format (text, folded, bin)";
	if ((*(int *)dst == FORMAT_TEXT && !ENABLE_FORMAT_TEXT) ||
	    (*(int *)dst == FORMAT_FOLDED && !ENABLE_FORMAT_FOLDED) ||
	    (*(int *)dst == FORMAT_BIN && !ENABLE_FORMAT_BIN))
		return "not in this build (see its configuration)";
	return NULL;
}

/* SIZE[,COUNT]: 10M, 512k, 100000; COUNT old files kept (default 2).
 * Unused in a build without the file sink. */
static __attribute__((unused)) const char *
opt_rotate(const struct opt *o, const char *arg, void *dst)
{
	typeof(((struct collect_opts *)0)->rotate) *r = dst;
	char *end;
	double v = strtod(arg, &end);
	long count = 2;

	switch (*end) {
	case 'k':
	case 'K':
		v *= 1024, end++;
		break;
	case 'm':
	case 'M':
		v *= 1024 * 1024, end++;
		break;
	case 'g':
	case 'G':
		v *= 1024 * 1024 * 1024, end++;
		break;
	}
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
	if (!strcmp(arg, "fp"))
		*(int *)dst = SB_UNWIND_FP;
	else if (!strcmp(arg, "eh_frame"))
		*(int *)dst = SB_UNWIND_EH_FRAME;
	else
		return "unknown unwinder (fp, eh_frame)";
	if (*(int *)dst == SB_UNWIND_EH_FRAME && !ENABLE_UNWIND_EH_FRAME)
		return "not in this build (CONFIG_UNWIND_EH_FRAME)";
	return NULL;
}

/* IF_X() entries stand on lines of their own: keep clang-format out. */
/* clang-format off */
#define C struct collect_opts
const struct opt collect_options[] = {
	OPT_CUSTOM('p', "pid", "PID[,PID...]", opt_pids, C, pids, NULL),
	OPT_STRING('c', "cgroup", "CGROUP", C, cgroup, NULL),
	OPT_DURATION('d', "duration", "DURATION", C, duration, 1, 1LL << 62,
		     NULL),
	OPT_DURATION('i', "interval", "INTERVAL", C, interval, 0, 1LL << 62,
		     "5s"),
	OPT_FLAG_X('U', "user", C, user_only, "K"),
	OPT_FLAG_X('K', "kernel", C, kernel_only, "U"),
	OPT_CUSTOM('f', "format", "FORMAT", opt_format, C, format,
		   ENABLE_FORMAT_TEXT ? "text" : "folded"),
	IF_SINK_FILE(OPT_STRING('o', "output", "FILE", C, output, NULL),)
	IF_SINK_FILE(OPT_CUSTOM(0, "rotate", "SIZE[,COUNT]", opt_rotate, C,
				rotate, NULL),)
	IF_SINK_FILE(OPT_INT(0, "baud", "N", C, baud, 50, 4000000, NULL),)
	OPT_CUSTOM(0, "status", "kmsg|syslog", opt_status, C, status, NULL),
	OPT_INT(0, "top", "N", C, top, 1, 1LL << 40, NULL),
	OPT_INT(0, "stacks", "N", C, stacks, 1, 1 << 24, "8192"),
	OPT_INT(0, "rows", "N", C, rows, 1, 1 << 24, "10240"),
	OPT_CUSTOM(0, "unwind", "HOW", opt_unwind, C, unwind, "fp"),
	OPT_INT(0, "unwind-rows", "N", C, unwind_rows, 1024, 1 << 24, "262144"),
	OPT_FLAG('v', "verbose", C, verbose),
	OPT_END,
};
#undef C

const char collect_usage[] =
	"  -p PID[,PID...]  only these processes (all their threads)\n"
	"  -c CGROUP        only this cgroup v2 (path, absolute or below its "
	"mount)\n"
	"  -d DURATION      stop after DURATION (10, 10s, 500ms, 2m); "
	"default: at a signal\n"
	"  -i INTERVAL      a snapshot every INTERVAL (default 5s); 0: one "
	"at the end\n"
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
	"  --unwind HOW     user stacks by fp: frame pointers (default), or "
	"eh_frame:\n"
	"                   .eh_frame tables, for code without frame "
	"pointers (5.17+)\n"
	"  --unwind-rows N  eh_frame: table rows for all files (262144, 12 "
	"bytes each)\n"
	"  -v               say which attach path was chosen, what fell back, "
	"what was dropped\n"
	"  -- CMD [ARG]...  start CMD once attached, profile only it, stop "
	"when it exits\n"
	"                   and exit with its status\n";
/* clang-format on */

/* ---- run state ---- */

struct collector {
	const struct collector_ops *ops;
	struct collect_opts *o;
	void *args;
	void *skel;
	struct bpf_object *obj;
	struct sb_config *cfg;
	__u32 *active;
	unsigned choice[MAX_HOOKS];
	struct bpf_link **links;
	size_t nlinks, links_cap;
	int sigfd, epfd;
	struct ring_buffer *events;
	struct stack_cache *stacks;
	struct output *out;
	struct proc_syms *procs;
	struct unwind *unwind;
	__u64 stats_prev[SB_STAT_MAX];
	pid_t child;
	int child_status;
	int *cpus, ncpus;
	char describe[256];
	unsigned long seq;
	struct timespec interval_start;
};

void collect_keep_link(struct collector *c, struct bpf_link *link)
{
	c->links = grow_array(c->links, &c->links_cap, c->nlinks + 1,
			      sizeof(*c->links));
	c->links[c->nlinks++] = link;
}

/* Parse a CPU list like "0-3,5" (sysfs online/possible format). */
static int parse_cpu_list(const char *s, int **cpus)
{
	size_t cap = 0;
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i < 65536; i++) {
			*cpus = grow_array(*cpus, &cap, n + 1, sizeof(**cpus));
			(*cpus)[n++] = i;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int collect_ncpus(struct collector *c, int **cpus)
{
	if (!c->cpus) {
		char *s = read_file("/sys/devices/system/cpu/online", NULL);

		c->ncpus = s ? parse_cpu_list(s, &c->cpus) : 0;
		free(s);
		if (!c->ncpus)
			error_exit("cannot read the online CPUs from "
				   "/sys/devices/system/cpu/online");
	}
	*cpus = c->cpus;
	return c->ncpus;
}

bool collect_tracepoint_exists(const char *category, const char *name)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[256];

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/id",
				 roots[i], category, name);
			if (!access(path, R_OK))
				return true;
		}
		/* not mounted by default on every system */
		if (pass || mount("tracefs", roots[0], "tracefs", 0, NULL))
			break;
		verbose("mounted tracefs on %s", roots[0]);
	}
	return false;
}

int collect_tracepoint_field(const char *category, const char *name,
			     const char *field, unsigned *size)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[256], *fmt = NULL, *line, *save = NULL;
	int offset = -1;

	if (!collect_tracepoint_exists(category, name))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(roots) && !fmt; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", roots[i],
			 category, name);
		fmt = read_file(path, NULL);
	}
	/* "\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;" */
	for (line = fmt ? strtok_r(fmt, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *decl = strstr(line, "field:"), *end, *id;
		unsigned off, sz;

		if (!decl || !(end = strchr(decl, ';')))
			continue;
		*end = 0;
		if ((id = strchr(decl, '[')))
			*id = 0; /* char comm[16] */
		id = decl + strlen(decl);
		while (id > decl &&
		       (isalnum((unsigned char)id[-1]) || id[-1] == '_'))
			id--;
		if (strcmp(id, field) ||
		    sscanf(end + 1, " offset:%u; size:%u;", &off, &sz) != 2)
			continue;
		offset = off;
		if (size)
			*size = sz;
		break;
	}
	free(fmt);
	return offset;
}

/* ---- libbpf's messages: kept for errors, printed under -v -v ---- */

static char libbpf_last[512];
static char libbpf_failed_prog[128];

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char line[512];
	const char *p;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (level != LIBBPF_DEBUG)
		snprintf(libbpf_last, sizeof(libbpf_last), "%s", line);
	/* "libbpf: prog 'NAME': failed to load: -13" names the culprit */
	if ((p = strstr(line, "prog '")) && strstr(line, "failed to load")) {
		const char *q = strchr(p + 6, '\'');

		if (q)
			snprintf(libbpf_failed_prog, sizeof(libbpf_failed_prog),
				 "%.*s", (int)(q - p - 6), p + 6);
	}
	if (verbose_level > 1 || (verbose_level && level == LIBBPF_WARN))
		fprintf(stderr, "%s", line);
	return 0;
}

/* ---- the attach plan ---- */

/* The kernel's own ENOTSUPP (524), which BPF attach and load paths
 * return, is no libc errno: musl prints "No error information". */
static const char *bpf_strerror(int err)
{
	return err == 524 ? "not supported by this kernel (ENOTSUPP)"
			  : strerror(err);
}

static const struct attach_hook *hook(const struct collector *c, unsigned h)
{
	return c->ops->hooks && c->ops->hooks[h].what ? &c->ops->hooks[h]
						      : NULL;
}
static bool hook_on(const struct collector *c, unsigned h)
{
	const struct attach_hook *hk = hook(c, h);

	return !hk->enabled || hk->enabled(c->args);
}

bool collect_forced(const char *label)
{
	const char *want = getenv("STACKBOX_ATTACH");
	size_t len = strlen(label);

	for (const char *p = want; p && *p;
	     p += strcspn(p, ",") + !!p[strcspn(p, ",")])
		if (strcspn(p, ",") == len && !strncmp(p, label, len))
			return true;
	return false;
}

/* The first usable alternative at or after from; -1 when none is left. */
static int next_alt(const struct attach_hook *hk, unsigned from)
{
	bool any_forced = false;

	for (unsigned i = 0; hk->alts[i].prog; i++)
		any_forced |= collect_forced(hk->alts[i].label);
	for (unsigned i = from; hk->alts[i].prog; i++) {
		if (any_forced && !collect_forced(hk->alts[i].label))
			continue;
		if (!hk->alts[i].usable || hk->alts[i].usable())
			return i;
		verbose("%s: %s is not available here", hk->what,
			hk->alts[i].label);
	}
	return -1;
}

static void fall_back(struct collector *c, unsigned h, const char *why)
{
	const struct attach_hook *hk = hook(c, h);
	const char *was = hk->alts[c->choice[h]].label;
	int next = next_alt(hk, c->choice[h] + 1);

	if (next < 0)
		error_exit("cannot attach to %s: %s failed (%s) and no other "
			   "way is left (run with -v -v for libbpf's log)",
			   hk->what, was, why);
	c->choice[h] = next;
	verbose("%s: %s failed (%s), falling back to %s", hk->what, was, why,
		hk->alts[next].label);
}

static void set_autoload(struct collector *c)
{
	bool procs = c->cfg->track_procs;

	bpf_program__set_autoload(
		bpf_object__find_program_by_name(c->obj, "sb_on_exec"), procs);
	bpf_program__set_autoload(
		bpf_object__find_program_by_name(c->obj, "sb_on_exit"), procs);
	for (unsigned h = 0; hook(c, h); h++)
		for (unsigned i = 0; hook(c, h)->alts[i].prog; i++) {
			const char *name = hook(c, h)->alts[i].prog;
			struct bpf_program *p =
				bpf_object__find_program_by_name(c->obj, name);

			if (!p)
				error_exit("BPF program %s missing from the "
					   "object",
					   name);
			bpf_program__set_autoload(p, hook_on(c, h) &&
							     i == c->choice[h]);
		}
}

static void fill_config(struct collector *c)
{
	struct collect_opts *o = c->o;
	struct sb_config *cfg = c->cfg;
	struct bpf_map *stacks;

	cfg->user_stacks = !o->kernel_only;
	cfg->kern_stacks = !o->user_only;
	cfg->filter_tgid = o->pids.n || c->child;
	cfg->per_thread = c->ops->per_thread;
	cfg->track_procs = ENABLE_SYMBOLIZE && cfg->user_stacks;
	cfg->cgroup_id = o->cgroup ? cgroup_id(o->cgroup) : 0;
	/* the memory the BPF side may use, bounded by the user */
	stacks = bpf_object__find_map_by_name(c->obj, "sb_stacks");
	bpf_map__set_max_entries(stacks, o->stacks);
	if (c->ops->prealloc_stacks)
		bpf_map__set_map_flags(stacks, bpf_map__map_flags(stacks) &
						       ~BPF_F_NO_PREALLOC);
	bpf_map__set_max_entries(
		bpf_object__find_map_by_name(c->obj, "sb_counts0"), o->rows);
	bpf_map__set_max_entries(
		bpf_object__find_map_by_name(c->obj, "sb_counts1"), o->rows);
	unwind_free(c->unwind); /* a new object on each attempt */
	c->unwind = ENABLE_UNWIND_EH_FRAME && cfg->user_stacks
			    ? unwind_configure(c->obj, cfg, o->unwind,
					       o->unwind_rows)
			    : NULL;
}

/* Load the attach links of the chosen programs. 0, or the failing hook + 1. */
static int attach_plan(struct collector *c)
{
	static const char *const core[] = {"sb_on_exec", "sb_on_exit"};

	for (unsigned h = 0; hook(c, h); h++) {
		const char *name = hook(c, h)->alts[c->choice[h]].prog;
		struct bpf_link *l;

		if (!hook_on(c, h))
			continue;
		l = bpf_program__attach(
			bpf_object__find_program_by_name(c->obj, name));
		if (!l) {
			int err = errno;
			const char *way = hook(c, h)->alts[c->choice[h]].label;

			/* ENOTSUPP: the kernel cannot attach this way at all
			 * (fentry without BPF trampolines, arm64 before 6.0):
			 * every hook waiting to try it falls back now, not
			 * one per reload */
			for (unsigned o = h + 1; err == 524 && hook(c, o); o++)
				if (hook_on(c, o) &&
				    !strcmp(hook(c, o)
						    ->alts[c->choice[o]]
						    .label,
					    way))
					fall_back(c, o, bpf_strerror(err));
			fall_back(c, h, bpf_strerror(err));
			return h + 1;
		}
		collect_keep_link(c, l);
		verbose("%s: attached with %s", hook(c, h)->what,
			hook(c, h)->alts[c->choice[h]].label);
		status_say("%s: attached with %s", hook(c, h)->what,
			   hook(c, h)->alts[c->choice[h]].label);
	}
	for (size_t i = 0; c->cfg->track_procs && i < ARRAY_SIZE(core); i++) {
		struct bpf_link *l = bpf_program__attach(
			bpf_object__find_program_by_name(c->obj, core[i]));

		if (!l)
			error_exit("attaching %s: %s (user frames of processes "
				   "that exit may stay unresolved)",
				   core[i], bpf_strerror(errno));
		collect_keep_link(c, l);
	}
	return 0;
}

static void destroy_bpf(struct collector *c)
{
	for (size_t i = 0; i < c->nlinks; i++)
		bpf_link__destroy(c->links[i]);
	c->nlinks = 0;
	if (c->skel)
		c->ops->destroy(c->skel);
	c->skel = NULL;
}

static void open_load_attach(struct collector *c)
{
	for (unsigned h = 0; hook(c, h); h++) {
		int first = next_alt(hook(c, h), 0);

		if (h >= MAX_HOOKS)
			error_exit("more than %d hooks in the attach plan",
				   MAX_HOOKS);
		if (first < 0)
			error_exit("cannot attach to %s: none of its ways is "
				   "available on this kernel",
				   hook(c, h)->what);
		c->choice[h] = first;
	}
	for (int attempt = 0; attempt < 16; attempt++) {
		int err;

		c->skel = c->ops->open(&c->obj, &c->cfg);
		if (!c->skel)
			perror_exit("opening the BPF object");
		fill_config(c);
		set_autoload(c);
		if (c->ops->configure &&
		    (err = c->ops->configure(c, c->skel, c->args)))
			error_exit("configuring the BPF object: %s",
				   strerror(-err));
		libbpf_failed_prog[0] = 0;
		err = c->ops->load(c->skel, &c->active);
		if (err) {
			bool fell = false;

			for (unsigned h = 0;
			     hook(c, h) && libbpf_failed_prog[0]; h++)
				if (!strcmp(hook(c, h)->alts[c->choice[h]].prog,
					    libbpf_failed_prog)) {
					fall_back(c, h, bpf_strerror(-err));
					fell = true;
				}
			if (!fell)
				error_exit(
					"loading the BPF programs failed: %s%s",
					bpf_strerror(-err),
					-err == EPERM
						? " (run as root: CAP_BPF and CAP_PERFMON "
						  "are needed)"
						: " (-v -v shows libbpf's log)");
			destroy_bpf(c);
			continue;
		}
		sb_elf_release(); /* libbpf is done with the object's ELF */
		unwind_loaded(c->unwind);
		if (attach_plan(c)) { /* it fell back: load again */
			destroy_bpf(c);
			continue;
		}
		if (c->ops->attach &&
		    (err = c->ops->attach(c, c->skel, c->args)))
			error_exit("attaching: %s", bpf_strerror(-err));
		return;
	}
	error_exit("could not find a working attach plan");
}

/* ---- processes: -p and -- CMD ---- */

static pid_t tgid_of(pid_t pid)
{
	char path[64], *s, *t;
	pid_t tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	s = read_file(path, NULL);
	if (s && (t = strstr(s, "\nTgid:")))
		tgid = atoi(t + 6);
	free(s);
	return tgid;
}

static void add_tgid(struct collector *c, pid_t tgid)
{
	__u8 one = 1;
	__u32 key = tgid;

	if (bpf_map__update_elem(
		    bpf_object__find_map_by_name(c->obj, "sb_tgids"), &key,
		    sizeof(key), &one, sizeof(one), BPF_ANY))
		perror_exit("adding process %d to the filter", tgid);
}

/*
 * The child waits on a pipe until everything is attached, then stops at
 * its exec (PTRACE_TRACEME): its mappings are read before it runs, so a
 * CMD that exits before its first process event is handled still
 * resolves, and the applet attaches to its libraries (ops->target).
 */
static bool stops_at_exec(const struct collector *c)
{
	return ENABLE_SYMBOLIZE || c->ops->target;
}

static pid_t spawn_waiting(char **cmd, int *go, bool stop_at_exec)
{
	int p[2];
	pid_t pid;
	char byte;

	if (pipe2(p, O_CLOEXEC))
		perror_exit("pipe");
	pid = fork();
	if (pid < 0)
		perror_exit("fork");
	if (!pid) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[1]);
		if (read(p[0], &byte, 1) != 1)
			_exit(127); /* the collector gave up before attaching */
		if (stop_at_exec)
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(cmd[0], cmd);
		perror_msg("cannot run %s", cmd[0]);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void start_child(struct collector *c, int go, const char *name)
{
	int st;

	if (!stops_at_exec(c)) /* it is not stopped at its exec */
		add_tgid(c, c->child);
	if (write(go, "g", 1) != 1)
		perror_exit("starting %s", name);
	close(go);
	if (!stops_at_exec(c))
		return;
	if (waitpid(c->child, &st, 0) != c->child)
		perror_exit("waiting for %s to start", name);
	if (!WIFSTOPPED(st)) { /* exec failed: it has exited */
		c->child_status = st;
		c->child = -1;
		return;
	}
	/* profiled from its exec: before it, it was this program waiting */
	add_tgid(c, c->child);
	/* its libraries too: their symbols and unwind tables are read
	 * before it runs */
	if (collect_run_to_entry(c->child, &st) < 0) {
		c->child_status = st;
		c->child = -1;
		return;
	}
	/* events from before the exec first, so none is handled after this */
	if (c->events)
		ring_buffer__consume(c->events);
	if (c->procs)
		proc_syms_capture(c->procs, c->child);
	unwind_process(c->unwind, c->child);
	if (c->ops->target)
		c->ops->target(c, c->skel, c->args, c->child);
	ptrace(PTRACE_DETACH, c->child, NULL, NULL);
}

/* ---- every interval ---- */

static void read_stats(struct collector *c, __u64 delta[SB_STAT_MAX])
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(c->obj, "sb_stats"));
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = xmalloc(ncpu * sizeof(*v));

	for (__u32 i = 0; i < SB_STAT_MAX; i++) {
		__u64 sum = 0;

		if (!bpf_map_lookup_elem(fd, &i, v))
			for (int cpu = 0; cpu < ncpu; cpu++)
				sum += v[cpu];
		delta[i] = sum - c->stats_prev[i];
		c->stats_prev[i] = sum;
	}
	free(v);
}

/* Take the rows of the buffer BPF is no longer writing to. */
static struct row *drain_rows(struct collector *c, int fd, size_t *nrows)
{
	struct sb_key key, next;
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	__u64 v[SB_MAX_VALUES];
	int more = !bpf_map_get_next_key(fd, NULL, &key);

	while (more) {
		more = !bpf_map_get_next_key(fd, &key, &next);
		memset(v, 0, sizeof(v));
		if (!bpf_map_lookup_elem(fd, &key, v)) {
			rows = grow_array(rows, &cap, n + 1, sizeof(*rows));
			memset(&rows[n], 0, sizeof(rows[n]));
			rows[n].key = key;
			memcpy(rows[n].v, v, sizeof(v));
			n++;
		}
		bpf_map_delete_elem(fd, &key);
		key = next;
	}
	*nrows = n;
	return rows;
}

static int by_key(const void *a, const void *b)
{
	return memcmp(&((const struct row *)a)->key,
		      &((const struct row *)b)->key, sizeof(struct sb_key));
}

static bool all_zero(const struct row *r)
{
	for (unsigned m = 0; m < SB_MAX_VALUES; m++)
		if (r->v[m])
			return false;
	return true;
}

/* The applet's state rows join the interval's: rows of one key become
 * one, and every stack a row names stays cached. */
static void merge_state_rows(struct collector *c, struct snapshot *s)
{
	struct row *extra = NULL;
	size_t n = c->ops->state_rows(c, c->skel, &extra), kept = 0;
	unsigned depth;

	s->rows = xrealloc(s->rows, (s->nrows + n + 1) * sizeof(*s->rows));
	memcpy(s->rows + s->nrows, extra, n * sizeof(*extra));
	s->nrows += n;
	free(extra);
	qsort(s->rows, s->nrows, sizeof(*s->rows), by_key);
	for (size_t i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		stack_cache_get(c->stacks, r->key.user_stack, &depth);
		stack_cache_get(c->stacks, r->key.kern_stack, &depth);
		stack_cache_get(c->stacks, r->key.other_user_stack, &depth);
		stack_cache_get(c->stacks, r->key.other_kern_stack, &depth);
		if (kept && !by_key(&s->rows[kept - 1], r))
			for (unsigned m = 0; m < SB_MAX_VALUES; m++)
				s->rows[kept - 1].v[m] += r->v[m];
		else
			s->rows[kept++] = *r;
	}
	s->nrows = kept;
}

/* Rows with nothing to show, whichever applet made them. */
static void drop_zero_rows(struct snapshot *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nrows; i++)
		if (!all_zero(&s->rows[i]))
			s->rows[kept++] = s->rows[i];
	s->nrows = kept;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static int snapshot(struct collector *c, bool final)
{
	struct snapshot s = {0};
	__u64 stats[SB_STAT_MAX];
	const char *map;
	struct timespec grace = {0, FLIP_GRACE_NS};
	char unwind[256];
	int err;

	struct timespec flip_wall;
	__u64 flip = now_ns();

	/* the interval ends at the flip, where the accounting splits */
	clock_gettime(CLOCK_REALTIME, &flip_wall);
	map = *c->active ? "sb_counts1" : "sb_counts0";
	*c->active = !*c->active;
	nanosleep(&grace, NULL);
	if (c->ops->before_drain &&
	    (err = c->ops->before_drain(c, c->skel, flip)))
		error_msg("snapshot %lu: %s", c->seq + 1, strerror(-err));
	s.rows = drain_rows(
		c, bpf_map__fd(bpf_object__find_map_by_name(c->obj, map)),
		&s.nrows);
	stack_cache_drain(c->stacks);
	/* the interval's rows come from one BPF map: keys differ there */
	if (c->ops->state_rows)
		merge_state_rows(c, &s);
	drop_zero_rows(&s);
	read_stats(c, stats);

	s.applet = applet_name;
	s.seq = ++c->seq;
	s.final = final;
	s.start = c->interval_start;
	s.end = flip_wall;
	c->interval_start = s.end;
	s.metrics = c->ops->metrics;
	s.nmetrics = c->ops->nmetrics;
	s.primary = c->ops->primary ? c->ops->primary(c->args) : 0;
	s.describe = c->describe;
	s.aux_name = c->ops->aux_name;
	s.per_thread = c->ops->per_thread;
	s.lost_ustacks = stats[SB_STAT_USTACK_LOST];
	s.lost_kstacks = stats[SB_STAT_KSTACK_LOST];
	s.dropped_rows = stats[SB_STAT_ROWS_DROPPED];
	s.dropped_events = stats[SB_STAT_EVENTS_DROPPED];
	if (c->unwind) {
		unwind_describe(c->unwind, unwind, sizeof(unwind));
		s.unwind = unwind;
		s.unwind_unknown = stats[SB_STAT_UNWIND_UNKNOWN];
	}
	s.applet_stat_names = c->ops->stat_names;
	for (unsigned i = 0; i < ARRAY_SIZE(s.applet_stats); i++)
		s.applet_stats[i] = stats[SB_STAT_APPLET0 + i];
	err = output_snapshot(c->out, &s);
	if (s.lost_ustacks + s.lost_kstacks + s.dropped_rows + s.dropped_events)
		status_say(
			"snapshot %lu lost %llu user and %llu kernel stacks, "
			"%llu events, %llu process events",
			s.seq, (unsigned long long)s.lost_ustacks,
			(unsigned long long)s.lost_kstacks,
			(unsigned long long)s.dropped_rows,
			(unsigned long long)s.dropped_events);
	if (s.lost_ustacks + s.lost_kstacks + s.dropped_rows + s.dropped_events)
		verbose("snapshot %lu lost %llu user and %llu kernel stacks, "
			"%llu events, %llu process events",
			s.seq, (unsigned long long)s.lost_ustacks,
			(unsigned long long)s.lost_kstacks,
			(unsigned long long)s.dropped_rows,
			(unsigned long long)s.dropped_events);
	stack_cache_expire(c->stacks, STACK_KEEP_INTERVALS);
	free(s.rows);
	return err;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct collector *c = ctx;
	const struct sb_event *e = data;

	if (len < sizeof(*e))
		return 0;
	switch (e->type) {
	case SB_EV_EXEC:
		unwind_exit(c->unwind, e->tgid); /* nothing of it stays */
						 /* fall through */
	case SB_EV_NEW_TGID:
	case SB_EV_UNWIND_MAPS:
		unwind_process(c->unwind, e->tgid);
		break;
	case SB_EV_EXIT:
		unwind_exit(c->unwind, e->tgid);
		break;
	}
	if (!ENABLE_SYMBOLIZE || !c->procs)
		return 0;
	switch (e->type) {
	case SB_EV_NEW_TGID:
		proc_syms_capture(c->procs, e->tgid);
		break;
	case SB_EV_EXEC:
		proc_syms_exec(c->procs, e->tgid);
		break;
	case SB_EV_UNWIND_MAPS: /* its code moved since the capture */
		proc_syms_capture(c->procs, e->tgid);
		break;
	case SB_EV_EXIT:
		proc_syms_exit(c->procs, e->tgid);
		break;
	}
	return 0;
}

/* Returns true when the run should end: a signal, or CMD exited. */
static bool handle_signals(struct collector *c)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(c->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGCHLD) {
			verbose("%s: final snapshot", strsignal(si.ssi_signo));
			stop = true;
			continue;
		}
		if (c->child > 0 &&
		    waitpid(c->child, &c->child_status, WNOHANG) == c->child) {
			verbose("%d exited: final snapshot", c->child);
			c->child = -1;
			stop = true;
		}
	}
	return stop;
}

static void setup_wait(struct collector *c)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sigaction old;
	sigset_t set;

	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0)
		perror_exit("epoll");
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	/* under nohup, a hangup is not a reason to stop */
	if (sigaction(SIGHUP, NULL, &old) || old.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	/* Blocked signals are queued even when ignored (a shell's background
	 * job ignores SIGINT), so signalfd sees every one sent from here on. */
	sigprocmask(SIG_BLOCK, &set, NULL);
	c->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigfd < 0)
		perror_exit("signalfd");
	ev.data.u32 = 0;
	epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->sigfd, &ev);
}

static void add_events(struct collector *c)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 1};

	if (!c->cfg->track_procs)
		return;
	c->events = ring_buffer__new(
		bpf_map__fd(bpf_object__find_map_by_name(c->obj, "sb_events")),
		on_event, c, NULL);
	if (!c->events)
		perror_exit("process event ring");
	epoll_ctl(c->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(c->events),
		  &ev);
}

static int run_loop(struct collector *c)
{
	__u64 start = now_ns();
	__u64 end = c->o->duration ? start + c->o->duration : 0;
	__u64 next = c->o->interval ? start + c->o->interval : 0;
	int failed = 0;

	for (;;) {
		struct epoll_event ev[4];
		__u64 now = now_ns(), until = 0;
		int n, timeout;

		if (next && now >= next) {
			failed |= snapshot(c, false);
			next += c->o->interval;
			if (next <=
			    now) /* a slow snapshot: skip, do not burst */
				next = now + c->o->interval;
		}
		if ((end && now >= end) ||
		    c->child < 0) /* CMD could not start */
			break;
		until = next && (!end || next < end) ? next : end;
		timeout =
			until ? (int)((until - now + NS_PER_MS - 1) / NS_PER_MS)
			      : -1;
		n = epoll_wait(c->epfd, ev, ARRAY_SIZE(ev), timeout);
		if (n < 0 && errno != EINTR)
			perror_exit("epoll_wait");
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 == 1)
				ring_buffer__consume(c->events);
			else if (handle_signals(c))
				goto done;
		}
	}
done:
	if (c->events)
		ring_buffer__consume(c->events);
	failed |= snapshot(c, true);
	return failed;
}

int collect_run(const struct collector_ops *ops, struct collect_opts *o,
		void *args, int argc, char **argv)
{
	char **cmd = argc ? argv : NULL;
	struct collector c = {.ops = ops, .o = o, .args = args, .child = 0};
	int go = -1, status;
	const char *why;

	/* operands only after "--": argv[-1] is what opts_parse stopped at */
	if (argc && strcmp(argv[-1], "--"))
		help_exit("unexpected argument '%s'", argv[0]);
	setup_wait(&c); /* first: a signal sent from now on is not lost */
	verbose_level = o->verbose;
	if ((why = status_open(o->status)))
		error_exit("--status %s: %s", o->status, why);
	libbpf_set_print(libbpf_print);
	for (size_t i = 0; i < o->pids.n; i++) {
		pid_t tgid = tgid_of(o->pids.pid[i]);

		if (tgid < 0)
			error_exit("-p %d: no such process", o->pids.pid[i]);
		o->pids.pid[i] = tgid;
	}
	if (cmd && o->pids.n)
		help_exit("-p and -- CMD cannot be used together");
	c.out = output_open(o);
	c.procs = ENABLE_SYMBOLIZE ? output_procs(c.out) : NULL;
	if (cmd)
		c.child = spawn_waiting(cmd, &go, stops_at_exec(&c));
	open_load_attach(&c);
	privs_after_attach(c.obj, ops->target); /* privs.c: what is kept */

	c.stacks = stack_cache_new(
		bpf_map__fd(bpf_object__find_map_by_name(c.obj, "sb_stacks")));
	output_set_stacks(c.out, c.stacks);
	for (size_t i = 0; i < o->pids.n; i++) {
		add_tgid(&c, o->pids.pid[i]);
		if (ENABLE_SYMBOLIZE && c.procs) /* now, while they live */
			proc_syms_capture(c.procs, o->pids.pid[i]);
		unwind_process(c.unwind, o->pids.pid[i]);
		if (ops->target)
			ops->target(&c, c.skel, args, o->pids.pid[i]);
	}
	add_events(&c);
	if (ops->describe)
		ops->describe(args, c.describe, sizeof(c.describe));
	clock_gettime(CLOCK_REALTIME, &c.interval_start);
	if (go >= 0)
		start_child(&c, go, cmd[0]);
	status_say("started, pid filter %s, %s",
		   c.child || o->pids.n ? "on" : "off", c.describe);
	status = run_loop(&c) ? 1 : 0;
	status_say("stopped after %lu snapshots", c.seq);

	ring_buffer__free(c.events);
	destroy_bpf(&c);
	unwind_free(c.unwind);
	stack_cache_free(c.stacks);
	if (output_close(c.out))
		status = 1;
	if (c.child > 0) { /* stopped by -d or a signal: CMD goes on */
		verbose("%s (pid %d) is still running", cmd[0], c.child);
	} else if (c.child < 0) {
		if (WIFEXITED(c.child_status))
			status = WEXITSTATUS(c.child_status);
		else if (WIFSIGNALED(c.child_status))
			status = 128 + WTERMSIG(c.child_status);
	}
	free(c.links);
	free(c.cpus);
	return status;
}
