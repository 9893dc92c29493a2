// SPDX-License-Identifier: GPL-2.0
/*
 * Function names and ranges from Go's .gopclntab.
 *
 * The table starts with a header: magic (4 bytes), two zero bytes, the
 * pc quantum, the pointer size. What follows depends on the magic:
 *
 *   1.2   nfunc, then the function table at 8 + ptrsize; names are
 *         offsets from the table's start.
 *   1.16  words nfunc, nfiles, funcnametab, cutab, filetab, pctab,
 *         functab (offsets from the table's start).
 *   1.18  words nfunc, nfiles, textStart, funcnametab, cutab, filetab,
 *   1.20  pctab, functab; function entries are 32-bit offsets from
 *         textStart. 1.20 changed only the magic's meaning (the func
 *         records after the name, which are not read here).
 *
 * The function table is nfunc pairs (entry, offset of the func record
 * from the table's start; 1.2: from the pclntab's start), then the end
 * of the last function. A func record begins with its entry and the
 * offset of its name in the name table. Pairs are uintptr wide before
 * 1.18, 32-bit since.
 *
 * The inline tree (FUNCDATA_InlTree) is not read: since 1.18 its offset
 * is relative to the go:func.* symbol, which only the runtime's
 * moduledata locates.
 */
#include <string.h>

#include "gopclntab.h"

struct pcln {
	const uint8_t *p;
	size_t len;
	bool msb;
	unsigned ptrsize, fieldsize; /* of a word; of a function table field */
	bool rel;		     /* 1.18+: entries are from .text */
	uint64_t text;		     /* where .text starts */
	uint64_t nfunc;
	uint64_t functab;  /* offset of the function table */
	uint64_t funcbase; /* func record offsets are from here */
	uint64_t names;	   /* name offsets are from here */
};

static uint64_t get(const struct pcln *t, uint64_t off, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)t->p[off + i] << 8 * (t->msb ? size - 1 - i : i);
	return v;
}

/* The value of size bytes at off, or false when they are outside. */
static bool read_at(const struct pcln *t, uint64_t off, unsigned size,
		    uint64_t *v)
{
	if (off > t->len || t->len - off < size)
		return false;
	*v = get(t, off, size);
	return true;
}

/* The header's word i (after the 8 fixed bytes). */
static bool word(const struct pcln *t, unsigned i, uint64_t *v)
{
	return read_at(t, 8 + (uint64_t)i * t->ptrsize, t->ptrsize, v);
}

bool gopclntab_header(const uint8_t *p, size_t len, bool msb)
{
	struct pcln t = {.p = p, .len = len, .msb = msb};
	uint64_t magic;

	if (!read_at(&t, 0, 4, &magic) || len < 8 || p[4] || p[5] ||
	    (p[6] != 1 && p[6] != 2 && p[6] != 4) || (p[7] != 4 && p[7] != 8))
		return false;
	return magic == GOPCLNTAB_MAGIC_12 || magic == GOPCLNTAB_MAGIC_116 ||
	       magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120;
}

/* The header's fields into t; false when they do not describe a table
 * that fits in the buffer. */
static bool parse_header(struct pcln *t, uint64_t text)
{
	uint64_t magic = get(t, 0, 4), hdr_text = 0;
	bool ok;

	t->ptrsize = t->p[7];
	t->fieldsize = t->ptrsize;
	switch (magic) {
	case GOPCLNTAB_MAGIC_12:
		ok = word(t, 0, &t->nfunc);
		t->functab = 8 + t->ptrsize;
		t->funcbase = 0;
		t->names = 0;
		break;
	case GOPCLNTAB_MAGIC_116:
		ok = word(t, 0, &t->nfunc) && word(t, 2, &t->names) &&
		     word(t, 6, &t->functab);
		t->funcbase = t->functab;
		break;
	default: /* 1.18, 1.20 */
		ok = word(t, 0, &t->nfunc) && word(t, 2, &hdr_text) &&
		     word(t, 3, &t->names) && word(t, 7, &t->functab);
		t->funcbase = t->functab;
		t->fieldsize = 4;
		t->rel = true;
		/* the header's runtime.text, which external linking may
		 * put after C code at the start of .text */
		t->text = hdr_text ? hdr_text : text;
		break;
	}
	/* nfunc pairs and the end: (2 nfunc + 1) fields */
	return ok && t->nfunc && t->functab <= t->len && t->names <= t->len &&
	       t->nfunc < (t->len - t->functab) / t->fieldsize / 2;
}

/* Function i's entry, record offset; false when outside the buffer. */
static bool pair(const struct pcln *t, uint64_t i, uint64_t *entry,
		 uint64_t *rec)
{
	uint64_t at = t->functab + 2 * i * t->fieldsize;

	if (!read_at(t, at, t->fieldsize, entry) ||
	    (i < t->nfunc && !read_at(t, at + t->fieldsize, t->fieldsize, rec)))
		return false;
	if (t->rel)
		*entry += t->text;
	return true;
}

/* The name of the func record at rec, bounded by the buffer. */
static const char *func_name(const struct pcln *t, uint64_t rec, size_t *len)
{
	uint64_t nameoff, at;
	const char *s;

	if (rec > t->len - t->funcbase)
		return NULL;
	/* the entry (a word before 1.18, 32 bits since), then nameoff */
	at = t->funcbase + rec + t->fieldsize;
	if (!read_at(t, at, 4, &nameoff) || nameoff >= t->len - t->names)
		return NULL;
	s = (const char *)t->p + t->names + nameoff;
	*len = strnlen(s, t->len - t->names - nameoff);
	/* a name that runs to the buffer's end was cut */
	return *len && *len < t->len - t->names - nameoff ? s : NULL;
}

/* The first limit functions of the table (gopclntab_each). */
static long each(const uint8_t *data, size_t len, uint64_t text, bool msb,
		 uint64_t limit, gopclntab_fn fn, void *arg)
{
	struct pcln t = {.p = data, .len = len, .msb = msb};
	uint64_t entry, rec, next, unused, last = 0;
	const char *name;
	size_t name_len;
	long n = 0;

	if (!gopclntab_header(data, len, msb) || !parse_header(&t, text))
		return -1;
	if (!pair(&t, 0, &entry, &rec))
		return -1;
	for (uint64_t i = 0; i < t.nfunc && i < limit; i++, entry = next) {
		uint64_t this_rec = rec;

		if (!pair(&t, i + 1, &next, i + 1 < t.nfunc ? &rec : &unused))
			return n ? n : -1;
		if (entry < last || next <= entry)
			continue; /* out of order: not a table we believe */
		name = func_name(&t, this_rec, &name_len);
		if (!name)
			continue;
		last = next;
		if (fn)
			fn(entry, next, name, name_len, arg);
		n++;
	}
	return n ? n : -1;
}

long gopclntab_each(const uint8_t *data, size_t len, uint64_t text, bool msb,
		    gopclntab_fn fn, void *arg)
{
	return each(data, len, text, msb, UINT64_MAX, fn, arg);
}

/* Functions a candidate's first ones must show: a stray magic number in
 * other data gives noise. A bound, so that a file of many headers is not
 * parsed whole at each. */
#define FIND_PROBE 64

long gopclntab_find(const uint8_t *buf, size_t len, bool msb)
{
	for (size_t off = 0; off + 16 <= len; off += 4) {
		struct pcln t = {.p = buf + off, .len = len - off, .msb = msb};
		uint64_t want;
		long n;

		if (!gopclntab_header(buf + off, len - off, msb) ||
		    !parse_header(&t, 0))
			continue;
		/* at least half of them parse */
		want = t.nfunc < FIND_PROBE ? t.nfunc : FIND_PROBE;
		n = each(buf + off, len - off, 0, msb, FIND_PROBE, NULL, NULL);
		if (n > 0 && (uint64_t)n * 2 >= want)
			return off;
	}
	return -1;
}
