// SPDX-License-Identifier: GPL-2.0
// layer: kernel
/*
 * The optional kernel features (common/kernel/kfeatures.c): the one line each
 * is refused with, and the probes' answers against the running kernel's
 * version, as root and as nobody (who must be told "needs root", never
 * a guess).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "kernel.h"
#include "kfeatures.h"
#include "stackbox.h"

static const struct {
	enum sb_feature f;
	const char *line;
} refusals[] = {
	{SB_F_BPF_LOOP, "bpf_loop needs Linux 5.17+: without it, --unwind "
			"eh_frame walks frame pointers"},
	{SB_F_FOR_EACH_MAP_ELEM,
	 "bpf_for_each_map_elem needs Linux 5.13+: without it, offcpu counts "
	 "a thread still blocked at a snapshot when it wakes, not in that "
	 "snapshot"},
	{SB_F_UPROBE_MULTI,
	 "uprobe_multi links needs Linux 6.6+ (CONFIG_UPROBES=y): without it, "
	 "memstack attaches a perf event uprobe per function, slower to "
	 "attach"},
	{SB_F_BTF,
	 "kernel BTF needs CONFIG_DEBUG_INFO_BTF=y (/sys/kernel/btf/vmlinux), "
	 "or a BTF file given with --btf FILE: without it, offcpu attaches "
	 "with the sched tracepoints, iostack does not split by descriptor "
	 "kind, rastack needs its tracepoints (Linux 6.10+), memstack ends a "
	 "process when its main thread exits"},
	{SB_F_PRIVS, "running BPF needs root, or CAP_BPF and CAP_PERFMON "
		     "(CAP_SYS_ADMIN before Linux 5.8): without it, no applet "
		     "can load its programs"},
	{SB_F_PERF_CYCLES,
	 "hardware cycles event needs a CPU PMU the kernel drives "
	 "(CONFIG_PERF_EVENTS=y and the CPU's PMU driver): without it, oncpu "
	 "samples with the cpu-clock timer"},
	{SB_F_PSI, "pressure stall information (/proc/pressure) needs Linux "
		   "5.2+ with CONFIG_PSI=y (and psi=1 with "
		   "CONFIG_PSI_DEFAULT_DISABLED=y): without it, pressure "
		   "triggers cannot be set"},
};

/* Since which kernel the verifier has it (mainline; a probe must agree). */
static const struct {
	enum sb_feature f;
	int major, minor;
} since[] = {
	{SB_F_RINGBUF, 5, 8},	   {SB_F_ATOMICS, 5, 12},
	{SB_F_PSEUDO_FUNC, 5, 13}, {SB_F_FOR_EACH_MAP_ELEM, 5, 13},
	{SB_F_BPF_LOOP, 5, 17},	   {SB_F_UPROBE_MULTI, 6, 6},
	{SB_F_PERF_COOKIE, 5, 15},
};

static void refusal_lines(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(refusals); i++)
		CHECK_STR(feature_name(refusals[i].f),
			  feature_refusal(refusals[i].f), refusals[i].line);
	for (enum sb_feature f = 0; f < SB_F_COUNT; f++) {
		const char *line = feature_refusal(f);
		char name[128];

		snprintf(name, sizeof(name),
			 "%s: one line naming it, its needs "
			 "and what is done without it",
			 feature_name(f));
		CHECK(name,
		      !strchr(line, '\n') &&
			      !strncmp(line, feature_name(f),
				       strlen(feature_name(f))) &&
			      strstr(line, feature_needs(f)) &&
			      strstr(line, ": without it, ") &&
			      strstr(line, feature_without(f)) &&
			      line == feature_refusal(f),
		      "\"%s\"", line);
	}
}

/* As root, the kernel's version says what its verifier has. */
static void answers_as_root(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	CHECK("as root: BPF privileges", feature_usable(SB_F_PRIVS),
	      "root cannot run BPF?");
	for (size_t i = 0; i < ARRAY_SIZE(since); i++) {
		char name[128];
		bool want =
			major > since[i].major ||
			(major == since[i].major && minor >= since[i].minor);

		if (!feature_built(since[i].f))
			continue;
		snprintf(name, sizeof(name), "as root on %d.%d: %s %s", major,
			 minor, feature_name(since[i].f),
			 want ? "is there" : "is not");
		CHECK_INT(name, feature_answer(since[i].f),
			  want ? FEATURE_YES : FEATURE_NO);
	}
	CHECK_INT("as root: kernel BTF as /sys/kernel/btf/vmlinux says",
		  feature_answer(SB_F_BTF),
		  access("/sys/kernel/btf/vmlinux", R_OK) ? FEATURE_NO
							  : FEATURE_YES);
	if (feature_built(SB_F_UPROBE_SESSION))
		CHECK_INT(
			"as root: uprobe sessions from 6.13, with kernel BTF "
			"(their kfuncs)",
			feature_answer(SB_F_UPROBE_SESSION),
			(major > 6 || (major == 6 && minor >= 13)) &&
					!access("/sys/kernel/btf/vmlinux", R_OK)
				? FEATURE_YES
				: FEATURE_NO);
	CHECK_INT("as root: PSI as /proc/pressure says",
		  feature_answer(SB_F_PSI),
		  access("/proc/pressure/memory", R_OK) ? FEATURE_NO
							: FEATURE_YES);
}

/* As nobody (a child): what loads BPF needs root to tell. The parent's
 * answers are cached, so the child asks in a fresh process image. */
static void answers_as_nobody(const char *self)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		execl(self, self, "--nobody", (char *)NULL);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	CHECK("as nobody: the child ran",
	      WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d",
	      status);
}

static int nobody(void)
{
	enum sb_feature loads[] = {SB_F_RINGBUF,     SB_F_ATOMICS,
				   SB_F_PSEUDO_FUNC, SB_F_FOR_EACH_MAP_ELEM,
				   SB_F_BPF_LOOP,    SB_F_FENTRY};

	CHECK_INT("as nobody: no BPF privileges", feature_answer(SB_F_PRIVS),
		  FEATURE_NO);
	for (size_t i = 0; i < ARRAY_SIZE(loads); i++) {
		char name[128];

		if (!feature_built(loads[i]))
			continue;
		snprintf(name, sizeof(name), "as nobody: %s needs root to tell",
			 feature_name(loads[i]));
		CHECK_INT(name, feature_answer(loads[i]), FEATURE_NEEDS_ROOT);
	}
	CHECK_INT("as nobody: kernel BTF is told (a readable file)",
		  feature_answer(SB_F_BTF),
		  access("/sys/kernel/btf/vmlinux", R_OK) ? FEATURE_NO
							  : FEATURE_YES);
	return check_failed ? 1 : 0;
}

/* Kernel functions by name: GCC's copies of a whole function (.isra.N,
 * .constprop.N) are it, its pieces (.part.N, .cold) are not; and the
 * running kernel's finish_task_switch, which offcpu's finish way probes,
 * is found as a symbol kallsyms lists, with its text after it. */
static void kernel_symbols(void)
{
	static const struct {
		const char *sym;
		bool is;
	} cases[] = {
		{"f", true},
		{"f.isra.0", true},
		{"f.constprop.12", true},
		{"f.part.0", false},
		{"f.cold", false},
		{"fg", false},
		{"f.isra.", false},
		{"f.isra.0x", false},
		{"g", false},
		{"f.isra.0.cold", false},
	};
	char as[1][KSYM_LEN], name[160];
	const char *fn = "finish_task_switch";
	unsigned long long lo = 0, hi = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "%s is f: %s", cases[i].sym,
			 cases[i].is ? "yes" : "no");
		CHECK_INT(name, ksym_is_function(cases[i].sym, "f"),
			  cases[i].is);
	}
	CHECK("kallsyms lists finish_task_switch, as itself or a copy",
	      kallsyms_have(&fn, 1, as) == 1 && ksym_is_function(as[0], fn),
	      "found as %s", as[0]);
	if (geteuid()) {
		SKIP("its text's addresses", "kallsyms shows them to root");
		return;
	}
	CHECK("its text has an address and ends at the next symbol",
	      kallsyms_text(as[0], &lo, &hi) && lo && hi > lo &&
		      hi - lo < 65536,
	      "%s at %llx..%llx", as[0], lo, hi);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--nobody"))
		return nobody();
	refusal_lines();
	kernel_symbols();
	if (geteuid()) {
		SKIP("feature probes", "needs root (as nobody they say so)");
		return 0;
	}
	answers_as_root();
	answers_as_nobody("/proc/self/exe");
	return 0;
}
