// SPDX-License-Identifier: GPL-2.0
// layer: stream
/* Text and folded output of a snapshot built by hand. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output.h"
#include "stackbox.h"

static const struct metric samples[] = {{"samples", METRIC_COUNT}};
static const char *u1[] = {"main", "outer", "burn_a"};
static const char *k1[] = {"entry_SYSCALL_64", "do_syscall_64", "x;y"};
static const char *u2[] = {"main", "burn_b"};

static struct row rows[4];

static void set_row(struct row *r, const char *comm, __u32 tgid, __u32 tid,
		    __u64 v, const char **u, unsigned nu, const char **k,
		    unsigned nk)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->key.comm, comm);
	r->key.tgid = tgid;
	r->key.pid = tid;
	r->v[0] = v;
	r->ustack = u;
	r->nu = nu;
	r->kstack = k;
	r->nk = nk;
}

static struct snapshot make_snapshot(void)
{
	struct snapshot s = {
		.applet = "oncpu",
		.seq = 3,
		.start = {1700000000, 0},
		.end = {1700000005, 250000000},
		.metrics = samples,
		.nmetrics = 1,
		.describe = "value: samples",
		.per_thread = true,
		.rows = rows,
		.nrows = 4,
		.total = {10},
		.lost_ustacks = 2,
		.dropped_rows = 1,
	};

	/* sorted biggest first, as output_snapshot leaves them */
	set_row(&rows[0], "burn", 10, 11, 5, u1, 3, k1, 3);
	set_row(&rows[1], "burn", 10, 12, 3, u2, 2, NULL, 0);
	set_row(&rows[2], "burn", 10, 13, 2, u2, 2, NULL, 0);
	set_row(&rows[3], "idle", 0, 0, 0, NULL, 0, NULL, 0);
	return s;
}

static char *render(const struct snapshot *s, int folded, long long top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (folded)
		format_folded(f, s);
	else
		format_text(f, s, top);
	fclose(f);
	return buf;
}

static void test_folded(void)
{
	struct snapshot s = make_snapshot();
	char *out = render(&s, 1, 0);

	/* tids 12 and 13 share a stack: one line; zero rows are left out;
	 * a ';' inside a frame must not split it */
	CHECK_STR(
		"folded lines", out,
		"burn;main;burn_b 5\n"
		"burn;main;outer;burn_a;-;entry_SYSCALL_64;do_syscall_64;x:y 5\n");
	free(out);
}

static void test_text(void)
{
	struct snapshot s = make_snapshot();
	char *out = render(&s, 0, 2);

	const char *header =
		"=== oncpu snapshot 3: 2023-11-14 22:13:20.000 .. 22:13:25.250 "
		"(5.250 s)\nvalue: samples\ntotal: 10 samples in 4 stacks\n"
		"lost: 2 user stacks, 1 events (row map full)\n";

	CHECK("text header", !strncmp(out, header, strlen(header)), "got:\n%s",
	      out);
	CHECK("text columns: the share names its metric",
	      strstr(out, "\n      samples %samples  process\n") != NULL,
	      "got:\n%s", out);
	CHECK("text first row",
	      strstr(out, "            5  50.0%  burn pid 10 "
			  "tid 11\n") != NULL,
	      "got:\n%s", out);
	CHECK("text frames root to leaf, user then kernel",
	      strstr(out,
		     "main\n                      outer\n"
		     "                      burn_a\n                      --\n"
		     "                      entry_SYSCALL_64\n") != NULL,
	      "got:\n%s", out);
	CHECK("text --top cuts and says what it left out",
	      strstr(out,
		     "... 2 more stacks (2 samples) not shown (--top 2)\n") &&
		      !strstr(out, "tid 13"),
	      "got:\n%s", out);
	free(out);
}

/* iostack --value calls: folded shows the second metric, text's share
 * is of it and --top counts what it leaves out in it */
static void test_primary(void)
{
	static const struct metric io[] = {{"bytes", METRIC_BYTES},
					   {"calls", METRIC_COUNT}};
	struct snapshot s = make_snapshot();
	char *out;

	s.metrics = io;
	s.nmetrics = 2;
	s.primary = 1;
	s.total[0] = 40960;
	s.total[1] = 8;
	rows[0].v[1] = 6;
	rows[1].v[1] = 1;
	rows[2].v[1] = 1;
	rows[3].v[1] = 0;
	if (ENABLE_FORMAT_FOLDED) {
		out = render(&s, 1, 0);
		CHECK_STR("folded shows the primary metric", out,
			  "burn;main;burn_b 2\n"
			  "burn;main;outer;burn_a;-;entry_SYSCALL_64;"
			  "do_syscall_64;x:y 6\n");
		free(out);
	}
	out = render(&s, 0, 1);
	CHECK("text share column named for the primary metric",
	      strstr(out, "\n        bytes         calls %calls  process\n"),
	      "got:\n%s", out);
	CHECK("text share of the primary metric",
	      strstr(out, "  75.0%  burn pid 10 tid 11\n") != NULL, "got:\n%s",
	      out);
	CHECK("text --top in the primary metric",
	      strstr(out,
		     "... 3 more stacks (2 calls) not shown (--top 1)\n") !=
		      NULL,
	      "got:\n%s", out);
	free(out);
}

/* rastack: a ratio is worked out per row and of the totals, "-" when
 * there is nothing to divide by */
static void test_ratio(void)
{
	static const struct metric ra[] = {{"read ahead", METRIC_COUNT},
					   {"used", METRIC_COUNT},
					   {"used ratio", METRIC_RATIO, 1, 0}};
	struct snapshot s = make_snapshot();
	char *out;

	s.metrics = ra;
	s.nmetrics = 3;
	s.total[1] = 4;
	s.lost_ustacks = s.dropped_rows = 0;
	rows[0].v[1] = 4;
	out = render(&s, 0, 0);
	CHECK("text: lost none when every counter is zero",
	      strstr(out, "\nlost: none\n") != NULL, "got:\n%s", out);
	CHECK("text ratio of the totals",
	      strstr(out, "total: 10 read ahead, 4 used, 40.0% used ratio") !=
		      NULL,
	      "got:\n%s", out);
	CHECK("text ratio of a row",
	      strstr(out, "            5             4         80.0%") != NULL,
	      "got:\n%s", out);
	CHECK("text ratio of nothing",
	      strstr(out, "            0             0             -") != NULL,
	      "got:\n%s", out);
	free(out);
}

/* memstack: a split shown only on the rows it applies to (memory held
 * by a process at its exit), none where its name is empty */
static const char *held_at_exit(__u32 aux)
{
	return aux ? "held at exit" : "";
}

static void test_empty_aux(void)
{
	struct snapshot s = make_snapshot();
	char *out;

	s.aux_name = held_at_exit;
	rows[1].key.aux = 1;
	if (ENABLE_FORMAT_FOLDED) {
		out = render(&s, 1, 0);
		CHECK_STR("folded: an empty split adds no frame", out,
			  "burn;[held at exit];main;burn_b 3\n"
			  "burn;main;burn_b 2\n"
			  "burn;main;outer;burn_a;-;entry_SYSCALL_64;"
			  "do_syscall_64;x:y 5\n");
		free(out);
	}
	if (ENABLE_FORMAT_TEXT) {
		out = render(&s, 0, 0);
		CHECK("text: an empty split says nothing",
		      strstr(out, "burn pid 10 tid 11\n") &&
			      strstr(out, "burn pid 10 tid 12 held at exit\n"),
		      "got:\n%s", out);
		free(out);
	}
}

static void test_values(void)
{
	char b[32];

	CHECK_STR("value ns", format_value(b, sizeof(b), METRIC_NS, 999),
		  "999 ns");
	CHECK_STR("value us", format_value(b, sizeof(b), METRIC_NS, 1500),
		  "1.5 us");
	CHECK_STR("value ms", format_value(b, sizeof(b), METRIC_NS, 20408163),
		  "20.4 ms");
	CHECK_STR("value s",
		  format_value(b, sizeof(b), METRIC_NS, 2500000000ULL),
		  "2.50 s");
	CHECK_STR("value B", format_value(b, sizeof(b), METRIC_BYTES, 1000),
		  "1000 B");
	CHECK_STR("value MiB",
		  format_value(b, sizeof(b), METRIC_BYTES, 1572864), "1.5 MiB");
	CHECK_STR("value count", format_value(b, sizeof(b), METRIC_COUNT, 42),
		  "42");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	if (ENABLE_FORMAT_FOLDED)
		test_folded();
	test_empty_aux();
	if (ENABLE_FORMAT_TEXT) {
		test_text();
		test_primary();
		test_ratio();
		test_values();
	}
	return 0;
}
