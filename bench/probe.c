/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for bench/oncpu.sh.
 *
 *   probe stamp [CMD [ARG]...]
 *	print CLOCK_MONOTONIC in nanoseconds on standard output, then run
 *	CMD in this process (exec), if given.
 *   probe run FILE CMD [ARG]...
 *	run CMD as a child with SIGINT and SIGQUIT at their defaults (a
 *	background job of sh ignores them); write "pid PID" to FILE at once,
 *	and when CMD has exited add "cpu_ms USER SYS maxrss_kb KB status N"
 *	from wait4(): its CPU time and peak RSS, exit work included.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ms(struct timeval tv)
{
	return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "stamp")) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
		fflush(stdout);
		if (argc > 2) {
			execvp(argv[2], argv + 2);
			perror(argv[2]);
			return 127;
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "run")) {
		struct rusage ru;
		int status;
		FILE *f;
		pid_t pid;

		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			signal(SIGINT, SIG_DFL);
			signal(SIGQUIT, SIG_DFL);
			execvp(argv[3], argv + 3);
			perror(argv[3]);
			_exit(127);
		}
		/* Stop CMD with a signal to CMD itself, not to this process. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		if (!(f = fopen(argv[2], "w"))) {
			perror(argv[2]);
			return 1;
		}
		fprintf(f, "pid %d\n", pid);
		fflush(f);
		if (wait4(pid, &status, 0, &ru) != pid) {
			perror("wait4");
			return 1;
		}
		fprintf(f, "cpu_ms %lld %lld maxrss_kb %ld status %d\n",
			ms(ru.ru_utime), ms(ru.ru_stime), ru.ru_maxrss,
			WIFEXITED(status) ? WEXITSTATUS(status)
					  : 128 + WTERMSIG(status));
		fclose(f);
		return 0;
	}
	fprintf(stderr, "usage: probe stamp [CMD [ARG]...]\n"
			"       probe run FILE CMD [ARG]...\n");
	return 2;
}
