// SPDX-License-Identifier: GPL-2.0
/*
 * bin: the snapshot stream for log files and serial lines
 * (docs/bin-format.md). Each string, stack, kernel symbol, process's
 * mappings and cgroup is sent once and referenced after; every key_every
 * snapshots a key frame (the header) starts the dictionaries afresh, so
 * a reader that starts mid-stream or lost a frame recovers there.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "format_bin.h"
#include "u64map.h"

/* A dictionary frame is cut at this size, so one bad byte on a serial
 * line costs little more than the frame it hit. */
#define BIN_CHUNK 4096

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* ---- the writer ---- */
struct bin_writer {
	unsigned key_every, since_key;
	bool need_key;
	unsigned long keys;
	unsigned long dict_frames; /* sent since the key frame */
	/* what was sent since the last key frame */
	char **strings; /* by index */
	size_t nstrings, strings_cap;
	struct u64map string_idx; /* hash -> index, probed on collision */
	struct u64map stack_idx;  /* stack id -> dictionary index */
	size_t nstacks;
	struct sent_stack {
		__u64 *ip; /* leaf first */
		unsigned n;
	} * sent; /* by index, for sharing root frames */
	size_t sent_cap;
	struct u64map ksym_sent;  /* kernel address -> 1 */
	__u64 ksym_prev;	  /* addresses go as deltas to the last one */
	struct u64map maps_sig;	  /* tgid -> signature of its mappings */
	struct u64map map_hit;	  /* (tgid, start) of mappings frames use */
	struct u64map cgroup_set; /* cgroup id -> 1 */
	struct u64map aux_set;	  /* aux + 1 -> 1 */
	struct u64map nspid_sent; /* tgid -> the nspid sent */
	/* this snapshot's dictionary frames, in the order they go out */
	struct bbuf strs, stacks, ksyms, cgroups, aux, maps;
	__u64 boot_ns;
};

struct bin_writer *bin_writer_new(unsigned key_every)
{
	struct bin_writer *w = xzalloc(sizeof(*w));
	struct timespec rt, bt;

	w->key_every = key_every ? key_every : 1;
	w->need_key = true;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	w->boot_ns =
		(rt.tv_sec - bt.tv_sec) * NS_PER_SEC + rt.tv_nsec - bt.tv_nsec;
	return w;
}

void bin_writer_rekey(struct bin_writer *w)
{
	w->need_key = true;
}

static void forget_all(struct bin_writer *w)
{
	for (size_t i = 0; i < w->nstrings; i++)
		free(w->strings[i]);
	w->nstrings = 0;
	for (size_t i = 0; i < w->nstacks; i++)
		free(w->sent[i].ip);
	w->nstacks = 0;
	w->dict_frames = 0;
	w->ksym_prev = 0;
	u64map_free(&w->string_idx);
	u64map_free(&w->stack_idx);
	u64map_free(&w->ksym_sent);
	u64map_free(&w->maps_sig);
	u64map_free(&w->map_hit);
	u64map_free(&w->cgroup_set);
	u64map_free(&w->aux_set);
	u64map_free(&w->nspid_sent);
}

/* Frame a payload onto out: sync, type, flags, length, payload, CRC. */
static void put_frame(struct bbuf *out, unsigned type, const void *payload,
		      size_t len)
{
	unsigned char flags = 0;
	unsigned char *z = NULL;
	size_t start;

	if (ENABLE_BIN_ZLIB && len > 64) {
		uLongf zlen = compressBound(len);

		z = xmalloc(zlen);
		if (compress2(z, &zlen, payload, len, 6) == Z_OK &&
		    zlen < len) {
			payload = z;
			len = zlen;
			flags |= BIN_FLAG_ZLIB;
		}
	}
	bb_put(out, BIN_SYNC, BIN_SYNC_LEN);
	start = out->len;
	bb_u8(out, type);
	bb_u8(out, flags);
	bb_u32le(out, len);
	bb_put(out, payload, len);
	bb_u32le(out, crc32(0, out->p + start, out->len - start));
	free(z);
}

/* The string's index, sending it first when it is new. */
static uint64_t str_ref(struct bin_writer *w, const char *s)
{
	uint64_t h = hash_str(s ? s : ""), idx;

	if (!s)
		s = "";
	for (;; h++) {
		if (!u64map_get(&w->string_idx, h, &idx))
			break;
		if (!strcmp(w->strings[idx], s))
			return idx;
	}
	idx = w->nstrings;
	w->strings = grow_array(w->strings, &w->strings_cap, idx + 1,
				sizeof(char *));
	w->strings[w->nstrings++] = xstrdup(s);
	u64map_put(&w->string_idx, h, idx);
	bb_str(&w->strs, s);
	return idx;
}

static void put_header(struct bin_writer *w, const struct snapshot *s,
		       struct bbuf *out)
{
	struct bbuf b = {0};
	struct utsname u;
	char host[256] = "";
	unsigned nstat = 0;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	bb_varint(&b, BIN_VERSION);
	bb_varint(&b, ++w->keys);
	bb_str(&b, s->applet);
	bb_str(&b, s->describe);
	bb_str(&b, host);
	bb_str(&b, u.release);
	bb_str(&b, u.machine);
	bb_varint(&b, w->boot_ns);
	bb_varint(&b, s->per_thread);
	bb_varint(&b, s->nmetrics);
	for (unsigned m = 0; m < s->nmetrics; m++) {
		bb_str(&b, s->metrics[m].name);
		bb_varint(&b,
			  s->metrics[m].kind |
				  (s->metrics[m].level ? BIN_KIND_LEVEL : 0));
		if (s->metrics[m].kind == METRIC_RATIO) {
			bb_varint(&b, s->metrics[m].num);
			bb_varint(&b, s->metrics[m].den);
		}
	}
	while (s->applet_stat_names && s->applet_stat_names[nstat])
		nstat++;
	bb_varint(&b, nstat);
	for (unsigned i = 0; i < nstat; i++)
		bb_str(&b, s->applet_stat_names[i]);
	bb_varint(&b, s->aux_name != NULL);
	bb_varint(&b, s->primary);
	/* added within version 1: what report needs to know of the values */
	bb_varint(&b, s->period_ns);
	for (unsigned m = 0; m < s->nmetrics; m++)
		bb_varint(&b, metric_measure(&s->metrics[m]));
	put_frame(out, BIN_HEADER, b.p, b.len);
	free(b.p);
}

/* Emit a dictionary buffer as frames of at most BIN_CHUNK bytes each;
 * entries are whole, so each frame decodes on its own. */
static void flush_entries(struct bin_writer *w, struct bbuf *out, unsigned type,
			  struct bbuf *buf, size_t *entry_ends, size_t nends)
{
	size_t from = 0, cut = 0, done = 0;

	while (done < nends) {
		struct bbuf f = {0};
		size_t n = 0;

		while (done + n < nends &&
		       (n == 0 || entry_ends[done + n] - from <= BIN_CHUNK))
			n++;
		cut = entry_ends[done + n - 1];
		bb_varint(&f, n);
		bb_put(&f, buf->p + from, cut - from);
		put_frame(out, type, f.p, f.len);
		w->dict_frames++;
		free(f.p);
		from = cut;
		done += n;
	}
	buf->len = 0;
}

/* Entries are collected per type with their end offsets. */
struct entries {
	struct bbuf b;
	size_t *end;
	size_t n, cap;
};

static void entry_done(struct entries *e)
{
	e->end = grow_array(e->end, &e->cap, e->n + 1, sizeof(*e->end));
	e->end[e->n++] = e->b.len;
}

static void entries_flush(struct bin_writer *w, struct bbuf *out, unsigned type,
			  struct entries *e)
{
	if (e->n)
		flush_entries(w, out, type, &e->b, e->end, e->n);
	free(e->b.p);
	free(e->end);
	memset(e, 0, sizeof(*e));
}

struct pending {
	struct entries stacks, ksyms, maps, cgroups, aux, nspids;
	struct user_ip {
		__u32 tgid;
		__u64 ip;
	} * uip; /* user addresses the snapshot shows, for their mappings */
	size_t nuip, uip_cap;
};

static void add_ksyms(struct bin_writer *w, const struct bin_source *src,
		      struct pending *p, const __u64 *ip, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const char *name;

		if (u64map_get(&w->ksym_sent, ip[i], NULL))
			continue;
		u64map_put(&w->ksym_sent, ip[i], 1);
		name = src->ksym(src->ctx, ip[i]);
		if (!name)
			continue; /* unknown here: the reader finds none either */
		bb_svarint(&p->ksyms.b, (int64_t)(ip[i] - w->ksym_prev));
		w->ksym_prev = ip[i];
		bb_varint(&p->ksyms.b, str_ref(w, name));
		entry_done(&p->ksyms);
	}
}

/* Root frames two stacks share, counted from the root. */
static unsigned shared_roots(const struct sent_stack *a,
			     const struct sent_stack *b)
{
	unsigned k = 0;

	while (k < a->n && k < b->n &&
	       a->ip[a->n - 1 - k] == b->ip[b->n - 1 - k])
		k++;
	return k;
}

/*
 * Stacks share their roots (_start, main, the syscall entry): a stack is
 * sent as "the root frames of stack idx - back" plus its own leaf-side
 * frames, each a delta to the one above it (root-side), which is near.
 */
#define SHARE_WINDOW 64
static void put_stack(struct bin_writer *w, size_t idx, struct bbuf *b,
		      __u64 *prev)
{
	const struct sent_stack *st = &w->sent[idx];
	size_t best = 0, back = 0;
	unsigned shared = 0, k;

	for (size_t i = idx > SHARE_WINDOW ? idx - SHARE_WINDOW : 0; i < idx;
	     i++) {
		k = shared_roots(st, &w->sent[i]);
		if (k > shared) {
			shared = k;
			best = i;
		}
	}
	if (shared < 2)
		shared = 0;
	else
		back = idx - best;
	bb_varint(b, st->n);
	bb_varint(b, back);
	if (back)
		bb_varint(b, shared);
	*prev = shared ? st->ip[st->n - shared] : 0;
	for (k = st->n - shared; k-- > 0;) {
		bb_svarint(b, (int64_t)(st->ip[k] - *prev));
		*prev = st->ip[k];
	}
}

/* The reference of a stack id in a row, sending the stack when new. */
static uint64_t stack_ref(struct bin_writer *w, const struct bin_source *src,
			  struct pending *p, __u64 id, __u32 tgid, bool kernel)
{
	const __u64 *ip;
	uint64_t idx;
	unsigned n;
	__u64 prev = 0;

	if (id == SB_STACK_NONE)
		return BIN_REF_NONE;
	if (id == SB_STACK_LOST)
		return BIN_REF_LOST;
	ip = src->stack(src->ctx, id, &n);
	if (!ip)
		return BIN_REF_MISSING;
	/* the text output looks user frames up here: so must we, to send
	 * the mappings it would have used */
	for (unsigned i = 0; !kernel && i < n; i++) {
		if (src->touch)
			src->touch(src->ctx, tgid, ip[i]);
		p->uip = grow_array(p->uip, &p->uip_cap, p->nuip + 1,
				    sizeof(*p->uip));
		p->uip[p->nuip++] = (struct user_ip){tgid, ip[i]};
	}
	if (kernel && src->ksym)
		add_ksyms(w, src, p, ip, n);
	if (u64map_get(&w->stack_idx, id, &idx))
		return BIN_REF0 + idx;
	idx = w->nstacks++;
	u64map_put(&w->stack_idx, id, idx);
	w->sent =
		grow_array(w->sent, &w->sent_cap, w->nstacks, sizeof(*w->sent));
	w->sent[idx].n = n;
	w->sent[idx].ip = xmalloc((n + 1) * sizeof(__u64));
	memcpy(w->sent[idx].ip, ip, n * sizeof(__u64));
	put_stack(w, idx, &p->stacks.b, &prev);
	entry_done(&p->stacks);
	return BIN_REF0 + idx;
}

static uint64_t maps_signature(const struct rec_map *m, size_t n)
{
	uint64_t h = 0x84222325cbf29ce4ULL + n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ m[i].start ^ hash_str(m[i].path)) * 0x100000001b3ULL +
		    m[i].end + m[i].pgoff;
	return h;
}

static uint64_t hit_key(__u32 tgid, uint64_t start)
{
	return (start * 0x9e3779b97f4a7c15ULL) ^ tgid;
}

static int uip_cmp(const void *a, const void *b)
{
	const struct user_ip *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* Only the mappings that frames fall in travel (a process maps dozens
 * of libraries and uses a few); once used, a mapping stays listed until
 * the next key frame. Returns how many of m[] remain, in place. */
static size_t used_maps(struct bin_writer *w, struct pending *p, __u32 tgid,
			struct rec_map *m, size_t n)
{
	size_t kept = 0, lo = 0, hi = p->nuip, mid;

	/* p->uip is sorted by tgid: find tgid's run */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->uip[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->nuip && p->uip[i].tgid == tgid; i++)
		for (size_t j = 0; j < n; j++)
			if (p->uip[i].ip >= m[j].start &&
			    p->uip[i].ip < m[j].end)
				u64map_put(&w->map_hit,
					   hit_key(tgid, m[j].start), 1);
	for (size_t j = 0; j < n; j++)
		if (u64map_get(&w->map_hit, hit_key(tgid, m[j].start), NULL))
			m[kept++] = m[j];
	return kept;
}

static void add_maps(struct bin_writer *w, const struct bin_source *src,
		     struct pending *p, __u32 tgid)
{
	struct rec_map *m = NULL;
	size_t n = src->maps ? src->maps(src->ctx, tgid, &m) : 0;
	uint64_t sig, old;

	n = used_maps(w, p, tgid, m, n);
	sig = maps_signature(m, n);

	if (!u64map_get(&w->maps_sig, tgid, &old) || old != sig) {
		u64map_put(&w->maps_sig, tgid, sig);
		bb_varint(&p->maps.b, tgid);
		bb_varint(&p->maps.b, n);
		for (size_t i = 0; i < n; i++) {
			bb_varint(&p->maps.b, m[i].start);
			bb_varint(&p->maps.b, m[i].end - m[i].start);
			bb_varint(&p->maps.b, m[i].pgoff);
			bb_varint(&p->maps.b, str_ref(w, m[i].path));
			bb_varint(&p->maps.b, str_ref(w, m[i].build_id));
		}
		entry_done(&p->maps);
	}
	free(m);
}

static void add_cgroup(struct bin_writer *w, const struct bin_source *src,
		       struct pending *p, __u64 id)
{
	const char *path;

	if (!id || u64map_get(&w->cgroup_set, id, NULL))
		return;
	u64map_put(&w->cgroup_set, id, 1);
	path = src->cgroup ? src->cgroup(src->ctx, id) : NULL;
	if (!path)
		return;
	bb_varint(&p->cgroups.b, id);
	bb_varint(&p->cgroups.b, str_ref(w, path));
	entry_done(&p->cgroups);
}

static void add_aux(struct bin_writer *w, const struct snapshot *s,
		    struct pending *p, __u32 aux)
{
	if (!s->aux_name || u64map_get(&w->aux_set, (uint64_t)aux + 1, NULL))
		return;
	u64map_put(&w->aux_set, (uint64_t)aux + 1, 1);
	bb_varint(&p->aux.b, aux);
	bb_varint(&p->aux.b, str_ref(w, s->aux_name(aux)));
	entry_done(&p->aux);
}

/* A process in a pid namespace of its own: its pid there, once per key
 * period (again if its pid was reused meanwhile). */
static void add_nspid(struct bin_writer *w, const struct bin_source *src,
		      struct pending *p, __u32 tgid)
{
	__u32 ns = src->nspid && tgid ? src->nspid(src->ctx, tgid) : 0;
	uint64_t old;

	if (!ns || (u64map_get(&w->nspid_sent, tgid, &old) && old == ns))
		return;
	u64map_put(&w->nspid_sent, tgid, ns);
	bb_varint(&p->nspids.b, tgid);
	bb_varint(&p->nspids.b, ns);
	entry_done(&p->nspids);
}

static void put_row(struct bin_writer *w, const struct snapshot *s,
		    const struct bin_source *src, struct pending *p,
		    const struct row *r, struct bbuf *b)
{
	const struct sb_key *k = &r->key;

	bb_varint(b, k->tgid);
	bb_varint(b, k->pid);
	bb_varint(b, str_ref(w, k->comm));
	bb_varint(b, k->aux);
	bb_varint(b, k->cgroup);
	bb_varint(b, stack_ref(w, src, p, k->user_stack, k->tgid, false));
	bb_varint(b, stack_ref(w, src, p, k->kern_stack, k->tgid, true));
	bb_varint(b, k->other_tgid);
	bb_varint(b, str_ref(w, k->other_comm));
	bb_varint(b, stack_ref(w, src, p, k->other_user_stack, k->other_tgid,
			       false));
	bb_varint(b, stack_ref(w, src, p, k->other_kern_stack, k->other_tgid,
			       true));
	for (unsigned m = 0; m < s->nmetrics; m++)
		bb_varint(b, r->v[m]);
	add_cgroup(w, src, p, k->cgroup);
	add_aux(w, s, p, k->aux);
	add_nspid(w, src, p, k->tgid);
}

/* Processes whose user frames the snapshot shows, after all lookups. */
static void put_all_maps(struct bin_writer *w, const struct snapshot *s,
			 const struct bin_source *src, struct pending *p)
{
	struct u64map seen = {0};

	if (p->nuip)
		qsort(p->uip, p->nuip, sizeof(*p->uip), uip_cmp);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sb_key *k = &s->rows[i].key;
		__u32 t[2] = {k->user_stack > SB_STACK_LOST ? k->tgid : 0,
			      k->other_user_stack > SB_STACK_LOST
				      ? k->other_tgid
				      : 0};

		for (int j = 0; j < 2; j++) {
			if (!t[j] || u64map_get(&seen, t[j], NULL))
				continue;
			u64map_put(&seen, t[j], 1);
			add_maps(w, src, p, t[j]);
		}
	}
	u64map_free(&seen);
}

static void put_samples(const struct bin_writer *w, const struct snapshot *s,
			__u64 unwritten, uint64_t unwind_ref,
			const struct bbuf *rows, struct bbuf *out)
{
	struct bbuf b = {0};
	unsigned nstat = 0;

	while (s->applet_stat_names && s->applet_stat_names[nstat])
		nstat++;
	bb_varint(&b, s->seq);
	bb_varint(&b, s->final);
	bb_varint(&b, s->start.tv_sec);
	bb_varint(&b, s->start.tv_nsec);
	bb_varint(&b, s->end.tv_sec);
	bb_varint(&b, s->end.tv_nsec);
	bb_varint(&b, s->lost_ustacks);
	bb_varint(&b, s->lost_kstacks);
	bb_varint(&b, s->dropped_rows);
	bb_varint(&b, s->dropped_events);
	bb_varint(&b, nstat);
	for (unsigned i = 0; i < nstat; i++)
		bb_varint(&b, s->applet_stats[i]);
	bb_varint(&b, unwind_ref);
	bb_varint(&b, s->unwind_unknown);
	bb_varint(&b, unwritten);
	bb_varint(&b, w->keys);
	bb_varint(&b, w->dict_frames);
	bb_varint(&b, s->nrows);
	bb_put(&b, rows->p, rows->len);
	/* added within version 1: the triggers' marks, when there are any */
	if (s->nmarks)
		bb_varint(&b, s->nmarks);
	for (unsigned i = 0; i < s->nmarks; i++) {
		bb_varint(&b, s->marks[i].n);
		bb_varint(&b, s->marks[i].kind);
		bb_varint(&b, s->marks[i].when.tv_sec);
		bb_varint(&b, s->marks[i].when.tv_nsec);
		bb_str(&b, s->marks[i].cause);
	}
	put_frame(out, BIN_SAMPLES, b.p, b.len);
	free(b.p);
}

void bin_encode_snapshot(struct bin_writer *w, const struct snapshot *s,
			 const struct bin_source *src, __u64 unwritten,
			 struct bbuf *out)
{
	struct pending p = {0};
	struct bbuf rows = {0};
	uint64_t unwind_ref;

	if (w->need_key || w->since_key >= w->key_every) {
		forget_all(w);
		put_header(w, s, out);
		w->need_key = false;
		w->since_key = 0;
	}
	w->since_key++;
	w->strs.len = 0;
	for (size_t i = 0; i < s->nrows; i++)
		put_row(w, s, src, &p, &s->rows[i], &rows);
	put_all_maps(w, s, src, &p);
	/* the unwinder's header line: 0 none, else string index + 1 */
	unwind_ref = s->unwind ? str_ref(w, s->unwind) + 1 : 0;
	/* strings first: every later frame may refer to them */
	if (w->strs.len) {
		struct bbuf f = {0};
		struct bcur c = {w->strs.p, w->strs.p + w->strs.len};
		size_t from = 0, n = 0;

		/* cut at string boundaries, BIN_CHUNK bytes at most */
		while (c.p < c.end) {
			size_t before = c.p - w->strs.p;
			size_t len = bc_count(&c);

			c.p += len;
			if (n && c.p - w->strs.p - from > BIN_CHUNK) {
				bb_varint(&f, n);
				bb_put(&f, w->strs.p + from, before - from);
				put_frame(out, BIN_STRINGS, f.p, f.len);
				w->dict_frames++;
				f.len = 0;
				from = before;
				n = 0;
			}
			n++;
		}
		bb_varint(&f, n);
		bb_put(&f, w->strs.p + from, w->strs.len - from);
		put_frame(out, BIN_STRINGS, f.p, f.len);
		w->dict_frames++;
		free(f.p);
	}
	entries_flush(w, out, BIN_STACKS, &p.stacks);
	entries_flush(w, out, BIN_KSYMS, &p.ksyms);
	entries_flush(w, out, BIN_MAPS, &p.maps);
	entries_flush(w, out, BIN_CGROUPS, &p.cgroups);
	entries_flush(w, out, BIN_AUX, &p.aux);
	entries_flush(w, out, BIN_NSPIDS, &p.nspids);
	put_samples(w, s, unwritten, unwind_ref, &rows, out);
	free(rows.p);
	free(p.uip);
}

void bin_writer_free(struct bin_writer *w)
{
	if (!w)
		return;
	forget_all(w);
	free(w->sent);
	free(w->strings);
	free(w->strs.p);
	free(w);
}
