// SPDX-License-Identifier: GPL-2.0
/*
 * napfp N MS [fork]: N naps of MS ms, main > napfp_run > nap_outer >
 * nap_inner > nanosleep, the nap_ functions in libnap.so (lib/nap.c,
 * no frame pointers), this program with frame pointers. Under
 * --unwind auto the program alone says "frame pointers"; the library,
 * mapped by the dynamic loader after the exec, says "tables". With
 * "fork", a child forked first makes the same naps under napfp_child.
 * With NAPFP_NAPPED=FILE it writes there how long the parent's naps
 * took, in us.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

void nap_outer(long ms);
extern volatile unsigned long nap_sink;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static long number(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s && !*end && v >= min && v <= max)
		return v;
	fprintf(stderr, "napfp: %s: not a number from %ld to %ld: %s\n", what,
		min, max, s);
	exit(2);
}

NOINLINE static void napfp_run(int n, long ms)
{
	for (int i = 0; i < n; i++)
		nap_outer(ms);
	nap_sink += 3;
}

NOINLINE static void napfp_child(int n, long ms)
{
	napfp_run(n, ms);
	nap_sink += 5;
}

int main(int argc, char **argv)
{
	const char *out = getenv("NAPFP_NAPPED");
	int n = argc > 1 ? number(argv[1], 1, 1000, "N") : 4, status = 0;
	long ms = argc > 2 ? number(argv[2], 1, 10000, "MS") : 100;
	pid_t child = argc > 3 && !strcmp(argv[3], "fork") ? fork() : -1;
	double t0 = now_us();
	FILE *f;

	if (!child) {
		napfp_child(n, ms);
		return 0;
	}
	napfp_run(n, ms);
	if (child > 0 && waitpid(child, &status, 0) != child)
		status = 1;
	if (out && (f = fopen(out, "w"))) {
		fprintf(f, "%.0f\n", now_us() - t0);
		fclose(f);
	}
	return status != 0;
}
