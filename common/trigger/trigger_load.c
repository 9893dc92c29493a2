// SPDX-License-Identifier: GPL-2.0
/*
 * -T load:N[:PERIOD] and -T dstate:N[:PERIOD]: more than N runnable
 * tasks, or more than N tasks blocked on I/O. Both come from /proc/stat
 * (procs_running, procs_blocked), which the kernel keeps as counters:
 * one pread() costs 3.5 us here. A check every PERIOD (10 ms by default,
 * as the load-monitor does, so a short burst is seen) costs mostly the
 * wakeup: about 1% of a CPU on this VM (bench/triggers.sh); 100ms costs
 * a tenth of that.
 * procs_blocked is the kernel's nr_iowait: tasks in uninterruptible
 * sleep waiting for I/O (block, page, swap). Other D-state waits (a
 * vfork parent, a mutex) are not counted anywhere cheap; counting them
 * would take a BPF program on sched_switch in every applet or a walk of
 * /proc, both costlier than the trigger is worth.
 * Fires on the first sample above N; clears after LOAD_SETTLE of
 * samples at or below N, so one quiet sample amid a storm does not
 * split it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbox.h"
#include "trigger.h"

#define LOAD_PERIOD "10ms"
#define LOAD_SETTLE (1 * NS_PER_SEC)

struct load {
	const char *field, *what;
	long long n;
	uint64_t quiet_since; /* 0: the last sample was above N */
	long long peak;	      /* the most seen since it fired */
};

static const char *load_open(struct trigger *t, const char *arg)
{
	struct load *l = xzalloc(sizeof(*l));
	char *end;

	t->priv = l;
	if (t->src == &trigger_load) {
		l->field = "procs_running ";
		l->what = "runnable";
	} else {
		l->field = "procs_blocked ";
		l->what = "blocked on I/O";
	}
	l->n = arg ? strtoll(arg, &end, 10) : -1;
	if (!arg || end == arg || (*end && *end != ':') || l->n < 0 ||
	    l->n > 1 << 30 ||
	    parse_duration(*end ? end + 1 : LOAD_PERIOD, &t->period_ns) ||
	    t->period_ns < NS_PER_MS || t->period_ns > 10 * NS_PER_SEC)
		help_exit("-T %s: not %s:N[:PERIOD] (N tasks, 0 or more; "
			  "PERIOD 1ms to 10s, 10ms if not given)",
			  t->spec, t->src->kind);
	t->fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (t->fd < 0)
		return "cannot read /proc/stat";
	t->fd_events = 0; /* read on a period, never polled */
	return NULL;
}

/* The count after field in /proc/stat; -1 when it cannot be read. */
static long long sample(struct trigger *t, const char *field)
{
	char buf[16384];
	ssize_t n = pread(t->fd, buf, sizeof(buf) - 1, 0);
	const char *p;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, field);
	return p ? strtoll(p + strlen(field), NULL, 10) : -1;
}

static void load_check(struct trigger *t, uint64_t now)
{
	struct load *l = t->priv;
	long long v = sample(t, l->field);

	if (v < 0)
		return;
	if (v > l->n) {
		l->quiet_since = 0;
		if (!t->active)
			l->peak = 0;
		l->peak = v > l->peak ? v : l->peak;
		trigger_fire(t, now, "%s: %lld tasks %s, more than %lld",
			     t->src->kind, v, l->what, l->n);
		return;
	}
	if (!l->quiet_since)
		l->quiet_since = now;
	if (t->active && now - l->quiet_since >= LOAD_SETTLE)
		trigger_clear(
			t, now,
			"%s: %lld or fewer tasks %s for %.1f s (peak %lld)",
			t->src->kind, l->n, l->what,
			(double)LOAD_SETTLE / NS_PER_SEC, l->peak);
}

static void load_close(struct trigger *t)
{
	free(t->priv);
}

const struct trigger_source trigger_load = {
	"load", load_open, load_check, NULL, load_close,
};
const struct trigger_source trigger_dstate = {
	"dstate", load_open, load_check, NULL, load_close,
};
