// SPDX-License-Identifier: GPL-2.0
/*
 * Go's function table (common/gopclntab.c) against answers known in
 * advance:
 *   - tables written here in each format (Go 1.2, 1.16, 1.18, 1.20;
 *     64- and 32-bit, little- and big-endian), two functions each, then
 *     cut short and corrupted;
 *   - the Go builds of tests/unit/gopclntab.mk, stripped and without
 *     section headers, x86_64, arm64 and PIE, looked up through elf_symtab at
 *     the addresses `go tool nm` gave for their unstripped twins.
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
		    strcmp(of, facts_of))
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
	test_go_builds();
	return 0;
}
