// SPDX-License-Identifier: GPL-2.0
/*
 * The optional kernel features (see kfeatures.h): one table of what each
 * needs and what is done without it, and the probe that tells. Probes
 * load the smallest program that uses the feature, as libbpf's own
 * probes do; where loading needs privileges this user lacks, the answer
 * is "needs root to tell".
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "kfeatures.h"
#include "kuprobe.h"
#include "privs.h"
#include "stackbox.h"

static enum feature_answer answer(bool yes)
{
	return yes ? FEATURE_YES : FEATURE_NO;
}

static enum feature_answer probe_ringbuf(void)
{
	return answer(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) ==
		      1);
}

/* kernel types for layouts, from any source (kbtf_layouts()); tp_btf and
 * fentry ask for the kernel's own (KF_BTF, SB_F_FENTRY) */
static enum feature_answer probe_btf(void)
{
	return answer(kbtf_layouts());
}

/* r0 = 0; exit */
#define RETURN_0                                                     \
	{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0}, \
	{                                                            \
		.code = BPF_JMP | BPF_EXIT                           \
	}

static bool loads(enum bpf_prog_type type, const struct bpf_insn *insns,
		  size_t n, const struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, NULL, "GPL", insns, n, opts);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The capabilities, and a tracing program loads: root in a container
 * may have the first without the second. */
static enum feature_answer probe_privs(void)
{
	const struct bpf_insn insns[] = {RETURN_0};

	return answer(privs_can_bpf() && loads(BPF_PROG_TYPE_TRACEPOINT, insns,
					       ARRAY_SIZE(insns), NULL));
}

/* atomic fetch-or (rastack) came with xchg and cmpxchg (offcpu), 5.12 */
static enum feature_answer probe_atomics(void)
{
	const struct bpf_insn insns[] = {
		/* *(u64 *)(r10 - 8) = 0 */
		{.code = BPF_ST | BPF_MEM | BPF_DW,
		 .dst_reg = BPF_REG_10,
		 .off = -8},
		/* r1 = 1 */
		{.code = BPF_ALU64 | BPF_MOV | BPF_K,
		 .dst_reg = BPF_REG_1,
		 .imm = 1},
		/* r1 = atomic_fetch_or((u64 *)(r10 - 8), r1) */
		{.code = BPF_STX | BPF_ATOMIC | BPF_DW,
		 .dst_reg = BPF_REG_10,
		 .src_reg = BPF_REG_1,
		 .off = -8,
		 .imm = BPF_OR | BPF_FETCH},
		RETURN_0,
	};

	return answer(loads(BPF_PROG_TYPE_SOCKET_FILTER, insns,
			    ARRAY_SIZE(insns), NULL));
}

/* A callback's address in a register, as bpf_loop's and
 * bpf_for_each_map_elem's callers take it: the kernel wants BTF func
 * info naming the callback static. */
static enum feature_answer probe_pseudo_func(void)
{
	const struct bpf_insn insns[] = {
		/* r2 = &callback (4: 0 + 3 + 1) */
		{.code = BPF_LD | BPF_DW | BPF_IMM,
		 .dst_reg = BPF_REG_2,
		 .src_reg = BPF_PSEUDO_FUNC,
		 .imm = 3},
		{0},
		RETURN_0,
		RETURN_0, /* the callback */
	};
	struct bpf_func_info info[2] = {{0}, {4}};
	struct btf *btf = btf__new_empty();
	int proto = btf__add_func_proto(
		btf, btf__add_int(btf, "int", 4, BTF_INT_SIGNED));
	bool ok;

	info[0].type_id = btf__add_func(btf, "prog", BTF_FUNC_STATIC, proto);
	info[1].type_id =
		btf__add_func(btf, "callback", BTF_FUNC_STATIC, proto);
	if (btf__load_into_kernel(btf)) {
		btf__free(btf);
		return FEATURE_NO; /* BTF for programs: 5.1, before callbacks */
	}
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_btf_fd = btf__fd(btf),
		    .func_info = info, .func_info_cnt = 2,
		    .func_info_rec_size = sizeof(info[0]));
	ok = loads(BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns),
		   &opts);
	btf__free(btf);
	return answer(ok);
}

static enum feature_answer probe_for_each_map_elem(void)
{
	return answer(libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					      BPF_FUNC_for_each_map_elem,
					      NULL) == 1);
}

/* the map type; the tracing programs that use it (5.12) come after it
 * and before the programs offcpu's switch-in way needs (5.15) */
static enum feature_answer probe_task_storage(void)
{
	return answer(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE,
						NULL) == 1);
}

static enum feature_answer probe_bpf_loop(void)
{
	return answer(libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT,
					      BPF_FUNC_loop, NULL) == 1);
}

/* the helper and the perf event links that carry the cookie came
 * together (5.15) */
static enum feature_answer probe_perf_cookie(void)
{
	return answer(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					      BPF_FUNC_get_attach_cookie,
					      NULL) == 1);
}

static enum feature_answer probe_uprobe_multi(void)
{
	return answer(uprobe_multi_attach_type() > 0);
}

static enum feature_answer probe_uprobe_session(void)
{
	return answer(uprobe_session_attach_type() > 0);
}

static enum feature_answer probe_kprobes(void)
{
	return kprobes_answer();
}

/*
 * fentry needs BPF trampolines (x86_64 5.5, arm64 6.0): attach to
 * bpf_fentry_test1, which only BPF_PROG_TEST_RUN calls. Without that
 * function in BTF, the kernel's BTF is all that can be told.
 */
static enum feature_answer probe_fentry(void)
{
	bool btf = kbtf_layouts();
	int id = btf ? kbtf_func_id("bpf_fentry_test1") : -1;
	const struct bpf_insn insns[] = {RETURN_0};
	int prog, link;

	if (!btf)
		return FEATURE_NO;
	if (id <= 0)
		return FEATURE_YES;
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			     ARRAY_SIZE(insns), &opts);
	if (prog < 0)
		return FEATURE_NO;
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link >= 0)
		close(link);
	close(prog);
	return answer(link >= 0);
}

/* A counter of this thread's cycles: no sampling, no privileges beyond
 * perf_event_paranoid's default. */
static enum feature_answer probe_perf_cycles(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return FEATURE_YES;
	}
	return errno == EACCES || errno == EPERM ? FEATURE_NEEDS_ROOT
						 : FEATURE_NO;
}

static enum feature_answer probe_psi(void)
{
	return answer(!access("/proc/pressure/memory", R_OK));
}

/*
 * The table. without is what stackbox does when the feature is missing,
 * as a clause for "NAME needs NEEDS: without it, WITHOUT". built: the
 * configuration has what uses it; check leaves out the others.
 */
static const struct feature {
	const char *name, *needs, *without;
	enum feature_answer (*probe)(void);
	bool built;
	bool required; /* without it no applet runs */
	bool loads;    /* the probe loads BPF: privileges first */
	const char *hook, *way, *way_without; /* an applet's own attach */
} features[SB_F_COUNT] = {
	[SB_F_PRIVS] = {"running BPF",
			"root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN "
			"before Linux 5.8)",
			"no applet can load its programs", probe_privs, true,
			.required = true},
	[SB_F_RINGBUF] = {"BPF ring buffer",
			  "Linux 5.8+ (CONFIG_BPF_SYSCALL=y)",
			  "no applet's programs load", probe_ringbuf, true,
			  .required = true, .loads = true},
	[SB_F_BTF] = {"kernel BTF",
		      "CONFIG_DEBUG_INFO_BTF=y (/sys/kernel/btf/vmlinux), or "
		      "a BTF file given with --btf FILE",
		      "offcpu attaches with the sched tracepoints, iostack "
		      "does not split by descriptor kind, rastack needs its "
		      "tracepoints (Linux 6.10+), memstack ends a process "
		      "when its main thread exits",
		      probe_btf, true},
	[SB_F_ATOMICS] = {"BPF atomics", "Linux 5.12+",
			  "offcpu counts a thread still blocked at a "
			  "snapshot when it wakes, rastack's concurrent "
			  "readaheads of one run may lose a page's tracking",
			  probe_atomics, ENABLE_OFFCPU || ENABLE_RASTACK,
			  .loads = true},
	[SB_F_PSEUDO_FUNC] = {"BPF callbacks (BPF_PSEUDO_FUNC)", "Linux 5.13+",
			      "the legacy programs load (CONFIG_BPF_LEGACY): "
			      "neither bpf_for_each_map_elem nor bpf_loop "
			      "can be used",
			      probe_pseudo_func, true, .loads = true,
			      /* without the legacy programs none loads */
			      .required = !ENABLE_BPF_LEGACY},
	[SB_F_FOR_EACH_MAP_ELEM] = {"bpf_for_each_map_elem", "Linux 5.13+",
				    "offcpu counts a thread still blocked at "
				    "a snapshot when it wakes, not in that "
				    "snapshot",
				    probe_for_each_map_elem, ENABLE_OFFCPU,
				    .loads = true},
	[SB_F_BPF_LOOP] = {"bpf_loop", "Linux 5.17+",
			   "--unwind eh_frame walks frame pointers",
			   probe_bpf_loop, ENABLE_UNWIND_EH_FRAME,
			   .loads = true},
	[SB_F_UPROBE_MULTI] = {"uprobe_multi links",
			       "Linux 6.6+ (CONFIG_UPROBES=y)",
			       "memstack attaches a perf event uprobe per "
			       "function, slower to attach",
			       probe_uprobe_multi, ENABLE_MEMSTACK,
			       .loads = true, "allocator uprobes",
			       "uprobe_multi", "perf uprobes"},
	[SB_F_UPROBE_SESSION] = {"uprobe sessions",
				 "Linux 6.13+ (CONFIG_UPROBES=y) and kernel "
				 "BTF",
				 "memstack -s probes every allocating call's "
				 "return, sampled or not",
				 probe_uprobe_session, ENABLE_MEMSTACK,
				 .loads = true, "allocator returns (-s)",
				 "session", "uretprobe"},
	[SB_F_PERF_COOKIE] = {"BPF cookies on perf event links", "Linux 5.15+",
			      "memstack's perf event uprobes run a program "
			      "per function, each passing its call to one by "
			      "tail call",
			      probe_perf_cookie, ENABLE_MEMSTACK,
			      .loads = true},
	[SB_F_KPROBES] = {"kprobes", "CONFIG_KPROBES=y, CONFIG_KPROBE_EVENTS=y",
			  "rastack attaches with its tracepoints (Linux "
			  "6.10+) or fentry",
			  probe_kprobes, ENABLE_RASTACK || ENABLE_STACKCOUNT},
	[SB_F_FENTRY] = {"fentry",
			 "kernel BTF and BPF trampolines "
			 "(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y; arm64: "
			 "Linux 6.0+)",
			 "rastack attaches with its tracepoints (Linux 6.10+) "
			 "or kprobes",
			 probe_fentry, ENABLE_RASTACK || ENABLE_STACKCOUNT,
			 .loads = true},
	[SB_F_PERF_CYCLES] = {"hardware cycles event",
			      "a CPU PMU the kernel drives "
			      "(CONFIG_PERF_EVENTS=y and the CPU's PMU "
			      "driver)",
			      "oncpu samples with the cpu-clock timer",
			      probe_perf_cycles, ENABLE_ONCPU, false, false,
			      "perf_event sampling", "cycles", "cpu-clock"},
	[SB_F_PSI] = {"pressure stall information (/proc/pressure)",
		      "Linux 5.2+ with CONFIG_PSI=y (and psi=1 with "
		      "CONFIG_PSI_DEFAULT_DISABLED=y)",
		      "pressure triggers cannot be set", probe_psi, true},
	[SB_F_TASK_STORAGE] = {"task-local storage",
			       "Linux 5.11+ (BPF_MAP_TYPE_TASK_STORAGE; 5.11 "
			       "needs CONFIG_BPF_LSM=y)",
			       "offcpu's switch-in way keeps blocks under way "
			       "in a hash by thread id",
			       probe_task_storage, ENABLE_OFFCPU,
			       .loads = true},
};

enum feature_answer feature_answer(enum sb_feature f)
{
	static unsigned char known[SB_F_COUNT]; /* answer + 1; 0: not yet */
	const struct feature *ft = &features[f];

	static const char *const said[] = {"no", "yes", "needs root to tell"};

	if (!known[f]) {
		known[f] = 1 + (!ft->built ? FEATURE_NO
				: ft->loads && !feature_usable(SB_F_PRIVS)
					? FEATURE_NEEDS_ROOT
					: ft->probe());
		verbose("kernel feature %s: %s", ft->name, said[known[f] - 1]);
	}
	return known[f] - 1;
}

bool feature_usable(enum sb_feature f)
{
	return feature_answer(f) == FEATURE_YES;
}

bool feature_built(enum sb_feature f)
{
	return features[f].built;
}

bool feature_required(enum sb_feature f)
{
	return features[f].required;
}

const char *feature_name(enum sb_feature f)
{
	return features[f].name;
}

const char *feature_needs(enum sb_feature f)
{
	return features[f].needs;
}

const char *feature_without(enum sb_feature f)
{
	return features[f].without;
}

const char *feature_refusal(enum sb_feature f)
{
	static char line[SB_F_COUNT][512];

	if (!line[f][0])
		snprintf(line[f], sizeof(line[f]),
			 "%s needs %s: without it, %s", features[f].name,
			 features[f].needs, features[f].without);
	return line[f];
}

const char *feature_hook(enum sb_feature f)
{
	return features[f].hook;
}

const char *feature_way(enum sb_feature f, bool with)
{
	return with ? features[f].way : features[f].way_without;
}

enum feature_answer kernel_offers(enum kernel_feature feature,
				  const char *category, const char *name)
{
	switch (feature) {
	case KF_NONE:
		return FEATURE_YES;
	case KF_BTF:
		return kbtf_available() ? FEATURE_YES : FEATURE_NO;
	case KF_LAYOUT:
		return kbtf_layouts() ? FEATURE_YES : FEATURE_NO;
	case KF_TRACEPOINT:
		return tracepoint_answer(category, name);
	case KF_FENTRY: /* the function, and trampolines to attach to it */
		return !kbtf_has_func(name) ? FEATURE_NO
					    : feature_answer(SB_F_FENTRY);
	case KF_KPROBE: /* kprobes first: a pass over kallsyms costs more */
		return feature_answer(SB_F_KPROBES) == FEATURE_NO ||
				       !kallsyms_have(&name, 1, NULL)
			       ? FEATURE_NO
			       : feature_answer(SB_F_KPROBES);
	}
	return FEATURE_NO;
}
