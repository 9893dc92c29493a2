// SPDX-License-Identifier: GPL-2.0
/* When a process last exec'd (see execs.h). */
#include <bpf/bpf.h>

#include "execs.h"

bool execd_since(int execs_fd, pid_t tgid, __u64 since)
{
	__u64 at;

	return !bpf_map_lookup_elem(execs_fd, &tgid, &at) && at >= since;
}
