// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <string.h>

#include "collector.h"
#include "looks.h"
#include "stackbox.h"
#include "tables_due.h"
#include "unwind.h"

bool tables_undue(struct collector *c, pid_t tgid, struct tables_due *was)
{
	for (size_t i = 0; i < c->ntables_due; i++)
		if (c->tables_due[i].tgid == tgid) {
			if (was)
				*was = c->tables_due[i];
			memmove(&c->tables_due[i], &c->tables_due[i + 1],
				(--c->ntables_due - i) *
					sizeof(*c->tables_due));
			return true;
		}
	return false;
}

void tables_due(struct collector *c, pid_t tgid, bool look)
{
	struct tables_due was;

	if (!c->unwind)
		return;
	if (tables_undue(c, tgid, &was))
		look |= was.look;
	if (c->ntables_due == c->tables_due_cap) {
		c->tables_due_cap =
			c->tables_due_cap ? 2 * c->tables_due_cap : 16;
		c->tables_due =
			xrealloc(c->tables_due,
				 c->tables_due_cap * sizeof(*c->tables_due));
	}
	c->tables_due[c->ntables_due++] =
		(struct tables_due){tgid, look, now_ns()};
}

void tables_build(struct collector *c, const struct tables_due *t)
{
	unwind_process(c->unwind, t->tgid);
	if (t->look && unwind_by_frame_pointers(c->unwind, t->tgid))
		looks_read(c->looks, t->tgid, t->at);
}

void tables_now(struct collector *c, pid_t tgid)
{
	tables_undue(c, tgid, NULL);
	unwind_process(c->unwind, tgid);
}

void build_due_tables(struct collector *c)
{
	struct tables_due t;

	while (c->ntables_due) {
		tables_undue(c, c->tables_due[0].tgid, &t);
		tables_build(c, &t);
		ring_buffer__consume(c->events);
	}
}
