// SPDX-License-Identifier: GPL-2.0
/*
 * bin: the snapshot stream for log files and serial lines
 * (docs/bin-format.md). Each string, stack, kernel symbol, process's
 * mappings and cgroup gets an index in its dictionary and is sent with
 * the snapshot that first needs it (and again with the next BIN_REPEAT
 * ones, 0 by default). Every BIN_PARITY_SPAN snapshots a PARITY frame,
 * the XOR of their frames, lets the reader rebuild any one of them. A
 * key frame starts the dictionaries afresh every key_every snapshots,
 * BIN_KEY_BYTES or BIN_KEY_NS, so a reader that starts mid-stream
 * recovers there.
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
/* A key period also ends after this many bytes or nanoseconds. */
#define BIN_KEY_BYTES (1u << 20)
#define BIN_KEY_NS    (60 * (__s64)NS_PER_SEC)

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * ---- the writer ----
 * A dictionary's entries of the last BIN_REPEAT + 1 snapshots, encoded:
 * they are contiguous indexes, sent together with each snapshot.
 */
struct window {
	struct bbuf b;
	size_t *end;	/* each entry's end in b */
	uint64_t *addr; /* KSYMS: each entry's address (sent as deltas) */
	size_t n, cap, addr_cap;
	uint64_t first; /* the index of entry 0 in the key period */
	uint64_t count; /* entries in the key period */
	size_t added[BIN_REPEAT + 1]; /* by the last snapshots, newest last */
};

struct bin_writer {
	unsigned key_every, since_key;
	bool need_key;
	uint64_t keys, key_id, seed;
	size_t key_bytes;	  /* written since the key frame */
	struct timespec key_time; /* the key period's first snapshot's end */
	struct bbuf header;	  /* the key period's header payload */
	struct window dict[BIN_NDICT];
	uint64_t group; /* this snapshot's parity group in the key period */
	/* the group's frames so far: XOR of flags + payload, and each's
	 * type and length */
	struct bbuf parity;
	unsigned char mtype[BIN_GROUP_MAX];
	size_t mlen[BIN_GROUP_MAX], nmembers;
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
	struct u64map maps_sig;	  /* tgid -> signature of its mappings */
	struct u64map map_hit;	  /* (tgid, start) of mappings frames use */
	struct u64map cgroup_set; /* cgroup id -> 1 */
	struct u64map aux_set;	  /* aux + 1 -> 1 */
	__u64 boot_ns;
};

static struct window *win(struct bin_writer *w, unsigned type)
{
	return &w->dict[type - BIN_STRINGS];
}

/* An entry was encoded at the end of the window's buffer. */
static void entry_done(struct window *d)
{
	d->end = grow_array(d->end, &d->cap, d->n + 1, sizeof(*d->end));
	d->end[d->n++] = d->b.len;
	d->count++;
	d->added[BIN_REPEAT]++;
}

/* A new snapshot: the oldest snapshot's entries have been sent enough. */
static void window_shift(struct window *d)
{
	size_t drop = d->added[0], bytes = drop ? d->end[drop - 1] : 0;

	memmove(d->b.p, d->b.p + bytes, d->b.len - bytes);
	d->b.len -= bytes;
	for (size_t i = drop; i < d->n; i++)
		d->end[i - drop] = d->end[i] - bytes;
	if (d->addr)
		memmove(d->addr, d->addr + drop,
			(d->n - drop) * sizeof(*d->addr));
	d->n -= drop;
	d->first += drop;
	memmove(d->added, d->added + 1, BIN_REPEAT * sizeof(d->added[0]));
	d->added[BIN_REPEAT] = 0;
}

static void window_clear(struct window *d)
{
	free(d->b.p);
	free(d->end);
	free(d->addr);
	memset(d, 0, sizeof(*d));
}

/* A different id for each key period (and, likely, each writer): a
 * frame says which period its indexes count in. 21 bits, 3 bytes. */
static uint64_t next_key_id(struct bin_writer *w)
{
	uint64_t id;

	do {
		uint64_t z = w->seed += 0x9e3779b97f4a7c15ULL;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		id = ((z ^ (z >> 31)) & 0xfffff) | 0x100000;
	} while (id == w->key_id);
	return id;
}

struct bin_writer *bin_writer_new(unsigned key_every)
{
	struct bin_writer *w = xzalloc(sizeof(*w));
	struct timespec rt, bt;

	w->key_every = key_every ? key_every : 1;
	w->need_key = true;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	w->seed = (uint64_t)rt.tv_nsec ^ (uint64_t)rt.tv_sec << 30 ^
		  (uint64_t)getpid() << 40 ^ (uintptr_t)w;
	w->boot_ns =
		(rt.tv_sec - bt.tv_sec) * NS_PER_SEC + rt.tv_nsec - bt.tv_nsec;
	return w;
}

void bin_writer_seed(struct bin_writer *w, uint64_t seed)
{
	w->seed = seed;
	w->boot_ns = seed;
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
	for (unsigned t = 0; t < BIN_NDICT; t++)
		window_clear(&w->dict[t]);
	u64map_free(&w->string_idx);
	u64map_free(&w->stack_idx);
	u64map_free(&w->ksym_sent);
	u64map_free(&w->maps_sig);
	u64map_free(&w->map_hit);
	u64map_free(&w->cgroup_set);
	u64map_free(&w->aux_set);
}

/* Frame a payload onto out: sync, type, flags, length, payload, CRC.
 * Returns where the frame starts in out. */
static size_t put_frame(struct bbuf *out, unsigned type, const void *payload,
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
	return start - BIN_SYNC_LEN;
}

/* A frame of this snapshot's parity group: sent, and XORed into the
 * parity (its flags byte and payload, as they went out). */
static void put_member(struct bin_writer *w, struct bbuf *out, unsigned type,
		       const void *payload, size_t len)
{
	size_t at = put_frame(out, type, payload, len), n;
	const unsigned char *f = out->p + at + BIN_SYNC_LEN + 1;

	n = out->len - at - BIN_HEAD_LEN - BIN_CRC_LEN + 1;
	if (w->nmembers == BIN_GROUP_MAX)
		return; /* cannot happen: BIN_PARITY_SPLIT pieces and a header */
	if (w->parity.len < n) {
		size_t old = w->parity.len;

		w->parity.p = grow_array(w->parity.p, &w->parity.cap, n, 1);
		memset(w->parity.p + old, 0, n - old);
		w->parity.len = n;
	}
	w->parity.p[0] ^= f[0]; /* flags */
	for (size_t i = 1; i < n; i++)
		w->parity.p[i] ^= f[i + 4]; /* payload, after the length */
	w->mtype[w->nmembers] = type;
	w->mlen[w->nmembers++] = n;
}

/* The group's PARITY frame: key, group, members (type, length), XOR. */
static void put_parity(struct bin_writer *w, struct bbuf *out)
{
	struct bbuf b = {0};

	if (!w->nmembers)
		return;
	bb_varint(&b, w->key_id);
	bb_varint(&b, w->group);
	bb_varint(&b, w->nmembers);
	for (size_t i = 0; i < w->nmembers; i++) {
		bb_varint(&b, w->mtype[i]);
		bb_varint(&b, w->mlen[i]);
	}
	bb_put(&b, w->parity.p, w->parity.len);
	put_frame(out, BIN_PARITY, b.p, b.len);
	free(b.p);
	w->parity.len = 0;
	w->nmembers = 0;
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
	bb_str(&win(w, BIN_STRINGS)->b, s);
	entry_done(win(w, BIN_STRINGS));
	return idx;
}

/* The key period's header, kept to be sent again with its next
 * snapshots. */
static void make_header(struct bin_writer *w, const struct snapshot *s)
{
	struct bbuf b = {0};
	struct utsname u;
	char host[256] = "";
	unsigned nstat = 0;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	bb_varint(&b, BIN_VERSION);
	bb_varint(&b, w->key_id);
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
	/* what report needs to know of the values (version 2) */
	bb_varint(&b, s->period_ns);
	for (unsigned m = 0; m < s->nmetrics; m++)
		bb_varint(&b, metric_measure(&s->metrics[m]));
	free(w->header.p);
	w->header = b;
}

/* Entries [from, to) of a window as a section of a DICT frame: type,
 * length, index of the first entry, their number, the entries. */
static void put_section(struct bin_writer *w, unsigned type, size_t from,
			size_t to, struct bbuf *f)
{
	struct window *d = win(w, type);
	struct bbuf b = {0};
	uint64_t prev = 0;

	bb_varint(&b, d->first + from);
	bb_varint(&b, to - from);
	for (size_t i = from; i < to; i++) {
		size_t at = i ? d->end[i - 1] : 0;

		if (d->addr) { /* KSYMS: address deltas within the section */
			bb_svarint(&b, (int64_t)(d->addr[i] - prev));
			prev = d->addr[i];
		}
		bb_put(&b, d->b.p + at, d->end[i] - at);
	}
	bb_varint(f, type);
	bb_varint(f, b.len);
	bb_put(f, b.p, b.len);
	free(b.p);
}

/*
 * The windows as DICT frames of about BIN_CHUNK bytes of entries each,
 * strings first (every later section may refer to them). One frame per
 * snapshot when it fits: a frame costs 14 bytes and compresses alone.
 */
static void start_dict(struct bin_writer *w, struct bbuf *f)
{
	f->len = 0;
	bb_varint(f, w->key_id);
	bb_varint(f, w->group);
	bb_varint(f, w->nmembers);
}

static void put_windows(struct bin_writer *w, struct bbuf *out)
{
	struct bbuf f = {0};
	size_t fill = 0, total = 0, piece;

	for (unsigned t = 0; t < BIN_NDICT; t++)
		total += w->dict[t].b.len;
	piece = total / BIN_PARITY_SPLIT + 1;
	if (piece < BIN_PIECE_MIN)
		piece = BIN_PIECE_MIN;
	if (piece > BIN_CHUNK)
		piece = BIN_CHUNK;
	start_dict(w, &f);
	for (unsigned t = BIN_STRINGS; t < BIN_SAMPLES; t++) {
		struct window *d = win(w, t);
		size_t done = 0;

		while (done < d->n) {
			size_t n = 0, from = done ? d->end[done - 1] : 0;

			while (done + n < d->n &&
			       (n == 0 ||
				fill + d->end[done + n] - from <= piece))
				n++;
			put_section(w, t, done, done + n, &f);
			fill += d->end[done + n - 1] - from;
			done += n;
			if (fill >= piece) {
				put_member(w, out, BIN_DICT, f.p, f.len);
				start_dict(w, &f);
				fill = 0;
			}
		}
	}
	if (fill)
		put_member(w, out, BIN_DICT, f.p, f.len);
	free(f.p);
}

struct pending {
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
		uint64_t ref = str_ref(w, name);
		struct window *d = win(w, BIN_KSYMS);

		d->addr = grow_array(d->addr, &d->addr_cap, d->n + 1,
				     sizeof(*d->addr));
		d->addr[d->n] = ip[i];
		bb_varint(&d->b, ref);
		entry_done(d);
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
	put_stack(w, idx, &win(w, BIN_STACKS)->b, &prev);
	entry_done(win(w, BIN_STACKS));
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
		struct bbuf e = {0};

		u64map_put(&w->maps_sig, tgid, sig);
		bb_varint(&e, tgid);
		bb_varint(&e, n);
		for (size_t i = 0; i < n; i++) {
			bb_varint(&e, m[i].start);
			bb_varint(&e, m[i].end - m[i].start);
			bb_varint(&e, m[i].pgoff);
			bb_varint(&e, str_ref(w, m[i].path));
			bb_varint(&e, str_ref(w, m[i].build_id));
		}
		bb_put(&win(w, BIN_MAPS)->b, e.p, e.len);
		entry_done(win(w, BIN_MAPS));
		free(e.p);
	}
	free(m);
}

static void add_cgroup(struct bin_writer *w, const struct bin_source *src,
		       struct pending *p, __u64 id)
{
	const char *path;
	uint64_t ref;

	if (!id || u64map_get(&w->cgroup_set, id, NULL))
		return;
	u64map_put(&w->cgroup_set, id, 1);
	path = src->cgroup ? src->cgroup(src->ctx, id) : NULL;
	if (!path)
		return;
	ref = str_ref(w, path);
	bb_varint(&win(w, BIN_CGROUPS)->b, id);
	bb_varint(&win(w, BIN_CGROUPS)->b, ref);
	entry_done(win(w, BIN_CGROUPS));
}

static void add_aux(struct bin_writer *w, const struct snapshot *s,
		    struct pending *p, __u32 aux)
{
	if (!s->aux_name || u64map_get(&w->aux_set, (uint64_t)aux + 1, NULL))
		return;
	uint64_t ref;

	u64map_put(&w->aux_set, (uint64_t)aux + 1, 1);
	ref = str_ref(w, s->aux_name(aux));
	bb_varint(&win(w, BIN_AUX)->b, aux);
	bb_varint(&win(w, BIN_AUX)->b, ref);
	entry_done(win(w, BIN_AUX));
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

static void put_samples(struct bin_writer *w, const struct snapshot *s,
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
	bb_varint(&b, w->key_id);
	for (unsigned t = 0; t < BIN_NDICT; t++)
		bb_varint(&b, w->dict[t].count);
	bb_varint(&b, w->group);
	bb_varint(&b, w->nmembers);
	bb_varint(&b, s->nrows);
	bb_put(&b, rows->p, rows->len);
	put_member(w, out, BIN_SAMPLES, b.p, b.len);
	free(b.p);
}

static __s64 ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * (__s64)NS_PER_SEC + b->tv_nsec -
	       a->tv_nsec;
}

/* The last snapshots' entries once more: after the last snapshot of a
 * key period or of the stream, whose entries no later snapshot repeats. */
static void put_tail(struct bin_writer *w, struct bbuf *out)
{
	for (unsigned t = 0; t < BIN_NDICT; t++)
		window_shift(&w->dict[t]);
	put_windows(w, out);
	put_parity(w, out);
}

static void start_key_period(struct bin_writer *w, const struct snapshot *s,
			     struct bbuf *out)
{
	if (!w->need_key)
		put_tail(w, out); /* the reader has the period's header */
	w->parity.len = 0;	  /* else the reader may have lost the group */
	w->nmembers = 0;
	forget_all(w);
	w->keys++;
	w->key_id = next_key_id(w);
	make_header(w, s);
	w->need_key = false;
	w->since_key = 0;
	w->key_bytes = 0;
	w->key_time = s->end;
}

void bin_encode_snapshot(struct bin_writer *w, const struct snapshot *s,
			 const struct bin_source *src, __u64 unwritten,
			 struct bbuf *out)
{
	struct pending p = {0};
	struct bbuf rows = {0};
	uint64_t unwind_ref;
	size_t before = out->len;

	if (w->need_key || w->since_key >= w->key_every ||
	    w->key_bytes >= BIN_KEY_BYTES ||
	    ns_between(&w->key_time, &s->end) >= BIN_KEY_NS)
		start_key_period(w, s, out);
	/* the header with the first BIN_REPEAT + 1 snapshots of its period,
	 * in the parity group of the first */
	w->group = w->since_key / BIN_PARITY_SPAN;
	if (w->since_key <= BIN_REPEAT) {
		if (w->since_key)
			put_frame(out, BIN_HEADER, w->header.p, w->header.len);
		else
			put_member(w, out, BIN_HEADER, w->header.p,
				   w->header.len);
	}
	w->since_key++;
	for (unsigned t = 0; t < BIN_NDICT; t++)
		window_shift(&w->dict[t]);
	for (size_t i = 0; i < s->nrows; i++)
		put_row(w, s, src, &p, &s->rows[i], &rows);
	put_all_maps(w, s, src, &p);
	/* the unwinder's header line: 0 none, else string index + 1 */
	unwind_ref = s->unwind ? str_ref(w, s->unwind) + 1 : 0;
	put_windows(w, out);
	put_samples(w, s, unwritten, unwind_ref, &rows, out);
	if (s->final)
		put_tail(w, out);
	else if (w->since_key % BIN_PARITY_SPAN == 0)
		put_parity(w, out);
	w->key_bytes += out->len - before;
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
	free(w->header.p);
	free(w->parity.p);
	free(w);
}
