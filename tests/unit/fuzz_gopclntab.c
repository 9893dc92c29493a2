// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for Go's function table reader (common/sym/gopclntab.c):
 * any bytes, as a table and as a segment to scan, in both byte orders,
 * must give no crash, no overrun (ASan, UBSan), and only names that lie
 * inside the input. The same bytes are the segment holding the inline
 * trees too, loaded so that test_gopclntab's inline seeds (a table of
 * INLINE_TABLE bytes, then the segment it loads at FDV) reach theirs;
 * and a segment to find a moduledata in, for a table at the address
 * its last 8 bytes give.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

/* test_gopclntab's make_inline_table: its size, where its funcdata
 * segment is loaded, go:func.* in it */
#define INLINE_TABLE 0x2a0
#define FDV	     0x500000ULL
#define GOFUNC	     (FDV + 0x20)

struct bounds {
	const uint8_t *data;
	size_t len;
};

static bool inside(const struct bounds *b, const char *name, size_t len)
{
	const uint8_t *n = (const uint8_t *)name;

	return n >= b->data && len <= b->len && n + len <= b->data + b->len;
}

static void check(uint64_t entry, uint64_t end, const char *name, size_t len,
		  void *arg)
{
	if (entry >= end || !inside(arg, name, len))
		abort();
}

static void check_inline(uint64_t start, uint64_t end,
			 const struct gopclntab_str *names, unsigned n,
			 void *arg)
{
	if (start >= end || !n || n > GOPCLNTAB_INLINE_MAX)
		abort();
	for (unsigned i = 0; i < n; i++)
		if (!names[i].len || !inside(arg, names[i].p, names[i].len))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct bounds b = {data, len};
	struct gopclntab_funcdata fd = {data, len, FDV - INLINE_TABLE, GOFUNC};
	uint64_t tab_vaddr = 0;

	if (len >= 8)
		memcpy(&tab_vaddr, data + len - 8, 8);
	for (int msb = 0; msb < 2; msb++) {
		long off = gopclntab_find(data, len, msb);

		gopclntab_each(data, len, 0, msb, check, &b);
		gopclntab_each(data, len, 0x400000, msb, check, &b);
		if (off >= 0 && gopclntab_each(data + off, len - off, 0, msb,
					       check, &b) <= 0)
			abort(); /* found, so it must parse */
		gopclntab_each_inline(data, len, 0, msb, &fd, check_inline, &b);
		gopclntab_gofunc(data, len, data, len, tab_vaddr, msb);
	}
	return 0;
}
