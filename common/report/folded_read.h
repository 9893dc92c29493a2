/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report's fourth input: folded stacks, "frame;frame;... COUNT" a line,
 * root first, as flamegraph.pl, inferno, speedscope and our -f folded
 * write them. The first frame is the comm when it fits one (else the
 * row has none, and folded writes the line back as read); our ";-;"
 * splits user space's frames from the kernel's. One snapshot of all
 * lines, no times; the value is counted as samples.
 */
#ifndef STACKBOX_FOLDED_READ_H
#define STACKBOX_FOLDED_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;
struct folded_read;

/* Does this start of an input look like folded stacks (its first whole
 * line "STACK COUNT", and 3 of 4 of the next ones)? */
bool folded_read_detect(const void *data, size_t len);

/* snapshot: called once, at the end, with every line's row. */
struct folded_read *
folded_read_new(void (*snapshot)(void *ctx, struct snapshot *s), void *ctx);
/* Bytes in any pieces. */
void folded_read_feed(struct folded_read *f, const void *data, size_t len);
/* End of input: the snapshot; lines left out are said on standard
 * error, naming the input. The number of lines read. */
uint64_t folded_read_end(struct folded_read *f, const char *name);
void folded_read_free(struct folded_read *f);

#endif
