// SPDX-License-Identifier: GPL-2.0
/* offcpu: blocked time per call stack, and why it blocked.
 *
//config:config OFFCPU
//config:	bool "offcpu: blocked time per call stack"
//config:	default y
//config:	help
//config:	  Measures the time from each thread's switch-out to its next
//config:	  switch-in (sched_switch), per stack at switch-out, split by
//config:	  why it left the CPU: sleeping, uninterruptible, or preempted.
//usage:usage: offcpu [-w] [-m MIN] [-M MAX] [--state S,D,R] [-s PERIOD] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Count the time threads spend off the CPU per stack at the moment
//usage:they left it, and why: S sleeping, D uninterruptible (I/O, some
//usage:locks), R preempted while runnable (waiting for a CPU).
//usage:Folded values are microseconds; text chooses its unit.
//usage:
//usage:  -w               also show who woke each blocked stack, and its stack
//usage:  -m MIN           only blocks at least MIN long, with a unit (1ms, 10us)
//usage:  -M MAX           only blocks at most MAX long, with a unit (2s)
//usage:  --state LIST     only these states, from S,D,R (default all)
//usage:  -s PERIOD        sample by blocked time, with a unit (10ms, at most
//usage:                   10s): a block d long under PERIOD counts as PERIOD
//usage:                   with probability d/PERIOD, longer ones exactly;
//usage:                   values are unbiased estimates
//usage:@COMMON
//usage:
//usage:STACKBOX_ATTACH=finish|switch-in|raw_tp|tp_btf|tracepoint forces the
//usage:way to attach (finish: both stacks walked when a block ends, in its
//usage:task, only for blocks counted, by fentry or kprobe on
//usage:finish_task_switch; switch-in: the kernel's once it ends, the user's
//usage:at switch-out; either chosen by itself with -m, -M or -s, finish
//usage:first; with switch-in,sys_exit the user's at the syscall's exit; with
//usage:...,pid-hash its blocks by thread id, not in task storage).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "kernel.h"
#include "mapwalk.h"
#include "offcpu.h"
#include "offcpu.skel.h"

/* With -w: threads woken and not yet switched in, system-wide; the
 * switch-in way: counted blocks whose syscall has not returned yet */
enum { WAKERS = 16384, LATER = 16384 };

struct offcpu_args {
	struct collect_opts common;
	uint64_t min, max;
	uint64_t sample; /* -s: the period, ns; 0: every block counted */
	int states;
	int wakers;
	/* task_struct.se.sum_exec_runtime, from kernel BTF; 0: unknown */
	unsigned runtime_off;
	bool runtime_probed;
	/* task_store: the task iterator the snapshots' cut reads */
	struct bpf_link *cut_iter;
};

static const char *const state_names[OFFCPU_NSTATES] = {"S", "D", "R"};
static const struct opt_names states = {state_names, OFFCPU_NSTATES,
					"not a list of states (S,D,R)"};

static const struct opt offcpu_opts[] = {
	/* a unit, always: offcputime's -m 1000 is microseconds */
	OPT_DURATION('m', "min", "MIN", struct offcpu_args, min, 0, 1LL << 62,
		     NULL, .flags = OPT_UNIT | OPT_SHOWN),
	OPT_DURATION('M', "max", "MAX", struct offcpu_args, max, 1, 1LL << 62,
		     NULL, .flags = OPT_UNIT | OPT_SHOWN),
	OPT_TABLE(0, "state", "LIST", opt_name_list, struct offcpu_args, states,
		  states, "S,D,R", .flags = OPT_SHOWN),
	OPT_FLAG('w', "wakers", struct offcpu_args, wakers),
	OPT_DURATION('s', "sample", "PERIOD", struct offcpu_args, sample, 1,
		     10 * NS_PER_SEC, NULL, .flags = OPT_UNIT),
	OPT_INCLUDE(collect_options, struct offcpu_args, common),
	OPT_END,
};

static const struct metric offcpu_metrics[] = {
	{"blocked", METRIC_NS},
};

/* Both BTF paths read task_struct at offsets from BTF (the kernel's,
 * --btf's or the built-in one) and cost the same per switch; raw_tp
 * first, because tp_btf makes libbpf parse all of the kernel's BTF to
 * load (14.6 MB at peak here, against 5.3 MB). */
static const struct attach_alt switch_alts[] = {
	{"offcpu_switch_in", "finish", KF_BTF, NULL, NULL, OFFCPU_REQ_FINISH,
	 "-m, -M or -s where finish_task_switch is probed"},
	{"offcpu_switch_in", "switch-in", KF_BTF, NULL, NULL,
	 OFFCPU_REQ_SWITCH_IN, "-m, -M or -s"},
	{"offcpu_raw_tp", "raw_tp", KF_LAYOUT},
	{"offcpu_tp_btf", "tp_btf", KF_BTF},
	{"offcpu_tracepoint", "tracepoint", KF_TRACEPOINT, "sched",
	 "sched_switch"},
	{NULL},
};

/* The finish way's end of each block, in the task switched in:
 * finish_task_switch, by fentry where the kernel finds it by that name,
 * else by kprobe (on the copy GCC made of it, finish_task_switch.isra.0,
 * as Debian's kernels have it). */
static const struct attach_alt finish_alts[] = {
	{"offcpu_finish_fentry", "fentry", KF_FENTRY, NULL,
	 "finish_task_switch"},
	{"offcpu_finish_kprobe", "kprobe", KF_KPROBE, NULL,
	 "finish_task_switch"},
	{NULL},
};

/* Beside the switch-in way tp_btf's first (one program, two places): it
 * reaches blocks kept in task storage, which raw_tp's cannot
 * (configure_starts). */
static const struct attach_alt wakeup_alts[] = {
	{"offcpu_wakeup_tp_btf", "tp_btf", KF_BTF, NULL, NULL,
	 OFFCPU_REQ_SWITCH_IN, "-m, -M or -s"},
	{"offcpu_wakeup_raw_tp", "raw_tp", KF_LAYOUT},
	{"offcpu_wakeup_tp_btf", "tp_btf", KF_BTF},
	{"offcpu_wakeup_tracepoint", "tracepoint", KF_TRACEPOINT, "sched",
	 "sched_waking"},
	{NULL},
};

/* Where task_struct keeps the CPU time a task has had, or 0. Asked
 * once: the plan asks again after the kernel's types are released. */
static unsigned task_runtime_off(struct offcpu_args *a)
{
	unsigned size = 0;
	int se, in;

	if (a->runtime_probed)
		return a->runtime_off;
	a->runtime_probed = true;
	if (kbtf_layouts() &&
	    (se = kbtf_member("task_struct", "se", NULL)) >= 0 &&
	    (in = kbtf_member("sched_entity", "sum_exec_runtime", &size)) >=
		    0 &&
	    size == 8)
		a->runtime_off = se + in;
	return a->runtime_off;
}

/* -w; or no CPU time to end a block whose switch-in sched_switch did not
 * report: its wakeup ends it then (a lookup and a store, no stacks). */
static bool want_wakeups(struct collector *c, void *args)
{
	struct offcpu_args *a = args;

	return a->wakers || !task_runtime_off(a);
}

static bool offcpu_requires(struct collector *c, void *args, unsigned bits);

/* finish_task_switch is probed when sched_switch takes the finish way,
 * whose requires() asks the same; attached before it, so that no block
 * it notes waits for a probe not yet there. */
static bool want_finish(struct collector *c, void *args)
{
	return offcpu_requires(c, args, OFFCPU_REQ_FINISH);
}

/* New tasks' first wakeups (sched_wakeup_new) end no blocked time: they
 * were never switched out, so only sched_waking names wakers. */
static const struct attach_hook offcpu_hooks[] = {
	{"finish_task_switch", finish_alts, want_finish, "-m, -M or -s"},
	{"sched_switch", switch_alts},
	{"sched_waking", wakeup_alts, want_wakeups, "-w"},
	{NULL},
};

/*
 * What the BTF paths need from kernel BTF: where task_struct keeps pid
 * and the state (__state since 5.14, state before), and whether
 * sched_switch passes prev_state (5.18+: its prototype has 5 parameters,
 * ctx first), which is read before a wakeup can change it; and where
 * the CPU time a task has had is (se.sum_exec_runtime), for switch-ins
 * sched_switch did not report.
 */
static void probe_task_layout(struct offcpu_bpf *s, struct offcpu_args *a)
{
	unsigned size = 0;
	int off;

	if (!kbtf_layouts())
		return; /* the tracepoint path needs none of it */
	if ((off = kbtf_member("task_struct", "pid", NULL)) >= 0)
		s->rodata->task_pid_off = off;
	if ((off = kbtf_member("task_struct", "__state", &size)) >= 0 ||
	    (off = kbtf_member("task_struct", "state", &size)) >= 0) {
		s->rodata->task_state_off = off;
		s->rodata->task_state_size = size;
	}
	s->rodata->task_runtime_off = task_runtime_off(a);
	s->rodata->state_arg = kbtf_proto_params("btf_trace_sched_switch") >= 5;
}

SB_SKELETON(offcpu)

/* How the switch-in way reads a task's comm and cgroup id when its block
 * is counted (ids_at_count): each offset, or 0 for all when one is not
 * in the kernel's BTF (then they are taken at switch-out). */
static bool ids_layout(struct offcpu_bpf *s)
{
	unsigned size = 0;
	int comm, cgroups, dfl, kn, id;

	if ((comm = kbtf_member("task_struct", "comm", NULL)) < 0 ||
	    (cgroups = kbtf_member("task_struct", "cgroups", NULL)) < 0 ||
	    (dfl = kbtf_member("css_set", "dfl_cgrp", NULL)) < 0 ||
	    (kn = kbtf_member("cgroup", "kn", NULL)) < 0 ||
	    (id = kbtf_member("kernfs_node", "id", &size)) < 0 || size != 8)
		return false;
	s->rodata->task_comm_off = comm;
	s->rodata->task_cgroups_off = cgroups;
	s->rodata->cset_dfl_cgrp_off = dfl;
	s->rodata->cgroup_kn_off = kn;
	s->rodata->kn_id_off = id;
	return true;
}

/* The switch-in way pays for itself where blocks are left out by their
 * length (-m, -M, -s); every block counted, it walks as much as the
 * switch-out ways and adds a probe on every syscall's exit. */
static bool offcpu_requires(struct collector *c, void *args, unsigned bits)
{
	struct offcpu_args *a = args;
	bool other = false;

	if (!(bits & (OFFCPU_REQ_SWITCH_IN | OFFCPU_REQ_FINISH)))
		return true;
	/* the programs for kernels before 5.13 (no BPF callbacks: plan.c
	 * takes them then) have an empty switch-in program */
	if (!feature_usable(SB_F_PSEUDO_FUNC))
		return false;
	if (bits & OFFCPU_REQ_SWITCH_IN)
		return attach_forced("switch-in") || a->min || a->max ||
		       a->sample;
	/* finish: forced; else with those options, unless sched_switch
	 * is forced another way */
	for (const struct attach_alt *alt = switch_alts; alt->prog; alt++)
		other |= strcmp(alt->label, "finish") &&
			 attach_forced(alt->label);
	if (!attach_forced("finish") &&
	    (other || !(a->min || a->max || a->sample)))
		return false;
	/* and a way to probe finish_task_switch */
	for (const struct attach_alt *alt = finish_alts; alt->prog; alt++)
		if (collect_alt_kernel(c, alt) == FEATURE_YES)
			return true;
	return false;
}

/* The switch-in way's own: a block under way at a snapshot is cut into
 * it under its user stack, its kernel stack counted lost (walked only
 * when the block ends: a thread hung for minutes still shows). With
 * STACKBOX_ATTACH=...,sys_exit the user stacks of blocks in syscalls at
 * the syscall's exit, and no cut (the user stack is not known yet).
 * That puts every syscall of the machine on its slow path, which cost
 * more than it saved on perf bench sched messaging: only when asked. */
/* The finish way: finish_task_switch's text, whose frames (and those
 * before them, its probe's) kernel stacks walked there drop. */
static bool configure_finish(struct collector *c, struct offcpu_bpf *s)
{
	bool fin = bpf_program__autoload(s->progs.offcpu_finish_fentry) ||
		   bpf_program__autoload(s->progs.offcpu_finish_kprobe);
	const char *sym =
		fin ? collect_kernel_symbol(c, "finish_task_switch") : NULL;
	unsigned long long lo, hi;

	s->rodata->stacks_at_finish = fin;
	if (!fin)
		return false;
	if (sym && kallsyms_text(sym, &lo, &hi)) {
		s->rodata->finish_lo = lo;
		s->rodata->finish_hi = hi;
	} else {
		error_msg("finish: %s: no address in /proc/kallsyms: kernel "
			  "stacks keep the probe's frames",
			  sym ? sym : "finish_task_switch");
	}
	verbose("finish: both stacks walked in %s, when a block ends, only "
		"for the blocks counted",
		sym ? sym : "finish_task_switch");
	return true;
}

static void configure_switch_in(struct collector *c, struct offcpu_bpf *s)
{
	bool in = bpf_program__autoload(s->progs.offcpu_switch_in);
	bool user = s->rodata->sb_cfg.user_stacks;
	bool fin = configure_finish(c, s);
	bool ex = in && user && !fin && attach_forced("sys_exit");

	s->rodata->user_at_exit = ex;
	bpf_program__set_autoload(s->progs.offcpu_sys_exit, ex);
	if (ex)
		bpf_map__set_max_entries(s->maps.later, LATER);
	if (!in)
		return;
	s->rodata->kstack_at_switch_in = 1;
	if (ex)
		s->rodata->cut_blocked = 0;
	if (!fin)
		verbose("switch-in: kernel stacks walked at switch-in, %s, only for "
			"the blocks counted",
			!user ? "no user stacks"
			: ex  ? "user stacks at the syscall's exit (else at "
				"switch-out)"
			      : "user stacks at switch-out");
}

/*
 * Where blocks under way are kept: in task storage with the switch-in
 * way (its tp_btf programs hold the tasks), a hash by thread id
 * otherwise, or where the kernel has no task storage, or when asked
 * (STACKBOX_ATTACH=...,pid-hash). With task storage, a snapshot's cut
 * visits every task with a task iterator: bpf_for_each_map_elem walks
 * task storage only from 6.x on, and walking tasks needs no new kernel.
 */
/*
 * A thread's first record is made in sched_switch, its run queue locked.
 * Only where local storage takes memory from BPF's own allocator (Linux
 * 6.4: bpf_local_storage_map.bpf_ma) is that safe; before, a GFP_ATOMIC
 * kmalloc there may wake kswapd onto the queue held. Without kernel BTF
 * to tell, the hash.
 */
static bool storage_allocates_anywhere(void)
{
	return kbtf_has_member("bpf_local_storage_map", "bpf_ma");
}

static void configure_starts(struct offcpu_bpf *s)
{
	bool in = bpf_program__autoload(s->progs.offcpu_switch_in);
	bool waking = bpf_program__autoload(s->progs.offcpu_wakeup_raw_tp) ||
		      bpf_program__autoload(s->progs.offcpu_wakeup_tracepoint);
	bool have = feature_usable(SB_F_TASK_STORAGE);
	bool cut = s->rodata->cut_blocked;
	bool ex = s->rodata->user_at_exit; /* keeps blocks past sys_exit */
	bool safe = in && have && storage_allocates_anywhere();
	bool on = in && !waking && safe && !ex && !attach_forced("pid-hash");

	if (!have) { /* a map of every object: one the kernel can make */
		bpf_map__set_type(s->maps.task_starts, BPF_MAP_TYPE_HASH);
		bpf_map__set_max_entries(s->maps.task_starts, 1);
	}
	s->rodata->task_store = on;
	s->rodata->ids_at_count = on && kbtf_layouts() && ids_layout(s);
	bpf_program__set_autoload(s->progs.offcpu_cut_tasks, on && cut);
	if (on)
		verbose("switch-in: comm and cgroup %s",
			s->rodata->ids_at_count
				? "read when a block is counted"
				: "at switch-out (not all their offsets in BTF)");
	if (in)
		verbose("switch-in: blocks under way kept %s",
			on	? "in task storage"
			: !have ? "by thread id (no task storage: a hash)"
			: !safe ? "by thread id (task storage allocates in "
				  "sched_switch only from Linux 6.4: a hash)"
			: waking
				? "by thread id (sched_waking not by tp_btf: a "
				  "hash)"
			: ex ? "by thread id (sys_exit: a hash)"
			     : "by thread id (STACKBOX_ATTACH=pid-hash: a hash)");
}

static void offcpu_size(struct collector *c, void *skel, void *args)
{
	struct offcpu_bpf *s = skel;

	if (((struct offcpu_args *)args)->wakers) /* preallocated: only -w's */
		bpf_map__set_max_entries(s->maps.wakers, WAKERS);
}

/* When a thread still blocked at a snapshot is counted, and why. */
static const char *cut_note(const struct offcpu_bpf *s,
			    const struct offcpu_args *a)
{
	if (!feature_usable(SB_F_FOR_EACH_MAP_ELEM))
		return "when they wake (no bpf_for_each_map_elem)";
	/* a part cut now may belong to a block that passes -M later */
	if (a->max)
		return "when they wake (-M: a block's length is known then)";
	if (!s->rodata->cut_blocked)
		return "when they wake (switch-in way, sys_exit)";
	if (s->rodata->stacks_at_finish)
		return "in it, their stacks lost until they wake (finish way)";
	if (s->rodata->kstack_at_switch_in)
		return "in it, their kernel stack lost until they wake "
		       "(switch-in way)";
	return "in it";
}

static int offcpu_configure(struct collector *c, void *skel, void *args)
{
	struct offcpu_bpf *s = skel;
	struct offcpu_args *a = args;

	s->rodata->min_ns = a->min;
	s->rodata->max_ns = a->max ? a->max : ~0ULL;
	s->rodata->state_mask = a->states;
	probe_task_layout(s, a);
	s->rodata->wakers_on = a->wakers;
	s->rodata->sample_ns = a->sample;
	/* in the snapshot it spans: a callback over the map (5.13), which
	 * comes after the switch-in's atomic xchg and cmpxchg (5.12) */
	s->rodata->cut_blocked =
		feature_usable(SB_F_FOR_EACH_MAP_ELEM) && !a->max;
	configure_switch_in(c, s);
	configure_starts(s);
	bpf_program__set_autoload(s->progs.offcpu_cut,
				  s->rodata->cut_blocked &&
					  !s->rodata->task_store);
	verbose("threads blocked at a snapshot are counted %s", cut_note(s, a));
	return 0;
}

static int offcpu_attach(struct collector *c, void *skel, void *args)
{
	struct offcpu_bpf *s = skel;
	struct offcpu_args *a = args;
	struct bpf_link *link;

	if (bpf_program__autoload(s->progs.offcpu_cut_tasks)) {
		a->cut_iter = bpf_program__attach_iter(
			s->progs.offcpu_cut_tasks, NULL);
		if (!a->cut_iter) {
			error_msg("switch-in: the task iterator for snapshots' "
				  "cut: %s",
				  strerror(errno));
			return -errno;
		}
		collect_keep_link(c, a->cut_iter);
	}
	if (!bpf_program__autoload(s->progs.offcpu_sys_exit))
		return 0;
	link = bpf_program__attach_raw_tracepoint(s->progs.offcpu_sys_exit,
						  "sys_exit");
	if (!link) {
		error_msg("switch-in: raw_syscalls:sys_exit: %s",
			  strerror(errno));
		return -errno;
	}
	collect_keep_link(c, link);
	verbose("sys_exit: attached with raw_tp (user stacks of blocks in "
		"syscalls)");
	return 0;
}

/* Run the cut over every task: its program writes nothing to read. */
static int cut_tasks(struct bpf_link *iter)
{
	char buf[64];
	int fd = bpf_iter_create(bpf_link__fd(iter)), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static int offcpu_before_drain(struct collector *c, void *skel, void *args)
{
	struct offcpu_bpf *s = skel;
	LIBBPF_OPTS(bpf_test_run_opts, run);

	if (!s->rodata->cut_blocked)
		return 0;
	if (s->rodata->task_store)
		return cut_tasks(((struct offcpu_args *)args)->cut_iter);
	if (bpf_prog_test_run_opts(bpf_program__fd(s->progs.offcpu_cut), &run))
		return -errno;
	return 0;
}

struct under_way {
	struct row *row;
	size_t n, cap;
};

static void block_under_way(const void *key, const void *value, void *ctx)
{
	const struct offcpu_start *st = value;
	struct under_way *u = ctx;

	u->row = grow_array(u->row, &u->cap, u->n + 1, sizeof(*u->row));
	memset(&u->row[u->n], 0, sizeof(*u->row));
	u->row[u->n++].key = st->key;
}

/* Without the cut a block is counted when it ends, however many
 * snapshots later: a row of 0 for each block under way keeps the stacks
 * it was walked with cached until then (a 10 s nap at -i 1 lost both on
 * 5.10, expired after STACK_KEEP_INTERVALS). */
static size_t offcpu_state_rows(struct collector *c, void *skel, void *args,
				struct row **rows)
{
	struct offcpu_bpf *s = skel;
	struct under_way u = {0};

	if (!s->rodata->cut_blocked)
		map_walk(bpf_map__fd(s->maps.starts), sizeof(__u32),
			 sizeof(struct offcpu_start), false, block_under_way,
			 &u);
	*rows = u.row;
	return u.n;
}

static const char *offcpu_state_name(__u32 aux)
{
	static const char *const names[] = {"state S", "state D", "state R"};

	return aux < OFFCPU_NSTATES ? names[aux] : "state ?";
}

/* -s: the period, which report's pprof carries; 0: not sampled */
static __u64 offcpu_period_ns(struct collector *c, void *args)
{
	return ((struct offcpu_args *)args)->sample;
}

static void offcpu_describe(struct collector *c, void *args, char *buf,
			    size_t len)
{
	struct offcpu_args *a = args;
	char period[32], sampled[160] = "";

	if (a->sample) {
		format_duration(period, sizeof(period), a->sample);
		snprintf(sampled, sizeof(sampled),
			 ", sampled by blocked time, -s %s: values are "
			 "estimates (blocks of %s or more exact)",
			 period, period);
	}
	snprintf(buf, len,
		 "value: time off CPU from switch-out to switch-in%s; "
		 "state S sleeping, D uninterruptible, R preempted "
		 "(waiting for a CPU)",
		 sampled);
}

static const char *const offcpu_stat_names[] = {
	"blocks not tracked (starts map full)",
	"switch-ins not reported (block ended by CPU time)",
	"switch-ins not reported (block ended at its wakeup)",
	"switch-ins not reported (block ended at its CPU's last switch)",
	"switch-ins not reported (block lost, no end known)",
	"blocks without their user stack (switch-in: map of them full)",
	"parts of blocks under way at a snapshot, without their kernel stack "
	"(switch-in, finish: walked when they end; finish: the user's too)",
	NULL,
};

static const struct collector_ops offcpu_ops = {
	.features =
		(const enum sb_feature[]){SB_F_ATOMICS, SB_F_FOR_EACH_MAP_ELEM,
					  SB_F_TASK_STORAGE, SB_F_END},
	.metrics = offcpu_metrics,
	.nmetrics = ARRAY_SIZE(offcpu_metrics),
	.hooks = offcpu_hooks,
	.per_thread = true,
	.prealloc_stacks = true,
	SB_SKELETON_OPS(offcpu),
	.size = offcpu_size,
	.configure = offcpu_configure,
	.attach = offcpu_attach,
	.requires = offcpu_requires,
	.before_drain = offcpu_before_drain,
	.state_rows = offcpu_state_rows,
	.period_ns = offcpu_period_ns,
	.describe = offcpu_describe,
	.aux_name = offcpu_state_name,
	.stat_names = offcpu_stat_names,
};

static int offcpu_main(void *args, int argc, char **argv)
{
	struct offcpu_args *a = args;

	if (a->max && a->min > a->max)
		help_exit("-m is longer than -M");
	return collect_run(&offcpu_ops, &a->common, a, argc, argv);
}

APPLET_DEFINE(offcpu, offcpu_main, offcpu_opts, struct offcpu_args,
	      COLLECTORS(&offcpu_ops));
