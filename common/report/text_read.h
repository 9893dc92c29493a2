/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report's third input: the text every applet prints by default (and
 * report itself), read back into the snapshots it was printed from.
 * Text has names only: no addresses, mappings or build-ids, so nothing
 * can be resolved again; values come back as printed (a time to 3
 * significant digits or so, counts exactly), times to the millisecond
 * in this machine's time zone.
 */
#ifndef STACKBOX_TEXT_READ_H
#define STACKBOX_TEXT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;
struct text_read;

/* Does this start of an input look like stackbox's text (a snapshot's
 * header or a trigger's mark first)? */
bool text_read_detect(const void *data, size_t len);

/* snapshot: called with each snapshot read, its rows named already. */
struct text_read *text_read_new(void (*snapshot)(void *ctx, struct snapshot *s),
				void *ctx);
/* Bytes in any pieces. */
void text_read_feed(struct text_read *t, const void *data, size_t len);
/* End of input: the last snapshot; what was left out is said on
 * standard error, naming the input (NULL: nothing is said). The number
 * of snapshots read. */
uint64_t text_read_end(struct text_read *t, const char *name);
void text_read_free(struct text_read *t);

#endif
