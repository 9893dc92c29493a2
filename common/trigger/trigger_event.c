// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers that are events, not levels: they fire and are over at once,
 * and --hold says how long the writing goes on.
 *   -T signal     SIGUSR1, through the collector's signalfd
 *   -T file:PATH  PATH is created, written or touched: inotify on its
 *                 directory, so waiting costs no wakeup (a stat every
 *                 period would); the directory must exist. One touch
 *                 is several events (create, attrib, close): events
 *                 within FILE_QUIET of a firing are the same one.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "stackbox.h"
#include "trigger.h"

static const char *sig_open(struct trigger *t, const char *arg)
{
	if (arg)
		help_exit("-T %s: signal takes no argument", t->spec);
	t->momentary = true;
	return NULL;
}

/* trigger_signal() fires it: nothing to check */
static void sig_check(struct trigger *t, uint64_t now)
{
}

const struct trigger_source trigger_sig = {
	"signal", sig_open, sig_check, NULL, NULL,
};

#define FILE_QUIET NS_PER_SEC

struct watched {
	char *path, *name;
	uint64_t fired;
};

static const char *file_open(struct trigger *t, const char *arg)
{
	static char msg[128];
	struct watched *w;
	char *dir;

	if (!arg || !*arg)
		help_exit("-T %s: not file:PATH", t->spec);
	w = xzalloc(sizeof(*w));
	w->path = xstrdup(arg);
	dir = xstrdup(arg);
	w->name = xstrdup(basename(w->path));
	t->priv = w;
	t->momentary = true;
	t->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (t->fd >= 0 &&
	    inotify_add_watch(t->fd, dirname(dir),
			      IN_CREATE | IN_ATTRIB | IN_CLOSE_WRITE |
				      IN_MOVED_TO) < 0) {
		snprintf(msg, sizeof(msg), "cannot watch %s (%s)", dir,
			 strerror(errno));
		free(dir);
		return msg;
	}
	free(dir);
	if (t->fd < 0)
		return "no inotify in this kernel";
	t->fd_events = EPOLLIN;
	return NULL;
}

static void file_check(struct trigger *t, uint64_t now)
{
	struct watched *w = t->priv;
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;
	bool hit = false;

	while ((n = read(t->fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			hit |= e->len && !strcmp(e->name, w->name);
			p += sizeof(*e) + e->len;
		}
	if (!hit || (w->fired && now - w->fired < FILE_QUIET))
		return;
	w->fired = now;
	trigger_fire(t, now, "file %s touched", w->path);
}

static void file_close(struct trigger *t)
{
	struct watched *w = t->priv;

	free(w->path);
	free(w->name);
	free(w);
}

const struct trigger_source trigger_file = {
	"file", file_open, file_check, NULL, file_close,
};
