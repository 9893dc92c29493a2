// SPDX-License-Identifier: GPL-2.0
// layer: sym
/*
 * Go's function table (common/sym/gopclntab.c) against answers known in
 * advance:
 *   - tables written here in each format (Go 1.2, 1.16, 1.18, 1.20;
 *     64- and 32-bit, little- and big-endian), two functions each, then
 *     cut short and corrupted;
 *   - inline trees written here (Go 1.16, 1.18, 1.20): one function
 *     with a call inlined into it and another inlined into that one,
 *     then cut short, looped and pointed out of bounds; the runtime's
 *     moduledata found in a segment among decoys;
 *   - the Go builds of tests/unit/gopclntab.mk, stripped and without
 *     section headers, x86_64, arm64 and PIE, looked up through elf_symtab at
 *     the addresses `go tool nm` gave for their unstripped twins, and
 *     main.goGamma's inlined main.mix where `go tool objdump` puts
 *     mix's source lines, the same in every build.
 * GOPCLNTAB_SEEDS=DIR writes the tables made here there (the fuzz
 * target's corpus, tests/unit/fuzz/gopclntab/).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gopclntab.h"
#include "stackbox.h"
#include "syms.h"

/* ---- tables written here ---- */

#define TEXT 0x401000ULL

struct tab {
	uint8_t b[1024];
	bool msb;
};

static void put(struct tab *t, size_t off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		t->b[off + i] = v >> 8 * (t->msb ? size - 1 - i : i);
}

/*
 * Two functions, main.a at TEXT+0x100 (0x40 bytes) and main.b at
 * TEXT+0x140 (0x20): the header, names at 0x200, the function table at
 * 0x100, func records at 0x180 and 0x1c0. Returns the table's size.
 */
static size_t make_table(struct tab *t, uint32_t magic, unsigned ps, bool msb)
{
	static const uint64_t entry[] = {TEXT + 0x100, TEXT + 0x140,
					 TEXT + 0x160};
	bool v118 = magic == GOPCLNTAB_MAGIC_118 ||
		    magic == GOPCLNTAB_MAGIC_120,
	     v12 = magic == GOPCLNTAB_MAGIC_12;
	unsigned fs = v118 ? 4 : ps; /* a function table field */
	size_t names = 0x200, ftab = 0x100, rec[] = {0x180, 0x1c0};

	memset(t, 0, sizeof(*t));
	t->msb = msb;
	put(t, 0, magic, 4);
	t->b[6] = 1;
	t->b[7] = ps;
	put(t, 8, 2, ps); /* nfunc */
	if (v12) {
		ftab = 8 + ps; /* follows nfunc; names from the table start */
	} else if (v118) {
		put(t, 8 + 2 * ps, TEXT, ps);
		put(t, 8 + 3 * ps, names, ps);
		put(t, 8 + 7 * ps, ftab, ps);
	} else {
		put(t, 8 + 2 * ps, names, ps);
		put(t, 8 + 6 * ps, ftab, ps);
	}
	memcpy(t->b + names, "\0main.a\0main.b", 15);
	for (int i = 0; i < 3; i++) {
		uint64_t e = v118 ? entry[i] - TEXT : entry[i];
		size_t base = v12 ? 0 : ftab;

		put(t, ftab + 2 * i * fs, e, fs);
		if (i == 2)
			break;
		put(t, ftab + (2 * i + 1) * fs, rec[i] - base, fs);
		put(t, rec[i], e, fs);
		put(t, rec[i] + fs, (v12 ? names : 0) + 1 + 7 * i, 4);
	}
	return 0x210;
}

struct got {
	uint64_t entry[4], end[4];
	char name[4][16];
	int n;
};

static void collect(uint64_t entry, uint64_t end, const char *name, size_t len,
		    void *arg)
{
	struct got *g = arg;

	if (g->n < 4 && len < sizeof(g->name[0])) {
		g->entry[g->n] = entry;
		g->end[g->n] = end;
		memcpy(g->name[g->n], name, len);
		g->name[g->n][len] = 0;
	}
	g->n++;
}

static void write_seed(const char *label, const struct tab *t, size_t len)
{
	const char *dir = getenv("GOPCLNTAB_SEEDS");
	char *path;
	FILE *f;

	if (!dir)
		return;
	path = xasprintf("%s/%s", dir, label);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == ' ' || *p == '/')
			*p = '-';
	f = fopen(path, "w");
	if (f) {
		fwrite(t->b, 1, len, f);
		fclose(f);
	}
	free(path);
}

static void test_format(const char *label, uint32_t magic, unsigned ps,
			bool msb)
{
	struct tab t;
	struct got g = {0};
	size_t len = make_table(&t, magic, ps, msb);
	long n = gopclntab_each(t.b, len, 0, msb, collect, &g);
	char name[128];

	write_seed(label, &t, len);
	snprintf(name, sizeof(name), "%s: two functions", label);
	CHECK_INT(name, n, 2);
	snprintf(name, sizeof(name), "%s: main.a at +0x100, 0x40 bytes", label);
	CHECK(name,
	      g.n == 2 && !strcmp(g.name[0], "main.a") &&
		      g.entry[0] == TEXT + 0x100 && g.end[0] == TEXT + 0x140,
	      "got %s %#llx..%#llx", g.name[0], (unsigned long long)g.entry[0],
	      (unsigned long long)g.end[0]);
	snprintf(name, sizeof(name), "%s: main.b at +0x140, 0x20 bytes", label);
	CHECK(name,
	      g.n == 2 && !strcmp(g.name[1], "main.b") &&
		      g.entry[1] == TEXT + 0x140 && g.end[1] == TEXT + 0x160,
	      "got %s %#llx..%#llx", g.name[1], (unsigned long long)g.entry[1],
	      (unsigned long long)g.end[1]);

	/* every shorter buffer: no overrun (ASan in the fuzz target), and
	 * never a function whose name was cut */
	bool ok = true;
	for (size_t cut = 0; cut < len; cut++) {
		struct got h = {0};

		gopclntab_each(t.b, cut, 0, msb, collect, &h);
		for (int i = 0; i < h.n && i < 4; i++)
			ok &= !strcmp(h.name[i], "main.a") ||
			      !strcmp(h.name[i], "main.b");
	}
	snprintf(name, sizeof(name), "%s: cut short at every length", label);
	CHECK(name, ok, "a cut table gave a wrong name");

	/* found by scanning: after a stray magic with a bad header */
	static uint8_t seg[8192];
	memset(seg, 0xee, sizeof(seg));
	memcpy(seg + 0x40, t.b, 8); /* header alone: its table is garbage */
	memcpy(seg + 0x1000, t.b, len);
	snprintf(name, sizeof(name), "%s: found by scanning at 0x1000", label);
	CHECK_INT(name, gopclntab_find(seg, sizeof(seg), msb), 0x1000);
}

static void test_corrupt(void)
{
	struct tab t;
	struct got g = {0};
	size_t len = make_table(&t, GOPCLNTAB_MAGIC_118, 8, false);

	t.b[6] = 3; /* no such pc quantum */
	CHECK_INT("bad quantum: refused",
		  gopclntab_each(t.b, len, 0, false, collect, &g), -1);
	make_table(&t, GOPCLNTAB_MAGIC_118, 8, false);
	put(&t, 8, 1ULL << 60, 8); /* nfunc far beyond the buffer */
	CHECK_INT("huge nfunc: refused",
		  gopclntab_each(t.b, len, 0, false, collect, &g), -1);
	make_table(&t, GOPCLNTAB_MAGIC_118, 8, false);
	put(&t, 8 + 3 * 8, ~0ULL, 8); /* names past the end */
	CHECK_INT("names past the end: nothing",
		  gopclntab_each(t.b, len, 0, false, collect, &g), -1);
	make_table(&t, GOPCLNTAB_MAGIC_118, 8, false);
	put(&t, 0x100 + 8, 0x2000, 4); /* main.b out of order */
	g.n = 0;
	CHECK_INT("an entry out of order: skipped",
		  gopclntab_each(t.b, len, 0, false, collect, &g), 1);
	make_table(&t, GOPCLNTAB_MAGIC_118, 8, false);
	g.n = 0;
	CHECK_INT("the header's .text address wins over the section's",
		  (gopclntab_each(t.b, len, 0x7000000, false, collect, &g),
		   g.entry[0]),
		  TEXT + 0x100);
	put(&t, 8 + 2 * 8, 0, 8); /* left to a relocation */
	g.n = 0;
	CHECK_INT("a header without .text's address: the section's",
		  (gopclntab_each(t.b, len, 0x7000000, false, collect, &g),
		   g.entry[0]),
		  0x7000000 + 0x100);
}

/* ---- inline trees written here ---- */

/* Where the funcdata segment is loaded, go:func.* in it, and the inline
 * tree (from go:func.*) */
#define FDV	 0x500000ULL
#define GOFUNC	 (FDV + 0x20)
#define TREE_OFF 0x10

struct itab {
	struct tab t;
	uint8_t fd[256]; /* the segment at FDV */
	size_t len;
	struct gopclntab_funcdata fdesc;
};

/*
 * main.outer at TEXT+0x100 (0x40 bytes); its pcdata[2] (at pctab + 8)
 * says: [+0, +0x10) its own code, [+0x10, +0x20) tree entry 1, [+0x20,
 * +0x30) entry 0, [+0x30, +0x40) its own. Entry 0 is main.mid called
 * from +0x38, entry 1 main.leaf called from +0x28 (inside main.mid).
 * Header words name the tables: names 0x200, cutab 0x240, filetab
 * 0x260, pctab 0x278, function table 0x100, func record at 0x180.
 */
static void make_inline_table(struct itab *it, uint32_t magic, unsigned ps,
			      bool msb)
{
	/* pairs (zigzag value delta, pc delta): -1, 1, 0, -1 for 0x10
	 * each; one pc delta as a two-byte varint; 0 ends it */
	static const uint8_t pcdata[] = {0x00, 0x10, 0x04, 0x90, 0x00,
					 0x01, 0x10, 0x01, 0x10, 0x00};
	bool v118 = magic != GOPCLNTAB_MAGIC_116,
	     v120 = magic == GOPCLNTAB_MAGIC_120;
	struct tab *t = &it->t;
	unsigned fs = v118 ? 4 : ps, npc_at, pcd_at, esize = v120 ? 16 : 20,
		 name_at = v120 ? 4 : 12;
	size_t rec = 0x180, fdat, tree = GOFUNC - FDV + TREE_OFF;
	uint64_t entry = v118 ? 0x100 : TEXT + 0x100;

	memset(it, 0, sizeof(*it));
	t->msb = msb;
	put(t, 0, magic, 4);
	t->b[6] = 1;
	t->b[7] = ps;
	put(t, 8, 1, ps); /* nfunc */
	if (v118) {
		put(t, 8 + 2 * ps, TEXT, ps);
		put(t, 8 + 3 * ps, 0x200, ps);
		put(t, 8 + 4 * ps, 0x240, ps);
		put(t, 8 + 5 * ps, 0x260, ps);
		put(t, 8 + 6 * ps, 0x278, ps);
		put(t, 8 + 7 * ps, 0x100, ps);
	} else {
		put(t, 8 + 2 * ps, 0x200, ps);
		put(t, 8 + 3 * ps, 0x240, ps);
		put(t, 8 + 4 * ps, 0x260, ps);
		put(t, 8 + 5 * ps, 0x278, ps);
		put(t, 8 + 6 * ps, 0x100, ps);
	}
	memcpy(t->b + 0x200, "\0main.outer\0main.mid\0main.leaf", 31);
	put(t, 0x100, entry, fs);
	put(t, 0x100 + fs, rec - 0x100, fs);
	put(t, 0x100 + 2 * fs, entry + 0x40, fs);
	/* the record: entry, nameoff, ..., npcdata, ..., nfuncdata */
	npc_at = v118 ? 28 : ps + 24;
	pcd_at = v120 ? 44 : v118 ? 40 : ps + 36;
	put(t, rec, entry, fs);
	put(t, rec + fs, 1, 4);
	put(t, rec + npc_at, 3, 4);
	t->b[rec + pcd_at - 1] = 4;
	put(t, rec + pcd_at + 8, 8, 4); /* pcdata[2], from the pctab */
	memcpy(t->b + 0x278 + 8, pcdata, sizeof(pcdata));
	fdat = rec + pcd_at + 12;
	if (v118) {
		for (int i = 0; i < 3; i++)
			put(t, fdat + 4 * i, UINT32_MAX, 4);
		put(t, fdat + 12, TREE_OFF, 4);
	} else {
		if (ps == 8 && (fdat - rec) & 4)
			fdat += 4;
		put(t, fdat + 3 * ps, FDV + tree, ps);
	}
	/* the tree, in the funcdata segment */
	struct tab f = {.msb = msb};
	put(&f, esize * 0 + name_at, 12, 4); /* main.mid */
	put(&f, esize * 0 + name_at + 4, 0x38, 4);
	put(&f, esize * 1 + name_at, 21, 4); /* main.leaf */
	put(&f, esize * 1 + name_at + 4, 0x28, 4);
	memcpy(it->fd + tree, f.b, 2 * esize);
	it->len = 0x2a0;
	it->fdesc = (struct gopclntab_funcdata){it->fd, sizeof(it->fd), FDV,
						v118 ? GOFUNC : 0};
}

struct inl_got {
	uint64_t start[4], end[4];
	char names[4][64]; /* "main.leaf;main.mid" */
	int n;
};

static void collect_inline(uint64_t start, uint64_t end,
			   const struct gopclntab_str *names, unsigned n,
			   void *arg)
{
	struct inl_got *g = arg;

	if (g->n < 4) {
		char *p = g->names[g->n];
		size_t left = sizeof(g->names[0]);

		g->start[g->n] = start;
		g->end[g->n] = end;
		*p = 0;
		for (unsigned i = 0; i < n && left > 1; i++) {
			int w = snprintf(p, left, "%s%.*s", i ? ";" : "",
					 (int)names[i].len, names[i].p);

			if (w < 0 || (size_t)w >= left)
				break;
			p += w;
			left -= w;
		}
	}
	g->n++;
}

/* Is h's stretch i one of g's? */
static bool inline_known(const struct inl_got *g, const struct inl_got *h,
			 int i)
{
	for (int j = 0; j < g->n && j < 4; j++)
		if (h->start[i] == g->start[j] && h->end[i] == g->end[j] &&
		    !strcmp(h->names[i], g->names[j]))
			return true;
	return false;
}

static void test_inline_format(const char *label, uint32_t magic, unsigned ps,
			       bool msb)
{
	struct itab it;
	struct inl_got g = {0};
	char name[128];
	long n;

	make_inline_table(&it, magic, ps, msb);
	n = gopclntab_each_inline(it.t.b, it.len, 0, msb, &it.fdesc,
				  collect_inline, &g);
	/* the fuzz target's seed: the table, then the funcdata segment */
	struct tab seed = it.t;
	memcpy(seed.b + it.len, it.fd, sizeof(it.fd));
	snprintf(name, sizeof(name), "%s inline", label);
	write_seed(name, &seed, it.len + sizeof(it.fd));
	snprintf(name, sizeof(name), "%s inline: two stretches", label);
	CHECK_INT(name, n, 2);
	snprintf(name, sizeof(name),
		 "%s inline: +0x110..0x120 is main.leaf in main.mid", label);
	CHECK(name,
	      g.start[0] == TEXT + 0x110 && g.end[0] == TEXT + 0x120 &&
		      !strcmp(g.names[0], "main.leaf;main.mid"),
	      "got %#llx..%#llx %s", (unsigned long long)g.start[0],
	      (unsigned long long)g.end[0], g.names[0]);
	snprintf(name, sizeof(name), "%s inline: +0x120..0x130 is main.mid",
		 label);
	CHECK(name,
	      g.start[1] == TEXT + 0x120 && g.end[1] == TEXT + 0x130 &&
		      !strcmp(g.names[1], "main.mid"),
	      "got %#llx..%#llx %s", (unsigned long long)g.start[1],
	      (unsigned long long)g.end[1], g.names[1]);

	/* every shorter table and segment: what comes is right or absent */
	bool ok = true;
	for (size_t cut = 0; cut < it.len; cut++) {
		struct inl_got h = {0};

		gopclntab_each_inline(it.t.b, cut, 0, msb, &it.fdesc,
				      collect_inline, &h);
		for (int i = 0; i < h.n && i < 4; i++)
			ok &= inline_known(&g, &h, i);
	}
	for (size_t cut = 0; cut < sizeof(it.fd); cut++) {
		struct gopclntab_funcdata fd = it.fdesc;
		struct inl_got h = {0};

		fd.len = cut;
		gopclntab_each_inline(it.t.b, it.len, 0, msb, &fd,
				      collect_inline, &h);
		for (int i = 0; i < h.n && i < 4; i++)
			ok &= inline_known(&g, &h, i);
	}
	snprintf(name, sizeof(name), "%s inline: cut short at every length",
		 label);
	CHECK(name, ok, "a cut table gave a wrong stretch");
}

static long inline_count(struct itab *it)
{
	return gopclntab_each_inline(it->t.b, it->len, 0, it->t.msb, &it->fdesc,
				     NULL, NULL);
}

static void test_inline_corrupt(void)
{
	struct itab it;
	size_t tree = GOFUNC - FDV + TREE_OFF;
	struct tab f = {0};

	make_inline_table(&it, GOPCLNTAB_MAGIC_12, 8, false);
	CHECK_INT("go1.2: no inline trees read",
		  gopclntab_each_inline(it.t.b, it.len, 0, false, &it.fdesc,
					NULL, NULL),
		  -1);
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	it.fdesc.gofunc = 0;
	CHECK_INT("go1.18 without go:func.*: no stretches", inline_count(&it),
		  0);
	/* main.mid called from inside itself: a loop, no chain */
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	put(&f, 16, 0x28, 4);
	memcpy(it.fd + tree + 16, f.b + 16, 4);
	CHECK_INT("a loop in the tree: skipped", inline_count(&it), 0);
	/* a call site outside the function */
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	put(&f, 16, 0x40, 4);
	memcpy(it.fd + tree + 16, f.b + 16, 4);
	CHECK_INT("a call site past the function's end: skipped",
		  inline_count(&it), 0);
	/* an index far past the segment (value +2 becomes +0x7ffffe) */
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	memcpy(it.t.b + 0x278 + 8 + 2,
	       (const uint8_t[]){0xfc, 0xff, 0xff, 0x07}, 4);
	memcpy(it.t.b + 0x278 + 8 + 6, (const uint8_t[]){0x10, 0x00}, 2);
	CHECK_INT("an index past the segment: no stretch from it",
		  inline_count(&it), 0);
	/* a name offset past the name table */
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	put(&f, 32, 0x7fffffff, 4); /* main.leaf's */
	memcpy(it.fd + tree + 32, f.b + 32, 4);
	CHECK_INT("a name past the table: its stretch skipped",
		  inline_count(&it), 1);
	/* pcdata[2] past the buffer */
	make_inline_table(&it, GOPCLNTAB_MAGIC_118, 8, false);
	put(&it.t, 0x180 + 40 + 8, 0x7fffffff, 4);
	CHECK_INT("a pc-value table past the buffer: none", inline_count(&it),
		  0);
}

/*
 * The runtime's moduledata: its words 0-10 point at the table and its
 * parts, text at word 22, go:func.* at word 38 (1.18) or 40 (1.20).
 * Decoys before it: the table's address alone, and a moduledata whose
 * name table points elsewhere.
 */
static void test_moduledata(const char *label, uint32_t magic, bool msb)
{
	static uint8_t seg[4096];
	const uint64_t tv = 0x4c0000;
	struct itab it;
	struct tab m = {.msb = msb};
	unsigned gofunc_at = magic == GOPCLNTAB_MAGIC_120 ? 40 : 38;
	char name[128];

	make_inline_table(&it, magic, 8, msb);
	memset(seg, 0, sizeof(seg));
	put(&m, 0, tv, 8);
	put(&m, 8, tv + 0x200, 8);
	put(&m, 16, 0x30, 8);
	put(&m, 24, 0x30, 8);
	put(&m, 32, tv + 0x240, 8);
	put(&m, 56, tv + 0x260, 8);
	put(&m, 80, tv + 0x278, 8);
	put(&m, 8 * 22, TEXT, 8);
	put(&m, 8 * gofunc_at, GOFUNC, 8);
	memcpy(seg + 0x400, m.b, 0x160);
	memcpy(seg + 0x10, m.b, 8); /* the table's address alone */
	put(&m, 8, tv + 0x208, 8);  /* a moduledata naming other names */
	memcpy(seg + 0x100, m.b, 0x160);
	snprintf(name, sizeof(name), "%s: go:func.* from the moduledata",
		 label);
	CHECK_INT(name,
		  gopclntab_gofunc(seg, sizeof(seg), it.t.b, it.len, tv, msb),
		  GOFUNC);
	snprintf(name, sizeof(name), "%s: a moduledata cut short: none", label);
	CHECK_INT(name,
		  gopclntab_gofunc(seg, 0x400 + 8 * gofunc_at + 4, it.t.b,
				   it.len, tv, msb),
		  0);
	snprintf(name, sizeof(name), "%s: another table's address: none",
		 label);
	CHECK_INT(
		name,
		gopclntab_gofunc(seg, sizeof(seg), it.t.b, it.len, tv + 8, msb),
		0);
}

/* ---- Go builds ---- */

static char fx[PATH_MAX], wl[PATH_MAX];

static void lookup_facts(const char *facts_of, const char *file)
{
	char *path = xasprintf("%s/go-facts.txt", fx), line[256];
	char *bin = xasprintf("%s/%s", wl, file);
	struct elf_symtab *t = elf_symtab_open(bin, "");
	FILE *f = fopen(path, "r");
	int checked = 0;

	if (!t || !f) {
		CHECK(file, false, "cannot open %s or %s", bin, path);
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char kind[8], of[64], sym[128], name[256];
		unsigned long long addr;
		const char *got;
		uint64_t off = ~0ULL;

		if (sscanf(line, "%7s %63s %127s %llx", kind, of, sym, &addr) !=
			    4 ||
		    strcmp(kind, "go") || strcmp(of, facts_of))
			continue;
		got = elf_symtab_lookup(t, addr + 4, &off);
		snprintf(name, sizeof(name), "%s: %s at %#llx + 4", file, sym,
			 addr);
		CHECK(name, got && !strcmp(got, sym) && off == 4,
		      "got %s+%#llx", got ? got : "(null)",
		      (unsigned long long)off);
		checked++;
	}
	CHECK(file, checked >= 5, "only %d facts for %s", checked, facts_of);
out:
	if (f)
		fclose(f);
	elf_symtab_free(t);
	free(bin);
	free(path);
}

/* main.goGamma's instructions against objdump's source lines: main.mix
 * inlined into it where they are mix's, nothing inlined elsewhere. */
static void inline_facts(const char *facts_of, const char *file)
{
	char *path = xasprintf("%s/go-facts.txt", fx), line[256];
	char *bin = xasprintf("%s/%s", wl, file), name[256];
	struct elf_symtab *t = elf_symtab_open(bin, "");
	FILE *f = fopen(path, "r");
	int n = 0, right = 0, in_mix = 0;
	char wrong[128] = "";

	while (t && f && fgets(line, sizeof(line), f)) {
		char kind[8], of[64];
		unsigned long long addr;
		const char *names[4];
		unsigned got;
		int mix;

		if (sscanf(line, "%7s %63s %llx %d", kind, of, &addr, &mix) !=
			    4 ||
		    strcmp(kind, "inl") || strcmp(of, facts_of))
			continue;
		got = elf_symtab_inlined(t, addr, names, 4);
		n++;
		in_mix += mix;
		if (mix ? got == 1 && !strcmp(names[0], "main.mix") : !got)
			right++;
		else if (!*wrong)
			snprintf(wrong, sizeof(wrong), "%#llx: %u inlined, %s",
				 addr, got, got ? names[0] : "-");
	}
	snprintf(name, sizeof(name),
		 "%s: main.mix inlined where objdump says (%d of %d "
		 "instructions of main.goGamma)",
		 file, in_mix, n);
	CHECK(name, t && f && n >= 10 && in_mix >= 3 && right == n,
	      "%d of %d right; first wrong %s", right, n, wrong);
	if (f)
		fclose(f);
	elf_symtab_free(t);
	free(bin);
	free(path);
}

/* The same inlined calls at every byte of main.goGamma in two builds of
 * it: through go:func.* from the symbol table, and found by scanning
 * for the moduledata. */
static void inline_same(const char *unstripped, const char *other)
{
	char *b1 = xasprintf("%s/%s", wl, unstripped),
	     *b2 = xasprintf("%s/%s", wl, other), name[256];
	char *path = xasprintf("%s/go-facts.txt", fx), line[256];
	struct elf_symtab *t1 = elf_symtab_open(b1, ""),
			  *t2 = elf_symtab_open(b2, "");
	unsigned long long entry = 0, addr;
	FILE *f = fopen(path, "r");
	int bytes = 0, same = 0, inlined = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char kind[8], of[64], sym[128];

		if (sscanf(line, "%7s %63s %127s %llx", kind, of, sym, &addr) ==
			    4 &&
		    !strcmp(kind, "go") && !strcmp(of, unstripped) &&
		    !strcmp(sym, "main.goGamma"))
			entry = addr;
	}
	for (addr = entry; t1 && t2 && entry; addr++) {
		const char *s = elf_symtab_lookup(t1, addr, NULL), *n1[4],
			   *n2[4];
		unsigned k1, k2;

		if (!s || strcmp(s, "main.goGamma"))
			break;
		k1 = elf_symtab_inlined(t1, addr, n1, 4);
		k2 = elf_symtab_inlined(t2, addr, n2, 4);
		bytes++;
		inlined += k1 > 0;
		same += k1 == k2 && (!k1 || !strcmp(n1[0], n2[0]));
	}
	snprintf(name, sizeof(name),
		 "%s: main.goGamma's inlined calls as in %s (%d of %d bytes "
		 "inlined)",
		 other, unstripped, inlined, bytes);
	CHECK(name, bytes >= 32 && inlined >= 8 && same == bytes,
	      "%d of %d bytes the same", same, bytes);
	if (f)
		fclose(f);
	elf_symtab_free(t1);
	elf_symtab_free(t2);
	free(b1);
	free(b2);
	free(path);
}

static void test_go_builds(void)
{
	const char *f = getenv("FIXTURES"), *w = getenv("WORKLOADS");
	char *facts;

	if (!f || !w || !realpath(f, fx) || !realpath(w, wl)) {
		SKIP("Go builds", "FIXTURES and WORKLOADS not set");
		return;
	}
	facts = xasprintf("%s/go-facts.txt", fx);
	if (access(facts, R_OK)) {
		SKIP("Go builds", "no %s (go was not found at build time)",
		     facts);
		free(facts);
		return;
	}
	free(facts);
	lookup_facts("goburn", "goburn-stripped");
	lookup_facts("goburn", "goburn-noshdr");
	lookup_facts("goburn-arm64", "goburn-arm64-stripped");
	lookup_facts("goburn-arm64", "goburn-arm64-noshdr");
	lookup_facts("goburn-pie", "goburn-pie-stripped");
	lookup_facts("goburn-pie", "goburn-pie-noshdr");
	inline_facts("goburn", "goburn");
	inline_facts("goburn", "goburn-stripped");
	inline_facts("goburn", "goburn-noshdr");
	inline_facts("goburn-arm64", "goburn-arm64");
	inline_facts("goburn-arm64", "goburn-arm64-stripped");
	inline_facts("goburn-arm64", "goburn-arm64-noshdr");
	inline_same("goburn", "goburn-stripped");
	inline_same("goburn-arm64", "goburn-arm64-noshdr");
	inline_same("goburn-pie", "goburn-pie-stripped");
	inline_same("goburn-pie", "goburn-pie-noshdr");
}

int main(void)
{
	test_format("go1.2 64-bit", GOPCLNTAB_MAGIC_12, 8, false);
	test_format("go1.16 64-bit", GOPCLNTAB_MAGIC_116, 8, false);
	test_format("go1.18 64-bit", GOPCLNTAB_MAGIC_118, 8, false);
	test_format("go1.20 64-bit", GOPCLNTAB_MAGIC_120, 8, false);
	test_format("go1.20 32-bit", GOPCLNTAB_MAGIC_120, 4, false);
	test_format("go1.16 32-bit big-endian", GOPCLNTAB_MAGIC_116, 4, true);
	test_format("go1.20 64-bit big-endian", GOPCLNTAB_MAGIC_120, 8, true);
	test_corrupt();
	test_inline_format("go1.16 64-bit", GOPCLNTAB_MAGIC_116, 8, false);
	test_inline_format("go1.16 32-bit big-endian", GOPCLNTAB_MAGIC_116, 4,
			   true);
	test_inline_format("go1.18 64-bit", GOPCLNTAB_MAGIC_118, 8, false);
	test_inline_format("go1.20 64-bit", GOPCLNTAB_MAGIC_120, 8, false);
	test_inline_format("go1.20 32-bit", GOPCLNTAB_MAGIC_120, 4, false);
	test_inline_format("go1.20 64-bit big-endian", GOPCLNTAB_MAGIC_120, 8,
			   true);
	test_inline_corrupt();
	test_moduledata("go1.18 moduledata", GOPCLNTAB_MAGIC_118, false);
	test_moduledata("go1.20 moduledata", GOPCLNTAB_MAGIC_120, false);
	test_moduledata("go1.20 moduledata big-endian", GOPCLNTAB_MAGIC_120,
			true);
	test_go_builds();
	return 0;
}
