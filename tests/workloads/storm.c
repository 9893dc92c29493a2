/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A context-switch storm: two threads ping-pong a byte over two pipes
 * ROUNDS times (default 100000), so each blocks and wakes that often.
 * offcpu must never count a thread blocked for longer than it ran.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 100000;

static void *ponger(void *arg)
{
	char c;

	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (pipe(ping) || pipe(pong))
		return 1;
	pthread_create(&t, NULL, ponger, NULL);
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	return 0;
}
