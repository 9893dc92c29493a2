// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's ring; see recorder.h. */
#include <stdlib.h>
#include <string.h>

#include "binfmt.h"
#include "recorder.h"

struct entry {
	unsigned char *p;
	size_t len;
	struct timespec start, end;
};

struct recorder {
	uint64_t window;
	size_t bound;
	struct entry *e; /* a queue: [head, n) are held */
	size_t head, n, cap;
	struct recorder_stats st;
};

/* What an entry costs: its bytes and its slot. */
static size_t cost(const struct entry *e)
{
	return e->len + sizeof(*e);
}

struct recorder *recorder_new(uint64_t window_ns, size_t bound)
{
	struct recorder *r = xzalloc(sizeof(*r));

	r->window = window_ns;
	r->bound = bound;
	return r;
}

static uint64_t ns_of(const struct timespec *t)
{
	return t->tv_sec * NS_PER_SEC + t->tv_nsec;
}

static void drop_oldest(struct recorder *r, uint64_t *count, uint64_t *bytes)
{
	struct entry *e = &r->e[r->head++];

	(*count)++;
	if (bytes)
		*bytes += e->len;
	r->st.bytes -= cost(e);
	r->st.snapshots--;
	free(e->p);
}

void recorder_add(struct recorder *r, const struct timespec *start,
		  const struct timespec *end, struct bbuf *b)
{
	struct entry *e;

	if (r->head && r->head == r->n) /* empty: start the queue again */
		r->head = r->n = 0;
	if (r->n == r->cap && r->head) { /* room at the front: move down */
		memmove(r->e, r->e + r->head, (r->n - r->head) * sizeof(*e));
		r->n -= r->head;
		r->head = 0;
	}
	r->e = grow_array(r->e, &r->cap, r->n + 1, sizeof(*r->e));
	e = &r->e[r->n++];
	*e = (struct entry){b->p, b->len, *start, *end};
	memset(b, 0, sizeof(*b));
	r->st.bytes += cost(e);
	r->st.snapshots++;
	while (r->head < r->n &&
	       ns_of(&r->e[r->head].end) + r->window < ns_of(end))
		drop_oldest(r, &r->st.expired, NULL);
	while (r->head < r->n && r->st.bytes > r->bound)
		drop_oldest(r, &r->st.dropped, &r->st.dropped_bytes);
	if (r->st.bytes > r->st.peak_bytes)
		r->st.peak_bytes = r->st.bytes;
	r->st.from = r->head < r->n ? r->e[r->head].start : *end;
}

const struct recorder_stats *recorder_stats(const struct recorder *r)
{
	return &r->st;
}

void recorder_take(struct recorder *r,
		   void (*fn)(void *ctx, const void *p, size_t len), void *ctx)
{
	for (; r->head < r->n; r->head++) {
		fn(ctx, r->e[r->head].p, r->e[r->head].len);
		free(r->e[r->head].p);
	}
	r->head = r->n = 0;
	r->st.bytes = r->st.snapshots = 0;
	r->st.expired = r->st.dropped = r->st.dropped_bytes = 0;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	for (; r->head < r->n; r->head++)
		free(r->e[r->head].p);
	free(r->e);
	free(r);
}
