/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for user stacks: named functions that call libc DIRECTLY,
 * so the libc function (built without frame pointers) is the leaf and
 * the named function is its direct caller, the frame a frame-pointer
 * walk loses. Every chain is main -> outer_MODE -> NAMED -> libc, and no
 * call is in tail position, so the chain is real at -O2 too.
 *
 *   libcall nap N MS     zeta_nap:   N x nanosleep(MS)
 *   libcall read MS      kappa_read: read() of a pipe written after MS
 *   libcall spin S       iota_spin:  memset() for S seconds (on CPU)
 *   libcall alloc N SZ   theta_keep: N x malloc(SZ), kept until exit
 *   libcall write N SZ   sigma_write: N x write(SZ) to /dev/null
 *   libcall burn S       no libc: main -> outer_burn -> mu_work ->
 *                        nu_leaf, a loop on CPU for S seconds
 *
 * With LIBCALL_NAPPED=FILE, nap and read write there how long their
 * naps or read took, in us, wake-up and run-queue wait included: a
 * bound for what offcpu may count on a loaded machine. With LIBCALL_CPU=1, spin and burn
 * count their S seconds in the process's CPU time: a profile at F Hz
 * then takes F x S samples however loaded the machine is (that clock
 * is a system call, read every 16 MiB of memset or 16 mu_work calls,
 * so its kernel frames stay far below a percent).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAMED __attribute__((noinline, noclone))

static volatile long sink; /* what keeps each result alive */
static int fds[2];
/* read: when the reader called read(), 0 before; the writer writes MS
 * after that, so the read blocks MS however late the reader got there */
static _Atomic double read_at;

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* spin's and burn's clock, and how many rounds between its reads */
static clockid_t spin_clock = CLOCK_MONOTONIC;
static int rounds = 1;

NAMED void zeta_nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	sink += nanosleep(&ts, NULL);
}

NAMED void kappa_read(void)
{
	char c;

	sink += read(fds[0], &c, 1);
}

NAMED void iota_spin(char *buf, size_t len)
{
	memset(buf, (int)sink, len);
	sink += buf[len / 2];
}

NAMED void *theta_keep(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	return p;
}

NAMED void sigma_write(int fd, const char *buf, size_t len)
{
	sink += write(fd, buf, len);
}

NAMED long nu_leaf(long n)
{
	long x = sink;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005L + i;
	return x;
}

NAMED void mu_work(long n)
{
	sink += nu_leaf(n);
	sink++;
}

static void *late_writer(void *arg)
{
	double left;

	while (!read_at)
		zeta_nap(1);
	left = read_at + (long)arg / 1e3 - now();
	if (left > 0)
		zeta_nap((long)(left * 1e3) + 1);
	sink += write(fds[1], "x", 1);
	return NULL;
}

/* LIBCALL_NAPPED: how long the blocking calls took, in us */
static void say_napped(double seconds)
{
	const char *napped = getenv("LIBCALL_NAPPED");
	FILE *f;

	if (napped && (f = fopen(napped, "w"))) {
		fprintf(f, "%.0f\n", seconds * 1e6);
		fclose(f);
	}
}

NAMED void outer_nap(int n, long ms)
{
	double took = 0;

	for (int i = 0; i < n; i++) {
		double t0 = now();

		zeta_nap(ms);
		took += now() - t0;
	}
	say_napped(took);
	sink++;
}

NAMED void outer_read(long ms)
{
	pthread_t t;
	double t0;

	if (pipe(fds) || pthread_create(&t, NULL, late_writer, (void *)ms))
		exit(1);
	read_at = t0 = now();
	kappa_read();
	say_napped(now() - t0);
	pthread_join(t, NULL);
	sink++;
}

NAMED void outer_spin(double seconds)
{
	static char buf[1 << 20];
	double end = clock_s(spin_clock) + seconds;

	while (clock_s(spin_clock) < end)
		for (int i = 0; i < rounds; i++)
			iota_spin(buf, sizeof(buf));
	sink++;
}

NAMED void outer_alloc(long n, size_t size)
{
	for (long i = 0; i < n; i++)
		theta_keep(size);
	sink++;
}

NAMED void outer_write(long n, size_t size)
{
	static char buf[65536];
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || size > sizeof(buf))
		exit(1);
	for (long i = 0; i < n; i++)
		sigma_write(fd, buf, size);
	close(fd);
	sink++;
}

NAMED void outer_burn(double seconds)
{
	double end = clock_s(spin_clock) + seconds;

	while (clock_s(spin_clock) < end)
		for (int i = 0; i < rounds; i++)
			mu_work(1000000);
	sink++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;

	if (getenv("LIBCALL_CPU")) {
		spin_clock = CLOCK_PROCESS_CPUTIME_ID;
		rounds = 16;
	}

	if (!strcmp(mode, "nap"))
		outer_nap(a, b);
	else if (!strcmp(mode, "read"))
		outer_read(a);
	else if (!strcmp(mode, "spin"))
		outer_spin(argc > 2 ? atof(argv[2]) : 1);
	else if (!strcmp(mode, "alloc"))
		outer_alloc(a, b);
	else if (!strcmp(mode, "write"))
		outer_write(a, b);
	else if (!strcmp(mode, "burn"))
		outer_burn(argc > 2 ? atof(argv[2]) : 1);
	else
		return 2;
	return 0;
}
