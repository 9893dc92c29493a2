// SPDX-License-Identifier: GPL-2.0
/* stackcount's EVENT operands: what each names, or one line saying why
 * it names nothing. */
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"
#include "stackcount_common.h"

static const struct {
	const char *prefix;
	enum sc_event_type type;
	unsigned parts; /* fields after the prefix */
} kinds[] = {
	{"t:", SC_EV_TRACEPOINT, 2}, {"k:", SC_EV_KPROBE, 1},
	{"kr:", SC_EV_KRETPROBE, 1}, {"u:", SC_EV_UPROBE, 2},
	{"ur:", SC_EV_URETPROBE, 2}, {"U:", SC_EV_USDT, 3},
	{"", SC_EV_TRACEPOINT, 2}, /* CATEGORY:NAME */
};

_Noreturn static void not_an_event(const char *spec)
{
	error_exit("event '%s': not t:CATEGORY:NAME, CATEGORY:NAME, "
		   "k:FUNCTION, kr:FUNCTION, u:FILE:FUNCTION, "
		   "ur:FILE:FUNCTION or U:FILE:PROVIDER:NAME",
		   spec);
}

/* Split rest into n non-empty fields at its last n - 1 colons (a FILE
 * may hold one). */
static bool split(const char *rest, unsigned n, char **out)
{
	char *s = xstrdup(rest), *end = s + strlen(s);

	for (unsigned i = n; i-- > 1;) {
		char *c = end;

		while (c > s && c[-1] != ':')
			c--;
		if (c == s)
			return false;
		out[i] = xstrdup(c);
		end = c - 1;
		*end = 0;
	}
	out[0] = s;
	for (unsigned i = 0; i < n; i++)
		if (!*out[i] || strchr(out[i], ' '))
			return false;
	return true;
}

void sc_event_parse(const char *spec, struct sc_event *ev)
{
	char *f[3] = {NULL};

	memset(ev, 0, sizeof(*ev));
	ev->spec = spec;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		size_t len = strlen(kinds[i].prefix);

		if (strncmp(spec, kinds[i].prefix, len))
			continue;
		ev->type = kinds[i].type;
		if (!split(spec + len, kinds[i].parts, f))
			not_an_event(spec);
		/* a colon left in a tracepoint's or a function's name */
		if (ev->type == SC_EV_TRACEPOINT && strchr(f[0], ':'))
			not_an_event(spec);
		if (kinds[i].parts == 1) {
			ev->b = f[0];
		} else {
			ev->a = f[0];
			ev->b = f[kinds[i].parts == 3 ? 2 : 1];
			ev->c = kinds[i].parts == 3 ? f[1] : NULL;
		}
		return;
	}
	not_an_event(spec);
}
