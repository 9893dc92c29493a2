/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers (-T SPEC): sources that fire and clear, each with a cause.
 * A source is watched one of two ways, or both: an fd the main loop
 * polls (PSI's POLLPRI, inotify), or a check every period (/proc/stat).
 * Its check() calls trigger_fire() or trigger_clear(); the set tells
 * its owner (capture.c) of every change. A source that watches the
 * snapshots themselves (the anomaly detector) has snapshot() instead.
 * Adding a source is a file with a struct trigger_source and a line in
 * trigger.c's table: nothing else in the core changes.
 */
#ifndef STACKBOX_TRIGGER_H
#define STACKBOX_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;
struct trigger;

/* A change: fired (else cleared), t->cause says why, now when. */
typedef void (*trigger_changed)(void *ctx, struct trigger *t, bool fired,
				uint64_t now);

struct trigger_source {
	const char *kind; /* the spec's first word: "cpu", "load", "file" */
	/* Parse the spec's rest (after "kind:" or "", NULL without one)
	 * into t, open what it needs. NULL, or what is wrong (one line) */
	const char *(*open)(struct trigger *t, const char *arg);
	/* t->fd became ready, or t->period_ns passed; now: CLOCK_MONOTONIC */
	void (*check)(struct trigger *t, uint64_t now);
	/* Each snapshot taken (NULL: not wanted). */
	void (*snapshot)(struct trigger *t, const struct snapshot *s,
			 uint64_t now);
	void (*close)(struct trigger *t);
};

struct trigger {
	const struct trigger_source *src;
	trigger_changed changed; /* told of every change (trigger_change.c) */
	void *owner;		 /* its ctx */
	const char *spec;	 /* as given to -T */
	int fd;			 /* -1: none; else polled for fd_events */
	unsigned fd_events;
	uint64_t period_ns; /* 0: no periodic check */
	uint64_t next_check;
	bool ready; /* check(): because fd became ready */
	bool active;
	bool momentary;	      /* fires and clears at once (signal, file) */
	bool needs_snapshots; /* watches them: only with -R (anomaly) */
	char cause[160];
	void *priv; /* the source's own */
	/* the source to use instead when this one cannot work here: a
	 * spec, set by open() with its one-line message */
	char fallback[64];
};

struct trigger_set;
/* Open every spec (one line and the fallback for what cannot work
 * here; exit when none can). */
struct trigger_set *trigger_set_open(const char *const *specs, size_t n,
				     trigger_changed fn, void *ctx);
size_t trigger_count(const struct trigger_set *ts);
struct trigger *trigger_at(struct trigger_set *ts, size_t i);
/* Run the checks that are due; the next time one is due (0: none). */
uint64_t trigger_tick(struct trigger_set *ts, uint64_t now);
/* Trigger i's fd is ready. */
void trigger_ready(struct trigger_set *ts, size_t i, uint64_t now);
/* SIGUSR1 arrived. */
void trigger_signal(struct trigger_set *ts, uint64_t now);
void trigger_snapshot(struct trigger_set *ts, const struct snapshot *s,
		      uint64_t now);
/* Does some trigger watch the snapshots (anomaly: -R only)? */
bool trigger_needs_snapshots(const struct trigger_set *ts);
/* Is some trigger active? */
bool trigger_any_active(const struct trigger_set *ts);
void trigger_set_close(struct trigger_set *ts);

/* Is spec well formed? NULL, or what is wrong (the option parser). */
const char *trigger_spec_check(const char *spec);
/* Does any spec want SIGUSR1 (the signalfd must block it first)? */
bool trigger_wants_signal(const char *const *specs, size_t n);

/* For sources: report a change (no-op when it is no change). */
void trigger_fire(struct trigger *t, uint64_t now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void trigger_clear(struct trigger *t, uint64_t now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The sources (trigger_*.c). */
extern const struct trigger_source trigger_psi_cpu, trigger_psi_memory,
	trigger_psi_io, trigger_load, trigger_dstate, trigger_sig, trigger_file,
	trigger_anomaly;

#endif
