// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU taken offline (an SoC saving power, a thermal limit) takes its
 * perf events out of its context for good: back online, it would go
 * unsampled for the rest of the run. So the online CPUs are read again
 * (once a second, percpu_poll): a CPU gone has its link closed, and
 * the CPU time until it is back is counted as not sampled; a CPU back
 * gets a new event. A CPU's time is counted from when it was seen gone,
 * so up to a poll's second of it is not.
 *
 * A CPU can also go and come back between two polls: a suspend to RAM
 * takes every CPU but the boot one down and up while user space is
 * frozen. Its event is then dead though the CPU is online: its enabled
 * time stands still. An event whose enabled time did not grow at all
 * over a poll is opened again, and that poll's time, with what the
 * poll before fell short of it, counted as not sampled. (Not less
 * growth than the poll's time: the perf clock can stop where
 * CLOCK_MONOTONIC runs on, as in 5.10 arm64's s2idle.)
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
	int *fd;		/* per CPU: the link's event */
	__u64 *enabled;		/* per CPU: its enabled time, ns, at... */
	__u64 *read_at;		/* ...this CLOCK_MONOTONIC time */
	__u64 *shortfall;	/* per CPU: ns of the last poll not enabled */
	__u64 *gone;		/* per CPU: counted as not sampled since */
	__u64 unsampled;	/* ns, since percpu_unsampled */
};

/* The event's enabled time, ns; 0: unreadable */
static __u64 enabled_ns(int fd)
{
	__u64 v[2]; /* the count, PERF_FORMAT_TOTAL_TIME_ENABLED */

	return read(fd, v, sizeof(v)) == sizeof(v) ? v[1] : 0;
}

static struct bpf_link *attach_one(struct percpu_events *p, int cpu)
{
	int fd = syscall(SYS_perf_event_open, &p->attr, -1, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);
	struct bpf_link *l;

	if (fd < 0)
		return NULL;
	l = bpf_program__attach_perf_event(p->prog, fd);
	if (!l) {
		close(fd);
		return NULL;
	}
	p->fd[cpu] = fd; /* the link owns it */
	p->enabled[cpu] = enabled_ns(fd);
	p->read_at[cpu] = now_ns();
	p->shortfall[cpu] = 0;
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
	p->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	p->event = event;
	p->ncpus = possible > 0 ? possible : 1;
	for (int i = 0; i < n; i++)
		if (cpus[i] >= p->ncpus)
			p->ncpus = cpus[i] + 1;
	p->link = xzalloc(p->ncpus * sizeof(*p->link));
	p->fd = xzalloc(p->ncpus * sizeof(*p->fd));
	p->enabled = xzalloc(p->ncpus * sizeof(*p->enabled));
	p->read_at = xzalloc(p->ncpus * sizeof(*p->read_at));
	p->shortfall = xzalloc(p->ncpus * sizeof(*p->shortfall));
	p->gone = xzalloc(p->ncpus * sizeof(*p->gone));
	for (int i = 0; i < n; i++) {
		p->link[cpus[i]] = attach_one(p, cpus[i]);
		if (!p->link[cpus[i]])
			perror_exit("attaching to the %s event of CPU %d",
				    event, cpus[i]);
	}
	return p;
}

/* Callers' clocks are read at different times: a "now" older than the
 * mark counts nothing rather than wrapping to 584 years. */
static __u64 since(__u64 now, __u64 mark)
{
	return now > mark ? now - mark : 0;
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
		p->unsampled += since(now, p->gone[cpu]);
	p->gone[cpu] = 0;
	error_msg("CPU %d is online again: sampled again", cpu);
	status_say("CPU %d is online again: sampled again", cpu);
}

/* cpu is online and has an event: is it still enabled? */
static void still_enabled(struct percpu_events *p, int cpu, __u64 now)
{
	__u64 e = enabled_ns(p->fd[cpu]);
	__u64 dt = since(now, p->read_at[cpu]);
	__u64 ran = since(e, p->enabled[cpu]);
	__u64 before = p->shortfall[cpu];

	if (!e || !dt) /* unreadable, or no time: nothing to judge by */
		return;
	p->enabled[cpu] = e;
	p->read_at[cpu] = now;
	p->shortfall[cpu] = ran < dt ? dt - ran : 0;
	if (ran)
		return;
	bpf_link__destroy(p->link[cpu]);
	p->link[cpu] = attach_one(p, cpu);
	p->unsampled += dt + before;
	if (!p->link[cpu]) { /* back() tries again at the next poll */
		p->gone[cpu] = now;
		verbose("CPU %d: its %s event died, a new one not yet: %s", cpu,
			p->event, strerror(errno));
		return;
	}
	error_msg("CPU %d: its %s event stopped (the CPU went offline and "
		  "back unseen, as in a suspend to RAM): opened again",
		  cpu, p->event);
	status_say("CPU %d: its %s event stopped: opened again", cpu, p->event);
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
		else if (p->link[cpu])
			still_enabled(p, cpu, now);
	free(online);
	free(cpus);
}

__u64 percpu_unsampled(struct percpu_events *p, __u64 now)
{
	__u64 ns = p->unsampled;

	for (int cpu = 0; cpu < p->ncpus; cpu++)
		if (p->gone[cpu]) {
			ns += since(now, p->gone[cpu]);
			if (now > p->gone[cpu])
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
	free(p->fd);
	free(p->enabled);
	free(p->read_at);
	free(p->shortfall);
	free(p->gone);
	free(p);
}
