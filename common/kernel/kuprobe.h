/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe_multi links (Linux 6.6) and uprobe sessions (6.13) as this
 * kernel offers them: the probes kfeatures.c and the uprobe layer ask,
 * and the link syscall Debian 12's libbpf does not know.
 */
#ifndef STACKBOX_KUPROBE_H
#define STACKBOX_KUPROBE_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "autoconf.h"

/* The probe: BPF_TRACE_UPROBE_MULTI's value where a link of it can be
 * made here, 0 where not (kfeatures.c asks; applets ask the next). */
#if ENABLE_MEMSTACK || ENABLE_STACKCOUNT
int uprobe_multi_attach_type(void);
#else
static inline int uprobe_multi_attach_type(void)
{
	return 0; /* not built: nothing asks */
}
#endif
/* Uprobe sessions (Linux 6.13): BPF_TRACE_UPROBE_SESSION's value where
 * a session program that calls bpf_session_is_return() and
 * bpf_session_cookie() loads and links here, 0 where not. Probed once
 * a run (kfeatures.c and applets ask). */
#if ENABLE_MEMSTACK || ENABLE_STACKCOUNT
int uprobe_session_attach_type(void);
#else
static inline int uprobe_session_attach_type(void)
{
	return 0; /* not built: nothing asks */
}
#endif
/* BPF_LINK_CREATE of a uprobe_multi link (ret: return probes) of n
 * offsets in path for pid (0: every process); the fd, or -1 with
 * errno. */
int kernel_link_uprobe_multi(int prog_fd, int type, const char *path,
			     const __u64 *offsets, const __u64 *cookies,
			     unsigned n, bool ret, pid_t pid);
/* The BTF id of a kfunc in the kernel's own BTF (the kernel resolves
 * calls against it, not a --btf file's), or -1. */
int kernel_kfunc_id(const char *name);

#endif
