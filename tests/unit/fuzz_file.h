/* SPDX-License-Identifier: GPL-2.0 */
/* For fuzz targets whose code under test reads a path: the input as a
 * file, written again for each input (an memfd, named by /proc/self/fd). */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *fuzz_file(const uint8_t *data, size_t len)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz", 0);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (len && pwrite(fd, data, len, 0) != (ssize_t)len))
		return NULL;
	return path;
}

#endif
