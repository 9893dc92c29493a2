// SPDX-License-Identifier: GPL-2.0
/* Lines and names of report's text inputs; see lines.h. */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "lines.h"
#include "stackbox.h"

#define MAX_LINE 65536

uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

const char *names_intern(struct names *t, const char *s, size_t len)
{
	return intern_key(&t->t, intern_add(&t->t, s, len));
}

void names_free(struct names *t)
{
	intern_free(&t->t);
}

void lines_feed(struct lines *l, const void *data, size_t len,
		void (*line)(void *ctx, char *s), void *ctx)
{
	const char *c = data, *nl;

	while (len) {
		size_t n;

		nl = memchr(c, '\n', len);
		n = nl ? (size_t)(nl - c) : len;
		if (l->len + n >= MAX_LINE) {
			l->overlong = true; /* the rest of it is dropped */
			n = 0;
		}
		l->buf = grow_array(l->buf, &l->cap, l->len + n + 1, 1);
		memcpy(l->buf + l->len, c, n);
		l->len += n;
		if (!nl)
			return;
		l->buf[l->len] = 0;
		l->lineno++;
		if (l->len && l->buf[l->len - 1] == '\r')
			l->buf[--l->len] = 0;
		line(ctx,
		     l->overlong || memchr(l->buf, 0, l->len) ? NULL : l->buf);
		l->len = 0;
		l->overlong = false;
		len -= nl + 1 - c;
		c = nl + 1;
	}
}

bool lines_end(struct lines *l)
{
	bool cut = l->len || l->overlong;

	l->lineno += cut;
	l->len = 0;
	l->overlong = false;
	return cut;
}

void lines_free(struct lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}
