// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .eh_frame table builder (common/sym/ehframe.c):
 * any file must give no crash, no overrun and no leak (ASan, UBSan),
 * and the rows it gives are sorted without repeats, as BPF's binary
 * search needs.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ehframe.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const char *path = fuzz_file(data, len);
	struct cfa_row *rows = NULL;
	unsigned machine = 0;
	size_t n = 0;

	if (!path)
		return 0;
	for (int offsets = 0; offsets < 2; offsets++) {
		if (!ehframe_read(path, offsets, 1 << 16, &rows, &n, &machine))
			for (size_t i = 1; i < n; i++)
				if (rows[i].addr <= rows[i - 1].addr)
					abort();
		free(rows);
		rows = NULL;
	}
	return 0;
}
