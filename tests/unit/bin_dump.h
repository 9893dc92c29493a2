/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A decoded bin snapshot as text, every field the reader delivers: what
 * tests/unit/fixtures/bin-v1-offcpu.txt holds for the version 1 fixture,
 * so a later reader can be held to what the version 1 reader gave.
 */
#ifndef STACKBOX_TEST_BIN_DUMP_H
#define STACKBOX_TEST_BIN_DUMP_H

#include <stdio.h>

#include "binfmt.h"
#include "bin_read.h"

static void dump_stack(FILE *f, const struct bin_state *st, __u64 ref)
{
	const struct bin_stack *s;

	if (ref < BIN_REF0) {
		fprintf(f, " %s",
			ref == BIN_REF_NONE   ? "-"
			: ref == BIN_REF_LOST ? "lost"
					      : "missing");
		return;
	}
	s = &st->stacks[ref - BIN_REF0];
	for (unsigned j = 0; j < s->n; j++) {
		const char *name = NULL;

		for (size_t i = 0; i < st->nksyms; i++)
			if (st->ksym_addr[i] == s->ip[j])
				name = st->ksym_name[i];
		fprintf(f, " %llx%s%s", (unsigned long long)s->ip[j],
			name ? "=" : "", name ? name : "");
	}
}

static void dump_snapshot(FILE *f, const struct bin_state *st,
			  const struct snapshot *s)
{
	fprintf(f, "snapshot %lu%s %s \"%s\" %lld.%09ld-%lld.%09ld\n", s->seq,
		s->final ? " final" : "", s->applet, s->describe,
		(long long)s->start.tv_sec, s->start.tv_nsec,
		(long long)s->end.tv_sec, s->end.tv_nsec);
	fprintf(f, " lost %llu/%llu dropped %llu/%llu unwind %s/%llu\n",
		(unsigned long long)s->lost_ustacks,
		(unsigned long long)s->lost_kstacks,
		(unsigned long long)s->dropped_rows,
		(unsigned long long)s->dropped_events,
		s->unwind ? s->unwind : "-",
		(unsigned long long)s->unwind_unknown);
	for (unsigned m = 0; m < s->nmetrics; m++)
		fprintf(f, " metric %s kind %u%s measure %u\n",
			s->metrics[m].name, s->metrics[m].kind,
			m == s->primary ? " primary" : "",
			s->metrics[m].measure);
	for (unsigned i = 0; s->applet_stat_names[i]; i++)
		fprintf(f, " stat %s = %llu\n", s->applet_stat_names[i],
			(unsigned long long)s->applet_stats[i]);
	for (unsigned i = 0; i < s->nmarks; i++)
		fprintf(f, " mark %lu kind %d at %lld.%09ld: %s\n",
			s->marks[i].n, s->marks[i].kind,
			(long long)s->marks[i].when.tv_sec,
			s->marks[i].when.tv_nsec, s->marks[i].cause);
	for (size_t r = 0; r < s->nrows; r++) {
		const struct sb_key *k = &s->rows[r].key;
		const char *cg = "";

		for (size_t i = 0; i < st->ncgroups; i++)
			if (st->cgroup_id[i] == k->cgroup)
				cg = st->cgroup_path[i];
		fprintf(f, " row %u/%u %s aux %u cgroup %llu%s%s values",
			k->tgid, k->pid, k->comm, k->aux,
			(unsigned long long)k->cgroup, *cg ? " " : "", cg);
		for (unsigned m = 0; m < s->nmetrics; m++)
			fprintf(f, " %llu",
				(unsigned long long)s->rows[r].v[m]);
		fprintf(f, "\n  user");
		dump_stack(f, st, k->user_stack);
		fprintf(f, "\n  kernel");
		dump_stack(f, st, k->kern_stack);
		fprintf(f, "\n");
	}
}

#endif
