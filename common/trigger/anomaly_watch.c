// SPDX-License-Identifier: GPL-2.0
/*
 * The device side of anomaly detection. Everything is allocated once:
 * max_series slots (a detector each), a hash of them, a bitmap of stack
 * keys seen, the fire times of the rate window, and per-snapshot scratch
 * sized by max_series. Per snapshot the work is linear in the rows.
 */
#include <stdlib.h>
#include <string.h>

#include "anomaly.h"
#include "anomaly_watch.h"
#include "stackbox.h"

#define SEEN_BITS     32768 /* keys ever seen in a row: 4 KiB */
#define APPEAR_ZEROES 8	    /* an appeared stack's history: this many 0s */
#define WARMUP	      3	    /* points a series needs before it fires */

struct slot {
	struct sb_key key;
	struct anomaly det;
	double mean;	    /* running mean, for the cause */
	double value, prev; /* this snapshot's, the last one's */
	unsigned points;    /* seen, for the warm-up */
	uint64_t last_fire;
	bool used, fired, present, has_fired;
};

struct anomaly_watch {
	struct anomaly_watch_cfg cfg;
	struct anomaly_watch_ops ops;
	struct anomaly_watch_stats stats;
	struct slot *slot;
	unsigned *hash, nhash; /* slot index + 1; 0: empty */
	const struct row **top;
	uint64_t *fires; /* ring of the last max_fires fire times */
	unsigned nfires, fire_head;
	unsigned char seen[SEEN_BITS / 8];
	size_t bytes;
};

static void *alloc(struct anomaly_watch *w, size_t n)
{
	w->bytes += n;
	return xzalloc(n);
}

struct anomaly_watch *anomaly_watch_new(const struct anomaly_watch_cfg *cfg,
					const struct anomaly_watch_ops *ops)
{
	struct anomaly_watch *w = xzalloc(sizeof(*w));
	unsigned n = cfg->max_series ? cfg->max_series : 1;

	w->bytes = sizeof(*w);
	w->cfg = *cfg;
	w->cfg.max_series = n;
	w->ops = *ops;
	w->slot = alloc(w, n * sizeof(*w->slot));
	w->nhash = 2 * n;
	w->hash = alloc(w, w->nhash * sizeof(*w->hash));
	w->top = alloc(w, (n + 1) * sizeof(*w->top));
	w->fires = alloc(w, (cfg->max_fires + 1) * sizeof(*w->fires));
	return w;
}

static unsigned key_hash(const struct sb_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	unsigned h = 2166136261u;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The slot watching key, or NULL. */
static struct slot *find(struct anomaly_watch *w, const struct sb_key *k)
{
	for (unsigned i = key_hash(k) % w->nhash, n = 0; n < w->nhash;
	     i = (i + 1) % w->nhash, n++) {
		if (!w->hash[i])
			return NULL;
		if (!memcmp(&w->slot[w->hash[i] - 1].key, k, sizeof(*k)))
			return &w->slot[w->hash[i] - 1];
	}
	return NULL;
}

static void rehash(struct anomaly_watch *w)
{
	memset(w->hash, 0, w->nhash * sizeof(*w->hash));
	for (unsigned s = 0; s < w->cfg.max_series; s++) {
		unsigned i;

		if (!w->slot[s].used)
			continue;
		for (i = key_hash(&w->slot[s].key) % w->nhash; w->hash[i];
		     i = (i + 1) % w->nhash)
			;
		w->hash[i] = s + 1;
	}
}

static bool seen_before(struct anomaly_watch *w, const struct sb_key *k)
{
	unsigned b = key_hash(k) % SEEN_BITS;
	bool was = w->seen[b / 8] & (1u << (b % 8));

	w->seen[b / 8] |= 1u << (b % 8);
	return was;
}

/* The biggest max_series rows with a value, by insertion into top[]. */
static unsigned biggest(struct anomaly_watch *w, const struct row *rows,
			size_t n)
{
	unsigned k = 0, m = w->cfg.metric;

	for (size_t i = 0; i < n; i++) {
		unsigned j;

		if (!rows[i].v[m])
			continue;
		if (k == w->cfg.max_series &&
		    rows[i].v[m] <= w->top[k - 1]->v[m])
			continue;
		j = k < w->cfg.max_series ? k++ : k - 1;
		for (; j > 0 && w->top[j - 1]->v[m] < rows[i].v[m]; j--)
			w->top[j] = w->top[j - 1];
		w->top[j] = &rows[i];
	}
	return k;
}

/* A slot for a newly watched key: a free one, else the smallest series
 * that is not among this snapshot's biggest. */
static struct slot *take_slot(struct anomaly_watch *w, const struct sb_key *k)
{
	struct slot *s = NULL;

	for (unsigned i = 0; i < w->cfg.max_series; i++) {
		struct slot *c = &w->slot[i];

		if (!c->used) {
			s = c;
			break;
		}
		if (!c->present && (!s || c->prev < s->prev))
			s = c;
	}
	if (!s)
		return NULL;
	if (s->used)
		w->stats.evicted++;
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->key = *k;
	anomaly_init(&s->det);
	return s;
}

/* An appeared stack's history is zeroes: absent means 0. */
static void start_series(struct anomaly_watch *w, struct slot *s)
{
	bool appeared = !seen_before(w, &s->key);
	uint64_t n = w->stats.snapshots < APPEAR_ZEROES ? w->stats.snapshots
							: APPEAR_ZEROES;

	for (uint64_t i = 0; appeared && i < n; i++)
		anomaly_step(&s->det, 0);
	s->points = appeared ? n : 0;
	s->mean = appeared ? 0 : -1; /* -1: the first value */
}

static bool rate_allows(struct anomaly_watch *w, uint64_t now)
{
	uint64_t oldest;

	if (!w->cfg.max_fires)
		return false;
	if (w->nfires < w->cfg.max_fires)
		return true;
	oldest = w->fires[w->fire_head];
	return now - oldest >= w->cfg.per_ns;
}

static void note_fire(struct anomaly_watch *w, uint64_t now)
{
	if (w->nfires < w->cfg.max_fires) {
		w->fires[(w->fire_head + w->nfires++) % w->cfg.max_fires] = now;
		return;
	}
	w->fires[w->fire_head] = now;
	w->fire_head = (w->fire_head + 1) % w->cfg.max_fires;
}

static struct anomaly_cause cause_of(const struct anomaly_watch *w,
				     const struct slot *s, double score,
				     bool appeared, uint64_t now)
{
	return (struct anomaly_cause){s->key, w->cfg.metric, s->value, s->mean,
				      score,  appeared,	     now};
}

/* One point of a watched series: score it, fire or hold back, clear. */
static bool step(struct anomaly_watch *w, struct slot *s, uint64_t now)
{
	double score = anomaly_step(&s->det, s->value);
	bool fire = false;

	if (s->mean < 0)
		s->mean = s->value;
	if (++s->points <= WARMUP) {
		/* too little history to break from */
	} else if (score < ANOMALY_THRESHOLD) {
		if (s->fired && w->ops.clear) {
			struct anomaly_cause c =
				cause_of(w, s, score, false, now);

			w->ops.clear(w->ops.ctx, &c);
			w->stats.cleared++;
		}
		s->fired = false;
	} else if (s->has_fired && now - s->last_fire < w->cfg.cooldown_ns) {
		w->stats.held_cooldown++;
	} else if (!rate_allows(w, now)) {
		w->stats.held_rate++;
	} else {
		struct anomaly_cause c = cause_of(
			w, s, score, s->mean == 0 && s->value > 0, now);

		note_fire(w, now);
		s->fired = s->has_fired = fire = true;
		s->last_fire = now;
		w->stats.fired++;
		if (w->ops.fire)
			w->ops.fire(w->ops.ctx, &c);
		/* learn the new regime afresh, from this value */
		anomaly_init(&s->det);
		anomaly_step(&s->det, s->value);
	}
	s->mean += (s->value - s->mean) / 8;
	return fire;
}

unsigned anomaly_watch_snapshot(struct anomaly_watch *w, const struct row *rows,
				size_t n, uint64_t now_ns)
{
	unsigned k = biggest(w, rows, n), fires = 0;

	for (unsigned i = 0; i < w->cfg.max_series; i++) {
		w->slot[i].present = false;
		w->slot[i].prev = w->slot[i].value;
		w->slot[i].value = 0;
	}
	for (size_t i = 0; i < n; i++)
		if (rows[i].v[w->cfg.metric])
			w->stats.rows_unwatched++;
	for (unsigned i = 0; i < k; i++) {
		struct slot *s = find(w, &w->top[i]->key);

		w->stats.rows_unwatched--;
		if (!s) {
			s = take_slot(w, &w->top[i]->key);
			if (!s)
				continue;
			rehash(w);
			start_series(w, s);
		}
		s->present = true;
		s->value = w->top[i]->v[w->cfg.metric];
	}
	/* watched series below the biggest this time: their rows' values */
	for (size_t i = 0; i < n; i++) {
		struct slot *s = find(w, &rows[i].key);

		if (s && !s->present) {
			s->value = rows[i].v[w->cfg.metric];
			w->stats.rows_unwatched -= s->value > 0;
		}
	}
	for (unsigned i = 0; i < w->cfg.max_series; i++)
		if (w->slot[i].used)
			fires += step(w, &w->slot[i], now_ns);
	/* keys of rows not watched are seen too: they did not appear */
	for (size_t i = 0; i < n; i++)
		seen_before(w, &rows[i].key);
	w->stats.snapshots++;
	return fires;
}

const struct anomaly_watch_stats *
anomaly_watch_stats(const struct anomaly_watch *w)
{
	return &w->stats;
}

size_t anomaly_watch_bytes(const struct anomaly_watch *w)
{
	return w->bytes;
}

void anomaly_watch_free(struct anomaly_watch *w)
{
	if (!w)
		return;
	free(w->slot);
	free(w->hash);
	free(w->top);
	free(w->fires);
	free(w);
}
