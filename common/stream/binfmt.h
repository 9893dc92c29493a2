/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bin stream (docs/bin-format.md): frames of
 *   sync "SBf\xa5" | type u8 | flags u8 | length u32 LE | payload |
 *   CRC-32 u32 LE of type, flags, length and payload
 * whose payloads are LEB128 varints and length-prefixed strings. Shared by
 * the writer (format_bin.c) and the reader (bin_read.c).
 */
#ifndef STACKBOX_BINFMT_H
#define STACKBOX_BINFMT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "stackbox.h"

#define BIN_VERSION	3
#define BIN_VERSION_1	1	 /* still read: dictionary frames, no parity */
#define BIN_KEY_ID_MASK 0x1fffff /* key period ids: 21 bits, not 0 */
#define BIN_SYNC	"SBf\xa5"
#define BIN_SYNC_LEN	4
#define BIN_HEAD_LEN	(BIN_SYNC_LEN + 6) /* sync, type, flags, length */
#define BIN_CRC_LEN	4
#define BIN_MAX_FRAME	(1u << 24) /* a longer length is corruption */
#define BIN_FLAG_ZLIB	1	   /* payload is a zlib stream (version 1) */
#define BIN_FLAG_DICT	2	   /* raw deflate primed with bin_dict */
#define BIN_GROUP_MAX	32	   /* frames a parity frame may cover */

enum bin_frame_type {
	BIN_HEADER = 1, /* a key frame: dictionaries start empty again */
	/* version 1 frames; since, sections of a BIN_SNAP frame */
	BIN_STRINGS, /* strings, numbered from 0 in order of appearance */
	BIN_STACKS,  /* stacks: raw addresses, leaf first */
	BIN_KSYMS,   /* kernel address -> function name */
	BIN_MAPS,    /* one process's executable mappings */
	BIN_CGROUPS, /* cgroup id -> path */
	BIN_AUX,     /* the applet's split value -> name (offcpu state) */
	BIN_SAMPLES, /* one snapshot's rows and counters (version 1) */
	BIN_NSPIDS,  /* tgid -> its pid in its own pid namespace */
	BIN_SNAP,    /* a snapshot's piece with its dictionary entries */
	BIN_PARITY,  /* the XOR of the frames before it: rebuilds one */
	BIN_FRAME_MAX,
};

/* What compressed payloads are primed with (bin_dict.c): the words
 * nearly every stream holds, so that a small frame compresses too. A
 * change is a new format version. */
extern const unsigned char bin_dict[];
extern const unsigned bin_dict_len;

/* A metric's kind in the header; this bit set: the metric is a level. */
#define BIN_KIND_LEVEL 0x10

/* Stack references in sample rows; dictionary index i is BIN_REF0 + i. */
enum { BIN_REF_NONE, BIN_REF_LOST, BIN_REF_MISSING, BIN_REF0 };

/* ---- writing: a growing byte buffer ---- */
struct bbuf {
	unsigned char *p;
	size_t len, cap;
};

static inline void bb_put(struct bbuf *b, const void *d, size_t n)
{
	if (!n)
		return; /* d may be NULL then: an empty profile's pieces */
	b->p = grow_array(b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline void bb_u8(struct bbuf *b, unsigned v)
{
	unsigned char c = v;

	bb_put(b, &c, 1);
}

static inline void bb_u32le(struct bbuf *b, uint32_t v)
{
	unsigned char c[4] = {v, v >> 8, v >> 16, v >> 24};

	bb_put(b, c, 4);
}

static inline void bb_varint(struct bbuf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n] = v & 0x7f;
		v >>= 7;
		c[n++] |= v ? 0x80 : 0;
	} while (v);
	bb_put(b, c, n);
}

/* Signed, zigzag: small negative deltas stay small. */
static inline void bb_svarint(struct bbuf *b, int64_t v)
{
	bb_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void bb_str(struct bbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	bb_varint(b, n);
	bb_put(b, s, n);
}

/* ---- reading: a cursor that turns bad instead of overrunning ---- */
struct bcur {
	const unsigned char *p, *end;
	bool bad;
};

static inline uint64_t bc_varint(struct bcur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end)
			break;
		v |= (uint64_t)(*c->p & 0x7f) << shift;
		if (!(*c->p++ & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static inline int64_t bc_svarint(struct bcur *c)
{
	uint64_t v = bc_varint(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A count that must fit in what is left (each element >= 1 byte). */
static inline size_t bc_count(struct bcur *c)
{
	uint64_t n = bc_varint(c);

	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return 0;
	}
	return n;
}

/* A string copied out of the payload, NUL-terminated; "" when bad. */
static inline char *bc_str(struct bcur *c)
{
	size_t n = bc_count(c);
	char *s = xmalloc(n + 1);

	memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	return s;
}

#endif
