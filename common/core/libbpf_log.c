// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages: the last one kept for errors, all printed under
 * -v -v, and the program a failed load names, for the attach plan. */
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libbpf_log.h"
#include "stackbox.h"

static char libbpf_last[512];
static char failed_prog[128];

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char line[512];
	const char *p;
	va_list whole;

	va_copy(whole, ap);
	vsnprintf(line, sizeof(line), fmt, ap);
	if (level != LIBBPF_DEBUG)
		snprintf(libbpf_last, sizeof(libbpf_last), "%s", line);
	/* "libbpf: prog 'NAME': failed to load: -13" names the culprit */
	if ((p = strstr(line, "prog '")) && strstr(line, "failed to load")) {
		const char *q = strchr(p + 6, '\'');

		if (q)
			snprintf(failed_prog, sizeof(failed_prog), "%.*s",
				 (int)(q - p - 6), p + 6);
	}
	/* whole: a verifier log is one message of many lines */
	if (verbose_level > 1 || (verbose_level && level == LIBBPF_WARN))
		vfprintf(stderr, fmt, whole);
	va_end(whole);
	return 0;
}

void libbpf_log_start(void)
{
	libbpf_set_print(libbpf_print);
}

const char *libbpf_failed_prog(void)
{
	return failed_prog;
}

void libbpf_failed_reset(void)
{
	failed_prog[0] = 0;
}
