/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waiting out the BPF programs running now. Tracing programs (tracepoints,
 * kprobes, fentry, perf events, uprobes) run inside RCU read-side
 * sections, so a grace period ends only after each one that began before
 * it has returned, and one that begins after it sees every store made
 * before it. membarrier(MEMBARRIER_CMD_GLOBAL) waits for one
 * (synchronize_rcu()). On one CPU it returns at once: there only a
 * program preempted inside (a uprobe's, under PREEMPT_RCU) is missed.
 */
#ifndef STACKBOX_BPF_QUIESCE_H
#define STACKBOX_BPF_QUIESCE_H

#include <stdbool.h>

/* Return once every BPF program that was running has returned: true;
 * false where the kernel has no such wait (no CONFIG_MEMBARRIER, or
 * nohz_full CPUs) and slept fallback_ns instead. */
bool bpf_quiesce(long fallback_ns);

#endif
