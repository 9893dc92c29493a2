// SPDX-License-Identifier: GPL-2.0
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bpf_quiesce.h"

bool bpf_quiesce(long fallback_ns)
{
	struct timespec ts = {fallback_ns / 1000000000L,
			      fallback_ns % 1000000000L};

	if (!syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return true;
	nanosleep(&ts, NULL);
	return false;
}
