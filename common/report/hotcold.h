/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --hotcold: on-CPU and off-CPU streams of the same run in one
 * profile whose widths are time: on-CPU samples times the stream's
 * sampling period, off-CPU blocked time. Each stack stands under a root
 * frame that says which it is (FLAME_ON_CPU, FLAME_OFF_CPU), and the
 * flame graph colours the two apart.
 */
#ifndef STACKBOX_HOTCOLD_H
#define STACKBOX_HOTCOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct snapshot;
struct hotcold;

/* Which side a snapshot is on, the metric that counts it, and the ns
 * one unit of it stands for; false when it is neither (not samples of
 * CPU time with a period, not blocked time). */
bool hotcold_side(const struct snapshot *s, bool *on_cpu, uint64_t *ns_per_unit,
		  unsigned *metric);

struct hotcold *hotcold_new(void);
/* A snapshot's folded stacks, in time, under their side's root frame. */
void hotcold_add(struct hotcold *hc, const struct snapshot *s);
/* Folded ("[on-cpu];comm;... MICROSECONDS"), or the flame graph with
 * svg. 0 or -1. */
int hotcold_write(struct hotcold *hc, FILE *f, bool svg, const char *title);
void hotcold_free(struct hotcold *hc);

#endif
