// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the bin stream reader: any bytes, in pieces of
 * any size, must give no crash, no overrun and no leak (ASan, UBSan).
 * The first byte chooses how the input is cut.
 */
#include <stddef.h>
#include <stdint.h>

#include "bin_read.h"

static void on_snapshot(void *ctx, const struct bin_state *st,
			struct snapshot *s)
{
	/* touch what a report would: every row's fields */
	for (size_t i = 0; i < s->nrows; i++)
		*(volatile uint64_t *)ctx +=
			s->rows[i].v[0] + s->rows[i].key.tgid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile uint64_t sink;
	struct bin_reader_ops ops = {.ctx = (void *)&sink,
				     .snapshot = on_snapshot};
	struct bin_reader *r = bin_reader_new(&ops);
	size_t chunk = len ? data[0] * 7 + 1 : 1;

	for (size_t off = 0; off < len; off += chunk)
		bin_reader_feed(r, data + off,
				len - off < chunk ? len - off : chunk);
	bin_reader_end(r);
	bin_reader_free(r);
	return 0;
}
