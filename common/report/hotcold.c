// SPDX-License-Identifier: GPL-2.0
/* report --hotcold: see hotcold.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "folded_rows.h"
#include "hotcold.h"
#include "intern.h"
#include "output.h"
#include "stackbox.h"

/* One row per stack over all snapshots, added to as they come: memory
 * grows with the distinct stacks, not with the recording's length. */
struct hotcold {
	struct intern stacks; /* with their root frame */
	uint64_t *us;	      /* by stack index */
	size_t cap;
	char *buf; /* the stack being added */
	size_t buf_cap;
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
	const char *root = sd->on ? FLAME_ON_CPU : FLAME_OFF_CPU;
	size_t rl = strlen(root), i;

	hc->buf = grow_array(hc->buf, &hc->buf_cap, rl + 1 + len, 1);
	memcpy(hc->buf, root, rl);
	hc->buf[rl] = ';';
	memcpy(hc->buf + rl + 1, stack, len);
	i = intern_add(&hc->stacks, hc->buf, rl + 1 + len);
	if (i >= hc->cap) {
		size_t old = hc->cap;

		hc->us = grow_array(hc->us, &hc->cap, i + 1, sizeof(*hc->us));
		memset(hc->us + old, 0, (hc->cap - old) * sizeof(*hc->us));
	}
	hc->us[i] += sd->on ? v * sd->ns / 1000 : v;
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

static int by_stack(const void *a, const void *b, void *stacks)
{
	return strcmp(intern_key(stacks, *(const size_t *)a),
		      intern_key(stacks, *(const size_t *)b));
}

int hotcold_write(struct hotcold *hc, FILE *f, bool svg, const char *title)
{
	struct flame *fl = svg ? flame_new() : NULL;
	size_t n = hc->stacks.n, *order = xmalloc(n * sizeof(*order) + 1);

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_stack, &hc->stacks);
	for (size_t i = 0; i < n; i++) {
		const char *stack = intern_key(&hc->stacks, order[i]);
		uint64_t us = hc->us[order[i]];

		if (svg)
			flame_add_stack(fl, stack, strlen(stack), us, false);
		else
			fprintf(f, "%s %" PRIu64 "\n", stack, us);
	}
	free(order);
	if (svg)
		flame_write_svg(fl, f, title, PALETTE_HOTCOLD, "us");
	flame_free(fl);
	return 0;
}

void hotcold_free(struct hotcold *hc)
{
	if (!hc)
		return;
	intern_free(&hc->stacks);
	free(hc->us);
	free(hc->buf);
	free(hc);
}
