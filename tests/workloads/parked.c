/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for a suspend under offcpu and oncpu (tests/board/guest's
 * suspend section): "parked SECONDS" waits for SIGUSR1, then
 *   parked_nap   one nanosleep of SECONDS (CLOCK_MONOTONIC)
 *   parked_read  a read() of a pipe main fills SECONDS later
 *   parked_spin  burns CPU until then
 * and prints, once all are done, each block's length on
 * CLOCK_MONOTONIC and on CLOCK_BOOTTIME (which counts a suspend), and
 * the spinner's CPU time, in us:
 *   parked_nap MONO BOOT
 *   parked_read MONO BOOT
 *   parked_spin CPU MONO BOOT
 * The blocking calls sit one function below the thread functions, so
 * the thread function is on the stack even when a frame-pointer walk
 * drops the libc function's direct caller (see DESIGN.md).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static long nap_s;
static volatile int stop;
static long long took[3][3]; /* us: nap, read, spin x mono, boot, cpu */

static long long us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* the clocks before (from) and after (to) what a thread timed */
static void mark(long long t[3], int from)
{
	long long m = us(CLOCK_MONOTONIC), b = us(CLOCK_BOOTTIME);

	t[0] = from ? m : m - t[0];
	t[1] = from ? b : b - t[1];
}

static void pause_s(long s)
{
	struct timespec ts = {s, 0};

	while (nanosleep(&ts, &ts))
		;
}

static __attribute__((noinline)) void do_nap(void)
{
	pause_s(nap_s);
}

static __attribute__((noinline)) void *parked_nap(void *arg)
{
	mark(took[0], 1);
	do_nap();
	mark(took[0], 0);
	return arg;
}

static __attribute__((noinline)) void do_read(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		_exit(1);
}

static __attribute__((noinline)) void *parked_read(void *arg)
{
	mark(took[1], 1);
	do_read();
	mark(took[1], 0);
	return arg;
}

static __attribute__((noinline)) void *parked_spin(void *arg)
{
	long long cpu = us(CLOCK_THREAD_CPUTIME_ID);
	volatile unsigned long n = 0;

	mark(took[2], 1);
	while (!stop)
		n++;
	mark(took[2], 0);
	took[2][2] = us(CLOCK_THREAD_CPUTIME_ID) - cpu;
	return arg;
}

int main(int argc, char **argv)
{
	void *(*fn[3])(void *) = {parked_nap, parked_read, parked_spin};
	pthread_t t[3];
	sigset_t go;
	int sig;

	nap_s = argc > 1 ? atol(argv[1]) : 0;
	if (nap_s <= 0 || pipe(fds)) {
		fprintf(stderr, "usage: parked SECONDS (then SIGUSR1)\n");
		return 2;
	}
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, NULL);
	sigwait(&go, &sig);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL))
			return 1;
	pause_s(nap_s);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("parked_nap %lld %lld\n", took[0][0], took[0][1]);
	printf("parked_read %lld %lld\n", took[1][0], took[1][1]);
	printf("parked_spin %lld %lld %lld\n", took[2][2], took[2][0],
	       took[2][1]);
	return 0;
}
