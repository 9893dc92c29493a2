// SPDX-License-Identifier: GPL-2.0
/*
 * The NAB driver of bench/nab.sh: runs common/lib/anomaly.c over every data
 * file of the Numenta Anomaly Benchmark, writes NAB's result layout, and
 * scores the result with our own implementation of NAB's documented
 * scoring (so the figure exists without NAB's Python; nab.sh runs NAB's
 * own scorer beside it when it has a checkout).
 *
 *   nab [-o RESULTS -n NAME] DATA_DIR WINDOWS_JSON
 *
 * Scoring, as NAB documents it: the first 15 % of each file (at most 750
 * points) is probation and not scored. A detection inside a labelled
 * window is worth A_TP * sigma(position), where sigma(y) = 2/(1+e^(5y)) - 1
 * and y runs from -1 at the window's left edge to 0 at its right edge;
 * only a window's best detection counts, and a window without one costs
 * A_FN. A detection outside every window costs A_FP * sigma(y) with y the
 * distance past the last window's right edge in window widths (-1 before
 * the first window, and sigma = -1 from 3 widths on). The threshold is the
 * one that maximises the corpus' sum, and the sum is normalised to 100 *
 * (S - S_null) / (S_perfect - S_null) with S_null = -A_FN * windows (no
 * detections) and S_perfect = A_TP * windows.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anomaly.h"

#define TS_LEN	    19 /* "YYYY-MM-DD HH:MM:SS": the part NAB's times share */
#define MAX_WINDOWS 16

struct profile {
	const char *name;
	double tp, fp, fn;
	double leaderboard[4]; /* Skyline, KNN CAD, Relative Entropy, ours */
};

static const struct profile profiles[] = {
	{"standard", 1, 0.11, 1, {58.2, 58.0, 54.6}},
	{"reward_low_FP_rate", 1, 0.22, 1, {46.2, 43.4, 47.6}},
	{"reward_low_FN_rate", 1, 0.11, 2, {63.9, 64.8, 58.8}},
};
#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

/* One scorable point: its score, and where it lies against the windows. */
struct point {
	float score;
	int window; /* index into the corpus' windows, or -1 */
	float pos;  /* y of the comment above */
	float past; /* 1 when outside: pos is past a window, 0 before any */
};

struct corpus {
	struct point *pts;
	size_t npts, cap;
	int nwindows;
	double seconds; /* in anomaly_step() */
	size_t steps;
};

struct file_windows {
	char name[256];
	char ts[MAX_WINDOWS][2][TS_LEN + 1];
	int n;
};

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "nab: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(1);
}

/* ---- the windows file: {"CAT/FILE.csv": [["t1", "t2"], ...], ...} ---- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		die(strerror(errno), path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		die("cannot read", path);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* The windows of the file named NAME, from the JSON text: the strings
 * inside the list after its name, in pairs. */
static void find_windows(const char *json, const char *name,
			 struct file_windows *w)
{
	char key[600];
	const char *p;
	int depth = 0, edge = 0;

	memset(w, 0, sizeof(*w));
	snprintf(key, sizeof(key), "\"%s\"", name);
	p = strstr(json, key);
	if (!p || !(p = strchr(p + strlen(key), '[')))
		die("no windows for", name);
	for (; *p; p++) {
		if (*p == ']' && !--depth)
			break;
		depth += *p == '[';
		if (*p != '"')
			continue;
		if (w->n >= MAX_WINDOWS)
			die("too many windows in", name);
		snprintf(w->ts[w->n][edge], TS_LEN + 1, "%.19s", p + 1);
		p = strchr(p + 1, '"');
		if (!p)
			die("an unterminated string in the windows of", name);
		if (++edge == 2) {
			edge = 0;
			w->n++;
		}
	}
}

/* ---- one data file ---- */

struct series {
	char (*ts)[TS_LEN + 1];
	double *value;
	size_t n;
};

static void read_series(const char *path, struct series *s)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;

	if (!f)
		die(strerror(errno), path);
	memset(s, 0, sizeof(*s));
	if (!fgets(line, sizeof(line), f) || strncmp(line, "timestamp,", 10))
		die("no timestamp,value header in", path);
	while (fgets(line, sizeof(line), f)) {
		char *comma = strchr(line, ',');

		if (!comma)
			die("a line without a comma in", path);
		if (s->n == cap) {
			cap = cap ? 2 * cap : 4096;
			s->ts = realloc(s->ts, cap * sizeof(*s->ts));
			s->value = realloc(s->value, cap * sizeof(*s->value));
			if (!s->ts || !s->value)
				die("out of memory", NULL);
		}
		*comma = 0;
		snprintf(s->ts[s->n], TS_LEN + 1, "%.19s", line);
		s->value[s->n++] = strtod(comma + 1, NULL);
	}
	fclose(f);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void detect(const struct series *s, float *score, struct corpus *c)
{
	struct anomaly a;
	double t0 = now();

	anomaly_init(&a);
	for (size_t i = 0; i < s->n; i++)
		score[i] = anomaly_step(&a, s->value[i]);
	c->seconds += now() - t0;
	c->steps += s->n;
}

static size_t index_of(const struct series *s, const char *ts)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ts[i], ts))
			return i;
	die("a window edge is not a timestamp of its file", ts);
	return 0;
}

/* Each point's window and relative position, as the comment on top says. */
static void add_points(struct corpus *c, const struct series *s,
		       const float *score, const struct file_windows *w)
{
	size_t prob = s->n * 15 / 100 < 750 ? s->n * 15 / 100 : 750;
	long left = -1, right = -1, prev_right = -1, prev_width = 0;
	int k = 0, cur = -1;

	for (size_t i = 0; i < s->n; i++) {
		struct point p = {score[i], -1, -1, 0};

		if (k < w->n && !strcmp(s->ts[i], w->ts[k][0])) {
			left = i;
			right = index_of(s, w->ts[k][1]);
			cur = c->nwindows + k++;
		}
		if (cur >= 0) {
			p.window = cur;
			p.pos = -(double)(right - (long)i + 1) /
				(right - left + 1);
		} else if (prev_right >= 0) {
			p.pos = (double)((long)i - prev_right) /
				(prev_width - 1);
			p.past = 1;
		}
		if (cur >= 0 && (long)i == right) {
			prev_right = right;
			prev_width = right - left + 1;
			cur = -1;
		}
		if (i < prob)
			continue;
		if (c->npts == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1 << 16;
			c->pts = realloc(c->pts, c->cap * sizeof(*c->pts));
			if (!c->pts)
				die("out of memory", NULL);
		}
		c->pts[c->npts++] = p;
	}
	c->nwindows += w->n;
}

static void write_result(const char *out, const char *name, const char *cat,
			 const char *file, const struct series *s,
			 const float *score, const struct file_windows *w)
{
	char path[1024];
	FILE *f;
	int k = 0, inside = 0;

	snprintf(path, sizeof(path), "%s/%s", out, cat);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s_%s", out, cat, name, file);
	f = fopen(path, "w");
	if (!f)
		die(strerror(errno), path);
	fprintf(f, "timestamp,value,anomaly_score,label\n");
	for (size_t i = 0; i < s->n; i++) {
		if (k < w->n && !strcmp(s->ts[i], w->ts[k][0]))
			inside = 1;
		fprintf(f, "%s,%.17g,%.6f,%d\n", s->ts[i], s->value[i],
			score[i], inside);
		if (inside && !strcmp(s->ts[i], w->ts[k][1])) {
			inside = 0;
			k++;
		}
	}
	if (fclose(f))
		die(strerror(errno), path);
}

/* ---- scoring ---- */

static double sigma(double y)
{
	return y > 3 ? -1 : 2 / (1 + exp(5 * y)) - 1;
}

static int by_score_desc(const void *a, const void *b)
{
	float x = ((const struct point *)a)->score;
	float y = ((const struct point *)b)->score;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The best corpus score over all thresholds: lower the threshold one
 * distinct score at a time, keeping each window's best and the sum. */
static double best_score(const struct corpus *c, const struct profile *pr,
			 double *threshold)
{
	double *best = malloc(c->nwindows * sizeof(*best));
	double sum = -pr->fn * c->nwindows, top = sum, max_tp = sigma(-1);

	*threshold = 1.1;
	for (int k = 0; k < c->nwindows; k++)
		best[k] = -pr->fn;
	for (size_t i = 0; i < c->npts;) {
		float t = c->pts[i].score;

		for (; i < c->npts && c->pts[i].score == t; i++) {
			const struct point *p = &c->pts[i];

			if (p->window < 0) {
				sum += pr->fp *
				       (p->past ? sigma(p->pos) : -1.0);
				continue;
			}
			double v = sigma(p->pos) * pr->tp / max_tp;

			if (v > best[p->window]) {
				sum += v - best[p->window];
				best[p->window] = v;
			}
		}
		if (sum > top) {
			top = sum;
			*threshold = t;
		}
	}
	free(best);
	return top;
}

static void print_scores(struct corpus *c)
{
	qsort(c->pts, c->npts, sizeof(*c->pts), by_score_desc);
	printf("%-20s %8s %9s %8s %8s %8s\n", "profile", "ours", "threshold",
	       "Skyline", "KNN-CAD", "RelEntr");
	for (size_t i = 0; i < NPROFILES; i++) {
		const struct profile *pr = &profiles[i];
		double thr, raw = best_score(c, pr, &thr);
		double null = -pr->fn * c->nwindows;
		double perfect = pr->tp * c->nwindows;

		printf("%-20s %8.2f %9.4f %8.1f %8.1f %8.1f\n", pr->name,
		       100 * (raw - null) / (perfect - null), thr,
		       pr->leaderboard[0], pr->leaderboard[1],
		       pr->leaderboard[2]);
	}
}

/* ---- the corpus ---- */

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_file(struct corpus *c, const char *data, const char *json,
		     const char *cat, const char *file, const char *out,
		     const char *name)
{
	char path[1024], rel[512];
	struct file_windows w;
	struct series s;
	float *score;

	snprintf(path, sizeof(path), "%s/%s/%s", data, cat, file);
	snprintf(rel, sizeof(rel), "%s/%s", cat, file);
	read_series(path, &s);
	find_windows(json, rel, &w);
	score = malloc(s.n * sizeof(*score));
	if (!score)
		die("out of memory", NULL);
	detect(&s, score, c);
	add_points(c, &s, score, &w);
	if (out)
		write_result(out, name, cat, file, &s, score, &w);
	free(score);
	free(s.ts);
	free(s.value);
}

static int is_csv(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".csv");
}

static int is_dir(const struct dirent *d)
{
	return d->d_name[0] != '.' && d->d_type == DT_DIR;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *name = "stackbox";
	struct corpus c = {0};
	struct dirent **cats;
	char *json;
	int opt, ncat, files = 0;

	while ((opt = getopt(argc, argv, "o:n:")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'n')
			name = optarg;
		else
			return 2;
	}
	if (argc - optind != 2)
		die("usage: nab [-o RESULTS -n NAME] DATA_DIR WINDOWS_JSON",
		    NULL);
	if (strchr(name, '_'))
		die("NAB's detector names have no underscore", name);
	json = read_all(argv[optind + 1]);
	if (out)
		mkdir(out, 0755);
	ncat = scandir(argv[optind], &cats, is_dir, by_name);
	if (ncat <= 0)
		die("no category directories in", argv[optind]);
	for (int i = 0; i < ncat; i++) {
		char dir[1024];
		struct dirent **csv;
		int n;

		snprintf(dir, sizeof(dir), "%s/%s", argv[optind],
			 cats[i]->d_name);
		n = scandir(dir, &csv, is_csv, by_name);
		for (int j = 0; j < n; j++, files++) {
			run_file(&c, argv[optind], json, cats[i]->d_name,
				 csv[j]->d_name, out, name);
			free(csv[j]);
		}
		free(csv);
		free(cats[i]);
	}
	free(cats);
	printf("files %d, points %zu, windows %d\n", files, c.steps,
	       c.nwindows);
	printf("state bytes per series: %zu\n", sizeof(struct anomaly));
	printf("points per second: %.3g (%.1f ns a point)\n",
	       c.steps / c.seconds, 1e9 * c.seconds / c.steps);
	print_scores(&c);
	return 0;
}
