// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for Go's function table reader (common/gopclntab.c):
 * any bytes, as a table and as a segment to scan, in both byte orders,
 * must give no crash, no overrun (ASan, UBSan), and only names that lie
 * inside the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "gopclntab.h"

struct bounds {
	const uint8_t *data;
	size_t len;
};

static void check(uint64_t entry, uint64_t end, const char *name, size_t len,
		  void *arg)
{
	const struct bounds *b = arg;
	const uint8_t *n = (const uint8_t *)name;

	if (entry >= end || n < b->data || len > b->len ||
	    n + len > b->data + b->len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct bounds b = {data, len};

	for (int msb = 0; msb < 2; msb++) {
		long off = gopclntab_find(data, len, msb);

		gopclntab_each(data, len, 0, msb, check, &b);
		gopclntab_each(data, len, 0x400000, msb, check, &b);
		if (off >= 0 && gopclntab_each(data + off, len - off, 0, msb,
					       check, &b) <= 0)
			abort(); /* found, so it must parse */
	}
	return 0;
}
