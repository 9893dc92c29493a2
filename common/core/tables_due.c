// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <string.h>

#include "collector.h"
#include "looks.h"
#include "stackbox.h"
#include "tables_due.h"
#include "unwind.h"

bool tables_undue(struct collector *c, pid_t tgid, bool *look)
{
	for (size_t i = 0; i < c->ntables_due; i++)
		if (c->tables_due[i].tgid == tgid) {
			if (look)
				*look = c->tables_due[i].look;
			memmove(&c->tables_due[i], &c->tables_due[i + 1],
				(--c->ntables_due - i) *
					sizeof(*c->tables_due));
			return true;
		}
	return false;
}

void tables_due(struct collector *c, pid_t tgid, bool look)
{
	bool looked = false;

	if (!c->unwind)
		return;
	if (tables_undue(c, tgid, &looked))
		look |= looked;
	if (c->ntables_due == c->tables_due_cap) {
		c->tables_due_cap =
			c->tables_due_cap ? 2 * c->tables_due_cap : 16;
		c->tables_due =
			xrealloc(c->tables_due,
				 c->tables_due_cap * sizeof(*c->tables_due));
	}
	c->tables_due[c->ntables_due++] = (struct tables_due){tgid, look};
}

void tables_now(struct collector *c, pid_t tgid, bool look)
{
	tables_undue(c, tgid, NULL);
	unwind_process(c->unwind, tgid);
	if (look && unwind_by_frame_pointers(c->unwind, tgid))
		looks_read(c->looks, tgid, now_ns());
}

void build_due_tables(struct collector *c)
{
	while (c->ntables_due) {
		struct tables_due t = c->tables_due[0];

		tables_now(c, t.tgid, t.look);
		ring_buffer__consume(c->events);
	}
}
