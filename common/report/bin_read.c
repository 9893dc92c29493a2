// SPDX-License-Identifier: GPL-2.0
/*
 * The bin stream reader. Every byte of input is either part of a good
 * frame (sync, sane length, CRC) or counted as skipped. A frame that
 * cannot be trusted to follow the one before (a dictionary frame lost,
 * a reference out of range) makes the reader wait for the next key frame:
 * a snapshot is only ever delivered whole and right.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bin_read.h"
#include "binfmt.h"

struct bin_reader {
	struct bin_reader_ops ops;
	struct bin_state st;
	struct bin_stats stats;
	unsigned char *buf;
	size_t len, cap;
	unsigned long last_seq;
	unsigned char *plain; /* an inflated payload */
	size_t plain_cap;
};

struct bin_reader *bin_reader_new(const struct bin_reader_ops *ops)
{
	struct bin_reader *r = xzalloc(sizeof(*r));

	r->ops = *ops;
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
	if (st->version != BIN_VERSION) {
		if (!c->bad)
			error_msg(
				"bin stream version %u: this reader knows "
				"version %d only; skipping to the next key frame",
				st->version, BIN_VERSION);
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

static __u64 stack_ref(const struct bin_state *st, struct bcur *c)
{
	uint64_t ref = bc_varint(c);

	if (ref >= BIN_REF0 + st->nstacks)
		c->bad = true;
	return ref;
}

static void comm_at(const struct bin_state *st, struct bcur *c,
		    char comm[SB_COMM_LEN])
{
	const char *s = str_at(st, c);

	memset(comm, 0, SB_COMM_LEN);
	if (s)
		strncpy(comm, s, SB_COMM_LEN - 1);
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

/* false: the samples cannot be trusted (a frame before them was lost) */
static bool read_samples(struct bin_reader *r, struct bcur *c)
{
	struct bin_state *st = &r->st;
	struct snapshot s = {0};
	uint64_t key, dict_frames, unwind;
	size_t nstat;
	bool ok;

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
		c->bad = true;
	else if (unwind)
		s.unwind = st->str[unwind - 1];
	r->stats.unwritten += bc_varint(c);
	key = bc_varint(c);
	dict_frames = bc_varint(c);
	if (c->bad || key != st->key || dict_frames != st->dict_frames)
		return false;
	if (r->last_seq && s.seq > r->last_seq + 1)
		r->stats.snapshots_missing += s.seq - r->last_seq - 1;
	r->last_seq = s.seq;
	s.nrows = bc_count(c);
	s.rows = xzalloc((s.nrows + 1) * sizeof(*s.rows));
	for (size_t i = 0; i < s.nrows && !c->bad; i++) {
		struct sb_key *k = &s.rows[i].key;

		k->tgid = bc_varint(c);
		k->pid = bc_varint(c);
		comm_at(st, c, k->comm);
		k->aux = bc_varint(c);
		k->cgroup = bc_varint(c);
		k->user_stack = stack_ref(st, c);
		k->kern_stack = stack_ref(st, c);
		k->other_tgid = bc_varint(c);
		comm_at(st, c, k->other_comm);
		k->other_user_stack = stack_ref(st, c);
		k->other_kern_stack = stack_ref(st, c);
		for (unsigned m = 0; m < st->nmetrics; m++)
			s.rows[i].v[m] = bc_varint(c);
	}
	if (!c->bad && c->p < c->end)
		read_marks(c, &s);
	ok = !c->bad;
	if (ok) {
		s.applet = st->applet;
		s.describe = st->describe;
		s.period_ns = st->period_ns;
		s.metrics = st->metrics;
		s.nmetrics = st->nmetrics;
		s.primary = st->primary;
		s.per_thread = st->per_thread;
		s.applet_stat_names = (const char *const *)st->stat_names;
		r->stats.snapshots++;
		if (r->ops.snapshot)
			r->ops.snapshot(r->ops.ctx, st, &s);
	}
	free(s.rows);
	for (unsigned i = 0; i < s.nmarks; i++)
		free((char *)s.marks[i].cause);
	free((void *)s.marks);
	return ok;
}

/* The payload, inflated when it is compressed; NULL when it will not. */
static const unsigned char *payload(struct bin_reader *r, unsigned flags,
				    const unsigned char *p, size_t *len)
{
	uLongf out;
	int err;

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

static void frame(struct bin_reader *r, unsigned type, unsigned flags,
		  const unsigned char *p, size_t len)
{
	struct bin_state *st = &r->st;
	struct bcur c;
	bool ok = false;

	p = payload(r, flags, p, &len);
	if (!p) {
		st->synced = false;
		return;
	}
	c = (struct bcur){p, p + len};
	if (type == BIN_HEADER) {
		st->synced = read_header(r, &c);
		if (st->synced && r->ops.key)
			r->ops.key(r->ops.ctx, st);
		r->last_seq = 0;
		return;
	}
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
			pos = r->len - keep;
			break;
		}
		at = sync - r->buf;
		r->stats.bytes_skipped += at - pos;
		pos = at;
		if (r->len - at < BIN_HEAD_LEN) {
			if (!at_end)
				break;
			r->stats.bad_frames++;
			r->stats.bytes_skipped += r->len - at;
			pos = r->len;
			break;
		}
		type = r->buf[at + 4];
		flags = r->buf[at + 5];
		flen = le32(r->buf + at + 6);
		need = BIN_HEAD_LEN + flen + BIN_CRC_LEN;
		/* a type above ours is a later writer's: read past it
		 * (docs/bin-format.md) once its CRC holds */
		if (!type || flags & ~BIN_FLAG_ZLIB || flen > BIN_MAX_FRAME) {
			goto bad;
		}
		if (r->len - at < need) {
			if (!at_end)
				break;
			goto bad;
		}
		if (crc32(0, r->buf + at + BIN_SYNC_LEN,
			  need - BIN_SYNC_LEN - BIN_CRC_LEN) !=
		    le32(r->buf + at + need - BIN_CRC_LEN))
			goto bad;
		r->stats.frames++;
		frame(r, type, flags, r->buf + at + BIN_HEAD_LEN, flen);
		pos = at + need;
		continue;
	bad:
		/* the frame we missed may have held anything: resync */
		r->stats.bad_frames++;
		r->stats.bytes_skipped++;
		r->st.synced = false;
		pos = at + 1;
	}
	if (pos) /* r->buf is NULL until the first bytes come */
		memmove(r->buf, r->buf + pos, r->len - pos);
	r->len -= pos;
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
}

const struct bin_stats *bin_reader_stats(const struct bin_reader *r)
{
	return &r->stats;
}

void bin_reader_free(struct bin_reader *r)
{
	reset_state(&r->st);
	free(r->buf);
	free(r->plain);
	free(r);
}
