/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for oncpu: burn_two_thirds() spins twice as long as
 * burn_one_third() in every round, so a CPU profile of this process must
 * give the first 2/3 and the second 1/3 of its samples.
 *
 *   burn [SECONDS] [THREADS] [RATIO] [cpu]   default 3 seconds, 1 thread, 2
 *
 * RATIO changes how much longer burn_two_thirds() spins, so a test can
 * show that its assertion fails when the ratio is not the expected one.
 * "cpu" times each spin, and the run's SECONDS, in the thread's own CPU
 * time, not the wall clock: the ratio then holds on a busy machine too,
 * where a thread preempted in a spin loses part of it, and a profile at
 * F Hz takes about F x SECONDS samples of each thread however long the
 * run takes on the wall clock. That clock is a system call, so it is
 * read every 50,000 loop turns, not every 1,000: the kernel's frames
 * stay a small part of the profile, and a spin overshoots by the same
 * ~0.05 ms in both functions (a share of 0.664, not 0.667).
 *
 * Built with frame pointers, static or not; works under qemu TCG, where
 * time runs slowly but evenly for both functions.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds = 3, ratio = 2;
static clockid_t spin_clock = CLOCK_MONOTONIC;
static int turns = 1000; /* loop turns between clock reads */

static double clock_now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_now(spin_clock);
}

static volatile unsigned long sink;

/* Spin until the deadline; noinline so each burner keeps its own frame. */
static __attribute__((noinline)) void spin_until(double end)
{
	while (now() < end)
		for (int i = 0; i < turns; i++)
			sink += i;
}

__attribute__((noinline)) void burn_two_thirds(double slice)
{
	spin_until(now() + ratio * slice);
}

__attribute__((noinline)) void burn_one_third(double slice)
{
	spin_until(now() + slice);
}

static void *burn(void *arg)
{
	double end = now() + seconds;

	while (now() < end) {
		burn_two_thirds(0.002);
		burn_one_third(0.002);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[64];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 3)
		ratio = atof(argv[3]);
	if (argc > 4 && !strcmp(argv[4], "cpu")) {
		spin_clock = CLOCK_THREAD_CPUTIME_ID;
		turns = 50000;
	}
	if (threads < 1 || threads > 64)
		threads = 1;
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	burn(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
