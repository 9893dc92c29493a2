/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for the triggers: a burst the test controls.
 *   stall cpu THREADS SECONDS       THREADS busy threads (runnable tasks,
 *                                   CPU pressure when more than CPUs)
 *   stall io THREADS SECONDS FILE   THREADS threads reading FILE with
 *                                   O_DIRECT: each waits for the device
 *                                   in io_schedule (procs_blocked)
 * "burst START END" (seconds since the epoch) is printed at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double until;
static int fd = -1;
static off_t blocks;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void *spin(void *arg)
{
	while (now() < until)
		for (int i = 0; i < 10000; i++)
			sink += i;
	return NULL;
}

__attribute__((noinline)) static void *read_direct(void *arg)
{
	unsigned seed = (unsigned long)arg;
	void *buf;

	if (posix_memalign(&buf, 4096, 4096))
		return NULL;
	while (now() < until)
		if (pread(fd, buf, 4096, (rand_r(&seed) % blocks) * 4096) < 0)
			break;
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[2]) : 0;
	bool io = argc > 4 && !strcmp(argv[1], "io");
	pthread_t *t;
	struct stat st;
	double start;

	if (n < 1 || (!io && strcmp(argv[1], "cpu"))) {
		fprintf(stderr, "usage: stall cpu|io THREADS SECONDS [FILE]\n");
		return 2;
	}
	if (io) {
		fd = open(argv[4], O_RDONLY | O_DIRECT);
		if (fd < 0 || fstat(fd, &st) || st.st_size < 4096) {
			perror(argv[4]);
			return 1;
		}
		blocks = st.st_size / 4096;
	}
	t = calloc(n, sizeof(*t));
	start = now();
	until = start + atof(argv[3]);
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, io ? read_direct : spin, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("burst %.3f %.3f\n", start, now());
	return 0;
}
