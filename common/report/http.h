/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain HTTP/1.x report speaks to servers (--push's Pyroscope,
 * debuginfod): http:// only, no TLS (a local proxy serves https).
 */
#ifndef STACKBOX_HTTP_H
#define STACKBOX_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* "http://host[:port][/prefix]" into malloc'ed parts (port "80" when
 * none; prefix "" or "/path" without a trailing '/'); false if not that. */
bool http_parse_url(const char *url, char **host, char **port, char **prefix);
/* A connected TCP socket with 10 s send and receive timeouts, or -1
 * after one line that starts with what ("--push"). */
int http_connect(const char *host, const char *port, const char *what);
/* All of p, or false (errno). */
bool http_send_all(int fd, const void *p, size_t len);

#endif
