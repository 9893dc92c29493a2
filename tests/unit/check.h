/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit test protocol: every check prints one line, "PASS name",
 * "FAIL name: why" or "SKIP name: why"; tests/run.sh counts them.
 * A test program exits 0 unless it could not run at all.
 */
#ifndef STACKBOX_CHECK_H
#define STACKBOX_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed;

#define CHECK(name, cond, ...)                     \
	do {                                       \
		if (cond) {                        \
			printf("PASS %s\n", name); \
		} else {                           \
			printf("FAIL %s: ", name); \
			printf(__VA_ARGS__);       \
			printf("\n");              \
			check_failed++;            \
		}                                  \
		fflush(stdout);                    \
	} while (0)

#define CHECK_STR(name, got, want)                                            \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		CHECK(name, g_ && !strcmp(g_, w_), "got \"%s\", want \"%s\"", \
		      g_ ? g_ : "(null)", w_);                                \
	} while (0)

#define CHECK_INT(name, got, want)                                       \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		CHECK(name, g_ == w_, "got %lld, want %lld", g_, w_);    \
	} while (0)

#define SKIP(name, ...)                    \
	do {                               \
		printf("SKIP %s: ", name); \
		printf(__VA_ARGS__);       \
		printf("\n");              \
		fflush(stdout);            \
	} while (0)

#endif
