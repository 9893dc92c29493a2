/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector core: one lifecycle for every applet.
 *   open skeleton -> configure rodata and map sizes -> load -> attach
 *   (an ordered plan with fallbacks) -> every interval: drain, resolve,
 *   emit -> on -d, SIGINT, SIGTERM or the end of CMD: final snapshot,
 *   detach, exit.
 * An applet supplies a struct collector_ops and its option table, which
 * includes collect_options for the common CLI.
 */
#ifndef STACKBOX_COLLECT_H
#define STACKBOX_COLLECT_H

#include <linux/types.h>
#include <sys/types.h>

#include "kernel.h"
#include "kfeatures.h"
#include "output_sink.h"
#include "sb.h"
#include "snapshot.h"
#include "stackbox.h"

struct bpf_object;
struct bpf_link;
struct collector;
struct row;

/* The common CLI, filled by the option parser (collect_options). */
struct collect_opts {
	struct pid_list pids;
	const char *cgroup;
	uint64_t duration; /* ns, 0 = until a signal */
	uint64_t interval; /* ns, 0 = one snapshot at the end */
	int user_only, kernel_only;
	struct output_opts out; /* -f, -o, --rotate, --baud, --top */
	const char *status;	/* kmsg, syslog */
	long long stacks;	/* sb_stacks entries: new stacks per interval */
	long long rows;		/* entries of each counts map */
	int unwind;		/* enum sb_unwind_mode */
	long long unwind_rows;
	const char *btf; /* --btf FILE */
	int verbose;
	struct { /* -T SPEC... (docs/triggers.md) */
		const char **spec;
		size_t n;
	} triggers;
	uint64_t hold;		/* ns written on after the last clears */
	uint64_t record;	/* -R: the flight recorder's window, ns */
	long long record_bytes; /* its bound */
};
extern const struct opt collect_options[];

/*
 * One way to attach one hook; a hook lists them best first. An
 * alternative says what it needs and the plan probes the kernel for it
 * (kernel.c): a tracepoint, a kernel function in BTF (fentry) or in
 * kallsyms (kprobe), kernel BTF; and bits of the applet's own that its
 * requires() checks (struct layouts, tracepoint fields).
 */
struct attach_alt {
	const char *prog;	   /* BPF program name */
	const char *label;	   /* "tp_btf", "raw_tp": -v, STACKBOX_ATTACH */
	enum kernel_feature needs; /* KF_NONE: just try it */
	const char *category;	   /* KF_TRACEPOINT: its category */
	const char *name;  /* KF_TRACEPOINT: its name; KF_FENTRY, KF_KPROBE:
			   * the kernel function */
	unsigned requires; /* 0, or bits for collector_ops.requires */
	/* The options under which requires() takes it ("-m, -M or -s"),
	 * for stackbox check; NULL: it asks only the kernel */
	const char *when;
};
struct attach_hook {
	const char *what;
	const struct attach_alt *alts; /* ends with { NULL } */
	/* NULL: always; else only when true */
	bool (*enabled)(struct collector *c, void *args);
	/* The option that enables it ("-w"), for stackbox check; NULL: the
	 * kernel decides (enabled() asks it) */
	const char *option;
};

struct collector_ops {
	/* The option that selects these ops over the applet's first
	 * (iostack --disk); NULL for the first. For stackbox check. */
	const char *option;
	/* The optional kernel features (kfeatures.h) the applet's own code
	 * uses, ending with SB_F_END; NULL: none. For stackbox check. */
	const enum sb_feature *features;
	const struct metric *metrics;
	unsigned nmetrics;
	const struct attach_hook *hooks; /* ends with { NULL }; may be NULL */
	bool per_thread;		 /* rows per thread, not per process */
	/* Events fire where the kernel cannot allocate (sched_switch runs
	 * under the runqueue lock): preallocate the stack map. */
	bool prealloc_stacks;
	/* Skeleton glue: SB_SKELETON(name) defines these three. */
	void *(*open)(struct bpf_object **obj, struct sb_config **cfg,
		      bool legacy);
	int (*load)(void *skel, struct sb_ctl **ctl);
	void (*destroy)(void *skel);
	/* Before the plan: the applet's map sizes that follow from its
	 * options alone. The large preallocated maps are then created
	 * while the plan runs (mapmake.c); one sized later, in configure,
	 * is created at load instead. */
	void (*size)(struct collector *c, void *skel, void *args);
	/* Before load: the applet's rodata (and sizes the plan decides).
	 * 0 or -errno. */
	int (*configure)(struct collector *c, void *skel, void *args);
	/* After the plan is attached: the applet's own attachments.
	 * 0, or -errno (fatal; say more with error_msg() first). */
	int (*attach)(struct collector *c, void *skel, void *args);
	/* A process named by -p, or CMD stopped at its entry point (its
	 * libraries mapped, not yet run): attachments of its own (uprobes
	 * in the files it maps). Errors are the applet's to report. */
	void (*target)(struct collector *c, void *skel, void *args, pid_t tgid);
	/* At a snapshot, after BPF moved to the next interval's map and
	 * before the closing one is read (sb_ctl.flip says when the flip
	 * was). 0 or -errno. */
	int (*before_drain)(struct collector *c, void *skel, void *args);
	/* At a snapshot, after the interval's rows are drained: rows of the
	 * applet's own state (memory still held), malloc'ed in *rows; their
	 * count. Rows with the same key as another are summed into one;
	 * their stacks stay cached while rows name them, even rows whose
	 * values are all zero, which are not shown. */
	size_t (*state_rows)(struct collector *c, void *skel, void *args,
			     struct row **rows);
	/* The metric text sorts by and folded shows (--value); NULL: 0. */
	unsigned (*primary)(struct collector *c, void *args);
	/* The ns one count stands for (a sampling period); NULL: none. */
	__u64 (*period_ns)(struct collector *c, void *args);
	/* One line for the snapshot header, e.g. the sampling period. */
	void (*describe)(struct collector *c, void *args, char *buf,
			 size_t len);
	/* Does the kernel meet an attach alternative's requires bits (the
	 * struct layouts or tracepoint fields its program reads)? Called
	 * before load, for alternatives whose kernel feature is there. */
	bool (*requires)(struct collector *c, void *args, unsigned bits);
	/* What the applet's own counters (SB_STAT_APPLET0 + i) count, for
	 * the snapshot's "lost:" line; ends with NULL. */
	const char *const *stat_names;
	/* Counters of those the applet counts in user space, added to what
	 * BPF counted in this interval (stats[i]: stat_names[i]). */
	void (*add_stats)(struct collector *c, void *args, __u64 *stats);
	/* Name of the key's aux split (offcpu state); NULL: no split.
	 * An empty name: this row's split is not shown. The one callback
	 * without the run: report calls it on a stream, long after. */
	const char *(*aux_name)(__u32 aux);
};

/* The legacy programs' object (CONFIG_BPF_LEGACY, gen/NAME.legacy.c). */
#if ENABLE_BPF_LEGACY
#define SB_LEGACY_ELF(name, sz) sb_legacy_elf_##name(sz)
#else
#define SB_LEGACY_ELF(name, sz) ((void)(sz), (const void *)NULL)
#endif
/* The skeleton opens its own object, or with legacy the same programs
 * built for kernels before 5.13 (libbpf binds maps and programs by
 * name, and both objects have the same). */
#define SB_SKELETON(name)                                                  \
	const void *sb_legacy_elf_##name(size_t *sz);                      \
	static void *name##_skel_open(struct bpf_object **obj,             \
				      struct sb_config **cfg, bool legacy) \
	{                                                                  \
		struct name##_bpf *s = calloc(1, sizeof(*s));              \
		if (!s || name##_bpf__create_skeleton(s))                  \
			goto fail;                                         \
		if (legacy)                                                \
			s->skeleton->data = (void *)SB_LEGACY_ELF(         \
				name, &s->skeleton->data_sz);              \
		if (!s->skeleton->data ||                                  \
		    bpf_object__open_skeleton(s->skeleton, NULL))          \
			goto fail;                                         \
		*obj = s->obj;                                             \
		*cfg = (struct sb_config *)&s->rodata->sb_cfg;             \
		return s;                                                  \
	fail:                                                              \
		name##_bpf__destroy(s);                                    \
		return NULL;                                               \
	}                                                                  \
	static int name##_skel_load(void *skel, struct sb_ctl **ctl)       \
	{                                                                  \
		struct name##_bpf *s = skel;                               \
		int err = name##_bpf__load(s);                             \
		if (!err)                                                  \
			*ctl = &s->bss->sb_ctl;                            \
		return err;                                                \
	}                                                                  \
	static void name##_skel_destroy(void *skel)                        \
	{                                                                  \
		name##_bpf__destroy(skel);                                 \
	}
#define SB_SKELETON_OPS(name)                               \
	.open = name##_skel_open, .load = name##_skel_load, \
	.destroy = name##_skel_destroy

/* Run the applet on what opts_parse() left: nothing, or "-- CMD ARG...".
 * Returns the exit status (CMD's when there is one). */
int collect_run(const struct collector_ops *ops, struct collect_opts *o,
		void *args, int argc, char **argv);
/* For the applet's attach(): keep a link until the end of the run. */
void collect_keep_link(struct collector *c, struct bpf_link *link);
/* Does STACKBOX_ATTACH (LABEL[,LABEL...], for tests) name this way to
 * attach? */
bool attach_forced(const char *label);
/* Is an attach alternative usable here: what it needs of the kernel,
 * and the applet's requires()? (An applet's hook enabled() may ask.) */
bool collect_alt_usable(struct collector *c, const struct attach_alt *alt);
/* The same, or FEATURE_NEEDS_ROOT where this user cannot tell. */
enum feature_answer collect_alt_answer(struct collector *c,
				       const struct attach_alt *alt);
/* The symbol kallsyms lists kernel function fn as: itself, or a copy
 * GCC made of it (fn.isra.0); NULL when it lists neither. */
const char *collect_kernel_symbol(struct collector *c, const char *fn);
/* Its kernel part alone, before the applet's requires(). */
enum feature_answer collect_alt_kernel(struct collector *c,
				       const struct attach_alt *alt);
/* The way the plan takes to attach hk: the first usable alternative at
 * or after from (of those STACKBOX_ATTACH names, when it names any);
 * -1 when none is. *unsure (when not NULL): the first one before it
 * this user cannot tell about, or -1. The plan and stackbox check
 * both choose here. */
int collect_pick_alt(struct collector *c, const struct attach_hook *hk,
		     unsigned from, int *unsure);
/* Bytes of kernel memory ops's maps take with these options, as the
 * run's own check (mapmem.c) counts them; the object is opened and
 * sized, never loaded. 0 when it cannot be opened. */
uint64_t collect_maps_bytes(const struct collector_ops *ops,
			    struct collect_opts *o, void *args);
/* A collector never run, for asking the plan what it would choose
 * (stackbox check): the alternatives above take it. */
struct collector *collect_asking(const struct collector_ops *ops, void *args);
void collect_asking_free(struct collector *c);
/* An applet's collector_ops for struct applet: COLLECTORS(&a, &b). */
#define COLLECTORS(...) \
	((const struct collector_ops *const[]){__VA_ARGS__, NULL})
/* A traced child stopped at its exec: run it to its program's entry
 * point, where ld.so has mapped its libraries. 1 when it stopped there,
 * -1 when it exited (*status), 0 when it could not be done (it is
 * stopped, at the exec or elsewhere). */
int collect_run_to_entry(pid_t pid, int *status);
/* The skeletons' BPF objects are embedded compressed: opening one
 * inflates it (its skeleton calls sb_elf_inflate, scripts/skel-zip.sh),
 * and the copy is freed once the object is loaded. */
const void *sb_elf_inflate(const unsigned char *gz, size_t len, size_t size,
			   size_t *sz);
void sb_elf_release(void);
/* Online CPUs, for per-CPU perf events. */
int collect_ncpus(struct collector *c, int **cpus);
struct bpf_program;
struct perf_event_attr;
/* prog on a perf event of attr on every online CPU, kept until the end
 * and through CPU hotplug (percpu.c); a CPU that refuses ends the run
 * with one line naming event. How many CPUs. */
int collect_attach_per_cpu(struct collector *c, struct bpf_program *prog,
			   struct perf_event_attr *attr, const char *event);
/* CPU time, ns, those events did not sample since the last call: CPUs
 * that went offline (they are attached again when back). */
__u64 collect_unsampled_ns(struct collector *c);
/* Every loaded program whose name starts with prefix and whose section
 * is a tracepoint's or a raw tracepoint's, attached as the section says
 * and kept. 0, or -errno (said). */
int collect_attach_tracepoints(struct collector *c, struct bpf_object *obj,
			       const char *prefix);
/* -- CMD's pid until it is reaped (its exit brings the final
 * snapshot), else 0. */
pid_t collect_cmd_pid(struct collector *c);

#endif
