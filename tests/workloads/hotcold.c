/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for report --hotcold: one thread that spends BURN seconds
 * of its own CPU time in hot_burn() and SLEEP seconds asleep in
 * cold_sleep(), so on-CPU : off-CPU time of those two is BURN : SLEEP.
 *
 *   hotcold [BURN] [SLEEP] [PIDFILE]   default 1 and 2 seconds
 *
 * With PIDFILE it writes its pid there and waits for SIGUSR1 first, so
 * profilers attached with -p see the whole of both. hot_burn() counts
 * the thread's CPU time, not the wall clock: time it waits for a CPU
 * on a busy machine is off-CPU time in hot_burn, not in cold_sleep.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void hot_burn(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

__attribute__((noinline)) void cold_sleep(double seconds)
{
	struct timespec ts = {(time_t)seconds,
			      (long)((seconds - (time_t)seconds) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	double burn = argc > 1 ? atof(argv[1]) : 1;
	double sleep = argc > 2 ? atof(argv[2]) : 2;

	if (argc > 3) {
		sigset_t set;
		int sig;
		FILE *f = fopen(argv[3], "w");

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			return 1;
		sigwait(&set, &sig);
	}
	hot_burn(burn);
	cold_sleep(sleep);
	return 0;
}
