/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-work CPU load for bench/oncpu.sh: a set amount of work, not a set
 * time, so that a profiler's overhead shows as a longer run.
 *
 *   work ROUNDS [THREADS]   default 2 threads
 *
 * Each thread hashes a 256-byte buffer ROUNDS times through three named,
 * never inlined functions (build with frame pointers), then the process
 * prints two figures in seconds on standard output: the wall-clock time
 * and the CPU time of all its threads (CLOCK_PROCESS_CPUTIME_ID: this
 * includes interrupts that hit it, so a profiler's sampling cost, but not
 * time lost to other processes).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static long rounds;
static volatile uint64_t sink;

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE uint64_t work_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

NOINLINE uint64_t work_hash(const uint8_t *buf, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ buf[i]) * 0x100000001b3ULL;
	return work_mix(h);
}

static void *work_thread(void *arg)
{
	uint8_t buf[256];
	uint64_t h = (uintptr_t)arg;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 31 + h);
	for (long r = 0; r < rounds; r++) {
		h = work_hash(buf, sizeof(buf), h);
		buf[r & 255] ^= (uint8_t)h;
	}
	sink += h;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];
	double start, cpu;

	if (argc < 2 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: work ROUNDS [THREADS]\n");
		return 2;
	}
	if (threads < 1 || threads > 64)
		threads = 2;
	start = now(CLOCK_MONOTONIC);
	cpu = now(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, work_thread, (void *)(uintptr_t)i);
	work_thread(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("%.6f %.6f\n", now(CLOCK_MONOTONIC) - start, cpu);
	return 0;
}
