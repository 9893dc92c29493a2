/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recorded snapshots through output.c, resolved as live ones are: a bin
 * stream's stacks go into a stack cache of their own, its kernel
 * symbols, processes' mappings, cgroup and aux names stand in for the
 * live ones. report and the flight recorder's dump share this.
 */
#ifndef STACKBOX_BIN_REPLAY_H
#define STACKBOX_BIN_REPLAY_H

#include "output.h"
#include "bin_read.h"

struct output;
struct bin_replay;

/* From now on out resolves through the recording's dictionaries. */
struct bin_replay *bin_replay_new(struct output *out);
/* A key frame: the stream's stack numbers start again. */
void bin_replay_key(struct bin_replay *r);
/* A process's recorded mappings. */
void bin_replay_maps(struct bin_replay *r, uint32_t tgid,
		     const struct rec_map *m, size_t n);
/* Before output_snapshot(out, s): the dictionaries st holds now. */
void bin_replay_sync(struct bin_replay *r, const struct bin_state *st,
		     struct snapshot *s);
/* The reader ops for a replay that writes every snapshot to out. */
struct bin_reader_ops bin_replay_ops(struct bin_replay *r);
/* out resolves live again. */
void bin_replay_free(struct bin_replay *r);

/* The flight recorder's bin stream to out's sink, in pieces: as it is
 * under -f bin, else decoded and written as text or folded (the same
 * path as report). end: -1 when the sink failed. */
struct bin_replay_dump;
struct bin_replay_dump *bin_replay_dump_begin(struct output *out);
void bin_replay_dump_feed(struct bin_replay_dump *d, const void *bin,
			  size_t len);
int bin_replay_dump_end(struct bin_replay_dump *d);

#endif
