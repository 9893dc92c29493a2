// SPDX-License-Identifier: GPL-2.0
/*
 * stackbox's text into snapshots; see text_read.h and format_text.c,
 * whose layout this reads: an optional "*** mark" line per trigger
 * event, then per snapshot
 *
 *   === APPLET snapshot N[ (final)]: DATE TIME .. TIME (D s)
 *   (or boot+S.MMMs .. boot+S.MMMs: times since boot, perf script's)
 *   [describe line]
 *   [filters: ...]
 *   [unwind line]
 *   total: VALUE NAME[, VALUE NAME]... in N stacks
 *   lost: none | N COUNTER[, N COUNTER]... (those not zero; older
 *         versions: N user stacks, N kernel stacks, N events (...),
 *         N process events[, N STAT]...)
 *
 *   NAME... %PRIMARY  process (older versions: share)
 *   VALUE... SHARE%  COMM pid N[ nspid N][ tid N][ AUX][ cgroup PATH]
 *   <indent>user frames, root first
 *   <indent>--
 *   <indent>kernel frames, root first
 *   <indent>woken by COMM pid N:
 *   <indent+2>the waker's, the same way
 *
 * The indent is 14 columns a metric and 8 more.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lines.h"
#include "output.h"
#include "stackbox.h"
#include "text_read.h"

#define MAX_STATS (SB_STAT_MAX - SB_STAT_APPLET0)
/* a row's frames: user, kernel, the waker's user, the waker's kernel */
enum part { P_USER, P_KERNEL, P_OTHER_USER, P_OTHER_KERNEL, P_MAX };

struct text_read {
	void (*snapshot)(void *ctx, struct snapshot *s);
	void *ctx;
	struct lines lines;
	struct names names; /* every string a snapshot points to */
	/* where in a snapshot the last line was */
	enum { AT_NONE, AT_HEAD, AT_BODY } at;
	struct snapshot s;
	struct metric metrics[SB_MAX_VALUES];
	__u64 total[SB_MAX_VALUES];    /* as the header printed them */
	char shown[SB_MAX_VALUES][16]; /* the same, as text */
	const char *stat_names[MAX_STATS + 1];
	struct mark *marks; /* before the snapshot being read */
	size_t nmarks, marks_cap;
	struct row *rows;
	double *share;		/* each row's share, as printed */
	unsigned primary_named; /* the share's metric + 1; 0: not named */
	size_t nrows, rows_cap, share_cap;
	/* the row being read: its frames in the order printed */
	bool in_row, bad_row, cut_row;
	const char **frames;
	size_t nframes, frames_cap;
	unsigned nparts[P_MAX];
	enum part part;
	/* the applet's splits (offcpu's states): index 0 is none */
	const char **aux;
	size_t naux, aux_cap;
	/* what was read and left out */
	uint64_t snapshots, bad_lines, first_bad, bad_rows, hidden;
};

static const struct text_read *aux_of; /* for aux_name(), which has no ctx */

static const char *aux_name(__u32 aux)
{
	return aux_of && aux < aux_of->naux ? aux_of->aux[aux] : "";
}

static const char *keep(struct text_read *t, const char *s)
{
	return names_intern(&t->names, s, strlen(s));
}

/* What text does not print of a metric: that it is a level (held at
 * the snapshot, not counted over its interval) and what it measures.
 * Only its name tells, for stackbox's own applets' metrics. */
static void complete_metric(struct metric *m)
{
	static const struct {
		const char *name;
		bool level;
		enum metric_measure measure;
	} known[] = {
		{"samples", false, MEASURE_CPU_TIME},
		{"inuse_space", true, MEASURE_MEMORY},
		{"inuse_objects", true, MEASURE_OF_KIND},
		{"alloc_space", false, MEASURE_MEMORY},
		{"faulted_space", false, MEASURE_MEMORY},
		{"read ahead", true, MEASURE_PAGES},
		{"used", true, MEASURE_PAGES},
		{"unused", true, MEASURE_PAGES},
	};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(m->name, known[i].name)) {
			m->level = known[i].level;
			m->measure = known[i].measure;
		}
}

/* ---- values, as format_value() prints them ---- */
static const struct {
	const char *unit;
	enum metric_kind kind;
	double scale;
} units[] = {
	{"ns", METRIC_NS, 1},
	{"us", METRIC_NS, 1e3},
	{"ms", METRIC_NS, 1e6},
	{"s", METRIC_NS, 1e9},
	{"B", METRIC_BYTES, 1},
	{"KiB", METRIC_BYTES, 1024.0},
	{"MiB", METRIC_BYTES, 1048576.0},
	{"GiB", METRIC_BYTES, 1073741824.0},
	{"TiB", METRIC_BYTES, 1099511627776.0},
};

/* The token at *s (after blanks): its start; *s moves past it. */
static const char *word(const char **s, size_t *len)
{
	const char *w = *s + strspn(*s, " ");

	*len = strcspn(w, " ");
	*s = w + *len;
	return w;
}

static int unit_of(const char *w, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].unit) == len &&
		    !strncmp(w, units[i].unit, len))
			return i;
	return -1;
}

/* A number of kind k at *s, with its unit where k has one: as printed,
 * so "1.20 s" is 1200000000 ns. false when it is not one. */
static bool parse_value(const char **s, enum metric_kind k, __u64 *v)
{
	const char *w, *after;
	size_t len, ulen;
	char *end;
	double d;
	int u;

	w = word(s, &len);
	if (k == METRIC_RATIO) /* "41.7%" or "-": worked out again */
		return len && (w[len - 1] == '%' || (len == 1 && *w == '-'));
	if (!len || !isdigit((unsigned char)*w))
		return false;
	if (k == METRIC_COUNT) {
		*v = strtoull(w, &end, 10);
		return end == w + len;
	}
	d = strtod(w, &end);
	if (end != w + len)
		return false;
	after = *s;
	w = word(s, &ulen);
	u = unit_of(w, ulen);
	if (u < 0 || units[u].kind != k || !(d * units[u].scale < 1.8e19)) {
		*s = after;
		return false;
	}
	*v = llround(d * units[u].scale);
	return true;
}

/* "1.20 s blocked": the metric's kind from the unit, its name after. */
static bool parse_total(struct text_read *t, const char *item, size_t len)
{
	struct metric *m = &t->metrics[t->s.nmetrics];
	char *copy = strndup(item, len);
	const char *s = copy, *w, *u;
	size_t wlen, ulen;
	bool ok;

	if (!copy)
		error_exit("out of memory");
	w = word(&s, &wlen);
	u = word(&s, &ulen);
	*m = (struct metric){.kind = METRIC_COUNT};
	if (wlen && (w[wlen - 1] == '%' || (wlen == 1 && *w == '-')))
		m->kind = METRIC_RATIO;
	else if (unit_of(u, ulen) >= 0)
		m->kind = units[unit_of(u, ulen)].kind;
	s = copy;
	ok = parse_value(&s, m->kind, &t->total[t->s.nmetrics]) && *s;
	if (ok) {
		m->name = keep(t, s + 1);
		complete_metric(m);
		/* a ratio's percentage, to find what it is of */
		snprintf(t->shown[t->s.nmetrics], sizeof(t->shown[0]), "%.*s",
			 (int)wlen, w);
		t->s.nmetrics++;
	}
	free(copy);
	return ok;
}

/* A ratio's numerator and denominator are not printed: the first pair
 * of metrics whose totals give the percentage printed. */
static void find_ratio(struct text_read *t, unsigned r)
{
	const char *shown = t->shown[r];
	char buf[32];

	t->metrics[r].num = t->metrics[r].den = r; /* else "-" */
	for (unsigned n = 0; n < t->s.nmetrics; n++)
		for (unsigned d = 0; d < t->s.nmetrics; d++) {
			if (n == d || t->metrics[n].kind == METRIC_RATIO ||
			    t->metrics[d].kind == METRIC_RATIO)
				continue;
			if (!t->total[d])
				snprintf(buf, sizeof(buf), "-");
			else
				snprintf(buf, sizeof(buf), "%.1f%%",
					 100.0 * t->total[n] / t->total[d]);
			if (!strcmp(buf, shown)) {
				t->metrics[r].num = n;
				t->metrics[r].den = d;
				return;
			}
		}
}

/* "total: 1.20 s blocked, 5 calls in 6 stacks" */
static bool parse_totals(struct text_read *t, const char *line)
{
	const char *s = line + 7, *in = strstr(s, " in "), *comma, *next;

	while (in && strstr(in + 1, " in "))
		in = strstr(in + 1, " in ");
	if (!in)
		return false;
	for (; s < in && t->s.nmetrics < SB_MAX_VALUES; s = next) {
		comma = memmem(s, in - s, ", ", 2);
		next = comma ? comma + 2 : in;
		if (!parse_total(t, s, (comma ? comma : in) - s))
			return false;
	}
	for (unsigned m = 0; m < t->s.nmetrics; m++)
		if (t->metrics[m].kind == METRIC_RATIO)
			find_ratio(t, m);
	return t->s.nmetrics > 0;
}

/* The core's counter an item names, or NULL: the applet's own. */
static __u64 *lost_counter(struct snapshot *s, const char *name, size_t len)
{
	const struct {
		const char *name;
		__u64 *n;
	} fixed[] = {{LOST_USTACKS, &s->lost_ustacks},
		     {LOST_KSTACKS, &s->lost_kstacks},
		     {LOST_ROWS, &s->dropped_rows},
		     {LOST_EVENTS, &s->dropped_events}};

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (strlen(fixed[i].name) == len &&
		    !memcmp(fixed[i].name, name, len))
			return fixed[i].n;
	return NULL;
}

/* "lost: none", or "lost: N NAME[, N NAME]..." (older versions give
 * every counter, zeros too): an item starts at ", " and a digit. */
static bool parse_lost(struct text_read *t, const char *line)
{
	const char *s = line + 6, *next;
	unsigned nstats = 0;
	__u64 *fixed;
	char *end;

	for (; *s && strcmp(s, "none"); s = next) {
		__u64 n = strtoull(s, &end, 10);

		if (end == s || *end != ' ')
			return false;
		for (next = end; *next; next++)
			if (next[0] == ',' && next[1] == ' ' &&
			    isdigit((unsigned char)next[2]))
				break;
		if ((fixed = lost_counter(&t->s, end + 1, next - end - 1))) {
			*fixed = n;
		} else if (nstats < MAX_STATS) {
			t->stat_names[nstats] = names_intern(&t->names, end + 1,
							     next - end - 1);
			t->s.applet_stats[nstats++] = n;
		}
		next += *next ? 2 : 0;
	}
	t->stat_names[nstats] = NULL;
	t->s.applet_stat_names = nstats ? t->stat_names : NULL;
	return s != line + 6 || !strcmp(s, "none");
}

/* "2026-11-27 13:39:50.174" (date) or "13:39:50.478", local time; the
 * date of a time without one is that of *day (the next day's when the
 * time is earlier: a snapshot across midnight). */
static const char *parse_time(const char *s, struct tm *day,
			      struct timespec *ts)
{
	struct tm tm = *day;
	const char *end = strptime(
		s, day->tm_year ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
	unsigned ms;
	int n = 0;

	if (!end || sscanf(end, ".%3u%n", &ms, &n) != 1 || n != 4)
		return NULL;
	tm.tm_isdst = -1;
	ts->tv_sec = mktime(&tm);
	ts->tv_nsec = ms * 1000000L;
	if (!day->tm_year) {
		*day = tm;
	} else if (ts->tv_sec < mktime(day)) {
		tm.tm_mday++;
		tm.tm_isdst = -1;
		ts->tv_sec = mktime(&tm);
	}
	return end + 4;
}

/* "boot+12.345s": a time since boot (perf's clock), in ms as printed */
static const char *parse_boot_time(const char *s, struct timespec *ts)
{
	unsigned long long sec;
	unsigned ms;
	int n = 0;

	if (sscanf(s, "boot+%llu.%3us%n", &sec, &ms, &n) != 2 || !n ||
	    s[n - 5] != '.' || sec > 1ULL << 40)
		return NULL;
	ts->tv_sec = sec;
	ts->tv_nsec = ms * 1000000L;
	return s + n;
}

/* A snapshot's start or end: of its clock, which its start says. */
static const char *parse_snapshot_time(struct text_read *t, const char *s,
				       struct tm *day, struct timespec *ts)
{
	if (!strncmp(s, "boot+", 5)) {
		t->s.boot_clock = true;
		return parse_boot_time(s, ts);
	}
	return t->s.boot_clock ? NULL : parse_time(s, day, ts);
}

/* "*** mark N KIND at DATE TIME: CAUSE", before the snapshot it is in */
static bool parse_mark(struct text_read *t, const char *line)
{
	struct mark m = {0};
	struct tm day = {0};
	char kind[16];
	int n = 0;

	if (sscanf(line, "*** mark %lu %15s at %n", &m.n, kind, &n) != 2 ||
	    !n || !(line = parse_time(line + n, &day, &m.when)) ||
	    strncmp(line, ": ", 2))
		return false;
	for (unsigned k = 1; k < MARK_MAX; k++)
		if (mark_kind_name[k] && !strcmp(kind, mark_kind_name[k]))
			m.kind = k;
	m.cause = keep(t, line + 2);
	t->marks = grow_array(t->marks, &t->marks_cap, t->nmarks + 1,
			      sizeof(*t->marks));
	t->marks[t->nmarks++] = m;
	return true;
}

/* "=== APPLET snapshot N[ (final)]: DATE TIME .. TIME (D s)", or perf
 * script's "... boot+S.MMMs .. boot+S.MMMs (D s)" */
static bool parse_header(struct text_read *t, const char *line)
{
	struct tm day = {0};
	char applet[32];
	int n = 0;

	if (sscanf(line, "=== %31s snapshot %lu%n", applet, &t->s.seq, &n) != 2)
		return false;
	line += n;
	t->s.boot_clock = false; /* the start's form says */
	t->s.final = !strncmp(line, " (final)", 8);
	line += t->s.final ? 8 : 0;
	if (strncmp(line, ": ", 2) ||
	    !(line = parse_snapshot_time(t, line + 2, &day, &t->s.start)) ||
	    strncmp(line, " .. ", 4) ||
	    !parse_snapshot_time(t, line + 4, &day, &t->s.end))
		return false;
	t->s.applet = keep(t, applet);
	return true;
}

/* "VALUE... SHARE%  COMM pid N[ nspid N][ tid N][ AUX][ cgroup PATH]" */
static bool parse_row(struct text_read *t, const char *line, struct row *r,
		      double *share)
{
	const char *s = line, *w, *pid, *cg;
	size_t len;
	char *end;
	int n = 0;

	memset(r, 0, sizeof(*r));
	for (unsigned m = 0; m < t->s.nmetrics; m++)
		if (!parse_value(&s, t->metrics[m].kind, &r->v[m]))
			return false;
	w = word(&s, &len);
	if (!len || w[len - 1] != '%' || sscanf(w, "%lf%%", share) != 1 ||
	    strncmp(s, "  ", 2))
		return false;
	s += 2;
	/* the comm may hold spaces: it ends at the first " pid N" */
	for (pid = s + 1; (pid = strstr(pid, "pid ")); pid++)
		if (pid[-1] == ' ' && isdigit((unsigned char)pid[4]))
			break;
	if (!pid)
		return false;
	len = pid - 1 - s;
	memcpy(r->key.comm, s, len < SB_COMM_LEN - 1 ? len : SB_COMM_LEN - 1);
	r->key.tgid = r->key.pid = strtoul(pid + 4, &end, 10);
	s = end;
	if (sscanf(s, " nspid %u%n", &r->nspid, &n) == 1)
		s += n;
	n = 0;
	if (sscanf(s, " tid %u%n", &r->key.pid, &n) == 1) {
		s += n;
		t->s.per_thread = true;
	}
	if (*s && *s != ' ')
		return false;
	cg = !strncmp(s, " cgroup ", 8) ? s : strstr(s, " cgroup ");
	if (cg)
		r->cgroup = keep(t, cg + 8);
	len = (cg ? cg : s + strlen(s)) - s;
	if (len > 1) {
		const char *aux = names_intern(&t->names, s + 1, len - 1);

		for (r->key.aux = 1; r->key.aux < t->naux; r->key.aux++)
			if (t->aux[r->key.aux] == aux)
				break;
		if (r->key.aux == t->naux) {
			t->aux = grow_array(t->aux, &t->aux_cap, t->naux + 1,
					    sizeof(*t->aux));
			t->aux[t->naux++] = aux;
		}
	}
	return true;
}

/* ---- rows and snapshots ---- */
static void end_row(struct text_read *t)
{
	struct row *r = &t->rows[t->nrows];
	const char **f;

	if (!t->in_row)
		return;
	t->in_row = false;
	if (t->bad_row) {
		t->bad_rows++;
		return;
	}
	/* one block for the four parts, freed with ustack */
	f = xmalloc((t->nframes + 1) * sizeof(*f));
	memcpy(f, t->frames, t->nframes * sizeof(*f));
	r->ustack = f;
	r->nu = t->nparts[P_USER];
	r->kstack = f += r->nu;
	r->nk = t->nparts[P_KERNEL];
	r->other_ustack = f += r->nk;
	r->other_nu = t->nparts[P_OTHER_USER];
	r->other_kstack = f + r->other_nu;
	r->other_nk = t->nparts[P_OTHER_KERNEL];
	t->nrows++;
}

/* The metric the share column is of: the one its name says, else
 * (older versions' "share") the one it fits best. */
static unsigned primary_of(const struct text_read *t)
{
	double best = INFINITY;
	unsigned primary = 0;

	if (t->primary_named)
		return t->primary_named - 1;

	for (unsigned m = 0; m < t->s.nmetrics; m++) {
		double err = 0;

		if (t->metrics[m].kind == METRIC_RATIO || !t->total[m])
			continue;
		for (size_t i = 0; i < t->nrows; i++)
			err += fabs(t->share[i] -
				    100.0 * t->rows[i].v[m] / t->total[m]);
		if (err < best) {
			best = err;
			primary = m;
		}
	}
	return primary;
}

static void emit(struct text_read *t)
{
	struct snapshot *s = &t->s;

	end_row(t);
	if (t->at == AT_BODY) {
		s->metrics = t->metrics;
		s->primary = primary_of(t);
		s->aux_name = t->naux > 1 ? aux_name : NULL;
		s->rows = t->rows;
		s->nrows = t->nrows;
		s->resolved = true;
		s->marks = t->marks;
		s->nmarks = t->nmarks;
		/* output_snapshot() sums the rows into the totals */
		memset(s->total, 0, sizeof(s->total));
		aux_of = t;
		t->snapshots++;
		t->snapshot(t->ctx, s);
		t->nmarks = 0;
	}
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i].ustack);
	t->nrows = 0;
	t->primary_named = 0;
	memset(s, 0, sizeof(*s));
	t->at = AT_NONE;
}

static void bad_line(struct text_read *t)
{
	if (!t->bad_lines++)
		t->first_bad = t->lines.lineno;
	t->bad_row |= t->in_row;
}

/* "woken by COMM pid N:": the waker's part of the row follows. */
static bool waker_line(struct text_read *t, const char *s)
{
	const char *colon = strrchr(s, ':'), *pid;
	struct row *r = &t->rows[t->nrows];
	unsigned long tgid;
	size_t len;
	int n = 0;

	if (strncmp(s, "woken by ", 9) || !colon || colon[1] ||
	    !(pid = strstr(s + 8, " pid ")))
		return false;
	while (strstr(pid + 1, " pid "))
		pid = strstr(pid + 1, " pid ");
	if (sscanf(pid, " pid %lu%n", &tgid, &n) != 1 || pid + n != colon)
		return false;
	len = pid > s + 9 ? (size_t)(pid - s - 9) : 0;
	memcpy(r->key.other_comm, s + 9,
	       len < SB_COMM_LEN - 1 ? len : SB_COMM_LEN - 1);
	r->key.other_tgid = tgid;
	t->part = P_OTHER_USER;
	return true;
}

/* A line indented as a frame of the row being read. */
static bool frame_line(struct text_read *t, const char *line)
{
	unsigned indent = 14 * t->s.nmetrics + 8, at = strspn(line, " ");
	bool other = t->part >= P_OTHER_USER;
	const char *s = line + at;

	if (!t->in_row || !*s)
		return false;
	if (at == indent && !other && waker_line(t, s))
		return true;
	if (at != indent + 2 * other)
		return false;
	if (!strcmp(s, "--")) {
		t->part |= 1; /* the kernel's, after the user's */
		return true;
	}
	t->frames = grow_array(t->frames, &t->frames_cap, t->nframes + 1,
			       sizeof(*t->frames));
	t->frames[t->nframes++] = keep(t, s);
	t->nparts[t->part]++;
	return true;
}

/* The columns' names, "...  %unused  process": which metric the share
 * column is of (older versions: "...  share  process"). */
static bool columns_line(struct text_read *t, const char *line, size_t len)
{
	static const char tail[] = "  process";
	size_t tl = sizeof(tail) - 1;
	const char *pct = memrchr(line, '%', len);

	if (len <= tl || strcmp(line + len - tl, tail))
		return false;
	if (!pct)
		return len > 14 && !strcmp(line + len - 14, "share  process");
	for (unsigned m = 0; m < t->s.nmetrics; m++)
		if (strlen(t->metrics[m].name) ==
			    (size_t)(line + len - tl - pct - 1) &&
		    !strncmp(pct + 1, t->metrics[m].name,
			     line + len - tl - pct - 1))
			t->primary_named = m + 1;
	return true;
}

static void body_line(struct text_read *t, const char *line)
{
	size_t len = strlen(line);
	unsigned long long n;
	double share;

	if (!len) {
		end_row(t);
		return;
	}
	if (frame_line(t, line))
		return;
	if (t->in_row && t->bad_row && *line == ' ' &&
	    strspn(line, " ") >= 14 * t->s.nmetrics + 8)
		return; /* a frame of a row left out */
	t->rows = grow_array(t->rows, &t->rows_cap, t->nrows + 2,
			     sizeof(*t->rows));
	end_row(t);
	if (parse_row(t, line, &t->rows[t->nrows], &share)) {
		t->share = grow_array(t->share, &t->share_cap, t->nrows + 1,
				      sizeof(*t->share));
		t->share[t->nrows] = share;
		t->in_row = true;
		t->bad_row = false;
		t->nframes = 0;
		memset(t->nparts, 0, sizeof(t->nparts));
		t->part = P_USER;
		return;
	}
	if (columns_line(t, line, len))
		return;
	if (sscanf(line, "... %llu more stacks", &n) == 1) {
		t->hidden += n; /* --top */
		return;
	}
	bad_line(t);
}

/* The last "; " of line (the unwinder's words may hold some), or NULL. */
static const char *last_semi(const char *line)
{
	const char *semi = NULL;

	for (const char *p = line; (p = strstr(p, "; ")); p++)
		semi = p;
	return semi;
}

static void head_line(struct text_read *t, const char *line)
{
	static const char walked[] = " stacks walked by frame pointer "
				     "before their process's mappings were "
				     "read";
	size_t len = strlen(line), wl = sizeof(walked) - 1;
	const char *semi;

	if (!strncmp(line, "total: ", 7)) {
		if (!parse_totals(t, line))
			bad_line(t);
	} else if (!strncmp(line, "lost: ", 6)) {
		if (!t->s.nmetrics || !parse_lost(t, line))
			bad_line(t);
		else
			t->at = AT_BODY;
	} else if (len > wl && !strcmp(line + len - wl, walked) &&
		   (semi = last_semi(line))) {
		t->s.unwind = names_intern(&t->names, line, semi - line);
		t->s.unwind_unknown = strtoull(semi + 2, NULL, 10);
	} else if (!t->s.describe && !t->s.nmetrics) {
		t->s.describe = keep(t, line);
	} else if (!strncmp(line, "filters: ", 9) && !t->s.nmetrics &&
		   !strchr(t->s.describe, '\n')) {
		/* the applet's line has a second: the run's filters */
		char *both = xasprintf("%s\n%s", t->s.describe, line);

		t->s.describe = keep(t, both);
		free(both);
	} else {
		bad_line(t);
	}
}

/* offcpu's "sampled by blocked time, -s 10ms:": its sampling period */
static void set_time_period(struct snapshot *s)
{
	const char *at = s->describe ? strstr(s->describe, " time, -s ") : NULL;
	char period[32];
	uint64_t ns;

	if (at && sscanf(at, " time, -s %31[^:]:", period) == 1 &&
	    !parse_duration(period, &ns))
		s->period_ns = ns;
}

/* oncpu's "at 199 Hz": what one sample stands for, as it works it out */
static void set_period(struct snapshot *s)
{
	const char *at = s->describe ? strstr(s->describe, " at ") : NULL;
	unsigned long long hz;
	char unit[4];

	for (; at; at = strstr(at + 1, " at "))
		if (sscanf(at, " at %llu %3s", &hz, unit) == 2 && hz &&
		    !strcmp(unit, "Hz")) {
			s->period_ns = NS_PER_SEC / hz;
			return;
		}
	set_time_period(s);
}

static void parse_line(void *ctx, char *line)
{
	struct text_read *t = ctx;

	if (!line) {
		bad_line(t);
	} else if (!strncmp(line, "*** mark ", 9)) {
		if (t->at != AT_NONE)
			emit(t);
		if (!parse_mark(t, line))
			bad_line(t);
	} else if (!strncmp(line, "=== ", 4)) {
		if (t->at != AT_NONE)
			emit(t);
		if (parse_header(t, line))
			t->at = AT_HEAD;
		else
			bad_line(t);
	} else if (t->at == AT_HEAD) {
		head_line(t, line);
		if (t->at == AT_BODY)
			set_period(&t->s);
	} else if (t->at == AT_BODY) {
		body_line(t, line);
	} else if (*line) {
		bad_line(t);
	}
}

bool text_read_detect(const void *data, size_t len)
{
	const char *s = data;

	if (memchr(data, 0, len) || !memchr(data, '\n', len))
		return false;
	return (len > 20 && !strncmp(s, "=== ", 4) &&
		memmem(s, strcspn(s, "\n"), " snapshot ", 10)) ||
	       (len > 9 && !strncmp(s, "*** mark ", 9));
}

struct text_read *text_read_new(void (*snapshot)(void *ctx, struct snapshot *s),
				void *ctx)
{
	struct text_read *t = xzalloc(sizeof(*t));

	t->snapshot = snapshot;
	t->ctx = ctx;
	t->aux = grow_array(NULL, &t->aux_cap, 1, sizeof(*t->aux));
	t->aux[t->naux++] = "";
	return t;
}

void text_read_feed(struct text_read *t, const void *data, size_t len)
{
	lines_feed(&t->lines, data, len, parse_line, t);
}

uint64_t text_read_end(struct text_read *t, const char *name)
{
	/* a last line without its newline, or a row without the blank line
	 * that ends each snapshot: the row it is in may be cut */
	bool cut = lines_end(&t->lines) || t->in_row;

	if (cut && t->in_row)
		t->bad_row = t->cut_row = true;
	if (t->at != AT_NONE)
		emit(t);
	if (!name)
		return t->snapshots;
	if (cut)
		error_msg("%s: cut short in line %llu: its row is left out",
			  name, (unsigned long long)t->lines.lineno);
	if (t->bad_lines)
		error_msg("%s: %llu lines are not stackbox text output (the "
			  "first: line %llu): %llu rows left out",
			  name, (unsigned long long)t->bad_lines,
			  (unsigned long long)t->first_bad,
			  (unsigned long long)(t->bad_rows - t->cut_row));
	if (t->hidden)
		error_msg("%s: %llu stacks were not printed (--top): their "
			  "values are not in the totals",
			  name, (unsigned long long)t->hidden);
	if (!t->snapshots)
		error_msg("%s: no snapshot of stackbox text output", name);
	return t->snapshots;
}

void text_read_free(struct text_read *t)
{
	if (!t)
		return;
	if (aux_of == t)
		aux_of = NULL;
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i].ustack);
	names_free(&t->names);
	lines_free(&t->lines);
	free(t->marks);
	free(t->rows);
	free(t->share);
	free(t->frames);
	free(t->aux);
	free(t);
}
