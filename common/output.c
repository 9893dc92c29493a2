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

#include "cgroup.h"
#include "output.h"
#include "output_sink.h"
#include "stacks.h"
#include "syms.h"

struct output {
	FILE *f;
	const char *path;
	int format;
	long long top;
	struct stack_cache *stacks;
	struct ksyms *ksyms;
	bool ksyms_tried;
	struct proc_syms *procs;
	char **strings; /* this snapshot's frame names */
	size_t nstrings, strings_cap;
};

struct output *output_open(const struct collect_opts *o)
{
	struct output *out = xzalloc(sizeof(*out));

	out->f = stdout;
	out->path = "standard output";
	if (ENABLE_SINK_FILE && o->output && strcmp(o->output, "-")) {
		out->f = fopen(o->output, "w");
		if (!out->f)
			perror_exit("-o %s", o->output);
		out->path = o->output;
	}
	out->format = o->format;
	out->top = o->top;
	if (ENABLE_SYMBOLIZE)
		out->procs = proc_syms_new("/proc");
	return out;
}

void output_set_stacks(struct output *out, struct stack_cache *stacks)
{
	out->stacks = stacks;
}

struct proc_syms *output_procs(struct output *out)
{
	return out->procs;
}

static const char *keep(struct output *out, char *s)
{
	out->strings = grow_array(out->strings, &out->strings_cap,
				  out->nstrings + 1, sizeof(char *));
	out->strings[out->nstrings++] = s;
	return s;
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
		"get_perf_callchain", "bpf_overflow_handler",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static const char *kernel_frame(struct output *out, __u64 ip)
{
	uint64_t off;
	const char *sym = NULL;

	/* loaded at the first kernel frame, not before CMD may start */
	if (ENABLE_SYMBOLIZE && !out->ksyms_tried) {
		out->ksyms_tried = true;
		out->ksyms = ksyms_load("/proc/kallsyms");
		if (!out->ksyms)
			perror_msg("/proc/kallsyms: kernel frames will be "
				   "addresses");
	}
	if (ENABLE_SYMBOLIZE && out->ksyms)
		sym = ksyms_lookup(out->ksyms, ip, &off);
	return sym ? sym
		   : keep(out,
			  xasprintf("[kernel 0x%llx]", (unsigned long long)ip));
}

static const char *user_frame(struct output *out, __u32 tgid, __u64 ip)
{
	struct usym u = {0};

	if (ENABLE_SYMBOLIZE && out->procs) {
		if (!proc_syms_lookup(out->procs, tgid, ip, &u))
			return keep(out, xstrdup(u.sym));
		if (u.module)
			return keep(
				out,
				xasprintf("[%s+0x%llx]", u.module,
					  (unsigned long long)u.module_off));
	}
	return keep(out, xasprintf("[0x%llx]", (unsigned long long)ip));
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

/* Frames root to leaf for one stack id; *n = 0 when there is none. */
static const char **frames(struct output *out, __u64 id, __u32 tgid,
			   bool kernel, unsigned *n, __u64 *lost)
{
	const __u64 *ip;
	const char **f;
	unsigned depth;
	uint64_t caller;
	bool repair;

	*n = 0;
	if (id == SB_STACK_NONE)
		return NULL;
	ip = id == SB_STACK_LOST ? NULL
				 : stack_cache_get(out->stacks, id, &depth);
	if (!ip) {
		/* BPF counted SB_STACK_LOST; an id gone from the cache is ours */
		*lost += id != SB_STACK_LOST;
		f = xmalloc(sizeof(*f));
		f[0] = kernel ? "[kernel stack lost]" : "[user stack lost]";
		keep(out, (char *)f);
		*n = 1;
		return f;
	}
	if (ENABLE_SYMBOLIZE && !kernel && out->procs)
		depth = user_depth(out, tgid, ip, depth);
	repair =
		ENABLE_SYMBOLIZE && !kernel && out->procs && depth >= 2 &&
		!proc_syms_lost_caller(out->procs, tgid, ip[0], ip[1], &caller);
	f = xmalloc((depth + 1) * sizeof(*f));
	keep(out, (char *)f);
	/* ip[] is leaf first; frames are root first */
	for (unsigned i = 0; i < depth; i++) {
		const char *name =
			kernel ? kernel_frame(out, ip[depth - 1 - i])
			       : user_frame(out, tgid, ip[depth - 1 - i]);
		if (kernel && own_frame(name))
			break;
		if (repair && i == depth - 1)
			f[(*n)++] = user_frame(out, tgid, caller);
		f[(*n)++] = name;
	}
	return f;
}

static int by_value(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? 1 : -1;
	return x->key.tgid < y->key.tgid ? -1 : x->key.tgid > y->key.tgid;
}

int output_snapshot(struct output *out, struct snapshot *s)
{
	cgroup_names_refresh();
	for (size_t i = 0; i < s->nrows; i++) {
		struct row *r = &s->rows[i];

		r->ustack = frames(out, r->key.user_stack, r->key.tgid, false,
				   &r->nu, &s->lost_ustacks);
		r->kstack = frames(out, r->key.kern_stack, r->key.tgid, true,
				   &r->nk, &s->lost_kstacks);
		r->other_ustack =
			frames(out, r->key.other_user_stack, r->key.other_tgid,
			       false, &r->other_nu, &s->lost_ustacks);
		r->other_kstack =
			frames(out, r->key.other_kern_stack, r->key.other_tgid,
			       true, &r->other_nk, &s->lost_kstacks);
		r->cgroup = cgroup_path(r->key.cgroup);
		for (unsigned m = 0; m < s->nmetrics; m++)
			s->total[m] += r->v[m];
	}
	qsort(s->rows, s->nrows, sizeof(*s->rows), by_value);
	if (ENABLE_FORMAT_TEXT && out->format == FORMAT_TEXT)
		format_text(out->f, s, out->top);
	else if (ENABLE_FORMAT_FOLDED && out->format == FORMAT_FOLDED)
		format_folded(out->f, s);
	for (size_t i = 0; i < out->nstrings; i++)
		free(out->strings[i]);
	out->nstrings = 0;
	if (ENABLE_SYMBOLIZE && out->procs)
		proc_syms_gc(out->procs);
	if (fflush(out->f) || ferror(out->f)) {
		perror_msg("writing %s", out->path);
		return -1;
	}
	return 0;
}

int output_close(struct output *out)
{
	int err = 0;

	if (fflush(out->f) || ferror(out->f) ||
	    (out->f != stdout && fclose(out->f))) {
		perror_msg("writing %s", out->path);
		err = -1;
	}
	if (ENABLE_SYMBOLIZE) {
		ksyms_free(out->ksyms);
		proc_syms_free(out->procs);
	}
	free(out->strings);
	free(out);
	return err;
}
