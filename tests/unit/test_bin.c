// SPDX-License-Identifier: GPL-2.0
// layer: stream
/*
 * The bin stream: what goes in comes out, from the start or from the
 * middle, and a stream damaged at random (bytes flipped, dropped,
 * inserted) never makes the reader crash or deliver a wrong row, only
 * fewer, with the damage counted. On a real-shaped stream, what damage
 * costs is measured against issue 18's targets; a version 1 stream
 * (tests/unit/fixtures/bin-v1-offcpu.bin) still reads as it did.
 */
#include <stdlib.h>
#include <string.h>

#include "bin_read.h"
#include "bin_dump.h"
#include "binfmt.h"
#include "check.h"
#include "format_bin.h"

#define NSNAP	  48
#define NROWS	  6
#define KEY_EVERY 8

/* a ratio and a primary metric other than the first go through too */
static const struct metric metrics[] = {{"blocked", METRIC_NS},
					{"count", METRIC_COUNT},
					{"per", METRIC_RATIO, 1, 0}};
static const char *const stat_names[] = {"things not tracked", NULL};

/* ---- ground truth: every field follows from (seq, row) ---- */
static __u64 user_id(unsigned long seq, unsigned r)
{
	return 10 + (seq + r) % 7;
}
static __u64 kern_id(unsigned long seq, unsigned r)
{
	return r == 5 ? SB_STACK_LOST : r == 4 ? SB_STACK_NONE : 50 + r % 4;
}
static unsigned depth_of(__u64 id)
{
	return id % 5 + 7;
}
/* frames leaf first; the six root frames are shared by all stacks of a
 * kind, as _start and main are */
static __u64 ip_of(__u64 id, unsigned j)
{
	unsigned from_root = depth_of(id) - 1 - j;
	__u64 base = id >= 50 ? 0xffffffff81000000ULL : 0x400000;

	if (from_root < 6)
		return base + from_root * 0x10;
	return base + id * (id >= 50 ? 0x1000 : 0x100) + j * 0x10;
}
static __u32 tgid_of(unsigned r)
{
	return 100 + r % 3;
}

static __u64 stack_buf[SB_MAX_DEPTH];
static const __u64 *src_stack(void *ctx, __u64 id, unsigned *n)
{
	if (id == 13) /* gone from the cache: the reader must see it so */
		return NULL;
	*n = depth_of(id);
	for (unsigned j = 0; j < *n; j++)
		stack_buf[j] = ip_of(id, j);
	return stack_buf;
}
static const char *src_ksym(void *ctx, __u64 ip)
{
	static char buf[32];

	if (ip % 0x100 == 0x80) /* some addresses have no symbol */
		return NULL;
	snprintf(buf, sizeof(buf), "kfunc_%llx",
		 (unsigned long long)ip % 0x10000);
	return buf;
}
static size_t src_maps(void *ctx, __u32 tgid, struct rec_map **m)
{
	*m = xmalloc(2 * sizeof(**m));
	(*m)[0] = (struct rec_map){0x400000, 0x401000, 0, "/usr/bin/w",
				   "abcdef01"};
	(*m)[1] = (struct rec_map){0x7f0000000000, 0x7f0000001000, 0x1000,
				   "/lib/libc.so", ""};
	return 2;
}
static const char *src_cgroup(void *ctx, __u64 id)
{
	return id == 7 ? "/system.slice/w.service" : NULL;
}
static const char *aux_name(__u32 aux)
{
	return aux ? "D" : "S";
}

static const struct bin_source source = {
	.stack = src_stack,
	.ksym = src_ksym,
	.maps = src_maps,
	.cgroup = src_cgroup,
};

/* Snapshot 5 carries a trigger's marks (a trailing field of SAMPLES). */
static const struct mark marks5[] = {
	{1, MARK_FIRED, {1700000005, 250000000}, "load: 9 tasks runnable"},
	{2, MARK_WINDOW, {1700000001, 0}, "flight recorder: 4 snapshots"},
};

static void make_snapshot(unsigned long seq, struct snapshot *s,
			  struct row *rows)
{
	memset(s, 0, sizeof(*s));
	memset(rows, 0, NROWS * sizeof(*rows));
	s->applet = "offcpu";
	s->seq = seq;
	s->final = seq == NSNAP;
	s->start = (struct timespec){1700000000 + seq, 1000};
	s->end = (struct timespec){1700000001 + seq, 1000};
	s->metrics = metrics;
	s->nmetrics = 3;
	s->primary = 1;
	s->describe = "value: time off CPU";
	s->aux_name = aux_name;
	s->per_thread = true;
	s->rows = rows;
	s->nrows = NROWS;
	s->lost_ustacks = seq;
	s->applet_stat_names = stat_names;
	s->applet_stats[0] = seq * 2;
	if (seq == 5) {
		s->marks = marks5;
		s->nmarks = ARRAY_SIZE(marks5);
	}
	for (unsigned r = 0; r < NROWS; r++) {
		rows[r].key.tgid = tgid_of(r);
		rows[r].key.pid = tgid_of(r) + r;
		snprintf(rows[r].key.comm, SB_COMM_LEN, "w%u", r);
		rows[r].key.aux = r & 1;
		rows[r].key.cgroup = r == 2 ? 7 : 0;
		rows[r].key.user_stack = user_id(seq, r);
		rows[r].key.kern_stack = kern_id(seq, r);
		rows[r].v[0] = seq * 1000 + r;
		rows[r].v[1] = r;
	}
}

static struct bbuf encode_all(void)
{
	struct bin_writer *w = bin_writer_new(KEY_EVERY);
	struct bbuf b = {0};
	struct snapshot s;
	struct row rows[NROWS];

	/* the same bytes every run: with random key ids, a third of the
	 * stream fell on a frame's start once in 40 runs, and a reader
	 * starting there has no bytes to skip */
	bin_writer_fix(w, 7);
	for (unsigned long seq = 1; seq <= NSNAP; seq++) {
		make_snapshot(seq, &s, rows);
		bin_encode_snapshot(w, &s, &source, seq == 20 ? 3 : 0, &b);
	}
	bin_writer_free(w);
	return b;
}

/* ---- what the reader delivers, checked against the truth ---- */
struct seen {
	bool strict; /* an undamaged stream: nothing may be missing */
	unsigned long got[NSNAP + 1];
	unsigned long n, wrong;
	char why[200];
};

static bool stack_ok(const struct bin_state *st, __u64 ref, __u64 id)
{
	const struct bin_stack *s;

	if (id == SB_STACK_NONE || id == SB_STACK_LOST)
		return ref == id;
	if (id == 13)
		return ref == BIN_REF_MISSING;
	if (ref < BIN_REF0 || ref - BIN_REF0 >= st->nstacks)
		return false;
	s = &st->stacks[ref - BIN_REF0];
	if (s->n != depth_of(id))
		return false;
	for (unsigned j = 0; j < s->n; j++)
		if (s->ip[j] != ip_of(id, j))
			return false;
	return true;
}

/* Kernel names: none wrong; strict: none missing either (a damaged
 * version 3 stream may lack one whose frame parity could not rebuild). */
static bool ksyms_ok(const struct bin_state *st, __u64 id, bool strict)
{
	for (unsigned j = 0; id >= 50 && j < depth_of(id); j++) {
		__u64 ip = ip_of(id, j);
		const char *want = src_ksym(NULL, ip);
		int found = 0;

		for (size_t i = 0; i < st->nksyms; i++)
			if (st->ksym_addr[i] == ip)
				found = want && !strcmp(st->ksym_name[i], want)
						? 1
						: -1;
		if (found < 0 || (strict && found != (want != NULL)))
			return false;
	}
	return true;
}

static void on_snapshot(void *ctx, const struct bin_state *st,
			struct snapshot *s)
{
	struct seen *sn = ctx;
	struct snapshot want;
	struct row rows[NROWS];
	const char *bad = NULL;
	bool whole = s->nrows == NROWS, strict = sn->strict;

	if (s->seq < 1 || s->seq > NSNAP) {
		sn->wrong++;
		snprintf(sn->why, sizeof(sn->why), "seq %lu", s->seq);
		return;
	}
	make_snapshot(s->seq, &want, rows);
	if (s->nrows > NROWS || s->lost_ustacks != want.lost_ustacks ||
	    s->applet_stats[0] != want.applet_stats[0] ||
	    s->start.tv_sec != want.start.tv_sec || s->final != want.final ||
	    strcmp(s->applet, "offcpu") || s->nmetrics != 3 ||
	    s->primary != 1 || strcmp(s->metrics[0].name, "blocked") ||
	    s->metrics[2].kind != METRIC_RATIO || s->metrics[2].num != 1 ||
	    s->metrics[2].den != 0 || !st->has_aux)
		bad = "header fields";
	if (s->nmarks != want.nmarks)
		bad = "marks";
	for (unsigned i = 0; !bad && i < s->nmarks; i++)
		if (s->marks[i].n != want.marks[i].n ||
		    s->marks[i].kind != want.marks[i].kind ||
		    s->marks[i].when.tv_sec != want.marks[i].when.tv_sec ||
		    s->marks[i].when.tv_nsec != want.marks[i].when.tv_nsec ||
		    strcmp(s->marks[i].cause, want.marks[i].cause))
			bad = "marks";
	/* rows may be missing (counted), never wrong: each is known by its
	 * thread id */
	for (unsigned i = 0; !bad && i < s->nrows; i++) {
		const struct sb_key *k = &s->rows[i].key, *w = NULL;
		unsigned r = 0;

		while (r < NROWS && rows[r].key.pid != k->pid)
			r++;
		if (r == NROWS) {
			bad = "row fields";
			break;
		}
		w = &rows[r].key;
		if (k->tgid != w->tgid || strcmp(k->comm, w->comm) ||
		    k->aux != w->aux || k->cgroup != w->cgroup ||
		    s->rows[i].v[0] != rows[r].v[0] ||
		    s->rows[i].v[1] != rows[r].v[1])
			bad = "row fields";
		else if (!stack_ok(st, k->user_stack, w->user_stack) ||
			 !stack_ok(st, k->kern_stack, w->kern_stack))
			bad = "stacks";
		else if (!ksyms_ok(st, w->kern_stack, strict))
			bad = "kernel symbols";
	}
	if (!bad && (st->ncgroups > 1 || (strict && !st->ncgroups) ||
		     (st->ncgroups &&
		      strcmp(st->cgroup_path[0], "/system.slice/w.service"))))
		bad = "cgroups";
	if (bad) {
		sn->wrong++;
		snprintf(sn->why, sizeof(sn->why), "snapshot %lu: %s", s->seq,
			 bad);
		return;
	}
	if (whole)
		sn->got[s->seq]++;
	sn->n += whole;
}

static unsigned maps_seen;
static void on_maps(void *ctx, uint32_t tgid, const struct rec_map *m, size_t n)
{
	/* only the mapping frames fall in travels */
	if (n == 1 && m[0].start == 0x400000 &&
	    !strcmp(m[0].path, "/usr/bin/w") &&
	    !strcmp(m[0].build_id, "abcdef01"))
		maps_seen++;
}

static struct bin_stats decode(const unsigned char *p, size_t len, size_t chunk,
			       struct seen *sn)
{
	struct bin_reader_ops ops = {
		.ctx = sn, .snapshot = on_snapshot, .maps = on_maps};
	struct bin_reader *r = bin_reader_new(&ops);
	struct bin_stats st;

	bool strict = sn->strict;

	memset(sn, 0, sizeof(*sn));
	sn->strict = strict;
	for (size_t off = 0; off < len; off += chunk)
		bin_reader_feed(r, p + off,
				len - off < chunk ? len - off : chunk);
	bin_reader_end(r);
	st = *bin_reader_stats(r);
	bin_reader_free(r);
	return st;
}

static void on_dump(void *ctx, const struct bin_state *st, struct snapshot *s)
{
	dump_snapshot(ctx, st, s);
}

/* A whole file, NULL when it cannot be read. */
static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		p = grow_array(p, &cap, *len + 4096, 1);
		size_t n = fread(p + *len, 1, cap - *len, f);

		if (!n)
			break;
		*len += n;
	}
	fclose(f);
	return p;
}

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return rnd_state >> 8;
}

/* Damage a copy of b: n random edits in [from, to). */
static unsigned char *damage(const struct bbuf *b, size_t from, size_t to,
			     int n, size_t *len)
{
	unsigned char *p = xmalloc(b->len + n + 1);

	memcpy(p, b->p, b->len);
	*len = b->len;
	for (int i = 0; i < n; i++) {
		size_t at = from + rnd() % (to - from);

		switch (rnd() % 3) {
		case 0:
			p[at] ^= 1 << (rnd() % 8);
			break;
		case 1: /* drop */
			memmove(p + at, p + at + 1, *len - at - 1);
			(*len)--;
			to--;
			break;
		case 2: /* insert */
			memmove(p + at + 1, p + at, *len - at);
			p[at] = rnd();
			(*len)++;
			to++;
			break;
		}
	}
	return p;
}

/* ---- a real-shaped stream (issue 18): six 1 s snapshots of oncpu on a
 * whole machine, ~40 rows of five processes, user and kernel stacks,
 * new stacks in every snapshot; about 1.6 KB in version 1 ---- */
#define SHAPED_SNAPS 6
#define SHAPED_ROWS  16
static const struct metric oncpu_metrics[] = {{"samples", METRIC_COUNT}};
static const char *const oncpu_stats[] = {"samples without a stack", NULL};

/* Snapshot seq's rows; the same every time they are asked for. */
static void shaped_rows(unsigned long seq, struct row *rows)
{
	unsigned state = 7 + seq * 1000003;

	memset(rows, 0, SHAPED_ROWS * sizeof(*rows));
	for (unsigned r = 0; r < SHAPED_ROWS; r++) {
		struct sb_key *k = &rows[r].key;

		state = state * 1103515245 + 12345;
		k->tgid = 200 + (state >> 8) % 5;
		k->pid = k->tgid + r % 3;
		snprintf(k->comm, SB_COMM_LEN, "app%u", k->tgid % 5);
		k->user_stack = 14 + (state >> 12) % (8 + seq * 2);
		k->kern_stack = r % 3 ? SB_STACK_NONE
				      : 50 + (state >> 16) % (4 + seq * 3);
		k->cgroup = r % 4 == 0 ? 7 : 0;
		rows[r].v[0] = 1 + (state >> 20) % 40;
	}
}

static struct bbuf encode_shaped(void)
{
	struct bin_writer *w = bin_writer_new(16);
	struct bbuf b = {0};
	struct row rows[SHAPED_ROWS];

	bin_writer_fix(w, 1);
	for (unsigned long seq = 1; seq <= SHAPED_SNAPS; seq++) {
		struct snapshot s = {
			.applet = "oncpu",
			.describe = "value: samples of cpu-clock at 49 Hz",
			.seq = seq,
			.final = seq == SHAPED_SNAPS,
			.start = {1700000000 + seq, 0},
			.end = {1700000001 + seq, 0},
			.metrics = oncpu_metrics,
			.nmetrics = 1,
			.period_ns = NS_PER_SEC / 49,
			.applet_stat_names = oncpu_stats,
			.rows = rows,
			.nrows = SHAPED_ROWS,
		};

		shaped_rows(seq, rows);
		bin_encode_snapshot(w, &s, &source, 0, &b);
	}
	bin_writer_free(w);
	return b;
}

/* What a damaged shaped stream gave: samples in rows that came back
 * right, and rows that came back wrong (there must be none). */
struct shaped_seen {
	unsigned long samples, rows, wrong;
};

/* The stack id a received stack is, if it is exactly that stack. */
static __u64 id_of(const struct bin_state *st, __u64 ref)
{
	const struct bin_stack *s;
	__u64 id;

	if (ref < BIN_REF0)
		return ref;
	if (ref - BIN_REF0 >= st->nstacks)
		return ~0ULL;
	s = &st->stacks[ref - BIN_REF0];
	if (!s->ip || !s->n)
		return ~0ULL;
	id = s->ip[0] >= 0xffffffff81000000ULL
		     ? (s->ip[0] - 0xffffffff81000000ULL) / 0x1000
		     : (s->ip[0] - 0x400000) / 0x100;
	if (s->n != depth_of(id))
		return ~0ULL;
	for (unsigned j = 0; j < s->n; j++)
		if (s->ip[j] != ip_of(id, j))
			return ~0ULL;
	return id;
}

/* Delivered rows are the snapshot's, in order, some perhaps dropped. */
static void on_shaped(void *ctx, const struct bin_state *st, struct snapshot *s)
{
	struct shaped_seen *ss = ctx;
	struct row want[SHAPED_ROWS];
	unsigned j = 0;

	if (s->seq < 1 || s->seq > SHAPED_SNAPS) {
		ss->wrong += s->nrows;
		return;
	}
	shaped_rows(s->seq, want);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sb_key *k = &s->rows[i].key;

		while (j < SHAPED_ROWS &&
		       (want[j].key.pid != k->pid ||
			want[j].v[0] != s->rows[i].v[0] ||
			want[j].key.user_stack != id_of(st, k->user_stack) ||
			want[j].key.kern_stack != id_of(st, k->kern_stack) ||
			strcmp(want[j].key.comm, k->comm) ||
			want[j].key.cgroup != k->cgroup))
			j++;
		if (j == SHAPED_ROWS) {
			ss->wrong++;
			return;
		}
		ss->samples += s->rows[i].v[0];
		ss->rows++;
		j++;
	}
}

static unsigned long shaped_samples(void)
{
	struct row rows[SHAPED_ROWS];
	unsigned long n = 0;

	for (unsigned long seq = 1; seq <= SHAPED_SNAPS; seq++) {
		shaped_rows(seq, rows);
		for (unsigned r = 0; r < SHAPED_ROWS; r++)
			n += rows[r].v[0];
	}
	return n;
}

static struct shaped_seen decode_shaped(const unsigned char *p, size_t len)
{
	struct shaped_seen ss = {0};
	struct bin_reader_ops ops = {.ctx = &ss, .snapshot = on_shaped};
	struct bin_reader *r = bin_reader_new(&ops);

	bin_reader_feed(r, p, len);
	bin_reader_end(r);
	bin_reader_free(r);
	return ss;
}

/* n random edits: a bit flipped, or 1 to 64 bytes dropped or inserted */
static unsigned char *edit(const struct bbuf *b, int n, size_t *len)
{
	unsigned char *p = xmalloc(b->len + 64 * n + 1);

	memcpy(p, b->p, b->len);
	*len = b->len;
	for (int i = 0; i<n && * len> 64; i++) {
		size_t at = rnd() % *len, k = 1 + rnd() % 64;

		switch (rnd() % 3) {
		case 0:
			p[at] ^= 1 << (rnd() % 8);
			break;
		case 1:
			k = k < *len - at ? k : *len - at;
			memmove(p + at, p + at + k, *len - at - k);
			*len -= k;
			break;
		case 2:
			memmove(p + at + k, p + at, *len - at);
			for (size_t j = 0; j < k; j++)
				p[at + j] = rnd();
			*len += k;
			break;
		}
	}
	return p;
}

int main(int argc, char **argv)
{
	struct bbuf b;
	struct seen sn;
	struct bin_stats st;
	unsigned long crashes = 0, wrong = 0, late_missing = 0, uncounted = 0;

	/* test_bin --shaped: the real-shaped stream, for seeds and sizes */
	if (argc == 2 && !strcmp(argv[1], "--shaped")) {
		b = encode_shaped();
		fwrite(b.p, 1, b.len, stdout);
		free(b.p);
		return 0;
	}
	/* BIN_DEBUG=1: the reader's -v account of each edited stream */
	verbose_level = getenv("BIN_DEBUG") != NULL;
	b = encode_all();

	/* 1. the whole stream, in one piece and byte by byte */
	sn.strict = true;
	st = decode(b.p, b.len, b.len, &sn);
	CHECK("bin: every snapshot comes back as it went in",
	      sn.n == NSNAP && !sn.wrong, "%lu of %d, %lu wrong (%s)", sn.n,
	      NSNAP, sn.wrong, sn.why);
	CHECK("bin: a clean stream skips nothing",
	      !st.bytes_skipped && !st.bad_frames && !st.snapshots_broken &&
		      !st.snapshots_missing,
	      "skipped %llu bytes, %llu bad frames",
	      (unsigned long long)st.bytes_skipped,
	      (unsigned long long)st.bad_frames);
	CHECK_INT("bin: the writer's unwritten count arrives", st.unwritten, 3);
	CHECK("bin: mappings carry path and build-id, only those used",
	      maps_seen > 0, "no mapping of /usr/bin/w seen");
	st = decode(b.p, b.len, 1, &sn);
	CHECK("bin: fed one byte at a time, the same",
	      sn.n == NSNAP && !sn.wrong, "%lu of %d", sn.n, NSNAP);
	sn.strict = false;

	/* 2. starting mid-stream: whole snapshots from the next key frame
	 * on at the latest (a header copy and a rebuilt frame may
	 * bring them sooner), and every one after */
	st = decode(b.p + b.len / 3, b.len - b.len / 3, 4096, &sn);
	{
		unsigned long first = 0, key = 0;

		for (unsigned long i = 1; i <= NSNAP && !first; i++)
			if (sn.got[i])
				first = i;
		for (unsigned long i = 1; i <= NSNAP && !key; i++)
			key = i > NSNAP / 3 && (i - 1) % KEY_EVERY == 0 ? i : 0;
		CHECK("bin: a reader starting mid-stream recovers by the next "
		      "key frame",
		      first && first <= key && sn.n == NSNAP - first + 1 &&
			      !sn.wrong,
		      "first snapshot %lu, %lu delivered", first, sn.n);
		CHECK("bin: ... and counts the bytes it skipped",
		      st.bytes_skipped > 0, "none counted");
	}

	/* 3. random damage in the first half: no crash, nothing wrong,
	 * everything from two key periods after the damage is back */
	for (int round = 0; round < 300; round++) {
		size_t len, half = b.len / 2;
		unsigned char *p = damage(&b, 0, half, 1 + round % 20, &len);

		st = decode(p, len, 1 + rnd() % 5000, &sn);
		wrong += sn.wrong;
		for (unsigned long i = NSNAP - KEY_EVERY + 1; i <= NSNAP; i++)
			late_missing += !sn.got[i];
		if (sn.n < NSNAP && !st.bytes_skipped && !st.bad_frames &&
		    !st.snapshots_broken && !st.snapshots_missing)
			uncounted++;
		free(p);
	}
	CHECK("bin: 300 damaged streams, no snapshot delivered wrong", !wrong,
	      "%lu wrong (%s)", wrong, sn.why);
	CHECK("bin: damaged streams recover the later key periods",
	      !late_missing, "%lu late snapshots missing", late_missing);
	CHECK("bin: every loss is counted", !uncounted,
	      "%lu damaged streams lost snapshots and counted nothing",
	      uncounted);
	CHECK("bin: the reader survived", !crashes, "%lu", crashes);

	/* 4. nothing but noise */
	{
		unsigned char noise[10000];

		for (size_t i = 0; i < sizeof(noise); i++)
			noise[i] = i % 97 == 0 ? 'S' : rnd();
		memcpy(noise + 5000, BIN_SYNC, BIN_SYNC_LEN);
		st = decode(noise, sizeof(noise), 333, &sn);
		CHECK("bin: noise gives no snapshot and is all skipped",
		      !sn.n && st.bytes_skipped == sizeof(noise),
		      "%lu snapshots, %llu of %zu bytes skipped", sn.n,
		      (unsigned long long)st.bytes_skipped, sizeof(noise));
	}
	/* 5. issue 18's targets on the real-shaped stream, with fixed seeds
	 * (the writer's bytes do not depend on the machine: bin_writer_fix) */
	{
		struct bbuf sb = encode_shaped();
		unsigned long total = shaped_samples(), kept = 0, swrong = 0;
		unsigned with_stacks = 0, flips_whole = 0;
		struct shaped_seen ss = decode_shaped(sb.p, sb.len);

		CHECK("bin: the shaped stream comes back whole",
		      ss.samples == total && !ss.wrong, "%lu of %lu samples",
		      ss.samples, total);
		rnd_state = 4242;
		for (int i = 0; i < 100; i++) {
			unsigned char *p = xmalloc(sb.len);
			size_t bit = rnd() % (sb.len * 8);

			memcpy(p, sb.p, sb.len);
			p[bit / 8] ^= 1 << bit % 8;
			ss = decode_shaped(p, sb.len);
			kept += ss.samples;
			swrong += ss.wrong;
			flips_whole += ss.samples == total;
			free(p);
		}
		CHECK("bin: 100 streams with one bit flipped keep at least 90 % "
		      "of all samples",
		      kept >= total * 100 * 9 / 10 && !swrong,
		      "%.1f %%, %lu rows wrong", 100.0 * kept / (total * 100),
		      swrong);
		printf("bin: shaped stream %zu bytes; one bit flipped: %.1f %% "
		       "of samples kept, %u of 100 streams whole\n",
		       sb.len, 100.0 * kept / (total * 100), flips_whole);
		/* a whole frame damaged (bytes inserted in it, so neither
		 * its CRC nor its length holds): parity rebuilds it */
		{
			unsigned frames = 0, whole = 0;

			for (size_t at = 0; at + 16 < sb.len; at++) {
				size_t len = sb.len + 5;
				unsigned char *p;

				if (memcmp(sb.p + at, BIN_SYNC, BIN_SYNC_LEN) ||
				    sb.p[at + 4] == BIN_PARITY)
					continue;
				p = xmalloc(len);
				memcpy(p, sb.p, at + 12);
				memcpy(p + at + 12, "\x5a\xa5\x00\xff\x17", 5);
				memcpy(p + at + 17, sb.p + at + 12,
				       sb.len - at - 12);
				ss = decode_shaped(p, len);
				frames++;
				whole += ss.samples == total && !ss.wrong;
				free(p);
			}
			CHECK("bin: any one frame damaged beyond repair is "
			      "rebuilt from its group's parity",
			      frames > 10 && whole == frames,
			      "%u of %u streams whole", whole, frames);
		}
		rnd_state = 1818;
		kept = 0;
		for (int i = 0; i < 200; i++) {
			size_t len;
			unsigned char *p = edit(&sb, 1 + i % 20, &len);

			if (getenv("BIN_DEBUG"))
				printf("-- stream %d: %d edits\n", i,
				       1 + i % 20);
			ss = decode_shaped(p, len);
			if (getenv("BIN_DEBUG"))
				printf("-- %lu rows\n", ss.rows);
			with_stacks += ss.rows > 0;
			kept += ss.samples;
			swrong += ss.wrong;
			free(p);
		}
		CHECK("bin: 200 streams with 1 to 20 edits (flips, 1-64 bytes "
		      "dropped or inserted): stacks from at least 150",
		      with_stacks >= 150, "%u of 200", with_stacks);
		CHECK("bin: ... and no row delivered wrong", !swrong,
		      "%lu wrong", swrong);
		printf("bin: 1 to 20 edits: stacks from %u of 200 streams, %.1f "
		       "%% of samples kept\n",
		       with_stacks, 100.0 * kept / (total * 200));
		free(sb.p);
	}
	/* 6. version 1 (tests/unit/fixtures/bin-v1-offcpu.bin, written by
	 * the version 1 writer from make_snapshot()'s first 12 snapshots)
	 * reads as the version 1 reader read it (bin-v1-offcpu.txt) */
	{
		const char *src = getenv("SRCTREE");
		char path[4096];
		size_t len = 0;
		unsigned char *v1 = NULL;
		char *want = NULL, *got = NULL;
		size_t want_len = 0, got_len = 0;
		FILE *f;

		snprintf(path, sizeof(path),
			 "%s/tests/unit/fixtures/bin-v1-offcpu.bin",
			 src ? src : ".");
		v1 = (unsigned char *)read_whole(path, &len);
		snprintf(path + strlen(path) - 3, 4, "txt");
		want = read_whole(path, &want_len);
		if (!v1 || !want) {
			SKIP("bin: a version 1 stream still reads",
			     "no fixture at %s (SRCTREE=%s)", path,
			     src ? src : "(unset)");
		} else {
			struct bin_reader_ops ops = {.snapshot = on_dump};
			struct bin_reader *r;

			f = open_memstream(&got, &got_len);
			ops.ctx = f;
			r = bin_reader_new(&ops);
			bin_reader_feed(r, v1, len);
			bin_reader_end(r);
			CHECK_INT("bin: a version 1 stream: all 12 snapshots",
				  bin_reader_stats(r)->snapshots, 12);
			bin_reader_free(r);
			fclose(f);
			CHECK("bin: ... read as the version 1 reader read them",
			      got_len == want_len &&
				      !memcmp(got, want, got_len),
			      "%zu bytes of text, want %zu", got_len, want_len);
		}
		free(v1);
		free(want);
		free(got);
	}
	/* a seed for the fuzz target (tests/unit/fuzz.sh) */
	{
		FILE *f = fopen("bin-seed.bin", "w");

		if (f) {
			fwrite(b.p, 1, b.len, f);
			fclose(f);
		}
	}
	free(b.p);
	return 0;
}
