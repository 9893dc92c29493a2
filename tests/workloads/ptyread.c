/* SPDX-License-Identifier: GPL-2.0 */
#define _GNU_SOURCE
/*
 * The far end of a serial line, for the serial sink test: opens a
 * pseudo-terminal pair, prints the slave's path (where the collector
 * writes, as to /dev/ttyS0), copies what arrives on the master to FILE
 * for SECONDS from the first byte, then closes the master (the cable is
 * pulled) and waits LINGER more seconds before exiting. It stops
 * copying early when the writer closes the slave after the first byte
 * (the collector is done), so nothing it wrote is lost to a test that
 * ends it. SECONDS count from the first byte, not the start: a loaded
 * machine may take seconds to load the collector's BPF. A minute
 * without any byte ends it all the same.
 *
 * With "hold", the master stays open through LINGER but is not read: a
 * port whose far end holds it (flow control, a pty nobody reads).
 *
 *   ptyread FILE SECONDS [LINGER [hold]]
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int m, out;
	double end;
	char buf[4096];

	if (argc < 3)
		return 2;
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return perror("pty"), 1;
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return perror(argv[1]), 1;
	printf("%s\n", ptsname(m));
	fflush(stdout);
	end = now() + 60; /* for the first byte */
	for (int first = 1; now() < end;) {
		struct pollfd p = {m, POLLIN, 0};
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		/* EIO: nobody has the slave open yet, or not any more */
		n = read(m, buf, sizeof(buf));
		if (n > 0 && write(out, buf, n) != n)
			return 1;
		if (n > 0 && first) {
			first = 0;
			end = now() + atof(argv[2]);
		}
		if (n <= 0 && !first)
			break; /* EIO: the writer is done */
		if (n <= 0)
			usleep(10000);
	}
	if (argc <= 4)
		close(m);
	close(out);
	sleep(argc > 3 ? atoi(argv[3]) : 0);
	return 0;
}
