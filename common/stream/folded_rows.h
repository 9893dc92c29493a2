/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot's folded rows, each once: "comm;user root..leaf;-;kernel
 * root..leaf" (a ';' inside a frame made ':'; with a waker,
 * ";--;waker kernel leaf..root;-;waker user leaf..root;waker comm"
 * after) and the primary metric's value in folded's unit (whole us of a
 * time, else as counted). Rows that differ only in what folded does not
 * show (thread, cgroup) are one; rows with no whole unit are left out;
 * in strcmp order of the stack. What format_folded prints, and what
 * report's flame graph, HTML and --hotcold read, without the text.
 */
#ifndef STACKBOX_FOLDED_ROWS_H
#define STACKBOX_FOLDED_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* stack: len bytes and a NUL, valid during the call. */
typedef void folded_row_fn(void *ctx, const char *stack, size_t len,
			   uint64_t value);

/* fn on each row, in order. */
void folded_rows(const struct snapshot *s, folded_row_fn *fn, void *ctx);

#endif
