// SPDX-License-Identifier: GPL-2.0
/* Later looks at a new image's mappings (see looks.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "code_changes.h"
#include "looks.h"
#include "stackbox.h"

/* room for the processes exec'd in the last few LOOK_SETTLE_NS: a fork
 * storm beyond it goes without a second look, as before them */
#define LOOKS_MAX 1024

struct look {
	pid_t tgid, parent; /* parent: a fork copied from it (else 0) */
	unsigned same;	    /* reads that found the mappings the same */
	unsigned reads;	    /* in all */
	__u64 due;	    /* CLOCK_MONOTONIC ns */
	__u64 forked_at;
};

struct looks {
	int changes_fd;
	look_read_fn read;
	void *ctx;
	unsigned n;
	struct look l[LOOKS_MAX];
};

struct looks *looks_new(int changes_fd, look_read_fn read, void *ctx)
{
	struct looks *l = xzalloc(sizeof(*l));

	l->changes_fd = changes_fd;
	l->read = read;
	l->ctx = ctx;
	return l;
}

void looks_free(struct looks *l)
{
	free(l);
}

static struct look *look_of(struct looks *l, pid_t tgid)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->l[i].tgid == tgid)
			return &l->l[i];
	return NULL;
}

static void look_at(struct looks *l, const struct look *at)
{
	struct look *k = look_of(l, at->tgid);

	if (!k && l->n == LOOKS_MAX)
		return;
	if (!k)
		k = &l->l[l->n++];
	*k = *at;
}

void looks_read(struct looks *l, pid_t tgid, __u64 now)
{
	if (l && code_changed_since(l->changes_fd, tgid, now - LOOK_SETTLE_NS))
		look_at(l, &(struct look){.tgid = tgid,
					  .due = now + LOOK_SETTLE_NS});
}

void looks_code_mapped(struct looks *l, pid_t tgid, __u64 now)
{
	if (l && !look_of(l, tgid))
		look_at(l, &(struct look){.tgid = tgid,
					  .due = now + LOOK_SETTLE_NS});
}

void looks_inherit(struct looks *l, pid_t tgid, pid_t parent, __u64 forked_at)
{
	struct look *k = l ? look_of(l, parent) : NULL;

	/* a ms after the parent's: its mappings read again by then */
	if (k)
		look_at(l, &(struct look){tgid, parent, k->same, k->reads,
					  k->due + NS_PER_MS, forked_at});
}

void looks_forget(struct looks *l, pid_t tgid)
{
	struct look *k = l ? look_of(l, tgid) : NULL;

	if (k)
		*k = l->l[--l->n];
}

__u64 looks_run(struct looks *l, __u64 now)
{
	enum look_found found;
	__u64 next = 0;
	unsigned i = 0;

	if (!l)
		return 0;
	while (i < l->n) {
		struct look k = l->l[i];

		if (k.due > now) {
			next = next && next < k.due ? next : k.due;
			i++;
			continue;
		}
		l->l[i] = l->l[--l->n]; /* taken: index i holds another */
		found = l->read(l->ctx, k.tgid, k.parent, k.forked_at);
		if (found == LOOK_DONE || ++k.reads == LOOK_MAX ||
		    (found == LOOK_SAME && ++k.same == LOOK_SAME_READS))
			continue;
		k.due = now + (LOOK_SETTLE_NS << 2 * k.same);
		if (k.parent) /* after the parent's next read */
			k.due += NS_PER_MS;
		look_at(l, &k);
	}
	return next; /* one added again is at the end: the loop saw it */
}
