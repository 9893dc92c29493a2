/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for whole user stacks in code built as images build it:
 * -O2, no frame pointers (tests.mk builds it so, glibc dynamic and musl
 * static). Every chain is five named functions deep, each call followed
 * by work so none is a tail call, and the two branches of each mode take
 * 5 and 3 parts:
 *
 *   chain spin S       main > run > stage_a > work_a > spin_a  5 parts of
 *                      main > run > stage_b > work_b > spin_b  3 parts of
 *                      S seconds of the thread's CPU time
 *   chain nap N        main > run > idle_a > rest_a > nap_a    50 ms
 *                      main > run > idle_b > rest_b > nap_b    30 ms
 *                      nanosleep, N rounds
 *   chain lock N       main > run > lock_a > queue_a > wait_a  50 ms
 *                      main > run > lock_b > queue_b > wait_b  30 ms
 *                      in pthread_mutex_lock of a mutex a thread named
 *                      "holder" holds that long, N rounds
 *   chain alloc N      main > run > keep_a > store_a > alloc_a  5000 B
 *                      main > run > keep_b > store_b > alloc_b  3000 B
 *                      malloc'd and kept to the exit, N rounds
 *
 * With CHAIN_TRUTH=FILE each mode writes there what its two branches
 * really took, in us ("A B"): thread CPU time for spin, the time around
 * each blocking call for nap and lock (wake-up and run-queue wait
 * included, so a bound for what offcpu may count); for alloc, the bytes
 * each kept.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NAMED __attribute__((noinline, noclone))

static volatile long sink; /* what keeps each result alive */
static double took[2];	   /* the truth, per branch, in s */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int hold_ms; /* holder: hold mu this long, 0: idle */
static atomic_int held;	   /* holder: mu is held now */

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts))
		;
}

/* ---- spin: CPU time, 5:3 ---- */

/* Each leaf loops until its thread has had ms of CPU, reading the clock
 * every 4096 steps so its system call stays below a percent. */
#define SPIN(name)                                                \
	NAMED long name(double ms)                                \
	{                                                         \
		double end = cpu_now() + ms / 1e3;                \
		long x = sink;                                    \
                                                                  \
		do                                                \
			for (int i = 0; i < 4096; i++)            \
				x = x * 6364136223846793005L + i; \
		while (cpu_now() < end);                          \
		return x;                                         \
	}
SPIN(spin_a)
SPIN(spin_b)

NAMED void work_a(double ms)
{
	sink += spin_a(ms);
	sink++;
}

NAMED void work_b(double ms)
{
	sink += spin_b(ms);
	sink++;
}

NAMED void stage_a(double ms)
{
	double t0 = cpu_now();

	work_a(ms);
	took[0] += cpu_now() - t0;
}

NAMED void stage_b(double ms)
{
	double t0 = cpu_now();

	work_b(ms);
	took[1] += cpu_now() - t0;
}

/* ---- nap: nanosleep, 50 ms and 30 ms ---- */

NAMED void nap_a(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	sink += nanosleep(&ts, NULL);
}

NAMED void nap_b(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	sink += nanosleep(&ts, NULL);
}

NAMED void rest_a(long ms)
{
	nap_a(ms);
	sink++;
}

NAMED void rest_b(long ms)
{
	nap_b(ms);
	sink++;
}

NAMED void idle_a(long ms)
{
	double t0 = now();

	rest_a(ms);
	took[0] += now() - t0;
}

NAMED void idle_b(long ms)
{
	double t0 = now();

	rest_b(ms);
	took[1] += now() - t0;
}

/* ---- lock: a mutex "holder" holds, 50 ms and 30 ms ---- */

static void *holder(void *arg)
{
	/* before it blocks: its waits are not the main thread's */
	pthread_setname_np(pthread_self(), "holder");
	for (;;) {
		int ms;

		while (!(ms = atomic_load(&hold_ms)))
			sleep_ms(1);
		if (ms < 0)
			return arg;
		pthread_mutex_lock(&mu);
		atomic_store(&held, 1);
		sleep_ms(ms);
		atomic_store(&hold_ms, 0);
		pthread_mutex_unlock(&mu);
	}
}

/* Until the holder holds mu for ms: a spin, not a sleep, so the main
 * thread blocks only in the chain's wait. */
static void have_it_held(int ms)
{
	atomic_store(&held, 0);
	atomic_store(&hold_ms, ms);
	while (!atomic_load(&held))
		;
}

NAMED void wait_a(void)
{
	sink += pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
}

NAMED void wait_b(void)
{
	sink += pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
}

NAMED void queue_a(void)
{
	wait_a();
	sink++;
}

NAMED void queue_b(void)
{
	wait_b();
	sink++;
}

NAMED void lock_a(int ms)
{
	double t0;

	have_it_held(ms);
	t0 = now();
	queue_a();
	took[0] += now() - t0;
}

NAMED void lock_b(int ms)
{
	double t0;

	have_it_held(ms);
	t0 = now();
	queue_b();
	took[1] += now() - t0;
}

/* ---- alloc: bytes kept to the exit, 5:3 ---- */

NAMED void *alloc_a(void)
{
	void *p = malloc(5000);

	sink += p != NULL;
	return p;
}

NAMED void *alloc_b(void)
{
	void *p = malloc(3000);

	sink += p != NULL;
	return p;
}

NAMED void store_a(void **slot)
{
	*slot = alloc_a();
	sink++;
}

NAMED void store_b(void **slot)
{
	*slot = alloc_b();
	sink++;
}

NAMED void keep_a(void **slot)
{
	store_a(slot);
	took[0] += *slot ? 5000 / 1e6 : 0; /* bytes, printed as "us" */
}

NAMED void keep_b(void **slot)
{
	store_b(slot);
	took[1] += *slot ? 3000 / 1e6 : 0;
}

/* ---- the modes ---- */

/* inlined: the chains go from run to their first named function */
#define INLINE static inline __attribute__((always_inline))

INLINE void run_lock(int n)
{
	pthread_t t;

	if (pthread_create(&t, NULL, holder, NULL))
		exit(1);
	for (int i = 0; i < n; i++) {
		lock_a(50);
		lock_b(30);
	}
	atomic_store(&hold_ms, -1);
	pthread_join(t, NULL);
}

INLINE void run_alloc(int n)
{
	static void *kept[2 * 1000];

	for (int i = 0; i < n && i < 1000; i++) {
		keep_a(&kept[2 * i]);
		keep_b(&kept[2 * i + 1]);
	}
}

NAMED void run(const char *mode, double n)
{
	if (!strcmp(mode, "spin")) {
		double end = cpu_now() + n;

		while (cpu_now() < end) {
			stage_a(5);
			stage_b(3);
		}
	} else if (!strcmp(mode, "nap")) {
		/* each branch's rounds in a row: a walk may take the last
		 * one's (unwind_memo.bpf.h), and not the other branch's */
		for (int i = 0; i < n; i++)
			idle_a(50);
		for (int i = 0; i < n; i++)
			idle_b(30);
	} else if (!strcmp(mode, "lock")) {
		run_lock(n);
	} else {
		run_alloc(n);
	}
	sink++;
}

/* CHAIN_TRUTH: what the two branches took, in us */
static void say_truth(void)
{
	const char *path = getenv("CHAIN_TRUTH");
	FILE *f;

	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "%.0f %.0f\n", took[0] * 1e6, took[1] * 1e6);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 ||
	    (strcmp(argv[1], "spin") && strcmp(argv[1], "nap") &&
	     strcmp(argv[1], "lock") && strcmp(argv[1], "alloc"))) {
		fprintf(stderr,
			"usage: chain spin SECONDS | nap N | lock N | alloc N\n");
		return 2;
	}
	run(argv[1], atof(argv[2]));
	say_truth();
	return 0;
}
