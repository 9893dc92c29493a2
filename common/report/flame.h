/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs for report: folded lines in, one self-contained SVG out
 * (search, click to zoom, tooltips with value and share). With a base
 * profile it is a differential graph: the shape is the new profile, the
 * colour says whether each frame grew (red), shrank (blue) or stayed
 * (grey, its tooltip "unchanged").
 */
#ifndef STACKBOX_FLAME_H
#define STACKBOX_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flame;

/* PALETTE_HOTCOLD: warm under the root frame FLAME_ON_CPU, blue under
 * FLAME_OFF_CPU (report --hotcold) */
enum flame_palette { PALETTE_CPU, PALETTE_IO, PALETTE_MEM, PALETTE_HOTCOLD };
#define FLAME_ON_CPU  "[on-cpu]"
#define FLAME_OFF_CPU "[off-cpu]"
/* A differential graph's fill of frames that did not change */
#define FLAME_UNCHANGED "rgb(221,221,221)"

struct flame *flame_new(void);
/* "frame;frame;... VALUE"; base: the line belongs to the base profile. */
void flame_add_folded(struct flame *fl, const char *line, bool base);
/* The same of a stack ("frame;frame;...", len bytes) and its value. */
void flame_add_stack(struct flame *fl, const char *stack, size_t len,
		     uint64_t v, bool base);
/* unit: how values print in tooltips ("samples", "us", "bytes"). */
/* A new snapshot of levels (memory held): forget this side's values
 * (the base profile's when base) before its lines are added. */
void flame_snapshot(struct flame *fl, bool base);
/* The sum of the values added (the base profile's when base): what the
 * folded lines sum to, for the title. */
uint64_t flame_total(const struct flame *fl, bool base);
void flame_write_svg(struct flame *fl, FILE *f, const char *title,
		     enum flame_palette pal, const char *unit);
void flame_free(struct flame *fl);

#endif
