/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --anomalies: every (stack, metric) of the recordings as a time
 * series of interval values, each run through the streaming detector
 * (anomaly.h); what it flags is judged against its baseline (appeared,
 * vanished, grew, shrank, spike), shown with the stack's other metrics
 * at that time, and clustered per time window. docs/anomalies.md.
 */
#ifndef STACKBOX_ANOMALIES_H
#define STACKBOX_ANOMALIES_H

#include <stdio.h>

struct snapshot;
struct anomalies;

enum anomalies_format {
	ANOMALIES_TEXT,
	ANOMALIES_JSON,	  /* one object per anomaly, one per line */
	ANOMALIES_FOLDED, /* "stack BASELINE WINDOW": difffolded layout */
	ANOMALIES_SVG,	  /* a differential flame graph */
};

struct anomalies *anomalies_new(void);
/* An output_writer: each resolved snapshot of every input, in order. */
void anomalies_snapshot(void *an, FILE *unused, const struct snapshot *s);
/* Find, judge, cluster and write them to f. which: the anomaly (its
 * number, from 1) whose window -f folded and svg show. 0 or 1. */
int anomalies_write(struct anomalies *an, FILE *f, enum anomalies_format fmt,
		    long long which, int verbose);
void anomalies_free(struct anomalies *an);

#endif
