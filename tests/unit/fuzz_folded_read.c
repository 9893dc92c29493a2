// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for report's folded reader: any bytes, in pieces of
 * any size, must give no crash, no overrun and no leak (ASan, UBSan).
 * The first byte chooses how the input is cut.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "folded_read.h"

static void on_snapshot(void *ctx, struct snapshot *s)
{
	/* touch what a report would: every row's frames and values */
	for (size_t i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		for (unsigned j = 0; j < r->nu; j++)
			*(volatile uint64_t *)ctx += r->ustack[j][0];
		for (unsigned j = 0; j < r->nk; j++)
			*(volatile uint64_t *)ctx += r->kstack[j][0];
		*(volatile uint64_t *)ctx += r->v[s->primary] + r->key.comm[0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile uint64_t sink;
	struct folded_read *f = folded_read_new(on_snapshot, (void *)&sink);
	size_t chunk = len ? (data[0] & 0x7f) * 5 + 1 : 1;

	sink += folded_read_detect(data, len);
	for (size_t off = 0; off < len; off += chunk)
		folded_read_feed(f, data + off,
				 len - off < chunk ? len - off : chunk);
	folded_read_end(f, "fuzz");
	folded_read_free(f);
	return 0;
}
