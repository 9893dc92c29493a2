/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for processes forked while a profiler runs: the parent
 * naps 1 s (so it is a known process, read before it forks), then forks
 * FORKS children (3); with FORKS_EARLY=1 it forks at once, so that it is
 * read after them. Each child naps 300 ms in child_nap() and exits; one
 * more child execs sleep 0.3 instead, so its mappings are no longer the
 * parent's.
 * With FORKS_WAITED=FILE, each nap child appends "child US": how long its
 * nap took, wake-up included.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts))
		;
}

static __attribute__((noinline)) void parent_nap(void)
{
	nap_ms(1000);
}

static __attribute__((noinline)) void child_nap(void)
{
	nap_ms(300);
}

static void child(void)
{
	const char *file = getenv("FORKS_WAITED");
	double t = now();
	char line[64];
	int fd, n;

	child_nap();
	if (!file)
		_exit(0);
	n = snprintf(line, sizeof(line), "child %.0f\n", (now() - t) * 1e6);
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || write(fd, line, n) != n)
		_exit(1);
	_exit(0);
}

int main(void)
{
	const char *env = getenv("FORKS");
	int n = env ? atoi(env) : 3, status, bad = 0;
	pid_t pid;

	if (!getenv("FORKS_EARLY"))
		parent_nap();
	for (int i = 0; i <= n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid && i < n)
			child();
		if (!pid) {
			execlp("sleep", "sleep", "0.3", (char *)NULL);
			_exit(127);
		}
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}
