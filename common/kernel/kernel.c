// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel probing (see kernel.h): one file for what the running kernel
 * has. "kernel", not "kprobe" or "probe": kprobes are one mechanism it
 * asks about, and "probe" names the BPF programs too.
 */
#include <bpf/bpf.h>
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

/* ---- tracefs ---- */

static const char *const tracefs_roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};

/* Can this user not read tracefs, or not mount it where it is not? */
static bool tracefs_closed(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(tracefs_roots); i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/events", tracefs_roots[i]);
		if (!access(path, R_OK | X_OK))
			return false;
	}
	return geteuid() != 0;
}

enum feature_answer tracepoint_answer(const char *category, const char *name)
{
	char path[256];

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ARRAY_SIZE(tracefs_roots); i++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/id",
				 tracefs_roots[i], category, name);
			if (!access(path, R_OK))
				return FEATURE_YES;
		}
		/* not mounted by default on every system */
		if (pass ||
		    mount("tracefs", tracefs_roots[0], "tracefs", 0, NULL))
			break;
		verbose("mounted tracefs on %s", tracefs_roots[0]);
	}
	return tracefs_closed() ? FEATURE_NEEDS_ROOT : FEATURE_NO;
}

bool kernel_tracepoint_exists(const char *category, const char *name)
{
	return tracepoint_answer(category, name) == FEATURE_YES;
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

int kernel_tracepoint_field(const char *category, const char *name,
			    const char *field, unsigned *size)
{
	char path[256], *fmt = NULL, *line, *save = NULL;
	int offset = -1;

	if (!kernel_tracepoint_exists(category, name))
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

bool ksym_is_function(const char *sym, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(sym, name, n))
		return false;
	sym += n;
	if (!*sym)
		return true;
	if (!strncmp(sym, ".isra.", 6))
		sym += 6;
	else if (!strncmp(sym, ".constprop.", 11))
		sym += 11;
	else
		return false;
	return *sym && strspn(sym, "0123456789") == strlen(sym);
}

unsigned kallsyms_have(const char *const *names, unsigned n,
		       char (*found_as)[KSYM_LEN])
{
	unsigned found = 0, exact = 0;
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char type, name[KSYM_LEN];

		if (sscanf(line, "%*s %c %127s", &type, name) != 2 ||
		    (type != 't' && type != 'T'))
			continue;
		for (unsigned i = 0; i < n && i < 32; i++) {
			/* the function itself over a copy of it */
			if ((exact & 1u << i) ||
			    !ksym_is_function(name, names[i]))
				continue;
			found |= 1u << i;
			if (!strcmp(name, names[i]))
				exact |= 1u << i;
			if (found_as) /* name is shorter than KSYM_LEN */
				memcpy(found_as[i], name, strlen(name) + 1);
		}
	}
	if (f)
		fclose(f);
	return found;
}

bool kallsyms_text(const char *sym, unsigned long long *lo,
		   unsigned long long *hi)
{
	unsigned long long at, start = 0, end = ~0ULL;
	char line[512], type, name[256];
	FILE *f = fopen("/proc/kallsyms", "re");

	/* the kernel's own symbols come first, in address order; modules'
	 * and BPF's after them are not: the next address up is looked for
	 * in every line after sym's, in the same pass */
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &at, &type, name) != 3)
			continue;
		if (!start && !strcmp(name, sym) &&
		    (type == 't' || type == 'T'))
			start = at;
		else if (start && at > start && at < end)
			end = at;
	}
	if (f)
		fclose(f);
	if (!start || end == ~0ULL)
		return false;
	*lo = start;
	*hi = end;
	return true;
}

bool kprobes_work(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", W_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", W_OK);
}

enum feature_answer kprobes_answer(void)
{
	if (kprobes_work())
		return FEATURE_YES;
	return tracefs_closed() ? FEATURE_NEEDS_ROOT : FEATURE_NO;
}

/* ---- what the BPF loader accepts ---- */

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
