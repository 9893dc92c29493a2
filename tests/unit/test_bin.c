// SPDX-License-Identifier: GPL-2.0
/*
 * The bin stream: what goes in comes out, from the start or from the
 * middle, and a stream damaged at random (bytes flipped, dropped,
 * inserted) never makes the reader crash or deliver a wrong snapshot,
 * only fewer, with the damage counted.
 */
#include <stdlib.h>
#include <string.h>

#include "report/bin_read.h"
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

	for (unsigned long seq = 1; seq <= NSNAP; seq++) {
		make_snapshot(seq, &s, rows);
		bin_encode_snapshot(w, &s, &source, seq == 20 ? 3 : 0, &b);
	}
	bin_writer_free(w);
	return b;
}

/* ---- what the reader delivers, checked against the truth ---- */
struct seen {
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

static bool ksyms_ok(const struct bin_state *st, __u64 id)
{
	for (unsigned j = 0; id >= 50 && j < depth_of(id); j++) {
		__u64 ip = ip_of(id, j);
		const char *want = src_ksym(NULL, ip);
		bool found = false;

		for (size_t i = 0; i < st->nksyms; i++)
			if (st->ksym_addr[i] == ip)
				found = want && !strcmp(st->ksym_name[i], want);
		if (found != (want != NULL))
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

	if (s->seq < 1 || s->seq > NSNAP) {
		sn->wrong++;
		snprintf(sn->why, sizeof(sn->why), "seq %lu", s->seq);
		return;
	}
	make_snapshot(s->seq, &want, rows);
	if (s->nrows != NROWS || s->lost_ustacks != want.lost_ustacks ||
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
	for (unsigned r = 0; !bad && r < NROWS; r++) {
		const struct sb_key *k = &s->rows[r].key, *w = &rows[r].key;

		if (k->tgid != w->tgid || k->pid != w->pid ||
		    strcmp(k->comm, w->comm) || k->aux != w->aux ||
		    k->cgroup != w->cgroup || s->rows[r].v[0] != rows[r].v[0] ||
		    s->rows[r].v[1] != rows[r].v[1])
			bad = "row fields";
		else if (!stack_ok(st, k->user_stack, w->user_stack) ||
			 !stack_ok(st, k->kern_stack, w->kern_stack))
			bad = "stacks";
		else if (!ksyms_ok(st, w->kern_stack))
			bad = "kernel symbols";
	}
	if (!bad && (st->ncgroups != 1 ||
		     strcmp(st->cgroup_path[0], "/system.slice/w.service")))
		bad = "cgroups";
	if (bad) {
		sn->wrong++;
		snprintf(sn->why, sizeof(sn->why), "snapshot %lu: %s", s->seq,
			 bad);
		return;
	}
	sn->got[s->seq]++;
	sn->n++;
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

	memset(sn, 0, sizeof(*sn));
	for (size_t off = 0; off < len; off += chunk)
		bin_reader_feed(r, p + off,
				len - off < chunk ? len - off : chunk);
	bin_reader_end(r);
	st = *bin_reader_stats(r);
	bin_reader_free(r);
	return st;
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

int main(void)
{
	struct bbuf b = encode_all();
	struct seen sn;
	struct bin_stats st;
	unsigned long crashes = 0, wrong = 0, late_missing = 0, uncounted = 0;

	/* 1. the whole stream, in one piece and byte by byte */
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

	/* 2. starting mid-stream: from the next key frame on */
	st = decode(b.p + b.len / 3, b.len - b.len / 3, 4096, &sn);
	{
		unsigned long first = 0;

		for (unsigned long i = 1; i <= NSNAP && !first; i++)
			if (sn.got[i])
				first = i;
		CHECK("bin: a reader starting mid-stream recovers at a key frame",
		      first && (first - 1) % KEY_EVERY == 0 &&
			      sn.n == NSNAP - first + 1 && !sn.wrong,
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
