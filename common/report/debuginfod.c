// SPDX-License-Identifier: GPL-2.0
/*
 * A debuginfod client of our own (see debuginfod.h): plain HTTP/1.0 GETs
 * (http.c, which --push uses too), so the static musl report has it
 * without libcurl and libdebuginfod. A download goes to a temporary file
 * in the cache and is renamed into place once whole, so a reader never
 * sees half a file; an empty file (libdebuginfod's mark of a miss) is
 * asked again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfod.h"
#include "http.h"
#include "rootfs.h"
#include "stackbox.h"

#define HEAD_MAX 8192

struct debuginfod {
	char *cache; /* debuginfod_client directory */
	char **urls; /* http:// servers, in order */
	bool *dead;  /* could not be reached: not asked again */
	size_t nurls;
};

static char *cache_dir(void)
{
	const char *e = getenv("DEBUGINFOD_CACHE_PATH");

	if (e && *e)
		return xstrdup(e);
	e = getenv("XDG_CACHE_HOME");
	if (e && *e)
		return xasprintf("%s/debuginfod_client", e);
	e = getenv("HOME");
	return e && *e ? xasprintf("%s/.cache/debuginfod_client", e) : NULL;
}

static void add_url(struct debuginfod *d, const char *u, size_t len)
{
	size_t cap = d->nurls;

	if (strncmp(u, "http://", 7)) {
		error_msg("DEBUGINFOD_URLS: %.*s: only http:// is spoken "
			  "(a local proxy serves https)",
			  (int)len, u);
		return;
	}
	d->urls = grow_array(d->urls, &cap, d->nurls + 1, sizeof(*d->urls));
	d->urls[d->nurls++] = xasprintf("%.*s", (int)len, u);
}

struct debuginfod *debuginfod_new(void)
{
	const char *u = getenv("DEBUGINFOD_URLS");
	struct debuginfod *d = xzalloc(sizeof(*d));
	size_t len;

	d->cache = cache_dir();
	for (; u && *u; u += len) {
		u += strspn(u, " \t\n");
		len = strcspn(u, " \t\n");
		if (len)
			add_url(d, u, len);
	}
	d->dead = xzalloc((d->nurls + 1) * sizeof(*d->dead));
	if (!d->cache || !d->nurls) {
		debuginfod_free(d);
		return NULL;
	}
	return d;
}

static bool hex_id(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return n >= 2 && n <= 128 && !id[n];
}

/* mkdir -p of CACHE/ID. */
static bool make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	bool ok = true;

	for (char *s = p + 1; ok && (s = strchr(s, '/')); s++) {
		*s = 0;
		ok = !mkdir(p, 0700) || errno == EEXIST;
		*s = '/';
	}
	ok = ok && (!mkdir(p, 0700) || errno == EEXIST);
	free(p);
	return ok;
}

/* Status and headers; body bytes read past them stay in head from
 * *body_at to *got. The status code, or -1. */
static int read_head(int fd, char *head, size_t *got, size_t *body_at,
		     long long *length)
{
	char *end = NULL, *cl;
	int code;
	ssize_t n;

	*got = 0;
	while (!end && *got < HEAD_MAX - 1 &&
	       (n = recv(fd, head + *got, HEAD_MAX - 1 - *got, 0)) > 0) {
		*got += n;
		head[*got] = 0;
		end = strstr(head, "\r\n\r\n");
	}
	if (!end || sscanf(head, "HTTP/1.%*d %d", &code) != 1)
		return -1;
	*end = 0;
	*body_at = end + 4 - head;
	cl = strcasestr(head, "\r\nContent-Length:");
	*length = cl ? strtoll(cl + 17, NULL, 10) : -1;
	return code;
}

/* The body into fd_out: true when whole (length, or to the end). */
static bool copy_body(int fd, int out, const char *rest, size_t nrest,
		      long long length)
{
	char buf[65536];
	unsigned long long total = nrest;
	ssize_t n;

	if (write(out, rest, nrest) != (ssize_t)nrest)
		return false;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		total += n;
		if (total > ROOTFS_FILE_MAX || write(out, buf, n) != n)
			return false;
	}
	return n == 0 && total &&
	       (length < 0 || total == (unsigned long long)length);
}

/* GET it into a temporary file beside dest, renamed to dest when whole. */
static bool download(int fd, const char *url, const char *dir, const char *dest)
{
	char head[HEAD_MAX], *tmp;
	size_t got, body_at;
	long long length;
	int code = read_head(fd, head, &got, &body_at, &length), out;
	bool ok;

	if (code != 200) {
		verbose("debuginfod %s: %s", url,
			code < 0 ? "no HTTP answer" : "not there");
		return false;
	}
	if (!make_dirs(dir)) {
		perror_msg("debuginfod cache %s", dir);
		return false;
	}
	tmp = xasprintf("%s/.download.XXXXXX", dir);
	out = mkstemp(tmp);
	ok = out >= 0 &&
	     copy_body(fd, out, head + body_at, got - body_at, length);
	if (out >= 0)
		close(out);
	if (ok && rename(tmp, dest))
		ok = false;
	if (!ok) {
		perror_msg("debuginfod %s: not saved in %s", url, dir);
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

static bool fetch(struct debuginfod *d, size_t i, const char *id,
		  const char *kind, const char *dir, const char *dest)
{
	char *host, *port, *prefix, *req, *url;
	bool ok = false;
	int fd;

	if (!http_parse_url(d->urls[i], &host, &port, &prefix)) {
		error_msg("DEBUGINFOD_URLS: %s: not http://HOST[:PORT][/PATH]",
			  d->urls[i]);
		d->dead[i] = true;
		return false;
	}
	url = xasprintf("%s/buildid/%s/%s", d->urls[i], id, kind);
	req = xasprintf("GET %s/buildid/%s/%s HTTP/1.0\r\nHost: %s:%s"
			"\r\nUser-Agent: stackbox\r\n\r\n",
			prefix, id, kind, host, port);
	fd = http_connect(host, port, "debuginfod");
	if (fd < 0)
		d->dead[i] = true;
	else if (http_send_all(fd, req, strlen(req)))
		ok = download(fd, url, dir, dest);
	if (fd >= 0)
		close(fd);
	free(url);
	free(req);
	free(host);
	free(port);
	free(prefix);
	return ok;
}

char *debuginfod_find(struct debuginfod *d, const char *build_id,
		      const char *kind)
{
	char *dir, *path;
	struct stat st;

	if (!d || !hex_id(build_id))
		return NULL;
	dir = xasprintf("%s/%s", d->cache, build_id);
	path = xasprintf("%s/%s", dir, kind);
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		verbose("%s: in the debuginfod cache", path);
		free(dir);
		return path;
	}
	for (size_t i = 0; i < d->nurls; i++)
		if (!d->dead[i] && fetch(d, i, build_id, kind, dir, path)) {
			verbose("%s: from debuginfod %s", path, d->urls[i]);
			free(dir);
			return path;
		}
	free(dir);
	free(path);
	return NULL;
}

void debuginfod_free(struct debuginfod *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nurls; i++)
		free(d->urls[i]);
	free(d->urls);
	free(d->dead);
	free(d->cache);
	free(d);
}
