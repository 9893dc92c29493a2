/* SPDX-License-Identifier: GPL-2.0 */
#define _GNU_SOURCE
/*
 * A one-request HTTP server standing in for Pyroscope in the push test:
 * listens on 127.0.0.1 (port printed on stdout), takes one request,
 * answers STATUS, and writes what it got: OUT.head (request line and
 * headers), OUT.body, and OUT.profile (the multipart part named
 * "profile", when there is one).
 *
 *   httprecv OUT [STATUS]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static void save(const char *out, const char *ext, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", out, ext);
	f = fopen(path, "w");
	if (f) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

/* The part named "profile" of a multipart body with this boundary. */
static void save_part(const char *out, const char *head, const char *body,
		      size_t len)
{
	const char *b = strcasestr(head, "boundary="), *p, *end;
	char delim[256];

	if (!b)
		return;
	snprintf(delim, sizeof(delim), "\r\n--%.*s",
		 (int)strcspn(b + 9, "\r\n;"), b + 9);
	p = memmem(body, len, "name=\"profile\"", 14);
	if (!p)
		return;
	p = memmem(p, len - (p - body), "\r\n\r\n", 4);
	if (!p)
		return;
	p += 4;
	end = memmem(p, len - (p - body), delim, strlen(delim));
	if (end)
		save(out, "profile", p, end - p);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), c;
	char *buf = malloc(1 << 24), *hend, *cl;
	size_t len = 0, want = 0;
	ssize_t n;
	char reply[128];

	if (argc < 2 || s < 0 || !buf)
		return 2;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) ||
	    getsockname(s, (struct sockaddr *)&a, &alen))
		return perror("socket"), 1;
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		return perror("accept"), 1;
	while ((n = read(c, buf + len, (1 << 24) - 1 - len)) > 0) {
		len += n;
		buf[len] = 0;
		hend = strstr(buf, "\r\n\r\n");
		if (!hend)
			continue;
		cl = strcasestr(buf, "\r\nContent-Length:");
		want = (hend - buf) + 4 + (cl ? strtoul(cl + 17, NULL, 10) : 0);
		if (len >= want)
			break;
	}
	hend = strstr(buf, "\r\n\r\n");
	if (!hend)
		return 1;
	save(argv[1], "head", buf, hend - buf + 2);
	save(argv[1], "body", hend + 4, len - (hend + 4 - buf));
	*hend = 0;
	save_part(argv[1], buf, hend + 4, len - (hend + 4 - buf));
	snprintf(
		reply, sizeof(reply),
		"HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		argc > 2 ? argv[2] : "200 OK");
	if (write(c, reply, strlen(reply)) < 0)
		return 1;
	close(c);
	return 0;
}
