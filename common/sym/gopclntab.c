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
 *         textStart. 1.20 added startLine to the func record and
 *         reshaped the inline tree's entries.
 *
 * The function table is nfunc pairs (entry, offset of the func record
 * from the table's start; 1.2: from the pclntab's start), then the end
 * of the last function. A func record begins with its entry and the
 * offset of its name in the name table. Pairs are uintptr wide before
 * 1.18, 32-bit since.
 *
 * Inline trees (Go 1.16+; gopclntab_each_inline): a func record holds,
 * after its fixed fields, npcdata 32-bit offsets of pc-value tables
 * (from the pctab) and nfuncdata references. pcdata[2] maps each pc to
 * an index in the function's inline tree (funcdata[3]), -1 outside
 * inlined code. A tree entry names the inlined function and the pc of
 * its call site (parentPc, from the entry), whose own index gives the
 * next level out. funcdata are pointers before 1.18, and offsets from
 * moduledata.gofunc (the go:func.* symbol) since. Go 1.2-1.15 kept
 * other indexes and names; their trees are not read.
 */
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

enum pcln_version { V12, V116, V118, V120 };

struct pcln {
	const uint8_t *p;
	size_t len;
	bool msb;
	enum pcln_version version;
	unsigned quantum;
	unsigned ptrsize, fieldsize; /* of a word; of a function table field */
	bool rel;		     /* 1.18+: entries are from .text */
	uint64_t text;		     /* where .text starts */
	uint64_t nfunc;
	uint64_t functab;  /* offset of the function table */
	uint64_t funcbase; /* func record offsets are from here */
	uint64_t names;	   /* name offsets are from here */
	uint64_t pctab;	   /* pc-value table offsets are from here */
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
	t->quantum = t->p[6];
	switch (magic) {
	case GOPCLNTAB_MAGIC_12:
		t->version = V12;
		ok = word(t, 0, &t->nfunc);
		t->functab = 8 + t->ptrsize;
		t->funcbase = 0;
		t->names = 0;
		break;
	case GOPCLNTAB_MAGIC_116:
		t->version = V116;
		ok = word(t, 0, &t->nfunc) && word(t, 2, &t->names) &&
		     word(t, 5, &t->pctab) && word(t, 6, &t->functab);
		t->funcbase = t->functab;
		break;
	default: /* 1.18, 1.20 */
		t->version = magic == GOPCLNTAB_MAGIC_118 ? V118 : V120;
		ok = word(t, 0, &t->nfunc) && word(t, 2, &hdr_text) &&
		     word(t, 3, &t->names) && word(t, 6, &t->pctab) &&
		     word(t, 7, &t->functab);
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

/* The name at nameoff in the name table, bounded by the buffer. */
static const char *name_at(const struct pcln *t, uint64_t nameoff, size_t *len)
{
	const char *s;

	if (nameoff >= t->len - t->names)
		return NULL;
	s = (const char *)t->p + t->names + nameoff;
	*len = strnlen(s, t->len - t->names - nameoff);
	/* a name that runs to the buffer's end was cut */
	return *len && *len < t->len - t->names - nameoff ? s : NULL;
}

/* The name of the func record at rec, bounded by the buffer. */
static const char *func_name(const struct pcln *t, uint64_t rec, size_t *len)
{
	uint64_t nameoff;

	if (rec > t->len - t->funcbase)
		return NULL;
	/* the entry (a word before 1.18, 32 bits since), then nameoff */
	if (!read_at(t, t->funcbase + rec + t->fieldsize, 4, &nameoff))
		return NULL;
	return name_at(t, nameoff, len);
}

/* What each() does with one function: [entry, end), its func record
 * at rec (from funcbase), its name. */
typedef void visit_fn(const struct pcln *t, uint64_t entry, uint64_t end,
		      uint64_t rec, const char *name, size_t name_len,
		      void *ctx);

/* The first limit functions of the table; how many, or -1. */
static long each(const uint8_t *data, size_t len, uint64_t text, bool msb,
		 uint64_t limit, visit_fn *visit, void *ctx)
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
		if (visit)
			visit(&t, entry, next, this_rec, name, name_len, ctx);
		n++;
	}
	return n ? n : -1;
}

struct each_ctx {
	gopclntab_fn fn;
	void *arg;
};

static void give_function(const struct pcln *t, uint64_t entry, uint64_t end,
			  uint64_t rec, const char *name, size_t name_len,
			  void *ctx)
{
	const struct each_ctx *c = ctx;

	(void)t;
	(void)rec;
	c->fn(entry, end, name, name_len, c->arg);
}

long gopclntab_each(const uint8_t *data, size_t len, uint64_t text, bool msb,
		    gopclntab_fn fn, void *arg)
{
	struct each_ctx c = {fn, arg};

	return each(data, len, text, msb, UINT64_MAX, fn ? give_function : NULL,
		    &c);
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

/* ---- inline trees ---- */

#define PCDATA_INLTREE	 2
#define FUNCDATA_INLTREE 3
/* Bounds on what one function may claim: pc-value steps, tree index */
#define RUNS_MAX  65536
#define INLIX_MAX (1 << 20)

/* A stretch of a function's code with one inline tree index. */
struct run {
	uint64_t start, end;
	int32_t ix;
};

struct inl_ctx {
	const struct gopclntab_funcdata *fd;
	gopclntab_inline_fn fn;
	void *arg;
	struct run *runs;
	size_t nruns, cap;
	long n;
};

/* An unsigned varint of at most 32 bits at *off, advancing it. */
static bool varint(const struct pcln *t, uint64_t *off, uint32_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*off >= t->len)
			return false;
		uint8_t b = t->p[(*off)++];

		*v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * The runs of the pc-value table at off for the function [entry, end):
 * pairs of a zigzag value delta and a pc delta (in quanta), the value
 * starting at -1; a zero value delta after the first pair ends it.
 * False when the table leaves the buffer or claims too many runs.
 * A pc past the table's end has no value: NO_RUN.
 */
static bool decode_runs(const struct pcln *t, uint64_t off, uint64_t entry,
			uint64_t end, struct inl_ctx *c)
{
	uint64_t pc = entry;
	int32_t val = -1;
	uint32_t uv, dpc;

	c->nruns = 0;
	for (bool first = true; pc < end; first = false) {
		if (!varint(t, &off, &uv))
			return false; /* cut short */
		if (!uv && !first)
			break;
		/* wrapping, as Go's int32 does: a crafted delta overflows */
		val = (int32_t)((uint32_t)val + (-(uv & 1) ^ (uv >> 1)));
		if (!varint(t, &off, &dpc) || c->nruns == RUNS_MAX)
			return false;
		if (c->nruns == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 64;
			struct run *r = realloc(c->runs, cap * sizeof(*r));

			if (!r)
				return false;
			c->runs = r;
			c->cap = cap;
		}
		c->runs[c->nruns++] =
			(struct run){pc, pc + (uint64_t)dpc * t->quantum, val};
		pc += (uint64_t)dpc * t->quantum;
	}
	return true;
}

#define NO_RUN INT32_MIN

/* The inline tree index at pc, -1 when none, NO_RUN when the table
 * does not say. */
static int32_t index_at(const struct inl_ctx *c, uint64_t pc)
{
	size_t lo = 0, hi = c->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->runs[mid].end <= pc)
			lo = mid + 1;
		else if (c->runs[mid].start > pc)
			hi = mid;
		else
			return c->runs[mid].ix;
	}
	return NO_RUN;
}

/* Bytes at address a in the funcdata segment, or NULL. */
static const uint8_t *fd_at(const struct gopclntab_funcdata *fd, uint64_t a,
			    size_t n)
{
	if (a < fd->vaddr || a - fd->vaddr > fd->len ||
	    fd->len - (a - fd->vaddr) < n)
		return NULL;
	return fd->p + (a - fd->vaddr);
}

/* Where a func record's counts and arrays are, by format. */
static void rec_layout(const struct pcln *t, unsigned *npcdata,
		       unsigned *pcdata)
{
	switch (t->version) {
	case V116: /* a word of entry, then 8 fields of 32 bits, 4 bytes */
		*npcdata = t->ptrsize + 24;
		*pcdata = t->ptrsize + 36;
		break;
	case V118:
		*npcdata = 28;
		*pcdata = 40;
		break;
	default: /* 1.20 added startLine */
		*npcdata = 28;
		*pcdata = 44;
		break;
	}
}

/* The inline tree's address and its pcdata table's offset in the
 * buffer; false when the function has none. */
static bool inl_tables(const struct pcln *t, uint64_t rec,
		       const struct gopclntab_funcdata *fd, uint64_t *tree,
		       uint64_t *pcdata_off)
{
	uint64_t npcdata, nfuncdata, off, ref, at = t->funcbase + rec;
	unsigned npc_at, pcd_at;

	rec_layout(t, &npc_at, &pcd_at);
	if (!read_at(t, at + npc_at, 4, &npcdata) ||
	    !read_at(t, at + pcd_at - 1, 1, &nfuncdata) ||
	    npcdata <= PCDATA_INLTREE || nfuncdata <= FUNCDATA_INLTREE ||
	    npcdata > 256 ||
	    !read_at(t, at + pcd_at + 4 * PCDATA_INLTREE, 4, &off) || !off ||
	    off >= t->len - t->pctab)
		return false;
	*pcdata_off = t->pctab + off;
	at += pcd_at + 4 * npcdata;
	if (t->version == V116) {
		/* pointers, aligned from the (aligned) record's start */
		if (t->ptrsize == 8 && (at - t->funcbase - rec) & 4)
			at += 4;
		if (!read_at(t, at + t->ptrsize * FUNCDATA_INLTREE, t->ptrsize,
			     &ref) ||
		    !ref)
			return false;
		*tree = ref;
		return true;
	}
	if (!read_at(t, at + 4 * FUNCDATA_INLTREE, 4, &ref) ||
	    ref == UINT32_MAX || !fd->gofunc)
		return false;
	*tree = fd->gofunc + ref;
	return true;
}

/* Tree entry ix's name offset and call site (from the entry). */
static bool tree_entry(const struct pcln *t,
		       const struct gopclntab_funcdata *fd, uint64_t tree,
		       int32_t ix, uint64_t *nameoff, uint64_t *parent_pc)
{
	/* 1.16-1.19: parent, funcID, pad, file, line, then these two;
	 * 1.20: funcID, pad, then nameOff, parentPc, startLine */
	unsigned size = t->version == V120 ? 16 : 20,
		 nameoff_at = t->version == V120 ? 4 : 12;
	struct pcln e = {.msb = t->msb, .len = size};

	if (ix >= INLIX_MAX)
		return false;
	e.p = fd_at(fd, tree + (uint64_t)ix * size, size);
	if (!e.p)
		return false;
	*nameoff = get(&e, nameoff_at, 4);
	*parent_pc = get(&e, nameoff_at + 4, 4);
	return true;
}

/* Give each run of inlined code with its chain of names, innermost
 * first; the function's own name is not in it. */
static void give_inlined(const struct pcln *t, uint64_t entry, uint64_t end,
			 uint64_t rec, const char *name, size_t name_len,
			 void *ctx)
{
	struct gopclntab_str chain[GOPCLNTAB_INLINE_MAX];
	struct inl_ctx *c = ctx;
	uint64_t tree, table, nameoff, parent_pc;

	(void)name;
	(void)name_len;
	if (!inl_tables(t, rec, c->fd, &tree, &table) ||
	    !decode_runs(t, table, entry, end, c))
		return;
	for (size_t r = 0; r < c->nruns; r++) {
		int32_t ix = c->runs[r].ix;
		unsigned n = 0;

		if (ix < 0 || c->runs[r].start >= c->runs[r].end)
			continue;
		/* out to the function itself; a chain deeper than the
		 * bound is a loop in a corrupt tree */
		while (ix >= 0 && n < GOPCLNTAB_INLINE_MAX &&
		       tree_entry(t, c->fd, tree, ix, &nameoff, &parent_pc) &&
		       (chain[n].p = name_at(t, nameoff, &chain[n].len)) &&
		       parent_pc < end - entry) {
			n++;
			ix = index_at(c, entry + parent_pc);
		}
		if (ix != -1 || !n)
			continue;
		if (c->fn)
			c->fn(c->runs[r].start,
			      c->runs[r].end < end ? c->runs[r].end : end,
			      chain, n, c->arg);
		c->n++;
	}
}

long gopclntab_each_inline(const uint8_t *data, size_t len, uint64_t text,
			   bool msb, const struct gopclntab_funcdata *fd,
			   gopclntab_inline_fn fn, void *arg)
{
	struct inl_ctx c = {.fd = fd, .fn = fn, .arg = arg};
	struct pcln t = {.p = data, .len = len, .msb = msb};

	if (!gopclntab_header(data, len, msb) || !parse_header(&t, text) ||
	    t.version == V12)
		return -1;
	if (each(data, len, text, msb, UINT64_MAX, give_inlined, &c) < 0)
		c.n = -1;
	free(c.runs);
	return c.n;
}

/* ---- moduledata: where go:func.* is in a binary without symbols ---- */

/*
 * runtime.moduledata begins: pcHeader, then the slices (pointer, length,
 * capacity) funcnametab, cutab, filetab, pctab, pclntable, ftab; then
 * findfunctab, minpc, maxpc, text, etext, noptrdata, enoptrdata, data,
 * edata, bss, ebss, noptrbss, enoptrbss, [1.20: covctrs, ecovctrs,] end,
 * gcdata, gcbss, types, etypes, rodata, gofunc: all words.
 */
#define MD_FUNCNAMETAB 1
#define MD_CUTAB       4
#define MD_FILETAB     7
#define MD_PCTAB       10
#define MD_TEXT	       22
#define MD_GOFUNC_118  38
#define MD_GOFUNC_120  40

uint64_t gopclntab_gofunc(const uint8_t *seg, size_t seg_len,
			  const uint8_t *tab, size_t tab_len,
			  uint64_t tab_vaddr, bool msb)
{
	struct pcln t = {.p = tab, .len = tab_len, .msb = msb};
	uint64_t cutab, filetab, text;
	unsigned gofunc_at;

	if (!gopclntab_header(tab, tab_len, msb) || !parse_header(&t, 0) ||
	    t.version < V118 || !word(&t, 2, &text) || !word(&t, 4, &cutab) ||
	    !word(&t, 5, &filetab) || cutab < t.names)
		return 0;
	gofunc_at = t.version == V118 ? MD_GOFUNC_118 : MD_GOFUNC_120;
	for (size_t off = 0; seg_len >= (gofunc_at + 1) * t.ptrsize &&
			     off <= seg_len - (gofunc_at + 1) * t.ptrsize;
	     off += t.ptrsize) {
		struct pcln m = {.p = seg + off,
				 .len = seg_len - off,
				 .msb = msb,
				 .ptrsize = t.ptrsize};
		uint64_t w[MD_GOFUNC_120 + 1];

		if (get(&m, 0, t.ptrsize) != tab_vaddr)
			continue;
		for (unsigned i = 0; i <= gofunc_at; i++)
			w[i] = get(&m, i * t.ptrsize, t.ptrsize);
		/* the name table a slice of its known length */
		if (w[MD_FUNCNAMETAB] == tab_vaddr + t.names &&
		    w[MD_FUNCNAMETAB + 1] &&
		    w[MD_FUNCNAMETAB + 1] <= cutab - t.names &&
		    w[MD_FUNCNAMETAB + 2] == w[MD_FUNCNAMETAB + 1] &&
		    w[MD_CUTAB] == tab_vaddr + cutab &&
		    w[MD_FILETAB] == tab_vaddr + filetab &&
		    w[MD_PCTAB] == tab_vaddr + t.pctab &&
		    (!text || w[MD_TEXT] == text) && w[gofunc_at])
			return w[gofunc_at];
	}
	return 0;
}
