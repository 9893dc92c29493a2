/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader's side of the bin stream's parity frames (docs/bin-format.md):
 * after every few frames the writer sends their XOR, so one of them that
 * was lost can be rebuilt bit for bit from the others. Good frames pass
 * through at once; after bytes that were not a good frame, the frames
 * that follow are held until the next parity frame says which one was
 * lost and brings it back, then handed on in the order written.
 */
#ifndef STACKBOX_BIN_PARITY_H
#define STACKBOX_BIN_PARITY_H

#include <stddef.h>
#include <stdint.h>

/* A frame handed on: its bytes after the sync marker (type, flags,
 * length, payload, CRC), n of them. */
typedef void bin_frame_fn(void *ctx, const unsigned char *f, size_t n);

struct bin_parity;
struct bin_parity *bin_parity_new(bin_frame_fn *fn, void *ctx);
/* A good frame, in stream order (a parity frame included). Returns how
 * many lost frames it rebuilt (0 or 1); *lost: how many of its group
 * were lost and could not be. */
unsigned bin_parity_frame(struct bin_parity *p, const unsigned char *f,
			  size_t n, unsigned *lost);
/* Bytes that were not a good frame: hold what follows for a parity. */
void bin_parity_gap(struct bin_parity *p);
/* No parity will come (end of input): hand on what is held. */
void bin_parity_flush(struct bin_parity *p);
void bin_parity_free(struct bin_parity *p);

#endif
