// SPDX-License-Identifier: GPL-2.0
/*
 * Folded: "comm;user root..leaf;-;kernel root..leaf VALUE", one line per
 * row, integer values: what flamegraph.pl, inferno and speedscope read.
 * With a waker: ";--;waker kernel leaf..root;-;waker user leaf..root;
 * waker comm" follows the blocked stack. Sampled time: a "# " line
 * says its values are estimates.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded_rows.h"
#include "output.h"
#include "stackbox.h"

/* Time sampled with a period (offcpu -s) is an estimate: said in a
 * comment line, which flame graph tools skip (its last word is no
 * count) and report reads as one. Sampled counts (oncpu's) are not
 * times: flame graph tools take them as they are. */
static void say_estimates(FILE *f, const struct snapshot *s)
{
	const struct metric *m = &s->metrics[s->primary];
	char period[32];

	if (!s->period_ns || m->kind != METRIC_NS)
		return;
	fprintf(f,
		"# values are estimates: %s time sampled with a period of %s\n",
		m->name, format_duration(period, sizeof(period), s->period_ns));
}

static void print_row(void *f, const char *stack, size_t len, uint64_t value)
{
	fwrite(stack, 1, len, f);
	fprintf(f, " %" PRIu64 "\n", value);
}

/* One value per line: the primary metric (folded_rows.h). */
void format_folded(FILE *f, const struct snapshot *s)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].v[s->primary]) {
			say_estimates(f, s);
			break;
		}
	folded_rows(s, print_row, f);
}
