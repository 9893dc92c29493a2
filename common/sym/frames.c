// SPDX-License-Identifier: GPL-2.0
/* A stack's frames, named; see frames.h. */
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "kernel_names.h"
#include "sb.h"
#include "stacks.h"
#include "stackbox.h"
#include "syms.h"

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

	/* every kernel frame comes here: the first byte rules out most */
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (sym[0] == prefixes[i][0] &&
		    !strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* "[" a b "0x" v in hex "]" in the pool: what "[%s%s0x%llx]" prints,
 * without printf's two passes for every frame that has no name. */
static const char *hex_name(struct pool *p, const char *a, const char *b,
			    uint64_t v)
{
	size_t na = strlen(a), nb = strlen(b), nd = 1;
	char *s, *at;

	for (uint64_t x = v >> 4; x; x >>= 4)
		nd++;
	s = pool_alloc(p, na + nb + nd + 5);
	s[0] = '[';
	memcpy(s + 1, a, na);
	memcpy(s + 1 + na, b, nb);
	at = s + 1 + na + nb;
	*at++ = '0';
	*at++ = 'x';
	for (size_t i = nd; i--; v >>= 4)
		at[i] = "0123456789abcdef"[v & 15];
	at[nd] = ']';
	at[nd + 1] = 0;
	return s;
}

const char *frames_kernel_sym(struct frames *fr, __u64 ip)
{
	uint64_t off;

	/* the kernel names them, unless a recording brought its names */
	if (ENABLE_SYMBOLIZE && fr->knames && !fr->ksyms)
		return kernel_names_lookup(fr->knames, ip);
	/* loaded at the first kernel frame, not before CMD may start */
	if (ENABLE_SYMBOLIZE && !fr->ksyms_tried) {
		fr->ksyms_tried = true;
		fr->ksyms = ksyms_load("/proc/kallsyms");
		if (!fr->ksyms)
			perror_msg("/proc/kallsyms: kernel frames will be "
				   "addresses");
	}
	if (ENABLE_SYMBOLIZE && fr->ksyms)
		return ksyms_lookup(fr->ksyms, ip, &off);
	return NULL;
}

static const char *kernel_frame(struct frames *fr, __u64 ip)
{
	const char *sym = frames_kernel_sym(fr, ip);

	return sym ? sym : hex_name(&fr->names, "kernel ", "", ip);
}

/*
 * The names of one user address into f, root first: its function, then
 * the calls inlined into it there, outermost first. A return address
 * (ret) is looked up one byte back, in its call instruction: the next
 * instruction may be another inlined call's. Returns how many, each
 * marked in inlined[] when it is a call inlined into the one before.
 */
static unsigned user_frame(struct frames *fr, __u32 tgid, __u64 ip, bool ret,
			   const char **f, bool *inlined)
{
	struct usym u = {0};
	unsigned n = 0;

	if (ENABLE_SYMBOLIZE && fr->procs) {
		if (!proc_syms_lookup(fr->procs, tgid, ip - ret, &u)) {
			inlined[n] = false;
			f[n++] = pool_strdup(&fr->names, u.sym);
			while (u.ninlined) {
				inlined[n] = true;
				f[n++] = pool_strdup(&fr->names,
						     u.inlined[--u.ninlined]);
			}
			return n;
		}
		fr->unnamed++;
		if (u.module) {
			f[0] = hex_name(&fr->names, u.module, "+",
					u.module_off + ret);
			inlined[0] = false;
			return 1;
		}
	}
	f[0] = hex_name(&fr->names, "", "", ip);
	inlined[0] = false;
	return 1;
}

/*
 * A frame-pointer walk through code without frame pointers reads data as
 * return addresses. Where the process's code is known, a return address
 * outside it ends the stack: nothing past it is real.
 */
static unsigned user_depth(struct frames *fr, __u32 tgid, const __u64 *ip,
			   unsigned depth)
{
	if (!proc_syms_mapped(fr->procs, tgid, ip[0]))
		return depth; /* nothing known of it: keep what there is */
	for (unsigned i = 1; i < depth; i++)
		if (!proc_syms_mapped(fr->procs, tgid, ip[i]))
			return i;
	return depth;
}

const char **frames_of(struct frames *fr, __u64 id, __u32 tgid, bool kernel,
		       unsigned *n, __u64 *lost, const bool **inlined)
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
				 : stack_cache_get(fr->stacks, id, &depth);
	if (!ip) {
		/* BPF counted SB_STACK_LOST; an id gone from the cache is ours */
		*lost += id != SB_STACK_LOST;
		f = pool_alloc(&fr->names, sizeof(*f));
		f[0] = kernel ? "[kernel stack lost]" : "[user stack lost]";
		*n = 1;
		return f;
	}
	if (ENABLE_SYMBOLIZE && !kernel && fr->procs)
		depth = user_depth(fr, tgid, ip, depth);
	repair = ENABLE_SYMBOLIZE && !kernel && fr->procs && depth >= 2 &&
		 !proc_syms_lost_caller(fr->procs, tgid, ip[0], ip[1], &caller);
	/* a user address may name several frames (inlined calls) */
	max = (depth + 1) * (kernel ? 1 : 1 + USYM_INLINE_MAX);
	f = fr->frame_buf =
		grow_array(fr->frame_buf, &fr->frame_cap, max, sizeof(*f));
	inl = kernel ? NULL
		     : (fr->inlined_buf =
				grow_array(fr->inlined_buf, &fr->inlined_cap,
					   max, sizeof(*inl)));
	/* ip[] is leaf first; frames are root first */
	for (unsigned i = 0; i < depth; i++) {
		__u64 at = ip[depth - 1 - i];

		if (kernel) {
			f[*n] = kernel_frame(fr, at);
			if (own_frame(f[*n]))
				break;
			++*n;
			continue;
		}
		if (repair && i == depth - 1)
			*n += user_frame(fr, tgid, caller, false, f + *n,
					 inl + *n);
		*n += user_frame(fr, tgid, at, i < depth - 1, f + *n, inl + *n);
	}
	/* kept as long as the snapshot, so no bigger than it needs */
	if (inl && inlined && memchr(inl, true, *n))
		*inlined = pool_memdup(&fr->names, inl, *n * sizeof(*inl));
	return pool_memdup(&fr->names, f, (*n ? *n : 1) * sizeof(*f));
}

void frames_clear(struct frames *fr)
{
	pool_reset(&fr->names);
}

void frames_free(struct frames *fr)
{
	if (ENABLE_SYMBOLIZE) {
		ksyms_free(fr->ksyms);
		proc_syms_free(fr->procs);
	}
	pool_clear(&fr->names);
	free(fr->frame_buf);
	free(fr->inlined_buf);
}
