/* SPDX-License-Identifier: GPL-2.0 */
/* report --push: a profile to a Pyroscope server's ingest API. */
#ifndef STACKBOX_PUSH_H
#define STACKBOX_PUSH_H

#include <stddef.h>
#include <stdint.h>

/*
 * POST URL/ingest?name=APP{host=HOST}&from=S&until=S&format=pprof
 * &spyName=stackbox[&sampleRate=HZ], the body multipart/form-data with
 * the gzipped profile.proto as the "profile" part: the ingest API of
 * Pyroscope 0.37 that Grafana Pyroscope 1.x keeps. http:// only.
 * 0, or -1 after saying why.
 */
int push_pyroscope(const char *url, const char *app, const char *host,
		   int64_t from, int64_t until, int64_t sample_rate,
		   const void *pprof_gz, size_t len);

#endif
