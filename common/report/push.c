// SPDX-License-Identifier: GPL-2.0
/* A small HTTP/1.1 client for one POST; see push.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "binfmt.h"
#include "http.h"
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

int push_pyroscope(const char *url, const char *app, const char *host,
		   int64_t from, int64_t until, int64_t sample_rate,
		   const void *pprof_gz, size_t len)
{
	char *h = NULL, *port = NULL, *prefix = NULL, *name, status[256];
	struct bbuf req = {0}, body = {0};
	int fd, code = 0, ret = -1;
	ssize_t n;

	if (!http_parse_url(url, &h, &port, &prefix)) {
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
	fd = http_connect(h, port, "--push");
	if (fd >= 0) {
		if (!http_send_all(fd, req.p, req.len) ||
		    !http_send_all(fd, body.p, body.len)) {
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
