/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STACKBOX_PRIVS_H
#define STACKBOX_PRIVS_H

#include <stdbool.h>

struct bpf_object;

/*
 * Once attached, give up every capability but those the rest of the run
 * uses (privs.c says which and why); -v names them. attaches_later: the
 * applet attaches to processes as they start (ops->target);
 * reopens_events: per-CPU perf events follow CPUs back from offline.
 */
void privs_after_attach(struct bpf_object *obj, bool attaches_later,
			bool reopens_events);

/* May this process load and attach tracing BPF programs: root, or
 * CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before them, 5.8)? */
bool privs_can_bpf(void);

/* The effective set as names ("sys_ptrace,dac_read_search"), for -v. */
void privs_describe(char *buf, unsigned len);

#endif
