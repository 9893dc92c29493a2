// SPDX-License-Identifier: GPL-2.0
/*
 * From drained rows to a written snapshot: name their frames (frames.c),
 * name cgroups, sort, and hand the snapshot to the chosen format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "format_bin.h"
#include "frames.h"
#include "nspid.h"
#include "sink.h"
#include "output.h"
#include "output_sink.h"
#include "stacks.h"
#include "syms.h"
#include "u64map.h"

struct output {
	struct sink *sink;
	FILE *f; /* this snapshot's text, then written whole to the sink */
	const char *path;
	int format;
	long long top;
	struct frames fr; /* stacks, their frames' names */
	/* -f bin, or STACKBOX_BIN_TEE=FILE: the stream besides text */
	struct bin_writer *bin;
	struct bin_writer *ring; /* -R: every snapshot a key frame */
	FILE *tee;
	const char *tee_path;
	__u64 unwritten;  /* snapshots the sink could not take */
	bool reader_gone; /* a pipe's reader exited: nothing to write for */
	const char *(*cgroup_name)(__u64 id);
	/* tgid -> its pid in its own namespace, 0 the same; read while the
	 * process lives, kept until it is gone. report: from the recording */
	struct u64map nspids;
	__u32 (*nspid_of)(__u32 tgid);
	output_writer writer;
	void *writer_ctx;
};

/* A key frame every this many snapshots (docs/bin-format.md). */
#define BIN_KEY_EVERY 16

struct output *output_open(const struct output_opts *o)
{
	struct output *out = xzalloc(sizeof(*out));

	out->sink =
		sink_open(ENABLE_SINK_FILE ? o->output : NULL, o->rotate.size,
			  o->rotate.count, o->baud, o->format == FORMAT_BIN);
	out->path = sink_name(out->sink);
	out->format = o->format;
	if (out->format == FORMAT_BIN && !o->output &&
	    sink_is_terminal(out->sink))
		help_exit("-f bin: standard output is a terminal; use -o FILE "
			  "or a pipe");
	out->top = o->top;
	if (ENABLE_SYMBOLIZE)
		out->fr.procs = proc_syms_new("/proc");
	out->cgroup_name = cgroup_path;
	if (ENABLE_FORMAT_BIN && out->format != FORMAT_BIN &&
	    getenv("STACKBOX_BIN_TEE")) {
		/* the same snapshots as bin too: report's round-trip test */
		out->tee_path = getenv("STACKBOX_BIN_TEE");
		out->tee = fopen(out->tee_path, "w");
		if (!out->tee)
			perror_exit("STACKBOX_BIN_TEE=%s", out->tee_path);
	}
	if (ENABLE_FORMAT_BIN && (out->tee || out->format == FORMAT_BIN))
		out->bin = bin_writer_new(BIN_KEY_EVERY);
	status_say("writing %s to %s",
		   out->format == FORMAT_BIN	  ? "bin"
		   : out->format == FORMAT_FOLDED ? "folded"
						  : "text",
		   out->path);
	return out;
}

void output_set_ksyms(struct output *out, struct ksyms *ks)
{
	if (ENABLE_SYMBOLIZE && out->fr.ksyms != ks)
		ksyms_free(out->fr.ksyms);
	out->fr.ksyms = ks;
	out->fr.ksyms_tried = true;
}

void output_set_cgroup_names(struct output *out, const char *(*name)(__u64))
{
	out->cgroup_name = name;
}

void output_note_process(struct output *out, __u32 tgid, __u32 parent)
{
	uint64_t v;

	if (out->nspid_of)
		return;
	/* a fork of a process in our pid namespace is in it too, but for a
	 * CLONE_NEWPID child, whose exec reads it again: no status read,
	 * where a new pid's /proc lookup was most of a fork's cost here */
	if (parent && u64map_get(&out->nspids, parent, &v) && !v)
		u64map_put(&out->nspids, tgid, 0);
	else
		u64map_put(&out->nspids, tgid, nspid_read("/proc", tgid));
}

static __u32 nspid(struct output *out, __u32 tgid)
{
	uint64_t v;

	if (out->nspid_of)
		return out->nspid_of(tgid);
	if (!tgid)
		return 0;
	if (!u64map_get(&out->nspids, tgid, &v)) {
		v = nspid_read("/proc", tgid);
		u64map_put(&out->nspids, tgid, v);
	}
	return v;
}

/* Forget the processes that are gone: their pids may be reused. */
static void nspids_gc(struct output *out)
{
	struct u64map kept = {0};
	char path[32];
	size_t at = 0;
	uint64_t tgid;
	void *v;

	while (u64map_next(&out->nspids, &at, &tgid, &v)) {
		snprintf(path, sizeof(path), "/proc/%u", (unsigned)tgid);
		if (!access(path, F_OK))
			u64map_put(&kept, tgid, *(uint64_t *)v);
	}
	u64map_free(&out->nspids);
	out->nspids = kept;
}

static __u32 bin_nspid(void *ctx, __u32 tgid)
{
	return nspid(ctx, tgid);
}

void output_set_writer(struct output *out, output_writer fn, void *ctx)
{
	out->writer = fn;
	out->writer_ctx = ctx;
}

void output_set_stacks(struct output *out, struct stack_cache *stacks)
{
	out->fr.stacks = stacks;
}

void output_set_kernel_names(struct output *out, struct kernel_names *kn)
{
	out->fr.knames = kn;
}

bool output_reader_gone(const struct output *out)
{
	return out->reader_gone;
}

unsigned long output_unnamed_frames(const struct output *out)
{
	return out->fr.unnamed;
}

struct proc_syms *output_procs(struct output *out)
{
	return out->fr.procs;
}

struct stack_cache *output_stacks(struct output *out)
{
	return out->fr.stacks;
}

void output_swap_sources(struct output *out, struct output_sources *src)
{
	struct output_sources live = {out->fr.stacks,	   out->fr.ksyms,
				      out->fr.ksyms_tried, out->fr.procs,
				      out->cgroup_name,	   out->nspid_of};

	out->fr.stacks = src->stacks;
	out->fr.ksyms = src->ksyms;
	out->fr.ksyms_tried = src->ksyms_tried;
	out->fr.procs = src->procs;
	out->cgroup_name = src->cgroup_name;
	out->nspid_of = src->nspid_of;
	*src = live;
}

/* The i-th of the n lines text prints of a row's frames, in
 * put_frames' order: user frames, "--" when there are both, kernel
 * frames. */
static const char *printed(const char **u, unsigned nu, const char **k,
			   unsigned nk, unsigned i)
{
	if (i < nu)
		return u[i];
	if (nu && nk && i-- == nu)
		return "--";
	return k[i - nu];
}

/*
 * Frames as text prints them, not as user and kernel apart: a row of
 * kernel frames only prints as one of user frames only, so report of
 * that text read it as one, and sorted it elsewhere among rows of equal
 * value (a process's exit_mmap sample: 2 of some 8 runs today).
 */
static int by_printed(const char **xu, unsigned xnu, const char **xk,
		      unsigned xnk, const char **yu, unsigned ynu,
		      const char **yk, unsigned ynk)
{
	unsigned nx = xnu + xnk + (xnu && xnk), ny = ynu + ynk + (ynu && ynk);

	for (unsigned i = 0; i < nx && i < ny; i++) {
		const char *a = printed(xu, xnu, xk, xnk, i);
		const char *b = printed(yu, ynu, yk, ynk, i);
		/* kernel frames' names are the symbol table's: one pointer */
		int c = a == b ? 0 : strcmp(a, b);

		if (c)
			return c;
	}
	return nx < ny ? -1 : nx > ny;
}

static int by_string(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "");
}

/* What a text row shows: equal rows differ only in addresses. */
static int by_shown(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	if (x->key.pid != y->key.pid)
		return x->key.pid < y->key.pid ? -1 : 1;
	if (x->key.aux != y->key.aux)
		return x->key.aux < y->key.aux ? -1 : 1;
	if (x->key.other_tgid != y->key.other_tgid)
		return x->key.other_tgid < y->key.other_tgid ? -1 : 1;
	if ((c = strcmp(x->key.comm, y->key.comm)) ||
	    (c = strcmp(x->key.other_comm, y->key.other_comm)) ||
	    (c = by_string(x->cgroup, y->cgroup)) ||
	    (c = by_printed(x->ustack, x->nu, x->kstack, x->nk, y->ustack,
			    y->nu, y->kstack, y->nk)))
		return c;
	return by_printed(x->other_ustack, x->other_nu, x->other_kstack,
			  x->other_nk, y->other_ustack, y->other_nu,
			  y->other_kstack, y->other_nk);
}

/*
 * Biggest first; equal values in an order of their own (what text shows
 * of them: process, thread, split, names, frames), never the order qsort
 * leaves ties in: that differs between libcs, and report on a glibc host
 * must print what the collector printed with musl.
 */
static int by_value(const void *a, const void *b, void *primary)
{
	const struct row *x = a, *y = b;
	unsigned p = *(unsigned *)primary;
	int c;

	if (x->v[p] != y->v[p])
		return x->v[p] < y->v[p] ? 1 : -1;
	if ((c = by_shown(x, y)))
		return c;
	for (unsigned m = 0; m < SB_MAX_VALUES; m++)
		if (x->v[m] != y->v[m])
			return x->v[m] < y->v[m] ? 1 : -1;
	return 0;
}

struct value_at {
	__u64 v;
	size_t at;
};

static int by_value_at(const void *a, const void *b)
{
	const struct value_at *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Rows in by_shown's order, none equal by it, into by_value's: its ties
 * in the primary value go by by_shown, which is their order now, so
 * sorting by (value, place) gives the same order comparing integers
 * where by_value compared names.
 */
static void by_value_of_shown(struct snapshot *s)
{
	struct value_at *o = xmalloc((s->nrows + 1) * sizeof(*o));
	struct row *rows = xmalloc((s->nrows + 1) * sizeof(*rows));

	for (size_t i = 0; i < s->nrows; i++)
		o[i] = (struct value_at){s->rows[i].v[s->primary], i};
	qsort(o, s->nrows, sizeof(*o), by_value_at);
	for (size_t i = 0; i < s->nrows; i++)
		rows[i] = s->rows[o[i].at];
	free(s->rows);
	s->rows = rows;
	free(o);
}

/*
 * Text shows names, so rows whose stacks differ only in addresses
 * (two call sites in one function, a leaf sampled at two instructions)
 * are one row, as folded and perf report show them: its value is their
 * sum and --top counts it once. A copy: what watches the snapshot after
 * (triggers) and the other formats keep each address.
 */
static void write_text(struct output *out, const struct snapshot *s)
{
	struct snapshot shown = *s;
	size_t n = 0;

	shown.rows = xmalloc((s->nrows + 1) * sizeof(*s->rows));
	memcpy(shown.rows, s->rows, s->nrows * sizeof(*s->rows));
	qsort(shown.rows, s->nrows, sizeof(*s->rows), by_shown);
	for (size_t i = 0; i < s->nrows; i++) {
		struct row *r = &shown.rows[i];

		if (n && !by_shown(&shown.rows[n - 1], r))
			for (unsigned m = 0; m < SB_MAX_VALUES; m++)
				shown.rows[n - 1].v[m] += r->v[m];
		else
			shown.rows[n++] = *r;
	}
	shown.nrows = n;
	by_value_of_shown(&shown);
	format_text(out->f, &shown, out->top);
	free(shown.rows);
}

/* ---- the bin stream's view of the same caches ---- */
static const __u64 *bin_stack(void *ctx, __u64 id, unsigned *n)
{
	return stack_cache_get(((struct output *)ctx)->fr.stacks, id, n);
}

static const char *bin_ksym(void *ctx, __u64 ip)
{
	return frames_kernel_sym(&((struct output *)ctx)->fr, ip);
}

static void bin_touch(void *ctx, __u32 tgid, __u64 ip)
{
	struct output *out = ctx;
	struct usym u;

	if (ENABLE_SYMBOLIZE && out->fr.procs)
		proc_syms_lookup(out->fr.procs, tgid, ip, &u);
}

static size_t bin_maps(void *ctx, __u32 tgid, struct rec_map **maps)
{
	struct output *out = ctx;

	*maps = NULL;
	return ENABLE_SYMBOLIZE && out->fr.procs
		       ? proc_syms_maps(out->fr.procs, tgid, maps)
		       : 0;
}

static const char *bin_cgroup(void *ctx, __u64 id)
{
	return ((struct output *)ctx)->cgroup_name(id);
}

/* A whole snapshot to the sink. A failure is counted, said once, and
 * said again with the count when the sink works again. */
static int emit(struct output *out, const void *p, size_t len)
{
	if (out->reader_gone)
		return 0;
	if (sink_write(out->sink, p, len)) {
		if (sink_reader_gone(out->sink, errno)) {
			verbose("%s: its reader is gone: stopping", out->path);
			out->reader_gone = true;
			return 0;
		}
		if (!out->unwritten++) {
			perror_msg("writing %s (collection goes on; counting "
				   "the snapshots that cannot be written)",
				   out->path);
			status_say("writing %s failed: %s", out->path,
				   strerror(errno));
		}
		return -1;
	}
	if (out->unwritten) {
		error_msg("%s works again: %llu snapshots were not written",
			  out->path, (unsigned long long)out->unwritten);
		status_say("%s works again: %llu snapshots were not written",
			   out->path, (unsigned long long)out->unwritten);
		out->unwritten = 0;
	}
	return 0;
}

/*
 * The snapshot as BPF gave it, before resolving (which adds stacks gone
 * from the cache to the lost counts): the reader resolves it the same
 * way. It carries how many snapshots before it were not written; after
 * a failure, or in a new file, it starts with a key frame.
 */
static struct bin_source bin_source_of(struct output *out)
{
	return (struct bin_source){
		.ctx = out,
		.stack = bin_stack,
		.ksym = bin_ksym,
		.touch = bin_touch,
		.maps = bin_maps,
		.cgroup = bin_cgroup,
		.nspid = bin_nspid,
	};
}

static int write_bin(struct output *out, const struct snapshot *s)
{
	const struct bin_source src = bin_source_of(out);
	struct bbuf b = {0};
	int err = 0;

	if (out->tee) {
		bin_encode_snapshot(out->bin, s, &src, 0, &b);
		if (fwrite(b.p, 1, b.len, out->tee) != b.len ||
		    fflush(out->tee)) {
			perror_msg("writing %s", out->tee_path);
			err = -1;
		}
		free(b.p);
		return err;
	}
	bin_encode_snapshot(out->bin, s, &src, out->unwritten, &b);
	if (sink_rotates(out->sink, b.len)) {
		/* the new file must decode on its own */
		b.len = 0;
		bin_writer_rekey(out->bin);
		bin_encode_snapshot(out->bin, s, &src, out->unwritten, &b);
	}
	err = emit(out, b.p, b.len);
	if (err)
		bin_writer_rekey(out->bin);
	free(b.p);
	return err;
}

void output_encode(struct output *out, const struct snapshot *s, struct bbuf *b)
{
	const struct bin_source src = bin_source_of(out);

	if (!ENABLE_FORMAT_BIN)
		return;
	if (!out->ring)
		out->ring = bin_writer_new(1);
	cgroup_names_refresh();
	bin_encode_snapshot(out->ring, s, &src, 0, b);
	if (ENABLE_SYMBOLIZE && out->fr.procs)
		proc_syms_gc(out->fr.procs);
}

bool output_writes_bin(const struct output *out)
{
	return out->format == FORMAT_BIN;
}

int output_write_encoded(struct output *out, const void *bin, size_t len)
{
	return emit(out, bin, len);
}

void output_rekey(struct output *out)
{
	if (ENABLE_FORMAT_BIN && out->bin)
		bin_writer_rekey(out->bin);
}

int output_snapshot(struct output *out, struct snapshot *s)
{
	char *text = NULL;
	size_t len = 0;
	int err = 0;

	cgroup_names_refresh();
	if (ENABLE_FORMAT_BIN && out->bin) {
		err = write_bin(out, s);
		if (out->format == FORMAT_BIN) {
			if (ENABLE_SYMBOLIZE && out->fr.procs)
				proc_syms_gc(out->fr.procs);
			nspids_gc(out);
			return err;
		}
	}
	out->f = open_memstream(&text, &len);
	if (!out->f)
		error_exit("out of memory");
	for (size_t i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		for (unsigned m = 0; m < s->nmetrics; m++)
			s->total[m] += r->v[m];
		if (s->resolved)
			continue;
		r->ustack = frames_of(&out->fr, r->key.user_stack, r->key.tgid,
				      false, &r->nu, &s->lost_ustacks,
				      &r->uinlined);
		r->kstack = frames_of(&out->fr, r->key.kern_stack, r->key.tgid,
				      true, &r->nk, &s->lost_kstacks, NULL);
		r->other_ustack = frames_of(
			&out->fr, r->key.other_user_stack, r->key.other_tgid,
			false, &r->other_nu, &s->lost_ustacks, NULL);
		r->other_kstack = frames_of(
			&out->fr, r->key.other_kern_stack, r->key.other_tgid,
			true, &r->other_nk, &s->lost_kstacks, NULL);
		r->cgroup = out->cgroup_name(r->key.cgroup);
		r->nspid = nspid(out, r->key.tgid);
	}
	qsort_r(s->rows, s->nrows, sizeof(*s->rows), by_value, &s->primary);
	if (out->writer)
		out->writer(out->writer_ctx, out->f, s);
	else if (ENABLE_FORMAT_TEXT && out->format == FORMAT_TEXT)
		write_text(out, s);
	else if (ENABLE_FORMAT_FOLDED && out->format == FORMAT_FOLDED)
		format_folded(out->f, s);
	frames_clear(&out->fr);
	if (ENABLE_SYMBOLIZE && out->fr.procs)
		proc_syms_gc(out->fr.procs);
	nspids_gc(out);
	if (fclose(out->f))
		error_exit("out of memory");
	out->f = NULL;
	if (len && emit(out, text, len))
		err = -1;
	free(text);
	return err;
}

int output_close(struct output *out)
{
	/* the sink's name goes with the sink: a copy for what is said */
	char *path = xstrdup(out->path);
	int err = 0;

	if (sink_close(out->sink)) {
		perror_msg("writing %s", path);
		err = -1;
	}
	if (out->tee && fclose(out->tee)) {
		perror_msg("writing %s", out->tee_path);
		err = -1;
	}
	if (out->unwritten) {
		error_msg("%s: the last %llu snapshots were not written", path,
			  (unsigned long long)out->unwritten);
		status_say("%s: the last %llu snapshots were not written", path,
			   (unsigned long long)out->unwritten);
		err = -1;
	}
	if (ENABLE_FORMAT_BIN) {
		bin_writer_free(out->bin);
		bin_writer_free(out->ring);
	}
	u64map_free(&out->nspids);
	frames_free(&out->fr);
	free(out);
	free(path);
	return err;
}
