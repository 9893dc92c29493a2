// SPDX-License-Identifier: GPL-2.0
/*
 * bin: the snapshot stream for log files and serial lines
 * (docs/bin-format.md). A snapshot goes in small frames (pieces), each
 * with its rows and the dictionary entries (strings, stacks, kernel
 * symbols, mappings, ...) first used in it; after every few frames, a
 * parity frame (their XOR) lets the reader rebuild any one of them, so
 * one damaged frame costs nothing. The header goes again when the bytes
 * since its last copy reach many times its own size, and a new key
 * period (dictionaries afresh) starts by count, bytes or time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "format_bin.h"
#include "u64map.h"

/* A header copy when the bytes since the last one reach this many times
 * its own length: parity rebuilds a lost header, so the copies are for a
 * reader that starts late or loses more than parity rebuilds. */
#define BIN_HEADER_SPACING 16
/* A new key period after this many bytes or seconds, whatever the count:
 * what a reader starting mid-stream misses stays bounded. */
#define BIN_KEY_BYTES	(1u << 20)
#define BIN_KEY_SECONDS 60
/* A snapshot is cut in frames ("pieces") of about this many bytes of
 * rows and new entries before compression: what a damaged frame that
 * parity cannot rebuild costs. */
#define BIN_PIECE 300
/* A parity frame after this many frames (BIN_GROUP_MAX at most), and at
 * the end of a key period: one lost frame in a group is rebuilt, at the
 * cost of its largest (16 cost offcpu -w's 11-snapshot streams 20 %: two
 * groups; 32, 14 %). */
#define BIN_GROUP 32

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
	uint64_t key_id, rnd; /* the key period's id, and where ids come from */
	bool fixed;	      /* tests: no host names, a fixed boot time */
	size_t header_len;    /* of the header frame, bytes */
	size_t since_header;  /* bytes written since its last copy */
	size_t key_bytes;     /* bytes written in this key period */
	time_t key_start;     /* the first snapshot's end, in this period */
	struct parity {
		struct bbuf
			sum; /* XOR of the members after their sync marker */
		struct bbuf crcs; /* each member's CRC, in order */
		unsigned n;
	} group; /* frames written since the last parity frame */
	/* what was sent since the last key frame */
	char **strings; /* by index */
	size_t nstrings, strings_cap;
	struct u64map string_idx; /* hash -> index, probed on collision */
	struct u64map stack_idx;  /* stack id -> dictionary index */
	size_t nstacks;
	size_t share_from; /* the first stack new in this piece */
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
	struct bbuf strs;	  /* this piece's new strings */
	__u64 boot_ns;
	z_stream zs; /* deflate_piece's, set up at its first piece */
	bool zs_ready;
};

struct bin_writer *bin_writer_new(unsigned key_every)
{
	struct bin_writer *w = xzalloc(sizeof(*w));
	struct timespec rt, bt;

	w->key_every = key_every ? key_every : 1;
	w->need_key = true;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	w->rnd = (uint64_t)rt.tv_nsec * 0x9e3779b97f4a7c15ULL ^ getpid();
	w->boot_ns =
		(rt.tv_sec - bt.tv_sec) * NS_PER_SEC + rt.tv_nsec - bt.tv_nsec;
	return w;
}

void bin_writer_rekey(struct bin_writer *w)
{
	w->need_key = true;
	/* the group's frames went to a file or sink the reader of what
	 * follows will not see: no parity for them */
	w->group.n = 0;
	w->group.sum.len = 0;
	w->group.crcs.len = 0;
}

void bin_writer_fix(struct bin_writer *w, uint64_t seed)
{
	w->rnd = seed;
	w->fixed = true;
	w->boot_ns = 0;
}

/* A key period id: random, so two streams pasted together never mix,
 * and never the last one's. */
static uint64_t next_key_id(struct bin_writer *w)
{
	uint64_t id;

	do {
		w->rnd = w->rnd * 6364136223846793005ULL +
			 1442695040888963407ULL;
		id = (w->rnd >> 40) & BIN_KEY_ID_MASK;
	} while (!id || id == w->key_id);
	return id;
}

static void forget_all(struct bin_writer *w)
{
	for (size_t i = 0; i < w->nstrings; i++)
		free(w->strings[i]);
	w->nstrings = 0;
	for (size_t i = 0; i < w->nstacks; i++)
		free(w->sent[i].ip);
	w->nstacks = 0;
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

/* Raw deflate primed with the shared dictionary (binfmt.h): a piece is
 * small, and alone it would find little to refer back to. 0: no gain.
 * One stream per writer, reset per piece: set up anew, its 256 KiB of
 * state were allocated, faulted in and freed for every piece (two
 * thirds of a snapshot's writing time went to brk and page faults). */
static size_t deflate_piece(struct bin_writer *w, const void *in, size_t len,
			    unsigned char *out)
{
	z_stream *zs = &w->zs;
	size_t n = 0;

	if (!w->zs_ready) {
		if (deflateInit2(zs, 9, Z_DEFLATED, -15, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return 0;
		w->zs_ready = true;
	} else if (deflateReset(zs) != Z_OK) {
		return 0;
	}
	deflateSetDictionary(zs, bin_dict, bin_dict_len);
	zs->next_in = (Bytef *)in;
	zs->avail_in = len;
	zs->next_out = out;
	zs->avail_out = len;
	if (deflate(zs, Z_FINISH) == Z_STREAM_END)
		n = zs->total_out;
	return n;
}

/* Frame a payload onto out: sync, type, flags, length, payload, CRC. */
static void put_frame(struct bin_writer *w, struct bbuf *out, unsigned type,
		      const void *payload, size_t len)
{
	unsigned char flags = 0;
	unsigned char *z = NULL;
	size_t start, zlen;

	/* parity is the XOR of compressed frames: nothing to gain */
	if (ENABLE_BIN_ZLIB && len > 32 && type != BIN_PARITY) {
		z = xmalloc(len);
		zlen = deflate_piece(w, payload, len, z);
		if (zlen) {
			payload = z;
			len = zlen;
			flags |= BIN_FLAG_DICT;
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

/* The parity frame of the group: v n, each member's CRC (how the reader
 * knows which one it lacks), then the XOR of the members' bytes after
 * their sync marker, each padded with zeros to the longest. */
static void put_parity(struct bin_writer *w, struct bbuf *out)
{
	struct parity *g = &w->group;
	struct bbuf b = {0};

	if (!g->n)
		return;
	bb_varint(&b, g->n);
	bb_put(&b, g->crcs.p, g->crcs.len);
	bb_put(&b, g->sum.p, g->sum.len);
	put_frame(w, out, BIN_PARITY, b.p, b.len);
	free(b.p);
	g->n = 0;
	g->sum.len = 0;
	g->crcs.len = 0;
}

/* A frame that parity covers: framed onto out and added to the group,
 * whose parity follows when it is full. Returns the frame's length. */
static size_t put_member(struct bin_writer *w, struct bbuf *out, unsigned type,
			 const void *payload, size_t len)
{
	struct parity *g = &w->group;
	size_t start = out->len + BIN_SYNC_LEN, n;

	put_frame(w, out, type, payload, len);
	n = out->len - start;
	if (n > g->sum.len) {
		size_t was = g->sum.len;

		g->sum.p = grow_array(g->sum.p, &g->sum.cap, n, 1);
		memset(g->sum.p + was, 0, n - was);
		g->sum.len = n;
	}
	for (size_t i = 0; i < n; i++)
		g->sum.p[i] ^= out->p[start + i];
	bb_put(&g->crcs, out->p + out->len - BIN_CRC_LEN, BIN_CRC_LEN);
	if (++g->n == BIN_GROUP)
		put_parity(w, out);
	return BIN_SYNC_LEN + n;
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
	if (w->fixed) {
		strcpy(host, "host");
		strcpy(u.release, "release");
		strcpy(u.machine, "machine");
	}
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
	/* added within version 1: what report needs to know of the values */
	bb_varint(&b, s->period_ns);
	for (unsigned m = 0; m < s->nmetrics; m++)
		bb_varint(&b, metric_measure(&s->metrics[m]));
	w->header_len = put_member(w, out, BIN_HEADER, b.p, b.len);
	w->since_header = 0;
	free(b.p);
}

/* One dictionary's entries new in this snapshot: v n, then entries. */
struct entries {
	struct bbuf b;
	size_t n;
};

static void entry_done(struct entries *e)
{
	e->n++;
}

/* A section of the snapshot frame: v dictionary, v index of its first
 * entry, v length, then v n and the entries. */
static void put_section(struct bbuf *out, unsigned type, uint64_t first,
			size_t n, const struct bbuf *entries)
{
	struct bbuf b = {0};

	if (!n)
		return;
	bb_varint(&b, n);
	bb_put(&b, entries->p, entries->len);
	bb_varint(out, type);
	bb_varint(out, first);
	bb_varint(out, b.len);
	bb_put(out, b.p, b.len);
	free(b.p);
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
 * Only stacks new in the same piece serve, so a piece's stacks decode
 * from its frame alone: where parity cannot rebuild a lost frame, what
 * later frames bring does not depend on it (measured: sharing with any
 * earlier stack saved 3 % of a short stream, and cut the streams that
 * kept stacks through 1 to 20 random edits from 151 of 200 to 86).
 */
#define SHARE_WINDOW 64
static void put_stack(struct bin_writer *w, size_t idx, struct bbuf *b,
		      __u64 *prev)
{
	const struct sent_stack *st = &w->sent[idx];
	size_t best = 0, back = 0;
	unsigned shared = 0, k;
	size_t from = idx > SHARE_WINDOW ? idx - SHARE_WINDOW : 0;

	for (size_t i = from > w->share_from ? from : w->share_from; i < idx;
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
	bb_str(b, k->comm); /* not a reference: no row waits for a name */
	bb_varint(b, k->aux);
	bb_varint(b, k->cgroup);
	bb_varint(b, stack_ref(w, src, p, k->user_stack, k->tgid, false));
	bb_varint(b, stack_ref(w, src, p, k->kern_stack, k->tgid, true));
	bb_varint(b, k->other_tgid);
	bb_str(b, k->other_comm);
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

/* A piece of a snapshot: its rows, and the dictionary entries they (and,
 * in the last piece, the mappings) introduced. */
struct piece {
	struct bbuf rows;
	size_t nrows, first_str, first_stack;
	unsigned n; /* 0, 1, ... within the snapshot */
};

/* The snapshot's own fields and the piece's rows, after the sections. */
static void put_samples(const struct snapshot *s, __u64 unwritten,
			uint64_t unwind_ref, const struct piece *pc, bool last,
			struct bbuf *b)
{
	unsigned nstat = 0;

	while (s->applet_stat_names && s->applet_stat_names[nstat])
		nstat++;
	bb_varint(b, s->seq);
	bb_varint(b, s->final);
	bb_varint(b, s->start.tv_sec);
	bb_varint(b, s->start.tv_nsec);
	bb_varint(b, s->end.tv_sec);
	bb_varint(b, s->end.tv_nsec);
	bb_varint(b, s->lost_ustacks);
	bb_varint(b, s->lost_kstacks);
	bb_varint(b, s->dropped_rows);
	bb_varint(b, s->dropped_events);
	bb_varint(b, nstat);
	for (unsigned i = 0; i < nstat; i++)
		bb_varint(b, s->applet_stats[i]);
	bb_varint(b, unwind_ref);
	bb_varint(b, s->unwind_unknown);
	bb_varint(b, unwritten);
	bb_varint(b, pc->n);
	bb_varint(b, last);
	bb_varint(b, pc->nrows);
	bb_put(b, pc->rows.p, pc->rows.len);
	bb_varint(b, s->nmarks);
	for (unsigned i = 0; i < s->nmarks; i++) {
		bb_varint(b, s->marks[i].n);
		bb_varint(b, s->marks[i].kind);
		bb_varint(b, s->marks[i].when.tv_sec);
		bb_varint(b, s->marks[i].when.tv_nsec);
		bb_str(b, s->marks[i].cause);
	}
}

static void entries_reset(struct entries *e)
{
	e->b.len = 0;
	e->n = 0;
}

/* Plain bytes the piece holds so far. */
static size_t piece_bytes(const struct bin_writer *w, const struct pending *p,
			  const struct piece *pc)
{
	return pc->rows.len + w->strs.len + p->stacks.b.len + p->ksyms.b.len +
	       p->maps.b.len + p->cgroups.b.len + p->aux.b.len +
	       p->nspids.b.len;
}

/* One snapshot frame: this piece's new entries, then the samples. */
static void put_piece(struct bin_writer *w, const struct snapshot *s,
		      struct pending *p, struct piece *pc, __u64 unwritten,
		      uint64_t unwind_ref, bool last, struct bbuf *out)
{
	struct bbuf dict = {0}, f = {0};

	/* strings first: every later section may refer to them */
	put_section(&dict, BIN_STRINGS, pc->first_str,
		    w->nstrings - pc->first_str, &w->strs);
	put_section(&dict, BIN_STACKS, pc->first_stack, p->stacks.n,
		    &p->stacks.b);
	put_section(&dict, BIN_KSYMS, 0, p->ksyms.n, &p->ksyms.b);
	put_section(&dict, BIN_MAPS, 0, p->maps.n, &p->maps.b);
	put_section(&dict, BIN_CGROUPS, 0, p->cgroups.n, &p->cgroups.b);
	put_section(&dict, BIN_AUX, 0, p->aux.n, &p->aux.b);
	put_section(&dict, BIN_NSPIDS, 0, p->nspids.n, &p->nspids.b);
	bb_varint(&f, w->key_id);
	bb_put(&f, dict.p, dict.len);
	bb_varint(&f, 0);
	put_samples(s, unwritten, unwind_ref, pc, last, &f);
	put_member(w, out, BIN_SNAP, f.p, f.len);
	free(dict.p);
	free(f.p);
	/* the next piece starts empty */
	w->strs.len = 0;
	w->ksym_prev = 0; /* deltas start again in each section */
	pc->first_str = w->nstrings;
	pc->first_stack = w->share_from = w->nstacks;
	pc->rows.len = 0;
	pc->nrows = 0;
	pc->n++;
	entries_reset(&p->stacks);
	entries_reset(&p->ksyms);
	entries_reset(&p->maps);
	entries_reset(&p->cgroups);
	entries_reset(&p->aux);
	entries_reset(&p->nspids);
}

/* Start a key period (dictionaries afresh) or send the header again. */
static void put_key(struct bin_writer *w, const struct snapshot *s,
		    struct bbuf *out)
{
	if (w->need_key || w->since_key >= w->key_every ||
	    w->key_bytes >= BIN_KEY_BYTES ||
	    s->end.tv_sec - w->key_start >= BIN_KEY_SECONDS) {
		put_parity(w, out); /* groups stay within a key period */
		forget_all(w);
		w->key_id = next_key_id(w);
		w->need_key = false;
		w->since_key = 0;
		w->key_bytes = 0;
		w->key_start = s->end.tv_sec;
		put_header(w, s, out);
	} else if (w->since_header >= BIN_HEADER_SPACING * w->header_len) {
		put_header(w, s, out);
	}
}

void bin_encode_snapshot(struct bin_writer *w, const struct snapshot *s,
			 const struct bin_source *src, __u64 unwritten,
			 struct bbuf *out)
{
	struct pending p = {0};
	struct piece pc = {0};
	uint64_t unwind_ref;
	size_t start = out->len;

	put_key(w, s, out);
	w->since_key++;
	w->strs.len = 0;
	w->ksym_prev = 0;
	pc.first_str = w->nstrings;
	pc.first_stack = w->share_from = w->nstacks;
	/* the unwinder's header line: 0 none, else string index + 1 */
	unwind_ref = s->unwind ? str_ref(w, s->unwind) + 1 : 0;
	for (size_t i = 0; i < s->nrows; i++) {
		put_row(w, s, src, &p, &s->rows[i], &pc.rows);
		pc.nrows++;
		if (piece_bytes(w, &p, &pc) >= BIN_PIECE && i + 1 < s->nrows)
			put_piece(w, s, &p, &pc, unwritten, unwind_ref, false,
				  out);
	}
	put_all_maps(w, s, src, &p);
	put_piece(w, s, &p, &pc, unwritten, unwind_ref, true, out);
	/* the last snapshot of a key period or of the stream: its group's
	 * parity now (a flight recorder's snapshot stands alone) */
	if (s->final || w->since_key >= w->key_every)
		put_parity(w, out);
	w->since_header += out->len - start;
	w->key_bytes += out->len - start;
	free(pc.rows.p);
	free(p.stacks.b.p);
	free(p.ksyms.b.p);
	free(p.maps.b.p);
	free(p.cgroups.b.p);
	free(p.aux.b.p);
	free(p.nspids.b.p);
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
	free(w->group.sum.p);
	free(w->group.crcs.p);
	if (w->zs_ready)
		deflateEnd(&w->zs);
	free(w);
}
