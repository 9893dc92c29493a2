// SPDX-License-Identifier: GPL-2.0
/* oncpu: count the stacks on CPU at every perf_event sample. */
#define SB_NVALUES 1
#include "collect.bpf.h"

const volatile __u8 include_idle = 0;

SEC("perf_event")
int oncpu_sample(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sb_values one = {{1}};
	struct sb_key key = {};

	/* thread 0 is each CPU's idle task */
	if ((__u32)id == 0 && !include_idle)
		return 0;
	if (!sb_wanted(id >> 32))
		return 0;
	sb_key_init(ctx, &key, id);
	sb_count(&key, &one);
	return 0;
}
