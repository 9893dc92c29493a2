// SPDX-License-Identifier: GPL-2.0
/*
 * chain [SECONDS [NAP_MS]]: a program built as images build theirs (-O2, no frame
 * pointers, stripped; tests/workloads/image/package.sh), with known
 * chains and known shares:
 *   CPU:     main > run > stage_a > work_a > spin_a   5 parts
 *            main > run > stage_b > work_b > spin_b   3 parts
 *   blocked: main > run > idle_a > nap_a (nanosleep)  2 parts
 *            main > run > idle_b > nap_b (nanosleep)  1 part (NAP_MS, 10)
 * Shares are of the thread's own CPU time and of sleeps long against
 * the timer's slack. With CHAIN_TRUTH=FILE it writes there how long the
 * naps of each branch took, in us ("A B"): wake-up and run-queue wait
 * included, which a loaded machine adds to both alike, so the split
 * offcpu must find is that one, not 2:1. Each function does work after its call so -O2
 * keeps the call (no tail jump) and the frame in the stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile unsigned long sink;
static long nap_ns = 10 * 1000 * 1000;
static double took[2]; /* s: the naps of idle_a, of idle_b */

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The clock is read every 20000 turns, so the samples fall in the spin
 * itself, not in clock_gettime (the vDSO). */
NOINLINE void spin_a(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink++;
}

NOINLINE void spin_b(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink += 3;
}

NOINLINE void work_a(void)
{
	spin_a(25);
	sink++;
}

NOINLINE void work_b(void)
{
	spin_b(15);
	sink++;
}

NOINLINE void stage_a(void)
{
	work_a();
	sink++;
}

NOINLINE void stage_b(void)
{
	work_b();
	sink++;
}

NOINLINE void nap_a(void)
{
	struct timespec ts = {2 * nap_ns / 1000000000, 2 * nap_ns % 1000000000};

	nanosleep(&ts, NULL);
	sink++;
}

NOINLINE void nap_b(void)
{
	struct timespec ts = {nap_ns / 1000000000, nap_ns % 1000000000};

	nanosleep(&ts, NULL);
	sink++;
}

NOINLINE void idle_a(void)
{
	double t = wall_s();

	nap_a();
	took[0] += wall_s() - t;
}

NOINLINE void idle_b(void)
{
	double t = wall_s();

	nap_b();
	took[1] += wall_s() - t;
}

NOINLINE void run(double seconds)
{
	double end = wall_s() + seconds;

	while (wall_s() < end) {
		stage_a();
		stage_b();
		idle_a();
		idle_b();
	}
	sink++;
}

int main(int argc, char **argv)
{
	const char *truth = getenv("CHAIN_TRUTH");
	FILE *f;

	if (argc > 2)
		nap_ns = atol(argv[2]) * 1000000L;
	run(argc > 1 ? atof(argv[1]) : 3);
	if (truth && (f = fopen(truth, "w"))) {
		fprintf(f, "%.0f %.0f\n", took[0] * 1e6, took[1] * 1e6);
		fclose(f);
	}
	return 0;
}
