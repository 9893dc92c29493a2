// SPDX-License-Identifier: GPL-2.0
/* Recorded snapshots through output.c; see bin_replay.h. */
#include <stdlib.h>
#include <string.h>

#include "bin_ksyms.h"
#include "bin_replay.h"
#include "binfmt.h"
#include "output_sink.h"
#include "stacks.h"
#include "syms.h"

struct bin_replay {
	struct output *out;
	struct output_sources saved; /* the live ones, while these stand in */
	/* dictionary entries in the cache; version 3 may fill gaps later */
	bool *stack_put;
	size_t stack_put_cap;
	size_t ksyms_built;
	bool failed;		 /* a snapshot the sink did not take */
	struct bin_ksyms *ksyms; /* the recorded ones, in address order */
};

/* output.c's aux and cgroup names take no context: the stream read now */
static const struct bin_state *replaying;

static const char *recorded_aux_name(__u32 aux)
{
	for (size_t i = 0; replaying && i < replaying->naux; i++)
		if (replaying->aux_val[i] == aux)
			return replaying->aux_name[i];
	return "?";
}

static const char *recorded_cgroup(__u64 id)
{
	for (size_t i = 0; replaying && i < replaying->ncgroups; i++)
		if (replaying->cgroup_id[i] == id)
			return replaying->cgroup_path[i];
	return NULL;
}

static __u32 recorded_nspid(__u32 tgid)
{
	uint64_t v;

	return replaying && u64map_get(&replaying->nspids, tgid, &v) ? v : 0;
}

struct bin_replay *bin_replay_new(struct output *out)
{
	struct bin_replay *r = xzalloc(sizeof(*r));

	r->out = out;
	r->saved.stacks = stack_cache_new(-1);
	/* recorded processes are never read from procfs */
	r->saved.procs = ENABLE_SYMBOLIZE ? proc_syms_new("/proc") : NULL;
	r->saved.ksyms_tried = true; /* no /proc/kallsyms: the recording's */
	r->saved.cgroup_name = recorded_cgroup;
	r->saved.nspid_of = recorded_nspid;
	r->ksyms_built = (size_t)-1;
	r->ksyms = ENABLE_SYMBOLIZE ? bin_ksyms_new() : NULL;
	output_swap_sources(out, &r->saved);
	return r;
}

void bin_replay_key(struct bin_replay *r)
{
	/* dictionary indexes start again: so do the stack ids */
	stack_cache_free(output_stacks(r->out));
	output_set_stacks(r->out, stack_cache_new(-1));
	free(r->stack_put);
	if (ENABLE_SYMBOLIZE) {
		output_set_ksyms(r->out, NULL); /* it reads r->ksyms */
		bin_ksyms_free(r->ksyms);
	}
	r->stack_put = NULL;
	r->stack_put_cap = 0;
	r->ksyms_built = (size_t)-1;
	r->ksyms = ENABLE_SYMBOLIZE ? bin_ksyms_new() : NULL;
}

void bin_replay_maps(struct bin_replay *r, uint32_t tgid,
		     const struct rec_map *m, size_t n)
{
	struct proc_syms *ps = output_procs(r->out);

	if (ENABLE_SYMBOLIZE && ps)
		proc_syms_record(ps, tgid, m, n);
}

void bin_replay_sync(struct bin_replay *r, const struct bin_state *st,
		     struct snapshot *s)
{
	struct stack_cache *sc = output_stacks(r->out);

	if (st->nstacks > r->stack_put_cap) {
		size_t was = r->stack_put_cap;

		r->stack_put = grow_array(r->stack_put, &r->stack_put_cap,
					  st->nstacks, sizeof(bool));
		memset(r->stack_put + was, 0, r->stack_put_cap - was);
	}
	for (size_t i = 0; i < st->nstacks; i++)
		if (!r->stack_put[i] && st->stacks[i].ip) {
			stack_cache_put(sc, BIN_REF0 + i, st->stacks[i].ip,
					st->stacks[i].n);
			r->stack_put[i] = true;
		}
	if (ENABLE_SYMBOLIZE && r->ksyms_built != st->nksyms) {
		output_set_ksyms(r->out,
				 bin_ksyms_build(r->ksyms, st->ksym_addr,
						 st->ksym_name, st->nksyms));
		r->ksyms_built = st->nksyms;
	}
	replaying = st;
	s->aux_name = st->has_aux ? recorded_aux_name : NULL;
}

static void on_key(void *ctx, const struct bin_state *st)
{
	bin_replay_key(ctx);
}

static void on_maps(void *ctx, uint32_t tgid, const struct rec_map *m, size_t n)
{
	bin_replay_maps(ctx, tgid, m, n);
}

static void on_snapshot(void *ctx, const struct bin_state *st,
			struct snapshot *s)
{
	struct bin_replay *r = ctx;

	bin_replay_sync(r, st, s);
	r->failed |= output_snapshot(r->out, s) != 0;
}

struct bin_reader_ops bin_replay_ops(struct bin_replay *r)
{
	return (struct bin_reader_ops){r, on_key, on_maps, on_snapshot};
}

void bin_replay_free(struct bin_replay *r)
{
	if (!r)
		return;
	output_swap_sources(r->out, &r->saved); /* now the recording's */
	replaying = NULL;
	free(r->stack_put);
	if (ENABLE_SYMBOLIZE)
		bin_ksyms_free(r->ksyms);
	stack_cache_free(r->saved.stacks);
	if (ENABLE_SYMBOLIZE) {
		ksyms_free(r->saved.ksyms);
		proc_syms_free(r->saved.procs);
	}
	free(r);
}

struct bin_replay_dump {
	struct output *out;
	struct bin_replay *replay; /* text, folded: decoded as report does */
	struct bin_reader *reader;
	int err;
};

struct bin_replay_dump *bin_replay_dump_begin(struct output *out)
{
	struct bin_replay_dump *d = xzalloc(sizeof(*d));
	struct bin_reader_ops ops;

	d->out = out;
	if (!output_writes_bin(out)) {
		d->replay = bin_replay_new(out);
		ops = bin_replay_ops(d->replay);
		d->reader = bin_reader_new(&ops);
	}
	return d;
}

void bin_replay_dump_feed(struct bin_replay_dump *d, const void *bin,
			  size_t len)
{
	if (d->reader)
		bin_reader_feed(d->reader, bin, len);
	else if (output_write_encoded(d->out, bin, len))
		d->err = -1;
}

int bin_replay_dump_end(struct bin_replay_dump *d)
{
	int err = d->err;

	if (d->reader) {
		bin_reader_end(d->reader);
		bin_reader_free(d->reader);
		err = d->replay->failed ? -1 : 0;
		bin_replay_free(d->replay);
	} else {
		/* the dump's key frames reset the reader: so does the writer */
		output_rekey(d->out);
	}
	free(d);
	return err;
}
