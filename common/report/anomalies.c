// SPDX-License-Identifier: GPL-2.0
/*
 * report --anomalies in one pass. Snapshots come in resolved
 * (output.c), one stream per applet and metric set. Each stack keeps
 * its values of its stream's last WINDOW intervals, absent meaning 0.
 * A (stack, metric) becomes a series, judged as the intervals come
 * (anomalies_series.c), once a value of it reaches half the stream's
 * floor: a change under the floor is never an anomaly, so the stacks
 * that never get there need no detectors. A series starts at the
 * window's first interval, so it knows what the stack did before. A
 * stack gone from the window, without a series or a finding, is let go:
 * work is linear in the input, memory bounded by the window's stacks.
 * Until NOMINAL_N intervals have come, nothing is judged: the nominal
 * interval is their median. At the end, the findings are merged across
 * a stack's metrics, clustered per time window, and shown
 * (anomalies_write.c). docs/anomalies.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anomalies.h"
#include "anomalies_found.h"
#include "cluster.h"
#include "lines.h"
#include "output.h"
#include "stackbox.h"

#define FLOOR_SHARE 0.05 /* the floor: 5 % of the stream's interval total */
#define PROMOTE	    0.5	 /* a series is judged from half the floor */
#define TRACK_MAX   4096 /* series judged at once, per stream */
#define FLOOR_EVERY 16	 /* intervals between two takes of the floors */
#define SWEEP_EVERY (WINDOW / 8)
#define CLUSTER_MAX 64 /* anomalies clustered together at most */
#define HASH_SIZE   65536

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

struct anomalies *anomalies_new(void)
{
	struct anomalies *an = xzalloc(sizeof(*an));

	an->hash = xzalloc(HASH_SIZE * sizeof(*an->hash));
	an->names = xzalloc(sizeof(*an->names));
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
	st->idx = an->nst;
	st->nmetrics = s->nmetrics;
	st->primary = s->primary;
	st->iv = xzalloc(WINDOW * sizeof(*st->iv));
	for (unsigned m = 0; m < s->nmetrics; m++) {
		st->metric[m] = s->metrics[m];
		st->metric[m].name = xstrdup(s->metrics[m].name);
	}
	an->st = grow_array(an->st, &an->st_cap, an->nst + 1, sizeof(*an->st));
	an->st[an->nst++] = st;
	return st;
}

static const char *aux_of(const struct snapshot *s, const struct row *r)
{
	const char *aux = s->aux_name ? s->aux_name(r->key.aux) : "";

	return *aux ? aux : NULL;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return fnv1a(h, s, strlen(s) + 1);
}

/* The stack's identity: its stream, comm, split and frames. */
static uint64_t row_hash(const struct stream *st, const char *aux,
			 const struct row *r)
{
	uint64_t h = fnv1a(FNV_START, &st, sizeof(st));

	h = hash_str(h, r->key.comm);
	h = hash_str(h, aux ? aux : "");
	h = fnv1a(h, &r->nu, sizeof(r->nu));
	for (unsigned j = 0; j < r->nu; j++)
		h = hash_str(h, r->ustack[j]);
	for (unsigned j = 0; j < r->nk; j++)
		h = hash_str(h, r->kstack[j]);
	return h;
}

static bool same_stack(const struct stack *sk, const char *aux,
		       const struct row *r)
{
	if (sk->nu != r->nu || sk->nframes != 1 + r->nu + r->nk ||
	    strcmp(sk->frame[0], r->key.comm) ||
	    strcmp(sk->aux ? sk->aux : "", aux ? aux : ""))
		return false;
	for (unsigned j = 0; j < r->nu; j++)
		if (strcmp(sk->frame[1 + j], r->ustack[j]))
			return false;
	for (unsigned j = 0; j < r->nk; j++)
		if (strcmp(sk->frame[1 + r->nu + j], r->kstack[j]))
			return false;
	return true;
}

static const char *intern(struct anomalies *an, const char *s)
{
	return names_intern(an->names, s, strlen(s));
}

static struct stack *new_stack(struct anomalies *an, struct stream *st,
			       const char *aux, const struct row *r)
{
	struct stack *sk = xzalloc(sizeof(*sk));

	sk->st = st;
	sk->seq = an->nseq++;
	sk->aux = aux ? intern(an, aux) : NULL;
	sk->frame = xmalloc((r->nu + r->nk + 1) * sizeof(*sk->frame));
	sk->frame[sk->nframes++] = intern(an, r->key.comm);
	for (unsigned j = 0; j < r->nu; j++)
		sk->frame[sk->nframes++] = intern(an, r->ustack[j]);
	for (unsigned j = 0; j < r->nk; j++)
		sk->frame[sk->nframes++] = intern(an, r->kstack[j]);
	sk->nu = r->nu;
	sk->uhash = FNV_START;
	for (unsigned j = 0; j <= sk->nu; j++)
		sk->uhash = hash_str(sk->uhash, sk->frame[j]);
	st->sk = grow_array(st->sk, &st->sk_cap, st->nsk + 1, sizeof(*st->sk));
	st->sk[st->nsk++] = sk;
	return sk;
}

static struct stack *stack_of(struct anomalies *an, struct stream *st,
			      const struct snapshot *s, const struct row *r)
{
	const char *aux = aux_of(s, r);
	uint64_t h = row_hash(st, aux, r);
	struct stack **b = &an->hash[h % HASH_SIZE], *sk;

	for (sk = *b; sk; sk = sk->hnext)
		if (sk->hash == h && sk->st == st && same_stack(sk, aux, r))
			return sk;
	sk = new_stack(an, st, aux, r);
	sk->hash = h;
	sk->hnext = *b;
	*b = sk;
	return sk;
}

/* Rows that differ in what the key leaves out (thread, cgroup) add up. */
static void add_row(struct stack *sk, size_t at, const struct row *r,
		    unsigned nmetrics)
{
	__u64 *p = sk->n > sk->first ? stack_pt(sk, sk->n - 1) : NULL;

	if (!p || p[0] != at) {
		sk->pv = grow_array(sk->pv, &sk->cap, sk->n + 1,
				    (nmetrics + 1) * sizeof(*sk->pv));
		p = stack_pt(sk, sk->n++);
		memset(p, 0, (nmetrics + 1) * sizeof(*p));
		p[0] = at;
	}
	for (unsigned m = 0; m < nmetrics; m++)
		p[1 + m] += r->v[m];
}

/* ---- the stream's measures: nominal interval, floors, what is judged ---- */
static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *d, size_t n)
{
	qsort(d, n, sizeof(*d), by_double);
	return n ? d[n / 2] : 0;
}

static size_t window_start(const struct stream *st)
{
	return st->n > WINDOW ? st->n - WINDOW : 0;
}

static void take_nominal(struct stream *st)
{
	size_t n = st->n < NOMINAL_N ? st->n : NOMINAL_N;
	double d[NOMINAL_N];

	memcpy(d, st->dur, n * sizeof(*d));
	st->nominal = median(d, n);
	st->settled = true;
}

/* The floor: FLOOR_SHARE of the median interval total in [from, to). */
static void take_floors(struct stream *st, size_t from, size_t to)
{
	double *t = xmalloc((to - from + 1) * sizeof(*t));

	for (unsigned m = 0; m < st->nmetrics; m++) {
		for (size_t i = from; i < to; i++)
			t[i - from] = stream_norm(st, m, i,
						  stream_iv(st, i)->total[m]);
		st->floor[m] = FLOOR_SHARE * median(t, to - from);
	}
	st->floor_at = st->n;
	free(t);
}

/* Points that can be judged: all but the newest (it may be a short
 * last one), and not a run of empty ones at the end (the profiled
 * process is gone) unless it fills half the window. */
static size_t ready_of(const struct stream *st)
{
	size_t last = st->n - 1;

	if (st->final)
		return st->used;
	return st->busy < last && last - st->busy <= WINDOW / 2 ? st->busy
								: last;
}

static bool empty(const struct stream *st, size_t i)
{
	for (unsigned m = 0; m < st->nmetrics; m++)
		if (stream_iv(st, i)->total[m])
			return false;
	return true;
}

/* The intervals judged: a last one under half the nominal one says
 * too little, and empty ones at the end say nothing. */
static size_t used_of(const struct stream *st)
{
	size_t used = st->n, lo = window_start(st);
	const struct interval *last = stream_iv(st, st->n - 1);

	if (st->n > 1 && last->t1 - last->t0 < st->nominal / 2)
		used--;
	while (used > 1 && used - 1 > lo && empty(st, used - 1))
		used--;
	return used;
}

/* ---- series: which stacks get one ---- */
static void promote(struct stream *st, struct stack *sk, unsigned m, size_t at)
{
	if (st->ntr == TRACK_MAX) {
		st->untracked += !(sk->refused & 1u << m);
		sk->refused |= 1u << m;
		return;
	}
	sk->tr[m] = track_new(sk, m, window_start(st), at);
	st->tracked++;
	st->tr = grow_array(st->tr, &st->tr_cap, st->ntr + 1, sizeof(*st->tr));
	st->tr[st->ntr++] = sk->tr[m];
}

/* p: a point of sk (stack_pt()) */
static void consider(struct stream *st, struct stack *sk, const __u64 *p)
{
	for (unsigned m = 0; m < st->nmetrics; m++) {
		double x;

		if (sk->tr[m] || st->metric[m].kind == METRIC_RATIO)
			continue;
		x = stream_norm(st, m, p[0], p[1 + m]);
		if (x > 0 && x >= PROMOTE * st->floor[m])
			promote(st, sk, m, p[0]);
	}
}

/* Every stack of the window, every point: when the floors are new. */
static void consider_all(struct stream *st, size_t to)
{
	for (size_t k = 0; k < st->nsk; k++) {
		struct stack *sk = st->sk[k];

		for (size_t p = sk->first; p < sk->n && stack_pt(sk, p)[0] < to;
		     p++)
			consider(st, sk, stack_pt(sk, p));
	}
}

static void run_all(struct anomalies *an, struct stream *st)
{
	size_t ready = ready_of(st);

	for (size_t i = 0; i < st->ntr; i++)
		track_run(an, st->tr[i], ready, st->final);
}

static bool has_track(const struct stack *sk)
{
	for (unsigned m = 0; m < SB_MAX_VALUES; m++)
		if (sk->tr[m])
			return true;
	return false;
}

static void unhash(struct anomalies *an, struct stack *sk)
{
	struct stack **b = &an->hash[sk->hash % HASH_SIZE];

	while (*b != sk)
		b = &(*b)->hnext;
	*b = sk->hnext;
}

static void free_stack(struct stack *sk)
{
	free(sk->frame);
	free(sk->pv);
	free(sk);
}

/* Let go of what left the window: idle series, old points, stacks
 * with neither. */
static void sweep(struct anomalies *an, struct stream *st)
{
	size_t lo = window_start(st), ready = ready_of(st), n = 0;

	for (size_t i = 0; i < st->ntr;) {
		struct track *t = st->tr[i];

		if (!track_idle(t, ready)) {
			i++;
			continue;
		}
		track_free(t);
		st->tr[i] = st->tr[--st->ntr];
	}
	for (size_t k = 0; k < st->nsk; k++) {
		struct stack *sk = st->sk[k];

		while (sk->first < sk->n && stack_pt(sk, sk->first)[0] < lo)
			sk->first++;
		if (sk->first == sk->n)
			sk->first = sk->n = 0;
		else if (sk->first * 2 >= sk->n) {
			memmove(sk->pv, stack_pt(sk, sk->first),
				(sk->n - sk->first) * (st->nmetrics + 1) *
					sizeof(*sk->pv));
			sk->n -= sk->first;
			sk->first = 0;
		}
		if (sk->n || sk->held || has_track(sk)) {
			st->sk[n++] = sk;
			continue;
		}
		unhash(an, sk);
		free_stack(sk);
	}
	st->nsk = n;
}

/* NOMINAL_N intervals in: the nominal one is known, series start. */
static void settle(struct stream *st)
{
	take_nominal(st);
	take_floors(st, window_start(st), ready_of(st));
	consider_all(st, st->n);
}

static void advance(struct anomalies *an, struct stream *st)
{
	if (!st->settled && st->n < NOMINAL_N)
		return;
	if (!st->settled)
		settle(st);
	else if (st->n - st->floor_at >= FLOOR_EVERY)
		take_floors(st, window_start(st), ready_of(st));
	run_all(an, st);
	if (st->n % SWEEP_EVERY == 0)
		sweep(an, st);
}

void anomalies_snapshot(void *ctx, FILE *unused, const struct snapshot *s)
{
	struct anomalies *an = ctx;
	struct stream *st = stream_of(an, s);
	struct interval *iv = &st->iv[st->n % WINDOW];
	size_t at = st->n;

	iv->t0 = seconds(&s->start);
	iv->t1 = seconds(&s->end);
	memcpy(iv->total, s->total, sizeof(iv->total));
	if (!at)
		st->t_first = iv->t0;
	if (at < NOMINAL_N)
		st->dur[at] = iv->t1 - iv->t0;
	an->row_sk = grow_array(an->row_sk, &an->row_cap, s->nrows + 1,
				sizeof(*an->row_sk));
	for (size_t i = 0; i < s->nrows; i++) {
		an->row_sk[i] = stack_of(an, st, s, &s->rows[i]);
		add_row(an->row_sk[i], at, &s->rows[i], s->nmetrics);
	}
	st->n++; /* the window now ends with it, and starts one later */
	if (!empty(st, at))
		st->busy = st->n;
	/* a new stack's series first: the floors from before it */
	for (size_t i = 0; st->settled && i < s->nrows; i++) {
		struct stack *sk = an->row_sk[i];

		consider(st, sk, stack_pt(sk, sk->n - 1));
	}
	advance(an, st);
}

/* The input ended: what still waits is judged. */
static void finish(struct anomalies *an, struct stream *st)
{
	if (!st->settled)
		take_nominal(st);
	st->used = used_of(st);
	st->final = true;
	take_floors(st, window_start(st), st->used);
	consider_all(st, st->used);
	run_all(an, st);
}

/* ---- the stack's other metrics at that time ---- */
static bool same_user_code(const struct stack *a, const struct stack *b)
{
	if (a->uhash != b->uhash || a->nu != b->nu)
		return false;
	for (unsigned j = 0; j <= a->nu; j++)
		if (strcmp(a->frame[j], b->frame[j]))
			return false;
	return true;
}

static bool same_code(const struct found *f, const struct stack *sk,
		      const struct stream *st)
{
	return st == f->sk->st ? sk == f->sk : same_user_code(sk, f->sk);
}

/* The mean (a level: the last) per interval of the stack's code in
 * stream st, metric m, over intervals centred in [from, to), of those
 * still in its window. */
static bool value_at(const struct found *f, const struct stream *st, unsigned m,
		     double from, double to, double *out)
{
	size_t first = st->used, last = 0, n = 0;
	double sum = 0;

	for (size_t i = window_start(st); i < st->used; i++) {
		double mid = (stream_iv(st, i)->t0 + stream_iv(st, i)->t1) / 2;

		if (mid >= from && mid < to) {
			first = i < first ? i : first;
			last = i;
			n++;
		}
	}
	if (!n)
		return false;
	for (size_t k = 0; k < st->nsk; k++) {
		const struct stack *sk = st->sk[k];

		if (!same_code(f, sk, st))
			continue;
		for (size_t p = sk->first; p < sk->n; p++) {
			size_t at = stack_pt(sk, p)[0];

			if (at < first || at > last ||
			    (st->metric[m].level && at != last))
				continue;
			sum += stream_norm(st, m, at, stack_pt(sk, p)[1 + m]);
		}
	}
	*out = st->metric[m].level ? sum : sum / n;
	return true;
}

size_t found_also(const struct anomalies *an, const struct found *f,
		  struct also *out)
{
	const struct stream *own = f->sk->st;
	double b0 = f->t_base, t0 = found_start(f), t1 = found_end(f);
	size_t n = 0;

	for (size_t i = 0; i < an->nst; i++)
		for (unsigned m = 0; m < an->st[i]->nmetrics; m++) {
			const struct stream *st = an->st[i];
			struct also a = {st, m};

			if (st->metric[m].kind == METRIC_RATIO ||
			    (st == own && m == f->metric) ||
			    !value_at(f, st, m, b0, t0, &a.base) ||
			    !value_at(f, st, m, t0, t1, &a.obs) ||
			    (!a.base && !a.obs))
				continue;
			out[n++] = a;
		}
	return n;
}

/* ---- the findings in one order, whatever order they were found in:
 * stream, metric, stack, time ---- */
static int by_series(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->sk->st->idx != y->sk->st->idx)
		return x->sk->st->idx < y->sk->st->idx ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->sk->seq != y->sk->seq)
		return x->sk->seq < y->sk->seq ? -1 : 1;
	return x->i0 < y->i0 ? -1 : x->i0 > y->i0;
}

/* One stack's change shows in several metrics (bytes and objects held):
 * keep the first metric's (the primary where it is one of them). */
static unsigned metric_rank(const struct found *f)
{
	return f->metric == f->sk->st->primary ? 0 : f->metric + 1;
}

static int by_stack(const void *a, const void *b)
{
	const struct found *x = *(struct found *const *)a;
	const struct found *y = *(struct found *const *)b;

	if (x->sk->seq != y->sk->seq)
		return x->sk->seq < y->sk->seq ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Within each stack's findings, in their order. */
static void merge_stack(struct found **g, size_t n)
{
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++) {
			struct found *x = g[a], *y = g[b];
			size_t d =
				x->i0 > y->i0 ? x->i0 - y->i0 : y->i0 - x->i0;

			if (a != b && d <= 1 && !x->dropped && !y->dropped &&
			    metric_rank(y) > metric_rank(x))
				y->dropped = true;
		}
}

static void merge_metrics(struct anomalies *an)
{
	struct found **l = xmalloc((an->nf + 1) * sizeof(*l));
	size_t g = 0;

	for (size_t i = 0; i < an->nf; i++)
		l[i] = &an->f[i];
	qsort(l, an->nf, sizeof(*l), by_stack);
	for (size_t i = 1; i <= an->nf; i++)
		if (i == an->nf || l[i]->sk != l[g]->sk) {
			merge_stack(l + g, i - g);
			g = i;
		}
	free(l);
}

/* ---- clusters: per time window, by the stacks' shared path ---- */
double found_start(const struct found *f)
{
	return f->t_start;
}

double found_end(const struct found *f)
{
	return f->t_end;
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
	double span = window_span(an);

	for (size_t i = 0; i < an->nf; i++)
		if (!an->f[i].dropped)
			l[n++] = &an->f[i];
	qsort(l, n, sizeof(*l), by_start);
	for (size_t i = 1; i <= n; i++)
		if (i == n || i - w0 == CLUSTER_MAX ||
		    found_start(l[i]) - found_start(l[i - 1]) > span) {
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

size_t anomalies_find(struct anomalies *an, struct found ***out)
{
	for (size_t i = 0; i < an->nst; i++)
		finish(an, an->st[i]);
	if (an->nf)
		qsort(an->f, an->nf, sizeof(*an->f), by_series);
	merge_metrics(an);
	return cluster_all(an, out);
}

void anomalies_free(struct anomalies *an)
{
	if (!an)
		return;
	for (size_t i = 0; i < an->nst; i++) {
		struct stream *st = an->st[i];

		for (size_t k = 0; k < st->nsk; k++)
			free_stack(st->sk[k]);
		for (size_t k = 0; k < st->ntr; k++)
			free(st->tr[k]);
		for (unsigned m = 0; m < st->nmetrics; m++)
			free((char *)st->metric[m].name);
		free(st->applet);
		free(st->sig);
		free(st->iv);
		free(st->sk);
		free(st->tr);
		free(st);
	}
	names_free(an->names);
	free(an->names);
	free(an->st);
	free(an->row_sk);
	free(an->hash);
	free(an->f);
	free(an);
}
