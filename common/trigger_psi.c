// SPDX-License-Identifier: GPL-2.0
/*
 * -T cpu|memory|io[:some|full]:STALL/WINDOW: the kernel's PSI triggers
 * (5.2+, CONFIG_PSI; Documentation/accounting/psi.rst). The trigger is
 * written into the pressure file and the kernel raises POLLPRI when
 * tasks stalled STALL within WINDOW. Waiting costs nothing: no wakeup
 * until the kernel says so. The kernel says nothing when pressure goes:
 * it repeats the event at most once a window while the stall goes on,
 * so a window and a half without one means the pressure went below it.
 * STACKBOX_PRESSURE_DIR (tests) names another directory: /proc/pressure
 * layout (DIR/cpu) or a cgroup v2 one (DIR/cpu.pressure).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "stackbox.h"
#include "trigger.h"

struct psi {
	const char *res;
	bool full;
	uint64_t stall, window; /* ns */
	uint64_t last_event;
};

static const char *parse(struct psi *p, const char *arg)
{
	char *copy, *slash;
	const char *err = NULL;

	if (!arg)
		return "needs STALL/WINDOW (cpu:some:100ms/1s)";
	if (!strncmp(arg, "some:", 5) || !strncmp(arg, "full:", 5)) {
		p->full = arg[0] == 'f';
		arg += 5;
	}
	copy = xstrdup(arg);
	slash = strchr(copy, '/');
	if (!slash)
		err = "not STALL/WINDOW (100ms/1s)";
	else if (*slash = 0, parse_duration(copy, &p->stall) ||
				     parse_duration(slash + 1, &p->window))
		err = "not STALL/WINDOW (100ms/1s)";
	else if (p->window < 500 * NS_PER_MS || p->window > 10 * NS_PER_SEC)
		err = "WINDOW is 500ms to 10s (the kernel's limits)";
	else if (!p->stall || p->stall > p->window)
		err = "STALL is more than 0 and at most WINDOW";
	free(copy);
	return err;
}

/* DIR/RES, else DIR/RES.pressure; the fd, or -1 with errno. *path:
 * the file tried last (malloc'ed). */
static int open_pressure(const char *res, char **path)
{
	const char *dir = getenv("STACKBOX_PRESSURE_DIR");
	int fd;

	dir = dir && *dir ? dir : "/proc/pressure";
	*path = xasprintf("%s/%s", dir, res);
	fd = open(*path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		free(*path);
		*path = xasprintf("%s/%s.pressure", dir, res);
		fd = open(*path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	}
	return fd;
}

/* Why the kernel would not take the trigger, in a line. */
static const char *refused(const struct psi *p, const char *path, int err)
{
	static char msg[256];

	if (err == ENOENT)
		snprintf(msg, sizeof(msg),
			 "no PSI (%s: no such file; needs 5.2+ and CONFIG_PSI)",
			 path);
	else if (err == EINVAL && p->window % (2 * NS_PER_SEC))
		snprintf(msg, sizeof(msg),
			 "%s refused the trigger: without CAP_SYS_RESOURCE "
			 "the kernel takes only windows of whole 2s",
			 path);
	else
		snprintf(msg, sizeof(msg), "no PSI trigger (%s: %s)", path,
			 strerror(err));
	return msg;
}

static const char *psi_open(struct trigger *t, const char *arg)
{
	struct psi *p = xzalloc(sizeof(*p));
	const char *err = parse(p, arg), *why;
	char line[64], *path;

	t->priv = p;
	p->res = t->src->kind;
	if (err)
		help_exit("-T %s: %s", t->spec, err);
	t->fd = open_pressure(p->res, &path);
	snprintf(line, sizeof(line), "%s %llu %llu", p->full ? "full" : "some",
		 (unsigned long long)(p->stall / 1000),
		 (unsigned long long)(p->window / 1000));
	if (t->fd >= 0 && write(t->fd, line, strlen(line) + 1) < 0) {
		int e = errno;

		close(t->fd);
		t->fd = -1;
		errno = e;
	}
	if (t->fd >= 0) {
		free(path);
		t->fd_events = EPOLLPRI;
		return NULL;
	}
	why = refused(p, path, errno);
	free(path);
	/* CPU pressure is tasks waiting to run: more runnable than CPUs */
	if (!strcmp(p->res, "cpu"))
		snprintf(t->fallback, sizeof(t->fallback), "load:%ld",
			 sysconf(_SC_NPROCESSORS_ONLN));
	return why;
}

/* The line the cause quotes: "some avg10=..." as the kernel has it. */
static void avg10(struct trigger *t, const struct psi *p, char *buf, size_t len)
{
	char text[256], *line, *avg;
	ssize_t n = pread(t->fd, text, sizeof(text) - 1, 0);

	buf[0] = 0;
	if (n <= 0)
		return;
	text[n] = 0;
	line = strstr(text, p->full ? "full" : "some");
	avg = line ? strstr(line, "avg10=") : NULL;
	if (avg)
		snprintf(buf, len, ", avg10 %.*s%%",
			 (int)strcspn(avg + 6, " \n"), avg + 6);
}

static void psi_check(struct trigger *t, uint64_t now)
{
	struct psi *p = t->priv;
	const char *kind = p->full ? "full" : "some";
	char avg[32];

	if (t->ready) { /* the kernel's event */
		p->last_event = now;
		if (t->active)
			return;
		t->period_ns = p->window / 4; /* to see it end */
		t->next_check = now + t->period_ns;
		avg10(t, p, avg, sizeof(avg));
		trigger_fire(t, now,
			     "%s %s pressure: stalled %llums in %llums%s",
			     p->res, kind,
			     (unsigned long long)(p->stall / NS_PER_MS),
			     (unsigned long long)(p->window / NS_PER_MS), avg);
	} else if (t->active && now - p->last_event >= p->window * 3 / 2) {
		t->period_ns = 0;
		trigger_clear(t, now, "%s %s pressure below %llums in %llums",
			      p->res, kind,
			      (unsigned long long)(p->stall / NS_PER_MS),
			      (unsigned long long)(p->window / NS_PER_MS));
	}
}

static void psi_close(struct trigger *t)
{
	free(t->priv);
}

#define PSI_SOURCE(name)                                     \
	const struct trigger_source trigger_psi_##name = {   \
		#name, psi_open, psi_check, NULL, psi_close, \
	}
PSI_SOURCE(cpu);
PSI_SOURCE(memory);
PSI_SOURCE(io);
