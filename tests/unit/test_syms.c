// SPDX-License-Identifier: GPL-2.0
// layer: sym
/*
 * Symbolisation against answers known in advance:
 *   - kallsyms files: one written here with known addresses and garbage,
 *     and the real /proc/kallsyms checked against its own lines;
 *   - the ELF fixtures of tests/unit/syms.mk (in $FIXTURES), whose
 *     functions nm listed in sym-facts.txt at build time: non-PIE, PIE,
 *     shared library, stripped with separate debug files, truncated;
 *   - processes spawned from those fixtures, which print where their
 *     functions are loaded, looked up through /proc;
 *   - a fake procfs built here (containers, deleted files, odd maps).
 * Run from the tests build directory, which it writes scratch files to.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "stackbox.h"
#include "syms.h"

static char fx[PATH_MAX]; /* $FIXTURES, absolute */
static char cwd[PATH_MAX];

/* ---- helpers ---- */

static void check_sym(const char *name, const char *got, uint64_t got_off,
		      const char *want, uint64_t want_off)
{
	CHECK(name, got && !strcmp(got, want) && got_off == want_off,
	      "got %s+%#llx, want %s+%#llx", got ? got : "(null)",
	      (unsigned long long)got_off, want, (unsigned long long)want_off);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		error_exit("cannot write %s", path);
}

/* A shell command built by the caller; takes ownership of cmd. */
static void run(char *cmd)
{
	if (system(cmd))
		error_exit("failed: %s", cmd);
	free(cmd);
}

static char *fxpath(const char *name)
{
	return xasprintf("%s/%s", fx, name);
}

/* ---- facts from nm and readelf ---- */

struct fact {
	char kind[16], file[64], name[160];
	uint64_t addr, size;
};

static struct fact facts[64];
static int nfacts;

static bool load_facts(void)
{
	char *path = fxpath("sym-facts.txt"), line[512];
	FILE *f = fopen(path, "r");
	unsigned long long a = 0, s = 0;
	struct fact *x;

	free(path);
	if (!f)
		return false;
	while (nfacts < (int)ARRAY_SIZE(facts) &&
	       fgets(line, sizeof(line), f)) {
		x = &facts[nfacts];
		if (sscanf(line, "%15s %63s %159s %llx %llx", x->kind, x->file,
			   x->name, &a, &s) < 3)
			continue;
		x->addr = a;
		x->size = s;
		nfacts++;
	}
	fclose(f);
	return nfacts > 0;
}

static const struct fact *fact(const char *kind, const char *file,
			       const char *name)
{
	int i;

	for (i = 0; i < nfacts; i++)
		if (!strcmp(facts[i].kind, kind) &&
		    !strcmp(facts[i].file, file) &&
		    (!name || !strcmp(facts[i].name, name)))
			return &facts[i];
	return NULL;
}

/* ---- kallsyms ---- */

static const char fake_kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000000000 T zero_fn\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 T __local_fn_alias\n"
	"ffffffff81000100 t local_fn\n"
	"ffffffff81000200 t weak_alias_local\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000310 D more_data\n"
	"ffffffff81000400 T after_data\n"
	"garbage line\n"
	"\n"
	"ffffffff81000500\n"
	"ffffffff81000600 T\n"
	"zzzzzzzzzzzzzzzz T bad_hex\n"
	"ffffffff81000700 TT two_letters\n"
	" ffffffff81000800 T leading_space\n"
	"-ffffffff81000900 T negative\n"
	"fffffffffffffffffffff T too_big\n"
	"ffffffff81000ff0 T __pfx_pfx_fn\n"
	"ffffffff81001000 T pfx_fn\n"
	"ffffffffc0002000 t mod_fn1\t[mymod]\n"
	"ffffffffc0002080 T mod_fn2\t[mymod]\n"
	"ffffffffc0002100 d mod_data\t[mymod]\n"
	"ffffffffc0001000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n"
	"ffffffffc0003000 t last_fn\t[othermod]";

static void ksyms_expect(const struct ksyms *ks, uint64_t addr,
			 const char *want, uint64_t want_off)
{
	uint64_t off = 0;
	const char *got = ksyms_lookup(ks, addr, &off);
	char *name = xasprintf("ksyms fake %#llx", (unsigned long long)addr);

	if (want)
		check_sym(name, got, off, want, want_off);
	else
		CHECK(name, !got, "got %s+%#llx, want nothing", got,
		      (unsigned long long)off);
	free(name);
}

static void test_ksyms_fake(void)
{
	char *longline = xmalloc(200001), *text;
	struct ksyms *ks;

	/* a line far longer than any buffer, between two real ones */
	memset(longline, 'x', 200000);
	longline[200000] = 0;
	text = xasprintf("ffffffff80ffff00 t before_long\n%s\n%s", longline,
			 fake_kallsyms);
	write_text("syms-kallsyms", text);
	free(text);
	free(longline);
	ks = ksyms_load("syms-kallsyms");
	CHECK("ksyms fake load", ks, "%s", strerror(errno));
	if (!ks)
		return;
	ksyms_expect(ks, 0, NULL, 0);
	ksyms_expect(ks, 0x10, NULL, 0);
	ksyms_expect(ks, 0xffffffff80000000, NULL, 0);
	ksyms_expect(ks, 0xffffffff80ffff10, "before_long", 0x10);
	/* aliases: fewer underscores, then global over weak over local */
	ksyms_expect(ks, 0xffffffff81000000, "startup_64", 0);
	ksyms_expect(ks, 0xffffffff81000010, "startup_64", 0x10);
	ksyms_expect(ks, 0xffffffff81000100, "local_fn", 0);
	ksyms_expect(ks, 0xffffffff81000201, "weak_fn", 1);
	ksyms_expect(ks, 0xffffffff810002ff, "weak_fn", 0xff);
	/* data ends the function before it */
	ksyms_expect(ks, 0xffffffff81000300, NULL, 0);
	ksyms_expect(ks, 0xffffffff81000380, NULL, 0);
	ksyms_expect(ks, 0xffffffff81000405, "after_data", 5);
	/* no garbage line added a symbol */
	ksyms_expect(ks, 0xffffffff81000800, "after_data", 0x400);
	ksyms_expect(ks, 0xffffffff81000950, "after_data", 0x550);
	/* a name that shares its bytes with the one before it */
	ksyms_expect(ks, 0xffffffff81000ff4, "__pfx_pfx_fn", 4);
	ksyms_expect(ks, 0xffffffff81001008, "pfx_fn", 8);
	/* the end of vmlinux text is not the start of an endless function */
	ksyms_expect(ks, 0xffffffff90000000, NULL, 0);
	/* modules, listed after vmlinux and out of order */
	ksyms_expect(ks, 0xffffffffc0001010, "bpf_prog_6deef7357e7b4530_x",
		     0x10);
	ksyms_expect(ks, 0xffffffffc0001800, "bpf_prog_6deef7357e7b4530_x",
		     0x800);
	ksyms_expect(ks, 0xffffffffc0002000, "mod_fn1", 0);
	ksyms_expect(ks, 0xffffffffc0002090, "mod_fn2", 0x10);
	ksyms_expect(ks, 0xffffffffc0002108, NULL, 0);
	ksyms_expect(ks, 0xffffffffc0003100, "last_fn", 0x100);
	ksyms_expect(ks, 0xffffffffc0003000 + (64 << 20), NULL, 0);
	ksyms_free(ks);

	write_text("syms-kallsyms", "0000000000000000 T _stext\n"
				    "0000000000000000 t local_fn\n"
				    "0000000000000000 T schedule\n");
	ks = ksyms_load("syms-kallsyms");
	CHECK("ksyms restricted loads", ks, "%s", strerror(errno));
	CHECK("ksyms restricted empty",
	      !ksyms_lookup(ks, 0, NULL) &&
		      !ksyms_lookup(ks, 0xffffffff81000000, NULL) &&
		      !ksyms_lookup(ks, UINT64_MAX, NULL),
	      "a symbol resolved");
	ksyms_free(ks);

	write_text("syms-kallsyms", "");
	ks = ksyms_load("syms-kallsyms");
	CHECK("ksyms empty file", ks && !ksyms_lookup(ks, 0x1000, NULL),
	      "no table or a symbol");
	ksyms_free(ks);

	errno = 0;
	ks = ksyms_load("syms-no-such-kallsyms");
	CHECK("ksyms missing file", !ks && errno == ENOENT, "errno %d", errno);
	CHECK("ksyms lookup in NULL", !ksyms_lookup(NULL, 1, NULL), "found");
}

/*
 * Lines after the first step back in address (modules, BPF) are sorted
 * and merged with the rest: at an address both have, the best name still
 * wins, and on a tie the one earlier in the file.
 */
static void test_ksyms_tail(void)
{
	struct ksyms *ks;

	write_text("syms-kallsyms", "ffffffff81000000 t head_local\n"
				    "ffffffff81000100 T head_global\n"
				    "ffffffff81000300 T head_last\n"
				    "ffffffffc0000000 T mod_a\t[m]\n"
				    "ffffffff81000000 T tail_global\t[m2]\n"
				    "ffffffff81000100 t tail_worse\t[m2]\n"
				    "ffffffff81000100 T tail_tie\t[m2]\n"
				    "ffffffff81000200 d tail_gap\t[m2]\n"
				    "ffffffff81000200 d tail_gap2\t[m2]\n"
				    "ffffffff81000280 d tail_gap3\t[m2]\n"
				    "ffffffff81000080 T tail_between\t[m2]\n");
	ks = ksyms_load("syms-kallsyms");
	CHECK("ksyms tail load", ks, "%s", strerror(errno));
	if (!ks)
		return;
	ksyms_expect(ks, 0xffffffff81000004, "tail_global", 4);
	ksyms_expect(ks, 0xffffffff81000088, "tail_between", 8);
	ksyms_expect(ks, 0xffffffff81000104, "head_global", 4);
	ksyms_expect(ks, 0xffffffff81000210, NULL, 0);
	ksyms_expect(ks, 0xffffffff81000290, NULL, 0);
	ksyms_expect(ks, 0xffffffff81000310, "head_last", 0x10);
	ksyms_expect(ks, 0xffffffffc0000010, "mod_a", 0x10);
	ksyms_free(ks);
}

struct kline {
	uint64_t addr;
	char name[128];
};

static int kline_cmp(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of the real file, sorted, read here independently. */
static struct kline *read_kallsyms(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long a;
	size_t cap = 0;
	struct kline *k = NULL;
	char line[1024], type, name[128];

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 || !a ||
		    !strchr("tTwW", type))
			continue;
		k = grow_array(k, &cap, *n + 1, sizeof(*k));
		k[*n].addr = a;
		strcpy(k[*n].name, name);
		(*n)++;
	}
	fclose(f);
	qsort(k, *n, sizeof(*k), kline_cmp);
	return k;
}

/* Does any symbol at k[i]'s address have this name? */
static bool kalias(const struct kline *k, size_t n, size_t i, const char *s)
{
	size_t j = i;

	while (j > 0 && k[j - 1].addr == k[i].addr)
		j--;
	for (; j < n && k[j].addr == k[i].addr; j++)
		if (!strcmp(k[j].name, s))
			return true;
	return false;
}

static void test_ksyms_real(void)
{
	size_t n, i, step, bad = 0, tried = 0;
	struct kline *k = read_kallsyms(&n);
	struct ksyms *ks;
	const char *s;
	uint64_t off;

	if (!n) {
		SKIP("ksyms real", "/proc/kallsyms shows no addresses "
				   "(kptr_restrict, not root)");
		free(k);
		return;
	}
	ks = ksyms_load("/proc/kallsyms");
	CHECK("ksyms real load", ks, "%s", strerror(errno));
	step = n / 97 + 1;
	for (i = 0; ks && i < n; i += step) {
		tried++;
		s = ksyms_lookup(ks, k[i].addr, &off);
		if (!s || off || !kalias(k, n, i, s)) {
			if (!bad++)
				printf("# %s at %#llx gave %s+%#llx\n",
				       k[i].name, (unsigned long long)k[i].addr,
				       s ? s : "(null)",
				       (unsigned long long)off);
		}
		/* one byte in, still the same function */
		if (i + 1 < n && k[i + 1].addr > k[i].addr + 1 && s &&
		    (ksyms_lookup(ks, k[i].addr + 1, &off) != s || off != 1))
			bad++;
	}
	CHECK("ksyms real symbols give themselves back", ks && !bad,
	      "%zu of %zu wrong", bad, tried);
	for (i = 0; ks && i < n && strcmp(k[i].name, "schedule"); i++)
		;
	if (ks && i < n) {
		s = ksyms_lookup(ks, k[i].addr + 4, &off);
		check_sym("ksyms real schedule+4", s, off, "schedule", 4);
	}
	ksyms_free(ks);
	free(k);
}

/* ---- ELF files ---- */

static const char *const fixture_fns[] = {
	"fixture_alpha", "fixture_beta",  "fixture_asm",      "fixture_ifunc",
	"fixture_gamma", "fixture_delta", "fixture_lib_addr", "fixture_ver",
};

/* MiniDebugInfo keeps nm's T and t symbols, as gdb's recipe and Yocto's
 * do: an ifunc (i) is not among them, its address is its resolver's. */
static const char *elf_skip_fn;

/* Every fixture function of FACTS_FILE at its start, one byte in, and
 * its last byte (its fifth for a symbol without size). */
static void check_elf_fns(const char *label, const struct elf_symtab *t,
			  const char *facts_file)
{
	const struct fact *f;
	const char *s;
	char *name;
	uint64_t off, in;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(fixture_fns); i++) {
		f = fact("sym", facts_file, fixture_fns[i]);
		if (!f || (elf_skip_fn && !strcmp(elf_skip_fn, f->name)))
			continue;
		uint64_t at[] = {0, 1, f->size ? f->size - 1 : 4};

		for (j = 0; j < ARRAY_SIZE(at); j++) {
			in = at[j];
			name = xasprintf("elf %s %s+%llu", label, f->name,
					 (unsigned long long)in);
			off = 0;
			s = elf_symtab_lookup(t, f->addr + in, &off);
			check_sym(name, s, off, f->name, in);
			free(name);
		}
	}
}

static void test_elf_good(const char *label, const char *path, const char *root,
			  const char *facts_file)
{
	char *full = root ? xstrdup(path) : fxpath(path);
	char *rootp = root ? fxpath(root) : xstrdup("");
	struct elf_symtab *t = elf_symtab_open(full, rootp);
	const struct fact *id = fact("buildid", facts_file, NULL);
	char *name = xasprintf("elf %s opens", label);

	CHECK(name, t, "%s%s: %s", rootp, full, strerror(errno));
	free(name);
	if (t) {
		check_elf_fns(label, t, facts_file);
		name = xasprintf("elf %s build-id", label);
		CHECK_STR(name, elf_symtab_build_id(t), id ? id->name : "?");
		free(name);
	}
	elf_symtab_free(t);
	free(full);
	free(rootp);
}

/* A file opens but this function is not named (only .dynsym left). */
static void test_elf_unnamed(const char *label, const char *path,
			     const char *facts_file, const char *fn)
{
	char *full = fxpath(path), *name = xasprintf("elf %s", label);
	struct elf_symtab *t = elf_symtab_open(full, "");
	const struct fact *f = fact("sym", facts_file, fn);
	const char *s = t && f ? elf_symtab_lookup(t, f->addr, NULL) : "?";

	CHECK(name, t && f && !s, "table %p, %s gave %s", (void *)t, fn,
	      s ? s : "(null)");
	free(name);
	free(full);
	elf_symtab_free(t);
}

static void test_elf_bad(const char *label, const char *path, int want_err)
{
	char *name = xasprintf("elf %s rejected", label);
	struct elf_symtab *t;

	errno = 0;
	t = elf_symtab_open(path, "");
	CHECK(name, !t && errno == want_err, "table %p, errno %d want %d",
	      (void *)t, errno, want_err);
	elf_symtab_free(t);
	free(name);
}

/*
 * .dynsym alone (exported, then stripped): a sized symbol names its own
 * bytes only, so the static function after it is unnamed; the unsized
 * fixture_asm names its entry only, not the code after it. Addresses
 * from sym-pie's facts: the same source, link and layout.
 */
static void test_dynsym_sizes(void)
{
	char *full = fxpath("sym-dynsym");
	struct elf_symtab *t = elf_symtab_open(full, "");
	const struct fact *a = fact("sym", "sym-pie", "fixture_asm");
	const struct fact *al = fact("sym", "sym-pie", "fixture_alpha");
	uint64_t off = 0;
	const char *s;

	CHECK("elf .dynsym only opens", t && a && al, "%s", strerror(errno));
	if (t && a && al) {
		s = elf_symtab_lookup(t, al->addr + 1, &off);
		check_sym("elf .dynsym only: sized fixture_alpha+1", s, off,
			  "fixture_alpha", 1);
		s = elf_symtab_lookup(t, a->addr, &off);
		check_sym("elf .dynsym only: unsized fixture_asm at its entry",
			  s, off, "fixture_asm", 0);
		s = elf_symtab_lookup(t, a->addr + 4, &off);
		CHECK("elf .dynsym only: unsized fixture_asm does not reach on",
		      !s, "fixture_asm+4 named %s", s);
	}
	elf_symtab_free(t);
	free(full);
}

static void test_elf_files(void)
{
	char *p;

	test_elf_good("nopie", "sym-nopie", NULL, "sym-nopie");
	test_elf_good("pie", "sym-pie", NULL, "sym-pie");
	test_elf_good("lib", "libsymfix.so", NULL, "libsymfix.so");
	test_elf_good("debuglink same dir", "sym-dl/same/sym-dl", NULL,
		      "sym-pie");
	test_elf_good("debuglink .debug/", "sym-dl/dot/sym-dl", NULL,
		      "sym-pie");
	test_elf_good("debuglink ROOT/usr/lib/debug/DIR", "/opt/sym-dl",
		      "sym-root", "sym-pie");
	test_elf_good("build-id", "/usr/bin/sym-bid", "sym-broot", "sym-pie");
	if (ENABLE_MINIDEBUGINFO) {
		elf_skip_fn = "fixture_ifunc";
		test_elf_good("MiniDebugInfo", "sym-mdi/minidebuginfo/sym-pie",
			      NULL, "sym-pie");
		elf_skip_fn = NULL;
	} else
		test_elf_unnamed("MiniDebugInfo off",
				 "sym-mdi/minidebuginfo/sym-pie", "sym-pie",
				 "fixture_alpha");
	test_elf_unnamed(".gnu_debugdata not xz", "sym-mdi/sym-bad-xz",
			 "sym-pie", "fixture_alpha");

	test_elf_unnamed("stripped, no debug file", "sym-stripped", "sym-pie",
			 "fixture_alpha");
	test_elf_unnamed("debuglink with a wrong CRC", "sym-dl/badcrc/sym-dl",
			 "sym-pie", "fixture_alpha");
	test_elf_unnamed("stripped lib keeps no static",
			 "libsymfix-stripped.so", "libsymfix.so",
			 "fixture_delta");
	{
		char *full = fxpath("libsymfix-stripped.so");
		struct elf_symtab *t = elf_symtab_open(full, "");
		const struct fact *f =
			fact("sym", "libsymfix.so", "fixture_gamma");
		uint64_t off = 0;
		const char *s =
			t && f ? elf_symtab_lookup(t, f->addr + 2, &off) : NULL;

		check_sym("elf stripped lib .dynsym", s, off, "fixture_gamma",
			  2);
		elf_symtab_free(t);
		free(full);
	}

	test_dynsym_sizes();

	p = fxpath("sym-trunc-head");
	test_elf_bad("truncated in the headers", p, ENOEXEC);
	free(p);
	p = fxpath("sym-trunc-half");
	test_elf_bad("truncated in half", p, ENOEXEC);
	free(p);
	p = fxpath("sym-garbage");
	test_elf_bad("garbage", p, ENOEXEC);
	free(p);
	write_text("syms-empty", "");
	test_elf_bad("empty file", "syms-empty", ENOEXEC);
	test_elf_bad("missing file", "syms-no-such-file", ENOENT);
	test_elf_bad("directory", ".", ENOEXEC);
}

/* ---- corrupted copies: no crash, no huge allocation ---- */

static char *slurp(const char *path, size_t *len)
{
	char *b = read_file(path, len);

	if (!b)
		error_exit("cannot read %s", path);
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, b, len) != (ssize_t)len || close(fd))
		error_exit("cannot write %s", path);
}

static Elf64_Shdr *symtab_shdr(char *b, size_t len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh;
	int i;

	if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > len)
		return NULL;
	sh = (Elf64_Shdr *)(b + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			return &sh[i];
	return NULL;
}

enum corrupt { SHOFF, SHNUM, PHOFF, PHNUM, SYMOFF, SYMSIZE, SYMLINK, NCORRUPT };
static const char *const corrupt_names[] = {
	"e_shoff past the end",	       "e_shnum huge",
	"e_phoff past the end",	       "e_phnum huge",
	".symtab offset past the end", ".symtab size huge",
	".symtab sh_link bogus",
};

static void corrupt(char *b, size_t len, enum corrupt c)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh = symtab_shdr(b, len);

	switch (c) {
	case SHOFF:
		eh->e_shoff = (uint64_t)1 << 62;
		break;
	case SHNUM:
		eh->e_shnum = 0xfff0;
		break;
	case PHOFF:
		eh->e_phoff = (uint64_t)1 << 40;
		break;
	case PHNUM:
		eh->e_phnum = 0xfff0;
		break;
	case SYMOFF:
		sh->sh_offset = (uint64_t)1 << 40;
		break;
	case SYMSIZE:
		sh->sh_size = (uint64_t)1 << 50;
		break;
	case SYMLINK:
		sh->sh_link = 0xfff0;
		break;
	default:
		break;
	}
}

static void test_elf_corrupt(void)
{
	char *path = fxpath("sym-nopie"), *orig, *b, *name;
	struct elf_symtab *t;
	size_t len, i;

	orig = slurp(path, &len);
	free(path);
	if (len < sizeof(Elf64_Ehdr) || orig[EI_CLASS] != ELFCLASS64 ||
	    !symtab_shdr(orig, len)) {
		SKIP("elf corrupted headers",
		     "fixture is not ELF64 with .symtab");
		free(orig);
		return;
	}
	b = xmalloc(len);
	for (i = 0; i < NCORRUPT; i++) {
		memcpy(b, orig, len);
		corrupt(b, len, i);
		spit("syms-corrupt", b, len);
		t = elf_symtab_open("syms-corrupt", "");
		/* sh_link loses the names; the others are not ELF */
		name = xasprintf("elf %s", corrupt_names[i]);
		if (i == SYMLINK)
			CHECK(name, t && !elf_symtab_lookup(t, 0x401000, NULL),
			      "table %p", (void *)t);
		else
			CHECK(name, !t, "opened");
		free(name);
		elf_symtab_free(t);
	}
	free(b);
	free(orig);
}

/* Random bytes over the headers, in a child so a crash is a FAIL. */
static void test_elf_fuzz(void)
{
	char *path = fxpath("sym-nopie"), *orig, *b;
	struct elf_symtab *t;
	size_t len, i, j, at;
	int status, opened = 0;
	pid_t pid;

	orig = slurp(path, &len);
	free(path);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		b = xmalloc(len);
		srand(1);
		for (i = 0; i < 400; i++) {
			memcpy(b, orig, len);
			for (j = 0; j < 8; j++) {
				/* ELF and program headers, section headers */
				at = j & 1 ? len - 1 - (size_t)rand() % 4096
					   : (size_t)rand() % 1024;
				b[at % len] = rand();
			}
			spit("syms-fuzz", b, len);
			t = elf_symtab_open("syms-fuzz", "");
			if (t) {
				opened++;
				elf_symtab_lookup(t, 0x401000 + i, NULL);
				elf_symtab_offset_to_vaddr(t, i * 64);
			}
			elf_symtab_free(t);
		}
		printf("# fuzz: %d of 400 corrupted files still opened\n",
		       opened);
		exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK("elf 400 randomly corrupted files",
	      WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x",
	      status);
	free(orig);
}

/* ---- processes from the fixtures ---- */

enum { ALPHA, BETA, GAMMA, DELTA, NFN };
static const char *const child_fns[NFN] = {
	"fixture_alpha",
	"fixture_beta",
	"fixture_gamma",
	"fixture_delta",
};

struct child {
	pid_t pid;
	FILE *to, *from;
	uint64_t addr[NFN];
};

/* The "NAME ADDRESS" lines up to "ready". */
static bool child_read(struct child *c)
{
	char line[256], fn[64];
	unsigned long long a;
	int i;

	memset(c->addr, 0, sizeof(c->addr));
	while (fgets(line, sizeof(line), c->from)) {
		if (!strcmp(line, "ready\n"))
			return true;
		if (sscanf(line, "%63s %llx", fn, &a) != 2)
			continue;
		for (i = 0; i < NFN; i++)
			if (!strcmp(fn, child_fns[i]))
				c->addr[i] = a;
	}
	return false;
}

static bool child_spawn(struct child *c, const char *file)
{
	char *path = fxpath(file);
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		error_exit("pipe");
	fflush(stdout);
	c->pid = fork();
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		/* copies elsewhere find the library here */
		setenv("LD_LIBRARY_PATH", fx, 1);
		execl(path, path, "serve", (char *)NULL);
		_exit(127);
	}
	free(path);
	close(in[0]);
	close(out[1]);
	c->to = fdopen(in[1], "w");
	c->from = fdopen(out[0], "r");
	return child_read(c);
}

/* Close its stdin: it exits; reap it so /proc/PID is gone. */
static void child_end(struct child *c)
{
	fclose(c->to);
	waitpid(c->pid, NULL, 0);
	fclose(c->from);
}

/* The mapping of a live process holding addr, parsed here on its own. */
struct tmap {
	unsigned long long start, end, off, ino;
	char path[PATH_MAX];
};

static bool find_tmap(pid_t pid, uint64_t addr, const char *path_is,
		      struct tmap *m)
{
	char file[64], line[PATH_MAX + 256];
	bool found = false;
	unsigned int maj, min;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", pid);
	f = fopen(file, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		m->path[0] = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %4095[^\n]",
			   &m->start, &m->end, &m->off, &maj, &min, &m->ino,
			   m->path) < 6)
			continue;
		found = path_is ? !strcmp(m->path, path_is)
				: addr >= m->start && addr < m->end;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * Look addr up in pid; the expected module offset comes from the maps of
 * the live process real (pid itself, or the child a fake one copies).
 */
static void check_usym(const char *label, struct proc_syms *ps, pid_t pid,
		       pid_t real, uint64_t addr, const char *sym,
		       uint64_t sym_off, const char *module)
{
	char *name = xasprintf("proc %s", label);
	struct usym u;
	struct tmap m;
	int rc = proc_syms_lookup(ps, pid, addr, &u);
	uint64_t want_moff = find_tmap(real, addr, NULL, &m)
				     ? addr - m.start + m.off
				     : u.module_off;

	CHECK(name,
	      rc == (sym ? 0 : -1) &&
		      (sym ? u.sym && !strcmp(u.sym, sym) &&
				       u.sym_off == sym_off
			   : !u.sym) &&
		      (module ? u.module && !strcmp(u.module, module)
			      : !u.module) &&
		      u.module_off == want_moff,
	      "rc %d, %s+%#llx in %s+%#llx; want %s+%#llx in %s+%#llx", rc,
	      u.sym ? u.sym : "(null)", (unsigned long long)u.sym_off,
	      u.module ? u.module : "(null)", (unsigned long long)u.module_off,
	      sym ? sym : "(null)", (unsigned long long)sym_off,
	      module ? module : "(null)", (unsigned long long)want_moff);
	free(name);
}

static void check_live(const char *label, struct proc_syms *ps,
		       const struct child *c, uint64_t addr, const char *sym,
		       uint64_t sym_off, const char *module)
{
	check_usym(label, ps, c->pid, c->pid, addr, sym, sym_off, module);
}

/* All four functions of a running child, at their start and one in. */
static void check_child(const char *label, struct proc_syms *ps,
			const struct child *c, const char *exe)
{
	char *name;
	int i, d;

	for (i = 0; i < NFN; i++) {
		for (d = 0; d < 2; d++) {
			name = xasprintf("%s %s+%d", label, child_fns[i], d);
			check_live(name, ps, c, c->addr[i] + d, child_fns[i], d,
				   i < GAMMA ? exe : "libsymfix.so");
			free(name);
		}
	}
}

/* File offset -> vaddr through the PT_LOADs, against nm's address. */
static void test_offset_to_vaddr(const char *label, const struct child *c,
				 int fn, const char *file)
{
	const struct fact *f = fact("sym", file, child_fns[fn]);
	char *path = fxpath(file), *name;
	struct elf_symtab *t = elf_symtab_open(path, "");
	struct tmap m;
	uint64_t got = 0;

	if (t && f && find_tmap(c->pid, c->addr[fn], NULL, &m))
		got = elf_symtab_offset_to_vaddr(t,
						 c->addr[fn] - m.start + m.off);
	name = xasprintf("elf %s offset_to_vaddr %s", label, child_fns[fn]);
	CHECK(name, f && got == f->addr, "got %#llx want %#llx",
	      (unsigned long long)got, f ? (unsigned long long)f->addr : 0ULL);
	free(name);
	free(path);
	elf_symtab_free(t);
}

int main(void);

/* Our own process: main, in a file named as /proc/self/exe says. */
static void check_self(struct proc_syms *ps)
{
	char exe[PATH_MAX] = "", *base;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct usym u;
	int rc = proc_syms_lookup(ps, getpid(), (uintptr_t)main, &u);

	exe[n > 0 ? n : 0] = 0;
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	CHECK("proc self main",
	      !rc && !strcmp(u.sym, "main") && !u.sym_off &&
		      !strcmp(u.module, base),
	      "rc %d %s in %s", rc, u.sym ? u.sym : "(null)",
	      u.module ? u.module : "(null)");
}

static void test_proc_live(void)
{
	struct proc_syms *ps = proc_syms_new("/proc");
	struct child c;
	struct tmap m;

	if (!child_spawn(&c, "sym-pie")) {
		CHECK("proc spawn sym-pie", 0, "no addresses from the child");
		proc_syms_free(ps);
		return;
	}
	check_child("pie", ps, &c, "sym-pie");
	test_offset_to_vaddr("pie", &c, ALPHA, "sym-pie");
	test_offset_to_vaddr("lib", &c, GAMMA, "libsymfix.so");
	check_live("pie unmapped address", ps, &c, 0x1000, NULL, 0, NULL);
	if (find_tmap(c.pid, 0, "[vdso]", &m))
		check_live("pie [vdso]", ps, &c, m.start + 0x10, NULL, 0,
			   "[vdso]");
	else
		SKIP("proc pie [vdso]", "the child has no [vdso]");
	check_self(ps);

	/* exited after capture: still resolves until exit + gc */
	child_end(&c);
	CHECK("proc child gone", kill(c.pid, 0) && errno == ESRCH,
	      "pid %d still there", c.pid);
	check_live("exited alpha", ps, &c, c.addr[ALPHA], "fixture_alpha", 0,
		   "sym-pie");
	check_live("exited gamma", ps, &c, c.addr[GAMMA] + 3, "fixture_gamma",
		   3, "libsymfix.so");
	proc_syms_gc(ps);
	check_live("exited, one gc", ps, &c, c.addr[ALPHA], "fixture_alpha", 0,
		   "sym-pie");
	proc_syms_exit(ps, c.pid);
	proc_syms_gc(ps);
	check_live("exited, exit + gc", ps, &c, c.addr[ALPHA], NULL, 0, NULL);
	proc_syms_free(ps);
}

static void test_proc_kinds(void)
{
	struct proc_syms *ps = proc_syms_new("/proc");
	struct child c;

	if (child_spawn(&c, "sym-nopie")) {
		check_child("nopie", ps, &c, "sym-nopie");
		test_offset_to_vaddr("nopie", &c, ALPHA, "sym-nopie");
		child_end(&c);
	} else {
		CHECK("proc spawn sym-nopie", 0, "no addresses");
	}
	if (child_spawn(&c, "sym-dl/same/sym-dl")) {
		check_child("debuglink", ps, &c, "sym-dl");
		child_end(&c);
	} else {
		CHECK("proc spawn sym-dl", 0, "no addresses");
	}
	proc_syms_free(ps);
}

/* exec: the old capture stays until proc_syms_exec reads it again. */
static void test_proc_exec(void)
{
	struct proc_syms *ps = proc_syms_new("/proc");
	char *nopie = fxpath("sym-nopie");
	struct usym u;
	struct child c;

	if (!child_spawn(&c, "sym-pie")) {
		CHECK("proc exec spawn", 0, "no addresses");
		goto out;
	}
	CHECK("proc exec before",
	      !proc_syms_lookup(ps, c.pid, c.addr[ALPHA], &u), "not resolved");
	fprintf(c.to, "exec %s\n", nopie);
	fflush(c.to);
	if (!child_read(&c)) {
		CHECK("proc exec", 0, "no addresses after exec");
		child_end(&c);
		goto out;
	}
	/* an address outside every captured mapping reads the maps again,
	 * once per interval (ld.so maps libc after exec; dlopen) */
	check_live("exec, found by re-reading on a miss", ps, &c, c.addr[ALPHA],
		   "fixture_alpha", 0, "sym-nopie");
	proc_syms_exec(ps, c.pid);
	check_live("exec alpha", ps, &c, c.addr[ALPHA], "fixture_alpha", 0,
		   "sym-nopie");
	check_live("exec delta", ps, &c, c.addr[DELTA] + 1, "fixture_delta", 1,
		   "libsymfix.so");
	child_end(&c);
out:
	free(nopie);
	proc_syms_free(ps);
}

/* ---- a fake procfs ---- */

/* The maps of a live child, rewritten line by line. */
enum edit { AS_IS, CONTAINER, BAD_INODE, DELETED };

static char *edit_maps(pid_t pid, enum edit e)
{
	char file[64], line[PATH_MAX + 256], path[PATH_MAX], perms[8];
	unsigned long long s, en, off, ino;
	unsigned int maj, min;
	char *out = xstrdup(""), *o, *newpath, *base;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", pid);
	f = fopen(file, "r");
	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &s,
			   &en, perms, &off, &maj, &min, &ino, path) < 7)
			continue;
		base = strrchr(path, '/');
		base = base && *path == '/' ? base + 1 : NULL;
		if (base && e == CONTAINER)
			newpath = xasprintf("/app/%s", base);
		else if (base && e == DELETED)
			newpath = xasprintf("/gone/%s (deleted)", base);
		else
			newpath = xstrdup(path);
		if (base && e == BAD_INODE)
			ino = 1;
		o = xasprintf("%s%08llx-%08llx %s %08llx %02x:%02x %llu %s\n",
			      out, s, en, perms, off, maj, min, ino, newpath);
		free(out);
		free(newpath);
		out = o;
	}
	if (f)
		fclose(f);
	return out;
}

/* PROCFS/PID with maps and a root/ that is an (empty) directory. */
static char *fake_proc(int pid, const char *maps)
{
	char *dir = xasprintf("%s/syms-procfs/%d", cwd, pid);
	char *p = xasprintf("%s/maps", dir);

	run(xasprintf("mkdir -p %s/root", dir));
	write_text(p, maps);
	free(p);
	return dir;
}

/* Copies of the child's files under root/app/, as a container has. */
static void test_fake_container(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *maps = edit_maps(c->pid, CONTAINER);
	char *dir = fake_proc(4000001, maps);

	run(xasprintf("mkdir -p %s/root/app", dir));
	run(xasprintf("cp %s/sym-pie %s/libsymfix.so %s/root/app/", fx, fx,
		      dir));
	CHECK("fake container capture", !proc_syms_capture(ps, 4000001), "%s",
	      strerror(errno));
	check_usym("container alpha", ps, 4000001, c->pid, c->addr[ALPHA],
		   "fixture_alpha", 0, "sym-pie");
	check_usym("container gamma", ps, 4000001, c->pid, c->addr[GAMMA] + 2,
		   "fixture_gamma", 2, "libsymfix.so");
	/* captured again as it exits, its files out of reach: the files
	 * read the first time stay (an exit during a capture keeps them) */
	run(xasprintf("rm -r %s/root/app", dir));
	CHECK("fake container captured again", !proc_syms_capture(ps, 4000001),
	      "%s", strerror(errno));
	check_usym("container alpha after its files went", ps, 4000001, c->pid,
		   c->addr[ALPHA], "fixture_alpha", 0, "sym-pie");
	free(dir);
	free(maps);
	proc_syms_free(ps);
}

static void test_fake_fallback(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *maps = edit_maps(c->pid, AS_IS), *dir = fake_proc(4000002, maps);
	struct usym u;

	/* root/ is empty: the host path is the same inode, so it serves */
	check_usym("fallback to the host path", ps, 4000002, c->pid,
		   c->addr[BETA], "fixture_beta", 0, "sym-pie");
	free(dir);
	free(maps);
	proc_syms_free(ps);

	/* ... but not a host file that is another inode */
	ps = proc_syms_new("syms-procfs");
	maps = edit_maps(c->pid, BAD_INODE);
	dir = fake_proc(4000003, maps);
	proc_syms_lookup(ps, 4000003, c->addr[BETA], &u);
	CHECK("fake no fallback to another inode",
	      !u.sym && u.module && !strcmp(u.module, "sym-pie"), "%s in %s",
	      u.sym ? u.sym : "(null)", u.module ? u.module : "(null)");
	free(dir);
	free(maps);
	proc_syms_free(ps);
}

/* A deleted file is read through map_files/START-END. */
static void test_fake_deleted(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *maps = edit_maps(c->pid, DELETED);
	char *dir = fake_proc(4000004, maps);
	char *p, *target;
	struct tmap m;
	int i;

	run(xasprintf("mkdir -p %s/map_files", dir));
	for (i = ALPHA; i <= GAMMA; i += GAMMA - ALPHA) {
		if (!find_tmap(c->pid, c->addr[i], NULL, &m))
			continue;
		p = xasprintf("%s/map_files/%llx-%llx", dir, m.start, m.end);
		target = fxpath(i == ALPHA ? "sym-pie" : "libsymfix.so");
		if (symlink(target, p))
			error_exit("symlink %s", p);
		free(target);
		free(p);
	}
	check_usym("deleted alpha", ps, 4000004, c->pid, c->addr[ALPHA],
		   "fixture_alpha", 0, "sym-pie");
	check_usym("deleted gamma", ps, 4000004, c->pid, c->addr[GAMMA],
		   "fixture_gamma", 0, "libsymfix.so");
	free(dir);
	free(maps);
	proc_syms_free(ps);
}

static void check_fake(const char *label, struct proc_syms *ps, int pid,
		       uint64_t addr, int want_rc, const char *module)
{
	char *name = xasprintf("fake %s", label);
	struct usym u;
	int rc = proc_syms_lookup(ps, pid, addr, &u);

	CHECK(name,
	      rc == want_rc && (module ? u.module && !strcmp(u.module, module)
				       : !u.module),
	      "rc %d module %.40s", rc, u.module ? u.module : "(null)");
	free(name);
}

/* Maps no kernel writes: empty, garbage, very long, out of order. */
static void test_fake_odd(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *real = edit_maps(c->pid, AS_IS), *longp = xmalloc(100001);
	char *maps, *dir;
	struct usym u;

	free(fake_proc(4000010, ""));
	CHECK("fake empty maps: nothing captured",
	      proc_syms_capture(ps, 4000010) == -1, "capture succeeded");
	check_fake("empty maps", ps, 4000010, 0x400000, -1, NULL);

	memset(longp, 'a', 100000);
	longp[100000] = 0;
	maps = xasprintf("\ngarbage\n00400000-00401000\n"
			 "zz-yy r-xp 0 0:0 0 /x\n"
			 "1000-2000 r-xp 00000000 00:00 0 /%s\n"
			 "3000-2000 r-xp 00000000 00:00 0 /backwards\n"
			 "-1000 r-xp 00000000 00:00 0 /negative\n"
			 "4000-5000 r-xp 00000000 00:00\n"
			 "7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n"
			 "7f0000001000-7f0000002000 rw-p 00000000 00:00 0 "
			 "[heap]\n"
			 "%s"
			 "5000-6000 r-xp 00000000 00:00 0 /no-newline",
			 longp, real);
	dir = fake_proc(4000011, maps);
	CHECK("fake odd maps capture", !proc_syms_capture(ps, 4000011), "%s",
	      strerror(errno));
	check_fake("address 0", ps, 4000011, 0, -1, NULL);
	proc_syms_lookup(ps, 4000011, c->addr[ALPHA], &u);
	CHECK("fake odd maps alpha", u.sym && !strcmp(u.sym, "fixture_alpha"),
	      "got %s", u.sym ? u.sym : "(null)");
	proc_syms_lookup(ps, 4000011, 0x1800, &u);
	CHECK("fake 100000-byte path",
	      u.module && strlen(u.module) == 100000 && !u.sym &&
		      u.module_off == 0x800,
	      "module of %zu bytes", u.module ? strlen(u.module) : 0);
	check_fake("start after end", ps, 4000011, 0x2800, -1, NULL);
	check_fake("missing inode", ps, 4000011, 0x4800, -1, NULL);
	check_fake("anonymous executable", ps, 4000011, 0x7f0000000010, -1,
		   "[anon]");
	check_fake("not executable", ps, 4000011, 0x7f0000001010, -1, NULL);
	check_fake("last line without newline", ps, 4000011, 0x5010, -1,
		   "no-newline");
	free(dir);
	free(maps);

	run(xasprintf("mkdir -p %s/syms-procfs/4000012/maps", cwd));
	CHECK("fake maps is a directory", proc_syms_capture(ps, 4000012) < 0,
	      "captured");
	errno = 0;
	CHECK("fake no such process",
	      proc_syms_capture(ps, 4000099) < 0 && errno == ENOENT, "errno %d",
	      errno);
	check_fake("no such process lookup", ps, 4000099, c->addr[ALPHA], -1,
		   NULL);
	/* the failure is remembered until the next gc, not retried per frame */
	free(fake_proc(4000099, real));
	check_fake("failed capture cached", ps, 4000099, c->addr[ALPHA], -1,
		   NULL);
	proc_syms_gc(ps);
	check_fake("failed capture retried after gc", ps, 4000099,
		   c->addr[ALPHA], 0, "sym-pie");
	free(longp);
	free(real);
	proc_syms_free(ps);
}

/* Without exit calls: gone means one more interval; a new start time
 * means a new process on the same pid. */
static void test_fake_gc(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *real = edit_maps(c->pid, AS_IS), *dir = fake_proc(4000020, real);
	char *p = xasprintf("%s/maps", dir), *stat;

	CHECK("fake gc capture", !proc_syms_capture(ps, 4000020), "failed");
	unlink(p);
	free(p);
	check_fake("gone, no gc", ps, 4000020, c->addr[ALPHA], 0, "sym-pie");
	proc_syms_gc(ps);
	check_fake("gone, one gc", ps, 4000020, c->addr[ALPHA], 0, "sym-pie");
	proc_syms_gc(ps);
	check_fake("gone, two gc", ps, 4000020, c->addr[ALPHA], -1, NULL);
	free(dir);

	/* An exiting process's maps read empty: a late capture keeps what
	 * was read while it lived; a late exec cannot, the maps are stale. */
	dir = fake_proc(4000022, real);
	p = xasprintf("%s/maps", dir);
	CHECK("fake zombie capture", !proc_syms_capture(ps, 4000022), "failed");
	write_text(p, "");
	proc_syms_capture(ps, 4000022);
	check_fake("zombie: empty maps keep the capture", ps, 4000022,
		   c->addr[ALPHA], 0, "sym-pie");
	proc_syms_exec(ps, 4000022);
	check_fake("zombie: exec drops the stale capture", ps, 4000022,
		   c->addr[ALPHA], -1, NULL);
	free(p);
	free(dir);

	dir = fake_proc(4000021, real);
	stat = xasprintf("%s/stat", dir);
	write_text(stat, "4000021 (sym) pie) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 "
			 "0 0 20 0 1 0 100 0 0\n");
	CHECK("fake reuse capture", !proc_syms_capture(ps, 4000021), "failed");
	proc_syms_gc(ps);
	check_fake("same start time kept", ps, 4000021, c->addr[ALPHA], 0,
		   "sym-pie");
	p = xasprintf("%s/maps", dir);
	write_text(p, "");
	free(p);
	check_fake("pid reused, before gc", ps, 4000021, c->addr[ALPHA], 0,
		   "sym-pie");
	write_text(stat, "4000021 (sym) pie) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 "
			 "0 0 20 0 1 0 200 0 0\n");
	proc_syms_gc(ps);
	check_fake("pid reused, after gc", ps, 4000021, c->addr[ALPHA], -1,
		   NULL);
	free(stat);
	free(dir);
	free(real);
	proc_syms_free(ps);
}

/* A fork is given its parent's capture when that was read before the
 * fork, or after it when the parent's code is the same since (BPF says
 * so: parent_same). The forks' own maps are empty: only a copy names. */
static void test_fake_inherit(const struct child *c)
{
	struct proc_syms *ps = proc_syms_new("syms-procfs");
	char *real = edit_maps(c->pid, AS_IS);
	char *dirs[] = {fake_proc(4000030, real), fake_proc(4000031, ""),
			fake_proc(4000032, ""), fake_proc(4000033, "")};

	CHECK("fake inherit: parent captured", !proc_syms_capture(ps, 4000030),
	      "failed");
	/* forked at 1 ns: long before the capture */
	CHECK("fake inherit: read after the fork, code changed since: refused",
	      proc_syms_inherit(ps, 4000031, 4000030, 1, false) == -1,
	      "copied");
	check_fake("inherit refused: the fork's own (empty) maps", ps, 4000031,
		   c->addr[ALPHA], -1, NULL);
	CHECK("fake inherit: read after the fork, code the same: copied",
	      !proc_syms_inherit(ps, 4000032, 4000030, 1, true), "refused");
	check_fake("inherit after the fork: the parent's code named", ps,
		   4000032, c->addr[ALPHA], 0, "sym-pie");
	CHECK("fake inherit: read before the fork: copied",
	      !proc_syms_inherit(ps, 4000033, 4000030, UINT64_MAX, false),
	      "refused");
	check_fake("inherit before the fork: the parent's code named", ps,
		   4000033, c->addr[ALPHA], 0, "sym-pie");
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		free(dirs[i]);
	free(real);
	proc_syms_free(ps);
}

static void test_fake_procfs(void)
{
	struct child c;

	run(xasprintf("rm -rf %s/syms-procfs", cwd));
	if (!child_spawn(&c, "sym-pie")) {
		CHECK("fake spawn", 0, "no addresses");
		return;
	}
	test_fake_container(&c);
	test_fake_inherit(&c);
	test_fake_fallback(&c);
	test_fake_deleted(&c);
	test_fake_odd(&c);
	test_fake_gc(&c);
	child_end(&c);
}

int main(void)
{
	const char *f = getenv("FIXTURES");

	signal(SIGPIPE, SIG_IGN);
	if (!getcwd(cwd, sizeof(cwd)))
		error_exit("getcwd");
	test_ksyms_fake();
	test_ksyms_tail();
	test_ksyms_real();
	if (!f || !realpath(f, fx) || !load_facts()) {
		CHECK("syms fixtures", 0, "no %s/sym-facts.txt (FIXTURES=%s)",
		      f ? f : "", f ? f : "unset");
		return 0;
	}
	test_elf_files();
	test_elf_corrupt();
	test_elf_fuzz();
	test_proc_live();
	test_proc_kinds();
	test_proc_exec();
	test_fake_procfs();
	return 0;
}
