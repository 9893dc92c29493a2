// SPDX-License-Identifier: GPL-2.0
// layer: kernel
/*
 * Kernel types without holding them (common/kernel/kbtf.c) against libbpf's
 * parse of the same file: member offsets and sizes, function ids, enum
 * values and tracepoint prototypes from this kernel's BTF, a minimal
 * BTF and an ELF file's .BTF; and files cut short or of unknown kinds,
 * which must be refused, never misread.
 */
#include <bpf/btf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "kernel.h"
#include "stackbox.h"

static char name[256];

/* Every named member of every step-th struct of btf, as kbtf_member
 * sees it against libbpf; the first mismatch is told. */
static void same_members(const char *what, const struct btf *btf, int step)
{
	int n = btf__type_cnt(btf), structs = 0, members = 0, bad = 0;
	char why[512] = "";

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *sname = btf__name_by_offset(btf, t->name_off);

		if (!btf_is_struct(t) || !sname || !*sname ||
		    btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT) != id ||
		    structs++ % step)
			continue;
		for (int i = 0; i < btf_vlen(t); i++) {
			const struct btf_member *m = btf_members(t) + i;
			const char *mname =
				btf__name_by_offset(btf, m->name_off);
			unsigned size = 0;
			long want = btf_member_bit_offset(t, i) / 8;
			long long wsize = btf__resolve_size(btf, m->type);
			int got;

			if (!mname || !*mname || btf_member_bitfield_size(t, i))
				continue;
			members++;
			got = kbtf_member(sname, mname, &size);
			if ((got != want || size != wsize) && !bad++)
				snprintf(why, sizeof(why),
					 "%s.%s at %d size %u, libbpf %ld "
					 "size %lld",
					 sname, mname, got, size, want, wsize);
		}
	}
	snprintf(name, sizeof(name),
		 "%s: %d members of %d structs as libbpf reads them", what,
		 members, structs / step);
	CHECK(name, members > 0 && !bad, "%d differ; first %s", bad, why);
}

/* Every step-th function's id, and what no type is named. */
static void same_funcs(const char *what, const struct btf *btf, int step)
{
	int n = btf__type_cnt(btf), funcs = 0, bad = 0, got = 0;

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *fname = btf__name_by_offset(btf, t->name_off);
		int want;

		if (!btf_is_func(t) || funcs++ % step)
			continue;
		want = btf__find_by_name_kind(btf, fname, BTF_KIND_FUNC);
		got = kbtf_func_id(fname);
		bad += got != want;
	}
	snprintf(name, sizeof(name), "%s: ids of %d functions as libbpf's",
		 what, funcs / step);
	CHECK(name, funcs && !bad, "%d differ (last got %d)", bad, got);
	snprintf(name, sizeof(name), "%s: no function named so", what);
	CHECK_INT(name, kbtf_func_id("no_such_function_in_any_kernel"), -1);
}

static void kernel_types(void)
{
	struct btf *btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	const struct btf_type *t;
	int id;

	if (!btf) {
		SKIP("kernel BTF", "no /sys/kernel/btf/vmlinux here");
		return;
	}
	kbtf_release();
	kbtf_use(NULL);
	CHECK("kernel BTF: indexed", kbtf_layouts(), "not indexed");
	same_members("kernel BTF", btf, 50);
	same_funcs("kernel BTF", btf, 1000);

	/* what the applets ask, anonymous members included */
	{
		unsigned size = 0;
		int off = kbtf_member("task_struct", "__state", &size);
		long want = -1;

		id = btf__find_by_name_kind(btf, "task_struct",
					    BTF_KIND_STRUCT);
		t = btf__type_by_id(btf, id);
		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(
					    btf, btf_members(t)[i].name_off),
				    "__state"))
				want = btf_member_bit_offset(t, i) / 8;
		CHECK("kernel BTF: task_struct.__state, 4 bytes",
		      off == want && off > 0 && size == 4,
		      "at %d size %u, libbpf at %ld", off, size, want);
	}
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch",
				    BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type)
		   : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	CHECK_INT("kernel BTF: sched_switch's prototype, as many parameters "
		  "as libbpf's",
		  kbtf_proto_params("btf_trace_sched_switch"),
		  t ? btf_vlen(t) : -1);
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	{
		int bad = 0, n = t ? btf_vlen(t) : 0;

		for (int i = 0; i < n; i++)
			bad += kbtf_enum_value(
				       "bpf_attach_type",
				       btf__name_by_offset(
					       btf, btf_enum(t)[i].name_off)) !=
			       btf_enum(t)[i].val;
		snprintf(name, sizeof(name),
			 "kernel BTF: the %d values of bpf_attach_type", n);
		CHECK(name, n > 40 && !bad, "%d differ", bad);
	}
	CHECK_INT("kernel BTF: an enum without that name gives 0",
		  kbtf_enum_value("bpf_attach_type", "NO_SUCH_VALUE"), 0);
	CHECK_INT("kernel BTF: no such enum gives -1",
		  kbtf_enum_value("no_such_enum", "X"), -1);
	CHECK_INT("kernel BTF: no such member",
		  kbtf_member("task_struct", "no_such", NULL), -1);
	btf__free(btf);
}

/* path as --btf against libbpf's parse of it, every struct. */
static void file_types(const char *what, const char *path)
{
	struct btf *btf = btf__parse(path, NULL);

	if (!btf) {
		snprintf(name, sizeof(name), "%s", what);
		SKIP(name, "no %s (built with the host's BTF only)", path);
		return;
	}
	kbtf_release();
	kbtf_use(path);
	same_members(what, btf, 1);
	btf__free(btf);
	kbtf_release();
	kbtf_use(NULL);
}

/* A raw BTF file of n bytes of data, for --btf. */
static char *write_file(const char *dir, const void *data, size_t n)
{
	char *path = xasprintf("%s/cut.btf", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

/* LeakSanitizer asks this at exit: a refused BTF ends the forked
 * child by exit(), and a leak check of each of its 870 children made
 * the sanitized run 45 s instead of 4. */
static bool in_child;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return in_child;
}

/* Does --btf path make a run stop with one line (exit status 1), and
 * not read it? The line goes to dir/err. */
static bool refused(const char *dir, const char *path)
{
	char *err = xasprintf("%s/err", dir);
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		in_child = true;
		dup2(fd, 2);
		kbtf_release();
		kbtf_use(path);
		_exit(kbtf_layouts() ? 0 : 2);
	}
	free(err);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 1;
}

/* The minimal BTF cut short, and with an unknown kind: each
 * is refused whole with one line, never read in part. */
static void damaged(const char *min)
{
	char dir[] = "/tmp/test_kbtf.XXXXXX";
	size_t len = 0;
	unsigned char *data = (unsigned char *)read_file(min, &len);
	int read_anyway = 0, cuts = 0;
	char *err, *line;

	if (!data || !mkdtemp(dir)) {
		SKIP("damaged BTF", "no %s", min);
		free(data);
		return;
	}
	/* every length through the header and first types, then a
	 * prime step, so each kind of record is cut somewhere */
	for (size_t n = 0; n < len; n += n < 96 ? 1 : 7, cuts++) {
		char *path = write_file(dir, data, n);

		read_anyway += !refused(dir, path);
		unlink(path);
		free(path);
	}
	snprintf(name, sizeof(name),
		 "minimal BTF cut at %d lengths of %zu: --btf refused", cuts,
		 len);
	CHECK(name, !read_anyway, "%d read", read_anyway);

	/* the first type's kind made 31, a kind no kernel has */
	{
		struct btf_header *h = (struct btf_header *)data;
		struct btf_type *t =
			(struct btf_type *)(data + h->hdr_len + h->type_off);
		char *path;
		bool no;

		t->info |= 31u << 24;
		path = write_file(dir, data, len);
		no = refused(dir, path);
		err = xasprintf("%s/err", dir);
		line = read_file(err, NULL);
		CHECK("a type of an unknown kind: --btf refused, saying so",
		      no && line &&
			      strstr(line, "type 1 is of a kind this stackbox "
					   "does not know"),
		      "%s", line ? line : "(no message)");
		unlink(err);
		unlink(path);
		free(line);
		free(err);
		free(path);
	}
	rmdir(dir);
	free(data);
}

int main(void)
{
	const char *o = getenv("TESTS_O");
	char *min = xasprintf("%s/host-min.btf", o ? o : "obj/tests");
	char *elf = xasprintf("%s/../bpf/btf-needs.o", o ? o : "obj/tests");
	unsigned before = kbtf_parses();

	kernel_types();
	if (kbtf_parses() > before)
		CHECK_INT("kernel BTF: indexed once for every question",
			  kbtf_parses(), before + 1);
	file_types("minimal BTF (--btf, raw)", min);
	file_types("an ELF file's .BTF (--btf)", elf);
	damaged(min);
	free(min);
	free(elf);
	return 0;
}
