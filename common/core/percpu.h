/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF program on a perf event on every online CPU (oncpu's clock,
 * memstack's page faults), kept so through CPU hotplug (percpu.c).
 */
#ifndef STACKBOX_PERCPU_H
#define STACKBOX_PERCPU_H

#include <linux/perf_event.h>
#include <linux/types.h>

struct bpf_program;
struct percpu_events;

/* prog on an event of attr on each of the n online cpus; a CPU that
 * refuses ends the run with one line naming event. */
struct percpu_events *percpu_attach(struct bpf_program *prog,
				    const struct perf_event_attr *attr,
				    const char *event, const int *cpus, int n);
/* Read the online CPUs again (now: CLOCK_MONOTONIC ns): a CPU gone has
 * its event closed, a CPU back a new one; each said in one line. */
void percpu_poll(struct percpu_events *p, __u64 now);
/* CPU time, ns, not sampled since the last call: CPUs offline. */
__u64 percpu_unsampled(struct percpu_events *p, __u64 now);
void percpu_free(struct percpu_events *p);

#endif
