// SPDX-License-Identifier: GPL-2.0
/*
 * -T cpu|memory|io[:some|full]:STALL/WINDOW: the kernel's PSI triggers
 * (5.2+, CONFIG_PSI; Documentation/accounting/psi.rst). The trigger is
 * written into the pressure file and the kernel raises POLLPRI when
 * tasks stalled STALL within WINDOW. Waiting costs nothing: no wakeup
 * until the kernel says so. The kernel says nothing when pressure goes,
 * and its events come late (a window after the stall began, measured on
 * 6.18), so while it is active the file's total stall is read every
 * quarter window: less than STALL over the last WINDOW clears it.
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

#define PSI_CHECKS 4 /* a window's checks while active */

struct psi {
	const char *res;
	bool full;
	uint64_t stall, window; /* ns */
	/* while active: total stall (us) at the last checks, a window */
	unsigned long long total[PSI_CHECKS + 1];
	unsigned ntotal;
	uint64_t cleared; /* when it last cleared */
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

/* The line of the trigger's kind in the file, in buf; NULL if none. */
static const char *pressure_line(struct trigger *t, const struct psi *p,
				 char *buf, size_t len)
{
	ssize_t n = pread(t->fd, buf, len - 1, 0);

	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strstr(buf, p->full ? "full" : "some");
}

/* The total stall so far (us), -1 when it cannot be read. */
static long long total(struct trigger *t, const struct psi *p)
{
	char buf[256];
	const char *line = pressure_line(t, p, buf, sizeof(buf)), *tot;

	tot = line ? strstr(line, "total=") : NULL;
	return tot ? strtoll(tot + 6, NULL, 10) : -1;
}

static void psi_fired(struct trigger *t, struct psi *p, uint64_t now)
{
	char buf[256], avg[32] = "";
	const char *line = pressure_line(t, p, buf, sizeof(buf));
	const char *a = line ? strstr(line, "avg10=") : NULL;

	if (a)
		snprintf(avg, sizeof(avg), ", avg10 %.*s%%",
			 (int)strcspn(a + 6, " \n"), a + 6);
	p->ntotal = 0;
	t->period_ns = p->window / PSI_CHECKS;
	t->next_check = now; /* the first total now */
	trigger_fire(t, now, "%s %s pressure: stalled %llums in %llums%s",
		     p->res, p->full ? "full" : "some",
		     (unsigned long long)(p->stall / NS_PER_MS),
		     (unsigned long long)(p->window / NS_PER_MS), avg);
}

static void psi_check(struct trigger *t, uint64_t now)
{
	struct psi *p = t->priv;
	long long v;

	if (t->ready) { /* the kernel's event */
		/* a late one, about the window the totals just judged */
		if (!t->active &&
		    (!p->cleared || now - p->cleared >= p->window))
			psi_fired(t, p, now);
		return;
	}
	if (!t->active || (v = total(t, p)) < 0)
		return;
	if (p->ntotal == PSI_CHECKS + 1) {
		memmove(p->total, p->total + 1, PSI_CHECKS * sizeof(*p->total));
		p->ntotal--;
	}
	p->total[p->ntotal++] = v;
	if (p->ntotal <= PSI_CHECKS ||
	    (p->total[PSI_CHECKS] - p->total[0]) * 1000 >= p->stall)
		return;
	t->period_ns = 0;
	p->cleared = now;
	trigger_clear(t, now,
		      "%s %s pressure: stalled %llums in the last %llums",
		      p->res, p->full ? "full" : "some",
		      (p->total[PSI_CHECKS] - p->total[0]) / 1000,
		      (unsigned long long)(p->window / NS_PER_MS));
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
