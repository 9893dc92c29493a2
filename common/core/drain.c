// SPDX-License-Identifier: GPL-2.0
/* One snapshot: flip BPF to the next interval's map, drain the closing
 * one, join the applet's state rows, and hand the rows to the output. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf_quiesce.h"
#include "capture.h"
#include "collector.h"
#include "mapwalk.h"
#include "output.h"
#include "output_sink.h"
#include "sink.h"
#include "stacks.h"
#include "syms.h"
#include "unwind.h"

#define STACK_KEEP_INTERVALS 4	     /* unused stacks stay cached this long */
#define FLIP_GRACE_NS	     1000000 /* events just before the flip, counted late */
/* where the kernel cannot wait out the programs running (bpf_quiesce) */
#define SEAL_FALLBACK_NS (20 * (long)NS_PER_MS)

static void read_stats(struct collector *c, __u64 delta[SB_STAT_MAX])
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(c->obj, "sb_stats"));
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = xmalloc(ncpu * sizeof(*v));

	for (__u32 i = 0; i < SB_STAT_MAX; i++) {
		__u64 sum = 0;

		if (!bpf_map_lookup_elem(fd, &i, v))
			for (int cpu = 0; cpu < ncpu; cpu++)
				sum += v[cpu];
		delta[i] = sum - c->stats_prev[i];
		c->stats_prev[i] = sum;
	}
	free(v);
}

struct rows {
	struct row *row;
	size_t n, cap, value_size;
};

static void take_row(const void *key, const void *value, void *ctx)
{
	struct rows *r = ctx;
	struct row *row;

	r->row = grow_array(r->row, &r->cap, r->n + 1, sizeof(*r->row));
	row = &r->row[r->n++];
	memset(row, 0, sizeof(*row));
	memcpy(&row->key, key, sizeof(row->key));
	memcpy(row->v, value, r->value_size);
}

/* Take the rows of the buffer BPF is no longer writing to. */
static struct row *drain_rows(struct bpf_map *map, size_t *nrows)
{
	struct rows r = {.value_size = bpf_map__value_size(map)};

	if (r.value_size > sizeof(r.row->v))
		error_exit("internal: %s values are %zu bytes",
			   bpf_map__name(map), r.value_size);
	map_walk(bpf_map__fd(map), sizeof(struct sb_key), r.value_size, true,
		 take_row, &r);
	*nrows = r.n;
	return r.row;
}

static int by_key(const void *a, const void *b)
{
	return memcmp(&((const struct row *)a)->key,
		      &((const struct row *)b)->key, sizeof(struct sb_key));
}

static bool all_zero(const struct row *r)
{
	for (unsigned m = 0; m < SB_MAX_VALUES; m++)
		if (r->v[m])
			return false;
	return true;
}

/* The applet's state rows join the interval's: rows of one key become
 * one, and every stack a row names stays cached. */
static void merge_state_rows(struct collector *c, struct snapshot *s)
{
	struct row *extra = NULL;
	size_t n = c->ops->state_rows(c, c->skel, c->args, &extra), kept = 0;
	unsigned depth;

	s->rows = xrealloc(s->rows, (s->nrows + n + 1) * sizeof(*s->rows));
	memcpy(s->rows + s->nrows, extra, n * sizeof(*extra));
	s->nrows += n;
	free(extra);
	qsort(s->rows, s->nrows, sizeof(*s->rows), by_key);
	for (size_t i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		stack_cache_get(c->stacks, r->key.user_stack, &depth);
		stack_cache_get(c->stacks, r->key.kern_stack, &depth);
		stack_cache_get(c->stacks, r->key.other_user_stack, &depth);
		stack_cache_get(c->stacks, r->key.other_kern_stack, &depth);
		if (kept && !by_key(&s->rows[kept - 1], r))
			for (unsigned m = 0; m < SB_MAX_VALUES; m++)
				s->rows[kept - 1].v[m] += r->v[m];
		else
			s->rows[kept++] = *r;
	}
	s->nrows = kept;
}

/* Rows with nothing to show, whichever applet made them. */
static void drop_zero_rows(struct snapshot *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nrows; i++)
		if (!all_zero(&s->rows[i]))
			s->rows[kept++] = s->rows[i];
	s->nrows = kept;
}

/* -v -v: what stays from one snapshot to the next, to tell a cache that
 * grows from the symbols of what runs now */
static void say_kept(struct collector *c)
{
	struct proc_syms_held h = {0};

	if (verbose_level < 2)
		return;
	if (ENABLE_SYMBOLIZE && c->procs)
		proc_syms_held(c->procs, &h);
	verbose("snapshot %lu keeps: symbols of %zu processes, %zu files "
		"(%zu kB), %zu stacks",
		c->seq, h.procs, h.files, h.bytes / 1024,
		stack_cache_size(c->stacks));
}

/* The wall clock and CLOCK_BOOTTIME drift apart by less than this in an
 * interval (NTP slews at 500 ppm at most); more is the clock set. */
#define WALL_SET_NS (10 * (int64_t)NS_PER_MS)

static int64_t wall_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * NS_PER_SEC + t->tv_nsec;
}

static struct timespec wall_before(const struct timespec *t, uint64_t ns)
{
	int64_t at = wall_ns(t) - (int64_t)ns;

	return (struct timespec){at / (int64_t)NS_PER_SEC,
				 at % (int64_t)NS_PER_SEC};
}

int collect_snapshot(struct collector *c, bool final)
{
	struct snapshot s = {0};
	__u64 stats[SB_STAT_MAX];
	const char *map;
	unsigned closing;
	struct timespec grace = {0, FLIP_GRACE_NS};
	char unwind[256];
	int err;

	struct timespec flip_wall;
	__u64 flip = now_ns(), flip_boot = boot_ns();

	/* the interval ends at the flip, where the accounting splits */
	clock_gettime(CLOCK_REALTIME, &flip_wall);
	/* the flip's time and the next map in one store (see struct sb_ctl) */
	closing = c->ctl->flip & 1;
	map = closing ? "sb_counts1" : "sb_counts0";
	__atomic_store_n(&c->ctl->flip, flip << 1 | !closing, __ATOMIC_RELEASE);
	nanosleep(&grace, NULL);
	if (c->ops->before_drain &&
	    (err = c->ops->before_drain(c, c->skel, c->args)))
		error_msg("snapshot %lu: %s", c->seq + 1, strerror(-err));
	/* what is counted from now on goes to the next interval; the drain
	 * waits for the programs that chose the closing map (a vCPU the
	 * host stalls for longer than the grace, a late count after a
	 * missed switch-in) */
	__atomic_store_n(&c->ctl->sealed, c->ctl->flip, __ATOMIC_RELEASE);
	if (!bpf_quiesce(SEAL_FALLBACK_NS) && !c->said_no_quiesce) {
		c->said_no_quiesce = true;
		verbose("snapshots: the kernel cannot wait for BPF programs "
			"to return (membarrier: no CONFIG_MEMBARRIER, or "
			"nohz_full): the drain waits %ld ms instead",
			SEAL_FALLBACK_NS / (long)NS_PER_MS);
	}
	s.rows =
		drain_rows(bpf_object__find_map_by_name(c->obj, map), &s.nrows);
	stack_cache_drain(c->stacks);
	/* the interval's rows come from one BPF map: keys differ there */
	if (c->ops->state_rows)
		merge_state_rows(c, &s);
	drop_zero_rows(&s);
	read_stats(c, stats);

	s.applet = applet_name;
	s.seq = ++c->seq;
	s.final = final;
	/* it starts where the last one ended, unless the wall clock was set
	 * within it (GNSS, NTP): then at its end less how long it lasted,
	 * so the interval moves, never stretches */
	s.end = flip_wall;
	s.start = wall_before(&flip_wall, flip_boot - c->interval_start);
	if (llabs(wall_ns(&s.start) - wall_ns(&c->interval_wall)) < WALL_SET_NS)
		s.start = c->interval_wall;
	c->interval_start = flip_boot;
	c->interval_wall = flip_wall;
	s.metrics = c->ops->metrics;
	s.nmetrics = c->ops->nmetrics;
	s.primary = c->ops->primary ? c->ops->primary(c, c->args) : 0;
	s.period_ns = c->ops->period_ns ? c->ops->period_ns(c, c->args) : 0;
	s.describe = c->describe;
	s.aux_name = c->ops->aux_name;
	s.per_thread = c->ops->per_thread;
	s.lost_ustacks = stats[SB_STAT_USTACK_LOST];
	s.lost_kstacks = stats[SB_STAT_KSTACK_LOST];
	s.dropped_rows = stats[SB_STAT_ROWS_DROPPED];
	s.dropped_events = stats[SB_STAT_EVENTS_DROPPED];
	if (c->unwind) {
		unwind_describe(c->unwind, unwind, sizeof(unwind));
		s.unwind = unwind;
		s.unwind_unknown = stats[SB_STAT_UNWIND_UNKNOWN];
	}
	s.applet_stat_names = c->ops->stat_names;
	for (unsigned i = 0; i < ARRAY_SIZE(s.applet_stats); i++)
		s.applet_stats[i] = stats[SB_STAT_APPLET0 + i];
	if (c->ops->add_stats)
		c->ops->add_stats(c, c->args, s.applet_stats);
	err = c->capture ? capture_emit(c->capture, &s)
			 : output_snapshot(c->out, &s);
	if (s.lost_ustacks + s.lost_kstacks + s.dropped_rows + s.dropped_events)
		status_say(
			"snapshot %lu lost %llu user and %llu kernel stacks, "
			"%llu events, %llu process events",
			s.seq, (unsigned long long)s.lost_ustacks,
			(unsigned long long)s.lost_kstacks,
			(unsigned long long)s.dropped_rows,
			(unsigned long long)s.dropped_events);
	if (s.lost_ustacks + s.lost_kstacks + s.dropped_rows + s.dropped_events)
		verbose("snapshot %lu lost %llu user and %llu kernel stacks, "
			"%llu events, %llu process events",
			s.seq, (unsigned long long)s.lost_ustacks,
			(unsigned long long)s.lost_kstacks,
			(unsigned long long)s.dropped_rows,
			(unsigned long long)s.dropped_events);
	stack_cache_expire(c->stacks, STACK_KEEP_INTERVALS);
	say_kept(c);
	free(s.rows);
	release_free_memory();
	return err;
}
