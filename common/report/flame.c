// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph: a tree of frames from folded lines, laid out root at
 * the bottom, children sorted by name, widths by value; drawn as SVG
 * with every label in it, clipped to its bar, so it reads in any
 * renderer (image viewers, rsvg, documents); a small script adds zoom
 * and search where scripts run. Everything is in the one file.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "intern.h"
#include "stackbox.h"

#define WIDTH	 1200
#define FRAME_H	 16
#define TOP	 40
#define BOTTOM	 24
#define MIN_FRAC 0.0002 /* narrower frames are not drawn */
/* Labels: 12 px monospace; DejaVu Sans Mono and Liberation Mono advance
 * 0.602 em, so 7.3 px a character leaves a little over. A label is cut
 * to what fits between 3 px of padding each side, ".." marking the cut,
 * and left out below 3 characters, as flamegraph.pl does. The script's
 * zoom uses the same rule (CHAR_W and PAD are printed into it). */
#define FONT_PX 12
#define CHAR_W	7.3
#define PAD	3
/* The title: 16 px, smaller when it would reach the buttons either side
 * of it ("Reset zoom" ends at 83 px, "Search" starts 60 px from the
 * right): centred, it keeps 90 px clear each side. */
#define TITLE_PX     16
#define TITLE_MARGIN 90

struct node {
	char *name;
	uint64_t v, base; /* this profile's value, the base profile's */
	struct node *child, *next;
	struct node *parent, *last; /* last: its last child */
};

struct flame {
	struct node root;
	unsigned depth;
	bool diff;
	/* (parent, name) -> child: a frame under thousands of others (a
	 * comm's) is found without walking its siblings. Open addressing
	 * by the pair's hash, one slot read per probe. */
	struct kid {
		uint64_t h;
		struct node *n; /* NULL: empty */
	} * kids;
	size_t nkids, kids_cap;
	/* The last stack added and its frames' nodes: stacks come sorted,
	 * so most of a stack's frames are the last one's, found by
	 * comparing their bytes instead of a probe of kids each. */
	char *last;
	size_t last_cap;
	struct seen_frame {
		struct node *n;
		size_t at, len; /* the name in last */
	} * path;
	size_t npath, path_cap;
};

struct flame *flame_new(void)
{
	struct flame *fl = xzalloc(sizeof(*fl));

	fl->root.name = xstrdup("all");
	return fl;
}

static bool named(const struct node *c, const char *name, size_t len)
{
	return !strncmp(c->name, name, len) && !c->name[len];
}

static void kids_grow(struct flame *fl)
{
	size_t cap = fl->kids_cap ? fl->kids_cap * 2 : 1024;
	struct kid *k = xzalloc(cap * sizeof(*k));

	for (size_t i = 0; i < fl->kids_cap; i++) {
		size_t j = fl->kids[i].h & (cap - 1);

		if (!fl->kids[i].n)
			continue;
		while (k[j].n)
			j = (j + 1) & (cap - 1);
		k[j] = fl->kids[i];
	}
	free(fl->kids);
	fl->kids = k;
	fl->kids_cap = cap;
}

/* A node and its name in one block: one line of memory to check both. */
static struct node *new_child(struct node *n, const char *name, size_t len)
{
	struct node *c = xzalloc(sizeof(*c) + len + 1);

	c->name = (char *)(c + 1);
	memcpy(c->name, name, len);
	c->parent = n;
	if (n->last)
		n->last->next = c;
	else
		n->child = c;
	n->last = c;
	return c;
}

static struct node *child(struct flame *fl, struct node *n, const char *name,
			  size_t len)
{
	uint64_t h = hash_bytes(name, len) ^
		     ((uintptr_t)n * 0x9e3779b97f4a7c15ULL >> 16);
	size_t i, mask;

	if ((fl->nkids + 1) * 2 > fl->kids_cap)
		kids_grow(fl);
	mask = fl->kids_cap - 1;
	for (i = h & mask; fl->kids[i].n; i = (i + 1) & mask) {
		struct node *c = fl->kids[i].n;

		if (fl->kids[i].h == h && c->parent == n && named(c, name, len))
			return c;
	}
	fl->nkids++;
	return (fl->kids[i] = (struct kid){h, new_child(n, name, len)}).n;
}

/* The node of frame j (name, len) under n: the last stack's while the
 * frames so far were its, else a child found or made. */
static struct node *frame_node(struct flame *fl, struct node *n, unsigned j,
			       const char *name, size_t len, bool *same)
{
	const struct seen_frame *sf = &fl->path[j];

	*same = *same && j < fl->npath && sf->len == len &&
		!memcmp(fl->last + sf->at, name, len);
	return *same ? sf->n : child(fl, n, name, len);
}

void flame_add_stack(struct flame *fl, const char *stack, size_t len,
		     uint64_t v, bool base)
{
	const char *p = stack, *end = stack + len;
	struct node *n = &fl->root;
	unsigned depth = 0;
	bool same = true;

	if (!v)
		return;
	fl->diff |= base;
	for (;;) {
		const char *semi = memchr(p, ';', end - p);
		size_t flen = (semi ? semi : end) - p;

		if (base)
			n->base += v;
		else
			n->v += v;
		if (!flen && !semi)
			break;
		fl->path = grow_array(fl->path, &fl->path_cap, depth + 1,
				      sizeof(*fl->path));
		n = frame_node(fl, n, depth, p, flen, &same);
		fl->path[depth++] = (struct seen_frame){n, p - stack, flen};
		if (!semi) {
			if (base)
				n->base += v;
			else
				n->v += v;
			break;
		}
		p = semi + 1;
	}
	fl->npath = depth;
	fl->last = grow_array(fl->last, &fl->last_cap, len + 1, 1);
	memcpy(fl->last, stack, len);
	if (depth > fl->depth)
		fl->depth = depth;
}

void flame_add_folded(struct flame *fl, const char *line, bool base)
{
	const char *sp = strrchr(line, ' ');

	if (sp)
		flame_add_stack(fl, line, sp - line, strtoull(sp + 1, NULL, 10),
				base);
}

uint64_t flame_total(const struct flame *fl, bool base)
{
	return base ? fl->root.base : fl->root.v;
}

static void forget(struct node *n, bool base)
{
	for (; n; n = n->next) {
		if (base)
			n->base = 0;
		else
			n->v = 0;
		forget(n->child, base);
	}
}

void flame_snapshot(struct flame *fl, bool base)
{
	forget(&fl->root, base);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name,
		      (*(struct node *const *)b)->name);
}

/* len bytes of s, escaped for XML text and attributes */
static void xml_textn(FILE *f, const char *s, size_t len)
{
	for (; len-- && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

static void xml_text(FILE *f, const char *s)
{
	xml_textn(f, s, strlen(s));
}

/* The label that fits width px: the name, cut with "..", or "" (below 3
 * characters). Counted in characters, cut between UTF-8 sequences. */
static void label(FILE *f, const char *name, double width)
{
	long fit = (long)((width - 2 * PAD) / CHAR_W), n = 0;
	const char *p, *cut = NULL;

	if (fit < 3)
		return;
	for (p = name; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (n == fit - 2)
			cut = p;
		if (++n > fit)
			break;
	}
	if (n <= fit) {
		xml_text(f, name);
		return;
	}
	xml_textn(f, name, cut - name);
	fputs("..", f);
}

static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* A colour from the palette, varied by the name so neighbours differ. */
static void colour(char *buf, size_t len, enum flame_palette pal,
		   const char *name)
{
	unsigned h = name_hash(name);
	double a = (h & 0xff) / 255.0, b = (h >> 8 & 0xff) / 255.0;

	switch (pal) {
	case PALETTE_IO:
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(60 + 60 * a),
			 (int)(120 + 80 * b), (int)(200 + 55 * a));
		break;
	case PALETTE_MEM:
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(40 + 60 * a),
			 (int)(160 + 80 * b), (int)(50 + 60 * a));
		break;
	default:
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(205 + 50 * a),
			 (int)(60 + 170 * b), (int)(40 * a));
	}
}

/* The value against the base scaled to the same total: unchanged when
 * within half a unit, a difference no count could show. */
static bool unchanged(const struct node *n, double scale)
{
	double d = n->v - n->base * scale;

	return d > -0.5 && d < 0.5;
}

/* Red where the frame grew against the base (scaled to the same
 * total), blue where it shrank, grey where it stayed: neutral, as
 * flamegraph.pl's white for no change, but seen on our white ground. */
static void diff_colour(char *buf, size_t len, const struct node *n,
			double scale, double max)
{
	double d = n->v - n->base * scale;
	int c = max > 0 ? (int)(255 * (1 - (d < 0 ? -d : d) / max)) : 255;

	if (unchanged(n, scale))
		snprintf(buf, len, FLAME_UNCHANGED);
	else if (d >= 0)
		snprintf(buf, len, "rgb(255,%d,%d)", c, c);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", c, c);
}

static double max_delta(const struct node *n, double scale)
{
	double d = n->v - n->base * scale, m = d < 0 ? -d : d;

	for (const struct node *c = n->child; c; c = c->next) {
		double cm = max_delta(c, scale);

		if (cm > m)
			m = cm;
	}
	return m;
}

struct draw {
	FILE *f;
	const struct flame *fl;
	const char *unit;
	double total, scale, max;
	unsigned height;
};

static void draw(struct draw *d, struct node *n, double x, unsigned depth,
		 enum flame_palette pal)
{
	double w = d->total ? n->v / d->total : 0;
	size_t nc = 0, i = 0;
	struct node **kids;
	char fill[32];

	if (w < MIN_FRAC && depth)
		return;
	if (pal == PALETTE_HOTCOLD && depth == 1)
		pal = strcmp(n->name, FLAME_OFF_CPU) ? PALETTE_CPU : PALETTE_IO;
	if (d->fl->diff)
		diff_colour(fill, sizeof(fill), n, d->scale, d->max);
	else
		colour(fill, sizeof(fill), pal, n->name);
	fprintf(d->f,
		"<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" "
		"data-d=\"%u\"><title>",
		x, w, depth);
	xml_text(d->f, n->name);
	fprintf(d->f, " (%" PRIu64 " %s, %.2f%%", n->v, d->unit, 100 * w);
	if (d->fl->diff && unchanged(n, d->scale))
		fprintf(d->f, "; base %" PRIu64 ", unchanged", n->base);
	else if (d->fl->diff)
		fprintf(d->f, "; base %" PRIu64 ", %+.2f%%", n->base,
			d->total ? 100 * (n->v - n->base * d->scale) / d->total
				 : 0);
	fprintf(d->f,
		")</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" "
		"height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.1f\" "
		"y=\"%u\">",
		x * WIDTH, d->height - BOTTOM - (depth + 1) * FRAME_H,
		w * WIDTH, FRAME_H - 1, fill, x * WIDTH + PAD,
		d->height - BOTTOM - depth * FRAME_H - 4);
	label(d->f, n->name, w * WIDTH);
	fputs("</text></g>\n", d->f);
	for (struct node *c = n->child; c; c = c->next)
		nc++;
	kids = xmalloc((nc + 1) * sizeof(*kids));
	for (struct node *c = n->child; c; c = c->next)
		kids[i++] = c;
	qsort(kids, nc, sizeof(*kids), by_name);
	for (i = 0; i < nc; i++) {
		draw(d, kids[i], x, depth + 1, pal);
		x += d->total ? kids[i]->v / d->total : 0;
	}
	free(kids);
}

/* Zoom: a click makes a frame the full width; its ancestors stay full
 * width, frames beside it are hidden. Search: frames matching a regular
 * expression turn magenta, and the share they cover is shown. */
static const char script[] =
	"fs=[].slice.call(document.querySelectorAll('g.f'));\n"
	"function fit(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text'),"
	"n=g.querySelector('title').textContent.replace(/ \\([^()]*\\)$/,'');"
	"r.setAttribute('x',x*W);r.setAttribute('width',w*W);t.setAttribute('x',x*W+P);"
	"var c=Math.floor((w*W-2*P)/CW);t.textContent=c<3?'':n.length<=c?n:n.slice(0,c-2)+'..';}\n"
	"function zoom(z){var zx=+z.dataset.x,zw=+z.dataset.w,zd=+z.dataset.d;"
	"fs.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d;"
	"if(d<zd&&x<=zx+1e-9&&x+w>=zx+zw-1e-9){g.style.display='';fit(g,0,1);}"
	"else if(d>=zd&&x>=zx-1e-9&&x+w<=zx+zw+1e-9){g.style.display='';fit(g,(x-zx)/zw,w/zw);}"
	"else g.style.display='none';});}\n"
	"function reset(){fs.forEach(function(g){g.style.display='';fit(g,+g.dataset.x,+g.dataset.w);});}\n"
	"function search(){var re=prompt('Search (regular expression)');if(!re)return;"
	"var rx=new RegExp(re),m=[];fs.forEach(function(g){var r=g.querySelector('rect'),"
	"n=g.querySelector('title').textContent;if(!r.dataset.c)r.dataset.c=r.getAttribute('fill');"
	"if(rx.test(n.replace(/ \\([^()]*\\)$/,''))){r.setAttribute('fill','rgb(230,0,230)');m.push(g);}"
	"else r.setAttribute('fill',r.dataset.c);});var s=0,e=-1;m.sort(function(a,b){return a.dataset.x-b.dataset.x;});"
	"m.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w;if(x>=e){s+=w;e=x+w;}});"
	"document.getElementById('matched').textContent='Matched: '+(100*s).toFixed(2)+'%';}\n"
	"fs.forEach(function(g){g.onclick=function(){zoom(g);};"
	"g.onmouseover=function(){document.getElementById('details').textContent="
	"g.querySelector('title').textContent;};});\n"
	"document.getElementById('reset').onclick=reset;"
	"document.getElementById('search').onclick=search;\n"
	"]]></script>\n";

/* The title's font size: TITLE_PX, or what fits it between the
 * buttons (an advance of 0.602 em a character, as for labels). */
static double title_px(const char *title)
{
	double room = WIDTH - 2 * TITLE_MARGIN, px;
	long n = 0;

	for (const char *p = title; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	px = n ? room / (0.602 * n) : TITLE_PX;
	return px < TITLE_PX ? px : TITLE_PX;
}

void flame_write_svg(struct flame *fl, FILE *f, const char *title,
		     enum flame_palette pal, const char *unit)
{
	struct draw d = {.f = f, .fl = fl, .unit = unit};

	d.total = fl->root.v;
	d.scale = fl->root.base ? (double)fl->root.v / fl->root.base : 1;
	d.max = max_delta(&fl->root, d.scale);
	d.height = TOP + BOTTOM + (fl->depth + 1) * FRAME_H;
	fprintf(f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" "
		"font-family=\"monospace\" font-size=\"%d\">\n"
		"<style>g.f:hover rect{stroke:black;stroke-width:0.5}"
		"g.f{cursor:pointer} .b{cursor:pointer;fill:#06c}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" "
		"font-size=\"%.1f\">",
		WIDTH, d.height, FONT_PX, fl->diff ? "#fff" : "#f8f8f0",
		WIDTH / 2, title_px(title));
	xml_text(f, title);
	fprintf(f,
		"</text>\n<text id=\"reset\" class=\"b\" x=\"10\" "
		"y=\"20\">Reset zoom</text>\n<text id=\"search\" class=\"b\" "
		"x=\"%d\" y=\"20\">Search</text>\n<text id=\"matched\" "
		"x=\"%d\" y=\"%u\"></text>\n<text id=\"details\" x=\"10\" "
		"y=\"%u\"></text>\n",
		WIDTH - 60, WIDTH - 160, d.height - 6, d.height - 6);
	draw(&d, &fl->root, 0, 0, pal);
	/* the labels are drawn already: the script only redraws on zoom */
	fprintf(f, "<script><![CDATA[\nvar W=%d,CW=%.1f,P=%d,", WIDTH, CHAR_W,
		PAD);
	fputs(script, f);
	fputs("</svg>\n", f);
}

static void free_nodes(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		free_nodes(n->child); /* (its name is in the block) */
		free(n);
		n = next;
	}
}

void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	free_nodes(fl->root.child);
	free(fl->root.name);
	free(fl->kids);
	free(fl->last);
	free(fl->path);
	free(fl);
}
