// SPDX-License-Identifier: GPL-2.0
/*
 * The bin stream reader. Every byte of input is either part of a good
 * frame (sync, sane length, CRC; one flipped bit is repaired) or counted
 * as skipped. Version 3: a lost frame is rebuilt from its group's parity
 * (bin_parity.c) when it was the group's only loss; else it costs its
 * piece of a snapshot, whose dictionary entries sit at fixed indexes, so
 * later ones still land right, and a row naming an entry that never
 * arrived is dropped and counted, never guessed. Pieces whose header was
 * lost wait for its next copy. Version 1: a frame that cannot be trusted
 * to follow the one before makes the reader wait for the next key frame.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bin_parity.h"
#include "bin_read.h"
#include "binfmt.h"

static bin_frame_fn on_frame;

/* Snapshot frames held until their key period's header comes. */
#define BIN_PENDING_MAX 64

struct bin_reader {
	struct bin_reader_ops ops;
	struct bin_state st;
	struct bin_stats stats;
	unsigned char *buf;
	size_t len, cap;
	uint64_t offset; /* of buf[0] in the stream, for -v */
	unsigned long last_seq;
	unsigned char *plain; /* an inflated payload */
	size_t plain_cap;
	struct pending_frame {
		uint64_t key;
		unsigned char *p;
		size_t len;
	} pending[BIN_PENDING_MAX];
	size_t npending;
	struct bin_parity *parity; /* version 3: what rebuilds a lost frame */
	/* version 3: the snapshot whose pieces are coming in */
	struct snapshot acc;
	bool acc_open;
	uint64_t acc_next;   /* the piece expected next */
	uint64_t acc_missed; /* its pieces not received */
};

struct bin_reader *bin_reader_new(const struct bin_reader_ops *ops)
{
	struct bin_reader *r = xzalloc(sizeof(*r));

	r->ops = *ops;
	r->parity = bin_parity_new(on_frame, r);
	return r;
}

static void free_names(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Forget everything since the key frame, header included. */
static void reset_state(struct bin_state *st)
{
	free(st->applet);
	free(st->describe);
	free(st->host);
	free(st->release);
	free(st->machine);
	for (unsigned m = 0; m < st->nmetrics; m++)
		free((char *)st->metrics[m].name);
	free_names(st->stat_names);
	for (size_t i = 0; i < st->nstr; i++)
		free(st->str[i]);
	free(st->str);
	for (size_t i = 0; i < st->nstacks; i++)
		free(st->stacks[i].ip);
	free(st->stacks);
	u64map_free(&st->ksym_known);
	free(st->ksym_addr);
	free(st->ksym_name);
	free(st->cgroup_id);
	free(st->cgroup_path);
	free(st->aux_val);
	free(st->aux_name);
	u64map_free(&st->nspids);
	memset(st, 0, sizeof(*st));
}

/* A string reference, or NULL when it is out of range. */
static const char *str_at(const struct bin_state *st, struct bcur *c)
{
	uint64_t i = bc_varint(c);

	if (i >= st->nstr) {
		c->bad = true;
		return NULL;
	}
	return st->str[i];
}

/* Version 3: a string reference, or NULL when it has not arrived (a
 * gap: the frame that held it was lost). */
static const char *str_known(const struct bin_state *st, struct bcur *c)
{
	uint64_t i = bc_varint(c);

	return i < st->nstr ? st->str[i] : NULL;
}

/* The sampling period and what each metric measures. */
static void read_measures(struct bin_state *st, struct bcur *c)
{
	st->period_ns = bc_varint(c);
	for (unsigned m = 0; m < st->nmetrics; m++) {
		st->metrics[m].measure = bc_varint(c);
		if (st->metrics[m].measure > MEASURE_PAGES)
			c->bad = true;
	}
}

/*
 * Streams written before the header said so: oncpu's header line says
 * "at N Hz", and a sample is 1/N s of CPU time; memstack's bytes are
 * memory, rastack's counts pages.
 */
static void derive_measures(struct bin_state *st)
{
	const char *at = strstr(st->describe, " at ");
	long long hz;
	enum metric_measure bytes = !strcmp(st->applet, "memstack")
					    ? MEASURE_MEMORY
					    : MEASURE_BYTES,
			    count = !strcmp(st->applet, "rastack")
					    ? MEASURE_PAGES
					    : MEASURE_COUNT;

	if (at && sscanf(at, " at %lld Hz", &hz) == 1 && hz > 0)
		st->period_ns = NS_PER_SEC / hz;
	for (unsigned m = 0; m < st->nmetrics; m++) {
		struct metric *mt = &st->metrics[m];

		mt->measure = mt->kind == METRIC_BYTES	 ? bytes
			      : mt->kind == METRIC_COUNT ? count
							 : MEASURE_OF_KIND;
		if (!strcmp(st->applet, "oncpu") && st->period_ns)
			mt->measure = MEASURE_CPU_TIME;
	}
}

static bool read_header(struct bin_reader *r, struct bcur *c)
{
	struct bin_state *st = &r->st;
	size_t nstat;

	reset_state(st);
	st->version = bc_varint(c);
	if (st->version != BIN_VERSION && st->version != BIN_VERSION_1) {
		if (!c->bad)
			error_msg(
				"bin stream version %u: this reader knows "
				"versions %d and %d; skipping to the next key "
				"frame",
				st->version, BIN_VERSION_1, BIN_VERSION);
		return false;
	}
	st->key = bc_varint(c);
	st->applet = bc_str(c);
	st->describe = bc_str(c);
	st->host = bc_str(c);
	st->release = bc_str(c);
	st->machine = bc_str(c);
	st->boot_ns = bc_varint(c);
	st->per_thread = bc_varint(c);
	st->nmetrics = bc_varint(c);
	if (!st->nmetrics || st->nmetrics > SB_MAX_VALUES) {
		st->nmetrics = 0;
		return false;
	}
	for (unsigned m = 0; m < st->nmetrics; m++) {
		st->metrics[m].name = bc_str(c);
		unsigned kind = bc_varint(c);

		st->metrics[m].level = kind & BIN_KIND_LEVEL;
		st->metrics[m].kind = kind & ~BIN_KIND_LEVEL;
		if (st->metrics[m].kind > METRIC_RATIO)
			c->bad = true;
		if (st->metrics[m].kind == METRIC_RATIO) {
			st->metrics[m].num = bc_varint(c);
			st->metrics[m].den = bc_varint(c);
		}
	}
	nstat = bc_count(c);
	if (nstat > SB_STAT_MAX - SB_STAT_APPLET0)
		return false;
	st->stat_names = xzalloc((nstat + 1) * sizeof(char *));
	for (size_t i = 0; i < nstat; i++)
		st->stat_names[i] = bc_str(c);
	for (unsigned m = 0; m < st->nmetrics; m++)
		if (st->metrics[m].kind == METRIC_RATIO &&
		    (st->metrics[m].num >= st->nmetrics ||
		     st->metrics[m].den >= st->nmetrics))
			c->bad = true;
	st->has_aux = bc_varint(c);
	/* added within version 1: absent means the first metric */
	st->primary = c->p < c->end ? bc_varint(c) : 0;
	if (st->primary >= st->nmetrics ||
	    st->metrics[st->primary].kind == METRIC_RATIO)
		c->bad = true;
	if (c->p < c->end)
		read_measures(st, c);
	else
		derive_measures(st);
	return !c->bad;
}

static bool read_strings(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		st->str = grow_array(st->str, &st->str_cap, st->nstr + 1,
				     sizeof(*st->str));
		st->str[st->nstr++] = bc_str(c);
	}
	return !c->bad;
}

/* See put_stack() in format_bin.c: root frames shared with an earlier
 * stack, then the leaf-side frames as deltas, root-side first. */
static bool read_stacks(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		size_t depth = bc_varint(c), back = bc_varint(c), shared = 0;
		const struct bin_stack *base = NULL;
		struct bin_stack *s;
		__u64 prev = 0;

		if (depth > SB_MAX_DEPTH || back > st->nstacks)
			return false;
		if (back) {
			base = &st->stacks[st->nstacks - back];
			shared = bc_varint(c);
			if (shared > depth || shared > base->n || !shared)
				return false;
		}
		st->stacks = grow_array(st->stacks, &st->stacks_cap,
					st->nstacks + 1, sizeof(*st->stacks));
		if (base) /* grow_array may have moved it */
			base = &st->stacks[st->nstacks - back];
		s = &st->stacks[st->nstacks++];
		s->n = depth;
		s->ip = xzalloc((depth + 1) * sizeof(*s->ip));
		for (size_t k = 0; k < shared; k++)
			s->ip[depth - 1 - k] = base->ip[base->n - 1 - k];
		prev = shared ? s->ip[depth - shared] : 0;
		for (size_t k = depth - shared; k-- > 0;)
			s->ip[k] = prev += (__u64)bc_svarint(c);
	}
	return !c->bad;
}

static bool read_ksyms(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t addr = st->ksym_prev += (uint64_t)bc_svarint(c);
		const char *name = str_at(st, c);

		st->ksym_addr = grow_array(st->ksym_addr, &st->ksyms_cap,
					   st->nksyms + 1, sizeof(uint64_t));
		st->ksym_name =
			xrealloc(st->ksym_name, st->ksyms_cap * sizeof(char *));
		st->ksym_addr[st->nksyms] = addr;
		st->ksym_name[st->nksyms++] = name ? name : "";
	}
	return !c->bad;
}

static bool read_maps(struct bin_reader *r, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint32_t tgid = bc_varint(c);
		size_t nm = bc_count(c);
		struct rec_map *m = xmalloc((nm + 1) * sizeof(*m));

		for (size_t j = 0; j < nm; j++) {
			m[j].start = bc_varint(c);
			m[j].end = m[j].start + bc_varint(c);
			m[j].pgoff = bc_varint(c);
			m[j].path = str_at(&r->st, c);
			m[j].build_id = str_at(&r->st, c);
		}
		if (!c->bad && r->ops.maps)
			r->ops.maps(r->ops.ctx, tgid, m, nm);
		free(m);
	}
	return !c->bad;
}

static bool read_cgroups(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t id = bc_varint(c);
		const char *path = str_at(st, c);

		st->cgroup_id = grow_array(st->cgroup_id, &st->cgroups_cap,
					   st->ncgroups + 1, sizeof(uint64_t));
		st->cgroup_path = xrealloc(st->cgroup_path,
					   st->cgroups_cap * sizeof(char *));
		st->cgroup_id[st->ncgroups] = id;
		st->cgroup_path[st->ncgroups++] = path ? path : "";
	}
	return !c->bad;
}

static bool read_nspids(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t tgid = bc_varint(c), ns = bc_varint(c);

		if (!c->bad)
			u64map_put(&st->nspids, tgid, ns);
	}
	return !c->bad;
}

static bool read_aux(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint32_t v = bc_varint(c);
		const char *name = str_at(st, c);

		st->aux_val = grow_array(st->aux_val, &st->aux_cap,
					 st->naux + 1, sizeof(uint32_t));
		st->aux_name =
			xrealloc(st->aux_name, st->aux_cap * sizeof(char *));
		st->aux_val[st->naux] = v;
		st->aux_name[st->naux++] = name ? name : "";
	}
	return !c->bad;
}

/* ---- version 3: sections of a snapshot frame. Entries sit at the
 * index the section gives, so a lost frame leaves a gap, never a shift;
 * one already known is kept (a stream pasted after itself). ---- */

/* An index this far past what is known is damage, not a gap. */
#define BIN_MAX_GAP (1u << 20)

static bool slot_ok(struct bcur *c, uint64_t at, size_t known)
{
	if (at > known + BIN_MAX_GAP)
		c->bad = true;
	return !c->bad;
}

static void snap_strings(struct bin_state *st, struct bcur *c, uint64_t first)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && slot_ok(c, first + i, st->nstr); i++) {
		char *str = bc_str(c);
		size_t at = first + i;

		if (at >= st->nstr) {
			st->str = grow_array(st->str, &st->str_cap, at + 1,
					     sizeof(*st->str));
			memset(st->str + st->nstr, 0,
			       (at + 1 - st->nstr) * sizeof(*st->str));
			st->nstr = at + 1;
		}
		if (!c->bad && !st->str[at])
			st->str[at] = str;
		else
			free(str);
	}
}

/* See put_stack() in format_bin.c. A stack whose base has not arrived
 * stays a gap. */
static void snap_stacks(struct bin_state *st, struct bcur *c, uint64_t first)
{
	size_t n = bc_count(c);
	__u64 ip[SB_MAX_DEPTH];

	for (size_t i = 0; i < n && slot_ok(c, first + i, st->nstacks); i++) {
		size_t at = first + i, depth = bc_varint(c),
		       back = bc_varint(c), shared = back ? bc_varint(c) : 0;
		const struct bin_stack *base;
		__u64 prev;

		if (depth > SB_MAX_DEPTH || back > at || shared > depth ||
		    (back && !shared)) {
			c->bad = true;
			return;
		}
		if (at >= st->nstacks) {
			st->stacks = grow_array(st->stacks, &st->stacks_cap,
						at + 1, sizeof(*st->stacks));
			memset(st->stacks + st->nstacks, 0,
			       (at + 1 - st->nstacks) * sizeof(*st->stacks));
			st->nstacks = at + 1;
		}
		base = back ? &st->stacks[at - back] : NULL;
		if (base && base->ip && shared > base->n) {
			c->bad = true;
			return;
		}
		for (size_t k = 0; base && base->ip && k < shared; k++)
			ip[depth - 1 - k] = base->ip[base->n - 1 - k];
		prev = base && base->ip ? ip[depth - shared] : 0;
		for (size_t k = depth - shared; k-- > 0;)
			ip[k] = prev += (__u64)bc_svarint(c);
		if (c->bad || st->stacks[at].ip || (base && !base->ip))
			continue;
		st->stacks[at].n = depth;
		st->stacks[at].ip = xmalloc((depth + 1) * sizeof(*ip));
		memcpy(st->stacks[at].ip, ip, depth * sizeof(*ip));
	}
}

static void snap_ksyms(struct bin_state *st, struct bcur *c)
{
	size_t n = bc_count(c);
	uint64_t addr = 0;

	for (size_t i = 0; i < n && !c->bad; i++) {
		const char *name;

		addr += (uint64_t)bc_svarint(c);
		name = str_known(st, c);
		if (c->bad || !name || u64map_get(&st->ksym_known, addr, NULL))
			continue;
		u64map_put(&st->ksym_known, addr, 1);
		st->ksym_addr = grow_array(st->ksym_addr, &st->ksyms_cap,
					   st->nksyms + 1, sizeof(uint64_t));
		st->ksym_name =
			xrealloc(st->ksym_name, st->ksyms_cap * sizeof(char *));
		st->ksym_addr[st->nksyms] = addr;
		st->ksym_name[st->nksyms++] = name;
	}
}

/* A process's mappings; kept only when every name they use arrived. */
static void snap_maps(struct bin_reader *r, struct bcur *c)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint32_t tgid = bc_varint(c);
		size_t nm = bc_count(c);
		struct rec_map *m = xmalloc((nm + 1) * sizeof(*m));
		bool whole = true;

		for (size_t j = 0; j < nm; j++) {
			m[j].start = bc_varint(c);
			m[j].end = m[j].start + bc_varint(c);
			m[j].pgoff = bc_varint(c);
			m[j].path = str_known(&r->st, c);
			m[j].build_id = str_known(&r->st, c);
			whole &= m[j].path && m[j].build_id;
		}
		if (!c->bad && whole && r->ops.maps)
			r->ops.maps(r->ops.ctx, tgid, m, nm);
		free(m);
	}
}

/* cgroup id or aux value -> name, each once */
static void snap_named(struct bin_state *st, struct bcur *c, bool cgroups)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t id = bc_varint(c);
		const char *name = str_known(st, c);
		size_t have = cgroups ? st->ncgroups : st->naux, k = 0;

		while (k < have &&
		       (cgroups ? st->cgroup_id[k] : st->aux_val[k]) != id)
			k++;
		if (c->bad || !name || k < have)
			continue;
		if (cgroups) {
			st->cgroup_id =
				grow_array(st->cgroup_id, &st->cgroups_cap,
					   st->ncgroups + 1, sizeof(uint64_t));
			st->cgroup_path =
				xrealloc(st->cgroup_path,
					 st->cgroups_cap * sizeof(char *));
			st->cgroup_id[st->ncgroups] = id;
			st->cgroup_path[st->ncgroups++] = name;
		} else {
			st->aux_val =
				grow_array(st->aux_val, &st->aux_cap,
					   st->naux + 1, sizeof(uint32_t));
			st->aux_name = xrealloc(st->aux_name,
						st->aux_cap * sizeof(char *));
			st->aux_val[st->naux] = id;
			st->aux_name[st->naux++] = name;
		}
	}
}

/* The sections up to the 0 that ends them; unknown ones are skipped. */
static void snap_sections(struct bin_reader *r, struct bcur *c)
{
	for (;;) {
		uint64_t type = bc_varint(c), first;
		struct bcur sec;
		size_t len;

		if (!type || c->bad)
			return;
		first = bc_varint(c);
		len = bc_count(c);
		sec = (struct bcur){c->p, c->p + len};
		c->p += len;
		switch (type) {
		case BIN_STRINGS:
			snap_strings(&r->st, &sec, first);
			break;
		case BIN_STACKS:
			snap_stacks(&r->st, &sec, first);
			break;
		case BIN_KSYMS:
			snap_ksyms(&r->st, &sec);
			break;
		case BIN_MAPS:
			snap_maps(r, &sec);
			break;
		case BIN_CGROUPS:
		case BIN_AUX:
			snap_named(&r->st, &sec, type == BIN_CGROUPS);
			break;
		case BIN_NSPIDS:
			read_nspids(&r->st, &sec);
			break;
		}
	}
}

/* A row's stack reference. Version 1: out of range is damage; version
 * 2: an entry that has not arrived drops the row (*gap). */
static __u64 stack_ref(const struct bin_state *st, struct bcur *c, bool *gap)
{
	uint64_t ref = bc_varint(c);

	if (ref < BIN_REF0)
		return ref;
	if (ref - BIN_REF0 >= st->nstacks || !st->stacks[ref - BIN_REF0].ip) {
		if (st->version == BIN_VERSION_1)
			c->bad = true;
		*gap = true;
	}
	return ref;
}

/* A row's command name: version 3 has it in the row, version 1 as a
 * string reference. */
static void comm_at(const struct bin_state *st, struct bcur *c,
		    char comm[SB_COMM_LEN])
{
	const char *name;
	size_t n;

	memset(comm, 0, SB_COMM_LEN);
	if (st->version == BIN_VERSION_1) {
		name = str_at(st, c);
		if (name)
			strncpy(comm, name, SB_COMM_LEN - 1);
		return;
	}
	/* read in place, up to a NUL as strncpy: a copy on the heap for
	 * every row was a twentieth of report's time */
	n = bc_count(c);
	name = (const char *)c->p;
	c->p += n;
	memcpy(comm, name,
	       strnlen(name, n < SB_COMM_LEN ? n : SB_COMM_LEN - 1));
}

/* After the rows (added within version 1): the triggers' marks. */
static void read_marks(struct bcur *c, struct snapshot *s)
{
	size_t n = bc_count(c);
	struct mark *m = xzalloc((n + 1) * sizeof(*m));

	for (size_t i = 0; i < n && !c->bad; i++) {
		m[i].n = bc_varint(c);
		m[i].kind = bc_varint(c);
		m[i].when.tv_sec = bc_varint(c);
		m[i].when.tv_nsec = bc_varint(c) % NS_PER_SEC;
		m[i].cause = bc_str(c);
		if (!m[i].kind || m[i].kind >= MARK_MAX)
			c->bad = true;
		s->nmarks = i + 1;
	}
	s->marks = m;
}

static void free_snapshot(struct snapshot *s)
{
	free(s->rows);
	for (unsigned i = 0; i < s->nmarks; i++)
		free((char *)s->marks[i].cause);
	free((void *)s->marks);
	memset(s, 0, sizeof(*s));
}

static void deliver(struct bin_reader *r, struct snapshot *s)
{
	const struct bin_state *st = &r->st;

	s->applet = st->applet;
	s->describe = st->describe;
	s->period_ns = st->period_ns;
	s->metrics = st->metrics;
	s->nmetrics = st->nmetrics;
	s->primary = st->primary;
	s->per_thread = st->per_thread;
	s->applet_stat_names = (const char *const *)st->stat_names;
	r->stats.snapshots++;
	if (r->ops.snapshot)
		r->ops.snapshot(r->ops.ctx, st, s);
	free_snapshot(s);
}

/* Version 3: the snapshot gathered from its pieces, as far as they came. */
static void close_pieces(struct bin_reader *r, bool last_came)
{
	if (!r->acc_open)
		return;
	if (r->acc_missed || !last_came) {
		r->stats.pieces_lost += r->acc_missed + !last_came;
		verbose("bin: snapshot %lu: %llu piece(s) lost%s", r->acc.seq,
			(unsigned long long)r->acc_missed + !last_came,
			last_came ? "" : ", the last among them");
	}
	r->acc_open = false;
	deliver(r, &r->acc);
}

static void add_piece(struct bin_reader *r, struct snapshot *s, uint64_t piece,
		      bool last)
{
	struct snapshot *a = &r->acc;

	if (r->acc_open && (a->seq != s->seq || piece < r->acc_next))
		close_pieces(r, false);
	if (!r->acc_open) {
		*a = *s;
		r->acc_open = true;
		r->acc_missed = piece;
	} else {
		a->rows = xrealloc(a->rows, (a->nrows + s->nrows + 1) *
						    sizeof(*a->rows));
		memcpy(a->rows + a->nrows, s->rows,
		       s->nrows * sizeof(*s->rows));
		a->nrows += s->nrows;
		r->acc_missed += piece - r->acc_next;
		free_snapshot(s);
	}
	r->acc_next = piece + 1;
	if (last)
		close_pieces(r, true);
}

/* false: the samples cannot be trusted (version 1: a frame before them
 * was lost) */
static bool read_samples(struct bin_reader *r, struct bcur *c)
{
	struct bin_state *st = &r->st;
	struct snapshot s = {0};
	uint64_t unwind, unwritten, primary_lost = 0, piece = 0;
	size_t nstat, kept = 0;
	bool ok, last = true;

	s.seq = bc_varint(c);
	s.final = bc_varint(c);
	s.start.tv_sec = bc_varint(c);
	s.start.tv_nsec = bc_varint(c) % NS_PER_SEC;
	s.end.tv_sec = bc_varint(c);
	s.end.tv_nsec = bc_varint(c) % NS_PER_SEC;
	s.lost_ustacks = bc_varint(c);
	s.lost_kstacks = bc_varint(c);
	s.dropped_rows = bc_varint(c);
	s.dropped_events = bc_varint(c);
	nstat = bc_count(c);
	for (size_t i = 0; i < nstat; i++) {
		uint64_t v = bc_varint(c);

		if (i < ARRAY_SIZE(s.applet_stats))
			s.applet_stats[i] = v;
	}
	unwind = bc_varint(c);
	s.unwind_unknown = bc_varint(c);
	if (unwind > st->nstr)
		c->bad = st->version == BIN_VERSION_1;
	else if (unwind)
		s.unwind = st->str[unwind - 1];
	unwritten = bc_varint(c);
	if (st->version == BIN_VERSION_1) {
		uint64_t key = bc_varint(c), dict_frames = bc_varint(c);

		if (c->bad || key != st->key || dict_frames != st->dict_frames)
			return false;
	} else {
		piece = bc_varint(c);
		last = bc_varint(c);
		if (piece > BIN_MAX_FRAME)
			c->bad = true;
	}
	if (c->bad)
		return false;
	/* every piece of a snapshot carries its fields: count them once */
	if (last)
		r->stats.unwritten += unwritten;
	if (r->last_seq && s.seq > r->last_seq + 1) {
		r->stats.snapshots_missing += s.seq - r->last_seq - 1;
		verbose("bin: snapshots %lu to %lu missing", r->last_seq + 1,
			s.seq - 1);
	}
	r->last_seq = s.seq;
	s.nrows = bc_count(c);
	s.rows = xzalloc((s.nrows + 1) * sizeof(*s.rows));
	for (size_t i = 0; i < s.nrows && !c->bad; i++) {
		struct sb_key *k = &s.rows[kept].key;
		bool gap = false;

		memset(&s.rows[kept], 0, sizeof(s.rows[kept]));
		k->tgid = bc_varint(c);
		k->pid = bc_varint(c);
		comm_at(st, c, k->comm);
		k->aux = bc_varint(c);
		k->cgroup = bc_varint(c);
		k->user_stack = stack_ref(st, c, &gap);
		k->kern_stack = stack_ref(st, c, &gap);
		k->other_tgid = bc_varint(c);
		comm_at(st, c, k->other_comm);
		k->other_user_stack = stack_ref(st, c, &gap);
		k->other_kern_stack = stack_ref(st, c, &gap);
		for (unsigned m = 0; m < st->nmetrics; m++)
			s.rows[kept].v[m] = bc_varint(c);
		if (!gap)
			kept++;
		else
			primary_lost += s.rows[kept].v[st->primary];
	}
	if (kept < s.nrows && !c->bad) {
		r->stats.rows_dropped += s.nrows - kept;
		verbose("bin: snapshot %lu: %zu of %zu rows dropped (%llu %s): "
			"a stack or name they use was in lost frames only",
			s.seq, s.nrows - kept, s.nrows,
			(unsigned long long)primary_lost,
			st->metrics[st->primary].name);
	}
	s.nrows = kept;
	if (!c->bad && c->p < c->end)
		read_marks(c, &s);
	ok = !c->bad;
	if (ok && st->version == BIN_VERSION)
		add_piece(r, &s, piece, last);
	else if (ok)
		deliver(r, &s);
	else
		free_snapshot(&s);
	return ok;
}

/* Raw deflate primed with bin_dict (version 3); NULL when it will not
 * inflate to at most 4 * BIN_MAX_FRAME bytes. */
static const unsigned char *inflate_dict(struct bin_reader *r,
					 const unsigned char *p, size_t *len)
{
	z_stream zs = {.next_in = (Bytef *)p, .avail_in = *len};
	int err = Z_DATA_ERROR;

	if (inflateInit2(&zs, -15) != Z_OK)
		return NULL;
	if (inflateSetDictionary(&zs, bin_dict, bin_dict_len) == Z_OK)
		do { /* Z_BUF_ERROR with no room left: give it more */
			size_t have = zs.total_out;

			if (have >= 4 * BIN_MAX_FRAME)
				break;
			r->plain = grow_array(r->plain, &r->plain_cap,
					      have + *len * 4 + 256, 1);
			zs.next_out = r->plain + have;
			zs.avail_out = r->plain_cap - have;
			err = inflate(&zs, Z_FINISH);
		} while (err == Z_BUF_ERROR && !zs.avail_out);
	*len = zs.total_out;
	inflateEnd(&zs);
	return err == Z_STREAM_END ? r->plain : NULL;
}

/* The payload, inflated when it is compressed; NULL when it will not. */
static const unsigned char *payload(struct bin_reader *r, unsigned flags,
				    const unsigned char *p, size_t *len)
{
	uLongf out;
	int err;

	if (flags & BIN_FLAG_DICT)
		return inflate_dict(r, p, len);
	if (!(flags & BIN_FLAG_ZLIB))
		return p;
	for (out = *len * 4 + 256; out <= 4 * BIN_MAX_FRAME; out *= 4) {
		r->plain = grow_array(r->plain, &r->plain_cap, out, 1);
		err = uncompress(r->plain, &out, p, *len);
		if (err == Z_OK) {
			*len = out;
			return r->plain;
		}
		if (err != Z_BUF_ERROR)
			break;
	}
	return NULL;
}

/* Version 3: a snapshot frame of the current key period. */
static void read_snap(struct bin_reader *r, struct bcur *c)
{
	snap_sections(r, c);
	if (c->bad || !read_samples(r, c)) {
		r->stats.snapshots_broken++;
		verbose("bin: a snapshot frame whose CRC held does not decode");
	}
}

static void headless(struct bin_reader *r, struct pending_frame *f)
{
	r->stats.frames_headless++;
	verbose("bin: a snapshot frame of key period %llx lost: its header "
		"never came",
		(unsigned long long)f->key);
	free(f->p);
}

/* A snapshot frame of a key period whose header has not come (lost, or
 * its copy comes later): held until it does. */
static void hold(struct bin_reader *r, uint64_t key, const unsigned char *p,
		 size_t len)
{
	struct pending_frame *f;

	if (r->npending == BIN_PENDING_MAX) {
		headless(r, &r->pending[0]);
		memmove(r->pending, r->pending + 1,
			--r->npending * sizeof(*r->pending));
	}
	f = &r->pending[r->npending++];
	f->key = key;
	f->len = len;
	f->p = xmalloc(len + 1);
	memcpy(f->p, p, len);
}

/* After a header: the held frames of its key period are read, in the
 * order they came; the others never will be. */
static void release_held(struct bin_reader *r)
{
	for (size_t i = 0; i < r->npending; i++) {
		struct pending_frame *f = &r->pending[i];
		struct bcur c = {f->p, f->p + f->len};

		if (r->st.synced && r->st.version == BIN_VERSION &&
		    f->key == r->st.key) {
			read_snap(r, &c);
			free(f->p);
		} else {
			headless(r, f);
		}
	}
	r->npending = 0;
}

static void header(struct bin_reader *r, struct bcur *c)
{
	struct bin_state *st = &r->st;
	struct bcur peek = *c;
	uint64_t version = bc_varint(&peek), key = bc_varint(&peek);

	if (version == BIN_VERSION && st->synced &&
	    st->version == BIN_VERSION && key == st->key)
		return; /* a copy of the header in use */
	close_pieces(r, false);
	st->synced = read_header(r, c);
	if (st->synced && r->ops.key)
		r->ops.key(r->ops.ctx, st);
	r->last_seq = 0;
	if (r->npending)
		release_held(r);
}

static void frame(struct bin_reader *r, unsigned type, unsigned flags,
		  const unsigned char *p, size_t len)
{
	struct bin_state *st = &r->st;
	struct bcur c;
	bool ok = false;

	p = payload(r, flags, p, &len);
	if (!p) {
		verbose("bin: a frame whose CRC held does not inflate");
		st->synced &= st->version == BIN_VERSION;
		return;
	}
	c = (struct bcur){p, p + len};
	if (type == BIN_HEADER) {
		header(r, &c);
		return;
	}
	if (type == BIN_SNAP) {
		uint64_t key = bc_varint(&c);

		if (c.bad)
			return;
		if (st->synced && st->version == BIN_VERSION && key == st->key)
			read_snap(r, &c);
		else
			hold(r, key, c.p, c.end - c.p);
		return;
	}
	if (st->version == BIN_VERSION)
		return; /* a version 1 type, or a later writer's */
	if (!st->synced) {
		r->stats.frames_unsynced++;
		r->stats.snapshots_broken += type == BIN_SAMPLES;
		return;
	}
	switch (type) {
	case BIN_STRINGS:
		ok = read_strings(st, &c);
		break;
	case BIN_STACKS:
		ok = read_stacks(st, &c);
		break;
	case BIN_KSYMS:
		ok = read_ksyms(st, &c);
		break;
	case BIN_MAPS:
		ok = read_maps(r, &c);
		break;
	case BIN_CGROUPS:
		ok = read_cgroups(st, &c);
		break;
	case BIN_AUX:
		ok = read_aux(st, &c);
		break;
	case BIN_NSPIDS:
		ok = read_nspids(st, &c);
		break;
	case BIN_SAMPLES:
		ok = read_samples(r, &c);
		r->stats.snapshots_broken += !ok;
		break;
	default:
		ok = true; /* a newer writer's frame: not ours to read */
	}
	if (type != BIN_SAMPLES)
		st->dict_frames++;
	if (!ok)
		st->synced = false;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A frame the parity layer hands on (bytes after the sync marker). */
static void on_frame(void *ctx, const unsigned char *f, size_t n)
{
	frame(ctx, f[0], f[1], f + BIN_HEAD_LEN - BIN_SYNC_LEN,
	      n - (BIN_HEAD_LEN - BIN_SYNC_LEN) - BIN_CRC_LEN);
}

/* Bytes that were not a good frame: version 3 holds the frames after
 * them until their group's parity can say what was lost. */
static void gap(struct bin_reader *r)
{
	if (r->st.version != BIN_VERSION_1)
		bin_parity_gap(r->parity);
}

/* A good frame at buf[at], n bytes, through the parity layer. */
static void good_frame(struct bin_reader *r, size_t at, size_t n)
{
	unsigned lost;

	r->stats.frames++;
	if (bin_parity_frame(r->parity, r->buf + at + BIN_SYNC_LEN,
			     n - BIN_SYNC_LEN, &lost)) {
		r->stats.frames_rebuilt++;
		verbose("bin: byte %llu: a lost frame rebuilt from its "
			"group's parity",
			(unsigned long long)(r->offset + at));
	}
	if (lost)
		verbose("bin: byte %llu: %u frames of a group lost: its parity "
			"rebuilds one alone",
			(unsigned long long)(r->offset + at), lost);
}

/* The frame at f (its sync marker) of n bytes: does its CRC hold? */
static bool crc_holds(const unsigned char *f, size_t n)
{
	return crc32(0, f + BIN_SYNC_LEN, n - BIN_SYNC_LEN - BIN_CRC_LEN) ==
	       le32(f + n - BIN_CRC_LEN);
}

/*
 * One flipped bit in the n bytes of a frame from f (sync marker on),
 * found by its CRC and flipped back. The CRC is linear: the XOR of the
 * computed and the stored value is the CRC register (from 0) of the error
 * alone, which a single bit b at byte j leaves as table[1 << b] carried
 * through the n - j - 1 bytes after it. Walking that register back one
 * byte at a time finds j in one pass. A CRC-32 tells any two one-bit
 * errors apart in frames far longer than ours.
 */
static bool repair_bit(unsigned char *f, size_t n)
{
	static unsigned char top[256]; /* table[i] >> 24 -> i, all distinct */
	static bool top_done;
	const z_crc_t *t = get_crc_table();
	const unsigned char *p = f + BIN_SYNC_LEN;
	size_t m = n - BIN_SYNC_LEN - BIN_CRC_LEN;
	uint32_t syn = crc32(0, p, m) ^ le32(f + n - BIN_CRC_LEN);

	if (!syn)
		return true;
	if (!(syn & (syn - 1))) { /* a bit of the stored CRC */
		for (unsigned k = 0; k < 32; k++)
			if (syn >> k & 1)
				f[n - BIN_CRC_LEN + k / 8] ^= 1 << k % 8;
		return true;
	}
	for (unsigned i = 0; i < 256 && !top_done; i++)
		top[t[i] >> 24] = i;
	top_done = true;
	for (size_t back = 0; back < m; back++) {
		unsigned i = top[syn >> 24];

		if (t[i] == syn && i && !(i & (i - 1))) {
			f[BIN_SYNC_LEN + m - 1 - back] ^= i;
			return crc_holds(f, n);
		}
		/* undo one byte of the register: syn = t[i] ^ (old >> 8) */
		syn = (syn ^ t[i]) << 8 | i;
	}
	return false;
}

/* Could a damaged frame at f have n bytes? The next frame's marker says
 * where it ends when its own length was hit. */
static size_t frame_to_next_sync(const unsigned char *f, size_t avail)
{
	const unsigned char *next =
		memmem(f + 1, avail - 1, BIN_SYNC, BIN_SYNC_LEN);
	size_t n = next ? (size_t)(next - f) : avail;

	return n >= BIN_HEAD_LEN + BIN_CRC_LEN && crc_holds(f, n) ? n : 0;
}

/* Bits in which 4 bytes differ from the sync marker. */
static unsigned sync_distance(const unsigned char *p)
{
	unsigned d = 0;

	for (int i = 0; i < BIN_SYNC_LEN; i++)
		d += __builtin_popcount(p[i] ^ (unsigned char)BIN_SYNC[i]);
	return d;
}

/* Handle the frames in the buffer; at_end: no more bytes will come. */
static void scan(struct bin_reader *r, bool at_end)
{
	size_t pos = 0;

	while (pos < r->len) {
		unsigned char *sync = memmem(r->buf + pos, r->len - pos,
					     BIN_SYNC, BIN_SYNC_LEN);
		size_t at, need, flen;
		unsigned type, flags;

		if (!sync) {
			/* keep a tail that may be the start of a marker */
			size_t keep = at_end ? 0
				      : r->len - pos < BIN_SYNC_LEN - 1
					      ? r->len - pos
					      : BIN_SYNC_LEN - 1;

			r->stats.bytes_skipped += r->len - pos - keep;
			if (r->len - pos > keep)
				gap(r);
			pos = r->len - keep;
			break;
		}
		at = sync - r->buf;
		/* bytes before the marker: a frame whose own marker was hit? */
		if (at > pos && at - pos >= BIN_HEAD_LEN + BIN_CRC_LEN &&
		    sync_distance(r->buf + pos) == 1 &&
		    BIN_HEAD_LEN + le32(r->buf + pos + 6) + BIN_CRC_LEN ==
			    at - pos &&
		    crc_holds(r->buf + pos, at - pos)) {
			verbose("bin: byte %llu: a frame's sync marker had a "
				"flipped bit: repaired",
				(unsigned long long)(r->offset + pos));
			r->stats.frames_repaired++;
			memcpy(r->buf + pos, BIN_SYNC, BIN_SYNC_LEN);
			at = pos;
		}
		if (at > pos) {
			gap(r);
			r->stats.bytes_skipped += at - pos;
			verbose("bin: byte %llu: resynchronised after "
				"%zu bytes",
				(unsigned long long)(r->offset + at), at - pos);
		}
		pos = at;
		if (r->len - at < BIN_HEAD_LEN) {
			if (!at_end)
				break;
			r->stats.bad_frames++;
			r->stats.bytes_skipped += r->len - at;
			gap(r);
			pos = r->len;
			break;
		}
		flen = le32(r->buf + at + 6);
		need = BIN_HEAD_LEN + flen + BIN_CRC_LEN;
		if (flen <= BIN_MAX_FRAME && r->len - at < need && !at_end)
			break; /* the rest of it is still to come */
		if (flen > BIN_MAX_FRAME || r->len - at < need ||
		    !crc_holds(r->buf + at, need)) {
			size_t n = flen <= BIN_MAX_FRAME && r->len - at >= need
					   ? need
					   : 0;

			if (n && repair_bit(r->buf + at, n)) {
				verbose("bin: byte %llu: a frame had a flipped "
					"bit: repaired",
					(unsigned long long)(r->offset + at));
			} else if ((n = frame_to_next_sync(r->buf + at,
							   r->len - at))) {
				verbose("bin: byte %llu: a frame's length was "
					"hit: the next marker gives it",
					(unsigned long long)(r->offset + at));
				need = n;
			} else {
				goto bad;
			}
			r->stats.frames_repaired++;
			flen = need - BIN_HEAD_LEN - BIN_CRC_LEN;
		}
		type = r->buf[at + 4];
		flags = r->buf[at + 5];
		/* a type above ours is a later writer's: read past it
		 * (docs/bin-format.md) once its CRC holds */
		if (!type ||
		    (flags != BIN_FLAG_ZLIB && flags != BIN_FLAG_DICT && flags))
			goto bad;
		good_frame(r, at, need);
		pos = at + need;
		continue;
	bad:
		/* the frame we missed may have held anything: version 1
		 * waits for a key frame, version 3 for the parity */
		verbose("bin: byte %llu: a frame with a bad checksum skipped",
			(unsigned long long)(r->offset + at));
		r->stats.bad_frames++;
		r->stats.bytes_skipped++;
		r->st.synced &= r->st.version == BIN_VERSION;
		gap(r);
		pos = at + 1;
	}
	if (pos) /* r->buf is NULL until the first bytes come */
		memmove(r->buf, r->buf + pos, r->len - pos);
	r->len -= pos;
	r->offset += pos;
}

void bin_reader_feed(struct bin_reader *r, const void *data, size_t len)
{
	r->buf = grow_array(r->buf, &r->cap, r->len + len, 1);
	memcpy(r->buf + r->len, data, len);
	r->len += len;
	scan(r, false);
}

void bin_reader_end(struct bin_reader *r)
{
	scan(r, true);
	bin_parity_flush(r->parity);
	close_pieces(r, false);
	for (size_t i = 0; i < r->npending; i++)
		headless(r, &r->pending[i]);
	r->npending = 0;
}

const struct bin_stats *bin_reader_stats(const struct bin_reader *r)
{
	return &r->stats;
}

void bin_reader_free(struct bin_reader *r)
{
	free_snapshot(&r->acc);
	bin_parity_free(r->parity);
	reset_state(&r->st);
	for (size_t i = 0; i < r->npending; i++)
		free(r->pending[i].p);
	free(r->buf);
	free(r->plain);
	free(r);
}
