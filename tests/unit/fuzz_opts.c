// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the option parser (common/lib/opts.c): any command
 * line (the input, split at NUL bytes) must give no crash, no overrun
 * and no leak (ASan, UBSan). A bad option ends in help_exit(), which
 * here returns to the target instead of exiting.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"

static jmp_buf bad;

/* help_exit() leaves through longjmp: what opts_parse() held is lost,
 * so what it allocated is freed here (10 million bad command lines
 * would otherwise hold a gigabyte); leaks are not looked for */
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void *held[8];
static unsigned nheld;
void *__real_xmalloc(size_t size);

void *__wrap_xmalloc(size_t size)
{
	void *p = __real_xmalloc(size);

	if (nheld < sizeof(held) / sizeof(*held))
		held[nheld++] = p;
	return p;
}

void __wrap_help_exit(const char *fmt, ...)
{
	longjmp(bad, 1);
}

struct args {
	long long n;
	uint64_t t;
	const char *s;
	int flag, other;
};

static const struct opt table[] = {
	OPT_INT('n', "number", "N", struct args, n, -5, 1 << 20, "7"),
	OPT_DURATION('t', "time", "T", struct args, t, 0, 1LL << 62, "1s"),
	OPT_STRING('s', "string", "S", struct args, s, NULL),
	OPT_FLAG('f', "flag", struct args, flag),
	OPT_FLAG_X('x', "other", struct args, other, "f"),
	OPT_END,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *buf = malloc(len + 1), *argv[66] = {"fuzz"};
	volatile int argc = 1;
	struct args a;
	uint64_t ns;

	memcpy(buf, data, len);
	buf[len] = 0;
	for (size_t i = 0; i <= len && argc < 65; i += strlen(buf + i) + 1)
		if (strcmp(buf + i, "--help")) /* prints usage and exits */
			argv[argc++] = buf + i;
	argv[argc] = NULL;
	parse_duration(buf, &ns);
	nheld = 0;
	if (!setjmp(bad))
		opts_parse(table, &a, argc, argv, "usage: fuzz\n");
	else
		while (nheld)
			free(held[--nheld]);
	free(buf);
	return 0;
}
