// SPDX-License-Identifier: GPL-2.0
// layer: core
/* The option parser: values, defaults, and one clear error per bad value. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "collect.h"
#include "output.h"
#include "u64map.h"

struct args {
	struct collect_opts common;
	long long hz;
	int idle;
	uint64_t period;
};

static const struct opt opts[] = {
	OPT_INT('F', "freq", "HZ", struct args, hz, 1, 100000, "49"),
	OPT_FLAG(0, "idle", struct args, idle),
	/* as offcpu's -s: a unit required, 1 ns to 10 s */
	OPT_DURATION('P', "period", "PERIOD", struct args, period, 1,
		     10 * NS_PER_SEC, NULL, .flags = OPT_UNIT),
	OPT_INCLUDE(collect_options, struct args, common),
	OPT_END,
};

/* Parse in a child, so help_exit() can exit: its status and stderr. */
static int parse(const char *line, struct args *a, char *err, size_t errlen)
{
	char *copy = strdup(line), *argv[32] = {"test"}, *save = NULL;
	int argc = 1, p[2], status;
	ssize_t n;
	pid_t pid;

	for (char *t = strtok_r(copy, " ", &save); t && argc < 31;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	memset(a, 0, sizeof(*a));
	if (pipe(p))
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(p[1], 2);
		dup2(p[1], 1);
		applet_name = "test";
		opts_parse(opts, a, argc, argv, "usage: test\n@COMMON\n");
		/* hand the parsed struct to the parent through the pipe */
		fflush(stderr);
		_exit(write(p[1], a, sizeof(*a)) == sizeof(*a) ? 0 : 99);
	}
	close(p[1]);
	for (n = 0; (size_t)n < errlen - 1;) {
		ssize_t r = read(p[0], err + n, errlen - 1 - n);

		if (r <= 0)
			break;
		n += r;
	}
	err[n] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && !WEXITSTATUS(status) && n == sizeof(*a)) {
		memcpy(a, err, sizeof(*a));
		err[0] = 0;
	}
	free(copy);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_values(void)
{
	struct args a;
	char err[4096];

	CHECK_INT("opts defaults exit", parse("", &a, err, sizeof(err)), 0);
	CHECK_INT("opts default -F", a.hz, 49);
	CHECK_INT("opts default -i", a.common.interval, 5 * NS_PER_SEC);
	CHECK_INT("opts default -d", a.common.duration, 0);
	CHECK_INT("opts default -f", a.common.out.format, FORMAT_TEXT);

	CHECK_INT("opts full exit",
		  parse("-F 99 -d 1.5s -i 500ms -p 1,2 "
			"--top 5 -f folded -o x --idle",
			&a, err, sizeof(err)),
		  0);
	CHECK_INT("opts -F", a.hz, 99);
	CHECK_INT("opts -d 1.5s", a.common.duration, 1500 * NS_PER_MS);
	CHECK_INT("opts -i 500ms", a.common.interval, 500 * NS_PER_MS);
	CHECK_INT("opts -p count", a.common.pids.n, 2);
	CHECK_INT("opts --top", a.common.out.top, 5);
	CHECK_INT("opts -f folded", a.common.out.format, FORMAT_FOLDED);
	CHECK_INT("opts --idle", a.idle, 1);

	CHECK_INT("opts bundled exit",
		  parse("-vUd3 --freq=7", &a, err, sizeof(err)), 0);
	CHECK_INT("opts bundled -v", a.common.verbose, 1);
	CHECK_INT("opts bundled -U", a.common.user_only, 1);
	CHECK_INT("opts bundled -d3", a.common.duration, 3 * NS_PER_SEC);
	CHECK_INT("opts --freq=", a.hz, 7);
	/* more options than arguments: found by fuzz_opts (a heap overrun) */
	CHECK_INT("opts -vvvvvvvvvvvvvvvvvvvvvvvv (one argument, 24 flags)",
		  parse("-vvvvvvvvvvvvvvvvvvvvvvvv -UUUUUUUUUUUUUUUU", &a, err,
			sizeof(err)),
		  0);
	/* found by fuzz_opts: strtod skips spaces (a negative to uint64_t) */
	CHECK_INT("opts -d ' -5s' is refused",
		  parse("-d\t-5s", &a, err, sizeof(err)) != 0, 1);
	CHECK_INT("opts -i 0", parse("-i 0", &a, err, sizeof(err)), 0);
	CHECK_INT("opts -i 0 value", a.common.interval, 0);
}

static void test_errors(void)
{
	static const struct {
		const char *line, *message;
	} bad[] = {
		{"-F abc", "test: -F abc: not a whole number\n"},
		{"-F 0", "test: -F 0: must be between 1 and 100000\n"},
		{"-F", "test: -F needs a value (HZ)\n"},
		{"-d -1",
		 "test: -d -1: not a duration (10, 10s, 500ms, 1.5m)\n"},
		{"-d 5x",
		 "test: -d 5x: unknown unit (use ns, us, ms, s, m or h)\n"},
		{"-d 0", "test: -d 0: must be longer than 0\n"},
		{"-U -K", "test: -U and -K cannot be used together\n"},
		{"--bogus", "test: unknown option '--bogus'\n"},
		{"-z", "test: unknown option '-z'\n"},
		{"-p 0", "test: -p 0: not a process id (PID[,PID...])\n"},
		{"-p 1,x", "test: -p 1,x: not a process id (PID[,PID...])\n"},
		{"-f xml",
		 "test: -f xml: unknown format (text, folded, bin)\n"},
		{"--idle=1", "test: --idle takes no value\n"},
		{"--top 0",
		 "test: --top 0: must be between 1 and 1099511627776\n"},
		/* a range in units; 0 is 0 in every unit: no unit asked */
		{"-P 11s", "test: -P 11s: must be between 1ns and 10s\n"},
		{"-P 0", "test: -P 0: must be longer than 0\n"},
	};
	struct args a;
	char err[4096], name[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].line, &a, err, sizeof(err));
		char want[256];

		snprintf(name, sizeof(name), "opts error '%s' exits 2",
			 bad[i].line);
		CHECK_INT(name, rc, 2);
		snprintf(want, sizeof(want),
			 "%sTry 'test --help' for more "
			 "information.\n",
			 bad[i].message);
		snprintf(name, sizeof(name), "opts error '%s' message",
			 bad[i].line);
		CHECK_STR(name, err, want);
	}
}

static void test_help(void)
{
	struct args a;
	char out[4096];

	CHECK_INT("opts --help exits 0", parse("--help", &a, out, sizeof(out)),
		  0);
	CHECK("opts --help expands @COMMON",
	      !strncmp(out, "usage: test\n", 12) &&
		      strstr(out, "-p PID[,PID...]") && !strstr(out, "@COMMON"),
	      "got: %s", out);
}

static void test_durations(void)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{"10", 10 * NS_PER_SEC},
		{"10s", 10 * NS_PER_SEC},
		{"500ms", 500 * NS_PER_MS},
		{"1.5m", 90 * NS_PER_SEC},
		{"2h", 7200 * NS_PER_SEC},
		{"250us", 250000},
		{"7ns", 7},
	};
	static const char *const bad[] = {"",	"s",   "1e400",
					  "-5", "5 s", "1.2.3"};
	char name[64];
	uint64_t ns;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(name, sizeof(name), "duration '%s'", ok[i].s);
		ns = 0;
		CHECK(name, !parse_duration(ok[i].s, &ns) && ns == ok[i].ns,
		      "got %llu", (unsigned long long)ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "duration '%s' rejected", bad[i]);
		CHECK(name, parse_duration(bad[i], &ns) != NULL, "accepted");
	}
	/* format_duration: the largest unit the value fills */
	for (size_t i = 1; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char buf[32];

		snprintf(name, sizeof(name), "format_duration %s", ok[i].s);
		format_duration(buf, sizeof(buf), ok[i].ns);
		CHECK(name, !parse_duration(buf, &ns) && ns == ok[i].ns,
		      "got %s", buf);
	}
	CHECK_STR("format_duration 10 ms",
		  format_duration(name, sizeof(name), 10 * NS_PER_MS), "10ms");
}

/* The parsers the collectors and report share. */
static void test_shared(void)
{
	static const char *const names[] = {"S", "D", NULL, "R"};
	static const struct opt_names t = {names, 4, "not a list"};
	static const struct opt o = {.data = &t};
	static const char *const bad[] = {"", "S,", ",S", "S,,D", "X", "SD"};
	struct pid_list pids = {0};
	char name[64], *end;
	int v = 0;

	CHECK("name list S,R", !opt_name_list(&o, "S,R", &v) && v == 9,
	      "got %d", v);
	CHECK("name D", !opt_name(&o, "D", &v) && v == 1, "got %d", v);
	CHECK("a NULL entry is no name", opt_name(&o, "", &v) != NULL,
	      "accepted");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "name list '%s' rejected", bad[i]);
		CHECK(name, opt_name_list(&o, bad[i], &v) == t.err, "accepted");
	}
	CHECK("pids 3,4",
	      !opt_pids(NULL, "3,4", &pids) && pids.n == 2 && pids.pid[1] == 4,
	      "got %zu", pids.n);
	CHECK("pids 3,,4 rejected", opt_pids(NULL, "3,,4", &pids) != NULL,
	      "accepted");
	free(pids.pid);
	CHECK("size 1.5k", parse_size("1.5k", &end) == 1536 && !*end, "%s",
	      end);
	CHECK("size 2G", parse_size("2G", &end) == 2147483648.0 && !*end, "%s",
	      end);
	CHECK("size 10M,3 stops at the comma",
	      parse_size("10M,3", &end) == 10485760 && *end == ',', "%s", end);
}

/* The u64 hash map: values of any size, growth, iteration. */
static void test_u64map(void)
{
	struct u64map m = {0}, pairs = U64MAP_OF(uint64_t[2]);
	uint64_t v = 0, k, sum = 0, *p;
	size_t at = 0, n = 0;
	void *val;

	for (uint64_t i = 1; i <= 1000; i++)
		u64map_put(&m, i << 32, i);
	CHECK("u64map get after growth",
	      u64map_get(&m, 77ULL << 32, &v) && v == 77, "got %llu",
	      (unsigned long long)v);
	CHECK("u64map miss", !u64map_get(&m, 5, NULL), "found");
	while (u64map_next(&m, &at, &k, &val)) {
		n++;
		sum += *(uint64_t *)val;
	}
	CHECK("u64map iterates every entry once", n == 1000 && sum == 500500,
	      "%zu entries, sum %llu", n, (unsigned long long)sum);
	p = u64map_add(&pairs, 9);
	p[1] = 42;
	p = u64map_find(&pairs, 9);
	CHECK("u64map of two u64s", p && !p[0] && p[1] == 42, "wrong value");
	u64map_free(&m);
	u64map_free(&pairs);
	CHECK("u64map empty after free", !u64map_find(&m, 77ULL << 32),
	      "found");
}

/* OPT_SHOWN: the filters a snapshot header names, as the command line
 * gave them; options that are not filters are not in it. */
static void test_shown(void)
{
	char *argv[] = {"test", "-p",	       "1,2", "-d", "3",
			"-v",	"--cgroup=/x", "-p",  "7",  NULL};
	struct args a = {0};

	opts_parse(opts, &a, ARRAY_SIZE(argv) - 1, argv, "usage: test\n");
	CHECK_STR("opts_shown: the filters as given", opts_shown(),
		  "-p 1,2 -c /x -p 7");
	free(a.common.pids.pid);
	memset(&a, 0, sizeof(a));
	opts_parse(opts, &a, 3, (char *[]){"test", "-d", "3", NULL},
		   "usage: test\n");
	CHECK_STR("opts_shown: none set, empty", opts_shown(), "");
}

int main(void)
{
	test_values();
	test_errors();
	test_help();
	test_durations();
	test_shared();
	test_u64map();
	test_shown();
	return 0;
}
