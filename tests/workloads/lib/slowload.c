// SPDX-License-Identifier: GPL-2.0
/*
 * slowload.so, an LD_AUDIT library: the dynamic loader waits
 * SLOWLOAD_MS (800) ms before it searches for libnap.so, as a loader
 * reading slow flash, or a loaded machine's, may wait longer than a
 * profiler's looks at a new process. Built without the C library
 * (nothing of it is mapped before the wait), so the wait is a raw
 * nanosleep and the length is fixed here.
 */
#include <stddef.h>
#include <stdint.h>

#define SLOWLOAD_MS 800

struct ts {
	long sec, nsec;
};

static long raw_nanosleep(const struct ts *t)
{
	long ret;
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(35L), "D"(t), "S"(NULL)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = 101;
	register long x0 __asm__("x0") = (long)t;
	register long x1 __asm__("x1") = 0;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	ret = x0;
#else
#error "slowload: x86_64 and arm64 only"
#endif
	return ret;
}

static int has_libnap(const char *s)
{
	for (; *s; s++) {
		const char *a = s, *b = "libnap.so";

		while (*b && *a == *b)
			a++, b++;
		if (!*b)
			return 1;
	}
	return 0;
}

unsigned int la_version(unsigned int version)
{
	return version;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	static int waited;
	const struct ts t = {SLOWLOAD_MS / 1000, SLOWLOAD_MS % 1000 * 1000000L};

	(void)cookie;
	(void)flag;
	if (!waited && has_libnap(name)) {
		waited = 1;
		raw_nanosleep(&t);
	}
	return (char *)name;
}
