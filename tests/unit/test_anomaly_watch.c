// SPDX-License-Identifier: GPL-2.0
// layer: trigger
/*
 * The device side of anomaly detection alone (common/trigger/anomaly_watch.c),
 * fed synthetic snapshots: a step fires once with its cause and clears,
 * a stack that appears fires, only the biggest series are watched and
 * the rest counted, the cool-down and the rate limit hold fires back,
 * and the memory is fixed at creation.
 */
#include <stdlib.h>

#include "anomaly.h"
#include "anomaly_watch.h"
#include "check.h"

#define SEC 1000000000ULL

struct seen {
	unsigned fires, clears;
	struct anomaly_cause last;
};

static void on_fire(void *ctx, const struct anomaly_cause *c)
{
	struct seen *s = ctx;

	s->fires++;
	s->last = *c;
}

static void on_clear(void *ctx, const struct anomaly_cause *c)
{
	((struct seen *)ctx)->clears++;
}

static struct row row_of(unsigned stack, __u64 v)
{
	struct row r = {0};

	r.key.user_stack = 1000 + stack;
	r.key.tgid = 42;
	r.v[0] = v;
	return r;
}

static struct anomaly_watch *watch(unsigned max_series, uint64_t cooldown,
				   unsigned max_fires, struct seen *s)
{
	struct anomaly_watch_cfg cfg = {max_series, 0, cooldown, max_fires,
					60 * SEC};
	struct anomaly_watch_ops ops = {s, on_fire, on_clear};

	return anomaly_watch_new(&cfg, &ops);
}

/* Stack 1 at 100, then 400 from snapshot 20. */
static void step_fires_once(void)
{
	struct seen s = {0};
	struct anomaly_watch *w = watch(8, 30 * SEC, 10, &s);
	unsigned at = 0;

	for (unsigned t = 0; t < 40; t++) {
		struct row r = row_of(1, t < 20 ? 100 : 400);

		if (anomaly_watch_snapshot(w, &r, 1, t * SEC) && !at)
			at = t;
	}
	CHECK("watch: a step fires", s.fires >= 1, "%u fires", s.fires);
	CHECK_INT("watch: at the step's snapshot", at, 20);
	CHECK_INT("watch: once (cool-down 30 s covers the rest)", s.fires, 1);
	CHECK("watch: the cause names the stack and the value",
	      s.last.key.user_stack == 1001 && s.last.value >= 400 &&
		      s.last.baseline < 150 &&
		      s.last.score >= ANOMALY_THRESHOLD,
	      "stack %llu value %.0f baseline %.0f score %.2f",
	      (unsigned long long)s.last.key.user_stack, s.last.value,
	      s.last.baseline, s.last.score);
	CHECK("watch: it clears once the series scores normal", s.clears >= 1,
	      "%u clears", s.clears);
	anomaly_watch_free(w);
}

/* Stack 2 joins stack 1 at snapshot 15, never seen before. */
static void appeared_fires(void)
{
	struct seen s = {0};
	struct anomaly_watch *w = watch(8, 0, 10, &s);

	for (unsigned t = 0; t < 20; t++) {
		struct row r[2] = {row_of(1, 100), row_of(2, 300)};

		anomaly_watch_snapshot(w, r, t < 15 ? 1 : 2, t * SEC);
	}
	CHECK("watch: a stack that appears fires, marked appeared",
	      s.fires == 1 && s.last.appeared && s.last.key.user_stack == 1002,
	      "%u fires, appeared %d, stack %llu", s.fires, s.last.appeared,
	      (unsigned long long)s.last.key.user_stack);
	anomaly_watch_free(w);
}

/* 100 stacks, 8 watched: the biggest; the rest counted. */
static void bounded(void)
{
	struct seen s = {0};
	struct anomaly_watch *w = watch(8, 0, 10, &s);
	struct row r[100];
	size_t bytes = anomaly_watch_bytes(w);

	for (unsigned t = 0; t < 10; t++) {
		for (unsigned i = 0; i < 100; i++)
			r[i] = row_of(i, 10 + i);
		anomaly_watch_snapshot(w, r, 100, t * SEC);
	}
	/* the small stack 3 steps: not watched, so no fire */
	r[3].v[0] = 5000;
	anomaly_watch_snapshot(w, r, 100, 10 * SEC);
	CHECK_INT("watch: rows not among the 8 biggest are counted",
		  anomaly_watch_stats(w)->rows_unwatched, 10 * 92 + 92);
	CHECK_INT("watch: memory fixed at creation", anomaly_watch_bytes(w),
		  bytes);
	CHECK("watch: 8 series hold under 24 KiB", bytes < 24 * 1024,
	      "%zu bytes", bytes);
	CHECK("watch: a stack newly among the biggest evicts the smallest",
	      anomaly_watch_stats(w)->evicted == 1, "%llu evicted",
	      (unsigned long long)anomaly_watch_stats(w)->evicted);
	anomaly_watch_free(w);
}

/* 20 stacks step together; at most 3 fires a minute. */
static void rate_limited(void)
{
	struct seen s = {0};
	struct anomaly_watch *w = watch(32, 0, 3, &s);
	struct row r[20];

	for (unsigned t = 0; t < 30; t++) {
		for (unsigned i = 0; i < 20; i++)
			r[i] = row_of(i, t < 20 ? 100 : 1000);
		anomaly_watch_snapshot(w, r, 20, t * SEC);
	}
	CHECK_INT("watch: 20 series break at once, 3 fire (rate limit)",
		  s.fires, 3);
	CHECK("watch: the rest are counted as held by the rate limit",
	      anomaly_watch_stats(w)->held_rate >= 17, "%llu held",
	      (unsigned long long)anomaly_watch_stats(w)->held_rate);
	anomaly_watch_free(w);
}

/* A series that breaks again soon after a fire. */
static unsigned twice(uint64_t cooldown, uint64_t *held)
{
	struct seen s = {0};
	struct anomaly_watch *w = watch(8, cooldown, 10, &s);

	for (unsigned t = 0; t < 30; t++) {
		struct row r = row_of(1, t < 10 ? 100 : t < 15 ? 1000 : 10);

		anomaly_watch_snapshot(w, &r, 1, t * SEC);
	}
	*held = anomaly_watch_stats(w)->held_cooldown;
	anomaly_watch_free(w);
	return s.fires;
}

static void cooldown(void)
{
	uint64_t held;
	unsigned fires = twice(60 * SEC, &held);

	CHECK("watch: within its cool-down a series fires once, the rest held",
	      fires == 1 && held >= 1, "%u fires, %llu held", fires,
	      (unsigned long long)held);
	fires = twice(0, &held);
	CHECK("watch: without a cool-down it fires again", fires >= 2,
	      "%u fires", fires);
}

int main(void)
{
	step_fires_once();
	appeared_fires();
	bounded();
	rate_limited();
	cooldown();
	return 0;
}
