// SPDX-License-Identifier: GPL-2.0
// layer: stream
/* The flight recorder's ring: its bound, its window, what it drops. */
#include <stdlib.h>

#include "binfmt.h"
#include "check.h"
#include "recorder.h"

#define ENTRY 1000 /* bytes of each snapshot's stream */

/* A snapshot's stream of ENTRY bytes, its first byte seq, ending at
 * second seq. */
static void add(struct recorder *r, unsigned seq)
{
	struct bbuf b = {0};
	struct timespec start = {seq - 1, 0}, end = {seq, 0};
	unsigned char data[ENTRY];

	memset(data, seq, sizeof(data));
	bb_put(&b, data, sizeof(data));
	recorder_add(r, &start, &end, &b);
}

struct taken {
	unsigned first[64];
	size_t n, bytes;
};

static void take(void *ctx, const void *p, size_t len)
{
	struct taken *t = ctx;

	if (t->n < ARRAY_SIZE(t->first))
		t->first[t->n] = *(const unsigned char *)p;
	t->n++;
	t->bytes += len;
}

int main(void)
{
	/* room for 5 entries with their slots, not 6 */
	size_t slot = ENTRY + 64, bound = 5 * slot + slot / 2;
	struct recorder *r = recorder_new(60 * NS_PER_SEC, bound);
	const struct recorder_stats *st = recorder_stats(r);
	struct taken t = {0};

	for (unsigned seq = 1; seq <= 12; seq++)
		add(r, seq);
	CHECK("recorder: holds no more than its bound",
	      st->bytes <= bound && st->peak_bytes <= bound,
	      "%zu, peak %zu of %zu", st->bytes, st->peak_bytes, bound);
	CHECK("recorder: keeps as many of the newest as fit",
	      st->snapshots >= 4, "%zu", st->snapshots);
	CHECK_INT("recorder: counts what the bound dropped", st->dropped,
		  12 - st->snapshots);
	CHECK_INT("recorder: ... and its bytes", st->dropped_bytes,
		  (12 - st->snapshots) * ENTRY);
	CHECK_INT("recorder: the window starts at the oldest held",
		  st->from.tv_sec, 12 - st->snapshots);
	recorder_take(r, take, &t);
	CHECK("recorder: a take gives the newest, oldest first",
	      t.n == 5 && t.first[0] == 8 && t.first[4] == 12,
	      "%zu taken, first %u, last %u", t.n, t.first[0],
	      t.first[t.n ? t.n - 1 : 0]);
	CHECK_INT("recorder: empty after a take", st->snapshots + st->bytes, 0);
	CHECK_INT("recorder: drop counts start again", st->dropped, 0);
	recorder_free(r);

	/* a 3 s window of 1 s snapshots, a large bound */
	r = recorder_new(3 * NS_PER_SEC, 1 << 20);
	st = recorder_stats(r);
	for (unsigned seq = 1; seq <= 10; seq++)
		add(r, seq);
	CHECK_INT("recorder: the window keeps its last 3 s and the one "
		  "ending at its start",
		  st->snapshots, 4);
	CHECK_INT("recorder: older ones expire, not counted as dropped",
		  st->expired * 10 + st->dropped, 60);
	recorder_free(r);

	/* one snapshot bigger than the bound alone */
	r = recorder_new(60 * NS_PER_SEC, ENTRY / 2);
	st = recorder_stats(r);
	add(r, 1);
	CHECK("recorder: a snapshot over the bound alone is dropped",
	      st->snapshots == 0 && st->dropped == 1 && st->bytes == 0,
	      "%zu held, %llu dropped", st->snapshots,
	      (unsigned long long)st->dropped);
	recorder_free(r);
	return 0;
}
