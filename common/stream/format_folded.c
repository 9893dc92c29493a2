// SPDX-License-Identifier: GPL-2.0
/*
 * Folded: "comm;user root..leaf;-;kernel root..leaf VALUE", one line per
 * row, integer values: what flamegraph.pl, inferno and speedscope read.
 * With a waker: ";--;waker kernel leaf..root;-;waker user leaf..root;
 * waker comm" follows the blocked stack. Sampled time: a "# " line
 * says its values are estimates.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "stackbox.h"

/* A ';' inside a frame would split it in two for every reader. Spans
 * between them in one write: a character at a time was a fifth of
 * report -f folded. */
static void put_frame(FILE *f, const char *s)
{
	const char *semi;

	fputc(';', f);
	for (; (semi = strchr(s, ';')); s = semi + 1) {
		fwrite(s, 1, semi - s, f);
		fputc(':', f);
	}
	fputs(s, f);
}

static char *fold(const struct snapshot *s, const struct row *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		error_exit("out of memory");
	fputs(r->key.comm, f);
	/* the split (offcpu's state) stands at the root: one tree each */
	if (s->aux_name && *s->aux_name(r->key.aux))
		fprintf(f, ";[%s]", s->aux_name(r->key.aux));
	for (unsigned j = 0; j < r->nu; j++)
		put_frame(f, r->ustack[j]);
	if (r->nu && r->nk)
		fputs(";-", f);
	for (unsigned j = 0; j < r->nk; j++)
		put_frame(f, r->kstack[j]);
	/* the waker above the blocked stack, leaf first, its comm on top,
	 * as offwaketime draws it */
	if (r->other_nu || r->other_nk) {
		fputs(";--", f);
		for (unsigned j = r->other_nk; j-- > 0;)
			put_frame(f, r->other_kstack[j]);
		if (r->other_nu && r->other_nk)
			fputs(";-", f);
		for (unsigned j = r->other_nu; j-- > 0;)
			put_frame(f, r->other_ustack[j]);
		put_frame(f, r->key.other_comm);
	}
	fclose(f);
	/* no comm (report's folded input had a longer first frame): the
	 * line starts at the first frame, as it was read */
	if (!*r->key.comm && *buf == ';')
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

struct line {
	char *stack;
	__u64 value;
};

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->stack,
		      ((const struct line *)b)->stack);
}

/* Time sampled with a period (offcpu -s) is an estimate: said in a
 * comment line, which flame graph tools skip (its last word is no
 * count) and report reads as one. Sampled counts (oncpu's) are not
 * times: flame graph tools take them as they are. */
static void say_estimates(FILE *f, const struct snapshot *s)
{
	const struct metric *m = &s->metrics[s->primary];
	char period[32];

	if (!s->period_ns || m->kind != METRIC_NS)
		return;
	fprintf(f,
		"# values are estimates: %s time sampled with a period of %s\n",
		m->name, format_duration(period, sizeof(period), s->period_ns));
}

/* One value per line: the primary metric. Rows that differ only in
 * what folded does not show (thread, cgroup) become one line, so every
 * reader sees one line per stack. Lines with no whole unit (under
 * 0.5 us) are left out. */
void format_folded(FILE *f, const struct snapshot *s)
{
	struct line *l = xmalloc((s->nrows + 1) * sizeof(*l));
	enum metric_kind kind = s->metrics[s->primary].kind;
	size_t n = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		if (!s->rows[i].v[s->primary])
			continue;
		l[n].stack = fold(s, &s->rows[i]);
		l[n++].value = s->rows[i].v[s->primary];
	}
	qsort(l, n, sizeof(*l), by_stack);
	if (n)
		say_estimates(f, s);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && !strcmp(l[i].stack, l[i + 1].stack)) {
			l[i + 1].value += l[i].value;
		} else if (kind != METRIC_NS || l[i].value >= 500) {
			/* times are integer microseconds, as flame graph
			 * tools expect of off-CPU profiles */
			fprintf(f, "%s %" PRIu64 "\n", l[i].stack,
				(uint64_t)(kind == METRIC_NS
						   ? (l[i].value + 500) / 1000
						   : l[i].value));
		}
		free(l[i].stack);
	}
	free(l);
}
