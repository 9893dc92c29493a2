// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frames named by the kernel: sb_ksym formats one address with
 * "%pS" ("name+0x1a/0x80 [module]", or "0x..." outside every symbol),
 * run by BPF_PROG_TEST_RUN. A run shows a few hundred distinct kernel
 * addresses; asking for each (about 5 us) beats reading the ~200,000
 * lines of /proc/kallsyms (70 ms of kernel time) into a 4 MB table.
 * The kernel's answer is the same lookup kallsyms lists, modules and BPF
 * programs included.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_names.h"
#include "sb.h"
#include "stackbox.h"
#include "u64map.h"

struct kernel_names {
	int prog_fd, map_fd; /* our own copies: valid past the object */
	struct u64map names; /* ip -> char * (NULL: no symbol) */
	unsigned long asked;
};

/* The kernel's name for ip into out; false if it could not say. */
static bool ask(struct kernel_names *kn, uint64_t ip, struct sb_ksym_name *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &ip,
		    .ctx_size_in = sizeof(ip));
	__u32 zero = 0;

	kn->asked++;
	return !bpf_prog_test_run_opts(kn->prog_fd, &run) &&
	       !bpf_map_lookup_elem(kn->map_fd, &zero, out) && out->name[0];
}

struct kernel_names *kernel_names_open(struct bpf_object *obj)
{
	struct bpf_program *p =
		bpf_object__find_program_by_name(obj, "sb_ksym");
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "sb_ksym_names");
	struct kernel_names *kn;
	struct sb_ksym_name probe;

	if (!p || !m || bpf_program__fd(p) < 0 || bpf_map__fd(m) < 0)
		return NULL;
	kn = xzalloc(sizeof(*kn));
	kn->names = U64MAP_OF(char *);
	kn->prog_fd = dup(bpf_program__fd(p));
	kn->map_fd = dup(bpf_map__fd(m));
	/* 0 is in no symbol: "0x0" where the kernel formats at all */
	if (kn->prog_fd < 0 || kn->map_fd < 0 || !ask(kn, 0, &probe)) {
		verbose("kernel frames: named from /proc/kallsyms (%s)",
			kn->prog_fd < 0 || kn->map_fd < 0
				? strerror(errno)
				: "no bpf_snprintf before Linux 5.13");
		kernel_names_free(kn);
		return NULL;
	}
	kn->asked = 0;
	return kn;
}

const char *kernel_names_lookup(struct kernel_names *kn, uint64_t ip)
{
	char **slot = u64map_find(&kn->names, ip);
	struct sb_ksym_name got;

	if (slot)
		return *slot;
	slot = u64map_add(&kn->names, ip);
	if (ask(kn, ip, &got) && strncmp(got.name, "0x", 2)) {
		got.name[sizeof(got.name) - 1] = 0;
		got.name[strcspn(got.name, "+ ")] = 0;
		*slot = xstrdup(got.name);
	}
	return *slot;
}

unsigned long kernel_names_asked(const struct kernel_names *kn)
{
	return kn ? kn->asked : 0;
}

void kernel_names_free(struct kernel_names *kn)
{
	size_t i = 0;
	uint64_t ip;
	void *v;

	if (!kn)
		return;
	while (u64map_next(&kn->names, &i, &ip, &v))
		free(*(char **)v);
	u64map_free(&kn->names);
	if (kn->prog_fd >= 0)
		close(kn->prog_fd);
	if (kn->map_fd >= 0)
		close(kn->map_fd);
	free(kn);
}
