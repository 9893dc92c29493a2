// SPDX-License-Identifier: GPL-2.0
/*
 * report --anomalies. Snapshots come in resolved (output.c); each stack
 * keeps its values per interval of its stream (one stream per applet
 * and metric set), absent meaning 0. At the end every (stack, metric)
 * is one series of values per interval (flows as rates per nominal
 * interval, levels as they are) and one of its share of the interval's
 * total; each series goes through its own detector, point by point.
 * A flagged point is then judged against the intervals before it: the
 * new regime is followed as long as it lasts (a leak: to the end), and
 * a change too small for the series' noise, or one the whole stream
 * made together (everything a third lower while the machine was busy),
 * is not an anomaly. docs/anomalies.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anomalies.h"
#include "anomalies_found.h"
#include "anomaly.h"
#include "cluster.h"
#include "output.h"

#define BASE_N	    10	 /* the baseline: at most this many intervals */
#define MIN_HISTORY 3	 /* intervals a series needs before a change */
#define COOLDOWN    2	 /* intervals after a change that start none */
#define REL_CHANGE  0.5	 /* a change is at least half the baseline, */
#define SPREAD_K    3	 /* three times the baseline's spread, */
#define FLOOR_SHARE 0.05 /* and 5 % of the stream's interval total */
#define SPIKE_MAX   2	 /* a spike lasts at most this many intervals */
#define HASH_SIZE   65536
#define SHOW_FRAMES 6 /* text: frames shown without -v */
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

struct anomalies *anomalies_new(void)
{
	struct anomalies *an = xzalloc(sizeof(*an));

	an->hash = xzalloc(HASH_SIZE * sizeof(*an->hash));
	return an;
}

/* ---- collecting ---- */
static double seconds(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

static char *signature(const struct snapshot *s)
{
	char *sig = xstrdup(s->applet);

	for (unsigned m = 0; m < s->nmetrics; m++) {
		char *n = xasprintf("%s;%s", sig, s->metrics[m].name);

		free(sig);
		sig = n;
	}
	return sig;
}

static struct stream *stream_of(struct anomalies *an, const struct snapshot *s)
{
	char *sig = signature(s);
	struct stream *st;

	for (size_t i = 0; i < an->nst; i++)
		if (!strcmp(an->st[i]->sig, sig)) {
			free(sig);
			return an->st[i];
		}
	st = xzalloc(sizeof(*st));
	st->applet = xstrdup(s->applet);
	st->sig = sig;
	st->nmetrics = s->nmetrics;
	st->primary = s->primary;
	for (unsigned m = 0; m < s->nmetrics; m++) {
		st->metric[m] = s->metrics[m];
		st->metric[m].name = xstrdup(s->metrics[m].name);
	}
	an->st = grow_array(an->st, &an->st_cap, an->nst + 1, sizeof(*an->st));
	an->st[an->nst++] = st;
	return st;
}

/* A ';' inside a frame would split it for every reader of the key. */
static void put_frame(FILE *f, const char *s)
{
	fputc(';', f);
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s, f);
}

static char *row_key(const struct snapshot *s, const struct row *r, bool user)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *aux = s->aux_name ? s->aux_name(r->key.aux) : "";

	if (!f)
		error_exit("out of memory");
	fputs(r->key.comm, f);
	if (!user && *aux)
		fprintf(f, ";[%s]", aux);
	for (unsigned j = 0; j < r->nu; j++)
		put_frame(f, r->ustack[j]);
	if (!user && r->nu && r->nk)
		fputs(";-", f);
	for (unsigned j = 0; !user && j < r->nk; j++)
		put_frame(f, r->kstack[j]);
	fclose(f);
	return buf;
}

static unsigned hash_of(const struct stream *st, const char *key)
{
	unsigned h = 2166136261u ^ (unsigned)(uintptr_t)st;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h % HASH_SIZE;
}

static struct stack *new_stack(struct anomalies *an, struct stream *st,
			       const struct snapshot *s, const struct row *r,
			       char *key)
{
	struct stack *sk = xzalloc(sizeof(*sk));
	const char *aux = s->aux_name ? s->aux_name(r->key.aux) : "";

	sk->st = st;
	sk->key = key;
	sk->ukey = row_key(s, r, true);
	sk->aux = *aux ? xstrdup(aux) : NULL;
	sk->frame = xmalloc((r->nu + r->nk + 1) * sizeof(*sk->frame));
	sk->frame[sk->nframes++] = xstrdup(r->key.comm);
	for (unsigned j = 0; j < r->nu; j++)
		sk->frame[sk->nframes++] = xstrdup(r->ustack[j]);
	for (unsigned j = 0; j < r->nk; j++)
		sk->frame[sk->nframes++] = xstrdup(r->kstack[j]);
	sk->nu = r->nu;
	an->sk = grow_array(an->sk, &an->sk_cap, an->nsk + 1, sizeof(*an->sk));
	an->sk[an->nsk++] = sk;
	return sk;
}

static struct stack *stack_of(struct anomalies *an, struct stream *st,
			      const struct snapshot *s, const struct row *r)
{
	char *key = row_key(s, r, false);
	unsigned h = hash_of(st, key);
	struct stack *sk;

	for (sk = an->hash[h]; sk; sk = sk->hnext)
		if (sk->st == st && !strcmp(sk->key, key)) {
			free(key);
			return sk;
		}
	sk = new_stack(an, st, s, r, key);
	sk->hnext = an->hash[h];
	an->hash[h] = sk;
	return sk;
}

/* Rows that differ in what the key leaves out (thread, cgroup) add up. */
static void add_row(struct stack *sk, size_t at, const struct row *r,
		    unsigned nmetrics)
{
	struct point *p = sk->n ? &sk->p[sk->n - 1] : NULL;

	if (!p || p->at != at) {
		sk->p = grow_array(sk->p, &sk->cap, sk->n + 1, sizeof(*sk->p));
		p = &sk->p[sk->n++];
		memset(p, 0, sizeof(*p));
		p->at = at;
	}
	for (unsigned m = 0; m < nmetrics; m++)
		p->v[m] += r->v[m];
}

void anomalies_snapshot(void *ctx, FILE *unused, const struct snapshot *s)
{
	struct anomalies *an = ctx;
	struct stream *st = stream_of(an, s);
	struct interval *iv;

	st->iv = grow_array(st->iv, &st->cap, st->n + 1, sizeof(*st->iv));
	iv = &st->iv[st->n];
	iv->t0 = seconds(&s->start);
	iv->t1 = seconds(&s->end);
	memcpy(iv->total, s->total, sizeof(iv->total));
	for (size_t i = 0; i < s->nrows; i++)
		add_row(stack_of(an, st, s, &s->rows[i]), st->n, &s->rows[i],
			s->nmetrics);
	st->n++;
}

/* ---- series ---- */
static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median interval. A last interval under half of it (the end of
 * CMD, a signal) says too little to be judged, and empty ones at the
 * end (the profiled process is gone) say nothing. */
static bool empty(const struct stream *st, size_t i)
{
	for (unsigned m = 0; m < st->nmetrics; m++)
		if (st->iv[i].total[m])
			return false;
	return true;
}

static void settle_stream(struct stream *st)
{
	double *d = xmalloc((st->n + 1) * sizeof(*d));

	for (size_t i = 0; i < st->n; i++)
		d[i] = st->iv[i].t1 - st->iv[i].t0;
	qsort(d, st->n, sizeof(*d), by_double);
	st->nominal = st->n ? d[st->n / 2] : 0;
	st->used = st->n;
	if (st->n > 1 &&
	    st->iv[st->n - 1].t1 - st->iv[st->n - 1].t0 < st->nominal / 2)
		st->used--;
	while (st->used > 1 && empty(st, st->used - 1))
		st->used--;
	free(d);
}

/* A value as the series sees it: a flow per nominal interval, so a
 * shorter interval is not a drop; a level as it is. */
static double norm(const struct stream *st, unsigned m, size_t i, __u64 v)
{
	double dur = st->iv[i].t1 - st->iv[i].t0;

	if (st->metric[m].level || dur <= 0)
		return v;
	return v * st->nominal / dur;
}

struct series {
	const struct stream *st;
	unsigned m;
	size_t n;
	double *x, *share;
	double floor; /* the smallest change that counts */
};

static double median_total(const struct stream *st, unsigned m)
{
	double *t = xmalloc((st->used + 1) * sizeof(*t)), med;

	for (size_t i = 0; i < st->used; i++)
		t[i] = norm(st, m, i, st->iv[i].total[m]);
	qsort(t, st->used, sizeof(*t), by_double);
	med = st->used ? t[st->used / 2] : 0;
	free(t);
	return med;
}

/* The series of one (stack, metric): values and shares. */
static void build_series(struct series *se, const struct stack *sk, unsigned m)
{
	const struct stream *st = sk->st;

	se->st = st;
	se->m = m;
	se->n = st->used;
	memset(se->x, 0, se->n * sizeof(*se->x));
	for (size_t k = 0; k < sk->n; k++)
		if (sk->p[k].at < se->n)
			se->x[sk->p[k].at] =
				norm(st, m, sk->p[k].at, sk->p[k].v[m]);
	for (size_t i = 0; i < se->n; i++) {
		double total = norm(st, m, i, st->iv[i].total[m]);

		se->share[i] = total > 0 ? se->x[i] / total : 0;
	}
}

static void mean_sd(const double *x, size_t from, size_t to, double *mean,
		    double *sd)
{
	double s = 0, ss = 0;
	size_t n = to - from;

	for (size_t i = from; i < to; i++)
		s += x[i];
	*mean = n ? s / n : 0;
	for (size_t i = from; i < to; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*sd = n > 1 ? droot(ss / (n - 1)) : 0;
}

/* Still the new regime: past the midpoint between baseline and the
 * flagged value, on the flagged side. */
static bool in_regime(double x, double base, double first)
{
	double mid = (base + first) / 2;

	return first > base ? x > mid : x < mid;
}

static double window_value(const struct series *se, const double *x, size_t i0,
			   size_t i1)
{
	double s = 0;

	if (se->st->metric[se->m].level)
		return x[i1]; /* a level: where it got to */
	for (size_t i = i0; i <= i1; i++)
		s += x[i];
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

/* The stream's total per interval, as the series sees its values. */
static double total_at(const struct series *se, size_t i)
{
	return norm(se->st, se->m, i, se->st->iv[i].total[se->m]);
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

	mean_sd(se->x, f->b0, f->i0, &mean, &sd);
	if (mt->kind == METRIC_COUNT && !mt->level && droot(mean) > sd)
		sd = droot(mean); /* counted samples: at least Poisson's */
	need = dmax(REL_CHANGE * mean, dmax(noise(se, f, sd), se->floor));
	return dabs(f->obs - f->base) >= need && !moved_with_rest(se, f);
}

static enum kind kind_of(const struct series *se, const struct found *f)
{
	bool back = f->i1 + 1 < se->n &&
		    !in_regime(se->x[f->i1 + 1], f->base, se->x[f->i0]);

	if (back && f->i1 - f->i0 + 1 <= SPIKE_MAX)
		return SPIKE;
	if (f->base < se->floor && f->base < 0.1 * f->obs)
		return APPEARED;
	if (f->obs < se->floor && f->obs < 0.1 * f->base)
		return VANISHED;
	return f->obs > f->base ? GREW : SHRANK;
}

/* The new regime from i: as long as it lasts; once it held for two
 * intervals, one interval out of it between two in it is forgiven. */
static size_t regime_end(const struct series *se, size_t i, double base)
{
	size_t end = i;

	while (end + 1 < se->n) {
		if (in_regime(se->x[end + 1], base, se->x[i]))
			end++;
		else if (end > i && end + 2 < se->n &&
			 in_regime(se->x[end + 2], base, se->x[i]))
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
	double best_t = -1;

	if (se->st->metric[se->m].level)
		return i;
	for (size_t k = from; k <= end && k + 1 < se->n && k <= i + 64; k++) {
		double mb, mw, sd, t;

		mean_sd(se->share, b0, k, &mb, &sd);
		mean_sd(se->share, k, end + 1, &mw, &sd);
		t = dabs(mw - mb) *
		    droot((double)(k - b0) * (end + 1 - k) / (end + 1 - b0));
		if (t > best_t) {
			best_t = t;
			best = k;
		}
	}
	return best;
}

/* Judge the point i the detector flagged; true: *f is an anomaly. */
static bool judge(const struct series *se, size_t seg, size_t i,
		  struct found *f)
{
	double sd;

	/* the last interval only ends windows: nothing after it tells a
	 * step from a spike, and with -- CMD it is the exit */
	if (i < seg + MIN_HISTORY || i + 1 >= se->n)
		return false;
	f->b0 = i > seg + BASE_N ? i - BASE_N : seg;
	mean_sd(se->x, f->b0, i, &f->base, &sd);
	if (se->x[i] == f->base)
		return false;
	f->i1 = regime_end(se, i, f->base);
	i = change_point(se, seg, i, f->i1);
	f->b0 = i > seg + BASE_N ? i - BASE_N : seg;
	mean_sd(se->x, f->b0, i, &f->base, &sd);
	f->i0 = i;
	f->obs = window_value(se, se->x, i, f->i1);
	mean_sd(se->share, f->b0, i, &f->share_base, &sd);
	f->share_obs = window_value(se, se->share, i, f->i1);
	if (!significant(se, f))
		return false;
	f->kind = kind_of(se, f);
	return true;
}

/*
 * The detectors of one series: its values' and its shares'. A point
 * judged to be noise is not learnt as it is: the detector goes back to
 * its state before it and learns the last value it took without alarm
 * instead, so a detector that holds back alarms after one (as NAB's
 * scoring rewards) is not kept quiet by noise. The state is plain data
 * (anomaly.h), so it is copied.
 */
struct detectors {
	struct anomaly v, s, tmp;
	double last_v, last_s;
};

/* The score of point i, the detectors left as they were. */
static double peek(struct detectors *d, const struct series *se, size_t i)
{
	double a, b;

	d->tmp = d->v;
	a = anomaly_step(&d->tmp, se->x[i]);
	d->tmp = d->s;
	b = anomaly_step(&d->tmp, se->share[i]);
	return a > b ? a : b;
}

static void learn_one(struct anomaly *det, struct anomaly *tmp, double *last,
		      double x)
{
	*tmp = *det;
	if (anomaly_step(det, x) < ANOMALY_THRESHOLD) {
		*last = x;
		return;
	}
	*det = *tmp;
	if (anomaly_step(det, *last) >= ANOMALY_THRESHOLD)
		*det = *tmp; /* not even that: the point is skipped */
}

/* Learn point i, but not as an alarm. */
static void learn(struct detectors *d, const struct series *se, size_t i)
{
	learn_one(&d->v, &d->tmp, &d->last_v, se->x[i]);
	learn_one(&d->s, &d->tmp, &d->last_s, se->share[i]);
}

static void start(struct detectors *d, const struct series *se, size_t i)
{
	anomaly_init(&d->v);
	anomaly_init(&d->s);
	d->last_v = se->x[i];
	d->last_s = se->share[i];
}

static void find_in_series(struct anomalies *an, struct series *se,
			   struct stack *sk, struct detectors *d)
{
	size_t seg = 0;

	start(d, se, 0);
	for (size_t i = 0; i < se->n; i++) {
		struct found f = {.sk = sk, .metric = se->m};

		f.score = peek(d, se, i);
		if (f.score < ANOMALY_THRESHOLD || !judge(se, seg, i, &f)) {
			learn(d, se, i);
			continue;
		}
		an->f = grow_array(an->f, &an->f_cap, an->nf + 1,
				   sizeof(*an->f));
		an->f[an->nf++] = f;
		/* the new regime is the next change's baseline: fresh
		 * detectors that know only it */
		start(d, se, i);
		for (size_t k = i; k <= f.i1 + COOLDOWN && k < se->n; k++)
			learn(d, se, k);
		seg = f.i1 + 1;
		i = f.i1 + COOLDOWN;
	}
}

static void find_all(struct anomalies *an)
{
	struct detectors *d = xzalloc(sizeof(*d));
	size_t most = 0;
	struct series se = {0};

	for (size_t i = 0; i < an->nst; i++) {
		settle_stream(an->st[i]);
		most = an->st[i]->used > most ? an->st[i]->used : most;
	}
	se.x = xmalloc((most + 1) * sizeof(double));
	se.share = xmalloc((most + 1) * sizeof(double));
	for (size_t i = 0; i < an->nst; i++) {
		struct stream *st = an->st[i];

		for (unsigned m = 0; m < st->nmetrics; m++) {
			if (st->metric[m].kind == METRIC_RATIO)
				continue;
			se.floor = FLOOR_SHARE * median_total(st, m);
			for (size_t k = 0; k < an->nsk; k++) {
				if (an->sk[k]->st != st)
					continue;
				build_series(&se, an->sk[k], m);
				find_in_series(an, &se, an->sk[k], d);
			}
		}
	}
	free(se.x);
	free(se.share);
	free(d);
}

/* One stack's change shows in several metrics (bytes and objects held):
 * keep the first metric's (the primary where it is one of them). */
static unsigned metric_rank(const struct found *f)
{
	return f->metric == f->sk->st->primary ? 0 : f->metric + 1;
}

static void merge_metrics(struct anomalies *an)
{
	for (size_t a = 0; a < an->nf; a++)
		for (size_t b = 0; b < an->nf; b++) {
			struct found *x = &an->f[a], *y = &an->f[b];
			size_t d =
				x->i0 > y->i0 ? x->i0 - y->i0 : y->i0 - x->i0;

			if (a != b && x->sk == y->sk && d <= 1 && !x->dropped &&
			    !y->dropped && metric_rank(y) > metric_rank(x))
				y->dropped = true;
		}
}

/* ---- clusters: per time window, by the stacks' shared path ---- */
double found_start(const struct found *f)
{
	return f->sk->st->iv[f->i0].t0;
}

double found_end(const struct found *f)
{
	return f->sk->st->iv[f->i1].t1;
}

/* The path clustering compares: comm and user frames; kernel frames
 * for a stack without user ones (kernel threads). The split (offcpu's
 * state) is left out, so oncpu's and offcpu's stacks of one code meet. */
static struct cluster_item item_of(const struct found *f)
{
	const struct stack *sk = f->sk;

	return (struct cluster_item){(const char *const *)sk->frame,
				     sk->nu ? sk->nu + 1 : sk->nframes,
				     f->kind};
}

static int by_start(const void *a, const void *b)
{
	const struct found *x = *(struct found *const *)a;
	const struct found *y = *(struct found *const *)b;

	return found_start(x) < found_start(y)
		       ? -1
		       : found_start(x) > found_start(y);
}

static void cluster_window(struct anomalies *an, struct found **w, size_t n,
			   unsigned win)
{
	struct cluster_item *it = xmalloc((n + 1) * sizeof(*it));
	unsigned *c = xmalloc((n + 1) * sizeof(*c)), k;

	for (size_t i = 0; i < n; i++)
		it[i] = item_of(w[i]);
	k = cluster_stacks(it, n, CLUSTER_CUT, c);
	for (unsigned j = 0; j < k; j++) {
		unsigned depth = cluster_shared_depth(it, n, c, j);
		double best = 0;
		const char *label = NULL;

		for (size_t i = 0; i < n; i++)
			if (c[i] == j) {
				best = dmax(best, w[i]->score);
				label = depth ? it[i].frame[depth - 1] : "-";
			}
		for (size_t i = 0; i < n; i++)
			if (c[i] == j) {
				w[i]->win = win;
				w[i]->cluster = an->nclusters + j;
				w[i]->best = best;
				w[i]->label = label;
			}
	}
	an->nclusters += k;
	free(it);
	free(c);
}

/* Output order: windows in time; in each, clusters by their highest
 * score; in each, members by score. */
static int by_order(const void *a, const void *b)
{
	const struct found *x = *(struct found *const *)a;
	const struct found *y = *(struct found *const *)b;

	if (x->win != y->win)
		return x->win < y->win ? -1 : 1;
	if (x->best != y->best)
		return x->best > y->best ? -1 : 1;
	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return by_start(a, b);
}

/* An anomaly that starts within this of the one before is in its
 * window (a change seen a little later in some stacks than others). */
static double window_span(const struct anomalies *an)
{
	double most = 0;

	for (size_t i = 0; i < an->nst; i++)
		most = dmax(most, an->st[i]->nominal);
	return 2.5 * most;
}

static size_t cluster_all(struct anomalies *an, struct found ***out)
{
	struct found **l = xmalloc((an->nf + 1) * sizeof(*l));
	size_t n = 0, w0 = 0;
	unsigned win = 0, cl = 0, prev = (unsigned)-1;

	for (size_t i = 0; i < an->nf; i++)
		if (!an->f[i].dropped)
			l[n++] = &an->f[i];
	qsort(l, n, sizeof(*l), by_start);
	for (size_t i = 1; i <= n; i++)
		if (i == n || found_start(l[i]) - found_start(l[i - 1]) >
				      window_span(an)) {
			cluster_window(an, l + w0, i - w0, win++);
			w0 = i;
		}
	qsort(l, n, sizeof(*l), by_order);
	/* clusters numbered as they are listed */
	for (size_t i = 0; i < n; i++) {
		if (l[i]->cluster != prev) {
			prev = l[i]->cluster;
			cl++;
		}
		l[i]->id = i + 1;
		l[i]->cluster = cl;
	}
	*out = l;
	return n;
}

/* ---- the stack's other metrics at that time ---- */
static bool same_code(const struct found *f, const struct stack *sk,
		      const struct stream *st)
{
	return st == f->sk->st ? sk == f->sk : !strcmp(sk->ukey, f->sk->ukey);
}

/* The mean (a level: the last) per interval of the stack's code in
 * stream st, metric m, over intervals centred in [from, to). */
static bool value_at(const struct anomalies *an, const struct found *f,
		     const struct stream *st, unsigned m, double from,
		     double to, double *out)
{
	size_t first = st->used, last = 0, n = 0;
	double sum = 0;

	for (size_t i = 0; i < st->used; i++) {
		double mid = (st->iv[i].t0 + st->iv[i].t1) / 2;

		if (mid >= from && mid < to) {
			first = i < first ? i : first;
			last = i;
			n++;
		}
	}
	if (!n)
		return false;
	for (size_t k = 0; k < an->nsk; k++) {
		const struct stack *sk = an->sk[k];

		if (sk->st != st || !same_code(f, sk, st))
			continue;
		for (size_t p = 0; p < sk->n; p++) {
			size_t at = sk->p[p].at;

			if (at < first || at > last ||
			    (st->metric[m].level && at != last))
				continue;
			sum += norm(st, m, at, sk->p[p].v[m]);
		}
	}
	*out = st->metric[m].level ? sum : sum / n;
	return true;
}

size_t found_also(const struct anomalies *an, const struct found *f,
		  struct also *out)
{
	const struct stream *own = f->sk->st;
	double b0 = own->iv[f->b0].t0, t0 = found_start(f), t1 = found_end(f);
	size_t n = 0;

	for (size_t i = 0; i < an->nst; i++)
		for (unsigned m = 0; m < an->st[i]->nmetrics; m++) {
			const struct stream *st = an->st[i];
			struct also a = {st, m};

			if (st->metric[m].kind == METRIC_RATIO ||
			    (st == own && m == f->metric) ||
			    !value_at(an, f, st, m, b0, t0, &a.base) ||
			    !value_at(an, f, st, m, t0, t1, &a.obs) ||
			    (!a.base && !a.obs))
				continue;
			out[n++] = a;
		}
	return n;
}

size_t anomalies_find(struct anomalies *an, struct found ***out)
{
	find_all(an);
	merge_metrics(an);
	return cluster_all(an, out);
}

/* ---- the differential flame graph's rows ---- */
void anomalies_diff(const struct anomalies *an, const struct found *a,
		    void (*row)(void *ctx, const char *key, double base,
				double win),
		    void *ctx)
{
	const struct stream *st = a->sk->st;
	double *x = xzalloc((st->used + 1) * sizeof(*x));

	for (size_t k = 0; k < an->nsk; k++) {
		const struct stack *sk = an->sk[k];
		double base, sd;
		struct series se = {.st = st, .m = a->metric};

		if (sk->st != st)
			continue;
		memset(x, 0, st->used * sizeof(*x));
		for (size_t p = 0; p < sk->n; p++)
			if (sk->p[p].at < st->used)
				x[sk->p[p].at] =
					norm(st, a->metric, sk->p[p].at,
					     sk->p[p].v[a->metric]);
		mean_sd(x, a->b0, a->i0, &base, &sd);
		row(ctx, sk->key, base, window_value(&se, x, a->i0, a->i1));
	}
	free(x);
}

void anomalies_free(struct anomalies *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->nsk; i++) {
		struct stack *sk = an->sk[i];

		for (unsigned j = 0; j < sk->nframes; j++)
			free(sk->frame[j]);
		free(sk->frame);
		free(sk->key);
		free(sk->ukey);
		free((char *)sk->aux);
		free(sk->p);
		free(sk);
	}
	for (size_t i = 0; i < an->nst; i++) {
		for (unsigned m = 0; m < an->st[i]->nmetrics; m++)
			free((char *)an->st[i]->metric[m].name);
		free(an->st[i]->applet);
		free(an->st[i]->sig);
		free(an->st[i]->iv);
		free(an->st[i]);
	}
	free(an->st);
	free(an->sk);
	free(an->hash);
	free(an->f);
	free(an);
}
