// SPDX-License-Identifier: GPL-2.0
// layer: lib
/* intern: one index per distinct key, the same key the same index after
 * the table grows; keys that differ in a byte or in length apart. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "intern.h"

#define N 200000 /* keys: the slots grow several times */

int main(void)
{
	struct intern t = {0};
	char name[32];
	size_t bad = 0, misaligned = 0, lens = 0;
	uint64_t ids[3] = {1, 2, 3};

	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "frame_%zu", i);
		bad += intern_add(&t, name, strlen(name)) != i;
	}
	CHECK_INT("intern: each new key the next index", bad, 0);
	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "frame_%zu", i);
		bad += intern_add(&t, name, strlen(name)) != i;
		bad += strcmp(intern_key(&t, i), name) != 0;
		lens += intern_len(&t, i) != strlen(name);
		misaligned += (uintptr_t)intern_key(&t, i) % 8 != 0;
	}
	CHECK_INT("intern: a key met again its first index", bad, 0);
	CHECK_INT("intern: keys and lengths kept", lens, 0);
	CHECK_INT("intern: keys 8-byte aligned", misaligned, 0);
	CHECK_INT("intern: no key added twice", t.n, N);
	/* a prefix, the empty key, and binary keys with zero bytes */
	CHECK_INT("intern: a prefix is another key",
		  intern_add(&t, "frame_1", 6), N);
	CHECK_INT("intern: the empty key", intern_add(&t, "", 0), N + 1);
	CHECK_INT("intern: an array of ids", intern_add(&t, ids, sizeof(ids)),
		  N + 2);
	ids[2] = 4;
	CHECK_INT("intern: an array differing in its last id",
		  intern_add(&t, ids, sizeof(ids)), N + 3);
	CHECK_INT("intern: the same array again",
		  intern_add(&t, ids, sizeof(ids)), N + 3);
	CHECK("intern: hash of equal bytes equal, of different ones not",
	      hash_bytes("abcdefghij", 10) == hash_bytes("abcdefghij", 10) &&
		      hash_bytes("abcdefghij", 10) !=
			      hash_bytes("abcdefghik", 10) &&
		      hash_bytes("abc", 3) != hash_bytes("abc\0", 4),
	      "hash");
	intern_free(&t);
	CHECK_INT("intern: empty after free", t.n, 0);
	CHECK_INT("intern: usable after free", intern_add(&t, "x", 1), 0);
	intern_free(&t);
	return check_failed ? 1 : 0;
}
