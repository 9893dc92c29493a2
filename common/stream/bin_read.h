/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the bin stream (docs/bin-format.md): bytes in, snapshots out.
 * The reader finds frames by their sync marker and CRC, so it can start
 * anywhere; it repairs a frame with one flipped bit, and counts what it
 * could not read. Version 3 rebuilds a lost frame from its group's
 * parity, else loses only the piece of a snapshot it held (and rows that
 * needed what it alone carried); version 1 waits for the next key frame.
 */
#ifndef STACKBOX_BIN_READ_H
#define STACKBOX_BIN_READ_H

#include "snapshot.h"
#include "output.h"
#include "syms.h"
#include "u64map.h"

/* What the stream said since its last key frame. */
struct bin_state {
	/* the header */
	unsigned version;
	uint64_t key;
	char *applet, *describe, *host, *release, *machine;
	uint64_t boot_ns;
	bool per_thread, has_aux;
	unsigned nmetrics, primary;
	uint64_t period_ns; /* what one count stands for; 0: not sampled */
	struct metric metrics[SB_MAX_VALUES];
	char **stat_names; /* NULL-terminated */
	/* dictionaries */
	char **str;
	size_t nstr, str_cap;
	struct bin_stack {
		__u64 *ip; /* leaf first */
		unsigned n;
	} * stacks;
	size_t nstacks, stacks_cap;
	uint64_t *ksym_addr;
	const char **ksym_name;
	size_t nksyms, ksyms_cap;
	uint64_t ksym_prev;	  /* addresses come as deltas to the last one */
	struct u64map ksym_known; /* version 3: addresses listed already */
	uint64_t *cgroup_id;
	const char **cgroup_path;
	size_t ncgroups, cgroups_cap;
	uint32_t *aux_val;
	const char **aux_name;
	size_t naux, aux_cap;
	struct u64map nspids; /* tgid -> its pid in its own namespace */
	unsigned long dict_frames;
	bool synced; /* a key frame was read and nothing since was lost */
};

struct bin_stats {
	uint64_t frames;	    /* good frames */
	uint64_t bytes_skipped;	    /* bytes outside good frames */
	uint64_t bad_frames;	    /* sync markers with a bad frame behind */
	uint64_t frames_unsynced;   /* good frames read before a key frame */
	uint64_t snapshots;	    /* delivered */
	uint64_t snapshots_broken;  /* their dictionaries were incomplete */
	uint64_t snapshots_missing; /* gaps in the sequence numbers */
	uint64_t frames_repaired;   /* one flipped bit, found by the CRC */
	uint64_t frames_rebuilt;    /* lost, and rebuilt from parity */
	uint64_t frames_headless; /* snapshot frames whose header never came */
	uint64_t pieces_lost;	  /* pieces of delivered snapshots */
	uint64_t rows_dropped;	  /* they named a stack or name not received */
	uint64_t unwritten;	  /* the writer's sink dropped these */
};

struct bin_reader_ops {
	void *ctx;
	/* a key frame: the dictionaries start empty */
	void (*key)(void *ctx, const struct bin_state *st);
	/* a process's mappings (replace what was known of it) */
	void (*maps)(void *ctx, uint32_t tgid, const struct rec_map *m,
		     size_t n);
	/* a snapshot; rows' stack ids are dictionary references
	 * (BIN_REF_*: index i of st->stacks is BIN_REF0 + i; version 3
	 * leaves gaps, ip NULL, which no row delivered refers to) */
	void (*snapshot)(void *ctx, const struct bin_state *st,
			 struct snapshot *s);
};

struct bin_reader;
struct bin_reader *bin_reader_new(const struct bin_reader_ops *ops);
/* Bytes in any pieces; complete frames are handled at once. */
void bin_reader_feed(struct bin_reader *r, const void *data, size_t len);
/* End of input: what is left is an unfinished frame. */
void bin_reader_end(struct bin_reader *r);
const struct bin_stats *bin_reader_stats(const struct bin_reader *r);
void bin_reader_free(struct bin_reader *r);

#endif
