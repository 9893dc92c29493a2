// SPDX-License-Identifier: GPL-2.0
/* When a process last changed its code (see code_changes.h). */
#include <bpf/bpf.h>

#include "code_changes.h"

bool code_changed_since(int changes_fd, pid_t tgid, __u64 since)
{
	__u64 at;

	return !bpf_map_lookup_elem(changes_fd, &tgid, &at) && at >= since;
}
