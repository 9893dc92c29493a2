/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's ring (-R WINDOW --record-bytes N): the last
 * WINDOW of snapshots, each encoded as a bin stream of its own (a key
 * frame first, so dropping the oldest leaves a stream that decodes), in
 * at most N bytes. What is dropped to stay within N is counted.
 */
#ifndef STACKBOX_RECORDER_H
#define STACKBOX_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct bbuf;

struct recorder_stats {
	size_t snapshots, bytes; /* held now */
	size_t peak_bytes;	 /* the most ever held */
	/* since the last take: older than WINDOW; over the bound */
	uint64_t expired, dropped, dropped_bytes;
	struct timespec from; /* the oldest held snapshot's start */
};

struct recorder;
struct recorder *recorder_new(uint64_t window_ns, size_t bound);
/* One snapshot's stream (b's buffer is taken over), ending at end. */
void recorder_add(struct recorder *r, const struct timespec *start,
		  const struct timespec *end, struct bbuf *b);
const struct recorder_stats *recorder_stats(const struct recorder *r);
/* Everything held, oldest first, to fn one snapshot at a time (each
 * freed after: a dump needs no second copy); the ring is empty after,
 * its drop counts start again. */
void recorder_take(struct recorder *r,
		   void (*fn)(void *ctx, const void *p, size_t len), void *ctx);
void recorder_free(struct recorder *r);

#endif
