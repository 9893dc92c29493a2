/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel features applets use where the kernel has them, and the
 * words for each: what it needs (a version, a CONFIG_ option) and what
 * stackbox does without it. Applets, the core and `stackbox check` take
 * their answers and their refusal lines from here, so a feature is
 * refused in the same words everywhere:
 *
 *	if (!feature_usable(SB_F_BPF_LOOP))
 *		error_msg("%s", feature_refusal(SB_F_BPF_LOOP));
 *
 * prints "bpf_loop needs Linux 5.17+: without it, --unwind eh_frame
 * walks frame pointers". Each probe runs once a run (the answer is
 * kept); probes that load BPF answer FEATURE_NEEDS_ROOT without the
 * privileges to load it, never a guess.
 */
#ifndef STACKBOX_KFEATURES_H
#define STACKBOX_KFEATURES_H

#include <stdbool.h>

#include "kernel.h"

enum sb_feature {
	SB_F_PRIVS,	  /* root, or CAP_BPF + CAP_PERFMON: required */
	SB_F_RINGBUF,	  /* BPF ring buffer (5.8): required */
	SB_F_BTF,	  /* kernel BTF: tp_btf, raw_tp, fentry, layouts */
	SB_F_ATOMICS,	  /* BPF atomic fetch, xchg, cmpxchg (5.12) */
	SB_F_PSEUDO_FUNC, /* BPF_PSEUDO_FUNC callbacks (5.13) */
	SB_F_FOR_EACH_MAP_ELEM, /* bpf_for_each_map_elem (5.13) */
	SB_F_BPF_LOOP,		/* bpf_loop (5.17): --unwind eh_frame */
	SB_F_UPROBE_MULTI,	/* uprobe_multi links (6.6): memstack */
	SB_F_UPROBE_SESSION,	/* uprobe sessions (6.13): memstack -s */
	SB_F_PERF_COOKIE,	/* BPF cookies on perf event links (5.15) */
	SB_F_KPROBES,		/* kprobes: rastack before 6.10 */
	SB_F_FENTRY,		/* fentry through BPF trampolines */
	SB_F_PERF_CYCLES,	/* hardware cycles: oncpu */
	SB_F_PSI,		/* /proc/pressure (5.2, CONFIG_PSI) */
	SB_F_TASK_STORAGE,	/* task-local storage maps (5.11): offcpu */
	SB_F_COUNT,
	SB_F_END = SB_F_COUNT, /* ends a list of features */
};

/* The probe's answer, probed on the first call of the run. */
enum feature_answer feature_answer(enum sb_feature f);
/* Is it there? (FEATURE_YES; a caller without root gets false.) */
bool feature_usable(enum sb_feature f);
/* Does this build have what uses it? (check leaves out the others) */
bool feature_built(enum sb_feature f);
/* Without it no applet runs: privileges, the ring buffer (and BPF
 * callbacks while every program carries the eh_frame ones). */
bool feature_required(enum sb_feature f);
/* "bpf_loop", "kernel BTF". */
const char *feature_name(enum sb_feature f);
/* What it needs: "Linux 5.17+", "CONFIG_KPROBES=y". */
const char *feature_needs(enum sb_feature f);
/* What stackbox does without it: "--unwind eh_frame walks frame
 * pointers". */
const char *feature_without(enum sb_feature f);
/* One line naming the feature, what it needs and what is done instead:
 * "NAME needs NEEDS: without it, WITHOUT". No newline; static; asks
 * no probe, so it is the same on every kernel. */
const char *feature_refusal(enum sb_feature f);
/* For an applet's own attach choice (oncpu's event, memstack's
 * uprobes): what it attaches to, and the way with the feature and
 * without it; NULL for features that are no way to attach. */
const char *feature_hook(enum sb_feature f);
const char *feature_way(enum sb_feature f, bool with);

/* What an attach alternative needs (see attach_alt), here: kernel
 * functions, tracepoints, BTF, and the features above; FEATURE_NEEDS_ROOT
 * where this user cannot tell (stackbox check without root). kallsyms
 * answers are cached by the caller. */
enum feature_answer kernel_offers(enum kernel_feature feature,
				  const char *category, const char *name);

#endif
