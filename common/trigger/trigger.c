// SPDX-License-Identifier: GPL-2.0
/* The trigger set: specs to sources, their checks, changes to the owner. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbox.h"
#include "trigger.h"

static const struct trigger_source *const sources[] = {
	&trigger_psi_cpu, &trigger_psi_memory, &trigger_psi_io,
	&trigger_load,	  &trigger_dstate,     &trigger_sig,
	&trigger_file,	  &trigger_anomaly,
};

struct trigger_set {
	struct trigger *t;
	size_t n;
	trigger_changed changed;
	void *ctx;
};

/* The source named by spec's first word; *arg after its ':' or NULL. */
static const struct trigger_source *source_of(const char *spec,
					      const char **arg)
{
	size_t len = strcspn(spec, ":");

	*arg = spec[len] ? spec + len + 1 : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		if (strlen(sources[i]->kind) == len &&
		    !strncmp(spec, sources[i]->kind, len))
			return sources[i];
	return NULL;
}

const char *trigger_spec_check(const char *spec)
{
	const char *arg;

	if (!source_of(spec, &arg))
		return "unknown trigger (cpu|memory|io[:some|full]:STALL/WINDOW, "
		       "load:N, dstate:N, signal, file:PATH, anomaly)";
	return NULL;
}

bool trigger_wants_signal(const char *const *specs, size_t n)
{
	const char *arg;

	for (size_t i = 0; i < n; i++)
		if (source_of(specs[i], &arg) == &trigger_sig)
			return true;
	return false;
}

/* Open spec into t; a source that cannot work here names a fallback,
 * which is opened instead (once: a fallback has none of its own). */
static bool open_one(struct trigger *t, const char *spec, bool fallback)
{
	const char *arg, *err;

	memset(t, 0, sizeof(*t));
	t->spec = spec;
	t->fd = -1;
	t->src = source_of(spec, &arg);
	err = t->src->open(t, arg);
	if (!err)
		return true;
	if (!t->fallback[0] || fallback)
		help_exit("-T %s: %s", spec, err);
	error_msg("-T %s: %s; using -T %s", spec, err, t->fallback);
	spec = xstrdup(t->fallback);
	if (t->src->close)
		t->src->close(t);
	return open_one(t, spec, true);
}

struct trigger_set *trigger_set_open(const char *const *specs, size_t n,
				     trigger_changed fn, void *ctx)
{
	struct trigger_set *ts = xzalloc(sizeof(*ts));

	ts->t = xzalloc(n * sizeof(*ts->t));
	ts->changed = fn;
	ts->ctx = ctx;
	for (size_t i = 0; i < n; i++) {
		open_one(&ts->t[ts->n], specs[i], false);
		ts->t[ts->n].changed = fn;
		ts->t[ts->n++].owner = ctx;
	}
	return ts;
}

size_t trigger_count(const struct trigger_set *ts)
{
	return ts->n;
}

struct trigger *trigger_at(struct trigger_set *ts, size_t i)
{
	return &ts->t[i];
}

uint64_t trigger_tick(struct trigger_set *ts, uint64_t now)
{
	uint64_t next = 0;

	for (size_t i = 0; i < ts->n; i++) {
		struct trigger *t = &ts->t[i];

		if (!t->period_ns)
			continue;
		if (now >= t->next_check) {
			t->src->check(t, now);
			if (!t->period_ns) /* the source stopped its checks */
				continue;
			/* on a grid, so a slow loop does not drift it */
			t->next_check = now + t->period_ns -
					(now - t->next_check) % t->period_ns;
			if (t->next_check <= now)
				t->next_check = now + t->period_ns;
		}
		if (!next || t->next_check < next)
			next = t->next_check;
	}
	return next;
}

void trigger_ready(struct trigger_set *ts, size_t i, uint64_t now)
{
	if (i >= ts->n)
		return;
	ts->t[i].ready = true;
	ts->t[i].src->check(&ts->t[i], now);
	ts->t[i].ready = false;
}

void trigger_signal(struct trigger_set *ts, uint64_t now)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].src == &trigger_sig)
			trigger_fire(&ts->t[i], now, "SIGUSR1");
}

void trigger_snapshot(struct trigger_set *ts, const struct snapshot *s,
		      uint64_t now)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].src->snapshot)
			ts->t[i].src->snapshot(&ts->t[i], s, now);
}

bool trigger_needs_snapshots(const struct trigger_set *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].needs_snapshots)
			return true;
	return false;
}

bool trigger_any_active(const struct trigger_set *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].active)
			return true;
	return false;
}

void trigger_set_close(struct trigger_set *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n; i++) {
		if (ts->t[i].src->close)
			ts->t[i].src->close(&ts->t[i]);
		if (ts->t[i].fd >= 0)
			close(ts->t[i].fd);
	}
	free(ts->t);
	free(ts);
}
