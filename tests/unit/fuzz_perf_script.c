// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for report's perf script reader: any bytes, in
 * pieces of any size, with or without intervals, must give no crash, no
 * overrun and no leak (ASan, UBSan). The first byte chooses how the
 * input is cut and whether snapshots are per 1 ms of perf's clock.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "perf_script.h"

static void on_snapshot(void *ctx, struct snapshot *s)
{
	/* touch what a report would: every row's frames and values */
	for (size_t i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		for (unsigned j = 0; j < r->nu; j++)
			*(volatile uint64_t *)ctx += r->ustack[j][0];
		for (unsigned j = 0; j < r->nk; j++)
			*(volatile uint64_t *)ctx += r->kstack[j][0];
		*(volatile uint64_t *)ctx += r->v[s->primary] + r->key.comm[0] +
					     s->aux_name(r->key.aux)[0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile uint64_t sink;
	struct perf_script *p;
	size_t chunk = len ? (data[0] & 0x7f) * 5 + 1 : 1;

	p = perf_script_new(len && data[0] & 0x80 ? 1000000 : 0, on_snapshot,
			    (void *)&sink);
	sink += perf_script_detect(data, len);
	for (size_t off = 0; off < len; off += chunk)
		perf_script_feed(p, data + off,
				 len - off < chunk ? len - off : chunk);
	perf_script_end(p, "fuzz");
	perf_script_free(p);
	return 0;
}
