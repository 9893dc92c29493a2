// SPDX-License-Identifier: GPL-2.0
/* oncpu: CPU time per call stack, sampled with perf_event.
 *
//config:config ONCPU
//config:	bool "oncpu: CPU time per call stack"
//config:	default y
//config:	help
//config:	  Samples the stack on every CPU -F times a second (hardware
//config:	  cycles where there is a PMU, else the cpu-clock timer) and
//config:	  counts samples per stack.
//usage:usage: oncpu [-F HZ] [--idle] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Sample the call stacks running on each CPU and count samples per
//usage:stack. A sample stands for 1/HZ seconds of CPU time.
//usage:
//usage:  -F HZ            samples per second per CPU (default 49, at most 10000)
//usage:  --idle           count the idle task too
//usage:@COMMON
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "oncpu.skel.h"

struct oncpu_args {
	struct collect_opts common;
	long long hz;
	int idle;
	const char *event; /* the event that worked, for the header */
};

/*
 * The kernel's perf_event_max_sample_rate (100000 by default) does not
 * hold a software clock back: at 100 kHz a 2-CPU VM stopped answering
 * for 25 minutes. A sample costs 3 to 6 us here (the program's
 * run_time_ns over run_cnt), so 10 kHz takes 3 to 6 % of each CPU, and
 * a head unit's cores, a few times slower, keep most of theirs.
 */
#define MAX_HZ 10000

static const struct opt oncpu_opts[] = {
	OPT_INT('F', "freq", "HZ", struct oncpu_args, hz, 1, MAX_HZ, "49"),
	OPT_FLAG(0, "idle", struct oncpu_args, idle),
	OPT_INCLUDE(collect_options, struct oncpu_args, common),
	OPT_END,
};

static const struct metric oncpu_metrics[] = {
	{"samples", METRIC_COUNT, .measure = MEASURE_CPU_TIME},
};

SB_SKELETON(oncpu)

static int oncpu_configure(struct collector *c, void *skel, void *args)
{
	struct oncpu_args *a = args;

	((struct oncpu_bpf *)skel)->rodata->include_idle = a->idle;
	return 0;
}

/* Does the first CPU count cycles? Not without a PMU (most VMs say
 * ENOENT, EOPNOTSUPP or ENODEV); another refusal is the attach's to say. */
static bool cycles_here(struct collector *c, struct perf_event_attr *attr)
{
	int *cpus, fd;

	collect_ncpus(c, &cpus);
	fd = syscall(SYS_perf_event_open, attr, -1, cpus[0], -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != ENOENT && errno != EOPNOTSUPP && errno != ENODEV)
		return true;
	verbose("no hardware cycles event (%s): sampling with cpu-clock",
		strerror(errno));
	return false;
}

static void check_rate(long long hz)
{
	char *s =
		read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	long long max = s ? atoll(s) : 0;

	free(s);
	if (max && hz > max)
		error_exit("-F %lld: above kernel.perf_event_max_sample_rate "
			   "(%lld)",
			   hz, max);
}

/* One sampling event per online CPU: cycles if the CPU has a PMU. */
static int oncpu_attach(struct collector *c, void *skel, void *args)
{
	struct oncpu_args *a = args;
	struct bpf_program *prog =
		((struct oncpu_bpf *)skel)->progs.oncpu_sample;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.freq = 1,
		.sample_freq = a->hz,
	};
	int n;

	check_rate(a->hz);
	a->event = "cycles";
	if (!cycles_here(c, &attr)) {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		a->event = "cpu-clock";
	}
	n = collect_attach_per_cpu(c, prog, &attr, a->event);
	verbose("sampling %d CPUs at %lld Hz with %s", n, a->hz, a->event);
	return 0;
}

static __u64 oncpu_period_ns(struct collector *c, void *args)
{
	return NS_PER_SEC / ((struct oncpu_args *)args)->hz;
}

static void oncpu_describe(struct collector *c, void *args, char *buf,
			   size_t len)
{
	struct oncpu_args *a = args;

	snprintf(buf, len,
		 "value: samples of %s at %lld Hz per CPU; "
		 "1 sample = %.3f ms of CPU time",
		 a->event, a->hz, 1000.0 / a->hz);
}

static const char *const oncpu_stat_names[] = {
	"ms of CPU time not sampled (CPUs offline)",
	NULL,
};

static void oncpu_add_stats(struct collector *c, void *args, __u64 *stats)
{
	stats[0] += collect_unsampled_ns(c) / NS_PER_MS;
}

static const struct collector_ops oncpu_ops = {
	.features = (const enum sb_feature[]){SB_F_PERF_CYCLES, SB_F_END},
	.metrics = oncpu_metrics,
	.nmetrics = ARRAY_SIZE(oncpu_metrics),
	.per_thread = true,
	SB_SKELETON_OPS(oncpu),
	.configure = oncpu_configure,
	.attach = oncpu_attach,
	.period_ns = oncpu_period_ns,
	.describe = oncpu_describe,
	.stat_names = oncpu_stat_names,
	.add_stats = oncpu_add_stats,
};

static int oncpu_main(void *args, int argc, char **argv)
{
	struct oncpu_args *a = args;

	return collect_run(&oncpu_ops, &a->common, a, argc, argv);
}

APPLET_DEFINE(oncpu, oncpu_main, oncpu_opts, struct oncpu_args,
	      COLLECTORS(&oncpu_ops));
