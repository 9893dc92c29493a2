// SPDX-License-Identifier: GPL-2.0
/*
 * Every row's stack is written into one growing buffer (offsets while
 * it grows, pointers once it is done), sorted, and equal neighbours
 * added: no stream or allocation per row, which were most of folding.
 */
#include <stdlib.h>
#include <string.h>

#include "folded_rows.h"
#include "stackbox.h"

struct text {
	char *p;
	size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	t->p = grow_array(t->p, &t->cap, t->len + n + 1, 1);
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

/* ";frame", a ';' inside it made ':' (it would split the frame in two
 * for every reader) */
static void put_frame(struct text *t, const char *s)
{
	const char *semi;

	put(t, ";", 1);
	for (; (semi = strchr(s, ';')); s = semi + 1) {
		put(t, s, semi - s);
		put(t, ":", 1);
	}
	put(t, s, strlen(s));
}

/* One row's stack, NUL-terminated, from t->len on. */
static void fold(struct text *t, const struct snapshot *s, const struct row *r)
{
	size_t at = t->len;

	put(t, r->key.comm, strlen(r->key.comm));
	/* the split (offcpu's state) stands at the root: one tree each */
	if (s->aux_name && *s->aux_name(r->key.aux)) {
		put(t, ";[", 2);
		put(t, s->aux_name(r->key.aux),
		    strlen(s->aux_name(r->key.aux)));
		put(t, "]", 1);
	}
	for (unsigned j = 0; j < r->nu; j++)
		put_frame(t, r->ustack[j]);
	if (r->nu && r->nk)
		put(t, ";-", 2);
	for (unsigned j = 0; j < r->nk; j++)
		put_frame(t, r->kstack[j]);
	/* the waker above the blocked stack, leaf first, its comm on top,
	 * as offwaketime draws it */
	if (r->other_nu || r->other_nk) {
		put(t, ";--", 3);
		for (unsigned j = r->other_nk; j-- > 0;)
			put_frame(t, r->other_kstack[j]);
		if (r->other_nu && r->other_nk)
			put(t, ";-", 2);
		for (unsigned j = r->other_nu; j-- > 0;)
			put_frame(t, r->other_ustack[j]);
		put_frame(t, r->key.other_comm);
	}
	/* no comm (report's folded input had a longer first frame): the
	 * stack starts at the first frame, as it was read */
	if (!*r->key.comm && t->len > at && t->p[at] == ';') {
		memmove(t->p + at, t->p + at + 1, t->len - at - 1);
		t->len--;
	}
	put(t, "", 0);
	t->p[t->len++] = 0;
}

struct folded_row {
	union {
		size_t at; /* while the text grows */
		const char *stack;
	};
	size_t len;
	uint64_t value;
};

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded_row *)a)->stack,
		      ((const struct folded_row *)b)->stack);
}

void folded_rows(const struct snapshot *s, folded_row_fn *fn, void *ctx)
{
	struct folded_row *l = xmalloc((s->nrows + 1) * sizeof(*l));
	bool us = s->metrics[s->primary].kind == METRIC_NS;
	struct text t = {0};
	size_t n = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		if (!s->rows[i].v[s->primary])
			continue;
		l[n].at = t.len;
		fold(&t, s, &s->rows[i]);
		l[n].len = t.len - 1 - l[n].at;
		l[n++].value = s->rows[i].v[s->primary];
	}
	for (size_t i = 0; i < n; i++)
		l[i].stack = t.p + l[i].at;
	qsort(l, n, sizeof(*l), by_stack);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && l[i].len == l[i + 1].len &&
		    !memcmp(l[i].stack, l[i + 1].stack, l[i].len))
			l[i + 1].value += l[i].value;
		else if (!us || l[i].value >= 500)
			/* times are integer microseconds, as flame graph
			 * tools expect of off-CPU profiles */
			fn(ctx, l[i].stack, l[i].len,
			   us ? (l[i].value + 500) / 1000 : l[i].value);
	}
	free(t.p);
	free(l);
}
