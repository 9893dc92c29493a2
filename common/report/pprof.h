/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof output for report: a gzip-compressed profile.proto
 * (github.com/google/pprof, proto/profile.proto) from our own small
 * protobuf encoder. Locations carry their address and mapping (with
 * build-id) when known, functions their names, a Line per function
 * (calls inlined there first, as pprof orders them); frames leaf first.
 */
#ifndef STACKBOX_PPROF_H
#define STACKBOX_PPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "syms.h"

struct pprof;

/* Sample types (name, unit) the profile holds, e.g. {"samples","count"},
 * {"cpu","nanoseconds"}; period_type is types[period_index] when
 * period != 0; viewers show types[default_index] first (-1: the last,
 * pprof's own default). */
struct pprof *pprof_new(const char *const *types, const char *const *units,
			unsigned ntypes, int period_index, int64_t period,
			int default_index);

struct pprof_frame {
	const char *name;
	uint64_t addr;		   /* 0: unknown */
	const struct rec_map *map; /* NULL: none */
	bool inlined; /* a call inlined into the next frame: one Location
		       * holds both, a Line each */
};
/* One sample: frames leaf first; labels are NULL-terminated key/value
 * string pairs ("comm", "burn", ...); pid a numeric label when > 0. */
void pprof_add(struct pprof *p, const struct pprof_frame *frames, unsigned n,
	       const int64_t *values, const char *const *labels, int64_t pid);
/* exe is what a sample's process runs (its executable), weight the
 * sample's value: pprof shows the first Mapping as the profile's main
 * binary, and that is the executable weighed most over all samples that
 * is a real file (never a memfd, [anon] or deleted one; else the first
 * real file mapped, else the first Mapping). */
void pprof_weigh_main(struct pprof *p, const struct rec_map *exe,
		      int64_t weight);
/* A new snapshot: the types in levels (bit i: types[i]) are levels at
 * the snapshot (memory held), so its values replace the last ones
 * instead of adding to them. */
void pprof_snapshot(struct pprof *p, unsigned levels);
void pprof_time(struct pprof *p, int64_t start_ns, int64_t duration_ns);
/* gzip-compressed, as pprof and Pyroscope expect. 0 or -1. */
int pprof_write(struct pprof *p, FILE *f);
/* The same into memory (for --push); *len bytes, malloc'ed. */
unsigned char *pprof_encode(struct pprof *p, size_t *len);
void pprof_free(struct pprof *p);

#endif
