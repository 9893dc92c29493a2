/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which snapshots are written, under -T (docs/triggers.md):
 *   -T alone  while a trigger is active and --hold after; between, the
 *             BPF programs stay attached and the gate in sb_ctl stops
 *             them counting, and no snapshot is taken;
 *   -T and -R every interval's snapshot goes to the flight recorder's
 *             ring; a firing writes the ring, then live snapshots as
 *             above, then the ring starts again.
 * Every firing and clearing is a mark, written with the next snapshot.
 */
#ifndef STACKBOX_CAPTURE_H
#define STACKBOX_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

struct collector;
struct snapshot;
struct capture;

/* epoll data of trigger i's fd: CAPTURE_EV + i */
#define CAPTURE_EV 16

/* NULL without -T. Before BPF is loaded: it opens the triggers. take
 * takes a snapshot (the drain, which calls capture_emit with it). */
typedef int (*capture_take_fn)(struct collector *c, bool final);
struct capture *capture_new(struct collector *c, capture_take_fn take);
/* After load, before attach: close the gate when waiting starts. */
void capture_loaded(struct capture *cap);
void capture_watch(struct capture *cap, int epfd);
/* Run what is due; the next time something will be (0: nothing). */
uint64_t capture_due(struct capture *cap, uint64_t now);
void capture_ready(struct capture *cap, unsigned i, uint64_t now);
void capture_signal(struct capture *cap, uint64_t now);
/* Are interval snapshots taken now? */
bool capture_taking(const struct capture *cap);
/* A snapshot taken: to the ring, the output, or nowhere. */
int capture_emit(struct capture *cap, struct snapshot *s);
void capture_free(struct capture *cap);

#endif
