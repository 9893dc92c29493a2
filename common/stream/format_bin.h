/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's side of the bin stream: a snapshot as it came out of
 * BPF (rows with stack ids, unresolved), plus what the host needs to
 * resolve it offline: the stacks' raw addresses, the mappings of each
 * process, kernel function names, cgroup paths. See docs/bin-format.md.
 */
#ifndef STACKBOX_FORMAT_BIN_H
#define STACKBOX_FORMAT_BIN_H

#include "binfmt.h"
#include "output.h"
#include "syms.h"

/* Where the writer gets what a row's ids stand for (output.c). */
struct bin_source {
	void *ctx;
	/* frames leaf first, NULL when the id is not in the cache */
	const __u64 *(*stack)(void *ctx, __u64 id, unsigned *n);
	/* the kernel function holding ip, NULL when unknown */
	const char *(*ksym)(void *ctx, __u64 ip);
	/* look ip up as the text output would (captures the process) */
	void (*touch)(void *ctx, __u32 tgid, __u64 ip);
	/* the process's mappings now; *maps is malloc'ed */
	size_t (*maps)(void *ctx, __u32 tgid, struct rec_map **maps);
	const char *(*cgroup)(void *ctx, __u64 id);
	/* the process's pid in its own namespace; 0: the same */
	__u32 (*nspid)(void *ctx, __u32 tgid);
};

struct bin_writer;
/* A key frame (header and dictionaries again) every key_every snapshots. */
struct bin_writer *bin_writer_new(unsigned key_every);
/* The next snapshot starts with a key frame (a new file, a sink that
 * failed: the reader may have missed what was sent before). */
void bin_writer_rekey(struct bin_writer *w);
/* Tests: the same bytes on every machine (key ids from seed, no host
 * name, kernel release or boot time). */
void bin_writer_fix(struct bin_writer *w, uint64_t seed);
/* Encode one snapshot (its rows unresolved, counters as BPF gave them)
 * into *out: a header frame when one is due, then the snapshot's frame. */
void bin_encode_snapshot(struct bin_writer *w, const struct snapshot *s,
			 const struct bin_source *src, __u64 unwritten,
			 struct bbuf *out);
void bin_writer_free(struct bin_writer *w);

#endif
