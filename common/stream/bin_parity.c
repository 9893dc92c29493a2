// SPDX-License-Identifier: GPL-2.0
/*
 * Parity frames, the reader's side (bin_parity.h). The last good frames
 * are kept, so that a parity frame, which lists its members by CRC, finds
 * the ones that came; when exactly one did not, the XOR of the parity and
 * the others is that frame, checked by its own CRC.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bin_parity.h"
#include "binfmt.h"

/* Frames kept for the parity frames to come: a group has at most
 * BIN_GROUP_MAX members (binfmt.h), and frames held after a loss wait
 * for at most as many more before they go on without it. */
#define RING (2 * BIN_GROUP_MAX)
/* A longer frame is handed on and not kept: the writer's are far shorter
 * and the ring's memory stays bounded whatever the input. */
#define KEEP_MAX (64u << 10)

struct kept {
	unsigned char *f; /* after the sync marker; NULL: too long to keep */
	size_t n;
	uint32_t crc;
	bool held; /* not handed on yet */
};

struct bin_parity {
	bin_frame_fn *fn;
	void *ctx;
	struct kept ring[RING]; /* in stream order from oldest */
	size_t first, count;
	bool holding;
	size_t nheld;
};

struct bin_parity *bin_parity_new(bin_frame_fn *fn, void *ctx)
{
	struct bin_parity *p = xzalloc(sizeof(*p));

	p->fn = fn;
	p->ctx = ctx;
	return p;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static struct kept *nth(struct bin_parity *p, size_t i)
{
	return &p->ring[(p->first + i) % RING];
}

/* Keep a frame; the oldest goes (never a held one: see HOLD_MAX). */
static struct kept *keep(struct bin_parity *p, const unsigned char *f, size_t n)
{
	struct kept *k;

	if (p->count == RING) {
		free(nth(p, 0)->f);
		p->first = (p->first + 1) % RING;
		p->count--;
	}
	k = nth(p, p->count++);
	k->n = n;
	k->crc = le32(f + n - BIN_CRC_LEN);
	k->f = n <= KEEP_MAX ? xmalloc(n) : NULL;
	if (k->f)
		memcpy(k->f, f, n);
	k->held = false;
	return k;
}

static void hand_on(struct bin_parity *p, struct kept *k)
{
	if (k->held) {
		k->held = false;
		p->nheld--;
		p->fn(p->ctx, k->f, k->n);
	}
}

void bin_parity_flush(struct bin_parity *p)
{
	for (size_t i = 0; i < p->count; i++)
		hand_on(p, nth(p, i));
	p->holding = false;
}

void bin_parity_gap(struct bin_parity *p)
{
	p->holding = true;
}

/* The newest kept frame with that CRC, NULL when none came. */
static struct kept *find(struct bin_parity *p, uint32_t crc)
{
	for (size_t i = p->count; i-- > 0;)
		if (nth(p, i)->crc == crc)
			return nth(p, i);
	return NULL;
}

/*
 * The one member that did not come, from the parity's XOR (x, xn bytes)
 * and the members that did; NULL when some member cannot be used or the
 * result is not the frame the parity names.
 */
static unsigned char *rebuild(struct bin_parity *p, const unsigned char *crcs,
			      size_t m, const unsigned char *x, size_t xn,
			      uint32_t want, size_t *len)
{
	unsigned char *f = xmalloc(xn + 1);
	size_t n;

	memcpy(f, x, xn);
	for (size_t i = 0; i < m; i++) {
		struct kept *k = find(p, le32(crcs + 4 * i));

		if (k && (!k->f || k->n > xn)) {
			free(f);
			return NULL;
		}
		for (size_t j = 0; k && j < k->n; j++)
			f[j] ^= k->f[j];
	}
	n = xn >= BIN_HEAD_LEN - BIN_SYNC_LEN + BIN_CRC_LEN
		    ? BIN_HEAD_LEN - BIN_SYNC_LEN + le32(f + 2) + BIN_CRC_LEN
		    : 0;
	if (n < BIN_HEAD_LEN - BIN_SYNC_LEN + BIN_CRC_LEN || n > xn ||
	    le32(f + n - BIN_CRC_LEN) != want ||
	    crc32(0, f, n - BIN_CRC_LEN) != want) {
		free(f);
		return NULL;
	}
	*len = n;
	return f;
}

/*
 * A parity frame's payload: v m, m member CRCs (u32 LE) in the order
 * written, the XOR. After a loss, the held frames go on in that order,
 * with the missing one rebuilt in its place when it was the only one.
 */
static unsigned parity(struct bin_parity *p, const unsigned char *d, size_t n,
		       unsigned *lost)
{
	struct bcur c = {d, d + n};
	size_t m = bc_varint(&c), missing = 0, at = 0, fn = 0;
	const unsigned char *crcs = c.p;
	unsigned char *f = NULL;
	bool rebuilt;

	if (c.bad || !m || m > BIN_GROUP_MAX || m * 4 > (size_t)(c.end - c.p))
		return 0;
	for (size_t i = 0; i < m; i++)
		if (!find(p, le32(crcs + 4 * i))) {
			missing++;
			at = i;
		}
	if (missing == 1)
		f = rebuild(p, crcs, m, crcs + 4 * m, c.end - crcs - 4 * m,
			    le32(crcs + 4 * at), &fn);
	rebuilt = f != NULL;
	*lost = missing - rebuilt;
	/* held frames of earlier groups first, then this group's */
	for (size_t i = 0; i < p->count; i++) {
		struct kept *k = nth(p, i);
		bool member = false;

		for (size_t j = 0; j < m && !member; j++)
			member = k->crc == le32(crcs + 4 * j);
		if (!member)
			hand_on(p, k);
	}
	for (size_t i = 0; i < m; i++) {
		struct kept *k = find(p, le32(crcs + 4 * i));

		if (k)
			hand_on(p, k);
		else if (rebuilt && i == at)
			p->fn(p->ctx, f, fn);
	}
	free(f);
	bin_parity_flush(p);
	return rebuilt;
}

unsigned bin_parity_frame(struct bin_parity *p, const unsigned char *f,
			  size_t n, unsigned *lost)
{
	struct kept *k;

	*lost = 0;
	if (f[0] == BIN_PARITY)
		return p->holding && !f[1] ? parity(p, f + 6, n - 10, lost) : 0;
	k = keep(p, f, n);
	if (!p->holding || !k->f) {
		/* a frame too long to hold: nothing waits behind it */
		bin_parity_flush(p);
		p->fn(p->ctx, f, n);
		return 0;
	}
	k->held = true;
	if (++p->nheld >= RING - BIN_GROUP_MAX)
		bin_parity_flush(p); /* no parity came: go on without */
	return 0;
}

void bin_parity_free(struct bin_parity *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++)
		free(nth(p, i)->f);
	free(p);
}
