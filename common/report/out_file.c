// SPDX-License-Identifier: GPL-2.0
/* -o FILE written whole or not at all; see out_file.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"
#include "stackbox.h"

/* The temporary file of a report that dies (error_exit, a failed
 * allocation) before out_file_end: removed at exit. */
static char *pending;
static bool registered;

static void remove_pending(void)
{
	if (pending)
		unlink(pending);
}

const char *out_file_begin(struct out_file *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	mode_t mask;
	int fd;

	o->path = path;
	o->tmp = NULL;
	if (!strcmp(path, "-") || (!stat(path, &st) && !S_ISREG(st.st_mode)))
		return path;
	/* the same directory: rename() cannot cross file systems */
	o->tmp = slash ? xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path,
				   slash + 1)
		       : xasprintf(".%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		perror_exit("-o %s", path);
	/* mkstemp's 0600: the mode a file created by open() would get */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	if (!registered)
		atexit(remove_pending);
	registered = true;
	pending = o->tmp;
	return o->tmp;
}

int out_file_end(struct out_file *o, bool ok)
{
	int err = 0;

	if (!o->tmp)
		return 0;
	if (ok && rename(o->tmp, o->path)) {
		perror_msg("-o %s", o->path);
		err = -1;
	}
	if (!ok || err)
		unlink(o->tmp);
	pending = NULL;
	free(o->tmp);
	o->tmp = NULL;
	return err;
}
