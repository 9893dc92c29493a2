// SPDX-License-Identifier: GPL-2.0
/* report --hotcold: see hotcold.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "folded_rows.h"
#include "hotcold.h"
#include "output.h"
#include "stackbox.h"

struct line {
	char *stack; /* with its root frame */
	uint64_t us;
};

struct hotcold {
	struct line *l;
	size_t n, cap;
};

bool hotcold_side(const struct snapshot *s, bool *on_cpu, uint64_t *ns_per_unit,
		  unsigned *metric)
{
	const struct metric *m = &s->metrics[s->primary];

	*metric = s->primary;
	/* oncpu: each count is a sample of period_ns of CPU time */
	*on_cpu = metric_measure(m) == MEASURE_CPU_TIME;
	if (*on_cpu && s->period_ns) {
		*ns_per_unit = s->period_ns;
		return true;
	}
	*ns_per_unit = 1;
	return metric_measure(m) == MEASURE_BLOCKED_TIME &&
	       m->kind == METRIC_NS;
}

struct hotcold *hotcold_new(void)
{
	return xzalloc(sizeof(struct hotcold));
}

struct side {
	struct hotcold *hc;
	bool on;
	uint64_t ns; /* a unit's nanoseconds */
};

static void add_row(void *ctx, const char *stack, size_t len, uint64_t v)
{
	struct side *sd = ctx;
	struct hotcold *hc = sd->hc;

	hc->l = grow_array(hc->l, &hc->cap, hc->n + 1, sizeof(*hc->l));
	hc->l[hc->n].stack =
		xasprintf("%s;%.*s", sd->on ? FLAME_ON_CPU : FLAME_OFF_CPU,
			  (int)len, stack);
	hc->l[hc->n++].us = sd->on ? v * sd->ns / 1000 : v;
}

/*
 * folded's own rows (one way to fold a stack), their values made time:
 * off-CPU ones are microseconds already, on-CPU ones samples.
 */
void hotcold_add(struct hotcold *hc, const struct snapshot *s)
{
	struct side sd = {hc};
	unsigned m;

	hotcold_side(s, &sd.on, &sd.ns, &m);
	folded_rows(s, add_row, &sd);
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->stack,
		      ((const struct line *)b)->stack);
}

int hotcold_write(struct hotcold *hc, FILE *f, bool svg, const char *title)
{
	struct flame *fl = svg ? flame_new() : NULL;
	size_t n = 0;

	/* one line per stack over all snapshots */
	qsort(hc->l, hc->n, sizeof(*hc->l), by_stack);
	for (size_t i = 0; i < hc->n; i++) {
		if (n && !strcmp(hc->l[n - 1].stack, hc->l[i].stack)) {
			hc->l[n - 1].us += hc->l[i].us;
			free(hc->l[i].stack);
		} else {
			hc->l[n++] = hc->l[i];
		}
	}
	hc->n = n;
	for (size_t i = 0; i < n; i++) {
		if (!svg) {
			fprintf(f, "%s %" PRIu64 "\n", hc->l[i].stack,
				hc->l[i].us);
			continue;
		}
		flame_add_stack(fl, hc->l[i].stack, strlen(hc->l[i].stack),
				hc->l[i].us, false);
	}
	if (svg)
		flame_write_svg(fl, f, title, PALETTE_HOTCOLD, "us");
	flame_free(fl);
	return 0;
}

void hotcold_free(struct hotcold *hc)
{
	if (!hc)
		return;
	for (size_t i = 0; i < hc->n; i++)
		free(hc->l[i].stack);
	free(hc->l);
	free(hc);
}
