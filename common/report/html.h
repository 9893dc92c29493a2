/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report -f html: one self-contained page of a recording (no network, no
 * external script, style or font). A heatmap of the snapshots in time
 * (one row band per applet's stream, the measure as colour); select a
 * range and the page draws its flame graph, a second one the
 * differential; trigger marks and --anomalies' findings on the time
 * axis; the URL fragment #from=T&to=T[&base_from=T&base_to=T] holds the
 * selection. The data: a dictionary of frames, one of stacks (frame
 * numbers, root first, as folded's), and per snapshot its stacks'
 * values (primary metric, folded's unit), sparse: about 5 bytes a stack
 * a snapshot, which bounds the page's size.
 */
#ifndef STACKBOX_REPORT_HTML_H
#define STACKBOX_REPORT_HTML_H

#include <stdio.h>

struct snapshot;
struct html;

struct html *html_new(void);
/* An output_writer: each resolved snapshot of every input, in order. */
void html_snapshot(void *h, FILE *unused, const struct snapshot *s);
/* anomalies: --anomalies -f json's lines (one object each), or NULL. */
int html_write(struct html *h, FILE *f, const char *title,
	       const char *anomalies);
void html_free(struct html *h);

/* The page's script and style (common/report/html/, embedded by the
 * build: gen/html_assets.c). */
extern const char html_page_js[], html_page_css[];

#endif
