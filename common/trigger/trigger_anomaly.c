// SPDX-License-Identifier: GPL-2.0
/*
 * -T anomaly: the anomaly detector (anomaly_watch.h) as a trigger
 * source. It watches the snapshots themselves, so it needs -R: a gated
 * run takes none while it waits. Fires when a stack's value breaks from
 * its history; clears when every series that fired scores normal again.
 */
#include <stdlib.h>

#include "anomaly_watch.h"
#include "output.h"
#include "stackbox.h"
#include "trigger.h"

#define WATCH_SERIES   64		 /* the biggest stacks watched */
#define WATCH_COOLDOWN (30 * NS_PER_SEC) /* per stack, between fires */
#define WATCH_FIRES    4		 /* at most this many fires ... */
#define WATCH_PER      (60 * NS_PER_SEC) /* ... a minute */

struct watch {
	struct anomaly_watch *w;
	struct trigger *t;
	unsigned firing; /* series fired and not yet normal again */
	uint64_t now;
};

static void on_fire(void *ctx, const struct anomaly_cause *c)
{
	struct watch *a = ctx;

	a->firing++;
	trigger_fire(a->t, a->now,
		     "anomaly: %s pid %u %s %.0f against %.0f (score %.1f)",
		     c->key.comm, c->key.tgid,
		     c->appeared ? "appeared at" : "at", c->value, c->baseline,
		     c->score);
}

static void on_clear(void *ctx, const struct anomaly_cause *c)
{
	struct watch *a = ctx;

	if (a->firing && !--a->firing)
		trigger_clear(a->t, a->now, "anomaly: %s pid %u normal again",
			      c->key.comm, c->key.tgid);
}

static const char *anomaly_open(struct trigger *t, const char *arg)
{
	struct watch *a = xzalloc(sizeof(*a));

	if (arg)
		help_exit("-T %s: anomaly takes no argument", t->spec);
	a->t = t;
	t->priv = a;
	t->needs_snapshots = true;
	return NULL;
}

/* nothing to poll: snapshots drive it */
static void anomaly_check(struct trigger *t, uint64_t now)
{
}

static void anomaly_snapshot(struct trigger *t, const struct snapshot *s,
			     uint64_t now)
{
	struct watch *a = t->priv;

	if (!a->w) { /* the metric is known at the first snapshot */
		const struct anomaly_watch_cfg cfg = {
			WATCH_SERIES, s->primary, WATCH_COOLDOWN,
			WATCH_FIRES,  WATCH_PER,
		};
		const struct anomaly_watch_ops ops = {a, on_fire, on_clear};

		a->w = anomaly_watch_new(&cfg, &ops);
	}
	a->now = now;
	anomaly_watch_snapshot(a->w, s->rows, s->nrows, now);
}

static void anomaly_close(struct trigger *t)
{
	struct watch *a = t->priv;

	anomaly_watch_free(a->w);
	free(a);
}

const struct trigger_source trigger_anomaly = {
	"anomaly", anomaly_open, anomaly_check, anomaly_snapshot, anomaly_close,
};
