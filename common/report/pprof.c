// SPDX-License-Identifier: GPL-2.0
/*
 * profile.proto by hand: the few message types pprof needs, written as
 * protobuf wire format (varints, length-delimited submessages, packed
 * repeated integers). Field numbers are those of
 * github.com/google/pprof/proto/profile.proto.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "binfmt.h"
#include "intern.h"
#include "pprof.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* Lines in one Location: a function and the calls inlined into it */
#define PPROF_LINES_MAX (1 + USYM_INLINE_MAX)

static void pb_key(struct bbuf *b, unsigned field, unsigned wire)
{
	bb_varint(b, (uint64_t)field << 3 | wire);
}
static void pb_int(struct bbuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return; /* proto3: zero is the default, not sent */
	pb_key(b, field, WIRE_VARINT);
	bb_varint(b, v);
}
static void pb_bytes(struct bbuf *b, unsigned field, const void *p, size_t n)
{
	pb_key(b, field, WIRE_LEN);
	bb_varint(b, n);
	bb_put(b, p, n);
}
static void pb_msg(struct bbuf *b, unsigned field, struct bbuf *m)
{
	pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

/* A Mapping met lately: frames in a row mostly share one. Its strings'
 * ids hold the path and build-id it was met with. */
#define MAPPINGS_SEEN 64
struct mapping_seen {
	uint64_t start, id; /* id 0: empty */
	int64_t path, build_id;
};

/* A frame met before: its Location by mapping and address (by name
 * when it has none), checked by name. A compile's rows are mostly distinct stacks of frames met often:
 * one probe here, where the name's string and the Location take two
 * each, in tables too large for the cache. */
#define FRAMES_SEEN_BITS 16
struct frame_seen {
	uint64_t mapping, addr, location; /* location 0: empty */
	const char *name;		  /* the string table's copy */
};

/* A label's key or value met lately (a comm, "comm", "pid"): few and
 * short, found here without a probe of the strings, which are many. */
#define LABELS_SEEN 256
#define LABEL_MAX   24
struct label_seen {
	char s[LABEL_MAX]; /* NUL-terminated; "" with id 0: empty */
	int64_t id;
};

/* A program some samples' processes ran (pprof_weigh_main) */
struct exe {
	int64_t weight;
	uint64_t mapping; /* the first Mapping of it met */
};

struct pprof {
	struct intern strings, functions, mappings, locations;
	/* where each Mapping's message starts in mapping_msgs, so the main
	 * binary's can be written first */
	size_t *mapping_at, mapping_at_cap;
	/* the programs processes ran, by (path, build-id) */
	struct intern exes;
	/* each Mapping's program (by its path and build-id): index + 1 */
	size_t *exe_of, exe_of_cap;
	struct exe *exe;
	size_t exe_cap;
	/* Samples by their locations and labels (encoded, fields 1 and 3),
	 * values by the same index: equal samples are one, and a level's
	 * value can be replaced. */
	struct intern samples;
	int64_t (*values)[8];
	size_t values_cap;
	struct bbuf mapping_msgs, location_msgs, function_msgs;
	/* pprof_add's sample, locations and label, kept for the next */
	struct bbuf sample, packed, label;
	/* the Function of each string that names one, 0: none yet */
	uint64_t *function_of;
	size_t function_of_cap;
	struct mapping_seen mapping_seen[MAPPINGS_SEEN];
	struct frame_seen *frame_seen; /* 1 << FRAMES_SEEN_BITS */
	struct label_seen label_seen[LABELS_SEEN];
	int64_t types[8], units[8];
	unsigned ntypes;
	int period_index, default_index;
	int64_t period, time_ns, duration_ns;
};

static int64_t str(struct pprof *p, const char *s)
{
	return intern_add(&p->strings, s, strlen(s));
}

static int64_t label_str(struct pprof *p, const char *s)
{
	size_t n = strlen(s);
	struct label_seen *l;

	if (n >= LABEL_MAX)
		return str(p, s);
	l = &p->label_seen[hash_bytes(s, n) % LABELS_SEEN];
	if (!memcmp(l->s, s, n + 1) && (l->id || !n))
		return l->id;
	memcpy(l->s, s, n + 1);
	return l->id = str(p, s);
}

struct pprof *pprof_new(const char *const *types, const char *const *units,
			unsigned ntypes, int period_index, int64_t period,
			int default_index)
{
	struct pprof *p = xzalloc(sizeof(*p));

	str(p, ""); /* string 0 is always "" */
	for (unsigned i = 0; i < ntypes && i < ARRAY_SIZE(p->types); i++) {
		p->types[i] = str(p, types[i]);
		p->units[i] = str(p, units[i]);
		p->ntypes++;
	}
	p->period_index = period_index;
	p->period = period;
	p->default_index = default_index < (int)p->ntypes ? default_index : -1;
	return p;
}

void pprof_snapshot(struct pprof *p, unsigned levels)
{
	for (size_t i = 0; levels && i < p->samples.n; i++)
		for (unsigned t = 0; t < p->ntypes; t++)
			if (levels & 1u << t)
				p->values[i][t] = 0;
}

void pprof_time(struct pprof *p, int64_t start_ns, int64_t duration_ns)
{
	p->time_ns = start_ns;
	p->duration_ns = duration_ns;
}

static uint64_t function_id(struct pprof *p, const char *name)
{
	int64_t s = str(p, name);
	size_t before = p->functions.n, was = p->function_of_cap;
	uint64_t id;

	if ((size_t)s < p->function_of_cap && p->function_of[s])
		return p->function_of[s];
	id = intern_add(&p->functions, &s, sizeof(s)) + 1;
	p->function_of = grow_array(p->function_of, &p->function_of_cap, s + 1,
				    sizeof(*p->function_of));
	memset(p->function_of + was, 0,
	       (p->function_of_cap - was) * sizeof(*p->function_of));
	p->function_of[s] = id;
	if (p->functions.n != before) {
		struct bbuf m = {0};

		pb_int(&m, 1, id);
		pb_int(&m, 2, s);
		pb_int(&m, 3, s);
		pb_msg(&p->function_msgs, 5, &m);
		free(m.p);
	}
	return id;
}

/* The place in mapping_seen of a mapping: by its start and path. */
static struct mapping_seen *mapping_slot(struct pprof *p,
					 const struct rec_map *pm)
{
	uint64_t h = (pm->start >> 12) ^ (uintptr_t)pm->path >> 4;

	return &p->mapping_seen[(h ^ h >> 17) % MAPPINGS_SEEN];
}

/* Its id when met lately: the same start, path and build-id. */
static uint64_t mapping_met(const struct pprof *p, const struct mapping_seen *m,
			    const struct rec_map *pm)
{
	if (!m->id || m->start != pm->start ||
	    strcmp(p->strings.key[m->path], pm->path) ||
	    strcmp(p->strings.key[m->build_id], pm->build_id))
		return 0;
	return m->id;
}

static uint64_t mapping_id(struct pprof *p, const struct rec_map *pm)
{
	struct mapping_seen *seen = mapping_slot(p, pm);
	int64_t key[3];
	size_t before = p->mappings.n;
	uint64_t id = mapping_met(p, seen, pm);

	if (id)
		return id;
	key[0] = str(p, pm->path);
	key[1] = str(p, pm->build_id);
	key[2] = (int64_t)pm->start;
	id = intern_add(&p->mappings, key, sizeof(key)) + 1;
	*seen = (struct mapping_seen){pm->start, id, key[0], key[1]};
	if (p->mappings.n != before) {
		struct bbuf m = {0};

		p->mapping_at = grow_array(p->mapping_at, &p->mapping_at_cap,
					   id, sizeof(*p->mapping_at));
		p->mapping_at[id - 1] = p->mapping_msgs.len;
		pb_int(&m, 1, id);
		pb_int(&m, 2, pm->start);
		pb_int(&m, 3, pm->end);
		pb_int(&m, 4, pm->pgoff);
		pb_int(&m, 5, key[0]);
		pb_int(&m, 6, key[1]);
		pb_int(&m, 7, 1); /* has_functions */
		pb_msg(&p->mapping_msgs, 3, &m);
		free(m.p);
	}
	return id;
}

/* A file pprof may show as the main binary: on disk by its path, not a
 * memfd, an anonymous region or a file deleted since it was mapped. */
static bool real_file(const char *path)
{
	size_t n = strlen(path);
	static const char deleted[] = " (deleted)";

	return path[0] == '/' && strncmp(path, "/memfd:", 7) &&
	       (n < sizeof(deleted) - 1 ||
		strcmp(path + n - (sizeof(deleted) - 1), deleted));
}

void pprof_weigh_main(struct pprof *p, const struct rec_map *exe,
		      int64_t weight)
{
	int64_t key[2];
	size_t before = p->exes.n, i, was;
	uint64_t id;

	if (!exe || !real_file(exe->path))
		return;
	id = mapping_id(p, exe);
	if (id <= p->exe_of_cap && p->exe_of[id - 1]) {
		i = p->exe_of[id - 1] - 1;
	} else {
		key[0] = str(p, exe->path);
		key[1] = str(p, exe->build_id);
		i = intern_add(&p->exes, key, sizeof(key));
		if (p->exes.n != before) {
			p->exe = grow_array(p->exe, &p->exe_cap, i + 1,
					    sizeof(*p->exe));
			p->exe[i] = (struct exe){0, id};
		}
		was = p->exe_of_cap;
		p->exe_of = grow_array(p->exe_of, &p->exe_of_cap, id,
				       sizeof(*p->exe_of));
		memset(p->exe_of + was, 0,
		       (p->exe_of_cap - was) * sizeof(*p->exe_of));
		p->exe_of[id - 1] = i + 1;
	}
	p->exe[i].weight += weight < 0 ? -weight : weight;
}

/* The Mapping pprof shows as the main binary (its first), 1-based: the
 * file weighed most, else the first that is a real file, else the
 * first. */
static uint64_t main_mapping(const struct pprof *p)
{
	size_t best = 0;

	for (size_t i = 1; i < p->exes.n; i++)
		if (p->exe[i].weight > p->exe[best].weight)
			best = i;
	if (p->exes.n)
		return p->exe[best].mapping;
	for (size_t i = 0; i < p->mappings.n; i++) {
		const int64_t *key = (const int64_t *)p->mappings.key[i];

		if (real_file(p->strings.key[key[0]]))
			return i + 1;
	}
	return 1;
}

/* The Mapping messages, the main binary's first. */
static void put_mappings(const struct pprof *p, struct bbuf *b)
{
	uint64_t id = main_mapping(p);
	size_t at, end;

	if (!p->mappings.n) /* no message, and mapping_at never made */
		return;
	at = p->mapping_at[id - 1];
	end = id < p->mappings.n ? p->mapping_at[id] : p->mapping_msgs.len;
	bb_put(b, p->mapping_msgs.p + at, end - at);
	bb_put(b, p->mapping_msgs.p, at);
	bb_put(b, p->mapping_msgs.p + end, p->mapping_msgs.len - end);
}

/* Two ways: the pair of entries a frame may be in, one line of memory */
static struct frame_seen *frame_slot(struct pprof *p, uint64_t mapping,
				     uint64_t addr)
{
	uint64_t h = (mapping * 0x9e3779b97f4a7c15ULL ^ addr) *
		     0xd6e8feb86659fd93ULL;

	size_t size = sizeof(*p->frame_seen) << FRAMES_SEEN_BITS;

	if (!p->frame_seen) {
		p->frame_seen = aligned_alloc(2 * sizeof(*p->frame_seen), size);
		if (!p->frame_seen)
			error_exit("out of memory");
		memset(p->frame_seen, 0, size);
	}
	return &p->frame_seen[h >> (64 - FRAMES_SEEN_BITS) & ~1ULL];
}

/* A Function's name: the string table's copy. */
static const char *function_name(const struct pprof *p, uint64_t id)
{
	const int64_t *s = (const int64_t *)intern_key(&p->functions, id - 1);

	return intern_key(&p->strings, *s);
}

/* The Location of n frames at one address: f[0 .. n - 2] inlined into
 * f[n - 1], which holds the address and mapping. */
static uint64_t location_id(struct pprof *p, const struct pprof_frame *f,
			    unsigned n)
{
	const struct pprof_frame *at = &f[n - 1];
	uint64_t key[2 + PPROF_LINES_MAX];
	size_t before = p->locations.n;
	uint64_t id;
	struct frame_seen *seen = NULL;

	key[0] = at->map ? mapping_id(p, at->map) : 0;
	key[1] = at->addr;
	if (n == 1) {
		/* without an address, the name tells frames apart */
		seen = frame_slot(
			p, key[0],
			key[1] ? key[1]
			       : hash_bytes(at->name, strlen(at->name)));
		for (unsigned w = 0; w < 2; w++)
			if (seen[w].location && seen[w].mapping == key[0] &&
			    seen[w].addr == key[1] &&
			    !strcmp(seen[w].name, at->name))
				return seen[w].location;
	}
	for (unsigned i = 0; i < n; i++)
		key[2 + i] = function_id(p, f[i].name);
	id = intern_add(&p->locations, key, (2 + n) * sizeof(*key)) + 1;
	if (seen) { /* the older of the two goes */
		seen[1] = seen[0];
		seen[0] = (struct frame_seen){key[0], key[1], id,
					      function_name(p, key[2])};
	}
	if (p->locations.n != before) {
		struct bbuf m = {0}, line = {0};

		pb_int(&m, 1, id);
		pb_int(&m, 2, key[0]);
		pb_int(&m, 3, key[1]);
		for (unsigned i = 0; i < n; i++) {
			pb_int(&line, 1, key[2 + i]);
			pb_msg(&m, 4, &line);
		}
		pb_msg(&p->location_msgs, 4, &m);
		free(m.p);
		free(line.p);
	}
	return id;
}

void pprof_add(struct pprof *p, const struct pprof_frame *frames, unsigned n,
	       const int64_t *values, const char *const *labels, int64_t pid)
{
	struct bbuf *s = &p->sample, *packed = &p->packed, *label = &p->label;
	size_t before = p->samples.n, i;

	s->len = packed->len = label->len = 0;

	for (unsigned i = 0, k; i < n; i += k) {
		/* a frame and the calls inlined into it */
		for (k = 1; i + k < n && k < PPROF_LINES_MAX &&
			    frames[i + k - 1].inlined;
		     k++)
			;
		bb_varint(packed, location_id(p, &frames[i], k));
	}
	pb_msg(s, 1, packed);
	for (unsigned i = 0; labels && labels[i]; i += 2) {
		pb_int(label, 1, label_str(p, labels[i]));
		pb_int(label, 2, label_str(p, labels[i + 1]));
		pb_msg(s, 3, label);
	}
	if (pid > 0) {
		pb_int(label, 1, label_str(p, "pid"));
		pb_int(label, 3, pid);
		pb_msg(s, 3, label);
	}
	i = intern_add(&p->samples, s->p, s->len);
	if (p->samples.n != before) {
		p->values = grow_array(p->values, &p->values_cap, i + 1,
				       sizeof(*p->values));
		memset(p->values[i], 0, sizeof(p->values[i]));
	}
	for (unsigned t = 0; t < p->ntypes; t++)
		p->values[i][t] += values[t];
}

unsigned char *pprof_encode(struct pprof *p, size_t *len)
{
	struct bbuf b = {0}, m = {0}, s = {0}, packed = {0};
	z_stream z = {0};
	unsigned char *out;
	uLong cap;

	for (unsigned i = 0; i < p->ntypes; i++) {
		pb_int(&m, 1, p->types[i]);
		pb_int(&m, 2, p->units[i]);
		pb_msg(&b, 1, &m);
	}
	for (size_t i = 0; i < p->samples.n; i++) {
		bool any = false;

		for (unsigned t = 0; t < p->ntypes; t++) {
			bb_varint(&packed, p->values[i][t]);
			any |= p->values[i][t] != 0;
		}
		if (!any) { /* a level that is gone */
			packed.len = 0;
			continue;
		}
		bb_put(&s, p->samples.key[i], intern_len(&p->samples, i));
		pb_msg(&s, 2, &packed);
		pb_msg(&b, 2, &s);
	}
	put_mappings(p, &b);
	bb_put(&b, p->location_msgs.p, p->location_msgs.len);
	bb_put(&b, p->function_msgs.p, p->function_msgs.len);
	for (size_t i = 0; i < p->strings.n; i++)
		pb_bytes(&b, 6, p->strings.key[i], intern_len(&p->strings, i));
	pb_int(&b, 9, p->time_ns);
	pb_int(&b, 10, p->duration_ns);
	if (p->period && p->period_index >= 0) {
		pb_int(&m, 1, p->types[p->period_index]);
		pb_int(&m, 2, p->units[p->period_index]);
		pb_msg(&b, 11, &m);
		pb_int(&b, 12, p->period);
	}
	if (p->default_index >= 0)
		pb_int(&b, 14, p->types[p->default_index]);
	free(m.p);
	free(s.p);
	free(packed.p);
	/* gzip: zlib's deflate with a gzip wrapper (window bits 16 + 15) */
	cap = compressBound(b.len) + 64;
	out = xmalloc(cap);
	if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		error_exit("zlib: cannot start a gzip stream");
	z.next_in = b.p;
	z.avail_in = b.len;
	z.next_out = out;
	z.avail_out = cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		error_exit("zlib: gzip of the profile failed");
	*len = z.total_out;
	deflateEnd(&z);
	free(b.p);
	return out;
}

int pprof_write(struct pprof *p, FILE *f)
{
	size_t len;
	unsigned char *gz = pprof_encode(p, &len);
	int err = fwrite(gz, 1, len, f) != len ? -1 : 0;

	free(gz);
	return err;
}

void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	intern_free(&p->strings);
	intern_free(&p->functions);
	intern_free(&p->mappings);
	intern_free(&p->locations);
	intern_free(&p->samples);
	intern_free(&p->exes);
	free(p->mapping_at);
	free(p->function_of);
	free(p->frame_seen);
	free(p->exe);
	free(p->exe_of);
	free(p->values);
	free(p->mapping_msgs.p);
	free(p->location_msgs.p);
	free(p->function_msgs.p);
	free(p->sample.p);
	free(p->packed.p);
	free(p->label.p);
	free(p);
}
