// SPDX-License-Identifier: GPL-2.0
/*
 * The attach plan: each hook's alternatives, best first, probed against
 * the kernel (kernel.c) from what they say they need; the chosen programs
 * autoloaded, loaded and attached, falling back to the next alternative
 * where the kernel refuses one.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "capture.h"
#include "collector.h"
#include "kernel.h"
#include "mapmake.h"
#include "mapmem.h"
#include "percpu.h"
#include "sink.h"
#include "unwind.h"

/* The kernel's own ENOTSUPP (524), which BPF attach and load paths
 * return, is no libc errno: musl prints "No error information". */
/* The kernel's own ENOTSUPP (524) has no libc name. */
static const char *load_strerror(int err)
{
	return err == 524 ? "not supported by this kernel (ENOTSUPP)"
			  : strerror(err);
}

static const struct attach_hook *hook(const struct collector *c, unsigned h)
{
	return c->ops->hooks && c->ops->hooks[h].what ? &c->ops->hooks[h]
						      : NULL;
}
static bool hook_on(struct collector *c, unsigned h)
{
	const struct attach_hook *hk = hook(c, h);

	return !hk->enabled || hk->enabled(c, c->args);
}

bool attach_forced(const char *label)
{
	const char *want = getenv("STACKBOX_ATTACH");
	size_t len = strlen(label);

	for (const char *p = want; p && *p;
	     p += strcspn(p, ",") + !!p[strcspn(p, ",")])
		if (strcspn(p, ",") == len && !strncmp(p, label, len))
			return true;
	return false;
}

/* The functions kprobe and fentry alternatives name are looked up in
 * one pass over /proc/kallsyms when the plan first needs one. */
const char *collect_kernel_symbol(struct collector *c, const char *fn)
{
	static char other[KSYM_LEN];
	unsigned n = 0;

	if (!c->kfuncs.scanned) {
		for (unsigned h = 0; hook(c, h); h++)
			for (const struct attach_alt *a = hook(c, h)->alts;
			     a->prog && n < ARRAY_SIZE(c->kfuncs.name); a++)
				if (a->needs == KF_KPROBE ||
				    a->needs == KF_FENTRY)
					c->kfuncs.name[n++] = a->name;
		c->kfuncs.n = n;
		c->kfuncs.found =
			kallsyms_have(c->kfuncs.name, n, c->kfuncs.as);
		c->kfuncs.scanned = true;
	}
	for (unsigned i = 0; i < c->kfuncs.n; i++)
		if (!strcmp(c->kfuncs.name[i], fn))
			return c->kfuncs.found & (1u << i) ? c->kfuncs.as[i]
							   : NULL;
	return kallsyms_have(&fn, 1, &other) ? other : NULL;
}

void collect_keep_link(struct collector *c, struct bpf_link *link)
{
	c->links = grow_array(c->links, &c->links_cap, c->nlinks + 1,
			      sizeof(*c->links));
	c->links[c->nlinks++] = link;
}

enum feature_answer collect_alt_kernel(struct collector *c,
				       const struct attach_alt *alt)
{
	enum feature_answer a;
	const char *sym;

	if (alt->needs == KF_KPROBE) /* kallsyms read once for them all */
		return feature_answer(SB_F_KPROBES) == FEATURE_NO ||
				       !collect_kernel_symbol(c, alt->name)
			       ? FEATURE_NO
			       : feature_answer(SB_F_KPROBES);
	a = kernel_offers(alt->needs, alt->category, alt->name);
	/* the kernel finds fentry's function by its exact name, which a
	 * copy GCC made of it (name.isra.0) does not have, though BTF names
	 * the function */
	if (a == FEATURE_YES && alt->needs == KF_FENTRY &&
	    (!(sym = collect_kernel_symbol(c, alt->name)) ||
	     strcmp(sym, alt->name)))
		return FEATURE_NO;
	return a;
}

enum feature_answer collect_alt_answer(struct collector *c,
				       const struct attach_alt *alt)
{
	enum feature_answer a = collect_alt_kernel(c, alt);

	if (a == FEATURE_YES && alt->requires && c->ops->requires &&
	    !c->ops->requires(c, c->args, alt->requires))
		a = FEATURE_NO;
	return a;
}

bool collect_alt_usable(struct collector *c, const struct attach_alt *alt)
{
	return collect_alt_answer(c, alt) == FEATURE_YES;
}

int collect_pick_alt(struct collector *c, const struct attach_hook *hk,
		     unsigned from, int *unsure)
{
	bool any_forced = false;

	if (unsure)
		*unsure = -1;
	for (unsigned i = 0; hk->alts[i].prog; i++)
		any_forced |= attach_forced(hk->alts[i].label);
	for (unsigned i = from; hk->alts[i].prog; i++) {
		enum feature_answer a;

		if (any_forced && !attach_forced(hk->alts[i].label))
			continue;
		a = collect_alt_answer(c, &hk->alts[i]);
		if (a == FEATURE_YES)
			return i;
		if (a == FEATURE_NEEDS_ROOT && unsure && *unsure < 0)
			*unsure = i;
		verbose("%s: %s %s", hk->what, hk->alts[i].label,
			a == FEATURE_NO ? "is not available here"
					: "needs root to tell");
	}
	return -1;
}

static void fall_back(struct collector *c, unsigned h, const char *why)
{
	const struct attach_hook *hk = hook(c, h);
	const char *was = hk->alts[c->choice[h]].label;
	int next = collect_pick_alt(c, hk, c->choice[h] + 1, NULL);

	if (next < 0)
		error_exit("cannot attach to %s: %s failed (%s) and no other "
			   "way is left (run with -v -v for libbpf's log)",
			   hk->what, was, why);
	c->choice[h] = next;
	verbose("%s: %s failed (%s), falling back to %s", hk->what, was, why,
		hk->alts[next].label);
}

/* The core's programs that follow processes (collect.bpf.h), and those
 * that see them change their code (without them, a fork whose parent
 * was read after it reads its own mappings) */
static const char *const process_progs[] = {"sb_on_fork", "sb_on_exec",
					    "sb_on_exit"};
static const char *const code_progs[] = {"sb_on_mmap", "sb_on_mprotect",
					 "sb_on_mremap"};

static void set_autoload(struct collector *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(process_progs); i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(
						  c->obj, process_progs[i]),
					  c->cfg->track_procs);
	for (size_t i = 0; i < ARRAY_SIZE(code_progs); i++)
		bpf_program__set_autoload(
			bpf_object__find_program_by_name(c->obj, code_progs[i]),
			c->cfg->track_procs);
	/* off first: a program may stand for two alternatives (the same
	 * way, tried first under some options) */
	for (unsigned h = 0; hook(c, h); h++)
		for (unsigned i = 0; hook(c, h)->alts[i].prog; i++) {
			const char *name = hook(c, h)->alts[i].prog;
			struct bpf_program *p =
				bpf_object__find_program_by_name(c->obj, name);

			if (!p)
				error_exit("BPF program %s missing from the "
					   "object",
					   name);
			bpf_program__set_autoload(p, false);
		}
	for (unsigned h = 0; hook(c, h); h++)
		if (hook_on(c, h))
			bpf_program__set_autoload(
				bpf_object__find_program_by_name(
					c->obj,
					hook(c, h)->alts[c->choice[h]].prog),
				true);
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
	c->unwind = unwind_configure(
		c->obj, cfg, cfg->user_stacks ? o->unwind : SB_UNWIND_FP,
		o->unwind_rows);
}

/*
 * Which of the two builds of the programs this kernel loads, and what
 * the run gives up for it, each said in one line: before 5.13 the
 * loader refuses callbacks and atomic fetch operations even in code
 * that never runs (CONFIG_BPF_LEGACY's programs have none); eh_frame
 * unwinding needs more still. true: the legacy programs.
 */
static bool choose_programs(struct collector *c)
{
	const char *lacks;
	bool legacy = !feature_usable(SB_F_PSEUDO_FUNC);

	if (c->o->unwind == SB_UNWIND_EH_FRAME && (lacks = unwind_missing())) {
		error_msg("--unwind eh_frame: this kernel lacks %s: user "
			  "stacks by frame pointers",
			  lacks);
		c->o->unwind = SB_UNWIND_FP;
	}
	if (c->o->unwind == SB_UNWIND_AUTO && (lacks = unwind_missing())) {
		verbose("user stacks: frame pointers: this kernel lacks %s, so "
			"callers in code without frame pointers are lost",
			lacks);
		c->o->unwind = SB_UNWIND_FP;
	}
	if (legacy && !ENABLE_BPF_LEGACY)
		error_exit("this kernel lacks BPF callbacks "
			   "(bpf_for_each_map_elem, Linux 5.13) and this build "
			   "has no programs for it (CONFIG_BPF_LEGACY)");
	if (legacy)
		verbose("BPF: the programs for kernels before 5.13 (no "
			"bpf_for_each_map_elem)");
	return legacy;
}

/* Before 6.1 a perf_event program may only use preallocated hash maps:
 * where one is loaded, every hash map of the object is. */
static void prealloc_for_perf_event(struct collector *c)
{
	struct bpf_program *p;
	struct bpf_map *m;
	bool perf = false;

	bpf_object__for_each_program(p, c->obj) perf |=
		bpf_program__autoload(p) &&
		bpf_program__type(p) == BPF_PROG_TYPE_PERF_EVENT;
	if (!perf || !kernel_perf_event_needs_prealloc())
		return;
	bpf_object__for_each_map(
		m, c->obj) if ((bpf_map__type(m) == BPF_MAP_TYPE_HASH ||
				bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_HASH) &&
			       (bpf_map__map_flags(m) & BPF_F_NO_PREALLOC))
		bpf_map__set_map_flags(m, bpf_map__map_flags(m) &
						  ~BPF_F_NO_PREALLOC);
	verbose("BPF: hash maps preallocated (perf_event programs before "
		"Linux 6.1)");
}

/* A kprobe attaches to the symbol its function was found as (it may
 * be a copy, name.isra.0); the others as their section says. */
static struct bpf_link *attach_alt(struct collector *c,
				   const struct attach_alt *alt,
				   struct bpf_program *p)
{
	const char *sym;

	if (alt->needs == KF_KPROBE &&
	    (sym = collect_kernel_symbol(c, alt->name)))
		return bpf_program__attach_kprobe(p, false, sym);
	return bpf_program__attach(p);
}

/* Load the attach links of the chosen programs. 0, or the failing hook + 1. */
static int attach_plan(struct collector *c)
{
	for (unsigned h = 0; hook(c, h); h++) {
		const char *name = hook(c, h)->alts[c->choice[h]].prog;
		struct bpf_link *l;

		if (!hook_on(c, h))
			continue;
		l = attach_alt(c, &hook(c, h)->alts[c->choice[h]],
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
					fall_back(c, o, load_strerror(err));
			fall_back(c, h, load_strerror(err));
			return h + 1;
		}
		collect_keep_link(c, l);
		verbose("%s: attached with %s", hook(c, h)->what,
			hook(c, h)->alts[c->choice[h]].label);
		status_say("%s: attached with %s", hook(c, h)->what,
			   hook(c, h)->alts[c->choice[h]].label);
	}
	for (size_t i = 0; c->cfg->track_procs && i < ARRAY_SIZE(process_progs);
	     i++) {
		struct bpf_link *l =
			bpf_program__attach(bpf_object__find_program_by_name(
				c->obj, process_progs[i]));

		if (!l)
			error_exit("attaching %s: %s (user frames of processes "
				   "that exit may stay unresolved)",
				   process_progs[i], load_strerror(errno));
		collect_keep_link(c, l);
	}
	c->code_tracked = c->cfg->track_procs;
	for (size_t i = 0; c->cfg->track_procs && i < ARRAY_SIZE(code_progs);
	     i++) {
		const char *sec = bpf_program__section_name(
			bpf_object__find_program_by_name(c->obj,
							 code_progs[i]));
		struct bpf_link *l =
			bpf_program__attach(bpf_object__find_program_by_name(
				c->obj, code_progs[i]));

		if (l) {
			collect_keep_link(c, l);
			continue;
		}
		if (c->code_tracked)
			verbose("%s: %s: a fork whose parent's mappings were "
				"read after it reads its own",
				sec, load_strerror(errno));
		c->code_tracked = false;
	}
	return 0;
}

struct closer {
	struct bpf_link **links;
	size_t n, stride;
};

static void *close_links(void *arg)
{
	struct closer *w = arg;

	for (size_t i = 0; i < w->n; i++)
		bpf_link__destroy(w->links[i * w->stride]);
	return NULL;
}

/*
 * Closing a link waits for the kernel to be done with the program: a
 * classic tracepoint's perf event waits out an RCU grace period (some
 * 10 to 20 ms each here), one after the other when closed in turn. In
 * parallel the waits overlap. A thread that cannot start leaves its
 * links to this one.
 */
void destroy_bpf(struct collector *c)
{
	enum { MAX_CLOSERS = 16 };
	struct closer w[MAX_CLOSERS];
	pthread_t tid[MAX_CLOSERS];
	bool started[MAX_CLOSERS] = {0};
	size_t n = c->nlinks < MAX_CLOSERS ? c->nlinks : MAX_CLOSERS;

	for (unsigned i = 0; i < c->npercpu; i++)
		percpu_free(c->percpu[i]);
	c->npercpu = 0;

	for (size_t t = 0; t < n; t++) {
		w[t] = (struct closer){c->links + t,
				       (c->nlinks - t + n - 1) / n, n};
		started[t] =
			t && !pthread_create(&tid[t], NULL, close_links, &w[t]);
	}
	for (size_t t = 0; t < n; t++)
		if (!started[t])
			close_links(&w[t]);
	for (size_t t = 0; t < n; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	c->nlinks = 0;
	if (c->skel)
		c->ops->destroy(c->skel);
	c->skel = NULL;
}

/* The BPF object opened and sized from the options. */
static void open_object(struct collector *c, bool legacy)
{
	c->skel = c->ops->open(&c->obj, &c->cfg, legacy);
	if (!c->skel)
		perror_exit("opening the BPF object");
	fill_config(c);
	if (c->ops->size)
		c->ops->size(c, c->skel, c->args);
	/* before the map maker asks the kernel for any of it */
	mem_check(c->obj, c->o->record ? c->o->record_bytes : 0);
}

/* Opening is all it takes: the maps are sized before any is made. The
 * legacy object has the same maps, so the current one stands for it. */
uint64_t collect_maps_bytes(const struct collector_ops *ops,
			    struct collect_opts *o, void *args)
{
	struct collector c = {.ops = ops, .o = o, .args = args};
	uint64_t bytes;

	c.skel = ops->open(&c.obj, &c.cfg, false);
	if (!c.skel)
		return 0;
	fill_config(&c);
	if (ops->size)
		ops->size(&c, c.skel, args);
	bytes = mem_maps(c.obj);
	unwind_free(c.unwind);
	ops->destroy(c.skel);
	sb_elf_release(); /* the inflated copy the object was opened from */
	return bytes;
}

void open_load_attach(struct collector *c)
{
	bool legacy = choose_programs(c);
	struct map_maker *maker;

	/* the first attempt's object, its large maps made while the plan
	 * below reads the kernel's types */
	open_object(c, legacy);
	maker = map_maker_start(c->obj);
	for (unsigned h = 0; hook(c, h); h++) {
		/* a hook that is off is not probed (fentry loads a program) */
		int first = hook_on(c, h)
				    ? collect_pick_alt(c, hook(c, h), 0, NULL)
				    : -1;

		if (h >= MAX_HOOKS)
			error_exit("more than %d hooks in the attach plan",
				   MAX_HOOKS);
		if (first < 0 && hook_on(c, h))
			error_exit("cannot attach to %s: none of its ways is "
				   "available on this kernel%s",
				   hook(c, h)->what,
				   kbtf_layouts() ? ""
						  : " (some need kernel BTF: "
						    "" KBTF_HOW ")");
		c->choice[h] = first < 0 ? 0 : first; /* off: not loaded */
	}
	for (int attempt = 0; attempt < 16; attempt++) {
		int err;

		if (attempt)
			open_object(c, legacy);
		set_autoload(c);
		prealloc_for_perf_event(c);
		if (c->ops->configure &&
		    (err = c->ops->configure(c, c->skel, c->args)))
			error_exit("configuring the BPF object: %s",
				   strerror(-err));
		libbpf_failed_reset();
		/* libbpf parses its own copy to load: ours, kept with it,
		 * would double the peak RSS (2 x 5.5 MB on 6.18) */
		kbtf_release();
		/* the first attempt's only: a failed attempt may have run */
		map_maker_finish(maker, c->obj);
		maker = NULL;
		err = c->ops->load(c->skel, &c->ctl);
		if (err) {
			bool fell = false;

			for (unsigned h = 0;
			     hook(c, h) && *libbpf_failed_prog(); h++)
				if (!strcmp(hook(c, h)->alts[c->choice[h]].prog,
					    libbpf_failed_prog())) {
					fall_back(c, h, load_strerror(-err));
					fell = true;
				}
			if (!fell)
				error_exit(
					"loading the BPF programs failed: %s%s",
					load_strerror(-err),
					-err == EPERM
						? " (run as root: CAP_BPF and CAP_PERFMON "
						  "are needed)"
						: " (-v -v shows libbpf's log)");
			destroy_bpf(c);
			continue;
		}
		capture_loaded(c->capture); /* -T: the gate, before attach */
		sb_elf_release(); /* libbpf is done with the object's ELF */
		unwind_loaded(c->unwind);
		/* the first interval starts where counting does, at the
		 * first attach: the setup after it (a process's tables read,
		 * 20 ms on a loaded board) was counted in no snapshot's span,
		 * and the first snapshot charged a block more than it lasted */
		collect_interval_begin(c);
		if (attach_plan(c)) { /* it fell back: load again */
			destroy_bpf(c);
			continue;
		}
		if (c->ops->attach &&
		    (err = c->ops->attach(c, c->skel, c->args)))
			error_exit("attaching: %s", load_strerror(-err));
		/* (what attach looked up; a fallback parses it again) */
		kbtf_release();
		verbose("kernel BTF parsed %u times", kbtf_parses());
		return;
	}
	error_exit("could not find a working attach plan");
}

struct collector *collect_asking(const struct collector_ops *ops, void *args)
{
	struct collector *c = xzalloc(sizeof(*c));

	c->ops = ops;
	c->args = args;
	return c;
}

void collect_asking_free(struct collector *c)
{
	free(c);
}
