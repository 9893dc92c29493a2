/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for stackcount: events reached a known number of times
 * from two known stacks, main -> MODE_a or MODE_b -> the event.
 *
 *   counted calls A B    call_a: A x counted_target(i), call_b: B x
 *   counted writes A B   write_small: A x write(10 bytes) to /dev/null,
 *                        write_large: B x write(1000 bytes)
 *   counted usdt A B     usdt_plain: A x the USDT probe stackbox:plain;
 *                        usdt_guarded: B x stackbox:guarded, fired only
 *                        while its semaphore is set (a tracer attached)
 *
 * With a file as the last argument, its pid is written there and it
 * waits for SIGUSR1 before starting (stackcount -p attaches first).
 * With COUNTED_NS=1 it prints how long the two loops took, in ns, and
 * with COUNTED_HOLD=S then waits S seconds before it exits, while a
 * tracer's BPF time is read (bench/stackcount.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#if __has_include(<sys/sdt.h>)
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#define HAVE_SDT 1
/* the semaphores a tracer increments while it is attached: every probe
 * has one with _SDT_HAS_SEMAPHORES; only guarded's is looked at */
unsigned short stackbox_plain_semaphore __attribute__((section(".probes")));
unsigned short stackbox_guarded_semaphore __attribute__((section(".probes")));
#define GUARDED_ENABLED() (stackbox_guarded_semaphore != 0)
#else
#define HAVE_SDT	       0
#define DTRACE_PROBE1(p, n, a) ((void)(a))
#define STAP_PROBE1(p, n, a)   ((void)(a))
#define GUARDED_ENABLED()      0
#endif

#define NAMED __attribute__((noinline, noclone))

static volatile long sink;
static char buf[1000];

/* Its return value is i's parity: ur: filters on ret see it. */
NAMED long counted_target(long i)
{
	sink += i;
	return i & 1;
}

NAMED static void call_a(long n)
{
	for (long i = 0; i < n; i++)
		counted_target(i);
	sink++;
}

NAMED static void call_b(long n)
{
	for (long i = 0; i < n; i++)
		counted_target(i);
	sink++;
}

NAMED static void write_small(int fd, long n)
{
	for (long i = 0; i < n; i++)
		sink += write(fd, buf, 10);
}

NAMED static void write_large(int fd, long n)
{
	for (long i = 0; i < n; i++)
		sink += write(fd, buf, 1000);
}

NAMED static void usdt_plain(long n)
{
	for (long i = 0; i < n; i++) {
		DTRACE_PROBE1(stackbox, plain, i);
		counted_target(i); /* not a leaf: it keeps a frame record */
	}
}

NAMED static void usdt_guarded(long n)
{
	for (long i = 0; i < n; i++) {
		if (GUARDED_ENABLED())
			STAP_PROBE1(stackbox, guarded, i);
		counted_target(i);
	}
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

/* Write the pid to path and wait for SIGUSR1. */
static void wait_for_go(const char *path)
{
	sigset_t none;
	FILE *f;

	signal(SIGUSR1, on_usr1);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		exit(1);
	sigemptyset(&none);
	while (!go)
		sigsuspend(&none);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	long a, b;
	int fd;

	if (argc < 4) {
		fprintf(stderr,
			"usage: counted calls|writes|usdt A B [PIDFILE]\n");
		return 2;
	}
	a = atol(argv[2]);
	b = atol(argv[3]);
	if (argc > 4)
		wait_for_go(argv[4]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "calls")) {
		call_a(a);
		call_b(b);
	} else if (!strcmp(argv[1], "writes")) {
		if ((fd = open("/dev/null", 1)) < 0)
			return 1;
		write_small(fd, a);
		write_large(fd, b);
	} else if (!strcmp(argv[1], "usdt") && HAVE_SDT) {
		usdt_plain(a);
		usdt_guarded(b);
	} else {
		fprintf(stderr, "counted: %s: not built in\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("COUNTED_NS"))
		printf("ns %lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
					    t1.tv_nsec - t0.tv_nsec);
	fflush(stdout);
	if (getenv("COUNTED_HOLD"))
		sleep(atoi(getenv("COUNTED_HOLD")));
	return 0;
}
