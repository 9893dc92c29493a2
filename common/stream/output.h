/* SPDX-License-Identifier: GPL-2.0 */
/* The formats: a snapshot (snapshot.h) as text or folded, and values. */
#ifndef STACKBOX_OUTPUT_H
#define STACKBOX_OUTPUT_H

#include <stdio.h>

#include "snapshot.h"

void format_text(FILE *f, const struct snapshot *s, long long top);
/* The core's counters in text's "lost:" line (report reads them back):
 * "lost: 3 user stacks, 1 events (row map full)", only those not zero,
 * then the applet's own; "lost: none" when all are. */
#define LOST_USTACKS "user stacks"
#define LOST_KSTACKS "kernel stacks"
#define LOST_ROWS    "events (row map full)"
#define LOST_EVENTS  "process events"
void format_folded(FILE *f, const struct snapshot *s);
/* Human form of a value of the given kind: "20.4 ms", "1.5 MiB", "42". */
const char *format_value(char *buf, size_t len, enum metric_kind kind, __u64 v);
/* Metric m of values v (a row's, or the totals), ratios worked out. */
const char *format_metric(char *buf, size_t len, const struct metric *m,
			  const __u64 *v, unsigned index);

#endif
