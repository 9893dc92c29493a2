/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for offcpu: each thread blocks in one known way.
 *   nap_thread   4 x 250 ms nanosleep         1.0 s sleeping
 *   pipe_thread  read() of a pipe fill_pipe() fills 0.6 s after the start
 *   lock_thread  a mutex main holds           0.8 s from the start
 * The blocking calls sit one function below the thread functions, so the
 * thread function is on the stack even when a frame-pointer walk drops
 * the libc function's direct caller (see DESIGN.md).
 *
 * With BLOCK_WAITED=FILE, it writes there how long each thread's waits
 * took, in us ("nap_thread US" and so on), wake-up and run-queue wait
 * included: on a loaded machine a thread starts late (a shorter pipe or
 * mutex wait) and waits for a CPU after each wake-up, which offcpu
 * rightly counts; this is the truth to hold it to.
 *
 * "block short MS" adds many short blocks, for offcpu -s (sampling), for
 * MS milliseconds of wall time:
 *   tick_thread  8 threads, 1 ms nanosleeps  about 8 x MS blocked
 *   step_thread  6 threads, 4 ms nanosleeps  about 6 x MS blocked
 * Each call is timed on its own, so "tick_thread US" is the time inside
 * the calls, summed over the function's threads.
 *
 * "block sleep MS" only sleeps MS in one nanosleep, in long_nap, and
 * writes "long_nap US": one block that spans many snapshots.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TICKS = 8, STEPS = 6 };

static int fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double waited[3]; /* s: nap_thread, pipe_thread, lock_thread */
static double short_waited[TICKS + STEPS]; /* s: each short thread's */
static double short_end;		   /* when the short threads stop */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts))
		;
}

static __attribute__((noinline)) void do_nap(void)
{
	pause_ms(250);
}

static __attribute__((noinline)) void *nap_thread(void *arg)
{
	double t = now();

	for (int i = 0; i < 4; i++)
		do_nap();
	waited[0] = now() - t;
	return arg;
}

static __attribute__((noinline)) void do_read(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		_exit(1);
}

static __attribute__((noinline)) void *pipe_thread(void *arg)
{
	double t = now();

	do_read();
	waited[1] = now() - t;
	return arg;
}

static __attribute__((noinline)) void do_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void *lock_thread(void *arg)
{
	double t = now();

	do_lock();
	waited[2] = now() - t;
	return arg;
}

static __attribute__((noinline)) void do_tick(void)
{
	pause_ms(1);
}

static __attribute__((noinline)) void do_step(void)
{
	pause_ms(4);
}

/* Nap until short_end, each nap's time added to this thread's slot. */
static double short_naps(void (*nap)(void))
{
	double sum = 0, t;

	while ((t = now()) < short_end) {
		nap();
		sum += now() - t;
	}
	return sum;
}

static __attribute__((noinline)) void *tick_thread(void *arg)
{
	short_waited[(long)arg] = short_naps(do_tick);
	return arg;
}

static __attribute__((noinline)) void *step_thread(void *arg)
{
	short_waited[(long)arg] = short_naps(do_step);
	return arg;
}

/* block short MS: start the short threads; how many, 0 without */
static int start_short(int argc, char **argv, pthread_t *t)
{
	if (argc < 3 || strcmp(argv[1], "short"))
		return 0;
	short_end = now() + atoi(argv[2]) / 1e3;
	for (long i = 0; i < TICKS + STEPS; i++)
		pthread_create(&t[i], NULL,
			       i < TICKS ? tick_thread : step_thread,
			       (void *)i);
	return TICKS + STEPS;
}

static void write_waited(const char *path, int nshort)
{
	double tick = 0, step = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "nap_thread %.0f\npipe_thread %.0f\nlock_thread %.0f\n",
		waited[0] * 1e6, waited[1] * 1e6, waited[2] * 1e6);
	for (int i = 0; i < nshort; i++)
		*(i < TICKS ? &tick : &step) += short_waited[i];
	if (nshort)
		fprintf(f, "tick_thread %.0f\nstep_thread %.0f\n", tick * 1e6,
			step * 1e6);
	fclose(f);
}

static __attribute__((noinline)) void do_write(void)
{
	if (write(fds[1], "x", 1) != 1)
		_exit(1);
}

/* pipe_thread's waker, for offcpu -w */
static __attribute__((noinline)) void fill_pipe(void)
{
	do_write();
}

static __attribute__((noinline)) int long_nap(long ms)
{
	double t = now();
	const char *path = getenv("BLOCK_WAITED");
	FILE *f;

	pause_ms(ms);
	t = now() - t;
	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "long_nap %.0f\n", t * 1e6);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[3], st[TICKS + STEPS];
	int nshort;

	if (argc == 3 && !strcmp(argv[1], "sleep"))
		return long_nap(atol(argv[2]));
	if (pipe(fds))
		return 1;
	pthread_mutex_lock(&lock);
	pthread_create(&t[0], NULL, nap_thread, NULL);
	pthread_create(&t[1], NULL, pipe_thread, NULL);
	pthread_create(&t[2], NULL, lock_thread, NULL);
	nshort = start_short(argc, argv, st);
	pause_ms(600);
	fill_pipe();
	pause_ms(200);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < nshort; i++)
		pthread_join(st[i], NULL);
	write_waited(getenv("BLOCK_WAITED"), nshort);
	return 0;
}
