// SPDX-License-Identifier: GPL-2.0
/* A small HTTP/1.1 client for one POST; see push.h. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "binfmt.h"
#include "push.h"

#define BOUNDARY "stackbox-7f3a9c1e5d"

/* Query-string escaping: everything but unreserved characters. */
static void put_escaped(struct bbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			bb_u8(b, c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};

			bb_put(b, e, 3);
		}
	}
}

static void put_str(struct bbuf *b, const char *s)
{
	bb_put(b, s, strlen(s));
}

/* "http://host[:port][/prefix]" into its parts; false if not that. */
static bool parse_url(const char *url, char **host, char **port, char **prefix)
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

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	struct timeval tv = {10, 0};
	int fd = -1, err = getaddrinfo(host, port, &hints, &res);

	if (err) {
		error_msg("--push: %s:%s: %s", host, port, gai_strerror(err));
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
		perror_msg("--push: connecting to %s:%s", host, port);
	freeaddrinfo(res);
	return fd;
}

static bool send_all(int fd, const void *p, size_t len)
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

int push_pyroscope(const char *url, const char *app, const char *host,
		   int64_t from, int64_t until, int64_t sample_rate,
		   const void *pprof_gz, size_t len)
{
	char *h = NULL, *port = NULL, *prefix = NULL, *name, status[256];
	struct bbuf req = {0}, body = {0};
	int fd, code = 0, ret = -1;
	ssize_t n;

	if (!parse_url(url, &h, &port, &prefix)) {
		error_msg("--push %s: not http://HOST[:PORT][/PATH] (https: "
			  "put a local proxy in front)",
			  url);
		return -1;
	}
	put_str(&body, "--" BOUNDARY "\r\nContent-Disposition: form-data; "
		       "name=\"profile\"; filename=\"profile.pprof\"\r\n"
		       "Content-Type: application/octet-stream\r\n\r\n");
	bb_put(&body, pprof_gz, len);
	put_str(&body, "\r\n--" BOUNDARY "--\r\n");

	/* Pyroscope's tags follow the name in braces */
	name = xasprintf("%s{host=%s}", app, host && *host ? host : "unknown");
	put_str(&req, "POST ");
	put_str(&req, prefix);
	put_str(&req, "/ingest?name=");
	put_escaped(&req, name);
	put_str(&req, "&from=");
	bb_put(&req, status,
	       snprintf(status, sizeof(status), "%lld", (long long)from));
	put_str(&req, "&until=");
	bb_put(&req, status,
	       snprintf(status, sizeof(status), "%lld", (long long)until));
	put_str(&req, "&format=pprof&spyName=stackbox");
	if (sample_rate > 0)
		bb_put(&req, status,
		       snprintf(status, sizeof(status), "&sampleRate=%lld",
				(long long)sample_rate));
	bb_put(&req, status,
	       snprintf(status, sizeof(status),
			" HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: stackbox\r\n"
			"Content-Type: multipart/form-data; boundary=" BOUNDARY
			"\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			h, port, body.len));
	fd = connect_to(h, port);
	if (fd >= 0) {
		if (!send_all(fd, req.p, req.len) ||
		    !send_all(fd, body.p, body.len)) {
			perror_msg("--push: sending to %s", url);
		} else if ((n = recv(fd, status, sizeof(status) - 1, 0)) > 0) {
			status[n] = 0;
			if (sscanf(status, "HTTP/1.%*d %d", &code) == 1 &&
			    code / 100 == 2)
				ret = 0;
			else
				error_msg("--push: %s answered \"%.*s\"", url,
					  (int)strcspn(status, "\r\n"), status);
		} else {
			perror_msg("--push: no answer from %s", url);
		}
		close(fd);
	}
	if (!ret)
		verbose("--push: %zu bytes of pprof to %s as %s", len, url,
			name);
	free(name);
	free(req.p);
	free(body.p);
	free(h);
	free(port);
	free(prefix);
	return ret;
}
