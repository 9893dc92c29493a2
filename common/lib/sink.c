// SPDX-License-Identifier: GPL-2.0
/* Sinks and status records; see sink.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <termios.h>
#include <unistd.h>

#include "sink.h"
#include "stackbox.h"

struct sink {
	int fd; /* -1: failed, open again at the next write */
	char *path;
	bool is_stdout, terminal, device, binary;
	bool regular;  /* a regular file, -o FILE's or standard output's */
	uint64_t size; /* of the current file */
	uint64_t rotate_size;
	unsigned rotate_count;
	long long baud;
	const char *refused; /* why a shared directory's file was not used */
};

static const struct {
	long long baud;
	speed_t speed;
} speeds[] = {
	{1200, B1200},	     {2400, B2400},	  {4800, B4800},
	{9600, B9600},	     {19200, B19200},	  {38400, B38400},
	{57600, B57600},     {115200, B115200},	  {230400, B230400},
	{460800, B460800},   {921600, B921600},	  {1000000, B1000000},
	{1500000, B1500000}, {2000000, B2000000}, {3000000, B3000000},
	{4000000, B4000000},
};

/*
 * A tty in its default (cooked) mode rewrites what passes through it:
 * "\n" becomes "\r\n", ^S stops output, ^C may become a signal. Raw mode
 * passes bytes through untouched, as a binary stream needs.
 */
static int make_raw(struct sink *s)
{
	struct termios t;

	if (tcgetattr(s->fd, &t))
		return -1;
	cfmakeraw(&t);
	for (size_t i = 0; s->baud && i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].baud == s->baud) {
			cfsetispeed(&t, speeds[i].speed);
			cfsetospeed(&t, speeds[i].speed);
		}
	t.c_cflag |= CLOCAL; /* no modem control lines on a bare UART */
	if (!s->binary) /* text on a serial console: lines start at column 0 */
		t.c_oflag |= OPOST | ONLCR;
	return tcsetattr(s->fd, TCSANOW, &t);
}

static bool ours(uid_t uid)
{
	return uid == 0 || uid == getuid() || uid == geteuid();
}

/*
 * Does someone else decide what the names in path's directory are: a
 * directory others or the group can write (/tmp, /dev/shm), or that
 * another user owns?
 */
static bool in_shared_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat st;
	bool shared;

	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = 0;
	shared = stat(dir, &st) || (st.st_mode & (S_IWOTH | S_IWGRP)) ||
		 !ours(st.st_uid);
	free(dir);
	return shared;
}

/*
 * -o FILE in a shared directory: a name someone may have planted. FILE
 * is created new (O_EXCL), never through a symlink (O_NOFOLLOW). If it
 * exists, the user named it, so it is written (truncated at the start,
 * appended to after a failed write) only if it is a regular file with
 * one link, owned by the user or root: the rule fs.protected_regular
 * applies to O_CREAT in sticky directories, and a hard link to another
 * user's file is refused too. Anything else is refused in one line.
 */
static int open_shared(struct sink *s, bool truncate)
{
	struct stat st;
	int fd;

	fd = open(s->path,
		  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
			  O_NOCTTY,
		  0644);
	if (fd >= 0 || errno != EEXIST)
		goto out;
	fd = open(s->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
				   O_NONBLOCK | (truncate ? 0 : O_APPEND));
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    !ours(st.st_uid) || (truncate && ftruncate(fd, 0))) {
		close(fd);
		fd = -1;
		errno = EPERM;
	}
out:
	if (fd < 0 && (errno == ELOOP || errno == EPERM || errno == ENXIO))
		s->refused = "in a directory others can write, it is a "
			     "symlink or not a regular file of the user's or "
			     "root's: refused";
	return fd;
}

static int open_path(struct sink *s, bool truncate)
{
	struct stat st;

	s->refused = NULL;
	/* O_NONBLOCK: a serial port may wait for carrier on open */
	if (in_shared_dir(s->path))
		s->fd = open_shared(s, truncate);
	else
		s->fd = open(s->path,
			     O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY |
				     O_NONBLOCK |
				     (truncate ? O_TRUNC : O_APPEND),
			     0644);
	if (s->fd < 0)
		return -1;
	s->device = !fstat(s->fd, &st) && S_ISCHR(st.st_mode);
	/* a device stays non-blocking: sink_write bounds its waits */
	if (!s->device)
		fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) & ~O_NONBLOCK);
	s->regular = S_ISREG(st.st_mode);
	s->terminal = isatty(s->fd);
	if (s->terminal && make_raw(s))
		perror_msg("-o %s: cannot switch the terminal to raw mode",
			   s->path);
	s->size =
		s->device || truncate ? 0 : (uint64_t)lseek(s->fd, 0, SEEK_END);
	return 0;
}

struct sink *sink_open(const char *path, uint64_t rotate_size,
		       unsigned rotate_count, long long baud, bool binary)
{
	struct sink *s = xzalloc(sizeof(*s));
	bool known = !baud;
	struct stat st;

	s->binary = binary;
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		known |= speeds[i].baud == baud;
	if (!known)
		help_exit("--baud %lld: not a serial speed (9600, 115200, "
			  "921600...)",
			  baud);
	s->baud = baud;
	s->rotate_size = rotate_size;
	s->rotate_count = rotate_count;
	if (!path || !strcmp(path, "-")) {
		s->fd = STDOUT_FILENO;
		s->is_stdout = true;
		s->path = xstrdup("standard output");
		s->terminal = isatty(s->fd);
		s->regular = !fstat(s->fd, &st) && S_ISREG(st.st_mode);
	} else {
		s->path = xstrdup(path);
		if (open_path(s, true) && s->refused)
			error_exit("-o %s: %s", path, s->refused);
		if (s->fd < 0)
			perror_exit("-o %s", path);
	}
	if (baud && (s->is_stdout || !s->terminal))
		help_exit("--baud: %s is not a terminal", s->path);
	if (rotate_size && (s->is_stdout || s->device))
		help_exit("--rotate: %s is not a regular file", s->path);
	return s;
}

const char *sink_name(const struct sink *s)
{
	return s->path;
}

bool sink_is_terminal(const struct sink *s)
{
	return s->terminal;
}

/* A regular file removed under us (a log cleaner, a user) takes what is
 * written to it nowhere: the next write makes a new one. */
static bool removed(const struct sink *s)
{
	struct stat st;

	return s->fd >= 0 && !s->is_stdout && s->regular &&
	       !fstat(s->fd, &st) && !st.st_nlink;
}

static bool rotation_due(const struct sink *s, size_t len)
{
	return s->rotate_size && s->size && s->size + len > s->rotate_size;
}

bool sink_rotates(const struct sink *s, size_t len)
{
	return rotation_due(s, len) || removed(s);
}

/* FILE -> FILE.1 -> ... -> FILE.COUNT; the oldest goes. Once: a new
 * FILE that cannot be created (a full disk) is tried again at each
 * write, without rotating again, which would push out the old files. */
static void rotate(struct sink *s)
{
	char *from, *to;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->size = 0;
	for (unsigned i = s->rotate_count; i > 0; i--) {
		from = i > 1 ? xasprintf("%s.%u", s->path, i - 1)
			     : xstrdup(s->path);
		to = xasprintf("%s.%u", s->path, i);
		if (rename(from, to) && errno != ENOENT)
			perror_msg("--rotate: renaming %s", from);
		free(from);
		free(to);
	}
	if (!s->rotate_count)
		unlink(s->path);
	if (open_path(s, true))
		perror_msg("--rotate: opening %s again", s->path);
}

/*
 * A serial port drains at its baud rate; one whose peer holds it (a pty
 * nobody reads, hardware flow control with the cable pulled) would
 * block the run, and with it every snapshot, for as long as that lasts.
 * A device waits at most this long for room, then the snapshot is
 * counted as not written (EAGAIN).
 */
#define DEVICE_STALL_MS 2000

static bool writable_soon(const struct sink *s)
{
	struct pollfd p = {.fd = s->fd, .events = POLLOUT};

	return s->device && poll(&p, 1, DEVICE_STALL_MS) == 1 &&
	       !(p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

static void renew(struct sink *s)
{
	error_msg("-o %s: the file was removed: writing a new one", s->path);
	status_say("-o %s was removed: writing a new one", s->path);
	close(s->fd);
	open_path(s, true);
}

/* A snapshot that did not fit (a full disk) is taken back out of a
 * regular file, so what the file holds stays whole snapshots: also
 * standard output sent to one (offcpu -d 10 > /log/x). */
static void take_back(struct sink *s, off_t to, uint64_t size)
{
	if (to >= 0 && !ftruncate(s->fd, to) && lseek(s->fd, to, SEEK_SET) >= 0)
		s->size = size;
}

int sink_write(struct sink *s, const void *buf, size_t len)
{
	const char *p = buf;
	uint64_t size;
	off_t start;

	if (rotation_due(s, len))
		rotate(s);
	else if (removed(s))
		renew(s);
	if (s->fd < 0 && open_path(s, false))
		return -1;
	size = s->size;
	start = s->regular ? lseek(s->fd, 0, SEEK_CUR) : -1;
	while (len) {
		ssize_t n = write(s->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && writable_soon(s))
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;

			take_back(s, start, size);
			/* a port that went away: open it again next time */
			if (!s->is_stdout && s->device && err != EAGAIN) {
				close(s->fd);
				s->fd = -1;
			}
			errno = err;
			return -1;
		}
		p += n;
		len -= n;
		s->size += n;
	}
	return 0;
}

bool sink_reader_gone(const struct sink *s, int err)
{
	struct stat st;

	return err == EPIPE && s->fd >= 0 && !fstat(s->fd, &st) &&
	       (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int sink_close(struct sink *s)
{
	int err = 0;

	if (!s)
		return 0;
	if (!s->is_stdout && s->fd >= 0 && close(s->fd))
		err = -1;
	free(s->path);
	free(s);
	return err;
}

/* ---- status records ---- */
static enum { STATUS_NONE, STATUS_KMSG, STATUS_SYSLOG } status_kind;
static int kmsg_fd = -1;

const char *status_open(const char *kind)
{
	if (!kind || !*kind)
		return NULL;
	if (!strcmp(kind, "kmsg")) {
		kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
		if (kmsg_fd < 0)
			return "cannot open /dev/kmsg";
		status_kind = STATUS_KMSG;
	} else if (!strcmp(kind, "syslog")) {
		openlog("stackbox", LOG_PID, LOG_DAEMON);
		status_kind = STATUS_SYSLOG;
	} else {
		return "not a status sink (kmsg, syslog)";
	}
	return NULL;
}

void status_say(const char *fmt, ...)
{
	char line[512];
	int n;
	va_list ap;

	if (status_kind == STATUS_NONE)
		return;
	n = snprintf(line, sizeof(line), "<6>stackbox %s[%d]: ", applet_name,
		     (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (status_kind == STATUS_KMSG) {
		/* one write is one record; without its newline the kernel
		 * holds it open for a continuation. A failure here is not
		 * worth a word. */
		n = strlen(line);
		if (n < (int)sizeof(line) - 1)
			line[n++] = '\n';
		if (write(kmsg_fd, line, n) < 0)
			return;
	} else {
		syslog(LOG_INFO, "%s", line + n);
	}
}
