// SPDX-License-Identifier: GPL-2.0
/*
 * report --anomalies' writers: the anomalies found (anomalies.c) as
 * text, as JSON lines, and one anomaly's window against its baseline as
 * difffolded lines or a differential flame graph. docs/anomalies.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anomalies.h"
#include "anomalies_found.h"
#include "stackbox.h"
#include "flame.h"

#define SHOW_FRAMES 6 /* text: frames shown without -v */

static const char *const kind_name[] = {"appeared", "vanished", "grew",
					"shrank", "spike"};

static double dabs(double a)
{
	return a < 0 ? -a : a;
}

/* ---- text ---- */
static const char *value_str(char *buf, size_t len, enum metric_kind kind,
			     double v)
{
	static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double a = dabs(v);
	unsigned i = 0;

	if (kind == METRIC_NS) {
		if (a < 1e3)
			snprintf(buf, len, "%.0f ns", v);
		else if (a < 1e6)
			snprintf(buf, len, "%.1f us", v / 1e3);
		else if (a < 1e9)
			snprintf(buf, len, "%.1f ms", v / 1e6);
		else
			snprintf(buf, len, "%.2f s", v / 1e9);
	} else if (kind == METRIC_BYTES) {
		while (a >= 1024 && i < ARRAY_SIZE(bytes) - 1) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, bytes[i]);
	} else {
		snprintf(buf, len,
			 a < 10 && v != (long long)v ? "%.1f" : "%.0f", v);
	}
	return buf;
}

static const char *time_str(char *buf, size_t len, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	size_t n;

	localtime_r(&s, &tm);
	n = strftime(buf, len, "%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%d", (int)((t - s) * 10) % 10);
	return buf;
}

static void text_change(FILE *f, const struct found *a)
{
	const struct metric *mt = &a->sk->st->metric[a->metric];
	char b[32], o[32], d[32];

	fprintf(f, "     %s -> %s%s (%s%s",
		value_str(b, sizeof(b), mt->kind, a->base),
		value_str(o, sizeof(o), mt->kind, a->obs),
		mt->level ? "" : " per interval", a->obs >= a->base ? "+" : "",
		value_str(d, sizeof(d), mt->kind, a->obs - a->base));
	if (a->base > 0 && a->obs > 0)
		fprintf(f, ", x%.2f", a->obs / a->base);
	fprintf(f, "), share %.1f%% -> %.1f%%\n", 100 * a->share_base,
		100 * a->share_obs);
}

/* Leaf first. Without -v: the user frames nearest the leaf (the code
 * that changed), kernel frames only counted; -v: every frame. */
static void text_stack(FILE *f, const struct stack *sk, int verbose)
{
	unsigned nk = sk->nframes - 1 - sk->nu, shown = 0;
	unsigned from = verbose || !sk->nu ? sk->nframes : sk->nu + 1;

	fputs("     ", f);
	for (unsigned i = from; i-- > 1; shown++) {
		if (!verbose && shown == SHOW_FRAMES) {
			fprintf(f, " < ... %u more", i);
			break;
		}
		fprintf(f, "%s%s", shown ? " < " : "", sk->frame[i]);
	}
	if (!verbose && sk->nu && nk)
		fprintf(f, " (under %u kernel frames)", nk);
	fprintf(f, "%s[%s%s%s]\n", shown ? "  " : "", sk->frame[0],
		sk->aux ? ", " : "", sk->aux ? sk->aux : "");
}

static void text_also(FILE *f, const struct anomalies *an,
		      const struct found *a)
{
	struct also *al = xmalloc((an->nst * SB_MAX_VALUES + 1) * sizeof(*al));
	size_t n = found_also(an, a, al);
	char b[32], o[32];

	for (size_t i = 0; i < n; i++) {
		const struct metric *mt = &al[i].st->metric[al[i].m];

		fprintf(f, "     %s %s %s %s -> %s\n",
			i ? "    " : "also:", al[i].st->applet, mt->name,
			value_str(b, sizeof(b), mt->kind, al[i].base),
			value_str(o, sizeof(o), mt->kind, al[i].obs));
	}
	free(al);
}

static void text_streams(FILE *f, const struct anomalies *an)
{
	char t[32];

	for (size_t i = 0; i < an->nst; i++) {
		const struct stream *st = an->st[i];

		fprintf(f, "%s: %zu intervals of %.0f ms from %s\n", st->applet,
			st->used, 1e3 * st->nominal,
			st->n ? time_str(t, sizeof(t), st->t_first) : "-");
	}
}

static void write_text(FILE *f, const struct anomalies *an, struct found **l,
		       size_t n, int verbose)
{
	char t0[32], t1[32];

	fprintf(f, "%zu anomal%s in %u cluster%s\n", n, n == 1 ? "y" : "ies",
		n ? l[n - 1]->cluster : 0,
		n && l[n - 1]->cluster == 1 ? "" : "s");
	text_streams(f, an);
	for (size_t i = 0; i < n; i++) {
		const struct found *a = l[i];
		size_t members = 0;

		if (!i || l[i - 1]->cluster != a->cluster) {
			for (size_t j = i; j < n && l[j]->cluster == a->cluster;
			     j++)
				members++;
			fprintf(f, "\ncluster %u: %s under %s, %zu stack%s\n",
				a->cluster, kind_name[a->kind], a->label,
				members, members == 1 ? "" : "s");
		}
		fprintf(f, "  #%u %s %s %s %s-%s, score %.2f\n", a->id,
			a->sk->st->applet, a->sk->st->metric[a->metric].name,
			kind_name[a->kind],
			time_str(t0, sizeof(t0), found_start(a)),
			time_str(t1, sizeof(t1), found_end(a)), a->score);
		text_change(f, a);
		text_stack(f, a->sk, verbose);
		text_also(f, an, a);
	}
}

/* ---- JSON: one object per anomaly, one per line ---- */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *unit_of(enum metric_kind k)
{
	return k == METRIC_NS	   ? "nanoseconds"
	       : k == METRIC_BYTES ? "bytes"
				   : "count";
}

static void json_also(FILE *f, const struct anomalies *an,
		      const struct found *a)
{
	struct also *al = xmalloc((an->nst * SB_MAX_VALUES + 1) * sizeof(*al));
	size_t n = found_also(an, a, al);

	fputs(",\"also\":[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"applet\":", i ? "," : "");
		json_str(f, al[i].st->applet);
		fputs(",\"metric\":", f);
		json_str(f, al[i].st->metric[al[i].m].name);
		fprintf(f, ",\"baseline\":%.6g,\"observed\":%.6g}", al[i].base,
			al[i].obs);
	}
	fputc(']', f);
	free(al);
}

static void write_json(FILE *f, const struct anomalies *an, struct found **l,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct found *a = l[i];
		const struct stream *st = a->sk->st;
		const struct metric *mt = &st->metric[a->metric];

		fprintf(f,
			"{\"id\":%u,\"cluster\":%u,\"cluster_label\":", a->id,
			a->cluster);
		json_str(f, a->label);
		fprintf(f, ",\"kind\":\"%s\",\"applet\":", kind_name[a->kind]);
		json_str(f, st->applet);
		fputs(",\"metric\":", f);
		json_str(f, mt->name);
		fprintf(f,
			",\"unit\":\"%s\",\"level\":%s,\"start\":%.3f,\"end\":%.3f,"
			"\"start_interval\":%zu,\"end_interval\":%zu,"
			"\"interval\":%.3f,\"baseline_start\":%.3f,"
			"\"baseline\":%.6g,\"observed\":%.6g,\"change\":%.6g,",
			unit_of(mt->kind), mt->level ? "true" : "false",
			found_start(a), found_end(a), a->i0, a->i1, st->nominal,
			a->t_base, a->base, a->obs, a->obs - a->base);
		if (a->base > 0)
			fprintf(f, "\"ratio\":%.4g,", a->obs / a->base);
		else
			fputs("\"ratio\":null,", f);
		fprintf(f,
			"\"share_baseline\":%.4f,\"share_observed\":%.4f,"
			"\"score\":%.4f,\"comm\":",
			a->share_base, a->share_obs, a->score);
		json_str(f, a->sk->frame[0]);
		if (a->sk->aux) {
			fputs(",\"state\":", f);
			json_str(f, a->sk->aux);
		}
		fputs(",\"leaf\":", f);
		json_str(f, a->sk->nframes > 1
				    ? a->sk->frame[a->sk->nframes - 1]
				    : a->sk->frame[0]);
		fputs(",\"stack\":[", f);
		for (unsigned k = a->sk->nframes; k-- > 1;) {
			if (k != a->sk->nframes - 1)
				fputc(',', f);
			json_str(f, a->sk->frame[k]);
		}
		fputc(']', f);
		json_also(f, an, a);
		fputs("}\n", f);
	}
}

/* ---- the differential flame graph of one anomaly's window ---- */
static double folded_value(enum metric_kind k, double v)
{
	v = k == METRIC_NS ? v / 1e3 : v; /* folded: microseconds */
	return (double)(long long)(v + (v < 0 ? -0.5 : 0.5));
}

struct diff {
	FILE *f;
	struct flame *fl;
	enum metric_kind kind;
};

static void diff_row(void *ctx, const char *key, double base, double win)
{
	struct diff *d = ctx;

	base = folded_value(d->kind, base);
	win = folded_value(d->kind, win);
	if (!base && !win)
		return;
	if (!d->fl) {
		fprintf(d->f, "%s %.0f %.0f\n", key, base, win);
		return;
	}
	for (int side = 0; side < 2; side++) {
		char *line = xasprintf("%s %.0f", key, side ? win : base);

		flame_add_folded(d->fl, line, !side);
		free(line);
	}
}

/* The stacks of the anomaly's stream and metric: baseline and window. */
static int write_diff(FILE *f, const struct anomalies *an,
		      const struct found *a, enum anomalies_format fmt)
{
	const struct stream *st = a->sk->st;
	const struct metric *mt = &st->metric[a->metric];
	struct diff d = {f, fmt == ANOMALIES_SVG ? flame_new() : NULL,
			 mt->kind};
	char t0[32], t1[32], *title;

	if (anomalies_diff(an, a, diff_row, &d)) {
		error_msg("--anomaly %u: its baseline is older than the last "
			  "%d intervals of %s kept",
			  a->id, WINDOW, st->applet);
		flame_free(d.fl);
		return 1;
	}
	if (!d.fl)
		return 0;
	title = xasprintf("%s %s, anomaly %u (%s): %s-%s against the baseline",
			  st->applet, mt->name, a->id, kind_name[a->kind],
			  time_str(t0, sizeof(t0), found_start(a)),
			  time_str(t1, sizeof(t1), found_end(a)));
	flame_write_svg(d.fl, f, title, PALETTE_CPU,
			mt->kind == METRIC_NS	   ? "us"
			: mt->kind == METRIC_BYTES ? "bytes"
						   : mt->name);
	free(title);
	flame_free(d.fl);
	return 0;
}

/* -v: what the judging took, the work as a count (the tests bound it). */
static void write_work(const struct anomalies *an)
{
	for (size_t i = 0; i < an->nst; i++) {
		const struct stream *st = an->st[i];

		fprintf(stderr,
			"report: --anomalies: %s: %zu intervals, %zu series "
			"judged, %zu over the floor left out, %" PRIu64
			" values read\n",
			st->applet, st->n, st->tracked, st->untracked,
			st->reads);
	}
}

int anomalies_write(struct anomalies *an, FILE *f, enum anomalies_format fmt,
		    long long which, int verbose)
{
	struct found **l;
	size_t n = anomalies_find(an, &l);
	int err = 0;

	if (verbose)
		write_work(an);

	if (fmt == ANOMALIES_TEXT)
		write_text(f, an, l, n, verbose);
	else if (fmt == ANOMALIES_JSON)
		write_json(f, an, l, n);
	else if (which < 1 || (size_t)which > n) {
		error_msg("--anomaly %lld: there %s %zu", which,
			  n == 1 ? "is" : "are", n);
		err = 1;
	} else {
		err = write_diff(f, an, l[which - 1], fmt);
	}
	free(l);
	return err;
}
