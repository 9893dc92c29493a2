// SPDX-License-Identifier: GPL-2.0
// layer: sym
/*
 * ehframe_read against binutils: for every row readelf --debug-dump=
 * frames-interp prints, our table must give the same CFA rule, frame
 * pointer rule and return address rule at that address. Files: this
 * machine's libc, the no-frame-pointer workloads, an arm64 libc.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "ehframe.h"
#include "stackbox.h"

static const struct cfa_row *row_at(const struct cfa_row *rows, size_t n,
				    uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &rows[lo - 1] : NULL;
}

/* readelf's "rsp+16", "x29+16", "exp" as our kind and offset */
static void parse_cfa(const char *s, unsigned machine, int *kind, long *off)
{
	const char *sp = machine == EM_X86_64 ? "rsp" : "sp";
	const char *fp = machine == EM_X86_64 ? "rbp" : "x29";
	const char *plus = strpbrk(s, "+-");
	size_t len = plus ? (size_t)(plus - s) : strlen(s);

	*off = plus ? strtol(plus, NULL, 10) : 0;
	if (len == strlen(sp) && !strncmp(s, sp, len))
		*kind = CFA_SP;
	else if (len == strlen(fp) && !strncmp(s, fp, len))
		*kind = CFA_FP;
	else
		*kind = CFA_OTHER;
}

/* A register column: "c-16" saved at CFA-16, "u"/"s" not saved */
static void parse_saved(const char *s, int *kind, long *off)
{
	*off = 0;
	if (!s || !strcmp(s, "u") || !strcmp(s, "s"))
		*kind = SAVED_NONE;
	else if (s[0] == 'c') {
		*kind = SAVED_AT;
		*off = strtol(s + 1, NULL, 10);
	} else
		*kind = SAVED_OTHER;
}

static void compare(const char *label, const char *path)
{
	char *cmd, line[1024], cols[16][16], *name;
	struct cfa_row *rows;
	size_t n, checked = 0, bad = 0;
	unsigned machine;
	int ncols = 0, fpcol = -1, racol = -1, in_fde = 0;
	FILE *p;

	if (ehframe_read(path, false, 0, &rows, &n, &machine)) {
		SKIP(label, "%s: %s", path, strerror(errno));
		return;
	}
	cmd = xasprintf("readelf --debug-dump=frames-interp %s 2>/dev/null",
			path);
	p = popen(cmd, "r");
	free(cmd);
	while (p && fgets(line, sizeof(line), p)) {
		char f[16][32], *o = line, *end;
		const struct cfa_row *r;
		int k, kind, fk, rk;
		long off, fo, ro;
		uint64_t addr;

		/* "r10 (r10)" is one column: drop the names in parentheses */
		for (char *i = line; *i; i++) {
			if (*i == ' ' && i[1] == '(' && strchr(i, ')'))
				i = strchr(i, ')');
			else
				*o++ = *i;
		}
		*o = 0;
		k = sscanf(line,
			   "%31s %31s %31s %31s %31s %31s %31s %31s %31s "
			   "%31s %31s %31s %31s %31s %31s %31s",
			   f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
			   f[9], f[10], f[11], f[12], f[13], f[14], f[15]);

		/* rows follow an FDE's header; a CIE's are its initial rules */
		if (k >= 4 && (!strcmp(f[3], "FDE") || !strcmp(f[3], "CIE"))) {
			in_fde = !strcmp(f[3], "FDE");
			ncols = 0;
			continue;
		}
		if (k >= 2 && !strcmp(f[0], "LOC") && !strcmp(f[1], "CFA")) {
			ncols = k;
			fpcol = racol = -1;
			for (int i = 2; i < k; i++) {
				snprintf(cols[i], sizeof(cols[i]), "%s", f[i]);
				if (!strcmp(f[i], "rbp") ||
				    !strcmp(f[i], "x29"))
					fpcol = i;
				if (!strcmp(f[i], "ra") || !strcmp(f[i], "x30"))
					racol = i;
			}
			continue;
		}
		if (k < 2 || !ncols || !in_fde)
			continue;
		addr = strtoull(f[0], &end, 16);
		if (*end || strlen(f[0]) != 16)
			continue;
		r = row_at(rows, n, addr);
		parse_cfa(f[1], machine, &kind, &off);
		parse_saved(fpcol > 0 && fpcol < k ? f[fpcol] : NULL, &fk, &fo);
		parse_saved(racol > 0 && racol < k ? f[racol] : NULL, &rk, &ro);
		/* the ra column "u" is DW_CFA_undefined: the outermost frame
		 * (x86 has a rule from its CIE; arm64 "u" is still in x30) */
		if (machine == EM_X86_64 && racol > 0 && racol < k &&
		    !strcmp(f[racol], "u"))
			kind = CFA_END;
		if (machine == EM_AARCH64 && r && r->cfa == CFA_END &&
		    racol > 0 && racol < k && !strcmp(f[racol], "u"))
			kind = CFA_END;
		checked++;
		if (!r ||
		    (r->cfa != kind &&
		     !(kind == CFA_END && r->cfa == CFA_END)) ||
		    (kind != CFA_END && kind != CFA_OTHER &&
		     r->cfa_off != off) ||
		    (kind != CFA_END && kind != CFA_OTHER &&
		     (r->fp != fk || r->fp_off != fo || r->ra != rk ||
		      r->ra_off != ro))) {
			if (bad++ < 3)
				printf("# %s 0x%llx: readelf %s fp %s ra %s; "
				       "ours %d%+d fp %d%+d ra %d%+d\n",
				       label, (unsigned long long)addr, f[1],
				       fpcol > 0 && fpcol < k ? f[fpcol] : "-",
				       racol > 0 && racol < k ? f[racol] : "-",
				       r ? r->cfa : -1, r ? r->cfa_off : 0,
				       r ? r->fp : -1, r ? r->fp_off : 0,
				       r ? r->ra : -1, r ? r->ra_off : 0);
		}
	}
	if (p)
		pclose(p);
	name = xasprintf("ehframe %s: %zu rows agree with readelf", label,
			 checked);
	CHECK(name, checked >= 10 && !bad, "%zu of %zu rows differ", bad,
	      checked);
	free(name);
	free(rows);
}

/* An .eh_frame that gives no rows: found by fuzz_ehframe (qsort of a
 * NULL array, undefined behaviour). */
static void empty_table(const char *src)
{
	struct cfa_row *rows = NULL;
	unsigned machine = 0;
	size_t n = 99;
	char *p;

	if (!src)
		return;
	p = xasprintf("%s/tests/unit/fuzz/ehframe/empty-table", src);
	ehframe_read(p, false, 0, &rows, &n, &machine);
	CHECK("ehframe: a table without rows", n == 0 || rows, "%zu rows", n);
	free(rows);
	free(p);
}

int main(int argc, char **argv)
{
	const char *w = getenv("TESTS_O"), *out = getenv("OUT");
	char *p;

	compare("host libc",
		argc > 1 ? argv[1] : "/lib/x86_64-linux-gnu/libc.so.6");
	if (w) {
		p = xasprintf("%s/workloads/libcall-nofp", w);
		compare("libcall-nofp", p);
		free(p);
	}
	compare("arm64 libc", "/usr/lib/aarch64-linux-gnu/libc.so.6");
	empty_table(getenv("SRCTREE"));
	if (out) {
		p = xasprintf("%s/musl-arm64/workloads/libcall-nofp", out);
		compare("arm64 musl libcall-nofp", p);
		free(p);
	}
	return 0;
}
