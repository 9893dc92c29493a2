/* SPDX-License-Identifier: GPL-2.0 */
/* The collector's side of output.c: open a sink, write snapshots to it. */
#ifndef STACKBOX_OUTPUT_SINK_H
#define STACKBOX_OUTPUT_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

struct output;
struct stack_cache;
struct snapshot;

/* Where and how snapshots are written (the collector's -f, -o, ...). */
struct output_opts {
	int format; /* enum output_format */
	const char *output;
	struct {
		uint64_t size; /* bytes; 0: never rotate */
		unsigned count;
	} rotate;
	long long baud;
	long long top;
};

/* Opened before BPF is loaded, so a bad -o fails before any work. */
struct output *output_open(const struct output_opts *o);
/* Where frames come from, once BPF is loaded. */
void output_set_stacks(struct output *out, struct stack_cache *stacks);
/* Kernel frames named by the running kernel, not /proc/kallsyms (NULL:
 * kallsyms). Owned by the caller, freed after output_close(). */
struct kernel_names;
void output_set_kernel_names(struct output *out, struct kernel_names *kn);
/* The process symbol cache, to capture processes while they live. */
struct proc_syms *output_procs(struct output *out);
/* A process seen for the first time, or exec'd: what must be read of it
 * while it lives (its pid in its own namespace). parent: the process it
 * is a fork of, neither exec'd since; 0: none known. */
void output_note_process(struct output *out, __u32 tgid, __u32 parent);
/* Standard output was a pipe and its reader exited (| head): the run
 * has no one to write for and ends. */
bool output_reader_gone(const struct output *out);
/* Resolve, sort and write; -1 when the sink failed. */
int output_snapshot(struct output *out, struct snapshot *s);
int output_close(struct output *out);

/* For report, which resolves recorded snapshots through this same path:
 * kernel symbols and cgroup names from the recording, and a format of its
 * own (pprof, SVG) called with each resolved snapshot instead of text or
 * folded. */
struct ksyms;
void output_set_ksyms(struct output *out, struct ksyms *ks);
void output_set_cgroup_names(struct output *out, const char *(*name)(__u64));
/* Each process's pid in its own namespace (0: the same) */
typedef void (*output_writer)(void *ctx, FILE *f, const struct snapshot *s);
void output_set_writer(struct output *out, output_writer fn, void *ctx);
/* User frames given no name so far: their file or its symbols missing. */
unsigned long output_unnamed_frames(const struct output *out);

/* Recorded snapshots resolve through a recording's sources, swapped in
 * for the live ones (bin_replay.c). */
struct output_sources {
	struct stack_cache *stacks;
	struct ksyms *ksyms;
	bool ksyms_tried;
	struct proc_syms *procs;
	const char *(*cgroup_name)(__u64 id);
	__u32 (*nspid_of)(__u32 tgid); /* NULL: /proc/PID/status */
};
void output_swap_sources(struct output *out, struct output_sources *src);
struct stack_cache *output_stacks(struct output *out);

/* The flight recorder: one snapshot as a bin stream of its own (a key
 * frame first, so the oldest can be dropped), appended to *b. */
struct bbuf;
void output_encode(struct output *out, const struct snapshot *s,
		   struct bbuf *b);
/* The flight recorder's dump (bin_replay.c): is the sink's format bin,
 * and an encoded stream written to it as it is (-1 when the sink
 * failed); then the writer's next snapshot is a key frame, as the
 * dump's last was. */
bool output_writes_bin(const struct output *out);
int output_write_encoded(struct output *out, const void *bin, size_t len);
void output_rekey(struct output *out);

#endif
