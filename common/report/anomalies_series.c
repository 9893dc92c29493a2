// SPDX-License-Identifier: GPL-2.0
/*
 * report --anomalies: one (stack, metric) as a series, judged as its
 * intervals come. Its values are read from the stack's window (flows as
 * rates per nominal interval, levels as they are; and its share of the
 * interval's total); each goes through its own detector, point by
 * point. A flagged point is judged against the intervals before it:
 * the new regime is followed as long as it lasts (a leak: to the end),
 * and a change too small for the series' noise, or one the whole stream
 * made together (everything a third lower while the machine was busy),
 * is not an anomaly. A point whose regime still runs waits for the
 * intervals that end it; one that would outlast the window is judged on
 * what the window holds and its window followed to its end.
 * docs/anomalies.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anomalies_found.h"
#include "anomaly.h"
#include "stackbox.h"

#define BASE_N	    10	/* the baseline: at most this many intervals */
#define MIN_HISTORY 3	/* intervals a series needs before a change */
#define COOLDOWN    2	/* intervals after a change that start none */
#define REL_CHANGE  0.5 /* a change is at least half the baseline, */
#define SPREAD_K    3	/* three times the baseline's spread, */
#define SPIKE_MAX   2	/* a spike lasts at most this many intervals */
#define CP_SPAN	    64	/* where a change starts: at most this far on */
#define NEED	    -1	/* judge: the regime runs past the intervals seen */

/*
 * The detectors of one series: its values' and its shares'. A point
 * judged to be noise is not learnt as it is: the detector goes back to
 * its state before it and learns the last value it took without alarm
 * instead, so a detector that holds back alarms after one (as NAB's
 * scoring rewards) is not kept quiet by noise. The state is plain data
 * (anomaly.h), so it is copied.
 */
struct track {
	struct stack *sk;
	unsigned m;
	struct anomaly v, s;
	double last_v, last_s;
	size_t seg;	 /* where its current regime began */
	size_t next;	 /* the first point not yet judged or learnt */
	size_t learn_to; /* after a change: points learnt up to this */
	size_t reg_end;	 /* a waiting point: its regime so far */
	double reg_base;
	size_t open; /* a finding whose window still runs: index + 1 */
	size_t ext;  /* its first point not yet followed */
	size_t flag; /* the point the detector flagged */
	double reg_first, sum_x, sum_s, last_x, last_sh;
	size_t cnt;
	size_t high; /* the last interval it reached the floor */
};

struct series {
	const struct stream *st;
	const struct stack *sk;
	unsigned m;
	size_t n;   /* points that can be read */
	bool final; /* and none after them */
	double floor;
	/* a judgment's values and shares of [c0, c1), read once */
	double *cx, *cs;
	size_t c0, c1;
	uint64_t *reads; /* values read: the work, counted */
};

/* Without libm: the report links none. */
static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static double dabs(double a)
{
	return a < 0 ? -a : a;
}

static double droot(double a)
{
	double r = a > 1 ? a : 1;

	if (a <= 0)
		return 0;
	for (int i = 0; i < 60 && r * r - a > 1e-12 * a; i++)
		r = (r + a / r) / 2;
	return r;
}

const struct interval *stream_iv(const struct stream *st, size_t i)
{
	return &st->iv[i % WINDOW];
}

/* A value as the series sees it: a flow per nominal interval, so a
 * shorter interval is not a drop; a level as it is. */
double stream_norm(const struct stream *st, unsigned m, size_t i, __u64 v)
{
	const struct interval *iv = stream_iv(st, i);
	double dur = iv->t1 - iv->t0;

	if (st->metric[m].level || dur <= 0)
		return v;
	return v * st->nominal / dur;
}

const __u64 *stack_point(const struct stack *sk, size_t i)
{
	size_t lo = sk->first, hi = sk->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (stack_pt(sk, mid)[0] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sk->n && stack_pt(sk, lo)[0] == i ? stack_pt(sk, lo) + 1
						      : NULL;
}

static double x_at(const struct series *se, size_t i)
{
	const __u64 *v;

	++*se->reads;
	if (i >= se->c0 && i < se->c1)
		return se->cx[i - se->c0];
	v = stack_point(se->sk, i);

	return v ? stream_norm(se->st, se->m, i, v[se->m]) : 0;
}

/* The stream's total per interval, as the series sees its values. */
static double total_at(const struct series *se, size_t i)
{
	return stream_norm(se->st, se->m, i,
			   stream_iv(se->st, i)->total[se->m]);
}

static double share_at(const struct series *se, size_t i)
{
	double total;

	++*se->reads;
	if (i >= se->c0 && i < se->c1)
		return se->cs[i - se->c0];
	total = total_at(se, i);

	return total > 0 ? x_at(se, i) / total : 0;
}

typedef double (*series_fn)(const struct series *se, size_t i);

static void mean_sd(const struct series *se, series_fn x, size_t from,
		    size_t to, double *mean, double *sd)
{
	double s = 0, ss = 0;
	size_t n = to - from;

	for (size_t i = from; i < to; i++)
		s += x(se, i);
	*mean = n ? s / n : 0;
	for (size_t i = from; i < to; i++)
		ss += (x(se, i) - *mean) * (x(se, i) - *mean);
	*sd = n > 1 ? droot(ss / (n - 1)) : 0;
}

/* Still the new regime: past the midpoint between baseline and the
 * flagged value, on the flagged side. */
static bool in_regime(double x, double base, double first)
{
	double mid = (base + first) / 2;

	return first > base ? x > mid : x < mid;
}

static double window_value(const struct series *se, series_fn x, size_t i0,
			   size_t i1)
{
	double s = 0;

	if (se->st->metric[se->m].level)
		return x(se, i1); /* a level: where it got to */
	for (size_t i = i0; i <= i1; i++)
		s += x(se, i);
	return s / (i1 - i0 + 1);
}

/* The change a difference of means needs to stand out of the noise:
 * SPREAD_K standard errors of it. A level's window is one value. */
static double noise(const struct series *se, const struct found *f, double sd)
{
	size_t nb = f->i0 - f->b0;
	size_t nw = se->st->metric[se->m].level ? 1 : f->i1 - f->i0 + 1;

	return SPREAD_K * sd * droot(1.0 / nb + 1.0 / nw);
}

/* Did the rest of the stream move the same way, at least half as much?
 * Then the stack moved with everything else (the machine got busier,
 * the program got less CPU), not on its own. A stack alone in its
 * stream, or beside a rest under the stream's floor (a 4 KiB stdio
 * buffer beside a leak: x8 of almost nothing), moves on its own. */
static bool moved_with_rest(const struct series *se, const struct found *f)
{
	double tb = 0, tw = 0, rb, rw, mid;
	size_t nw = f->i1 - f->i0 + 1;

	for (size_t i = f->b0; i < f->i0; i++)
		tb += total_at(se, i);
	tb /= f->i0 - f->b0;
	if (se->st->metric[se->m].level)
		tw = total_at(se, f->i1);
	else
		for (size_t i = f->i0; i <= f->i1; i++)
			tw += total_at(se, i) / nw;
	rb = tb - f->base;
	rw = tw - f->obs;
	if (rb <= se->floor || !f->base)
		return false;
	mid = 1 + (f->obs / f->base - 1) / 2;
	return f->obs > f->base ? rw / rb >= mid : rw / rb <= mid;
}

/* Is the change big enough for this series' noise and its stream? */
static bool significant(const struct series *se, const struct found *f)
{
	const struct metric *mt = &se->st->metric[se->m];
	double mean, sd, need;

	mean_sd(se, x_at, f->b0, f->i0, &mean, &sd);
	if (mt->kind == METRIC_COUNT && !mt->level && droot(mean) > sd)
		sd = droot(mean); /* counted samples: at least Poisson's */
	need = dmax(REL_CHANGE * mean, dmax(noise(se, f, sd), se->floor));
	return dabs(f->obs - f->base) >= need && !moved_with_rest(se, f);
}

static enum kind kind_of_change(const struct found *f, double floor)
{
	if (f->base < floor && f->base < 0.1 * f->obs)
		return APPEARED;
	if (f->obs < floor && f->obs < 0.1 * f->base)
		return VANISHED;
	return f->obs > f->base ? GREW : SHRANK;
}

static enum kind kind_of(const struct series *se, const struct found *f,
			 double first)
{
	bool back = f->i1 + 1 < se->n &&
		    !in_regime(x_at(se, f->i1 + 1), f->base, first);

	if (back && f->i1 - f->i0 + 1 <= SPIKE_MAX)
		return SPIKE;
	return kind_of_change(f, se->floor);
}

/* The new regime from i, from where it was followed to (end): as long
 * as it lasts; once it held for two intervals, one interval out of it
 * between two in it is forgiven. */
static size_t regime_end(const struct series *se, size_t i, double base,
			 size_t end)
{
	double first = x_at(se, i);

	while (end + 1 < se->n) {
		if (in_regime(x_at(se, end + 1), base, first))
			end++;
		else if (end > i && end + 2 < se->n &&
			 in_regime(x_at(se, end + 2), base, first))
			end += 2;
		else
			break;
	}
	return end;
}

/*
 * Where a flow's change really started: a detector may flag a point
 * early (a noisy point the window then ran on from) or one late. The
 * split, from one before i to the window's end, whose two sides (the
 * baseline of i, the rest of the window) differ most for their
 * lengths: a t statistic of a single change point, on the stack's
 * share, which a change of the whole stream (less CPU for a while)
 * leaves alone. A level's ramp has no such split: its
 * start stays where the detector saw it leave its history.
 */
static size_t change_point(const struct series *se, size_t seg, size_t i,
			   size_t end)
{
	size_t b0 = i > seg + BASE_N ? i - BASE_N : seg, best = i;
	size_t from = i > b0 + MIN_HISTORY ? i - 1 : i;
	double best_t = -1, before = 0;

	if (se->st->metric[se->m].level)
		return i;
	/* the sums in mean_sd()'s order: the baseline's grows by one */
	for (size_t k = b0; k < from; k++)
		before += share_at(se, k);
	for (size_t k = from; k <= end && k + 1 < se->n && k <= i + CP_SPAN;
	     k++) {
		double mb = k > b0 ? before / (k - b0) : 0, after = 0, t;

		for (size_t j = k; j <= end; j++)
			after += share_at(se, j);
		t = dabs(after / (end + 1 - k) - mb) *
		    droot((double)(k - b0) * (end + 1 - k) / (end + 1 - b0));
		if (t > best_t) {
			best_t = t;
			best = k;
		}
		before += share_at(se, k);
	}
	return best;
}

/* The flagged point i, its regime known to end at f->i1: where the
 * change started, and whether it is one. */
static int judge_cached(const struct series *se, struct track *t, size_t i,
			struct found *f)
{
	size_t seg = t->seg;
	double sd;

	i = change_point(se, seg, i, f->i1);
	f->b0 = i > seg + BASE_N ? i - BASE_N : seg;
	mean_sd(se, x_at, f->b0, i, &f->base, &sd);
	f->i0 = i;
	f->obs = window_value(se, x_at, i, f->i1);
	mean_sd(se, share_at, f->b0, i, &f->share_base, &sd);
	f->share_obs = window_value(se, share_at, i, f->i1);
	if (!significant(se, f))
		return 0;
	f->kind = kind_of(se, f, x_at(se, t->flag));
	return 1;
}

/* The same on the window's values read once: change_point() reads each
 * of them CP_SPAN times. */
static int judge_window(const struct series *se, struct track *t, size_t i,
			struct found *f)
{
	struct series c = *se;
	size_t from = i > t->seg + BASE_N + 1 ? i - BASE_N - 1 : t->seg;
	size_t to = f->i1 + 2 < se->n ? f->i1 + 2 : se->n;
	int r;

	c.cx = xmalloc(2 * (to - from) * sizeof(*c.cx));
	c.cs = c.cx + (to - from);
	for (size_t k = from; k < to; k++) {
		c.cx[k - from] = x_at(se, k);
		c.cs[k - from] = share_at(se, k);
	}
	c.c0 = from;
	c.c1 = to;
	r = judge_cached(&c, t, i, f);
	free(c.cx);
	return r;
}

/* Judge the point i the detector flagged: 1, *f is an anomaly; 0, it
 * is not; NEED: its regime may run on past the points seen. */
static int judge(const struct series *se, struct track *t, size_t i,
		 struct found *f)
{
	size_t seg = t->seg;
	double sd;

	/* the last interval only ends windows: nothing after it tells a
	 * step from a spike, and with -- CMD it is the exit */
	if (i < seg + MIN_HISTORY)
		return 0;
	if (i + 1 >= se->n)
		return se->final ? 0 : NEED;
	f->b0 = i > seg + BASE_N ? i - BASE_N : seg;
	mean_sd(se, x_at, f->b0, i, &f->base, &sd);
	if (x_at(se, i) == f->base)
		return 0;
	t->reg_base = f->base;
	t->reg_end =
		regime_end(se, i, f->base, t->reg_end > i ? t->reg_end : i);
	f->i1 = t->reg_end;
	if (!se->final && f->i1 + 2 >= se->n)
		return NEED;
	return judge_window(se, t, i, f);
}

/* The score of point i, the detectors left as they were. */
static double peek(const struct track *t, const struct series *se, size_t i)
{
	struct anomaly tmp = t->v;
	double a = anomaly_step(&tmp, x_at(se, i)), b;

	tmp = t->s;
	b = anomaly_step(&tmp, share_at(se, i));
	return a > b ? a : b;
}

static void learn_one(struct anomaly *det, double *last, double x)
{
	struct anomaly tmp = *det;

	if (anomaly_step(det, x) < ANOMALY_THRESHOLD) {
		*last = x;
		return;
	}
	*det = tmp;
	if (anomaly_step(det, *last) >= ANOMALY_THRESHOLD)
		*det = tmp; /* not even that: the point is skipped */
}

/* Learn point i, but not as an alarm. */
static void learn(struct track *t, const struct series *se, size_t i)
{
	learn_one(&t->v, &t->last_v, x_at(se, i));
	learn_one(&t->s, &t->last_s, share_at(se, i));
}

static void start(struct track *t, const struct series *se, size_t i)
{
	anomaly_init(&t->v);
	anomaly_init(&t->s);
	t->last_v = x_at(se, i);
	t->last_s = share_at(se, i);
}

static void series_of(struct series *se, const struct track *t, size_t n,
		      bool final)
{
	se->st = t->sk->st;
	se->sk = t->sk;
	se->m = t->m;
	se->n = n;
	se->final = final;
	se->floor = se->st->floor[t->m];
	se->cx = se->cs = NULL;
	se->c0 = se->c1 = 0;
	se->reads = &t->sk->st->reads;
}

struct track *track_new(struct stack *sk, unsigned m, size_t from, size_t high)
{
	struct track *t = xzalloc(sizeof(*t));
	struct series se;

	t->sk = sk;
	t->m = m;
	t->seg = t->next = t->learn_to = from;
	t->high = high;
	series_of(&se, t, from + 1, false);
	start(t, &se, from);
	return t;
}

/* One point more of an open finding's window: flows add up, levels
 * keep where they got to. */
static void follow(struct track *t, const struct series *se, size_t k)
{
	t->sum_x += x_at(se, k);
	t->sum_s += share_at(se, k);
	t->last_x = x_at(se, k);
	t->last_sh = share_at(se, k);
	t->cnt++;
}

static void close_found(struct anomalies *an, struct track *t,
			const struct series *se)
{
	struct found *f = &an->f[t->open - 1];
	bool level = se->st->metric[se->m].level;

	f->obs = level ? t->last_x : t->sum_x / t->cnt;
	f->share_obs = level ? t->last_sh : t->sum_s / t->cnt;
	f->t_end = stream_iv(se->st, f->i1)->t1;
	f->kind = kind_of_change(f, se->floor);
	t->learn_to = f->i1 + COOLDOWN + 1;
	t->seg = f->i1 + 1;
	t->open = 0;
}

/* Follow an open finding's regime over the points seen; close it where
 * it ends, as regime_end() would have. */
static void extend(struct anomalies *an, struct track *t,
		   const struct series *se)
{
	struct found *f = &an->f[t->open - 1];

	while (t->ext < se->n) {
		size_t k = t->ext;

		if (in_regime(x_at(se, k), t->reg_base, t->reg_first)) {
			follow(t, se, k);
			f->i1 = t->ext++;
			continue;
		}
		if (k + 1 >= se->n && !se->final)
			return; /* the next one tells */
		if (f->i1 > t->flag && k + 1 < se->n &&
		    in_regime(x_at(se, k + 1), t->reg_base, t->reg_first)) {
			follow(t, se, k);
			follow(t, se, k + 1);
			f->i1 = k + 1;
			t->ext += 2;
			continue;
		}
		break;
	}
	if (t->ext < se->n || se->final)
		close_found(an, t, se);
	else
		t->learn_to = f->i1 + 1;
}

static void add_found(struct anomalies *an, struct track *t,
		      const struct series *se, struct found *f, bool open)
{
	f->t_base = stream_iv(se->st, f->b0)->t0;
	f->t_start = stream_iv(se->st, f->i0)->t0;
	f->t_end = stream_iv(se->st, f->i1)->t1;
	an->f = grow_array(an->f, &an->f_cap, an->nf + 1, sizeof(*an->f));
	an->f[an->nf++] = *f;
	t->sk->held = true;
	/* the new regime is the next change's baseline: fresh detectors
	 * that know only it */
	start(t, se, t->flag);
	t->next = t->flag;
	t->learn_to = f->i1 + COOLDOWN + 1;
	t->seg = f->i1 + 1;
	t->reg_end = 0;
	if (!open)
		return;
	t->open = an->nf;
	t->ext = f->i1 + 1;
	t->reg_first = x_at(se, t->flag);
	t->sum_x = t->sum_s = 0;
	t->cnt = 0;
	for (size_t k = f->i0; k <= f->i1; k++)
		follow(t, se, k);
	t->learn_to = f->i1 + 1;
}

/* A waiting point whose baseline is about to leave the window. */
static bool stale(const struct stream *st, size_t i)
{
	return i < BASE_N + WINDOW / 4 + (st->n > WINDOW ? st->n - WINDOW : 0);
}

/* Judge (or learn) the points of t before ready; final: no more come. */
void track_run(struct anomalies *an, struct track *t, size_t ready, bool final)
{
	struct series se;

	series_of(&se, t, ready, final);
	while (t->next < ready || (t->open && final)) {
		size_t i = t->next;
		struct found f = {.sk = t->sk, .metric = t->m};
		bool open = false;
		int r;

		if (t->open)
			extend(an, t, &se);
		if (i >= ready || (t->open && i >= t->learn_to))
			return;
		if (i < t->learn_to) {
			learn(t, &se, i);
			t->next++;
			continue;
		}
		if (x_at(&se, i) >= se.floor)
			t->high = i;
		f.score = peek(t, &se, i);
		t->flag = i;
		r = f.score < ANOMALY_THRESHOLD ? 0 : judge(&se, t, i, &f);
		if (r == NEED && stale(se.st, i)) {
			se.final = true; /* judged on what the window holds */
			r = judge(&se, t, i, &f);
			se.final = final;
			open = r == 1 && f.i1 + 1 >= ready;
		}
		if (r == NEED)
			return;
		t->reg_end = 0;
		if (r == 1) {
			add_found(an, t, &se, &f, open);
			continue;
		}
		learn(t, &se, i);
		t->next++;
	}
}

/* Nothing waits, nothing is open, and its value has not reached the
 * floor in a window: it can be let go. */
bool track_idle(const struct track *t, size_t ready)
{
	return !t->open && t->next >= ready && t->learn_to <= t->next &&
	       t->high + WINDOW < ready && t->next > WINDOW;
}

void track_free(struct track *t)
{
	t->sk->tr[t->m] = NULL;
	free(t);
}

/* Each stack of the anomaly's stream and metric, per interval: mean
 * over the baseline and over the window (a level: where it got to). */
int anomalies_diff(const struct anomalies *an, const struct found *a,
		   void (*row)(void *ctx, const char *key, double base,
			       double win),
		   void *ctx)
{
	const struct stream *st = a->sk->st;
	size_t lo = st->n > WINDOW ? st->n - WINDOW : 0;
	uint64_t reads = 0;

	(void)an;
	if (a->b0 < lo || a->i1 >= st->n)
		return -1;
	for (size_t k = 0; k < st->nsk; k++) {
		struct series se = {.st = st,
				    .sk = st->sk[k],
				    .m = a->metric,
				    .n = st->used,
				    .final = true,
				    .reads = &reads};
		double base, sd;
		char *key;

		mean_sd(&se, x_at, a->b0, a->i0, &base, &sd);
		key = stack_key(st->sk[k]);
		row(ctx, key, base, window_value(&se, x_at, a->i0, a->i1));
		free(key);
	}
	return 0;
}

/* A ';' inside a frame would split it for every reader of the key. */
static void put_frame(FILE *f, const char *s)
{
	fputc(';', f);
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s, f);
}

char *stack_key(const struct stack *sk)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned nk = sk->nframes - 1 - sk->nu;

	if (!f)
		error_exit("out of memory");
	fputs(sk->frame[0], f);
	if (sk->aux)
		fprintf(f, ";[%s]", sk->aux);
	for (unsigned j = 1; j <= sk->nu; j++)
		put_frame(f, sk->frame[j]);
	if (sk->nu && nk)
		fputs(";-", f);
	for (unsigned j = sk->nu + 1; j < sk->nframes; j++)
		put_frame(f, sk->frame[j]);
	fclose(f);
	return buf;
}
