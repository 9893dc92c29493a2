// SPDX-License-Identifier: GPL-2.0
/* Folded stacks into one snapshot; see folded_read.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "folded_read.h"
#include "lines.h"
#include "output.h"
#include "stackbox.h"

struct folded_read {
	void (*snapshot)(void *ctx, struct snapshot *s);
	void *ctx;
	struct lines lines;
	struct names names;
	struct row *rows;
	size_t nrows, rows_cap;
	const char **frames; /* the line being read, root first */
	size_t frames_cap;
	uint64_t bad_lines, first_bad, cut;
};

static const struct metric folded_metric = {
	.name = "samples",
	.kind = METRIC_COUNT,
	/* flame graph tools draw folded stacks warm: as CPU samples */
	.measure = MEASURE_CPU_TIME,
};

/* "STACK COUNT": the length of STACK, and the count; 0 when not so. */
static size_t split_count(const char *s, uint64_t *count)
{
	const char *sp = strrchr(s, ' ');
	char *end;

	if (!sp || sp == s || !isdigit((unsigned char)sp[1]) ||
	    isspace((unsigned char)*s))
		return 0;
	*count = strtoull(sp + 1, &end, 10);
	return *end ? 0 : sp - s;
}

/* The first whole line is "STACK COUNT", and most of the next 63 are:
 * a damaged line further on is counted, not a reason to read it as
 * something else. "# " comment lines (stackbox's own, which say values
 * are estimates) are passed over. */
bool folded_read_detect(const void *data, size_t len)
{
	const char *s = data, *nl;
	unsigned whole = 0, good = 0;
	uint64_t count;

	if (memchr(data, 0, len))
		return false;
	for (; (nl = memchr(s, '\n', len - (s - (const char *)data))) &&
	       whole < 64;
	     s = nl + 1) {
		char *line = strndup(s, nl - s);
		bool ok = line && split_count(line, &count);

		if (line && *line == '#') {
			free(line);
			continue;
		}
		free(line);
		if (!ok && !whole)
			return false;
		good += ok;
		whole++;
	}
	return whole && good * 4 >= whole * 3;
}

struct folded_read *
folded_read_new(void (*snapshot)(void *ctx, struct snapshot *s), void *ctx)
{
	struct folded_read *f = xzalloc(sizeof(*f));

	f->snapshot = snapshot;
	f->ctx = ctx;
	return f;
}

/* The frames of s[0..len), root first, into f->frames; their number. */
static size_t split_frames(struct folded_read *f, const char *s, size_t len)
{
	size_t n = 0;
	const char *e = s + len, *semi;

	for (;; s = semi + 1) {
		semi = memchr(s, ';', e - s);
		f->frames = grow_array(f->frames, &f->frames_cap, n + 1,
				       sizeof(*f->frames));
		f->frames[n++] =
			names_intern(&f->names, s, (semi ? semi : e) - s);
		if (!semi)
			return n;
	}
}

/* A row of the frames: the comm first when it fits one, user space's
 * frames up to the first "-" amid them, the kernel's after. */
static void add_row(struct folded_read *f, size_t n, uint64_t count)
{
	const char **fr = f->frames;
	size_t at = strlen(fr[0]) < SB_COMM_LEN, nu = n - at, nk = 0;
	struct row *r;

	for (size_t i = at + 1; i + 1 < n; i++)
		if (!strcmp(fr[i], "-")) {
			nu = i - at;
			nk = n - i - 1;
			break;
		}
	if (nu > SB_MAX_DEPTH || nk > SB_MAX_DEPTH)
		f->cut++;
	f->rows = grow_array(f->rows, &f->rows_cap, f->nrows + 1,
			     sizeof(*f->rows));
	r = &f->rows[f->nrows++];
	*r = (struct row){.nu = nu > SB_MAX_DEPTH ? SB_MAX_DEPTH : nu,
			  .nk = nk > SB_MAX_DEPTH ? SB_MAX_DEPTH : nk};
	if (at)
		strcpy(r->key.comm, fr[0]);
	r->ustack = xmalloc((n + 1) * sizeof(*r->ustack));
	memcpy(r->ustack, fr + at, r->nu * sizeof(*fr));
	r->kstack = r->ustack + r->nu;
	/* the kernel's side keeps its leaf end, as collectors do */
	memcpy(r->kstack, fr + n - r->nk, r->nk * sizeof(*fr));
	r->v[0] = count;
}

static void parse_line(void *ctx, char *line)
{
	struct folded_read *f = ctx;
	uint64_t count;
	size_t len = line ? split_count(line, &count) : 0;

	/* "# ...": a comment (stackbox's own says values are estimates) */
	if (line && (!*line || *line == '#'))
		return;
	if (!len) {
		if (!f->bad_lines++)
			f->first_bad = f->lines.lineno;
		return;
	}
	add_row(f, split_frames(f, line, len), count);
}

void folded_read_feed(struct folded_read *f, const void *data, size_t len)
{
	lines_feed(&f->lines, data, len, parse_line, f);
}

static int by_value(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->v[0] < y->v[0] ? 1 : x->v[0] > y->v[0] ? -1 : 0;
}

static void emit(struct folded_read *f)
{
	struct snapshot s = {
		.applet = "folded",
		.seq = 1,
		.final = true,
		.metrics = &folded_metric,
		.nmetrics = 1,
		.describe = "folded stacks; value: samples",
		.rows = f->rows,
		.nrows = f->nrows,
		.resolved = true,
		/* no time: said as boot+0, never as a date in 1970 */
		.boot_clock = true,
	};

	/* rows are biggest first in every snapshot */
	qsort(f->rows, f->nrows, sizeof(*f->rows), by_value);
	f->snapshot(f->ctx, &s);
}

uint64_t folded_read_end(struct folded_read *f, const char *name)
{
	/* a last line without its newline is read: folded files are often
	 * written without one */
	if (f->lines.len)
		lines_feed(&f->lines, "\n", 1, parse_line, f);
	lines_end(&f->lines);
	if (f->nrows)
		emit(f);
	if (f->bad_lines)
		error_msg("%s: %llu lines are not folded stacks (\"STACK "
			  "COUNT\"; the first: line %llu): left out",
			  name, (unsigned long long)f->bad_lines,
			  (unsigned long long)f->first_bad);
	if (f->cut)
		error_msg("%s: %llu stacks were deeper than %d frames a side: "
			  "cut there",
			  name, (unsigned long long)f->cut, SB_MAX_DEPTH);
	if (!f->nrows)
		error_msg("%s: no folded stack", name);
	return f->nrows;
}

void folded_read_free(struct folded_read *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nrows; i++)
		free(f->rows[i].ustack);
	free(f->rows);
	free(f->frames);
	names_free(&f->names);
	lines_free(&f->lines);
	free(f);
}
