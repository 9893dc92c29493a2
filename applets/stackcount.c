// SPDX-License-Identifier: GPL-2.0
/* stackcount: how often each stack reaches an event.
 *
//config:config STACKCOUNT
//config:	bool "stackcount: stacks at any event (tracepoints, probes, USDT)"
//config:	default y
//config:	help
//config:	  Counts the stacks that reach the events named on the command
//config:	  line: tracepoints, kprobes, uprobes and USDT probes, with a
//config:	  filter on a tracepoint's fields evaluated in the kernel.
//usage:usage: stackcount [--filter EXPR] [--value FIELD] [OPTIONS] EVENT... [-- CMD [ARG]...]
//usage:       stackcount --list U:FILE
//usage:
//usage:Count the call stacks that reach each EVENT (rows per event when
//usage:there are several, at most 8):
//usage:  t:CATEGORY:NAME  a tracepoint (or CATEGORY:NAME): raw_tp where the
//usage:                   kernel has it and no field is read, else classic
//usage:  k:FUNCTION       a kernel function's entry (fentry where the kernel
//usage:                   has it, else a kprobe); kr: its return (fexit, kretprobe)
//usage:  u:FILE:FUNCTION  a user function's entry (uprobe); ur: its return;
//usage:                   FILE a path, or a library name (libc, c) found in
//usage:                   the maps of -p PID or CMD
//usage:  U:FILE:PROVIDER:NAME  a USDT probe (sys/sdt.h) in FILE; its semaphore
//usage:                   is raised while attached
//usage:
//usage:  --list U:FILE    list FILE's USDT probes: PROVIDER:NAME, semaphore or -,
//usage:                   arguments
//usage:  --filter EXPR    count only records whose fields match, evaluated in
//usage:                   the kernel: FIELD OP NUMBER or FIELD ==/!= "STRING"
//usage:                   (OP: == != < <= > >=), joined with && || ! ( );
//usage:                   fields as the tracepoint's format file names them,
//usage:                   arg0..arg5 of k: and u: (k: by kprobe), ret of kr:
//usage:                   and ur:, and comm (the task's)
//usage:  --value FIELD    also sum a numeric field per stack; text sorts by
//usage:                   it and folded shows it
//usage:@COMMON
//usage:
//usage:Examples:
//usage:  stackcount -d 10 skb:kfree_skb              who frees (drops) packets
//usage:  stackcount --value len -f folded net:net_dev_xmit   bytes sent per stack
//usage:  stackcount -d 10 sched:sched_process_fork   who forks
//usage:  stackcount -p PID t:syscalls:sys_enter_fsync t:syscalls:sys_enter_fdatasync
//usage:  stackcount --filter 'count > 4096' t:syscalls:sys_enter_write
//usage:  stackcount --filter 'comm == "gst-launch"' sched:sched_switch
//usage:  stackcount -p PID u:libc:malloc             malloc's callers in PID
//usage:  stackcount --list U:/usr/lib/x86_64-linux-gnu/libstdc++.so.6
//usage:  stackcount -p PID U:libstdc++:libstdcxx:throw  who throws C++ exceptions
//usage:
//usage:STACKBOX_ATTACH=tracepoint forces classic tracepoints, kprobe kprobes.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "applet.h"
#include "collect.h"
#include "kernel.h"
#include "stackcount.h"
#include "stackcount.skel.h"
#include "stackcount/stackcount_common.h"
#include "syms.h"
#include "uprobe.h"

/* What one event attached and how. */
struct sc_state {
	struct sc_event ev[SC_MAX_EVENTS];
	struct sc_slot slot[SC_MAX_EVENTS];
	struct uprobe_fn fn[SC_MAX_EVENTS];
	struct uprobes up[SC_MAX_EVENTS];
	const char *kway[SC_MAX_EVENTS]; /* k:, kr: fentry, fexit or kprobe */
	unsigned n;
	bool targets; /* -p or CMD: uprobes per process */
};

struct stackcount_args {
	struct collect_opts common;
	const char *filter, *value, *list;
	struct sc_state *st;
};

static const struct opt stackcount_opts[] = {
	OPT_STRING(0, "filter", "EXPR", struct stackcount_args, filter, NULL,
		   .flags = OPT_SHOWN),
	OPT_STRING(0, "value", "FIELD", struct stackcount_args, value, NULL,
		   .flags = OPT_SHOWN),
	OPT_STRING(0, "list", "U:FILE", struct stackcount_args, list, NULL),
	OPT_INCLUDE(collect_options, struct stackcount_args, common),
	OPT_END,
};

static const struct metric hit_metrics[] = {
	{"hits", METRIC_COUNT},
};
static const struct metric value_metrics[] = {
	{"hits", METRIC_COUNT},
	{"value", METRIC_COUNT},
};

/* report and output ask for an aux's name with no run at hand: the
 * events of this one, set once in main. */
static const struct sc_state *named_events;

static const char *sc_aux_name(__u32 aux)
{
	if (!named_events || named_events->n < 2 || aux >= named_events->n)
		return "";
	return named_events->ev[aux].spec;
}

SB_SKELETON(stackcount)

/* ---- events ---- */

static bool is_probe(const struct sc_event *ev)
{
	return ev->type != SC_EV_TRACEPOINT;
}

/* In a user file: uprobes and USDT probes. */
static bool is_user(const struct sc_event *ev)
{
	return ev->type == SC_EV_UPROBE || ev->type == SC_EV_URETPROBE ||
	       ev->type == SC_EV_USDT;
}

static struct bpf_program *prog(void *skel, const char *kind, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "sc_%s%u", kind, i);
	return bpf_object__find_program_by_name(
		((struct stackcount_bpf *)skel)->obj, name);
}

/* Does a tracepoint's raw form do here: no record to read (it has no
 * fields), not forced classic? Its attach says the rest. */
static bool raw_wanted(const struct sc_slot *s)
{
	return !s->ninsns && !s->value_size && !attach_forced("tracepoint");
}

/* A tracepoint: its fields compiled, or a refusal naming it. */
static void tracepoint_event(struct stackcount_args *a, unsigned i)
{
	struct sc_event *ev = &a->st->ev[i];
	struct sc_slot *s = &a->st->slot[i];
	struct tp_format fmt;

	s->kind = SC_KIND_RECORD;
	if (!kernel_tracepoint_exists(ev->a, ev->b))
		error_exit("%s: no tracepoint %s:%s in tracefs (see "
			   "/sys/kernel/tracing/available_events)",
			   ev->spec, ev->a, ev->b);
	if (!a->filter && !a->value)
		return;
	tp_format_read(ev->a, ev->b, &fmt);
	if (a->filter)
		sc_filter_compile(a->filter, ev->spec, &fmt, s);
	if (a->value)
		sc_value_field(a->value, ev->spec, &fmt, s);
	tp_format_free(&fmt);
}

/* --filter and --value on a probe's arguments (k:, u:) or return value
 * (kr:, ur:), read from its registers. */
static void probe_fields(struct stackcount_args *a, unsigned i)
{
	struct sc_event *ev = &a->st->ev[i];
	struct tp_format fmt;

	if (ev->type == SC_EV_USDT)
		error_exit("%s %s: %s: a USDT probe's arguments are not fields "
			   "(tracepoints' fields, k: and u: arguments are)",
			   a->filter ? "--filter" : "--value",
			   a->filter ? a->filter : a->value, ev->spec);
	tp_format_args(ev->type == SC_EV_KRETPROBE ||
			       ev->type == SC_EV_URETPROBE,
		       &fmt);
	if (a->filter)
		sc_filter_compile(a->filter, ev->spec, &fmt, &a->st->slot[i]);
	if (a->value)
		sc_value_field(a->value, ev->spec, &fmt, &a->st->slot[i]);
	tp_format_free(&fmt);
}

static void probe_event(struct stackcount_args *a, unsigned i)
{
	struct sc_event *ev = &a->st->ev[i];
	bool kernel = ev->type == SC_EV_KPROBE || ev->type == SC_EV_KRETPROBE;

	if (kernel && !feature_usable(SB_F_FENTRY) && !kprobes_work())
		error_exit(
			"%s: this kernel has neither fentry (%s) nor kprobes "
			"(%s)",
			ev->spec, feature_needs(SB_F_FENTRY),
			feature_needs(SB_F_KPROBES));
	if (kernel && (a->filter || a->value) && !kprobes_work())
		error_exit("%s: its arguments are read by a kprobe, and this "
			   "kernel has no kprobes (%s)",
			   ev->spec, feature_needs(SB_F_KPROBES));
	if (a->filter || a->value)
		probe_fields(a, i);
	a->st->slot[i].kind = is_user(ev) ? SC_KIND_UPROBE : SC_KIND_KPROBE;
}

/* ---- uprobes ---- */

static struct bpf_program *uprobe_prog(void *ctx, unsigned fn)
{
	return ctx; /* one function per event: its slot's program */
}

static void uprobes_init(struct sc_state *st, void *skel, unsigned i)
{
	struct sc_event *ev = &st->ev[i];
	struct bpf_program *p = prog(skel, "probe", i);

	st->fn[i] = (struct uprobe_fn){
		.name = ev->b,
		.ret_only = ev->type == SC_EV_URETPROBE,
	};
	st->up[i] = (struct uprobes){
		.fns = &st->fn[i],
		.nfns = 1,
		.ret = p,
		.perf_entry = uprobe_prog,
		.ctx = p,
	};
}

/* Probe FILE's function in the file at open_path, for pid (-1: all). */
static void uprobe_file(struct sc_state *st, unsigned i, const char *name,
			const char *open_path, pid_t pid)
{
	struct sc_event *ev = &st->ev[i];
	struct uprobe_file *f;
	struct stat sb;
	int err;

	if (stat(open_path, &sb))
		error_exit("%s: %s: %s", ev->spec, name, strerror(errno));
	f = uprobes_file(&st->up[i],
			 (uint64_t)major(sb.st_dev) << 32 | minor(sb.st_dev),
			 sb.st_ino, name, open_path);
	if (!f->target)
		error_exit("%s: %s has no function %s in its symbols (stripped "
			   "without .dynsym?)",
			   ev->spec, name, ev->b);
	if (!uprobes_attached_for(f, pid) &&
	    (err = uprobes_attach(&st->up[i], f, open_path, pid)))
		error_exit("%s: attaching a uprobe in %s: %s", ev->spec, name,
			   strerror(-err));
}

/* ---- USDT probes ---- */

struct usdt_walk {
	struct collector *c;
	struct bpf_program *prog;
	const struct sc_event *ev;
	const char *open_path;
	pid_t pid;
	int attached, semaphores;
};

static void usdt_attach_one(const struct usdt_probe *p, void *arg)
{
	struct usdt_walk *w = arg;
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = p->sema_off);
	struct bpf_link *l;

	if (strcmp(p->provider, w->ev->c) || strcmp(p->name, w->ev->b))
		return;
	l = bpf_program__attach_uprobe_opts(w->prog, w->pid, w->open_path,
					    p->off, &opts);
	if (!l)
		error_exit("%s: attaching a uprobe at offset 0x%llx: %s",
			   w->ev->spec, (unsigned long long)p->off,
			   strerror(errno));
	collect_keep_link(w->c, l);
	w->attached++;
	w->semaphores += p->sema_off != 0;
}

/* U:FILE:PROVIDER:NAME in the file at open_path, for pid (-1: all):
 * every place the probe is (a probe may be in several). */
static void usdt_file(struct collector *c, void *skel, struct sc_state *st,
		      unsigned i, const char *name, const char *open_path,
		      pid_t pid)
{
	const struct sc_event *ev = &st->ev[i];
	struct usdt_walk w = {c, prog(skel, "probe", i), ev, open_path, pid};
	int n = usdt_each(open_path, usdt_attach_one, &w);

	if (n < 0)
		error_exit("%s: %s: %s", ev->spec, name,
			   errno == ENOEXEC ? "not an ELF file"
					    : strerror(errno));
	if (!n)
		error_exit("%s: %s has no USDT probes (no .note.stapsdt)",
			   ev->spec, name);
	if (!w.attached)
		error_exit("%s: %s has no USDT probe %s:%s (--list U:%s "
			   "lists its %d)",
			   ev->spec, name, ev->c, ev->b, ev->a, n);
	verbose("%s: %d uprobes in %s%s", ev->spec, w.attached, name,
		w.semaphores ? ", its semaphore raised while attached" : "");
}

/* The event's probes in one file. */
static void user_file(struct collector *c, void *skel, struct sc_state *st,
		      unsigned i, const char *name, const char *open_path,
		      pid_t pid)
{
	if (st->ev[i].type == SC_EV_USDT)
		usdt_file(c, skel, st, i, name, open_path, pid);
	else
		uprobe_file(st, i, name, open_path, pid);
}

static void print_probe(const struct usdt_probe *p, void *arg)
{
	printf("%s:%s  %s  %s\n", p->provider, p->name,
	       p->sema_off ? "semaphore" : "-", *p->args ? p->args : "-");
}

/* --list U:FILE: the file's USDT probes, one a line. */
static int list_probes(const char *spec)
{
	const char *path = spec + 2;
	int n;

	if (strncmp(spec, "U:", 2) || !*path)
		help_exit("--list %s: not U:FILE", spec);
	n = usdt_each(path, print_probe, NULL);
	if (n < 0)
		error_exit("--list %s: %s", path,
			   errno == ENOEXEC ? "not an ELF file"
					    : strerror(errno));
	if (!n)
		error_exit("--list %s: no USDT probes (no .note.stapsdt)",
			   path);
	return 0;
}

/* Does a mapping's file have the library name FILE (libc: libc.so.6;
 * c: libc.so.6 too)? */
static bool library_named(const char *path, const char *lib)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(lib);

	base = base ? base + 1 : path;
	if (!strncmp(base, "lib", 3) && strncmp(lib, "lib", 3))
		base += 3;
	return !strncmp(base, lib, n) &&
	       (!base[n] || base[n] == '.' || base[n] == '-');
}

struct lib_walk {
	struct collector *c;
	void *skel;
	struct sc_state *st;
	unsigned i;
	pid_t pid;
	int found;
};

static void lib_mapping(const struct proc_map *m, void *arg)
{
	struct lib_walk *w = arg;
	const char *path;

	if (!m->has_file || !library_named(m->name, w->st->ev[w->i].a) ||
	    !(path = proc_map_path(m)))
		return;
	user_file(w->c, w->skel, w->st, w->i, m->name, path, w->pid);
	w->found++;
}

/* u:FILE:FUNCTION for one process: FILE a path (as the process sees
 * it), or a library it maps. */
static void user_target(struct collector *c, void *skel, struct sc_state *st,
			unsigned i, pid_t tgid)
{
	struct lib_walk w = {c, skel, st, i, tgid, 0};
	const char *file = st->ev[i].a;
	char open_path[4200];
	struct stat sb;

	if (strchr(file, '/')) { /* a path: absolute ones as it sees them */
		snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", tgid,
			 file);
		user_file(c, skel, st, i, file,
			  *file != '/' || stat(open_path, &sb) ? file
							       : open_path,
			  tgid);
		return;
	}
	proc_maps_each_exec("/proc", tgid, lib_mapping, &w);
	if (!w.found)
		error_exit("%s: pid %d maps no library named %s (give FILE as "
			   "a path)",
			   st->ev[i].spec, tgid, file);
}

/* ---- the collector's callbacks ---- */

/* k:, kr: fentry or fexit where the kernel has them for the function
 * (STACKBOX_ATTACH=kprobe: not), else a kprobe or kretprobe. */
static void choose_kernel_way(struct collector *c, void *skel,
			      struct sc_state *st, unsigned i)
{
	const struct sc_event *ev = &st->ev[i];
	bool ret = ev->type == SC_EV_KRETPROBE;
	struct attach_alt fentry = {"-", "fentry", KF_FENTRY, NULL, ev->b};
	struct attach_alt kprobe = {"-", "kprobe", KF_KPROBE, NULL, ev->b};
	/* fields are read from registers: a kprobe's */
	bool fields = st->slot[i].ninsns || st->slot[i].value_size;
	struct bpf_program *p;

	if (!attach_forced("kprobe") && !fields &&
	    collect_alt_usable(c, &fentry)) {
		p = prog(skel, ret ? "fexit" : "fentry", i);
		if (bpf_program__set_attach_target(p, 0, ev->b))
			error_exit("%s: no BTF for %s", ev->spec, ev->b);
		bpf_program__set_autoload(p, true);
		st->kway[i] = ret ? "fexit" : "fentry";
		return;
	}
	if (!collect_alt_usable(c, &kprobe))
		error_exit("%s: no kernel function %s (not in kernel BTF nor "
			   "/proc/kallsyms)",
			   ev->spec, ev->b);
	bpf_program__set_autoload(prog(skel, "probe", i), true);
	st->kway[i] = ret ? "kretprobe" : "kprobe";
}

/* Each event's program of the kind it attaches; the rest not loaded. */
static int sc_configure(struct collector *c, void *skel, void *args)
{
	struct stackcount_args *a = args;
	struct stackcount_bpf *s = skel;
	struct sc_state *st = a->st;

	for (unsigned i = 0; i < SC_MAX_EVENTS; i++) {
		bool used = i < st->n, tp = used && !is_probe(&st->ev[i]);

		bpf_program__set_autoload(prog(skel, "tp", i), tp);
		bpf_program__set_autoload(prog(skel, "raw", i),
					  tp && raw_wanted(&st->slot[i]));
		bpf_program__set_autoload(prog(skel, "probe", i),
					  used && is_user(&st->ev[i]));
		bpf_program__set_autoload(prog(skel, "fentry", i), false);
		bpf_program__set_autoload(prog(skel, "fexit", i), false);
		if (used && is_probe(&st->ev[i]) && !is_user(&st->ev[i]))
			choose_kernel_way(c, skel, st, i);
	}
	memcpy((void *)s->rodata->sc_slots, st->slot, sizeof(st->slot));
	return 0;
}

static const char *attach_tracepoint(struct collector *c, void *skel,
				     unsigned i, const struct sc_event *ev,
				     const struct sc_slot *s)
{
	struct bpf_link *l = NULL;

	if (raw_wanted(s)) {
		l = bpf_program__attach_raw_tracepoint(prog(skel, "raw", i),
						       ev->b);
		if (l) {
			collect_keep_link(c, l);
			return "raw_tp";
		}
		verbose("%s: no raw tracepoint %s (%s): a classic one",
			ev->spec, ev->b, strerror(errno));
	}
	l = bpf_program__attach_tracepoint(prog(skel, "tp", i), ev->a, ev->b);
	if (!l)
		error_exit("%s: attaching the tracepoint: %s", ev->spec,
			   strerror(errno));
	collect_keep_link(c, l);
	return "tracepoint";
}

static const char *attach_kernel(struct collector *c, void *skel, unsigned i,
				 const struct sc_event *ev, const char *way)
{
	bool ret = ev->type == SC_EV_KRETPROBE;
	struct bpf_link *l =
		*way == 'f' ? bpf_program__attach_trace(prog(skel, way, i))
			    : bpf_program__attach_kprobe(prog(skel, "probe", i),
							 ret, ev->b);

	if (!l)
		error_exit("%s: attaching a %s on %s: %s", ev->spec, way, ev->b,
			   strerror(errno));
	collect_keep_link(c, l);
	return way;
}

static int sc_attach(struct collector *c, void *skel, void *args)
{
	struct stackcount_args *a = args;
	struct sc_state *st = a->st;

	for (unsigned i = 0; i < st->n; i++) {
		struct sc_event *ev = &st->ev[i];
		const char *way = NULL;

		switch (ev->type) {
		case SC_EV_TRACEPOINT:
			way = attach_tracepoint(c, skel, i, ev, &st->slot[i]);
			break;
		case SC_EV_KPROBE:
		case SC_EV_KRETPROBE:
			way = attach_kernel(c, skel, i, ev, st->kway[i]);
			break;
		default:
			uprobes_init(st, skel, i);
			if (st->targets)
				continue; /* per process, in sc_target */
			if (!strchr(ev->a, '/'))
				error_exit("%s: a library name needs -p PID or "
					   "-- CMD (else give FILE as a path)",
					   ev->spec);
			user_file(c, skel, st, i, ev->a, ev->a, -1);
			continue;
		}
		verbose("%s: attached as %s", ev->spec, way);
	}
	return 0;
}

static void sc_target(struct collector *c, void *skel, void *args, pid_t tgid)
{
	struct sc_state *st = ((struct stackcount_args *)args)->st;

	for (unsigned i = 0; i < st->n; i++)
		if (is_user(&st->ev[i]))
			user_target(c, skel, st, i, tgid);
}

static unsigned sc_primary(struct collector *c, void *args)
{
	return ((struct stackcount_args *)args)->value ? SC_VALUE : SC_HITS;
}

static void sc_describe(struct collector *c, void *args, char *buf, size_t len)
{
	struct stackcount_args *a = args;
	size_t n =
		snprintf(buf, len, "value: hits%s%s of",
			 a->value ? ", sum of " : "", a->value ? a->value : "");

	for (unsigned i = 0; i < a->st->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s %s", i ? "," : "",
			      a->st->ev[i].spec);
	if (a->filter && n < len)
		snprintf(buf + n, len - n, " where %s", a->filter);
}

/* The applet attaches its events itself (sc_attach): these hooks are
 * never the plan's, but say in stackbox check how each kind of event
 * would attach here (a representative target for what names one). */
static bool sc_own_attach(struct collector *c, void *args)
{
	return false;
}

static const struct attach_hook sc_hooks[] = {
	{"tracepoints",
	 (const struct attach_alt[]){{"sc_raw0", "raw_tp"},
				     {"sc_tp0", "tracepoint", KF_TRACEPOINT,
				      "sched", "sched_process_fork"},
				     {NULL}},
	 sc_own_attach, "t:"},
	{"kernel functions",
	 (const struct attach_alt[]){
		 {"sc_fentry0", "fentry", KF_FENTRY, NULL, "vfs_write"},
		 {"sc_probe0", "kprobe", KF_KPROBE, NULL, "vfs_write"},
		 {NULL}},
	 sc_own_attach, "k:, kr:"},
	{"user functions",
	 (const struct attach_alt[]){{"sc_probe0", "uprobe"}, {NULL}},
	 sc_own_attach, "u:, ur:"},
	{"USDT probes",
	 (const struct attach_alt[]){{"sc_probe0", "uprobe"}, {NULL}},
	 sc_own_attach, "U:"},
	{NULL},
};

#define SC_OPS(metric_table, opt, hook_table)                              \
	{                                                                  \
		.option = opt, .metrics = metric_table,                    \
		.nmetrics = ARRAY_SIZE(metric_table), .hooks = hook_table, \
		SB_SKELETON_OPS(stackcount), .configure = sc_configure,    \
		.attach = sc_attach, .target = sc_target,                  \
		.primary = sc_primary, .describe = sc_describe,            \
		.aux_name = sc_aux_name,                                   \
	}
static const struct collector_ops sc_ops = SC_OPS(hit_metrics, NULL, sc_hooks);
static const struct collector_ops sc_value_ops =
	SC_OPS(value_metrics, "--value", NULL);

/* ---- main ---- */

/* The EVENT operands before "--"; how many argv entries they and the
 * "--" took. */
static int take_events(struct stackcount_args *a, int argc, char **argv)
{
	struct sc_state *st = a->st;
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (*argv[i] == '-')
			help_exit("%s: options go before the events", argv[i]);
		if (st->n == SC_MAX_EVENTS)
			help_exit("%s: at most %d events", argv[i],
				  SC_MAX_EVENTS);
		sc_event_parse(argv[i], &st->ev[st->n++]);
	}
	if (!st->n)
		help_exit(
			"no EVENT given (t:CATEGORY:NAME, u:FILE:FUNCTION...)");
	return i < argc ? i + 1 : i;
}

static int stackcount_main(void *args, int argc, char **argv)
{
	struct stackcount_args *a = args;
	struct sc_state st = {0};
	int used, status;

	if (a->list)
		return list_probes(a->list);
	a->st = &st;
	used = take_events(a, argc, argv);
	st.targets = a->common.pids.n || used < argc;
	for (unsigned i = 0; i < st.n; i++)
		if (is_probe(&st.ev[i]))
			probe_event(a, i);
		else
			tracepoint_event(a, i);
	named_events = &st;
	status = collect_run(a->value ? &sc_value_ops : &sc_ops, &a->common, a,
			     argc - used, argv + used);
	for (unsigned i = 0; i < st.n; i++)
		if (st.up[i].fns)
			uprobes_free(&st.up[i]);
	return status;
}

APPLET_DEFINE(stackcount, stackcount_main, stackcount_opts,
	      struct stackcount_args, COLLECTORS(&sc_ops, &sc_value_ops));
