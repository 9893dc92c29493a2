// SPDX-License-Identifier: GPL-2.0
/* The plain HTTP/1.x that report speaks (--push, debuginfod); see http.h. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "http.h"
#include "stackbox.h"

/* "http://host[:port][/prefix]" into its parts; false if not that. */
bool http_parse_url(const char *url, char **host, char **port, char **prefix)
{
	const char *h, *slash, *colon;

	if (strncmp(url, "http://", 7))
		return false;
	h = url + 7;
	slash = strchr(h, '/');
	if (!slash)
		slash = h + strlen(h);
	colon = memchr(h, ':', slash - h);
	if ((colon ? colon : slash) == h)
		return false;
	*host = strndup(h, (colon ? colon : slash) - h);
	*port = colon ? strndup(colon + 1, slash - colon - 1) : xstrdup("80");
	*prefix = xstrdup(*slash ? slash : "");
	/* the prefix ends without '/': "/ingest" follows */
	if (**prefix && (*prefix)[strlen(*prefix) - 1] == '/')
		(*prefix)[strlen(*prefix) - 1] = 0;
	return true;
}

int http_connect(const char *host, const char *port, const char *what)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	struct timeval tv = {10, 0};
	int fd = -1, err = getaddrinfo(host, port, &hints, &res);

	if (err) {
		error_msg("%s: %s:%s: %s", what, host, port, gai_strerror(err));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		/* a server that hangs must not hang us */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		perror_msg("%s: connecting to %s:%s", what, host, port);
	freeaddrinfo(res);
	return fd;
}

bool http_send_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = send(fd, c, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		c += n;
		len -= n;
	}
	return true;
}
