/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel has, probed at run time: tracefs and its
 * tracepoints, kernel BTF (indexed once per run), kernel functions
 * (BTF for fentry, /proc/kallsyms for kprobes), the CPU list, and which
 * ways to attach work. The attach plan asks here for each alternative
 * (struct attach_alt carries what it needs); applets ask for layouts.
 */
#ifndef STACKBOX_KERNEL_H
#define STACKBOX_KERNEL_H

#include <stdbool.h>

/* A probe's answer (here and kfeatures.h). */
enum feature_answer {
	FEATURE_NO,
	FEATURE_YES,
	FEATURE_NEEDS_ROOT, /* this user cannot tell (run as root) */
};

/* What an attach alternative needs of the kernel. */
enum kernel_feature {
	KF_NONE,       /* nothing: raw_tp, perf events */
	KF_BTF,	       /* the kernel's own BTF (tp_btf) */
	KF_LAYOUT,     /* struct layouts from any BTF source (kbtf_layouts()) */
	KF_TRACEPOINT, /* tracefs lists category:name */
	KF_FENTRY,     /* kernel BTF has the function name */
	KF_KPROBE,     /* kprobes work and kallsyms has the function name */
};

/* Does the kernel have BTF of its own (/sys/kernel/btf/vmlinux there,
 * readable and not empty)? tp_btf, fentry and bpf_task_pt_regs need it. */
bool kbtf_available(void);
/* --btf FILE: where kernel types are read from, before any other. */
void kbtf_use(const char *path);
/*
 * Kernel types for struct layouts and names (common/kernel/kbtf.c): from --btf
 * FILE, else the kernel's own (or a vmlinux of this release), else the
 * minimal BTF built in (CONFIG_BTF_EMBED). Indexed on the first question
 * (8 bytes a type, some 1 MB for a kernel's, not a parse of its 5.5 MB)
 * and kept until kbtf_release(); records and names are read from the
 * file when asked.
 */
/* How a run without kernel types gets them, for messages. */
#define KBTF_HOW "CONFIG_DEBUG_INFO_BTF, or --btf FILE"
/* Is there a source of kernel types? */
bool kbtf_layouts(void);
/* After the last load: the index goes (a later question indexes again,
 * and counts it). */
void kbtf_release(void);
/* How many times this process indexed kernel types (-v,
 * bench/startup.sh). */
unsigned kbtf_parses(void);
/* Byte offset of member in struct type, looking into anonymous structs
 * and unions as C does; *size is the member's size when size is not
 * NULL. -1 when there is no such member. */
int kbtf_member(const char *type, const char *member, unsigned *size);
/* Does the kernel's own BTF have this member: a question about the
 * running kernel's features, never answered by --btf or the minimal BTF
 * (which hold layouts, and come from another build). */
bool kbtf_has_member(const char *type, const char *member);
/* The type id of function name, or -1. */
int kbtf_func_id(const char *name);
/* Does the kernel's own BTF have a function of this name (an fentry
 * target)? */
bool kbtf_has_func(const char *name);
/* The value of name in enum type; 0 when the enum has no such name, -1
 * when there is no such enum (or no types). */
long long kbtf_enum_value(const char *type, const char *name);
/* How many parameters the function-pointer typedef type takes (a
 * tracepoint's btf_trace_NAME), or -1. */
int kbtf_proto_params(const char *type);

/* Does tracefs list this tracepoint? Mounts tracefs when it is not. */
bool kernel_tracepoint_exists(const char *category, const char *name);
/* The same, or FEATURE_NEEDS_ROOT where this user cannot read tracefs
 * or mount it. */
enum feature_answer tracepoint_answer(const char *category, const char *name);
/* Where a classic tracepoint's record keeps field (its format file):
 * the offset, and its size in *size; -1 when there is no such field.
 * Fields move between kernel versions; BPF reads them at these. */
int kernel_tracepoint_field(const char *category, const char *name,
			    const char *field, unsigned *size);

/* Is sym, a kallsyms name, the function name: itself, or a copy GCC
 * made of the whole function with other arguments (name.isra.N,
 * name.constprop.N), whose entry sees every call? Not .part.N or .cold,
 * pieces of it. */
bool ksym_is_function(const char *sym, const char *name);
#define KSYM_LEN 128
/* Which of names[0..n) (n <= 32) /proc/kallsyms lists as text, as bits,
 * itself or as such a copy: one pass over the file for all of them. With
 * found_as, the symbol each was found as (the function's own name where
 * both are listed): what a kprobe attaches to. */
unsigned kallsyms_have(const char *const *names, unsigned n,
		       char (*found_as)[KSYM_LEN]);
/* The text of kernel function sym, from its address to the next symbol's
 * ([lo, hi)); false where kallsyms does not show it (addresses hidden
 * from this user, or no such function). */
bool kallsyms_text(const char *sym, unsigned long long *lo,
		   unsigned long long *hi);
/* Can kprobes be created here (the PMU, or tracefs' kprobe_events)? */
bool kprobes_work(void);
/* The same, or FEATURE_NEEDS_ROOT where only tracefs could tell and
 * this user cannot read it. */
enum feature_answer kprobes_answer(void);

/* perf_event programs may only use preallocated hash maps (before 6.1:
 * the kernel could not allocate in NMI context). */
bool kernel_perf_event_needs_prealloc(void);

/* The online CPUs ("0-3,5" in sysfs): their count, the list in *cpus
 * (malloc'ed). Exits when sysfs cannot tell. */
int kernel_online_cpus(int **cpus);

#endif
