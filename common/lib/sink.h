/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where snapshots go: standard output, a file (rotated by size), or a
 * serial port in raw mode. Each snapshot is written whole with write(2);
 * a sink that fails never stops the collector: the caller counts what
 * could not be written, and a device that went away is opened again at
 * the next snapshot.
 */
#ifndef STACKBOX_SINK_H
#define STACKBOX_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sink;

/* path NULL or "-": standard output. rotate_size 0: never rotate; baud
 * 0: leave a tty's speed alone; binary: a tty passes bytes untouched,
 * else it still turns "\n" into "\r\n" for a terminal's sake. Exits with
 * a one-line error when path cannot be opened or baud is not a speed. */
struct sink *sink_open(const char *path, uint64_t rotate_size,
		       unsigned rotate_count, long long baud, bool binary);
const char *sink_name(const struct sink *s);
bool sink_is_terminal(const struct sink *s);
/* Would len more bytes start a new file? Then the caller may want to
 * start its stream afresh (a bin key frame) before writing. */
bool sink_rotates(const struct sink *s, size_t len);
/* 0, or -1 with errno (the sink is retried at the next write). */
int sink_write(struct sink *s, const void *buf, size_t len);
/* Did the write that failed with err find no reader (a pipe whose
 * reader exited: offcpu | head)? Then there is no one to write for. */
bool sink_reader_gone(const struct sink *s, int err);
int sink_close(struct sink *s);

/* ---- --status kmsg|syslog: one-line status records ---- */
/* kind: "kmsg" or "syslog"; NULL or "" for none. An error for others. */
const char *status_open(const char *kind);
void status_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
