// SPDX-License-Identifier: GPL-2.0
/*
 * The wall clock set under a process, as GNSS or NTP first sets a head
 * unit's: preloaded (LD_PRELOAD), CLOCK_REALTIME jumps by
 * $CLOCKSHIFT_SECONDS once the file $CLOCKSHIFT_FILE exists. The other
 * clocks go on as they were. For tests/integration/faults.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int shifted(void)
{
	static int yes;
	const char *file = getenv("CLOCKSHIFT_FILE");

	if (!yes && file && !access(file, F_OK))
		yes = 1;
	return yes;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	const char *secs = getenv("CLOCKSHIFT_SECONDS");
	int r;

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(
			RTLD_NEXT, "clock_gettime");
	r = real(id, ts);
	if (!r && id == CLOCK_REALTIME && secs && shifted())
		ts->tv_sec += atol(secs);
	return r;
}
