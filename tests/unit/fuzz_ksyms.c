// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kallsyms parser (common/sym/ksyms.c): any
 * /proc/kallsyms text must give no crash, no overrun and no leak (ASan,
 * UBSan), and lookups at a spread of addresses answer.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_file.h"
#include "syms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile size_t sink;
	const char *path = fuzz_file(data, len);
	struct ksyms *ks = path ? ksyms_load(path) : NULL;
	uint64_t off;

	if (!ks)
		return 0;
	for (uint64_t a = 1; a; a <<= 1) {
		const char *s = ksyms_lookup(ks, a - 1, &off);

		sink += s ? strlen(s) + off : 0;
		s = ksyms_lookup(ks, ~(a - 1), &off);
		sink += s ? strlen(s) + off : 0;
	}
	ksyms_free(ks);
	return 0;
}
