/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What report's two text inputs (perf script's, stackbox's own) share:
 * lines assembled across reads of any size, and names kept once each,
 * so rows can compare frames by pointer.
 */
#ifndef STACKBOX_REPORT_LINES_H
#define STACKBOX_REPORT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intern.h"

/* FNV-1a over len bytes, from h (start with FNV_START). */
#define FNV_START 14695981039346656037ULL
uint64_t fnv1a(uint64_t h, const void *p, size_t len);

/* lib's intern table: one hash and one probe scheme for every table of
 * names, the keys in its pool (NUL-ended, so they read as C strings) */
struct names {
	struct intern t;
};

/* The one copy of s[0..len), kept until names_free. */
const char *names_intern(struct names *t, const char *s, size_t len);
void names_free(struct names *t);

struct lines {
	char *buf;
	size_t len, cap;
	bool overlong;
	uint64_t lineno; /* of the line last handed out */
};

/* Each whole line of the bytes to line(), without its "\n" or "\r\n";
 * NULL for one longer than 64 KiB or holding a NUL byte, which no text
 * input of ours has. */
void lines_feed(struct lines *l, const void *data, size_t len,
		void (*line)(void *ctx, char *s), void *ctx);
/* End of input: true when a last line had no newline (the input was cut
 * there); lineno then counts it. */
bool lines_end(struct lines *l);
void lines_free(struct lines *l);

#endif
