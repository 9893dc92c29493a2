/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report: separate debug files by build-id from debuginfod servers, as
 * gdb, perf and elfutils get them: the servers of DEBUGINFOD_URLS (a
 * space-separated list, tried in order), GET /buildid/ID/KIND (KIND:
 * debuginfo, executable), kept in debuginfod's client cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client; a file at CACHE/ID/KIND), which the other
 * tools share.
 * http:// only (http.h); a file already cached needs no server.
 */
#ifndef STACKBOX_DEBUGINFOD_H
#define STACKBOX_DEBUGINFOD_H

struct debuginfod;
/* From the environment; NULL when DEBUGINFOD_URLS is unset or empty and
 * no cache directory is known. */
struct debuginfod *debuginfod_new(void);
/* The path of build_id's KIND file (malloc'ed), from the cache or else
 * the first server that has it; NULL when none has it (said under -v; a
 * server that cannot be reached is said once, and not asked again). */
char *debuginfod_find(struct debuginfod *d, const char *build_id,
		      const char *kind);
void debuginfod_free(struct debuginfod *d);

#endif
