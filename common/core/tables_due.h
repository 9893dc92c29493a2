/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's unwind tables may take a while: a large file's .eh_frame
 * is parsed (qemu's 229,000 rows and its 40 libraries took 445 ms here).
 * Events queued meanwhile wait, and a process that lives less than that
 * (a fork that naps 300 ms) exits before its mappings are read, its rows
 * left with addresses. So the tables are due after the events at hand,
 * one process at a time, each followed by the events that came.
 */
#ifndef STACKBOX_TABLES_DUE_H
#define STACKBOX_TABLES_DUE_H

#include <stdbool.h>
#include <sys/types.h>

struct collector;
struct tables_due;

/* tgid's tables are due (look: then its mappings looked at again while
 * its loader may map more, looks.h, if it is walked by frame pointers);
 * an entry already due moves to the end. */
void tables_due(struct collector *c, pid_t tgid, bool look);
/* tgid's entry taken off the list (into *was, unless NULL): was it due? */
bool tables_undue(struct collector *c, pid_t tgid, struct tables_due *was);
/* An entry's tables built now; the look, if any, judged as of its
 * event: a loader at work then may be quiet by now (a long library
 * path searched), and still map more. */
void tables_build(struct collector *c, const struct tables_due *t);
/* tgid's tables built now, not when due, with no look (-- CMD's, run
 * to its entry point: its libraries are mapped). */
void tables_now(struct collector *c, pid_t tgid);
/* Every due process's, each followed by the events that came. */
void build_due_tables(struct collector *c);

#endif
