// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a file inside another process's root (/proc/PID/root). The
 * container owns every name on the way: an absolute symlink, a ".." too
 * many or a bind of the host's /etc must not lead to a host file, so the
 * path is resolved with that directory as "/": by the kernel (openat2 and
 * RESOLVE_IN_ROOT, 5.6+), else by our own walk, one component at a time
 * with O_NOFOLLOW, each link read and resolved against the same root.
 *
 * Only regular files are opened for reading, and the type is checked on
 * an O_PATH descriptor before the file is opened for real: opening a FIFO
 * blocks, opening a device may act (a watchdog starts when opened), and
 * /dev/zero never ends. The descriptor is read only; nothing here maps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs.h"

#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif
#define SB_RESOLVE_NO_MAGICLINKS 0x02
#define SB_RESOLVE_IN_ROOT	 0x10

/* struct open_how of <linux/openat2.h>, which older libcs lack */
struct sb_open_how {
	uint64_t flags, mode, resolve;
};

/* Directories deep below root that the walk holds open at once. */
#define WALK_MAX_DEPTH 128

/* The regular file behind an O_PATH descriptor, for reading; closes it. */
static int reopen_regular(int pfd)
{
	char self[64];
	struct stat st, st2;
	int fd;

	if (fstat(pfd, &st)) {
		close(pfd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > ROOTFS_FILE_MAX) {
		close(pfd);
		/* not a regular file: no program to read symbols from */
		errno = S_ISREG(st.st_mode) ? EFBIG : ENOEXEC;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	close(pfd);
	/* the same file, not one swapped in since */
	if (fd >= 0 && (fstat(fd, &st2) || st2.st_dev != st.st_dev ||
			st2.st_ino != st.st_ino)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

struct walk {
	int root;
	int dirs[WALK_MAX_DEPTH]; /* dirs[i]: depth i + 1; owned */
	int depth;
	int hops;
	char *rest; /* what is left of the path; owned */
};

static int walk_cwd(const struct walk *w)
{
	return w->depth ? w->dirs[w->depth - 1] : w->root;
}

static void walk_up(struct walk *w, int to)
{
	while (w->depth > to)
		close(w->dirs[--w->depth]);
}

/* A link met at name in the current directory: its target, then the
 * rest of the path, become what is left; an absolute one starts again
 * at root. */
static int walk_link(struct walk *w, const char *name, const char *after)
{
	char target[4096], *rest;
	ssize_t n;

	if (++w->hops > ROOTFS_MAX_HOPS) {
		errno = ELOOP;
		return -1;
	}
	n = readlinkat(walk_cwd(w), name, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	if (n == sizeof(target) - 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	target[n] = 0;
	if (target[0] == '/')
		walk_up(w, 0);
	if (asprintf(&rest, "%s/%s", target, after) < 0)
		return -1;
	free(w->rest);
	w->rest = rest;
	return 0;
}

/* One component: 1 when the file is open in *fd, 0 to go on, -1. */
static int walk_step(struct walk *w, int *fd)
{
	char *p = w->rest, *name, *after;
	struct stat st;
	bool last;
	int d;

	while (*p == '/')
		p++;
	name = p;
	p += strcspn(p, "/");
	after = p + strspn(p, "/");
	last = !*after;
	if (*p)
		*p = 0;
	if (!*name) { /* the path named root itself */
		errno = EISDIR;
		return -1;
	} else if (!strcmp(name, ".")) {
		/* nothing to do */
	} else if (!strcmp(name, "..")) {
		walk_up(w, w->depth ? w->depth - 1 : 0);
	} else {
		d = openat(walk_cwd(w), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (d < 0)
			return -1;
		if (fstat(d, &st)) {
			close(d);
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			close(d);
			return walk_link(w, name, after) < 0 ? -1 : 0;
		}
		if (last) {
			*fd = d;
			return 1;
		}
		if (!S_ISDIR(st.st_mode) || w->depth == WALK_MAX_DEPTH) {
			close(d);
			errno = S_ISDIR(st.st_mode) ? ENAMETOOLONG : ENOTDIR;
			return -1;
		}
		w->dirs[w->depth++] = d;
	}
	if (last) {
		errno = EISDIR;
		return -1;
	}
	memmove(w->rest, after, strlen(after) + 1);
	return 0;
}

int rootfs_open_walk(int root_fd, const char *path)
{
	struct walk w = {.root = root_fd};
	int r, fd = -1, err;

	w.rest = strdup(path);
	if (!w.rest)
		return -1;
	while (!(r = walk_step(&w, &fd)))
		;
	err = errno;
	walk_up(&w, 0);
	free(w.rest);
	if (r < 0) {
		errno = err;
		return -1;
	}
	return reopen_regular(fd);
}

static int open_in_root(int root_fd, const char *path)
{
	struct sb_open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = SB_RESOLVE_IN_ROOT | SB_RESOLVE_NO_MAGICLINKS,
	};
	int fd = -1;

	/* EAGAIN: a rename raced with ".."; the kernel asks us to retry */
	for (int i = 0; i < 3; i++) {
		fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	if (fd >= 0)
		return reopen_regular(fd);
	if (errno == ENOSYS || errno == E2BIG || errno == EPERM)
		return rootfs_open_walk(root_fd, path);
	return -1;
}

int rootfs_open(const char *root, const char *path)
{
	int root_fd, fd, err;

	if (!root || !*root) { /* our own files: no one else names them */
		fd = open(path, O_PATH | O_CLOEXEC);
		return fd < 0 ? -1 : reopen_regular(fd);
	}
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -1;
	fd = open_in_root(root_fd, path);
	err = errno;
	close(root_fd);
	errno = err;
	return fd;
}
