/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth for memstack: named functions that allocate known amounts
 * and keep or give back known parts of them. Every named function calls
 * the allocator directly, so it is the allocation stack's caller
 * (main -> outer function -> NAMED -> malloc).
 *
 *   memstack leak N SZ M     leak_keep: N x malloc(SZ), kept;
 *                            churn_free: M x malloc(SZ) then free
 *   memstack xthread N SZ    xfer_alloc (a thread): N x malloc(SZ);
 *                            another thread frees the first N/2
 *   memstack realloc N       base_alloc: N x malloc(100); realloc_grow:
 *                            each to 1000; realloc_shrink: the first N/2
 *                            to 10; realloc_zero: the next N/4 to 0;
 *                            realloc_null: N x realloc(NULL, 64)
 *   memstack calloc N SZ     calloc_keep: N x calloc(4, SZ/4)
 *   memstack align N         posix_keep: N x posix_memalign(64, 1000);
 *                            aligned_keep: N x aligned_alloc(64, 640);
 *                            memalign_keep: N x memalign(64, 320);
 *                            valloc_keep: N x valloc(100); array_keep:
 *                            N x reallocarray(NULL, 10, 30); glibc only:
 *                            pvalloc_keep: N x pvalloc(100), a page each
 *   memstack sample N SZ     sample_keep: N x malloc(SZ), kept;
 *                            sample_churn: N x malloc(SZ) then free
 *   memstack prewait N SZ M  pre_alloc: N x malloc(SZ) before "ready";
 *                            after a line on stdin, a thread started
 *                            before: pre_free frees them, late_keep:
 *                            M x malloc(SZ) kept; "done"; a second line
 *                            ends it
 *   memstack mmap N          mmap_keep: mmap of N pages, kept;
 *                            mmap_drop: N pages, unmapped; mmap_trim:
 *                            8 pages, the first 2 unmapped; brk_grow:
 *                            the break up by 64 KiB twice; brk_shrink:
 *                            down by 96 KiB
 *   memstack touch N         touch_pages: N pages of a new mapping
 *                            written once each (N page faults)
 *   memstack io MB FILE      io_write: MB MiB written to FILE, synced
 *   memstack age N SZ MS     old_keep: N x malloc(SZ); MS ms later,
 *                            young_keep: N x malloc(SZ); both kept
 *   memstack phases K MS     K phases MS ms apart, each a new stack:
 *                            depth_alloc nested as deep as the phase,
 *                            10 x malloc(100) there, then freed
 *   memstack prefixed N SZ   an allocator of its own, xx_malloc and
 *                            xx_free (--lib this program --prefix xx_):
 *                            pfx_keep: N x xx_malloc(SZ), half freed
 *   memstack loop N SZ       bench_loop: N x (malloc(SZ), free); prints
 *                            the loop's ns per pair, wall and CPU
 *   memstack badfree N M [crash]
 *                            double_free: N x (malloc(100), free, free);
 *                            stack_free: M x free of a stack address;
 *                            realloc_bad: once, realloc of a freed
 *                            pointer.
 *                            The allocator kills the program for each
 *                            (abort, or a crash in musl); it survives by
 *                            jumping out of the signal handler, unless
 *                            "crash", when the first kills it
 *
 * Modes that end print "done" and wait for a line on stdin when given
 * "--wait" last, so memstack -p sees them alive.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NAMED __attribute__((noinline, noclone))

static volatile long sink; /* what keeps each result alive */

NAMED void *leak_keep(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	return p;
}

NAMED void churn_free(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	free(p);
}

NAMED void outer_leak(long n, size_t size, long m)
{
	for (long i = 0; i < n; i++)
		leak_keep(size);
	for (long i = 0; i < m; i++)
		churn_free(size);
	sink++;
}

/* ---- allocation in one thread, free in another ---- */

static void **xfer;
static long xfer_n;
static size_t xfer_size;

NAMED void *xfer_alloc(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	return p;
}

static void *producer(void *arg)
{
	for (long i = 0; i < xfer_n; i++)
		xfer[i] = xfer_alloc(xfer_size);
	return NULL;
}

static void *consumer(void *arg)
{
	for (long i = 0; i < xfer_n / 2; i++)
		free(xfer[i]);
	return NULL;
}

NAMED void outer_xthread(long n, size_t size)
{
	pthread_t t;

	xfer = calloc(n, sizeof(*xfer));
	xfer_n = n;
	xfer_size = size;
	if (!xfer || pthread_create(&t, NULL, producer, NULL) ||
	    pthread_join(t, NULL) || pthread_create(&t, NULL, consumer, NULL) ||
	    pthread_join(t, NULL))
		exit(1);
	sink++;
}

/* ---- realloc ---- */

NAMED void *base_alloc(void)
{
	return malloc(100);
}

NAMED void *realloc_grow(void *p)
{
	return realloc(p, 1000);
}

NAMED void *realloc_shrink(void *p)
{
	return realloc(p, 10);
}

NAMED void *realloc_zero(void *p)
{
	return realloc(p, 0); /* glibc: frees p, NULL; musl: a new block */
}

static void *volatile null; /* not known to be NULL: a real realloc call */

NAMED void *realloc_null(void)
{
	return realloc(null, 64);
}

NAMED void outer_realloc(long n)
{
	void **p = calloc(n, sizeof(*p));

	if (!p)
		exit(1);
	for (long i = 0; i < n; i++)
		p[i] = base_alloc();
	for (long i = 0; i < n; i++)
		p[i] = realloc_grow(p[i]);
	for (long i = 0; i < n / 2; i++)
		p[i] = realloc_shrink(p[i]);
	for (long i = n / 2; i < n / 2 + n / 4; i++)
		p[i] = realloc_zero(p[i]);
	for (long i = 0; i < n; i++)
		sink += realloc_null() != NULL;
	sink += p[0] != NULL;
}

/* ---- calloc and the aligned ones ---- */

static volatile size_t huge = ~(size_t)0 / 2;

NAMED void *calloc_keep(size_t size)
{
	void *p = calloc(4, size / 4);

	/* an overflowing request allocates nothing */
	sink += calloc(huge, 4) != NULL;
	return p;
}

NAMED void outer_calloc(long n, size_t size)
{
	for (long i = 0; i < n; i++)
		sink += calloc_keep(size) != NULL;
}

NAMED void *posix_keep(void)
{
	void *p = NULL;

	sink += posix_memalign(&p, 64, 1000);
	return p;
}

NAMED void *aligned_keep(void)
{
	return aligned_alloc(64, 640);
}

NAMED void *memalign_keep(void)
{
	return memalign(64, 320);
}

NAMED void *valloc_keep(void)
{
	return valloc(100);
}

NAMED void *array_keep(void)
{
	return reallocarray(NULL, 10, 30);
}

#ifdef __GLIBC__
NAMED void *pvalloc_keep(void)
{
	return pvalloc(100);
}
#endif

NAMED void outer_align(long n)
{
	for (long i = 0; i < n; i++) {
		sink += posix_keep() != NULL;
		sink += aligned_keep() != NULL;
		sink += memalign_keep() != NULL;
		sink += valloc_keep() != NULL;
		sink += array_keep() != NULL;
#ifdef __GLIBC__
		sink += pvalloc_keep() != NULL;
#endif
	}
}

/* ---- sampling: a known total ---- */

NAMED void *sample_keep(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	return p;
}

NAMED void sample_churn(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	free(p);
}

NAMED void outer_sample(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		sample_keep(size);
		sample_churn(size);
	}
	sink++;
}

/* ---- -p: allocations from before the start, a thread from before ---- */

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		exit(0);
}

static long pre_n, late_m;
static size_t pre_size;
static void **pre;

NAMED void *pre_alloc(size_t size)
{
	return malloc(size);
}

NAMED void pre_free(void *p)
{
	free(p);
}

NAMED void *late_keep(size_t size)
{
	void *p = malloc(size);

	sink += p != NULL;
	return p;
}

static void *late_worker(void *go)
{
	pthread_mutex_lock(go); /* until main has the line */
	for (long i = 0; i < pre_n; i++)
		pre_free(pre[i]);
	for (long i = 0; i < late_m; i++)
		late_keep(pre_size);
	pthread_mutex_unlock(go);
	return NULL;
}

NAMED void outer_prewait(long n, size_t size, long m)
{
	pthread_mutex_t go = PTHREAD_MUTEX_INITIALIZER;
	pthread_t t;

	pre = malloc(n * sizeof(*pre));
	pre_n = n;
	late_m = m;
	pre_size = size;
	for (long i = 0; i < n; i++)
		pre[i] = pre_alloc(size);
	pthread_mutex_lock(&go);
	if (pthread_create(&t, NULL, late_worker, &go))
		exit(1);
	printf("ready %d\n", getpid());
	fflush(stdout);
	wait_line();
	pthread_mutex_unlock(&go);
	pthread_join(t, NULL);
}

/* ---- mappings ---- */

NAMED void *mmap_keep(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

NAMED void mmap_drop(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, len);
}

NAMED void *mmap_trim(size_t page)
{
	char *p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, 2 * page);
	return p;
}

NAMED void brk_grow(long bytes)
{
	char *now = (char *)syscall(SYS_brk, 0);

	sink += syscall(SYS_brk, now + bytes) != (long)now;
}

NAMED void brk_shrink(long bytes)
{
	char *now = (char *)syscall(SYS_brk, 0);

	sink += syscall(SYS_brk, now - bytes) != (long)now;
}

NAMED void outer_mmap(long pages)
{
	size_t page = sysconf(_SC_PAGESIZE);

	sink += mmap_keep(pages * page) != MAP_FAILED;
	mmap_drop(pages * page);
	sink += mmap_trim(page) != MAP_FAILED;
	brk_grow(65536);
	brk_grow(65536);
	brk_shrink(98304);
}

NAMED void touch_pages(char *p, long pages, size_t page)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}

NAMED void outer_touch(long pages)
{
	size_t page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, pages * page, MADV_NOHUGEPAGE); /* a fault per page */
	touch_pages(p, pages, page);
	munmap(p, pages * page);
}

/* ---- kernel memory: file I/O ---- */

NAMED void io_write(int fd, const char *buf, size_t len)
{
	sink += write(fd, buf, len);
}

NAMED void outer_io(long mib, const char *path)
{
	static char buf[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		exit(1);
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; i < mib * 16; i++)
		io_write(fd, buf, sizeof(buf));
	fsync(fd);
	close(fd);
}

/* ---- --age: old and young allocations ---- */

NAMED void *old_keep(size_t size)
{
	return malloc(size);
}

NAMED void *young_keep(size_t size)
{
	return malloc(size);
}

NAMED void outer_age(long n, size_t size, long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	for (long i = 0; i < n; i++)
		sink += old_keep(size) != NULL;
	nanosleep(&ts, NULL);
	for (long i = 0; i < n; i++)
		sink += young_keep(size) != NULL;
}

/* ---- an allocator with a prefix (--prefix xx_) ---- */

NAMED void *xx_malloc(size_t size)
{
	return malloc(size);
}

NAMED void xx_free(void *p)
{
	free(p);
}

NAMED void *pfx_keep(size_t size)
{
	void *p = xx_malloc(size);

	sink += p != NULL;
	return p;
}

NAMED void outer_prefixed(long n, size_t size)
{
	void **p = calloc(n, sizeof(*p));

	for (long i = 0; p && i < n; i++)
		p[i] = pfx_keep(size);
	for (long i = 0; p && i < n / 2; i++)
		xx_free(p[i]);
}

/* ---- stacks that come and go ---- */

NAMED void *depth_alloc(int depth)
{
	void *p = depth ? depth_alloc(depth - 1) : malloc(100);

	sink += p != NULL; /* not a tail call: one frame per level */
	return p;
}

NAMED void outer_phases(long k, long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	void *p[10];

	for (long i = 0; i < k; i++) {
		for (int j = 0; j < 10; j++)
			p[j] = depth_alloc(i);
		for (int j = 0; j < 10; j++)
			free(p[j]);
		nanosleep(&ts, NULL);
	}
}

/* ---- invalid frees ---- */

static sigjmp_buf survive;

static void jump_back(int sig)
{
	siglongjmp(survive, sig);
}

/* free(p), which the allocator stops with a signal: come back here.
 * The allocators check before they lock anything, so going on is safe. */
static void guarded_free(void *p, int crash)
{
	if (!crash && sigsetjmp(survive, 1))
		return;
	free(p);
}

/* Through a volatile pointer: the compiler must not see free's argument
 * (it warns of, and may drop, a free it can prove bad). */
static void (*volatile do_free)(void *, int) = guarded_free;

static void guarded_realloc(void *p, int crash)
{
	if (!crash && sigsetjmp(survive, 1))
		return;
	sink += realloc(p, 200) != NULL;
}

static void (*volatile do_realloc)(void *, int) = guarded_realloc;

NAMED void double_free(int crash)
{
	void *volatile p =
		malloc(100); /* volatile: no use-after-free warning */

	sink += p != NULL;
	free(p);
	do_free(p, crash);
}

NAMED void stack_free(int crash)
{
	/* zeros where an allocator looks for its header: a size of 0 that
	 * glibc refuses, a null group that musl faults on */
	_Alignas(16) unsigned char buf[64] = {0};

	do_free(buf + 32, crash);
	sink += buf[0];
}

/* Last: the realloc the allocator stops never returns, which memstack
 * may count as an allocation lost for what follows. */
NAMED void realloc_bad(int crash)
{
	void *volatile p = malloc(300);

	free(p);
	do_realloc(p, crash);
}

NAMED void outer_badfree(long n, long m, int crash)
{
	int sigs[] = {SIGABRT, SIGSEGV, SIGILL, SIGBUS, SIGTRAP};

	for (size_t i = 0; !crash && i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], jump_back);
	for (long i = 0; i < n; i++)
		double_free(crash);
	for (long i = 0; i < m; i++)
		stack_free(crash);
	realloc_bad(crash);
}

/* ---- the benchmark's loop ---- */

NAMED void bench_loop(long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(size);

		sink += p != NULL;
		free(p);
	}
}

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
	long c = argc > 4 ? atol(argv[4]) : 0;
	double t;

	if (!strcmp(mode, "leak"))
		outer_leak(a, b, c);
	else if (!strcmp(mode, "xthread"))
		outer_xthread(a, b);
	else if (!strcmp(mode, "realloc"))
		outer_realloc(a);
	else if (!strcmp(mode, "calloc"))
		outer_calloc(a, b);
	else if (!strcmp(mode, "align"))
		outer_align(a);
	else if (!strcmp(mode, "sample"))
		outer_sample(a, b);
	else if (!strcmp(mode, "prewait"))
		outer_prewait(a, b, c);
	else if (!strcmp(mode, "mmap"))
		outer_mmap(a);
	else if (!strcmp(mode, "touch"))
		outer_touch(a);
	else if (!strcmp(mode, "prefixed"))
		outer_prefixed(a, b);
	else if (!strcmp(mode, "phases"))
		outer_phases(a, b);
	else if (!strcmp(mode, "age"))
		outer_age(a, b, c);
	else if (!strcmp(mode, "io") && argc > 3)
		outer_io(a, argv[3]);
	else if (!strcmp(mode, "badfree"))
		outer_badfree(a, b, argc > 4 && !strcmp(argv[4], "crash"));
	else if (!strcmp(mode, "loop")) {
		double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);

		t = now();
		bench_loop(a, b);
		printf("%.1f ns per malloc/free pair\n", (now() - t) * 1e9 / a);
		/* the probes' traps run in this thread: its CPU time counts
		 * them without the waits of a loaded machine */
		printf("%.1f ns of CPU per pair\n",
		       (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu) * 1e9 / a);
	} else
		return 2;
	if (!strcmp(argv[argc - 1], "--wait")) {
		printf("done\n");
		fflush(stdout);
		wait_line();
	}
	return 0;
}
