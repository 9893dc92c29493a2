// SPDX-License-Identifier: GPL-2.0
/*
 * perf script's text into snapshots; see perf_script.h. A sample is a
 * header line, "COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT: ...", then
 * its callchain leaf first, one "ADDR SYMBOL[+OFF] (DSO)" line a frame,
 * kernel frames before user ones, then an empty line.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "stackbox.h"
#include "syms.h"
#include "perf_script.h"
#include "lines.h"
#include "u64map.h"

#define MAX_EVENTS 16

struct frame {
	const char *name; /* interned */
	bool kernel;
	bool unknown; /* perf knew no DSO: kernel only amid kernel frames */
};

/* Where a frame was met: its address and DSO, for pprof's Locations. */
struct frame_at {
	uint64_t addr;
	struct rec_map *map; /* NULL: perf printed no DSO */
};

struct perf_script {
	void (*snapshot)(void *ctx, struct snapshot *s);
	void *ctx;
	uint64_t interval;	/* ns; 0: one snapshot */
	struct lines lines;	/* the line being assembled across feeds */
	struct names names;	/* frame names of no DSO, each once */
	struct u64map frame_at; /* name -> struct frame_at */
	struct names dso_names; /* DSO paths, each once */
	struct u64map dso_map;	/* path -> its struct dso * */
	/* the sample being read: its header, its frames */
	bool in_sample, bad_sample;
	struct head {
		struct sb_key key;
		uint64_t period;
		uint64_t time; /* ns of perf's clock */
		bool have_time;
	} h;
	struct frame *frames;
	size_t nframes, frames_cap;
	/* events, in the order met: the split of rows when more than one */
	char *event[MAX_EVENTS];
	unsigned nevents;
	bool have_period;
	struct metric metrics[2];
	char describe[160];
	/* the snapshot being filled: rows by a hash of their key */
	struct u64map row_map;
	struct row *rows;
	size_t nrows, rows_cap;
	uint64_t start, end; /* ns of perf's clock */
	bool started;
	unsigned long seq;
	/* what was read and skipped */
	uint64_t samples, bad_lines, first_bad, bad_samples, no_chain,
		cut_frames;
	char *host;
};

static const struct perf_script *aux_of; /* for aux_name(), which has no ctx */

struct perf_script *
perf_script_new(uint64_t interval,
		void (*snapshot)(void *ctx, struct snapshot *s), void *ctx)
{
	struct perf_script *p = xzalloc(sizeof(*p));

	p->interval = interval;
	p->frame_at = U64MAP_OF(struct frame_at);
	p->dso_map = U64MAP_OF(struct dso *);
	/* never NULL: frames + n is taken of an empty callchain too */
	p->frames = grow_array(NULL, &p->frames_cap, 64, sizeof(*p->frames));
	p->snapshot = snapshot;
	p->ctx = ctx;
	return p;
}

static const char *aux_name(__u32 aux)
{
	return aux_of && aux_of->nevents > 1 && aux < aux_of->nevents
		       ? aux_of->event[aux]
		       : "";
}

/* The metrics, from the first sample: samples, and the first event's
 * period when perf prints it (the clocks' are ns of CPU time). */
static void set_metrics(struct perf_script *p)
{
	const char *ev = p->event[0];
	bool clock = !strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock");
	/* counters (no "group:name"): samples of code that ran */
	bool cpu = !strchr(ev, ':');

	p->metrics[0] = (struct metric){"samples", METRIC_COUNT};
	if (cpu)
		p->metrics[0].measure = MEASURE_CPU_TIME;
	p->metrics[1] = (struct metric){ev, clock ? METRIC_NS : METRIC_COUNT};
	if (clock)
		p->metrics[1].measure = MEASURE_CPU_TIME;
	snprintf(p->describe, sizeof(p->describe), "perf script: %s; value: %s",
		 ev,
		 !p->have_period ? "samples"
		 : clock	 ? "its period, ns of CPU time"
				 : "its period");
}

static void emit(struct perf_script *p, bool final)
{
	struct snapshot s = {
		.applet = "perf",
		.seq = ++p->seq,
		.final = final,
		.start = {p->start / NS_PER_SEC, p->start % NS_PER_SEC},
		.end = {p->end / NS_PER_SEC, p->end % NS_PER_SEC},
		.metrics = p->metrics,
		.nmetrics = p->have_period ? 2 : 1,
		.primary = p->have_period ? 1 : 0,
		.describe = p->describe,
		.aux_name = aux_name,
		.per_thread = true,
		.rows = p->rows,
		.nrows = p->nrows,
		.resolved = true,
		.boot_clock = true,
	};

	aux_of = p;
	p->snapshot(p->ctx, &s);
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].ustack); /* kstack is in the same block */
	p->nrows = 0;
	u64map_free(&p->row_map);
}

/* kf, uf: the kernel's and user space's frames, leaf first */
static bool same_row(const struct row *r, const struct sb_key *k,
		     const struct frame *kf, unsigned nk,
		     const struct frame *uf, unsigned nu)
{
	if (r->key.tgid != k->tgid || r->key.pid != k->pid ||
	    r->key.aux != k->aux || r->nu != nu || r->nk != nk ||
	    strcmp(r->key.comm, k->comm))
		return false;
	/* frames are interned: the same name is the same pointer */
	for (unsigned i = 0; i < nu; i++)
		if (r->ustack[i] != uf[nu - 1 - i].name)
			return false;
	for (unsigned i = 0; i < nk; i++)
		if (r->kstack[i] != kf[nk - 1 - i].name)
			return false;
	return true;
}

/* Leaf first: the kernel's frames, then user space's; a frame of no
 * known DSO is the kernel's when a kernel frame is further down. */
static unsigned kernel_frames(const struct frame *f, size_t n)
{
	unsigned nk = 0;

	for (unsigned i = 0; i < n && (f[i].kernel || f[i].unknown); i++)
		if (f[i].kernel)
			nk = i + 1;
	return nk;
}

/* The sample read: into its row of the snapshot its time falls in. */
static void end_sample(struct perf_script *p)
{
	const struct frame *kf = p->frames, *uf;
	unsigned nk = 0, nu, i;
	uint64_t h, *v;
	struct row *r;

	if (!p->in_sample || p->bad_sample) {
		p->bad_samples += p->in_sample;
		p->in_sample = false;
		return;
	}
	p->in_sample = false;
	p->samples++;
	p->no_chain += !p->nframes;
	if (p->samples == 1)
		set_metrics(p);
	nk = kernel_frames(p->frames, p->nframes);
	uf = p->frames + nk;
	nu = p->nframes - nk;
	/* as deep as a collector's stacks: the leaf side is kept */
	if (nk > SB_MAX_DEPTH || nu > SB_MAX_DEPTH)
		p->cut_frames++;
	nk = nk > SB_MAX_DEPTH ? SB_MAX_DEPTH : nk;
	nu = nu > SB_MAX_DEPTH ? SB_MAX_DEPTH : nu;
	/* a new snapshot when the sample is past this one's interval */
	if (!p->started || (p->interval && p->h.have_time &&
			    p->h.time >= p->start + p->interval)) {
		if (p->started) {
			p->end = p->start + p->interval;
			emit(p, false);
			/* the interval the sample is in: none stays empty */
			p->start += (p->h.time - p->start) / p->interval *
				    p->interval;
		} else {
			p->start = p->h.have_time ? p->h.time : 0;
		}
		p->started = true;
	}
	if (p->h.have_time && p->h.time > p->end)
		p->end = p->h.time;
	h = fnv1a(fnv1a(FNV_START, &p->h.key.tgid, 12), p->h.key.comm,
		  strlen(p->h.key.comm));
	for (i = 0; i < nk; i++)
		h = fnv1a(h, &kf[i].name, sizeof(kf[i].name));
	h = fnv1a(h, "-", 1);
	for (i = 0; i < nu; i++)
		h = fnv1a(h, &uf[i].name, sizeof(uf[i].name));
	for (;; h++) {
		v = u64map_add(&p->row_map, h);
		if (!*v ||
		    same_row(&p->rows[*v - 1], &p->h.key, kf, nk, uf, nu))
			break;
	}
	if (!*v) {
		const char **f = xmalloc((nu + nk + 1) * sizeof(*f));

		p->rows = grow_array(p->rows, &p->rows_cap, p->nrows + 1,
				     sizeof(*p->rows));
		r = &p->rows[p->nrows];
		*r = (struct row){.key = p->h.key,
				  .ustack = f,
				  .nu = nu,
				  .kstack = f + nu,
				  .nk = nk};
		/* rows' frames are root first */
		for (i = 0; i < nu; i++)
			r->ustack[i] = uf[nu - 1 - i].name;
		for (i = 0; i < nk; i++)
			r->kstack[i] = kf[nk - 1 - i].name;
		*v = ++p->nrows;
	}
	r = &p->rows[*v - 1];
	r->v[0]++;
	r->v[1] += p->h.period;
}

/* A line that is not perf script's: the sample it is in is left out,
 * and so are the frame lines after it up to the next header or blank
 * line (of a sample whose header it may have been). */
static void bad_line(struct perf_script *p)
{
	if (!p->bad_lines++)
		p->first_bad = p->lines.lineno;
	p->in_sample = p->bad_sample = true;
}

static unsigned event_index(struct perf_script *p, const char *ev, size_t len)
{
	unsigned i;

	for (i = 0; i < p->nevents; i++)
		if (!strncmp(p->event[i], ev, len) && !p->event[i][len])
			return i;
	if (i == MAX_EVENTS)
		return MAX_EVENTS - 1; /* the rest share the last split */
	p->event[p->nevents] = strndup(ev, len);
	if (!p->event[p->nevents])
		error_exit("out of memory");
	return p->nevents++;
}

static bool is_digits(const char *s, size_t len, bool slash)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && !(slash && s[i] == '/'))
			return false;
	return len && isdigit((unsigned char)s[0]);
}

/* The token after s: its start and length; false at the end. */
static bool token(const char **s, size_t *len)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
	*len = strcspn(*s, " \t");
	return *len;
}

/*
 * "COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT: ...": the comm may hold
 * spaces, so the pid is the first number followed by a CPU, a time or
 * an event; every field but the comm and the pid may be left out (-F).
 */
static bool parse_header(struct perf_script *p, const char *line,
			 struct head *h)
{
	const char *s = line, *pid = NULL, *t;
	size_t len, plen = 0, comm_len;
	char *end;

	memset(h, 0, sizeof(*h));
	for (token(&s, &len), s += len; token(&s, &len); s += len) {
		t = s + len;
		if (is_digits(s, len, true) && token(&t, &plen) &&
		    (t[0] == '[' || t[plen - 1] == ':')) {
			pid = s;
			plen = len;
			s += len;
			break;
		}
	}
	if (!pid)
		return false;
	comm_len = pid - line;
	while (comm_len &&
	       (line[comm_len - 1] == ' ' || line[comm_len - 1] == '\t'))
		comm_len--;
	memcpy(h->key.comm, line,
	       comm_len < SB_COMM_LEN - 1 ? comm_len : SB_COMM_LEN - 1);
	h->key.tgid = h->key.pid = strtoul(pid, &end, 10);
	if (*end == '/')
		h->key.pid = strtoul(end + 1, NULL, 10);
	if (token(&s, &len) && s[0] == '[')
		s += len;
	if (token(&s, &len) && s[len - 1] == ':' &&
	    isdigit((unsigned char)*s)) {
		double t = strtod(s, &end);

		/* seconds of perf's clock (since boot): bounded, so times
		 * and intervals stay in range */
		if (end != s + len - 1 || !(t >= 0 && t < 1e9))
			return false;
		h->time = llround(t * 1e9);
		h->have_time = true;
		s += len;
	}
	if (token(&s, &len) && is_digits(s, len, false)) {
		h->period = strtoull(s, NULL, 10);
		p->have_period |= p->samples == 0;
		s += len;
	}
	if (token(&s, &len) && s[len - 1] == ':')
		h->key.aux = event_index(p, s, len - 1);
	else
		h->key.aux = event_index(p, "samples", 7);
	return true;
}

/* A DSO: its one mapping, all of perf's addresses (as it prints them,
 * absolute or within the file) in one range so it never splits, and
 * the names of its frames: main of one program is not main of another. */
struct dso {
	struct rec_map map;
	struct names names;
};

static struct dso *dso_of(struct perf_script *p, const char *path, size_t len)
{
	const char *name = names_intern(&p->dso_names, path, len);
	struct dso **d = u64map_add(&p->dso_map, (uintptr_t)name);

	if (!*d) {
		*d = xzalloc(sizeof(**d));
		(*d)->map = (struct rec_map){0, UINT64_MAX, 0, name, ""};
	}
	return *d;
}

static void note_frame_at(struct perf_script *p, const char *name,
			  uint64_t addr, struct dso *d)
{
	struct frame_at *at = u64map_find(&p->frame_at, (uintptr_t)name);

	if (at)
		return; /* the first address met names the frame's */
	at = u64map_add(&p->frame_at, (uintptr_t)name);
	at->addr = addr;
	at->map = d ? &d->map : NULL;
}

/* The kernel's DSOs as perf names them: [kernel.kallsyms], a vmlinux
 * file (perf resolved it from one, at addresses within it), a module. */
static bool kernel_dso(const char *dso, size_t len)
{
	const char *base = dso, *slash;

	if (len >= 8 && !strncmp(dso, "[kernel.", 8))
		return true;
	while ((slash = memchr(base, '/', len - (base - dso))))
		base = slash + 1;
	return (len - (base - dso) >= 7 && !strncmp(base, "vmlinux", 7)) ||
	       (len > 13 && !strncmp(dso, "/lib/modules/", 13));
}

/* A frame's name: its symbol, else [DSO's file name+0xADDR], else
 * [0xADDR]. */
static const char *frame_name(struct names *names, const char *sym, size_t len,
			      const char *dso, size_t dlen,
			      unsigned long long addr)
{
	const char *base = dso ? dso : "", *slash, *interned;
	size_t blen = dso ? dlen : 0;
	char *name;

	if (len && !(len == 9 && !strncmp(sym, "[unknown]", 9)))
		return names_intern(names, sym, len);
	while ((slash = memchr(base, '/', blen))) {
		blen -= slash + 1 - base;
		base = slash + 1;
	}
	name = blen && !(blen == 9 && !strncmp(base, "[unknown]", 9))
		       ? xasprintf("[%.*s+0x%llx]", (int)blen, base, addr)
		       : xasprintf("[0x%llx]", addr);
	interned = names_intern(names, name, strlen(name));
	free(name);
	return interned;
}

/* The symbol's length without a "+0x1f" offset: that is the address
 * within it, not its name. */
static size_t without_offset(const char *sym, size_t len)
{
	const char *plus = len > 3 ? memmem(sym, len, "+0x", 3) : NULL;

	while (plus && memmem(plus + 1, len - (plus + 1 - sym), "+0x", 3))
		plus = memmem(plus + 1, len - (plus + 1 - sym), "+0x", 3);
	if (plus && strspn(plus + 3, "0123456789abcdef") ==
			    (size_t)(sym + len - plus - 3))
		return plus - sym;
	return len;
}

/* "ADDR SYMBOL[+0xOFF] (DSO)", SYMBOL empty ("ADDR  (DSO)") where perf
 * has none. Kernel frames are told by their DSO; without one, by the
 * address (the upper half, as on x86_64 and arm64). */
static bool parse_frame(struct perf_script *p, const char *s)
{
	const char *sym, *dso = NULL, *e;
	unsigned long long addr;
	struct frame *f;
	struct dso *d = NULL;
	size_t len, dlen = 0;
	char *end;

	addr = strtoull(s, &end, 16);
	if (end == s || (*end != ' ' && *end != '\t'))
		return false;
	e = end + strlen(end);
	while (e > end && e[-1] == ' ')
		e--;
	/* the last " (": symbols may hold parentheses; searched from the
	 * blank after the address, which an empty symbol leaves */
	if (e > end && e[-1] == ')' && (dso = memmem(end, e - end, " (", 2))) {
		const char *d;

		while ((d = memmem(dso + 1, e - dso - 1, " (", 2)))
			dso = d;
	}
	sym = end;
	token(&sym, &len);
	/* no symbol: the blanks run to the DSO's " (", or to the end */
	if (sym > (dso ? dso : e))
		sym = dso ? dso : e;
	len = without_offset(sym, (dso ? dso : e) - sym);
	if (dso) {
		dso += 2;
		dlen = e - 1 - dso;
		d = dso_of(p, dso, dlen);
	}
	p->frames = grow_array(p->frames, &p->frames_cap, p->nframes + 1,
			       sizeof(*p->frames));
	f = &p->frames[p->nframes++];
	f->name = frame_name(d ? &d->names : &p->names, sym, len, dso, dlen,
			     addr);
	f->unknown = !dso || (dlen == 9 && !strncmp(dso, "[unknown]", 9));
	f->kernel = f->unknown ? addr >> 63 : kernel_dso(dso, dlen);
	note_frame_at(p, f->name, addr, d);
	return true;
}

/* A frame of the sample being read: an indented frame, or one that is
 * not, but ends in its DSO or is no header. */
static bool frame_line(struct perf_script *p, char *line)
{
	size_t len = strlen(line);
	struct head h;
	bool ok;

	if (strchr(" \t", *line))
		return parse_frame(p, line + strspn(line, " \t"));
	while (len && line[len - 1] == ' ')
		len--;
	if (!(len && line[len - 1] == ')')) {
		ok = parse_header(p, line, &h);
		if (ok)
			return false;
	}
	return parse_frame(p, line);
}

static void parse_line(void *ctx, char *line)
{
	struct perf_script *p = ctx;
	size_t len;
	struct head h;

	if (!line) {
		bad_line(p);
		return;
	}
	len = strlen(line);
	if (*line == '#') {
		/* perf script --header: "# hostname : NAME" */
		if (!p->host && !strncmp(line, "# hostname : ", 13))
			p->host = xstrdup(line + 13);
		return;
	}
	if (!len || strspn(line, " \t") == len) {
		end_sample(p);
		return;
	}
	/* frames are indented, but for some (a JVM agent's); so may a header
	 * be, its comm right-aligned */
	if (p->in_sample && !p->bad_sample && frame_line(p, line))
		return;
	if (p->in_sample && p->bad_sample && strchr(" \t", *line))
		return; /* a frame line of a sample left out */
	if (!parse_header(p, line + strspn(line, " \t"), &h)) {
		bad_line(p);
		return;
	}
	end_sample(p);
	p->h = h;
	p->nframes = 0;
	p->bad_sample = false;
	p->in_sample = true;
}

bool perf_script_detect(const void *data, size_t len)
{
	const char *s = data, *nl = memchr(data, '\n', len);
	struct perf_script tmp = {0};
	char *line;
	bool ok;

	if (memmem(data, len, "SBf\xa5", 4) || memchr(data, 0, len) || !nl)
		return false;
	if (*s == '#')
		return true;
	line = strndup(s, nl - s);
	if (!line)
		error_exit("out of memory");
	ok = parse_header(&tmp, line + strspn(line, " \t"), &tmp.h);
	for (unsigned i = 0; i < tmp.nevents; i++)
		free(tmp.event[i]);
	free(line);
	return ok;
}

void perf_script_feed(struct perf_script *p, const void *data, size_t len)
{
	lines_feed(&p->lines, data, len, parse_line, p);
}

uint64_t perf_script_end(struct perf_script *p, const char *name)
{
	/* a last line without its newline, or a callchain without the
	 * blank line perf script ends each with: the input was cut there,
	 * and that sample may be too */
	bool cut = lines_end(&p->lines) || (p->in_sample && p->nframes);

	if (cut)
		p->in_sample = false;
	end_sample(p);
	if (p->started)
		emit(p, true);
	if (cut)
		error_msg("%s: cut short in line %llu: its sample is left out",
			  name, (unsigned long long)p->lines.lineno);
	if (p->bad_lines)
		error_msg("%s: %llu lines are not perf script output (the "
			  "first: line %llu): %llu samples left out",
			  name, (unsigned long long)p->bad_lines,
			  (unsigned long long)p->first_bad,
			  (unsigned long long)p->bad_samples);
	if (p->no_chain)
		error_msg("%s: %llu samples have no callchain (perf record "
			  "-g or --call-graph)",
			  name, (unsigned long long)p->no_chain);
	if (p->cut_frames)
		error_msg("%s: %llu callchains were deeper than %d frames: "
			  "cut there",
			  name, (unsigned long long)p->cut_frames,
			  SB_MAX_DEPTH);
	if (!p->samples)
		error_msg("%s: no sample of perf script output", name);
	return p->samples;
}

const char *perf_script_host(const struct perf_script *p)
{
	return p->host;
}

bool perf_script_frame_at(const struct perf_script *p, const char *name,
			  uint64_t *addr, const struct rec_map **map)
{
	const struct frame_at *at = u64map_find(&p->frame_at, (uintptr_t)name);

	if (!at)
		return false;
	*addr = at->addr;
	*map = at->map;
	return true;
}

void perf_script_free(struct perf_script *p)
{
	uint64_t k;
	void *v;

	if (!p)
		return;
	if (aux_of == p)
		aux_of = NULL;
	names_free(&p->names);
	u64map_free(&p->frame_at);
	for (size_t i = 0; u64map_next(&p->dso_map, &i, &k, &v);) {
		names_free(&(*(struct dso **)v)->names);
		free(*(struct dso **)v);
	}
	u64map_free(&p->dso_map);
	names_free(&p->dso_names);
	for (unsigned i = 0; i < p->nevents; i++)
		free(p->event[i]);
	u64map_free(&p->row_map);
	free(p->rows);
	free(p->frames);
	lines_free(&p->lines);
	free(p->host);
	free(p);
}
