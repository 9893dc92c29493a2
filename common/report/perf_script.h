/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report's other input: the text `perf script` prints of a recording
 * with callchains (perf record -g or --call-graph, any event). Samples
 * become rows of snapshots, one per interval of perf's clock (or one
 * for all), with their frames already named, so every format of
 * report applies. The value is samples, and the event's period where
 * perf prints it (cpu-clock and task-clock: nanoseconds of CPU time).
 * Kernel frames are those of the kernel's DSOs ([kernel.kallsyms], a
 * vmlinux, a module; [unknown] amid them), frame lines indented or not.
 */
#ifndef STACKBOX_PERF_SCRIPT_H
#define STACKBOX_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;
struct perf_script;
struct rec_map;

/* Does this start of an input look like perf script output (a comment
 * or a sample header first, no bin frame marker)? */
bool perf_script_detect(const void *data, size_t len);

/* snapshot: called with each snapshot, its rows resolved; interval: ns
 * of perf's clock per snapshot, 0: one snapshot at the end. */
struct perf_script *
perf_script_new(uint64_t interval,
		void (*snapshot)(void *ctx, struct snapshot *s), void *ctx);
/* Bytes in any pieces. */
void perf_script_feed(struct perf_script *p, const void *data, size_t len);
/* End of input: the last snapshot; what was skipped is said on standard
 * error, naming the input. The number of samples read. */
uint64_t perf_script_end(struct perf_script *p, const char *name);
/* Where a frame (a name of a row this reader made) was met: the first
 * address perf printed for it, and its DSO's mapping (NULL: none printed;
 * one range of all addresses, as perf prints them absolute or within the
 * file). False: not one of this reader's names. */
bool perf_script_frame_at(const struct perf_script *p, const char *name,
			  uint64_t *addr, const struct rec_map **map);
/* The host perf's --header named, or NULL. */
const char *perf_script_host(const struct perf_script *p);
void perf_script_free(struct perf_script *p);

#endif
