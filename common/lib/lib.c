// SPDX-License-Identifier: GPL-2.0
/* Errors that name the applet, and allocation that cannot fail. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stackbox.h"

const char *applet_name = "stackbox";
int verbose_level;

static void vmsg(const char *fmt, va_list ap, int err)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", applet_name);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void perror_msg(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
}

void error_exit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void perror_exit(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
	exit(1);
}

void help_exit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", applet_name);
	exit(2);
}

void verbose(const char *fmt, ...)
{
	va_list ap;

	if (!verbose_level)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void *check_alloc(void *p)
{
	if (!p) {
		error_msg("out of memory");
		exit(1);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xzalloc(size_t size)
{
	return check_alloc(calloc(1, size ? size : 1));
}

void *xrealloc(void *ptr, size_t size)
{
	return check_alloc(realloc(ptr, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(n < 0 ? NULL : s);
}

void *grow_array(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap;

	if (n <= c)
		return arr;
	while (c < n)
		c = c ? c * 2 : 16;
	*cap = c;
	return xrealloc(arr, c * elem);
}

/*
 * Blocks of 128 KiB and more (kallsyms, symbol tables, an interval's rows
 * and text) get mappings of their own, as musl's are. glibc raises that
 * bound to the biggest block freed so far (the kernel BTF index, 1 MB; a
 * Go binary's symbols, 5 MB), after which tables grow by copies inside
 * the heap and leave holes: 1.5 MB more peak RSS for offcpu at its first
 * kernel frame, and a soak's arena at 18-37 MB with a third in use. A
 * mapping grows by mremap, and free gives its pages back at once.
 *
 * Pages freed while a snapshot was emitted go back to the kernel too:
 * glibc keeps them (fragments below its heap's top), so a profiler left
 * running grew to its busiest interval and stayed there. musl's
 * allocator returns them itself.
 */
#ifdef __GLIBC__
void tune_malloc(void)
{
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

void release_free_memory(void)
{
	malloc_trim(0);
}
#else
void tune_malloc(void)
{
}

void release_free_memory(void)
{
}
#endif

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* /proc files report size 0, so read until EOF rather than stat. */
char *read_file(const char *path, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return NULL;
	for (;;) {
		buf = grow_array(buf, &cap, n + 4096 + 1, 1);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;

			free(buf);
			close(fd);
			errno = err;
			return NULL;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}
