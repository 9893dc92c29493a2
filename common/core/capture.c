// SPDX-License-Identifier: GPL-2.0
/* Triggered capture and the flight recorder; see capture.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "bin_replay.h"
#include "binfmt.h"
#include "capture.h"
#include "collector.h"
#include "output.h"
#include "output_sink.h"
#include "recorder.h"
#include "sink.h"
#include "trigger.h"

struct capture {
	struct collector *c;
	capture_take_fn take;
	struct trigger_set *trig;
	struct recorder *ring; /* -R */
	bool open;	       /* writing: a trigger active, or holding */
	bool opening;	       /* fired: open at the next capture_due() */
	uint64_t hold_until;   /* none active: close then; 0: one is */
	bool dump_now;	       /* the next snapshot ends the ring's window */
	struct mark *marks;    /* not yet written */
	size_t nmarks, marks_cap;
	unsigned long nmarked;
};

static void add_mark(struct capture *cap, enum mark_kind kind,
		     const struct timespec *when, const char *cause)
{
	struct mark *m;

	cap->marks = grow_array(cap->marks, &cap->marks_cap, cap->nmarks + 1,
				sizeof(*cap->marks));
	m = &cap->marks[cap->nmarks++];
	m->n = ++cap->nmarked;
	m->kind = kind;
	m->when = *when;
	m->cause = xstrdup(cause);
	verbose("mark %lu %s: %s", m->n, mark_kind_name[kind], cause);
}

static void open_window(struct capture *cap, uint64_t now)
{
	struct collector *c = cap->c;

	cap->open = true;
	if (cap->ring) {
		/* a snapshot up to the firing ends the window: then the
		 * ring is written, this one last, with the marks */
		cap->dump_now = true;
		cap->take(c, false);
	} else {
		c->ctl->paused = 0;
		collect_interval_begin(c);
	}
	c->next_snap = c->o->interval ? now + c->o->interval : 0;
}

static void close_window(struct capture *cap, uint64_t now)
{
	struct collector *c = cap->c;

	if (!cap->ring)
		c->ctl->paused = 1; /* before the flip: the rest is drained */
	cap->take(c, false);
	cap->open = false;
	cap->hold_until = 0;
	c->next_snap = cap->ring && c->o->interval ? now + c->o->interval : 0;
}

static void changed(void *ctx, struct trigger *t, bool fired, uint64_t now)
{
	struct capture *cap = ctx;
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	add_mark(cap, fired ? MARK_FIRED : MARK_CLEARED, &wall, t->cause);
	status_say("trigger %s %s: %s", t->spec, fired ? "fired" : "cleared",
		   t->cause);
	if (fired) {
		cap->hold_until = 0;
		/* not here: an event's clearing is still to be marked */
		cap->opening = !cap->open;
	} else if (!trigger_any_active(cap->trig)) {
		cap->hold_until = now + cap->c->o->hold;
	}
}

struct capture *capture_new(struct collector *c, capture_take_fn take)
{
	const struct collect_opts *o = c->o;
	struct capture *cap;

	if (!o->triggers.n) {
		if (o->record)
			help_exit("-R: needs a trigger (-T) to write it out");
		return NULL;
	}
	if (o->record && !o->interval)
		help_exit("-R: needs snapshots at an interval (-i)");
	if (o->record && !ENABLE_FORMAT_BIN)
		help_exit("-R: the ring is bin: not in this build "
			  "(CONFIG_FORMAT_BIN)");
	cap = xzalloc(sizeof(*cap));
	cap->take = take;
	cap->c = c;
	cap->trig =
		trigger_set_open(o->triggers.spec, o->triggers.n, changed, cap);
	if (o->record)
		cap->ring = recorder_new(o->record, o->record_bytes);
	else if (trigger_needs_snapshots(cap->trig))
		help_exit("-T anomaly: needs -R (without it no snapshot is "
			  "taken while the triggers wait)");
	return cap;
}

void capture_loaded(struct capture *cap)
{
	if (cap && !cap->ring && !cap->open)
		cap->c->ctl->paused = 1;
}

void capture_watch(struct capture *cap, int epfd)
{
	for (size_t i = 0; i < trigger_count(cap->trig); i++) {
		struct trigger *t = trigger_at(cap->trig, i);
		struct epoll_event ev = {.events = t->fd_events,
					 .data.u32 = CAPTURE_EV + i};

		if (t->fd >= 0 && t->fd_events)
			epoll_ctl(epfd, EPOLL_CTL_ADD, t->fd, &ev);
	}
}

uint64_t capture_due(struct capture *cap, uint64_t now)
{
	uint64_t next = trigger_tick(cap->trig, now);

	if (cap->opening) {
		cap->opening = false;
		open_window(cap, now);
	}
	if (cap->open && cap->hold_until && now >= cap->hold_until)
		close_window(cap, now);
	if (cap->open && cap->hold_until && (!next || cap->hold_until < next))
		next = cap->hold_until;
	return next;
}

void capture_ready(struct capture *cap, unsigned i, uint64_t now)
{
	trigger_ready(cap->trig, i, now);
}

void capture_signal(struct capture *cap, uint64_t now)
{
	trigger_signal(cap->trig, now);
}

bool capture_taking(const struct capture *cap)
{
	return !cap || cap->open || cap->ring;
}

/* The window the ring holds, as a mark on the snapshot that ends it. */
static void window_mark(struct capture *cap, const struct snapshot *s)
{
	const struct recorder_stats *st = recorder_stats(cap->ring);
	const struct collect_opts *o = cap->c->o;
	char cause[256];

	snprintf(cause, sizeof(cause),
		 "flight recorder: %zu snapshots before this one, from the "
		 "time of this mark; %zu of at most %lld bytes; dropped %llu "
		 "snapshots (%llu bytes) to stay within them, %llu older "
		 "than %.0f s",
		 st->snapshots, st->bytes, o->record_bytes,
		 (unsigned long long)st->dropped,
		 (unsigned long long)st->dropped_bytes,
		 (unsigned long long)st->expired, o->record / 1e9);
	add_mark(cap, MARK_WINDOW, st->snapshots ? &st->from : &s->start,
		 cause);
	status_say("%s", cause);
}

static void to_dump(void *ctx, const void *p, size_t len)
{
	bin_replay_dump_feed(ctx, p, len);
}

static void clear_marks(struct capture *cap)
{
	for (size_t i = 0; i < cap->nmarks; i++)
		free((char *)cap->marks[i].cause);
	cap->nmarks = 0;
}

/* To the ring, or with the ring before it, or live; "" when waiting. */
static int write_or_keep(struct capture *cap, struct snapshot *s)
{
	struct collector *c = cap->c;
	struct bin_replay_dump *d;
	struct bbuf b = {0};
	int err;

	if (cap->ring && (!cap->open || cap->dump_now)) {
		if (cap->dump_now)
			window_mark(cap, s);
		s->marks = cap->marks;
		s->nmarks = cap->dump_now ? cap->nmarks : 0;
		output_encode(c->out, s, &b);
		recorder_add(cap->ring, &s->start, &s->end, &b);
		if (!cap->dump_now)
			return 0;
		cap->dump_now = false;
		clear_marks(cap);
		if (!ENABLE_FORMAT_BIN) /* -R needs it: no ring without */
			return 0;
		d = bin_replay_dump_begin(c->out);
		recorder_take(cap->ring, to_dump, d);
		return bin_replay_dump_end(d);
	}
	if (!cap->open)
		return 0; /* waiting: the gate kept it empty */
	s->marks = cap->marks;
	s->nmarks = cap->nmarks;
	err = output_snapshot(c->out, s);
	clear_marks(cap);
	return err;
}

int capture_emit(struct capture *cap, struct snapshot *s)
{
	int err = write_or_keep(cap, s);

	/* sources that watch the snapshots see each once it is placed:
	 * what they mark goes with the next */
	trigger_snapshot(cap->trig, s, now_ns());
	return err;
}

void capture_free(struct capture *cap)
{
	if (!cap)
		return;
	if (cap->ring) {
		const struct recorder_stats *st = recorder_stats(cap->ring);

		verbose("flight recorder: held at most %zu bytes (bound %lld)",
			st->peak_bytes, cap->c->o->record_bytes);
		verbose("flight recorder: dropped %llu snapshots (%llu bytes) "
			"for the bound since it was last written",
			(unsigned long long)st->dropped,
			(unsigned long long)st->dropped_bytes);
	}
	trigger_set_close(cap->trig);
	recorder_free(cap->ring);
	clear_marks(cap);
	free(cap->marks);
	free(cap);
}
