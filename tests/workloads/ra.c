/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for rastack: readahead from named functions, each on its
 * own file in DIR, made here and dropped from the page cache first
 * (fdatasync, posix_fadvise DONTNEED: never the machine-wide
 * drop_caches). Every chain is main -> outer_MODE -> NAMED, and the
 * named function calls read()/pread() directly or touches the mapping.
 *
 *   ra seq DIR MB      alpha_seq: read() the file front to back, 128 KiB
 *                      at a time: nearly every page read ahead is used
 *   ra rand DIR MB N   beta_rand: N short runs (4 x 16 KiB preads) at
 *                      offsets 1 MiB apart in shuffled order, with
 *                      POSIX_FADV_SEQUENTIAL (twice the window): each run
 *                      ramps the window up, then leaves it unused
 *   ra map DIR MB      gamma_map: mmap the file, read one byte of each
 *                      page front to back (faults and fault-around)
 *   ra write DIR MB    delta_write: write a new file (page cache adds
 *                      that are not readahead)
 *   ra randmap DIR MB  epsilon_fault: MADV_RANDOM mapping, touch every
 *                      16th page (faults without readahead)
 *
 * Each mode prints "MODE resident PAGES read PAGES" on stderr: the file's
 * pages in the page cache after it ran (mincore), all brought in by it,
 * and the pages this process read from storage meanwhile (/proc/self/io
 * read_bytes: the readahead's I/O, plus any file system metadata).
 * Modes can be given one after the other: ra seq D 16 rand D 64 32 ...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NAMED __attribute__((noinline, noclone))
#define MIB   (1024 * 1024L)

static volatile long sink; /* what keeps each result alive */
static long page_size;

static void die(const char *what, const char *path)
{
	perror(path ? path : what);
	exit(1);
}

/* Pages this process has read from storage so far. */
static long read_pages(void)
{
	char line[256];
	long long bytes = -1;
	FILE *f = fopen("/proc/self/io", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "read_bytes: %lld", &bytes);
	if (f)
		fclose(f);
	return bytes < 0 ? -1 : bytes / page_size;
}

/* Pages of fd's file in the page cache. */
static long resident(int fd, long len)
{
	long pages = (len + page_size - 1) / page_size, n = 0;
	unsigned char *vec = malloc(pages);
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (!vec || p == MAP_FAILED || mincore(p, len, vec))
		die("mincore", NULL);
	for (long i = 0; i < pages; i++)
		n += vec[i] & 1;
	munmap(p, len);
	free(vec);
	return n;
}

static void report(const char *mode, int fd, long len, long read_before)
{
	fprintf(stderr, "%s resident %ld read %ld\n", mode, resident(fd, len),
		read_pages() - read_before);
}

NAMED void zeta_fill(int fd, const char *buf, long len)
{
	for (long done = 0; done < len; done += MIB)
		if (write(fd, buf, MIB) != MIB)
			die("write", NULL);
}

/* A file of len bytes, none of it in the page cache. */
static int make_file(const char *dir, const char *name, long len, char *path,
		     size_t plen)
{
	char *buf = malloc(MIB);
	int fd;

	snprintf(path, plen, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !buf)
		die("open", path);
	for (long i = 0; i < MIB; i++)
		buf[i] = (char)(i * 7);
	zeta_fill(fd, buf, len);
	free(buf);
	if (fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("drop", path);
	if (lseek(fd, 0, SEEK_SET))
		die("lseek", path);
	if (resident(fd, len))
		fprintf(stderr, "%s: %ld pages still cached after DONTNEED\n",
			path, resident(fd, len));
	return fd;
}

NAMED void alpha_seq(int fd)
{
	static char buf[128 * 1024];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sink += buf[0];
}

NAMED void beta_rand(int fd, long off)
{
	static char buf[16 * 1024];

	for (int i = 0; i < 4; i++)
		sink += pread(fd, buf, sizeof(buf), off + i * sizeof(buf));
}

NAMED void gamma_map(const volatile char *p, long len)
{
	for (long i = 0; i < len; i += page_size)
		sink += p[i];
}

NAMED void delta_write(int fd, const char *buf, long len)
{
	for (long done = 0; done < len; done += MIB)
		if (write(fd, buf, MIB) != MIB)
			die("write", NULL);
}

NAMED void epsilon_fault(const volatile char *p, long len)
{
	for (long i = 0; i < len; i += 16 * page_size)
		sink += p[i];
}

NAMED void outer_seq(const char *dir, long len)
{
	char path[4096];
	int fd = make_file(dir, "ra-seq", len, path, sizeof(path));

	long before = read_pages();

	alpha_seq(fd);
	report("seq", fd, len, before);
	close(fd);
}

NAMED void outer_rand(const char *dir, long len, long runs)
{
	char path[4096];
	int fd = make_file(dir, "ra-rand", len, path, sizeof(path));
	long *off = malloc(runs * sizeof(*off)), before;

	if (!off || runs * MIB > len)
		die("runs", NULL);
	for (long i = 0; i < runs; i++)
		off[i] = i * MIB;
	srand(42);
	for (long i = runs - 1; i > 0; i--) { /* Fisher-Yates */
		long j = rand() % (i + 1), t = off[i];

		off[i] = off[j];
		off[j] = t;
	}
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL))
		die("fadvise", path);
	before = read_pages();
	for (long i = 0; i < runs; i++)
		beta_rand(fd, off[i]);
	report("rand", fd, len, before);
	free(off);
	close(fd);
}

static char *map_file(int fd, long len)
{
	char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		die("mmap", NULL);
	return p;
}

NAMED void outer_map(const char *dir, long len)
{
	char path[4096];
	int fd = make_file(dir, "ra-map", len, path, sizeof(path));
	char *p = map_file(fd, len);
	long before = read_pages();

	gamma_map(p, len);
	munmap(p, len);
	report("map", fd, len, before);
	close(fd);
}

NAMED void outer_write(const char *dir, long len)
{
	char path[4096], *buf = calloc(1, MIB);
	long before;
	int fd;

	snprintf(path, sizeof(path), "%s/ra-write", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !buf)
		die("open", path);
	before = read_pages();
	delta_write(fd, buf, len);
	report("write", fd, len, before);
	free(buf);
	close(fd);
}

NAMED void outer_randmap(const char *dir, long len)
{
	char path[4096];
	int fd = make_file(dir, "ra-randmap", len, path, sizeof(path));
	char *p = map_file(fd, len);

	long before = read_pages();

	if (madvise(p, len, MADV_RANDOM))
		die("madvise", path);
	epsilon_fault(p, len);
	munmap(p, len);
	report("randmap", fd, len, before);
	close(fd);
}

static void usage(void)
{
	fprintf(stderr, "usage: ra seq|map|write|randmap DIR MB | "
			"rand DIR MB RUNS ...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc;) {
		const char *mode = argv[i];
		long len;

		if (i + 2 >= argc)
			usage();
		len = atol(argv[i + 2]) * MIB;
		if (len <= 0)
			usage();
		if (!strcmp(mode, "seq"))
			outer_seq(argv[i + 1], len);
		else if (!strcmp(mode, "map"))
			outer_map(argv[i + 1], len);
		else if (!strcmp(mode, "write"))
			outer_write(argv[i + 1], len);
		else if (!strcmp(mode, "randmap"))
			outer_randmap(argv[i + 1], len);
		else if (!strcmp(mode, "rand") && i + 3 < argc)
			outer_rand(argv[i + 1], len, atol(argv[i + 3]));
		else
			usage();
		i += strcmp(mode, "rand") ? 3 : 4;
	}
	return 0;
}
