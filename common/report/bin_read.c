// SPDX-License-Identifier: GPL-2.0
/*
 * The bin stream reader. Every byte of input is either part of a good
 * frame (sync, sane length, CRC) or counted as skipped. Version 2:
 * dictionary frames say which key period and which indexes they hold,
 * so a lost one leaves a gap, and a PARITY frame rebuilds one lost frame
 * of its group; a snapshot waits for its gaps (until its group's parity)
 * and is delivered whole and right, or counted as lost with the entries
 * it lacked (said with -v). Version 1: a frame lost makes the reader
 * wait for the next key frame.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bin_read.h"
#include "binfmt.h"

/* Snapshots waiting for their repeats; more means the stream is noise. */
#define BIN_PENDING (BIN_REPEAT + BIN_PARITY_SPAN + 4)
/* An index further than this past the slots in use is corruption. */
#define BIN_MAX_GAP (1u << 16)

struct pending {
	unsigned char *p;
	size_t len;
	unsigned age; /* SAMPLES frames read since */
};

/* The frames of a parity group received so far: flags and payload as
 * they came, to rebuild the one that did not from the PARITY frame. */
struct group {
	uint64_t key, id;
	unsigned char *m[BIN_GROUP_MAX];
	size_t mlen[BIN_GROUP_MAX];
};

struct bin_reader {
	struct bin_reader_ops ops;
	struct group group;
	struct bin_state st;
	struct bin_stats stats;
	unsigned char *buf;
	size_t len, cap;
	uint64_t offset; /* of buf[0] in the stream */
	unsigned long last_seq;
	unsigned char *plain; /* an inflated payload */
	size_t plain_cap;
	struct pending queue[BIN_PENDING];
	size_t nqueue;
	uint64_t headless_frames; /* of this period, before its header */
	bool said_version;
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

static void free_header(struct bin_state *st)
{
	free(st->applet);
	free(st->describe);
	free(st->host);
	free(st->release);
	free(st->machine);
	for (unsigned m = 0; m < st->nmetrics; m++)
		free((char *)st->metrics[m].name);
	free_names(st->stat_names);
	st->applet = st->describe = st->host = st->release = st->machine = NULL;
	st->stat_names = NULL;
	st->nmetrics = 0;
	st->have_header = false;
}

/* Forget everything since the key frame, header included. */
static void reset_state(struct bin_state *st)
{
	free_header(st);
	for (size_t i = 0; i < st->slots[0]; i++)
		free(st->str[i]);
	free(st->str);
	for (size_t i = 0; i < st->slots[1]; i++)
		free(st->stacks[i].ip);
	free(st->stacks);
	free(st->ksym_addr);
	free(st->ksym_name);
	free(st->cgroup_id);
	free(st->cgroup_path);
	free(st->aux_val);
	free(st->aux_name);
	free(st->maps_tgid);
	free(st->maps_known);
	memset(st, 0, sizeof(*st));
}

/* Make slot idx of a dictionary exist, new slots zeroed. */
static void *slot(void *arr, size_t *slots, size_t *cap, size_t idx,
		  size_t elem)
{
	if (idx < *slots)
		return arr;
	arr = grow_array(arr, cap, idx + 1, elem);
	memset((char *)arr + *slots * elem, 0, (idx + 1 - *slots) * elem);
	*slots = idx + 1;
	return arr;
}

/* A string reference, or NULL when it is out of range or not here. */
static const char *str_at(const struct bin_state *st, struct bcur *c)
{
	uint64_t i = bc_varint(c);

	if (i >= st->slots[0] || !st->str[i]) {
		/* version 1 has no gaps: a reference past the end is bad */
		if (st->version == BIN_VERSION_1 ||
		    i >= st->slots[0] + BIN_MAX_GAP)
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

/* The header after its version and key. */
static bool read_header_fields(struct bin_state *st, struct bcur *c)
{
	size_t nstat;

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
	/* version 2 says what report needs to know of the values */
	if (st->version != BIN_VERSION_1)
		read_measures(st, c);
	else
		derive_measures(st);
	return !c->bad;
}

/* ---- dictionaries: entry first + i of a frame, skipped when known ---- */
static bool read_strings(struct bin_state *st, struct bcur *c, size_t first)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		char *s = bc_str(c);

		st->str = slot(st->str, &st->slots[0], &st->str_cap, first + i,
			       sizeof(*st->str));
		if (st->str[first + i] || c->bad)
			free(s);
		else
			st->str[first + i] = s;
	}
	return !c->bad;
}

/* See put_stack() in format_bin.c: root frames shared with an earlier
 * stack, then the leaf-side frames as deltas, root-side first. A stack
 * whose base is missing stays missing. */
static bool read_stacks(struct bin_state *st, struct bcur *c, size_t first)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		size_t idx = first + i, depth = bc_varint(c),
		       back = bc_varint(c), shared = 0;
		const struct bin_stack *base = NULL;
		__u64 prev = 0, ip[SB_MAX_DEPTH];

		if (depth > SB_MAX_DEPTH || back > idx)
			return false;
		if (back) {
			shared = bc_varint(c);
			if (shared > depth || !shared)
				return false;
			if (idx - back < st->slots[1] &&
			    st->stacks[idx - back].ip)
				base = &st->stacks[idx - back];
			if (base && shared > base->n)
				return false;
		}
		for (size_t k = 0; k < shared && base; k++)
			ip[depth - 1 - k] = base->ip[base->n - 1 - k];
		prev = shared && base ? ip[depth - shared] : 0;
		for (size_t k = depth - shared; k-- > 0;)
			ip[k] = prev += (__u64)bc_svarint(c);
		if (c->bad || (back && !base))
			continue;
		st->stacks = slot(st->stacks, &st->slots[1], &st->stacks_cap,
				  idx, sizeof(*st->stacks));
		if (st->stacks[idx].ip)
			continue;
		st->stacks[idx].n = depth;
		st->stacks[idx].ip = xmalloc((depth + 1) * sizeof(__u64));
		memcpy(st->stacks[idx].ip, ip, depth * sizeof(__u64));
	}
	return !c->bad;
}

static bool read_ksyms(struct bin_state *st, struct bcur *c, size_t first)
{
	size_t n = bc_count(c);

	if (st->version != BIN_VERSION_1)
		st->ksym_prev = 0; /* deltas within the frame */
	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t addr = st->ksym_prev += (uint64_t)bc_svarint(c);
		const char *name = str_at(st, c);
		size_t cap = st->ksyms_cap, slots = st->slots[2];

		if (!name)
			continue;
		st->ksym_addr = slot(st->ksym_addr, &slots, &cap, first + i,
				     sizeof(uint64_t));
		st->ksym_name = slot(st->ksym_name, &st->slots[2],
				     &st->ksyms_cap, first + i, sizeof(char *));
		if (!st->ksym_name[first + i]) {
			st->ksym_addr[first + i] = addr;
			st->ksym_name[first + i] = name;
		}
	}
	return !c->bad;
}

/* A process's mappings, unless a later entry of it is already known. */
static bool newest_maps(const struct bin_state *st, size_t idx, uint32_t tgid)
{
	for (size_t j = idx + 1; j < st->slots[3]; j++)
		if (st->maps_known[j] && st->maps_tgid[j] == tgid)
			return false;
	return true;
}

static bool read_maps(struct bin_reader *r, struct bcur *c, size_t first)
{
	struct bin_state *st = &r->st;
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		size_t idx = first + i, cap = st->maps_cap,
		       slots = st->slots[3];
		uint32_t tgid = bc_varint(c);
		size_t nm = bc_count(c);
		struct rec_map *m = xmalloc((nm + 1) * sizeof(*m));
		bool all = true;

		for (size_t j = 0; j < nm; j++) {
			m[j].start = bc_varint(c);
			m[j].end = m[j].start + bc_varint(c);
			m[j].pgoff = bc_varint(c);
			m[j].path = str_at(st, c);
			m[j].build_id = str_at(st, c);
			all &= m[j].path && m[j].build_id;
		}
		if (!c->bad && all) {
			st->maps_tgid = slot(st->maps_tgid, &slots, &cap, idx,
					     sizeof(uint32_t));
			st->maps_known = slot(st->maps_known, &st->slots[3],
					      &st->maps_cap, idx, sizeof(bool));
			if (!st->maps_known[idx]) {
				st->maps_known[idx] = true;
				st->maps_tgid[idx] = tgid;
				if (r->ops.maps && newest_maps(st, idx, tgid))
					r->ops.maps(r->ops.ctx, tgid, m, nm);
			}
		}
		free(m);
	}
	return !c->bad;
}

static bool read_cgroups(struct bin_state *st, struct bcur *c, size_t first)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t id = bc_varint(c);
		const char *path = str_at(st, c);
		size_t cap = st->cgroups_cap, slots = st->slots[4];

		if (!path)
			continue;
		st->cgroup_id = slot(st->cgroup_id, &slots, &cap, first + i,
				     sizeof(uint64_t));
		st->cgroup_path =
			slot(st->cgroup_path, &st->slots[4], &st->cgroups_cap,
			     first + i, sizeof(char *));
		if (!st->cgroup_path[first + i]) {
			st->cgroup_id[first + i] = id;
			st->cgroup_path[first + i] = path;
		}
	}
	return !c->bad;
}

static bool read_aux(struct bin_state *st, struct bcur *c, size_t first)
{
	size_t n = bc_count(c);

	for (size_t i = 0; i < n && !c->bad; i++) {
		uint32_t v = bc_varint(c);
		const char *name = str_at(st, c);
		size_t cap = st->aux_cap, slots = st->slots[5];

		if (!name)
			continue;
		st->aux_val = slot(st->aux_val, &slots, &cap, first + i,
				   sizeof(uint32_t));
		st->aux_name = slot(st->aux_name, &st->slots[5], &st->aux_cap,
				    first + i, sizeof(char *));
		if (!st->aux_name[first + i]) {
			st->aux_val[first + i] = v;
			st->aux_name[first + i] = name;
		}
	}
	return !c->bad;
}

static bool known(const struct bin_state *st, unsigned d, size_t i)
{
	switch (d) {
	case 0:
		return st->str[i];
	case 1:
		return st->stacks[i].ip;
	case 2:
		return st->ksym_name[i];
	case 3:
		return st->maps_known[i];
	case 4:
		return st->cgroup_path[i];
	default:
		return st->aux_name[i];
	}
}

/* The dictionaries' counts: entries from 0 up to the first gap. */
static void count_known(struct bin_state *st)
{
	size_t *n[BIN_NDICT] = {&st->nstr,  &st->nstacks,  &st->nksyms,
				&st->nmaps, &st->ncgroups, &st->naux};

	for (unsigned d = 0; d < BIN_NDICT; d++)
		while (*n[d] < st->slots[d] && known(st, d, *n[d]))
			(*n[d])++;
}

static const char *const dict_names[BIN_NDICT] = {
	"strings", "stacks", "kernel symbols", "mappings", "cgroups", "aux"};

/* ---- samples ---- */
struct samples_head {
	struct snapshot s;
	uint64_t key, dict_frames, unwind, unwritten;
	uint64_t size[BIN_NDICT]; /* version 2: dictionary entries */
	uint64_t group, pos;	  /* version 2: parity group, place in it */
};

static void read_samples_head(unsigned version, struct bcur *c,
			      struct samples_head *h)
{
	struct snapshot *s = &h->s;
	size_t nstat;

	s->seq = bc_varint(c);
	s->final = bc_varint(c);
	s->start.tv_sec = bc_varint(c);
	s->start.tv_nsec = bc_varint(c) % NS_PER_SEC;
	s->end.tv_sec = bc_varint(c);
	s->end.tv_nsec = bc_varint(c) % NS_PER_SEC;
	s->lost_ustacks = bc_varint(c);
	s->lost_kstacks = bc_varint(c);
	s->dropped_rows = bc_varint(c);
	s->dropped_events = bc_varint(c);
	nstat = bc_count(c);
	for (size_t i = 0; i < nstat; i++) {
		uint64_t v = bc_varint(c);

		if (i < ARRAY_SIZE(s->applet_stats))
			s->applet_stats[i] = v;
	}
	h->unwind = bc_varint(c);
	s->unwind_unknown = bc_varint(c);
	h->unwritten = bc_varint(c);
	h->key = bc_varint(c);
	if (version == BIN_VERSION_1)
		h->dict_frames = bc_varint(c);
	else {
		for (unsigned d = 0; d < BIN_NDICT; d++)
			h->size[d] = bc_varint(c);
		h->group = bc_varint(c);
		h->pos = bc_varint(c);
	}
}

/* What the snapshot lacks, "" when nothing: the header or entries. */
static void lacking(const struct bin_state *st, const struct samples_head *h,
		    char *why, size_t len)
{
	size_t at = 0;

	*why = 0;
	if (!st->have_header) {
		snprintf(why, len, "the header of its key period");
		return;
	}
	for (unsigned d = 0; d < BIN_NDICT && at < len; d++) {
		size_t *n = (size_t[]){st->nstr,  st->nstacks,	st->nksyms,
				       st->nmaps, st->ncgroups, st->naux};
		size_t miss = 0, first = 0;

		for (size_t i = n[d]; i < h->size[d]; i++)
			if (i >= st->slots[d] || !known(st, d, i))
				if (!miss++)
					first = i;
		if (miss)
			at += snprintf(
				why + at, len - at, "%s%zu %s (from index %zu)",
				at ? ", " : "", miss, dict_names[d], first);
	}
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
	else
		c->bad = true;
}

static void note_seq(struct bin_reader *r, unsigned long seq)
{
	if (r->last_seq && seq > r->last_seq + 1) {
		r->stats.snapshots_missing += seq - r->last_seq - 1;
		verbose("bin stream: snapshots %lu..%lu missing (their samples "
			"frames were damaged or cut)",
			r->last_seq + 1, seq - 1);
	}
	if (seq > r->last_seq)
		r->last_seq = seq;
}

/* The rows after the head, and the snapshot to ops; false: malformed. */
static bool deliver(struct bin_reader *r, struct bcur *c,
		    struct samples_head *h)
{
	struct bin_state *st = &r->st;
	struct snapshot *s = &h->s;
	bool ok;

	if (h->unwind > st->nstr)
		c->bad = true;
	else if (h->unwind)
		s->unwind = st->str[h->unwind - 1];
	s->nrows = bc_count(c);
	s->rows = xzalloc((s->nrows + 1) * sizeof(*s->rows));
	for (size_t i = 0; i < s->nrows && !c->bad; i++) {
		struct sb_key *k = &s->rows[i].key;

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
			s->rows[i].v[m] = bc_varint(c);
	}
	ok = !c->bad;
	if (ok) {
		s->applet = st->applet;
		s->describe = st->describe;
		s->period_ns = st->period_ns;
		s->metrics = st->metrics;
		s->nmetrics = st->nmetrics;
		s->primary = st->primary;
		s->per_thread = st->per_thread;
		s->applet_stat_names = (const char *const *)st->stat_names;
		r->stats.snapshots++;
		note_seq(r, s->seq);
		if (r->ops.snapshot)
			r->ops.snapshot(r->ops.ctx, st, s);
	}
	free(s->rows);
	return ok;
}

static void drop(struct bin_reader *r, unsigned long seq, const char *why)
{
	r->stats.snapshots_broken++;
	verbose("bin stream: snapshot %lu lost: %s", seq, why);
	note_seq(r, seq);
}

/* Deliver what waits, in order, when it is complete; at_end: what is
 * still incomplete will never be. */
static void drain(struct bin_reader *r, bool at_end)
{
	count_known(&r->st);
	while (r->nqueue) {
		struct pending *q = &r->queue[0];
		struct bcur c = {q->p, q->p + q->len};
		struct samples_head h = {0};
		char why[200];

		read_samples_head(BIN_VERSION, &c, &h);
		lacking(&r->st, &h, why, sizeof(why));
		if (!*why) {
			if (q->age)
				r->stats.snapshots_repaired++;
			if (!deliver(r, &c, &h))
				drop(r, h.s.seq, "its rows do not decode");
		} else if (at_end || q->age > BIN_REPEAT + BIN_PARITY_SPAN ||
			   r->nqueue == BIN_PENDING) {
			char msg[256];

			snprintf(msg, sizeof(msg),
				 "%s never arrived (frames damaged)", why);
			drop(r, h.s.seq, msg);
		} else {
			break;
		}
		free(q->p);
		memmove(r->queue, r->queue + 1,
			--r->nqueue * sizeof(r->queue[0]));
	}
}

/* A key period ends: what waits for it is delivered or lost. */
static void end_period(struct bin_reader *r)
{
	drain(r, true);
	if (!r->st.have_header && r->headless_frames) {
		r->stats.frames_unsynced += r->headless_frames;
		verbose("bin stream: %llu frames of a key period whose header "
			"never arrived: not used",
			(unsigned long long)r->headless_frames);
	}
	r->headless_frames = 0;
	r->last_seq = 0;
}

/* A frame of key period `key`: a new period when it is not this one. */
static void enter_period(struct bin_reader *r, uint64_t key)
{
	if (r->st.key == key && r->st.version == BIN_VERSION)
		return;
	end_period(r);
	reset_state(&r->st);
	r->st.key = key;
	r->st.version = BIN_VERSION;
}

static void got_header(struct bin_reader *r, struct bcur *c)
{
	struct bin_state *st = &r->st;
	unsigned version = bc_varint(c);
	uint64_t key = bc_varint(c);

	if (c->bad)
		return;
	if (version == BIN_VERSION) {
		enter_period(r, key);
		if (st->have_header)
			return; /* a repeat */
		st->have_header = read_header_fields(st, c);
		if (!st->have_header) {
			free_header(st);
			return;
		}
		if (r->ops.key)
			r->ops.key(r->ops.ctx, st);
		r->headless_frames = 0;
		drain(r, false);
		return;
	}
	end_period(r);
	reset_state(st);
	st->version = version;
	st->key = key;
	if (version != BIN_VERSION_1) {
		if (!r->said_version)
			error_msg("bin stream version %u: this reader knows "
				  "versions %d and %d; skipping to the next "
				  "key frame",
				  version, BIN_VERSION_1, BIN_VERSION);
		r->said_version = true;
		return;
	}
	st->synced = read_header_fields(st, c);
	st->have_header = st->synced;
	if (st->synced && r->ops.key)
		r->ops.key(r->ops.ctx, st);
}

static bool read_dict(struct bin_reader *r, unsigned type, struct bcur *c,
		      size_t first)
{
	struct bin_state *st = &r->st;

	if (first > st->slots[type - BIN_STRINGS] + BIN_MAX_GAP)
		return false;
	switch (type) {
	case BIN_STRINGS:
		return read_strings(st, c, first);
	case BIN_STACKS:
		return read_stacks(st, c, first);
	case BIN_KSYMS:
		return read_ksyms(st, c, first);
	case BIN_MAPS:
		return read_maps(r, c, first);
	case BIN_CGROUPS:
		return read_cgroups(st, c, first);
	default:
		return read_aux(st, c, first);
	}
}

/* Version 1: frames in order, each dictionary frame appends. */
static void frame_v1(struct bin_reader *r, unsigned type, struct bcur *c)
{
	struct bin_state *st = &r->st;
	bool ok = true;

	if (!st->synced) {
		r->stats.frames_unsynced++;
		r->stats.snapshots_broken += type == BIN_SAMPLES;
		return;
	}
	if (type == BIN_SAMPLES) {
		struct samples_head h = {0};

		read_samples_head(BIN_VERSION_1, c, &h);
		r->stats.unwritten += h.unwritten;
		ok = !c->bad && h.key == st->key &&
		     h.dict_frames == st->dict_frames;
		if (ok) {
			count_known(st);
			ok = deliver(r, c, &h);
		}
		r->stats.snapshots_broken += !ok;
	} else if (type < BIN_SAMPLES) {
		ok = read_dict(r, type, c, st->slots[type - BIN_STRINGS]);
		count_known(st);
		st->dict_frames++;
	} else {
		st->dict_frames++; /* a newer writer's frame: not ours */
	}
	if (!ok)
		st->synced = false;
}

static void queue_samples(struct bin_reader *r, const unsigned char *p,
			  size_t len)
{
	struct bcur c = {p, p + len};
	struct samples_head h = {0};
	struct pending *q;

	read_samples_head(BIN_VERSION, &c, &h);
	if (c.bad) {
		verbose("bin stream: a samples frame that does not decode");
		r->stats.snapshots_broken++;
		return;
	}
	enter_period(r, h.key);
	r->stats.unwritten += h.unwritten;
	for (size_t i = 0; i < r->nqueue; i++)
		r->queue[i].age++;
	drain(r, false);
	if (r->nqueue == BIN_PENDING) { /* cannot happen: drain made room */
		r->stats.snapshots_broken++;
		return;
	}
	q = &r->queue[r->nqueue++];
	q->p = xmalloc(len + 1);
	memcpy(q->p, p, len);
	q->len = len;
	q->age = 0;
	drain(r, false);
}

/* A DICT frame: its key period, then sections of dictionaries. */
static void read_dict_frame(struct bin_reader *r, struct bcur *c)
{
	uint64_t key = bc_varint(c);

	bc_varint(c); /* parity group */
	bc_varint(c); /* and place in it */
	if (c->bad)
		return;
	enter_period(r, key);
	if (!r->st.have_header)
		r->headless_frames++;
	while (c->p < c->end && !c->bad) {
		uint64_t type = bc_varint(c);
		size_t len = bc_count(c);
		struct bcur sec = {c->p, c->p + len};
		uint64_t first = bc_varint(&sec);

		c->p += len;
		if (c->bad || type < BIN_STRINGS || type >= BIN_SAMPLES)
			continue; /* a later writer's section: not ours */
		if (sec.bad || !read_dict(r, type, &sec, first))
			verbose("bin stream: a %s section that does not "
				"decode",
				dict_names[type - BIN_STRINGS]);
	}
}

static void frame_v2(struct bin_reader *r, unsigned type,
		     const unsigned char *p, size_t len)
{
	struct bcur c = {p, p + len};

	if (type == BIN_SAMPLES)
		queue_samples(r, p, len);
	else if (type == BIN_DICT)
		read_dict_frame(r, &c);
	/* else a frame of version 1 or of a later writer: not ours */
}

static void group_clear(struct group *g)
{
	for (size_t i = 0; i < BIN_GROUP_MAX; i++) {
		free(g->m[i]);
		g->m[i] = NULL;
	}
}

/* A frame of group (key, id) at place pos came: keep it as it came. */
static void group_keep(struct bin_reader *r, uint64_t key, uint64_t id,
		       uint64_t pos, unsigned flags, const unsigned char *p,
		       size_t len)
{
	struct group *g = &r->group;

	if (pos >= BIN_GROUP_MAX)
		return;
	if (g->key != key || g->id != id) {
		group_clear(g);
		g->key = key;
		g->id = id;
	}
	free(g->m[pos]);
	g->m[pos] = xmalloc(len + 1);
	g->m[pos][0] = flags;
	memcpy(g->m[pos] + 1, p, len);
	g->mlen[pos] = len + 1;
}

static void frame(struct bin_reader *r, unsigned type, unsigned flags,
		  const unsigned char *p, size_t len);

/* A PARITY frame: when exactly one frame of its group is missing, the
 * XOR of the parity and the others is that frame. */
static void read_parity(struct bin_reader *r, const unsigned char *p,
			size_t len)
{
	struct bcur c = {p, p + len};
	struct group *g = &r->group;
	uint64_t key = bc_varint(&c), id = bc_varint(&c);
	size_t n = bc_count(&c), missing = 0, lost = 0, xlen;
	unsigned type[BIN_GROUP_MAX];
	size_t mlen[BIN_GROUP_MAX], ml[BIN_GROUP_MAX];
	unsigned char *x, *m[BIN_GROUP_MAX];
	bool ours;

	if (c.bad || !n || n > BIN_GROUP_MAX)
		return;
	for (size_t i = 0; i < n; i++) {
		type[i] = bc_varint(&c);
		mlen[i] = bc_varint(&c);
	}
	xlen = c.end - c.p;
	if (c.bad)
		return;
	ours = g->key == key && g->id == id;
	for (size_t i = 0; i < n; i++)
		if (!ours || !g->m[i]) {
			missing++;
			lost = i;
		}
	if (missing != 1 || mlen[lost] < 1 || mlen[lost] > xlen ||
	    type[lost] > BIN_TYPE_LIMIT) {
		if (missing)
			verbose("bin stream: %zu frames of a parity group "
				"lost: the parity repairs one only",
				missing);
		return;
	}
	x = xmalloc(xlen);
	memcpy(x, c.p, xlen);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; i != lost && k < g->mlen[i] && k < xlen; k++)
			x[k] ^= g->m[i][k];
	r->stats.frames_repaired++;
	verbose("bin stream: a damaged %s frame rebuilt from its parity",
		type[lost] == BIN_HEADER    ? "header"
		: type[lost] == BIN_SAMPLES ? "samples"
					    : "dictionary");
	/* the group is done: its frames are ours now (frame() keeps) */
	memcpy(m, g->m, sizeof(m));
	memcpy(ml, g->mlen, sizeof(ml));
	memset(g->m, 0, sizeof(g->m));
	if (!(x[0] & ~BIN_FLAG_ZLIB))
		frame(r, type[lost], x[0], x + 1, mlen[lost] - 1);
	/* entries after it that named what it held were not kept: again */
	for (size_t i = lost + 1; i < n; i++)
		if (m[i] && type[i] == BIN_DICT && !(m[i][0] & ~BIN_FLAG_ZLIB))
			frame(r, BIN_DICT, m[i][0], m[i] + 1, ml[i] - 1);
	for (size_t i = 0; i < BIN_GROUP_MAX; i++)
		free(m[i]);
	free(x);
}

/* Version 2 frames of a parity group are kept until its PARITY. */
static void keep_member(struct bin_reader *r, unsigned type, unsigned flags,
			const unsigned char *raw, size_t rawlen,
			const unsigned char *p, size_t len)
{
	struct bcur c = {p, p + len};
	uint64_t key, id = 0, pos = 0;

	if (type == BIN_HEADER) {
		if (bc_varint(&c) != BIN_VERSION)
			return;
		key = bc_varint(&c);
	} else if (type == BIN_SAMPLES) {
		struct samples_head h = {0};

		read_samples_head(BIN_VERSION, &c, &h);
		key = h.key;
		id = h.group;
		pos = h.pos;
	} else {
		key = bc_varint(&c);
		id = bc_varint(&c);
		pos = bc_varint(&c);
	}
	if (!c.bad)
		group_keep(r, key, id, pos, flags, raw, rawlen);
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
	const unsigned char *raw = p;
	size_t rawlen = len;
	struct bcur c;

	p = payload(r, flags, p, &len);
	if (!p) {
		verbose("bin stream: a frame's compressed payload does not "
			"inflate");
		r->st.synced = false;
		return;
	}
	c = (struct bcur){p, p + len};
	if (r->st.version != BIN_VERSION_1 &&
	    (type == BIN_HEADER || type == BIN_DICT || type == BIN_SAMPLES))
		keep_member(r, type, flags, raw, rawlen, p, len);
	if (type == BIN_PARITY) {
		if (r->st.version != BIN_VERSION_1) {
			read_parity(r, p, len);
			drain(r, false);
		}
	} else if (type == BIN_HEADER)
		got_header(r, &c);
	else if (r->st.version == BIN_VERSION_1)
		frame_v1(r, type, &c);
	else if (r->st.version && r->st.version != BIN_VERSION)
		r->stats.frames_unsynced++; /* a version we do not know */
	else
		frame_v2(r, type, p, len);
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *frame_name(unsigned type)
{
	static const char *const names[BIN_FRAME_MAX] = {
		"?",	"header",  "strings", "stacks",	 "ksyms",
		"maps", "cgroups", "aux",     "samples", "dictionary"};

	return type < BIN_FRAME_MAX ? names[type] : "unknown";
}

/* Bytes that are no good frame, said once per run with -v. */
static void skip(struct bin_reader *r, size_t from, size_t n, const char *why)
{
	if (!n)
		return;
	r->stats.bytes_skipped += n;
	if (why)
		verbose("bin stream: byte %llu: %s",
			(unsigned long long)(r->offset + from), why);
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
		char why[96];

		if (!sync) {
			/* keep a tail that may be the start of a marker */
			size_t keep = at_end ? 0
				      : r->len - pos < BIN_SYNC_LEN - 1
					      ? r->len - pos
					      : BIN_SYNC_LEN - 1;

			skip(r, pos, r->len - pos - keep, NULL);
			pos = r->len - keep;
			break;
		}
		at = sync - r->buf;
		skip(r, pos, at - pos, NULL);
		pos = at;
		if (r->len - at < BIN_HEAD_LEN) {
			if (!at_end)
				break;
			r->stats.bad_frames++;
			skip(r, at, r->len - at,
			     "a frame cut short at the end");
			pos = r->len;
			break;
		}
		type = r->buf[at + 4];
		flags = r->buf[at + 5];
		flen = le32(r->buf + at + 6);
		need = BIN_HEAD_LEN + flen + BIN_CRC_LEN;
		if (!type || type > BIN_TYPE_LIMIT || flags & ~BIN_FLAG_ZLIB ||
		    flen > BIN_MAX_FRAME) {
			snprintf(why, sizeof(why),
				 "a sync marker with an impossible frame "
				 "header");
			goto bad;
		}
		if (r->len - at < need) {
			if (!at_end)
				break;
			snprintf(why, sizeof(why),
				 "a %s frame cut short at the end",
				 frame_name(type));
			goto bad;
		}
		if (crc32(0, r->buf + at + BIN_SYNC_LEN,
			  need - BIN_SYNC_LEN - BIN_CRC_LEN) !=
		    le32(r->buf + at + need - BIN_CRC_LEN)) {
			snprintf(why, sizeof(why),
				 "a %s frame of %zu bytes, damaged (CRC)",
				 frame_name(type), flen);
			goto bad;
		}
		r->stats.frames++;
		frame(r, type, flags, r->buf + at + BIN_HEAD_LEN, flen);
		pos = at + need;
		continue;
	bad:
		/* the frame we missed may have held anything: resync */
		r->stats.bad_frames++;
		skip(r, at, 1, why);
		r->st.synced = false;
		pos = at + 1;
	}
	if (pos) /* buf is NULL before the first byte */
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
	end_period(r);
}

const struct bin_stats *bin_reader_stats(const struct bin_reader *r)
{
	return &r->stats;
}

void bin_reader_free(struct bin_reader *r)
{
	for (size_t i = 0; i < r->nqueue; i++)
		free(r->queue[i].p);
	group_clear(&r->group);
	reset_state(&r->st);
	free(r->buf);
	free(r->plain);
	free(r);
}
