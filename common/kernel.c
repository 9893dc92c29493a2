// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel probing (see kernel.h): one file for what the running kernel
 * has. "kernel", not "kprobe" or "probe": kprobes are one mechanism it
 * asks about, and "probe" names the BPF programs too.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kernel.h"
#include "stackbox.h"

/* ---- kernel BTF ---- */

/* One parse a run, shared; a cache of the core, not an applet's state. */
static struct {
	struct btf *btf;
	bool tried;
	unsigned parses;
	const char *path; /* --btf */
} vmlinux;

/* CONFIG_BTF_EMBED: gen/btf_embed.c, linked in only then. */
extern const unsigned char sb_btf_embedded[] __attribute__((weak));
extern const unsigned sb_btf_embedded_size __attribute__((weak));

bool kbtf_available(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	char c;
	bool ok = fd >= 0 && read(fd, &c, 1) == 1; /* not an empty file */

	if (fd >= 0)
		close(fd);
	return ok;
}

void kbtf_use(const char *path)
{
	vmlinux.path = path;
}

/* The first source that has BTF: --btf, the kernel's own (and where
 * libbpf looks for a vmlinux file of this release), the built-in one. */
static struct btf *kbtf_load(const char **from)
{
	struct btf *btf;

	if (vmlinux.path) {
		btf = btf__parse(vmlinux.path, NULL);
		if (!btf)
			error_exit("--btf %s: %s (a raw BTF file, or an ELF "
				   "file with a .BTF section)",
				   vmlinux.path, strerror(errno));
		*from = vmlinux.path;
		return btf;
	}
	btf = btf__load_vmlinux_btf();
	*from = kbtf_available() ? "/sys/kernel/btf/vmlinux"
				 : "a vmlinux file of this release";
	if (!btf && sb_btf_embedded) {
		btf = btf__new(sb_btf_embedded, sb_btf_embedded_size);
		*from = "the minimal BTF built in (CONFIG_BTF_EMBED)";
	}
	return btf;
}

const struct btf *kbtf(void)
{
	const char *from;

	if (!vmlinux.tried) {
		vmlinux.tried = true;
		vmlinux.btf = kbtf_load(&from);
		if (vmlinux.btf && !vmlinux.parses++)
			verbose("kernel types from %s", from);
	}
	return vmlinux.btf;
}

bool kbtf_layouts(void)
{
	return kbtf() != NULL;
}

void kbtf_release(void)
{
	btf__free(vmlinux.btf);
	vmlinux.btf = NULL;
	vmlinux.tried = false;
}

unsigned kbtf_parses(void)
{
	return vmlinux.parses;
}

/* Offset in bits of member inside the struct or union id, or -1. */
static long find_member(const struct btf *btf, int id, const char *member,
			unsigned *size, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	long off;

	if (!t || depth > 8 || !(btf_is_struct(t) || btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && *name) {
			if (strcmp(name, member))
				continue;
			if (size)
				*size = btf__resolve_size(btf, m->type);
			return btf_member_bit_offset(t, i);
		}
		/* anonymous: its members are the struct's own */
		off = find_member(btf, btf__resolve_type(btf, m->type), member,
				  size, depth + 1);
		if (off >= 0)
			return off + btf_member_bit_offset(t, i);
	}
	return -1;
}

int kbtf_member(const struct btf *btf, const char *type, const char *member,
		unsigned *size)
{
	int id = btf ? btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT) : -1;
	long bits = id > 0 ? find_member(btf, id, member, size, 0) : -1;

	return bits < 0 ? -1 : (int)(bits / 8);
}

bool kbtf_has_func(const char *name)
{
	/* the kernel attaches fentry through its own BTF, not a file's */
	const struct btf *btf = kbtf_available() ? kbtf() : NULL;

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

/* ---- tracefs ---- */

static const char *const tracefs_roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};

bool collect_tracepoint_exists(const char *category, const char *name)
{
	char path[256];

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(tracefs_roots); i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/id",
				 tracefs_roots[i], category, name);
			if (!access(path, R_OK))
				return true;
		}
		/* not mounted by default on every system */
		if (pass ||
		    mount("tracefs", tracefs_roots[0], "tracefs", 0, NULL))
			break;
		verbose("mounted tracefs on %s", tracefs_roots[0]);
	}
	return false;
}

/* "\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;": the
 * offset when the line declares field, else -1. */
static int format_line_field(char *line, const char *field, unsigned *size)
{
	char *decl = strstr(line, "field:"), *end, *id;
	unsigned off, sz;

	if (!decl || !(end = strchr(decl, ';')))
		return -1;
	*end = 0;
	if ((id = strchr(decl, '[')))
		*id = 0; /* char comm[16] */
	id = decl + strlen(decl);
	while (id > decl && (isalnum((unsigned char)id[-1]) || id[-1] == '_'))
		id--;
	if (strcmp(id, field) ||
	    sscanf(end + 1, " offset:%u; size:%u;", &off, &sz) != 2)
		return -1;
	if (size)
		*size = sz;
	return off;
}

int collect_tracepoint_field(const char *category, const char *name,
			     const char *field, unsigned *size)
{
	char path[256], *fmt = NULL, *line, *save = NULL;
	int offset = -1;

	if (!collect_tracepoint_exists(category, name))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(tracefs_roots) && !fmt; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format",
			 tracefs_roots[i], category, name);
		fmt = read_file(path, NULL);
	}
	for (line = fmt ? strtok_r(fmt, "\n", &save) : NULL; line && offset < 0;
	     line = strtok_r(NULL, "\n", &save))
		offset = format_line_field(line, field, size);
	free(fmt);
	return offset;
}

/* ---- kernel functions: kallsyms, kprobes ---- */

unsigned kallsyms_have(const char *const *names, unsigned n)
{
	unsigned found = 0;
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) == 2 &&
		    (type == 't' || type == 'T'))
			for (unsigned i = 0; i < n && i < 32; i++)
				if (!strcmp(names[i], name))
					found |= 1u << i;
	}
	if (f)
		fclose(f);
	return found;
}

bool kprobes_work(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", W_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", W_OK);
}

bool kernel_has(enum kernel_feature feature, const char *category,
		const char *name)
{
	switch (feature) {
	case KF_NONE:
		return true;
	case KF_BTF:
		return kbtf_available();
	case KF_LAYOUT:
		return kbtf_layouts();
	case KF_TRACEPOINT:
		return collect_tracepoint_exists(category, name);
	case KF_FENTRY:
		return kbtf_has_func(name);
	case KF_KPROBE:
		return kprobes_work() && kallsyms_have(&name, 1);
	}
	return false;
}

/* ---- what the BPF loader accepts ---- */

/* libbpf loads a tiny program calling the helper: 1 yes, 0 no, and
 * <0 when it cannot tell (no privilege): then assume yes, and let the
 * load itself say what fails. */
static bool helper_probe(enum bpf_prog_type type, enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(type, id, NULL) != 0;
}

bool kernel_bpf_callbacks(void)
{
	static int known = -1;

	if (known < 0)
		known = helper_probe(BPF_PROG_TYPE_RAW_TRACEPOINT,
				     BPF_FUNC_for_each_map_elem);
	return known;
}

bool kernel_bpf_loop(void)
{
	static int known = -1;

	if (known < 0)
		known = helper_probe(BPF_PROG_TYPE_RAW_TRACEPOINT,
				     BPF_FUNC_loop);
	return known;
}

bool kernel_perf_event_needs_prealloc(void)
{
	static int known = -1;
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
	int map, prog;

	if (known >= 0)
		return known;
	map = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 4, 1, &mopts);
	if (map < 0)
		return (known = 0); /* cannot tell: the load will */
	{
		/* r1 = the map; r0 = 0; exit: the loader checks the map's
		 * kind against the program's before anything runs */
		const struct bpf_insn insns[] = {
			{.code = BPF_LD | BPF_DW | BPF_IMM,
			 .dst_reg = BPF_REG_1,
			 .src_reg = BPF_PSEUDO_MAP_FD,
			 .imm = map},
			{0},
			{.code = BPF_ALU64 | BPF_MOV | BPF_K,
			 .dst_reg = BPF_REG_0},
			{.code = BPF_JMP | BPF_EXIT},
		};

		prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL",
				     insns, ARRAY_SIZE(insns), NULL);
	}
	known = prog < 0 && errno == EINVAL;
	if (prog >= 0)
		close(prog);
	close(map);
	return known;
}

/* ---- CPUs ---- */

/* Parse a CPU list like "0-3,5" (sysfs online/possible format). */
static int parse_cpu_list(const char *s, int **cpus)
{
	size_t cap = 0;
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i < 65536; i++) {
			*cpus = grow_array(*cpus, &cap, n + 1, sizeof(**cpus));
			(*cpus)[n++] = i;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int kernel_online_cpus(int **cpus)
{
	char *s = read_file("/sys/devices/system/cpu/online", NULL);
	int n;

	*cpus = NULL;
	n = s ? parse_cpu_list(s, cpus) : 0;
	free(s);
	if (!n)
		error_exit("cannot read the online CPUs from "
			   "/sys/devices/system/cpu/online");
	return n;
}
