// SPDX-License-Identifier: GPL-2.0
// layer: lib
/* A snapshot's pool: what it hands out stays intact until cleared. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "pool.h"

#define N 100000 /* names: several chunks' worth */

int main(void)
{
	struct pool p = {0};
	char **name = malloc(N * sizeof(*name));
	char want[32];
	size_t bad = 0, misaligned = 0;
	unsigned char *big;

	for (size_t i = 0; i < N; i++) {
		name[i] = pool_printf(&p, "name %zu", i);
		/* odd sizes between them: alignment must hold anyway */
		misaligned += (uintptr_t)pool_alloc(&p, i % 7 + 1) %
				      _Alignof(max_align_t) !=
			      0;
	}
	big = pool_alloc(&p, 1 << 20); /* bigger than a chunk */
	memset(big, 0xab, 1 << 20);
	for (size_t i = 0; i < N; i++) {
		snprintf(want, sizeof(want), "name %zu", i);
		bad += strcmp(name[i], want) != 0;
	}
	CHECK_INT("pool: every name intact after many chunks", bad, 0);
	CHECK_INT("pool: every block aligned for any object", misaligned, 0);
	CHECK("pool: a block bigger than a chunk",
	      big[0] == 0xab && big[(1 << 20) - 1] == 0xab, "overwritten");
	CHECK_STR("pool: strdup", pool_strdup(&p, "main"), "main");
	pool_clear(&p);
	CHECK("pool: empty after clear", !p.chunks, "chunks left");
	CHECK_STR("pool: usable after clear", pool_strdup(&p, "again"),
		  "again");
	for (size_t i = 0; i < N; i++)
		name[i] = pool_printf(&p, "name %zu", i);
	pool_alloc(&p, 1 << 20);
	pool_reset(&p);
	/* (a chunk's first member is its next) */
	CHECK("pool: one chunk kept after reset",
	      p.chunks && !*(void **)p.chunks, "none, or several");
	name[0] = pool_strdup(&p, "kept");
	for (size_t i = 1; i < N; i++)
		name[i] = pool_printf(&p, "name %zu", i);
	bad = 0;
	for (size_t i = 1; i < N; i++) {
		snprintf(want, sizeof(want), "name %zu", i);
		bad += strcmp(name[i], want) != 0;
	}
	CHECK_INT("pool: every name intact after a reset", bad, 0);
	CHECK_STR("pool: the kept chunk's first block", name[0], "kept");
	pool_clear(&p);
	free(name);
	return 0;
}
