// SPDX-License-Identifier: GPL-2.0
/*
 * A long oncpu recording with known changes, for report --anomalies at
 * scale (tests/unit/anomaly_scale.sh), written through the tree's own
 * bin writer: SNAPS 1 s snapshots of STACKS kernel stacks of a few
 * samples each (bg_N, under one of 50 mid_N frames; each in one
 * snapshot of EVERY, so that stacks keep leaving and coming back to
 * the window, and the file stays at 45 MB), and five stacks
 * that change phase at known snapshots (phase_at() below, printed as
 * "change KIND LEAF SECONDS"), the rest of the time steady within 2 %.
 *   anomaly_stream write FILE SNAPS STACKS
 *   anomaly_stream rusage CMD ARGS...   run CMD; print "maxrss_kib N"
 *                                       (getrusage of the child)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format_bin.h"

#define T0	 1700000000
#define KBASE	 0xffffffff81000000ULL
#define NPHASES	 5
#define KEY_NONE 0  /* one key frame, at the start */
#define EVERY	 10 /* a background stack is in one snapshot of ten */

/* Where each phase stack changes, as a share of the recording, and its
 * samples per snapshot before and after (a spike: for two snapshots). */
static const struct phase {
	const char *leaf, *kind;
	double at;
	unsigned before, after;
} phases[NPHASES] = {
	{"phase_appear", "appeared", 0.33, 0, 800},
	{"phase_vanish", "vanished", 0.55, 800, 0},
	{"phase_grow", "grew", 0.72, 400, 1200},
	{"phase_shrink", "shrank", 0.80, 1200, 400},
	{"phase_spike", "spike", 0.90, 0, 1500},
};

static unsigned snaps, stacks;
static __u64 frames[3];

static unsigned change_of(unsigned p)
{
	return (unsigned)(phases[p].at * snaps);
}

/* A deterministic number from (a, b): the noise. */
static unsigned mix(unsigned a, unsigned b)
{
	unsigned h = a * 2654435761u ^ b * 2246822519u;

	h ^= h >> 15;
	return h * 2654435761u >> 8;
}

/* Stack id k (1..stacks: background; then the phases): its frames leaf
 * first: the leaf, mid_(k % 50), the root. */
static const __u64 *src_stack(void *ctx, __u64 id, unsigned *n)
{
	(void)ctx;
	frames[0] = KBASE + 0x100000 + id * 0x10;
	frames[1] = KBASE + 0x1000 + id % 50 * 0x10;
	frames[2] = KBASE;
	*n = 3;
	return frames;
}

static const char *src_ksym(void *ctx, __u64 ip)
{
	static char buf[32];
	__u64 off = ip - KBASE;

	(void)ctx;
	if (!off)
		return "gen_root";
	if (off < 0x100000) {
		snprintf(buf, sizeof(buf), "mid_%llu",
			 (unsigned long long)(off - 0x1000) / 0x10);
		return buf;
	}
	off = (off - 0x100000) / 0x10;
	if (off > stacks)
		return phases[off - stacks - 1].leaf;
	snprintf(buf, sizeof(buf), "bg_%llu", (unsigned long long)off);
	return buf;
}

static size_t src_maps(void *ctx, __u32 tgid, struct rec_map **m)
{
	(void)ctx;
	(void)tgid;
	*m = NULL;
	return 0;
}

static const struct bin_source source = {
	.stack = src_stack, .ksym = src_ksym, .maps = src_maps};

static unsigned phase_value(unsigned p, unsigned t)
{
	const struct phase *ph = &phases[p];
	unsigned c = change_of(p), v;

	if (!strcmp(ph->kind, "spike"))
		v = t >= c && t < c + 2 ? ph->after : ph->before;
	else
		v = t >= c ? ph->after : ph->before;
	return v ? v - v / 100 + mix(p + 7, t) % (v / 50 + 1) : 0;
}

static void set_row(struct row *r, __u64 id, unsigned v)
{
	memset(r, 0, sizeof(*r));
	r->key.tgid = r->key.pid = 100 + id % 4;
	snprintf(r->key.comm, SB_COMM_LEN, "gen");
	r->key.kern_stack = id;
	r->v[0] = v;
}

static const struct metric metrics[] = {{"samples", METRIC_COUNT}};

static size_t make_rows(unsigned t, struct row *rows, __u64 *total)
{
	size_t n = 0;

	*total = 0;
	for (unsigned k = 1 + t % EVERY; k <= stacks; k += EVERY) {
		set_row(&rows[n], k, 1 + mix(k, t) % 3);
		*total += rows[n++].v[0];
	}
	for (unsigned p = 0; p < NPHASES; p++) {
		unsigned v = phase_value(p, t);

		if (!v)
			continue;
		set_row(&rows[n], stacks + 1 + p, v);
		*total += rows[n++].v[0];
	}
	return n;
}

static int write_stream(const char *path)
{
	struct bin_writer *w = bin_writer_new(KEY_NONE);
	struct row *rows = calloc(stacks + NPHASES, sizeof(*rows));
	FILE *f = fopen(path, "w");

	if (!f || !rows) {
		perror(path);
		return 1;
	}
	bin_writer_fix(w, 3);
	for (unsigned t = 0; t < snaps; t++) {
		struct bbuf b = {0};
		struct snapshot s = {
			.applet = "oncpu",
			.describe = "value: samples of cpu-clock at 999 Hz",
			.seq = t + 1,
			.final = t + 1 == snaps,
			.start = {T0 + t, 0},
			.end = {T0 + t + 1, 0},
			.metrics = metrics,
			.nmetrics = 1,
			.period_ns = 1001001,
			.rows = rows,
		};

		s.nrows = make_rows(t, rows, &s.total[0]);
		bin_encode_snapshot(w, &s, &source, 0, &b);
		fwrite(b.p, 1, b.len, f);
		free(b.p);
	}
	for (unsigned p = 0; p < NPHASES; p++)
		printf("change %s %s %u\n", phases[p].kind, phases[p].leaf,
		       T0 + change_of(p));
	bin_writer_free(w);
	free(rows);
	return fclose(f) ? 1 : 0;
}

static int rusage_of(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "write")) {
		snaps = atoi(argv[3]);
		stacks = atoi(argv[4]);
		return write_stream(argv[2]);
	}
	if (argc > 2 && !strcmp(argv[1], "rusage"))
		return rusage_of(argv + 2);
	fprintf(stderr, "usage: anomaly_stream write FILE SNAPS STACKS | "
			"rusage CMD ARGS...\n");
	return 2;
}
