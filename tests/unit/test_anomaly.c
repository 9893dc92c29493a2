// SPDX-License-Identifier: GPL-2.0
// layer: lib
/*
 * The streaming anomaly detector (common/lib/anomaly.c): known changes in
 * synthetic series are flagged where they happen, within a stated delay,
 * and stationary noise is not; the state fits in 2 KB; the same input
 * gives the same scores. Then a smoke test on three NAB files with known
 * anomaly windows (bench/nab.sh computes the full score): the data is
 * found in $NAB_DATA, or ../shared/nab beside the source tree or beside
 * its main worktree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anomaly.h"
#include "check.h"

/* Where each synthetic series changes, after a stationary start. */
#define CHANGE_AT  1000
#define SERIES_LEN 2000

/* Deterministic noise: an LCG's uniforms, four summed (about normal,
 * mean 0, standard deviation 1). */
struct noise {
	uint64_t s;
};

static double uniform(struct noise *n)
{
	n->s = n->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(n->s >> 11) / (double)(1ULL << 53);
}

static double gauss(struct noise *n)
{
	double u = uniform(n) + uniform(n) + uniform(n) + uniform(n);

	return (u - 2) * 1.7320508; /* the sum's sd is sqrt(4/12) */
}

enum change { STEP_UP, STEP_INSIDE, SPIKE, DRIFT, DROP_TO_ZERO };

/* The series' value at i: level 100, noise of sd 5, and the change. */
static double series(enum change c, struct noise *n, int i)
{
	double x = 100 + 5 * gauss(n);
	int after = i - CHANGE_AT;

	if (after < 0)
		return x;
	switch (c) {
	case STEP_UP:
		return x + 40;
	case STEP_INSIDE: /* a shift of 2 sd: inside the range seen so far */
		return x + 10;
	case SPIKE:
		return after == 0 ? x + 60 : x;
	case DRIFT: /* 0.5 sd per 10 points */
		return x + 0.25 * after;
	case DROP_TO_ZERO:
		return 0;
	}
	return x;
}

/* The first alarm at or after `from`, or -1; alarms before it counted. */
static int first_alarm(enum change c, int from, int *early)
{
	struct noise n = {42};
	struct anomaly a;
	int at = -1;

	anomaly_init(&a);
	*early = 0;
	for (int i = 0; i < SERIES_LEN; i++) {
		double s = anomaly_step(&a, series(c, &n, i));

		if (s < ANOMALY_THRESHOLD)
			continue;
		if (i < from)
			(*early)++;
		else if (at < 0)
			at = i;
	}
	return at;
}

/* Warm-up: the first points set the range, and every new extreme of a
 * young series is news; the tests count alarms from here on. */
#define WARMUP 100

static void check_change(const char *name, enum change c, int max_delay)
{
	char buf[128];
	int early, at = first_alarm(c, CHANGE_AT, &early);

	snprintf(buf, sizeof(buf), "anomaly %s: flagged within %d points", name,
		 max_delay);
	CHECK(buf, at >= CHANGE_AT && at <= CHANGE_AT + max_delay,
	      "first alarm at %d, the change at %d", at, CHANGE_AT);
	printf("# %s: change at %d, first alarm at %d (delay %d)\n", name,
	       CHANGE_AT, at, at - CHANGE_AT);
}

/* A young series' new highs and lows are news to the range test: a few
 * alarms (about ln(900 / 100) of each) are expected in its first 1000. */
static void check_quiet_before_change(void)
{
	struct noise n = {42};
	struct anomaly a;
	int alarms = 0;

	anomaly_init(&a);
	for (int i = 0; i < CHANGE_AT; i++)
		alarms += anomaly_step(&a, series(SPIKE, &n, i)) >=
				  ANOMALY_THRESHOLD &&
			  i >= WARMUP;
	printf("# stationary start: %d alarms in points %d..%d\n", alarms,
	       WARMUP, CHANGE_AT - 1);
	CHECK("anomaly: at most 10 alarms in the stationary start after "
	      "warm-up",
	      alarms <= 10, "%d alarms in points %d..%d", alarms, WARMUP,
	      CHANGE_AT - 1);
}

/* A long stationary noisy series: alarms are only the ever rarer new
 * extremes of the noise. */
#define LONG_LEN    200000
#define MAX_FP_RATE 1e-4

static void check_false_positive_rate(void)
{
	struct noise n = {7};
	struct anomaly a;
	int alarms = 0;
	double lo = 1, hi = 0;

	anomaly_init(&a);
	for (int i = 0; i < LONG_LEN; i++) {
		double s = anomaly_step(&a, 1000 + 20 * gauss(&n));

		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
		alarms += s >= ANOMALY_THRESHOLD && i >= WARMUP;
	}
	printf("# stationary noise: %d alarms in %d points\n", alarms,
	       LONG_LEN - WARMUP);
	CHECK("anomaly: false-positive rate of stationary noise <= 1e-4",
	      alarms <= MAX_FP_RATE * (LONG_LEN - WARMUP),
	      "%d alarms in %d points", alarms, LONG_LEN - WARMUP);
	CHECK("anomaly: scores lie in [0, 1]", lo >= 0 && hi <= 1,
	      "scores from %g to %g", lo, hi);
}

static void check_deterministic(void)
{
	struct anomaly a, b;
	struct noise n = {3}, m = {3};
	int same = 1;

	anomaly_init(&a);
	anomaly_init(&b);
	for (int i = 0; i < 20000; i++) {
		double sa = anomaly_step(&a, series(DRIFT, &n, i % SERIES_LEN));
		double sb = anomaly_step(&b, series(DRIFT, &m, i % SERIES_LEN));

		same &= !memcmp(&sa, &sb, sizeof(sa));
	}
	CHECK("anomaly: the same input gives the same scores",
	      same && !memcmp(&a, &b, sizeof(a)), "scores or state differ");
}

/* ---- the NAB smoke test ---- */

#define MAX_POINTS  30000
#define MAX_WINDOWS 8
/* Alarms outside the windows, after NAB's probation, at most. */
#define MAX_OUTSIDE 5

struct nab_file {
	char ts[MAX_POINTS][20];
	double value[MAX_POINTS];
	int n;
	int win[MAX_WINDOWS][2]; /* first and last index */
	int nwin;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0) {
		rewind(f);
		buf = calloc(1, n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static int index_of(const struct nab_file *f, const char *ts)
{
	for (int i = 0; i < f->n; i++)
		if (!strncmp(f->ts[i], ts, 19))
			return i;
	return -1;
}

/* The windows of REL from the windows JSON: the strings in the list after
 * its name, in pairs. */
static int read_windows(struct nab_file *f, const char *json, const char *rel)
{
	char key[256];
	const char *p;
	int depth = 0, k = 0;

	snprintf(key, sizeof(key), "\"%s\"", rel);
	p = strstr(json, key);
	if (!p || !(p = strchr(p + strlen(key), '[')))
		return -1;
	for (f->nwin = 0; *p && f->nwin < MAX_WINDOWS; p++) {
		if (*p == ']' && !--depth)
			break;
		depth += *p == '[';
		if (*p != '"')
			continue;
		f->win[f->nwin][k] = index_of(f, p + 1);
		if (f->win[f->nwin][k] < 0 || !(p = strchr(p + 1, '"')))
			return -1;
		if (++k == 2) {
			k = 0;
			f->nwin++;
		}
	}
	return 0;
}

static int read_nab_file(struct nab_file *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char line[256];

	if (!in)
		return -1;
	f->n = 0;
	if (!fgets(line, sizeof(line), in))
		f->n = -1;
	while (f->n >= 0 && f->n < MAX_POINTS &&
	       fgets(line, sizeof(line), in)) {
		char *comma = strchr(line, ',');

		if (!comma)
			break;
		snprintf(f->ts[f->n], sizeof(f->ts[0]), "%.19s", line);
		f->value[f->n++] = strtod(comma + 1, NULL);
	}
	fclose(in);
	return f->n > 0 ? 0 : -1;
}

static int in_window(const struct nab_file *f, int i)
{
	for (int k = 0; k < f->nwin; k++)
		if (i >= f->win[k][0] && i <= f->win[k][1])
			return k;
	return -1;
}

static void check_nab_file(const char *dir, const char *json, const char *rel)
{
	static struct nab_file f;
	char path[1024], name[300];
	int hit[MAX_WINDOWS] = {0}, outside = 0, found = 0, probation;
	struct anomaly a;

	snprintf(path, sizeof(path), "%s/data/%s", dir, rel);
	snprintf(name, sizeof(name), "anomaly NAB %s", rel);
	if (read_nab_file(&f, path) || read_windows(&f, json, rel)) {
		CHECK(name, 0, "cannot read %s or its windows", path);
		return;
	}
	probation = f.n * 15 / 100 < 750 ? f.n * 15 / 100 : 750;
	anomaly_init(&a);
	for (int i = 0; i < f.n; i++) {
		int k = in_window(&f, i);

		if (anomaly_step(&a, f.value[i]) < ANOMALY_THRESHOLD)
			continue;
		if (k >= 0)
			hit[k] = 1;
		else
			outside += i >= probation;
	}
	for (int k = 0; k < f.nwin; k++)
		found += hit[k];
	printf("# %s: %d of %d windows hit, %d alarms outside\n", rel, found,
	       f.nwin, outside);
	CHECK(name, found == f.nwin && outside <= MAX_OUTSIDE,
	      "%d of %d windows hit, %d alarms outside them (at most %d)",
	      found, f.nwin, outside, MAX_OUTSIDE);
}

static const char *nab_dir(char *buf, size_t len)
{
	const char *env = getenv("NAB_DATA"), *src = getenv("SRCTREE");
	const char *tries[] = {"%s/../shared/nab", "%s/../../shared/nab"};
	FILE *f;

	if (env)
		return env;
	for (size_t i = 0; src && i < 2; i++) {
		snprintf(buf, len, tries[i], src);
		strncat(buf, "/labels/combined_windows.json",
			len - strlen(buf) - 1);
		f = fopen(buf, "r");
		if (f) {
			fclose(f);
			snprintf(buf, len, tries[i], src);
			return buf;
		}
	}
	return NULL;
}

static void check_nab(void)
{
	static const char *files[] = {
		"realKnownCause/ec2_request_latency_system_failure.csv",
		"realTraffic/speed_7578.csv",
		"realAWSCloudwatch/elb_request_count_8c0756.csv",
	};
	char dir[1024], path[1100];
	const char *d = nab_dir(dir, sizeof(dir));
	char *json;

	if (!d) {
		SKIP("anomaly NAB smoke test",
		     "no NAB data (NAB_DATA unset, no shared/nab beside "
		     "SRCTREE=%s)",
		     getenv("SRCTREE") ? getenv("SRCTREE") : "(unset)");
		return;
	}
	snprintf(path, sizeof(path), "%s/labels/combined_windows.json", d);
	json = slurp(path);
	if (!json) {
		CHECK("anomaly NAB smoke test", 0, "cannot read %s", path);
		return;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_nab_file(d, json, files[i]);
	free(json);
}

int main(void)
{
	CHECK("anomaly: state at most 2048 bytes",
	      sizeof(struct anomaly) <= 2048, "sizeof(struct anomaly) = %zu",
	      sizeof(struct anomaly));
	check_quiet_before_change();
	check_change("step up by 8 sd", STEP_UP, 0);
	check_change("spike of 12 sd", SPIKE, 0);
	check_change("drop to zero", DROP_TO_ZERO, 0);
	check_change("step of 2 sd inside the range", STEP_INSIDE, 16);
	check_change("drift of 0.05 sd a point", DRIFT, 50);
	check_false_positive_rate();
	check_deterministic();
	check_nab();
	return 0;
}
