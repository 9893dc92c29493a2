// SPDX-License-Identifier: GPL-2.0
/* Text: a header per snapshot, then rows biggest first, frames root to leaf. */
#include <inttypes.h>
#include <string.h>

#include "output.h"
#include "stackbox.h"

const char *format_value(char *buf, size_t len, enum metric_kind kind, __u64 v)
{
	static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double d = v;
	unsigned i = 0;

	switch (kind) {
	case METRIC_NS:
		if (v < 1000)
			snprintf(buf, len, "%" PRIu64 " ns", (uint64_t)v);
		else if (v < 1000000)
			snprintf(buf, len, "%.1f us", d / 1e3);
		else if (v < NS_PER_SEC)
			snprintf(buf, len, "%.1f ms", d / 1e6);
		else
			snprintf(buf, len, "%.2f s", d / 1e9);
		break;
	case METRIC_BYTES:
		while (d >= 1024 && i < ARRAY_SIZE(bytes) - 1) {
			d /= 1024;
			i++;
		}
		snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", d, bytes[i]);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, (uint64_t)v);
	}
	return buf;
}

const char *format_metric(char *buf, size_t len, const struct metric *m,
			  const __u64 *v, unsigned index)
{
	if (m->kind != METRIC_RATIO)
		return format_value(buf, len, m->kind, v[index]);
	if (!v[m->den])
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * v[m->num] / v[m->den]);
	return buf;
}

static void print_time(FILE *f, const struct timespec *ts, bool date)
{
	struct tm tm;
	char buf[32];

	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, sizeof(buf), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S",
		 &tm);
	fprintf(f, "%s.%03ld", buf, ts->tv_nsec / 1000000);
}

/* A snapshot's start or end: a date and time, or the time since boot of
 * a clock that counts from there (perf's), with its unit. */
static void print_snapshot_time(FILE *f, const struct snapshot *s,
				const struct timespec *ts, bool date)
{
	if (s->boot_clock)
		fprintf(f, "boot+%lld.%03lds", (long long)ts->tv_sec,
			ts->tv_nsec / 1000000);
	else
		print_time(f, ts, date);
}

/* A trigger's firing or clearing: one line each, before the snapshot
 * written after it. */
static void print_marks(FILE *f, const struct snapshot *s)
{
	for (unsigned i = 0; i < s->nmarks; i++) {
		const struct mark *m = &s->marks[i];

		fprintf(f, "*** mark %lu %s at ", m->n,
			m->kind < MARK_MAX ? mark_kind_name[m->kind] : "?");
		print_time(f, &m->when, true);
		fprintf(f, ": %s\n", m->cause);
	}
}

static void lost_item(FILE *f, unsigned *shown, __u64 n, const char *what)
{
	if (n)
		fprintf(f, "%s %llu %s", (*shown)++ ? "," : "",
			(unsigned long long)n, what);
}

/* Only the counters that are not zero: eleven zeros on every snapshot
 * hid the one that said the profile is short. */
static void print_lost(FILE *f, const struct snapshot *s)
{
	unsigned shown = 0;

	fputs("lost:", f);
	lost_item(f, &shown, s->lost_ustacks, LOST_USTACKS);
	lost_item(f, &shown, s->lost_kstacks, LOST_KSTACKS);
	lost_item(f, &shown, s->dropped_rows, LOST_ROWS);
	lost_item(f, &shown, s->dropped_events, LOST_EVENTS);
	for (unsigned i = 0; s->applet_stat_names && s->applet_stat_names[i];
	     i++)
		lost_item(f, &shown, s->applet_stats[i],
			  s->applet_stat_names[i]);
	fputs(shown ? "\n" : " none\n", f);
}

static void print_header(FILE *f, const struct snapshot *s)
{
	double secs = (s->end.tv_sec - s->start.tv_sec) +
		      (s->end.tv_nsec - s->start.tv_nsec) / 1e9;
	char buf[32];

	fprintf(f, "=== %s snapshot %lu%s: ", s->applet, s->seq,
		s->final ? " (final)" : "");
	print_snapshot_time(f, s, &s->start, true);
	fputs(" .. ", f);
	print_snapshot_time(f, s, &s->end, false);
	fprintf(f, " (%.3f s)\n", secs);
	if (s->describe && *s->describe)
		fprintf(f, "%s\n", s->describe);
	if (s->unwind)
		fprintf(f,
			"%s; %llu stacks walked by frame pointer before "
			"their process's mappings were read\n",
			s->unwind, (unsigned long long)s->unwind_unknown);
	fputs("total:", f);
	for (unsigned m = 0; m < s->nmetrics; m++)
		fprintf(f, "%s %s %s", m ? "," : "",
			format_metric(buf, sizeof(buf), &s->metrics[m],
				      s->total, m),
			s->metrics[m].name);
	fprintf(f, " in %zu stacks\n", s->nrows);
	print_lost(f, s);
}

/* indent spaces, s and a newline: printf's padding of each frame was
 * a tenth of report -f text */
static void put_line(FILE *f, unsigned indent, const char *s)
{
	static const char spaces[] = "                                ";

	for (unsigned n; indent; indent -= n) {
		n = indent < sizeof(spaces) - 1 ? indent : sizeof(spaces) - 1;
		fwrite(spaces, 1, n, f);
	}
	fputs(s, f);
	fputc('\n', f);
}

static void print_row(FILE *f, const struct snapshot *s, const struct row *r)
{
	const unsigned indent = 14 * s->nmetrics + 8;
	char buf[32];

	for (unsigned m = 0; m < s->nmetrics; m++)
		fprintf(f, "%13s ",
			format_metric(buf, sizeof(buf), &s->metrics[m], r->v,
				      m));
	fprintf(f, "%5.1f%%  %s pid %u",
		s->total[s->primary]
			? 100.0 * r->v[s->primary] / s->total[s->primary]
			: 0.0,
		r->key.comm, r->key.tgid);
	if (r->nspid) /* in a container: the pid its own logs use */
		fprintf(f, " nspid %u", r->nspid);
	if (s->per_thread)
		fprintf(f, " tid %u", r->key.pid);
	if (s->aux_name && *s->aux_name(r->key.aux))
		fprintf(f, " %s", s->aux_name(r->key.aux));
	if (r->cgroup)
		fprintf(f, " cgroup %s", r->cgroup);
	fputc('\n', f);
	for (unsigned i = 0; i < r->nu; i++)
		put_line(f, indent, r->ustack[i]);
	if (r->nu && r->nk)
		put_line(f, indent, "--");
	for (unsigned i = 0; i < r->nk; i++)
		put_line(f, indent, r->kstack[i]);
	if (!r->other_nu && !r->other_nk)
		return;
	fprintf(f, "%*swoken by %s pid %u:\n", indent, "", r->key.other_comm,
		r->key.other_tgid);
	for (unsigned i = 0; i < r->other_nu; i++)
		put_line(f, indent + 2, r->other_ustack[i]);
	if (r->other_nu && r->other_nk)
		put_line(f, indent + 2, "--");
	for (unsigned i = 0; i < r->other_nk; i++)
		put_line(f, indent + 2, r->other_kstack[i]);
}

/*
 * The columns' names. The share column is each row's share of the
 * metric the rows are sorted by, so it sums to 100 % down the rows; its
 * name says which ("%unused"): a bare "share" read as the share of the
 * first column, or of everything. Right-aligned over the share, into
 * the blanks of the column before when it is wider.
 */
static void print_columns(FILE *f, const struct snapshot *s)
{
	char line[SB_MAX_VALUES * 14 + 8], share[64];
	size_t n = 0, end, len;

	for (unsigned m = 0; m < s->nmetrics && n < sizeof(line); m++)
		n += snprintf(line + n, sizeof(line) - n, "%13s ",
			      s->metrics[m].name);
	n = n < sizeof(line) ? n : sizeof(line) - 1;
	end = n + 6; /* the share column's right edge */
	len = snprintf(share, sizeof(share), "%%%s",
		       s->metrics[s->primary].name);
	while (n && line[n - 1] == ' ')
		n--;
	fprintf(f, "\n%.*s%*s%s  process\n", (int)n, line,
		(int)(n + len + 1 <= end ? end - n - len : 1), "", share);
}

void format_text(FILE *f, const struct snapshot *s, long long top)
{
	size_t shown = s->nrows;
	__u64 rest = 0;
	char buf[32];

	print_marks(f, s);
	print_header(f, s);
	if (top > 0 && (size_t)top < shown)
		shown = top;
	if (s->nrows)
		print_columns(f, s);
	for (size_t i = 0; i < shown; i++)
		print_row(f, s, &s->rows[i]);
	for (size_t i = shown; i < s->nrows; i++)
		rest += s->rows[i].v[s->primary];
	if (shown < s->nrows)
		fprintf(f,
			"... %zu more stacks (%s %s) not shown (--top %lld)\n",
			s->nrows - shown,
			format_value(buf, sizeof(buf),
				     s->metrics[s->primary].kind, rest),
			s->metrics[s->primary].name, top);
	fputc('\n', f);
}
