// SPDX-License-Identifier: GPL-2.0
/*
 * report -f html: the snapshots as dictionaries and sparse values, in
 * one page with its script and style; see html.h. Each snapshot is
 * taken as folded writes it (its primary metric, folded's unit), so
 * the page's flame graphs are the SVG's of the same range.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "lines.h"
#include "folded_rows.h"
#include "output.h"
#include "stackbox.h"

struct stream {
	char applet[32], metric[32], unit[16];
	bool level, boot;
	char *t, *v; /* JSON array bodies: times; values per snapshot */
	size_t tlen, vlen;
	FILE *tf, *vf;
	unsigned long n;
};

struct html {
	struct names names;	/* frame names, each once */
	struct u64map frame_id; /* interned name -> id + 1 */
	const char **frame;	/* by id */
	size_t nframes, frames_cap;
	struct u64map stack_id; /* hash of frame ids -> id + 1 */
	uint32_t **stack;	/* by id: [n, frame ids root first] */
	size_t nstacks, stacks_cap;
	struct stream **st; /* each apart: its memstreams point into it */
	size_t nst;
	double t0; /* the first snapshot's start, seconds */
	bool have_t0;
	char *marks;
	size_t marks_len;
	FILE *mf;
	uint32_t *ids; /* the line being read */
	size_t ids_cap;
	struct pair {
		uint32_t id;
		uint64_t v;
	} * pairs; /* the snapshot being read */
	size_t npairs, pairs_cap;
};

struct html *html_new(void)
{
	struct html *h = xzalloc(sizeof(*h));

	h->mf = open_memstream(&h->marks, &h->marks_len);
	if (!h->mf)
		error_exit("out of memory");
	return h;
}

/* A JSON string; "<" escaped, so no "</script>" ends the data early. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static uint32_t frame_of(struct html *h, const char *s, size_t len)
{
	const char *name = names_intern(&h->names, s, len);
	uint64_t *id = u64map_add(&h->frame_id, (uintptr_t)name);

	if (!*id) {
		h->frame = grow_array(h->frame, &h->frames_cap, h->nframes + 1,
				      sizeof(*h->frame));
		h->frame[h->nframes] = name;
		*id = ++h->nframes;
	}
	return *id - 1;
}

static uint32_t stack_of(struct html *h, const uint32_t *ids, uint32_t n)
{
	uint64_t hash = fnv1a(FNV_START, ids, n * sizeof(*ids)), *id;

	for (;; hash++) {
		const uint32_t *s;

		id = u64map_add(&h->stack_id, hash);
		if (!*id)
			break;
		s = h->stack[*id - 1];
		if (s[0] == n && !memcmp(s + 1, ids, n * sizeof(*ids)))
			return *id - 1;
	}
	h->stack = grow_array(h->stack, &h->stacks_cap, h->nstacks + 1,
			      sizeof(*h->stack));
	h->stack[h->nstacks] = xmalloc((n + 1) * sizeof(**h->stack));
	h->stack[h->nstacks][0] = n;
	memcpy(h->stack[h->nstacks] + 1, ids, n * sizeof(*ids));
	*id = ++h->nstacks;
	return *id - 1;
}

/* A folded row into the snapshot's pairs */
static void add_row(void *ctx, const char *stack, size_t len, uint64_t value)
{
	struct html *h = ctx;
	const char *s = stack, *end = stack + len, *semi;
	uint32_t n = 0;

	for (;; s = semi + 1) {
		semi = memchr(s, ';', end - s);
		h->ids =
			grow_array(h->ids, &h->ids_cap, n + 1, sizeof(*h->ids));
		h->ids[n++] = frame_of(h, s, (semi ? semi : end) - s);
		if (!semi)
			break;
	}
	h->pairs = grow_array(h->pairs, &h->pairs_cap, h->npairs + 1,
			      sizeof(*h->pairs));
	h->pairs[h->npairs++] = (struct pair){stack_of(h, h->ids, n), value};
}

static struct stream *stream_of(struct html *h, const struct snapshot *s)
{
	const struct metric *m = &s->metrics[s->primary];
	struct stream *st;

	for (size_t i = 0; i < h->nst; i++)
		if (!strcmp(h->st[i]->applet, s->applet))
			return h->st[i];
	h->st = realloc(h->st, (h->nst + 1) * sizeof(*h->st));
	if (!h->st)
		error_exit("out of memory");
	st = h->st[h->nst++] = xzalloc(sizeof(*st));
	snprintf(st->applet, sizeof(st->applet), "%s", s->applet);
	snprintf(st->metric, sizeof(st->metric), "%s", m->name);
	/* folded's unit: whole us of a time */
	snprintf(st->unit, sizeof(st->unit), "%s",
		 m->kind == METRIC_NS	   ? "us"
		 : m->kind == METRIC_BYTES ? "bytes"
					   : m->name);
	st->level = m->level;
	st->boot = s->boot_clock;
	st->tf = open_memstream(&st->t, &st->tlen);
	st->vf = open_memstream(&st->v, &st->vlen);
	if (!st->tf || !st->vf)
		error_exit("out of memory");
	return st;
}

static int by_id(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The pairs as [id delta, value, ...], ids ascending: small numbers. */
static void put_pairs(struct html *h, FILE *f)
{
	uint32_t last = 0;

	qsort(h->pairs, h->npairs, sizeof(*h->pairs), by_id);
	fputc('[', f);
	for (size_t i = 0; i < h->npairs; i++) {
		fprintf(f, "%s%" PRIu32 ",%" PRIu64, i ? "," : "",
			h->pairs[i].id - last, h->pairs[i].v);
		last = h->pairs[i].id;
	}
	fputc(']', f);
	h->npairs = 0;
}

static double seconds(struct timespec t)
{
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void add_marks(struct html *h, const struct snapshot *s)
{
	for (unsigned i = 0; i < s->nmarks; i++) {
		const struct mark *m = &s->marks[i];

		fprintf(h->mf, "%s{\"t\":%.3f,\"n\":%lu,\"kind\":",
			ftell(h->mf) ? "," : "", seconds(m->when) - h->t0,
			m->n);
		json_str(h->mf,
			 m->kind < MARK_MAX ? mark_kind_name[m->kind] : "");
		fputs(",\"cause\":", h->mf);
		json_str(h->mf, m->cause ? m->cause : "");
		fputc('}', h->mf);
	}
}

void html_snapshot(void *ctx, FILE *unused, const struct snapshot *s)
{
	struct html *h = ctx;
	struct stream *st = stream_of(h, s);

	if (!h->have_t0) {
		h->t0 = seconds(s->start);
		h->have_t0 = true;
	}
	folded_rows(s, add_row, h);
	fprintf(st->tf, "%s%.3f,%.3f", st->n ? "," : "",
		seconds(s->start) - h->t0, seconds(s->end) - h->t0);
	if (st->n++)
		fputc(',', st->vf);
	put_pairs(h, st->vf);
	add_marks(h, s);
}

static void put_dictionaries(const struct html *h, FILE *f)
{
	fputs(",\"frames\":[", f);
	for (size_t i = 0; i < h->nframes; i++) {
		if (i)
			fputc(',', f);
		json_str(f, h->frame[i]);
	}
	fputs("],\"stacks\":[", f);
	for (size_t i = 0; i < h->nstacks; i++) {
		fputs(i ? ",[" : "[", f);
		for (uint32_t k = 1; k <= h->stack[i][0]; k++)
			fprintf(f, "%s%" PRIu32, k > 1 ? "," : "",
				h->stack[i][k]);
		fputc(']', f);
	}
	fputc(']', f);
}

static void put_streams(struct html *h, FILE *f)
{
	fputs(",\"streams\":[", f);
	for (size_t i = 0; i < h->nst; i++) {
		struct stream *st = h->st[i];

		fflush(st->tf);
		fflush(st->vf);
		fputs(i ? ",{\"applet\":" : "{\"applet\":", f);
		json_str(f, st->applet);
		fputs(",\"metric\":", f);
		json_str(f, st->metric);
		fputs(",\"unit\":", f);
		json_str(f, st->unit);
		fprintf(f, ",\"level\":%s,\"boot\":%s,\"t\":[",
			st->level ? "true" : "false",
			st->boot ? "true" : "false");
		fwrite(st->t, 1, st->tlen, f);
		fputs("],\"v\":[", f);
		fwrite(st->v, 1, st->vlen, f);
		fputs("]}", f);
	}
	fputc(']', f);
}

/* --anomalies -f json's lines as one array, "<" escaped as in strings
 * (JSON has it nowhere else) */
static void put_anomalies(FILE *f, const char *json)
{
	bool first = true;

	fputs(",\"anomalies\":[", f);
	for (const char *s = json; s && *s; s++) {
		if (*s == '{' && (s == json || s[-1] == '\n'))
			fputs(first ? "" : ",", f), first = false;
		if (*s == '<')
			fputs("\\u003c", f);
		else if (*s != '\n')
			fputc(*s, f);
	}
	fputc(']', f);
}

int html_write(struct html *h, FILE *f, const char *title,
	       const char *anomalies)
{
	fflush(h->mf);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	      "charset=\"utf-8\">\n"
	      /* nothing from the network, whatever the data holds */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; script-src 'unsafe-inline'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n<title>",
	      f);
	for (const char *s = title; *s; s++)
		if (*s == '<' || *s == '&')
			fputs(*s == '<' ? "&lt;" : "&amp;", f);
		else
			fputc(*s, f);
	fprintf(f,
		"</title>\n<style>\n%s</style></head>\n<body>\n"
		"<script type=\"application/json\" id=\"sb-data\">{\"title\":",
		html_page_css);
	json_str(f, title);
	fprintf(f, ",\"t0\":%.3f", h->t0);
	put_dictionaries(h, f);
	put_streams(h, f);
	fputs(",\"marks\":[", f);
	fwrite(h->marks, 1, h->marks_len, f);
	fputc(']', f);
	put_anomalies(f, anomalies);
	fprintf(f, "}</script>\n<script>\n%s</script>\n</body></html>\n",
		html_page_js);
	return ferror(f) ? -1 : 0;
}

void html_free(struct html *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nst; i++) {
		fclose(h->st[i]->tf);
		fclose(h->st[i]->vf);
		free(h->st[i]->t);
		free(h->st[i]->v);
		free(h->st[i]);
	}
	free(h->st);
	for (size_t i = 0; i < h->nstacks; i++)
		free(h->stack[i]);
	free(h->stack);
	u64map_free(&h->stack_id);
	u64map_free(&h->frame_id);
	free(h->frame);
	names_free(&h->names);
	fclose(h->mf);
	free(h->marks);
	free(h->ids);
	free(h->pairs);
	free(h);
}
