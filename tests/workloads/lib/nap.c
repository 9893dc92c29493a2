// SPDX-License-Identifier: GPL-2.0
/*
 * libnap.so, built as distributions build libraries (-O2, no frame
 * pointers), for napfp, a frame-pointer program that needs it
 * (DT_NEEDED): the dynamic loader maps it after the exec. A nap is
 * napfp_run > nap_outer > nap_inner > nanosleep, and a frame-pointer
 * walk skips both nap_ frames: they make no frame record.
 */
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long nap_sink;

/* work after each call keeps it a call (no tail jump), and the frame */
NOINLINE void nap_inner(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};

	nanosleep(&ts, NULL);
	nap_sink++;
}

NOINLINE void nap_outer(long ms)
{
	nap_inner(ms);
	nap_sink += 2;
}
