// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU taken offline (an SoC saving power, a thermal limit) takes its
 * perf events out of its context for good: back online, it would go
 * unsampled for the rest of the run. So the online CPUs are read again
 * (once a second, percpu_poll): a CPU gone has its link closed, and
 * the CPU time until it is back is counted as not sampled; a CPU back
 * gets a new event. A CPU's time is counted from when it was seen gone,
 * so up to a poll's second of it is not.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "percpu.h"
#include "sink.h"
#include "stackbox.h"

struct percpu_events {
	struct bpf_program *prog;
	struct perf_event_attr attr;
	const char *event;
	int ncpus;		/* possible CPUs */
	struct bpf_link **link; /* per CPU; NULL: not attached */
	__u64 *gone;		/* per CPU: counted as not sampled since */
	__u64 unsampled;	/* ns, since percpu_unsampled */
};

static struct bpf_link *attach_one(struct percpu_events *p, int cpu)
{
	int fd = syscall(SYS_perf_event_open, &p->attr, -1, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);
	struct bpf_link *l;

	if (fd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(p->prog, fd);
	if (!l)
		close(fd);
	return l;
}

struct percpu_events *percpu_attach(struct bpf_program *prog,
				    const struct perf_event_attr *attr,
				    const char *event, const int *cpus, int n)
{
	struct percpu_events *p = xzalloc(sizeof(*p));
	int possible = libbpf_num_possible_cpus();

	p->prog = prog;
	p->attr = *attr;
	p->event = event;
	p->ncpus = possible > 0 ? possible : 1;
	for (int i = 0; i < n; i++)
		if (cpus[i] >= p->ncpus)
			p->ncpus = cpus[i] + 1;
	p->link = xzalloc(p->ncpus * sizeof(*p->link));
	p->gone = xzalloc(p->ncpus * sizeof(*p->gone));
	for (int i = 0; i < n; i++) {
		p->link[cpus[i]] = attach_one(p, cpus[i]);
		if (!p->link[cpus[i]])
			perror_exit("attaching to the %s event of CPU %d",
				    event, cpus[i]);
	}
	return p;
}

static void gone(struct percpu_events *p, int cpu, __u64 now)
{
	bpf_link__destroy(p->link[cpu]);
	p->link[cpu] = NULL;
	p->gone[cpu] = now;
	error_msg("CPU %d went offline: not sampled while it is", cpu);
	status_say("CPU %d went offline: not sampled while it is", cpu);
}

static void back(struct percpu_events *p, int cpu, __u64 now)
{
	p->link[cpu] = attach_one(p, cpu);
	if (!p->link[cpu]) { /* the next poll tries again */
		verbose("CPU %d is online again, its %s event not yet: %s", cpu,
			p->event, strerror(errno));
		return;
	}
	if (p->gone[cpu])
		p->unsampled += now - p->gone[cpu];
	p->gone[cpu] = 0;
	error_msg("CPU %d is online again: sampled again", cpu);
	status_say("CPU %d is online again: sampled again", cpu);
}

void percpu_poll(struct percpu_events *p, __u64 now)
{
	int *cpus, n = kernel_online_cpus(&cpus);
	bool *online = xzalloc(p->ncpus * sizeof(*online));

	for (int i = 0; i < n; i++)
		if (cpus[i] < p->ncpus)
			online[cpus[i]] = true;
	for (int cpu = 0; cpu < p->ncpus; cpu++)
		if (p->link[cpu] && !online[cpu])
			gone(p, cpu, now);
		else if (!p->link[cpu] && online[cpu])
			back(p, cpu, now);
	free(online);
	free(cpus);
}

__u64 percpu_unsampled(struct percpu_events *p, __u64 now)
{
	__u64 ns = p->unsampled;

	for (int cpu = 0; cpu < p->ncpus; cpu++)
		if (p->gone[cpu]) {
			ns += now - p->gone[cpu];
			p->gone[cpu] = now;
		}
	p->unsampled = 0;
	return ns;
}

void percpu_free(struct percpu_events *p)
{
	if (!p)
		return;
	for (int cpu = 0; cpu < p->ncpus; cpu++)
		bpf_link__destroy(p->link[cpu]);
	free(p->link);
	free(p->gone);
	free(p);
}
