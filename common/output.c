// SPDX-License-Identifier: GPL-2.0
/*
 * From drained rows to a written snapshot: resolve stacks to frame names
 * (kernel through kallsyms, user through the process's ELF files), name
 * cgroups, sort, and hand the snapshot to the chosen format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bin_replay.h"
#include "cgroup.h"
#include "format_bin.h"
#include "nspid.h"
#include "sink.h"
#include "output.h"
#include "output_sink.h"
#include "kernel_names.h"
#include "pool.h"
#include "stacks.h"
#include "syms.h"
#include "u64map.h"

struct output {
	struct sink *sink;
	FILE *f; /* this snapshot's text, then written whole to the sink */
	const char *path;
	int format;
	long long top;
	struct stack_cache *stacks;
	struct ksyms *ksyms;
	bool ksyms_tried;
	struct kernel_names *knames; /* before ksyms is loaded: see there */
	struct proc_syms *procs;
	struct pool names; /* this snapshot's frame names and arrays */
	/* frames() builds a stack's frames here, then keeps n of them */
	const char **frame_buf;
	bool *inlined_buf;
	size_t frame_cap, inlined_cap;
	/* -f bin, or STACKBOX_BIN_TEE=FILE: the stream besides text */
	struct bin_writer *bin;
	struct bin_writer *ring; /* -R: every snapshot a key frame */
	bool dump_failed;
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
	unsigned long unnamed; /* user frames shown as [module+offset] */
};

const char *const mark_kind_name[MARK_MAX] = {
	[MARK_FIRED] = "fired",
	[MARK_CLEARED] = "cleared",
	[MARK_WINDOW] = "window",
};

/* A key frame every this many snapshots (docs/bin-format.md). */
#define BIN_KEY_EVERY 16

struct output *output_open(const struct collect_opts *o)
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
		out->procs = proc_syms_new("/proc");
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
	if (ENABLE_SYMBOLIZE && out->ksyms != ks)
		ksyms_free(out->ksyms);
	out->ksyms = ks;
	out->ksyms_tried = true;
}

void output_set_cgroup_names(struct output *out, const char *(*name)(__u64))
{
	out->cgroup_name = name;
}

void output_note_process(struct output *out, __u32 tgid)
{
	if (!out->nspid_of)
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
	out->stacks = stacks;
}

void output_set_kernel_names(struct output *out, struct kernel_names *kn)
{
	out->knames = kn;
}

bool output_reader_gone(const struct output *out)
{
	return out->reader_gone;
}

unsigned long output_unnamed_frames(const struct output *out)
{
	return out->unnamed;
}

struct proc_syms *output_procs(struct output *out)
{
	return out->procs;
}

struct stack_cache *output_stacks(struct output *out)
{
	return out->stacks;
}

void output_swap_sources(struct output *out, struct output_sources *src)
{
	struct output_sources live = {out->stacks,	out->ksyms,
				      out->ksyms_tried, out->procs,
				      out->cgroup_name, out->nspid_of};

	out->stacks = src->stacks;
	out->ksyms = src->ksyms;
	out->ksyms_tried = src->ksyms_tried;
	out->procs = src->procs;
	out->cgroup_name = src->cgroup_name;
	out->nspid_of = src->nspid_of;
	*src = live;
}

/*
 * The tool's own BPF programs and the tracing machinery that runs them
 * are not the profiled code: a kernel stack ends where they begin (at the
 * leaf for a tracepoint program's stack; mid-stack when a sample lands
 * while one of our programs runs).
 */
static bool own_frame(const char *sym)
{
	static const char *const prefixes[] = {
		"bpf_prog_",	      "bpf_trampoline_",      "__bpf_prog_run",
		"bpf_trace_run",      "__bpf_trace_",	      "bpf_get_stack",
		"trace_call_bpf",     "perf_trace_",	      "__traceiter_",
		"bpf_dispatcher_",    "___bpf_prog_run",      "perf_callchain",
		"get_perf_callchain", "bpf_overflow_handler", "perf_syscall_",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static const char *kernel_sym(struct output *out, __u64 ip)
{
	uint64_t off;

	/* the kernel names them, unless a recording brought its names */
	if (ENABLE_SYMBOLIZE && out->knames && !out->ksyms)
		return kernel_names_lookup(out->knames, ip);
	/* loaded at the first kernel frame, not before CMD may start */
	if (ENABLE_SYMBOLIZE && !out->ksyms_tried) {
		out->ksyms_tried = true;
		out->ksyms = ksyms_load("/proc/kallsyms");
		if (!out->ksyms)
			perror_msg("/proc/kallsyms: kernel frames will be "
				   "addresses");
	}
	if (ENABLE_SYMBOLIZE && out->ksyms)
		return ksyms_lookup(out->ksyms, ip, &off);
	return NULL;
}

static const char *kernel_frame(struct output *out, __u64 ip)
{
	const char *sym = kernel_sym(out, ip);

	return sym ? sym
		   : pool_printf(&out->names, "[kernel 0x%llx]",
				 (unsigned long long)ip);
}

/*
 * The names of one user address into f, root first: its function, then
 * the calls inlined into it there, outermost first. A return address
 * (ret) is looked up one byte back, in its call instruction: the next
 * instruction may be another inlined call's. Returns how many, each
 * marked in inlined[] when it is a call inlined into the one before.
 */
static unsigned user_frame(struct output *out, __u32 tgid, __u64 ip, bool ret,
			   const char **f, bool *inlined)
{
	struct usym u = {0};
	unsigned n = 0;

	if (ENABLE_SYMBOLIZE && out->procs) {
		if (!proc_syms_lookup(out->procs, tgid, ip - ret, &u)) {
			inlined[n] = false;
			f[n++] = pool_strdup(&out->names, u.sym);
			while (u.ninlined) {
				inlined[n] = true;
				f[n++] = pool_strdup(&out->names,
						     u.inlined[--u.ninlined]);
			}
			return n;
		}
		out->unnamed++;
		if (u.module) {
			f[0] = pool_printf(
				&out->names, "[%s+0x%llx]", u.module,
				(unsigned long long)(u.module_off + ret));
			inlined[0] = false;
			return 1;
		}
	}
	f[0] = pool_printf(&out->names, "[0x%llx]", (unsigned long long)ip);
	inlined[0] = false;
	return 1;
}

/*
 * A frame-pointer walk through code without frame pointers reads data as
 * return addresses. Where the process's code is known, a return address
 * outside it ends the stack: nothing past it is real.
 */
static unsigned user_depth(struct output *out, __u32 tgid, const __u64 *ip,
			   unsigned depth)
{
	struct usym u;

	proc_syms_lookup(out->procs, tgid, ip[0], &u);
	if (!u.module)
		return depth; /* nothing known of it: keep what there is */
	for (unsigned i = 1; i < depth; i++) {
		proc_syms_lookup(out->procs, tgid, ip[i], &u);
		if (!u.module)
			return i;
	}
	return depth;
}

/* Frames root to leaf for one stack id; *n = 0 when there is none. A
 * user stack's inlined calls are marked in *inlined (NULL when it has
 * none; inlined may be NULL when that is not wanted). */
static const char **frames(struct output *out, __u64 id, __u32 tgid,
			   bool kernel, unsigned *n, __u64 *lost,
			   const bool **inlined)
{
	const __u64 *ip;
	const char **f;
	unsigned depth, max;
	uint64_t caller;
	bool repair, *inl;

	*n = 0;
	if (inlined)
		*inlined = NULL;
	if (id == SB_STACK_NONE)
		return NULL;
	ip = id == SB_STACK_LOST ? NULL
				 : stack_cache_get(out->stacks, id, &depth);
	if (!ip) {
		/* BPF counted SB_STACK_LOST; an id gone from the cache is ours */
		*lost += id != SB_STACK_LOST;
		f = pool_alloc(&out->names, sizeof(*f));
		f[0] = kernel ? "[kernel stack lost]" : "[user stack lost]";
		*n = 1;
		return f;
	}
	if (ENABLE_SYMBOLIZE && !kernel && out->procs)
		depth = user_depth(out, tgid, ip, depth);
	repair =
		ENABLE_SYMBOLIZE && !kernel && out->procs && depth >= 2 &&
		!proc_syms_lost_caller(out->procs, tgid, ip[0], ip[1], &caller);
	/* a user address may name several frames (inlined calls) */
	max = (depth + 1) * (kernel ? 1 : 1 + USYM_INLINE_MAX);
	f = out->frame_buf =
		grow_array(out->frame_buf, &out->frame_cap, max, sizeof(*f));
	inl = kernel ? NULL
		     : (out->inlined_buf =
				grow_array(out->inlined_buf, &out->inlined_cap,
					   max, sizeof(*inl)));
	/* ip[] is leaf first; frames are root first */
	for (unsigned i = 0; i < depth; i++) {
		__u64 at = ip[depth - 1 - i];

		if (kernel) {
			f[*n] = kernel_frame(out, at);
			if (own_frame(f[*n]))
				break;
			++*n;
			continue;
		}
		if (repair && i == depth - 1)
			*n += user_frame(out, tgid, caller, false, f + *n,
					 inl + *n);
		*n += user_frame(out, tgid, at, i < depth - 1, f + *n,
				 inl + *n);
	}
	/* kept as long as the snapshot, so no bigger than it needs */
	if (inl && inlined && memchr(inl, true, *n))
		*inlined = pool_memdup(&out->names, inl, *n * sizeof(*inl));
	return pool_memdup(&out->names, f, (*n ? *n : 1) * sizeof(*f));
}

static int by_frames(const char **x, unsigned nx, const char **y, unsigned ny)
{
	for (unsigned i = 0; i < nx && i < ny; i++) {
		int c = strcmp(x[i], y[i]);

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
	    (c = by_frames(x->ustack, x->nu, y->ustack, y->nu)) ||
	    (c = by_frames(x->kstack, x->nk, y->kstack, y->nk)) ||
	    (c = by_frames(x->other_ustack, x->other_nu, y->other_ustack,
			   y->other_nu)))
		return c;
	return by_frames(x->other_kstack, x->other_nk, y->other_kstack,
			 y->other_nk);
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
	qsort_r(shown.rows, n, sizeof(*s->rows), by_value, &shown.primary);
	format_text(out->f, &shown, out->top);
	free(shown.rows);
}

/* ---- the bin stream's view of the same caches ---- */
static const __u64 *bin_stack(void *ctx, __u64 id, unsigned *n)
{
	return stack_cache_get(((struct output *)ctx)->stacks, id, n);
}

static const char *bin_ksym(void *ctx, __u64 ip)
{
	return kernel_sym(ctx, ip);
}

static void bin_touch(void *ctx, __u32 tgid, __u64 ip)
{
	struct output *out = ctx;
	struct usym u;

	if (ENABLE_SYMBOLIZE && out->procs)
		proc_syms_lookup(out->procs, tgid, ip, &u);
}

static size_t bin_maps(void *ctx, __u32 tgid, struct rec_map **maps)
{
	struct output *out = ctx;

	*maps = NULL;
	return ENABLE_SYMBOLIZE && out->procs
		       ? proc_syms_maps(out->procs, tgid, maps)
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
	if (ENABLE_SYMBOLIZE && out->procs)
		proc_syms_gc(out->procs);
}

struct output_dump {
	struct output *out;
	struct bin_replay *replay; /* text, folded: decoded as report does */
	struct bin_reader *reader;
	int err;
};

struct output_dump *output_dump_begin(struct output *out)
{
	struct output_dump *d = xzalloc(sizeof(*d));
	struct bin_reader_ops ops;

	d->out = out;
	out->dump_failed = false;
	if (ENABLE_FORMAT_BIN && out->format != FORMAT_BIN) {
		d->replay = bin_replay_new(out);
		ops = bin_replay_ops(d->replay);
		d->reader = bin_reader_new(&ops);
	}
	return d;
}

void output_dump_feed(struct output_dump *d, const void *bin, size_t len)
{
	if (!ENABLE_FORMAT_BIN)
		return;
	if (d->reader)
		bin_reader_feed(d->reader, bin, len);
	else if (emit(d->out, bin, len))
		d->err = -1;
}

int output_dump_end(struct output_dump *d)
{
	struct output *out = d->out;
	int err = d->err;

	if (ENABLE_FORMAT_BIN && d->reader) {
		bin_reader_end(d->reader);
		bin_reader_free(d->reader);
		bin_replay_free(d->replay);
		err = out->dump_failed ? -1 : 0;
	} else if (ENABLE_FORMAT_BIN) {
		/* the dump's key frames reset the reader: so does the writer */
		bin_writer_rekey(out->bin);
	}
	free(d);
	return err;
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
			if (ENABLE_SYMBOLIZE && out->procs)
				proc_syms_gc(out->procs);
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
		r->ustack = frames(out, r->key.user_stack, r->key.tgid, false,
				   &r->nu, &s->lost_ustacks, &r->uinlined);
		r->kstack = frames(out, r->key.kern_stack, r->key.tgid, true,
				   &r->nk, &s->lost_kstacks, NULL);
		r->other_ustack =
			frames(out, r->key.other_user_stack, r->key.other_tgid,
			       false, &r->other_nu, &s->lost_ustacks, NULL);
		r->other_kstack =
			frames(out, r->key.other_kern_stack, r->key.other_tgid,
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
	pool_clear(&out->names);
	if (ENABLE_SYMBOLIZE && out->procs)
		proc_syms_gc(out->procs);
	nspids_gc(out);
	if (fclose(out->f))
		error_exit("out of memory");
	out->f = NULL;
	if (len && emit(out, text, len))
		err = -1;
	free(text);
	out->dump_failed |= err != 0;
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
	if (ENABLE_SYMBOLIZE) {
		ksyms_free(out->ksyms);
		proc_syms_free(out->procs);
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
	pool_clear(&out->names);
	free(out->frame_buf);
	free(out->inlined_buf);
	free(out);
	free(path);
	return err;
}
