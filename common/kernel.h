/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel has, probed at run time: tracefs and its
 * tracepoints, kernel BTF (parsed once per run), kernel functions
 * (BTF for fentry, /proc/kallsyms for kprobes), the CPU list, and which
 * ways to attach work. The attach plan asks here for each alternative
 * (struct attach_alt carries what it needs); applets ask for layouts.
 */
#ifndef STACKBOX_KERNEL_H
#define STACKBOX_KERNEL_H

#include <stdbool.h>

struct btf;

/* What an attach alternative needs of the kernel. */
enum kernel_feature {
	KF_NONE,       /* nothing: raw_tp, perf events */
	KF_BTF,	       /* the kernel's own BTF (tp_btf) */
	KF_LAYOUT,     /* struct layouts from any BTF source (kbtf()) */
	KF_TRACEPOINT, /* tracefs lists category:name */
	KF_FENTRY,     /* kernel BTF has the function name */
	KF_KPROBE,     /* kprobes work and kallsyms has the function name */
};

/* Does the kernel have BTF of its own (/sys/kernel/btf/vmlinux there,
 * readable and not empty)? tp_btf, fentry and bpf_task_pt_regs need it. */
bool kbtf_available(void);
/* --btf FILE: where kbtf() reads kernel types, before any other. */
void kbtf_use(const char *path);
/* Kernel types for struct layouts, parsed on the first call and kept
 * until kbtf_release(); NULL without any. From --btf FILE, else the
 * kernel's own (or a vmlinux of this release where libbpf looks), else
 * the minimal BTF built in (CONFIG_BTF_EMBED). Parsing the kernel's
 * costs some 18 ms and 6 MB here: one parse a run, shared by every
 * layout and function lookup. */
const struct btf *kbtf(void);
/* How a run without kernel types gets them, for messages. */
#define KBTF_HOW "CONFIG_DEBUG_INFO_BTF, or --btf FILE"
/* Is there a source of struct layouts (kbtf() not NULL)? */
bool kbtf_layouts(void);
/* After the last load: the parsed BTF goes (a later kbtf() parses it
 * again, and counts it). */
void kbtf_release(void);
/* How many times this process parsed kernel BTF (-v, bench/startup.sh). */
unsigned kbtf_parses(void);
/* Byte offset of member in struct type, looking into anonymous structs
 * and unions as C does; *size is the member's size when size is not
 * NULL. -1 when there is no such member. */
int kbtf_member(const struct btf *btf, const char *type, const char *member,
		unsigned *size);
/* Does kernel BTF have a function of this name (an fentry target)? */
bool kbtf_has_func(const char *name);

/* Does tracefs list this tracepoint? Mounts tracefs when it is not. */
bool collect_tracepoint_exists(const char *category, const char *name);
/* Where a classic tracepoint's record keeps field (its format file):
 * the offset, and its size in *size; -1 when there is no such field.
 * Fields move between kernel versions; BPF reads them at these. */
int collect_tracepoint_field(const char *category, const char *name,
			     const char *field, unsigned *size);

/* Which of names[0..n) (n <= 32) /proc/kallsyms lists as text, as bits:
 * one pass over the file for all of them. */
unsigned kallsyms_have(const char *const *names, unsigned n);
/* Can kprobes be created here (the PMU, or tracefs' kprobe_events)? */
bool kprobes_work(void);

/* Does the kernel have what feature needs for name (a function, or a
 * tracepoint's category and name)? kallsyms answers are cached by the
 * caller; see attach_alt. */
bool kernel_has(enum kernel_feature feature, const char *category,
		const char *name);

/* What the BPF loader accepts, probed once a run with tiny programs
 * (root; without the privilege to tell, the answer is yes and the load
 * itself fails). Callbacks and atomic fetch operations, as
 * bpf_for_each_map_elem has them (5.13): without them the legacy
 * programs load (CONFIG_BPF_LEGACY). bpf_loop (5.17): --unwind
 * eh_frame. */
bool kernel_bpf_callbacks(void);
bool kernel_bpf_loop(void);
/* perf_event programs may only use preallocated hash maps (before 6.1:
 * the kernel could not allocate in NMI context). */
bool kernel_perf_event_needs_prealloc(void);

/* The online CPUs ("0-3,5" in sysfs): their count, the list in *cpus
 * (malloc'ed). Exits when sysfs cannot tell. */
int kernel_online_cpus(int **cpus);

#endif
