/* SPDX-License-Identifier: GPL-2.0 */
/* The collector's side of output.c: open a sink, write snapshots to it. */
#ifndef STACKBOX_OUTPUT_SINK_H
#define STACKBOX_OUTPUT_SINK_H

#include "collect.h"

struct output;
struct stack_cache;
struct snapshot;

struct output *output_open(const struct collect_opts *o,
			   struct stack_cache *stacks);
/* The process symbol cache, to capture processes while they live. */
struct proc_syms *output_procs(struct output *out);
/* Resolve, sort and write; -1 when the sink failed. */
int output_snapshot(struct output *out, struct snapshot *s);
int output_close(struct output *out);

#endif
