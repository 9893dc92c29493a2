/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for report --anomalies: a workload that changes phase at
 * a known time, and a slow leak that starts at a known time.
 *
 *   phases run SECONDS CHANGE [PIDFILE]
 *     A thread of CPU work (units of the same loop), one of naps, cycles:
 *       before CHANGE s: steady_cpu 4, vanish_cpu 8, double_cpu 2 units;
 *                        steady_wait 3, vanish_wait 4, double_wait 2 ms
 *       after:           steady_cpu 4, double_cpu 4, appear_cpu 2 units,
 *                        decode_frame (a subtree: decode_luma 2 and
 *                        decode_chroma 2 under decode_block);
 *                        steady_wait 3, double_wait 4, appear_wait 2 ms
 *     The CPU per cycle (14 units) and the naps (9 ms) stay the same, so
 *     steady_* keep their time; main waits in a join from start to end. A CHANGE past SECONDS: a steady run.
 *     PHASES_REALTIME=1: both threads SCHED_FIFO (see realtime()).
 *   phases leak SECONDS CHANGE
 *     cache_insert: 64 entries of 4 KiB at once, then one every 20 ms,
 *     the oldest freed past 64 entries; after CHANGE s nothing is freed any more (256 KiB held,
 *     then 200 KiB more a second).
 *
 * "change EPOCH" is printed (seconds since the epoch) when the phase
 * changes; PIDFILE gets the process id first.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long unit_loops = 100000;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void burn(unsigned units)
{
	for (unsigned long i = 0; i < units * unit_loops; i++)
		sink += i;
}

/* A unit: about 1 ms of this CPU; the quickest of a few tries is the
 * one least disturbed by other work on the machine. */
static void calibrate(void)
{
	double best = 1;

	for (int i = 0; i < 8; i++) {
		double t = now();

		burn(4);
		t = now() - t;
		best = t > 0 && t < best ? t : best;
	}
	unit_loops = unit_loops * 4 * 1e-3 / best;
	if (!unit_loops)
		unit_loops = 1;
}

__attribute__((noinline)) void nap(unsigned ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void steady_cpu(void)
{
	burn(4);
}
__attribute__((noinline)) void vanish_cpu(void)
{
	burn(8);
}
__attribute__((noinline)) void double_cpu(unsigned k)
{
	burn(2 * k);
}
__attribute__((noinline)) void appear_cpu(void)
{
	burn(2);
}
__attribute__((noinline)) void decode_luma(void)
{
	burn(2);
}
__attribute__((noinline)) void decode_chroma(void)
{
	burn(2);
}

__attribute__((noinline)) void decode_block(void)
{
	decode_luma();
	decode_chroma();
}

__attribute__((noinline)) void decode_mb(void)
{
	decode_block();
}
__attribute__((noinline)) void decode_slice(void)
{
	decode_mb();
}
__attribute__((noinline)) void decode_frame(void)
{
	decode_slice();
}

__attribute__((noinline)) void steady_wait(void)
{
	nap(3);
}
__attribute__((noinline)) void vanish_wait(void)
{
	nap(4);
}
__attribute__((noinline)) void double_wait(unsigned k)
{
	nap(2 * k);
}
__attribute__((noinline)) void appear_wait(void)
{
	nap(2);
}

__attribute__((noinline)) void cpu_cycle(int after)
{
	steady_cpu();
	double_cpu(after ? 2 : 1);
	if (after) {
		appear_cpu();
		decode_frame();
	} else {
		vanish_cpu();
	}
}

__attribute__((noinline)) void wait_cycle(int after)
{
	steady_wait();
	double_wait(after ? 2 : 1);
	if (after)
		appear_wait();
	else
		vanish_wait();
}

static double start, seconds, change;

/*
 * The ground truth must not depend on the machine's load: at load 12 on
 * 2 CPUs, a woken nap waited for a CPU long enough to make the naps'
 * blocked time spike, and the CPU loop got too few samples for its
 * growth to show. Real-time threads (PHASES_REALTIME=1) wait for
 * neither (the nap thread above the CPU loop, so it preempts it); where
 * that is refused, the loop runs as it is, and says so. Not by default:
 * in a 2-CPU board the CPU loop would take one CPU for the whole run.
 */
static void realtime(int priority)
{
	struct sched_param p = {.sched_priority = priority};
	const char *on = getenv("PHASES_REALTIME");

	if (on && !strcmp(on, "1") &&
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &p))
		fprintf(stderr, "phases: SCHED_FIFO refused: a loaded machine "
				"moves its times\n");
}

/* arg: the cycle; the CPU thread says when it changed phase */
static void *run(void *arg)
{
	void (*cycle)(int) = arg;
	int after = 0;

	realtime(cycle == cpu_cycle ? 1 : 2);
	while (now() < start + seconds) {
		if (!after && now() >= start + change) {
			after = 1;
			if (cycle == cpu_cycle) {
				printf("change %.3f\n", now());
				fflush(stdout);
			}
		}
		cycle(after);
	}
	return NULL;
}

/* ---- the leak ---- */
#define CACHE_KEEP 64
static void *cache[4096];
static unsigned cached;

__attribute__((noinline)) void cache_insert(int evict)
{
	char *e = malloc(4096);

	memset(e, 1, 4096);
	if (cached < sizeof(cache) / sizeof(*cache))
		cache[cached++] = e;
	if (evict && cached > CACHE_KEEP) {
		free(cache[0]);
		memmove(cache, cache + 1, --cached * sizeof(*cache));
	}
}

static void leak(double seconds, double change)
{
	double start = now(), end = start + seconds;
	int leaking = 0;

	while (cached < CACHE_KEEP)
		cache_insert(1);
	while (now() < end) {
		if (!leaking && now() >= start + change) {
			leaking = 1;
			printf("change %.3f\n", now());
			fflush(stdout);
		}
		cache_insert(!leaking);
		nap(20);
	}
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	FILE *f;

	if (argc < 4) {
		fprintf(stderr,
			"usage: phases run|leak SECONDS CHANGE [PIDFILE]\n");
		return 2;
	}
	if (argc > 4 && (f = fopen(argv[4], "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	if (!strcmp(argv[1], "leak")) {
		leak(atof(argv[2]), atof(argv[3]));
		return 0;
	}
	calibrate();
	start = now();
	seconds = atof(argv[2]);
	change = atof(argv[3]);
	/* CPU and naps in threads of their own: how much a thread naps per
	 * second does not depend on how much CPU a busy machine gives it */
	pthread_create(&t[0], NULL, run, cpu_cycle);
	pthread_create(&t[1], NULL, run, wait_cycle);
	/* blocked from before offcpu attaches to the end: one block as
	 * long as the run (offcpu -M leaves it out) */
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
