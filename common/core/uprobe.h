/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Uprobes on the functions of the files processes map: an applet names
 * the functions (a table), the layer finds them in each file's symbols,
 * places the probes, attaches them through uprobe_multi links (Linux
 * 6.6) or a perf event per probe, and detaches them all in parallel.
 */
#ifndef STACKBOX_UPROBE_H
#define STACKBOX_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stackbox.h" /* ENABLE_MEMSTACK, ENABLE_STACKCOUNT */

struct bpf_program;

#define UPROBE_MAX_FNS 16

/* A function to probe. Two names at one address get one probe: the
 * earlier in the table. */
struct uprobe_fn {
	const char *name; /* without the prefix */
	uint64_t cookie;  /* what the entry program by cookie is given */
	bool ret;	  /* a return probe too */
	bool ret_only;	  /* the return probe alone (stackcount ur:) */
};

/* A function found in a file: where its probe goes. */
struct uprobe_site {
	uint64_t off;	  /* file offset */
	unsigned char fn; /* index in the table */
};

/* A file some target maps, by (dev, inode): its symbols read once. */
struct uprobe_file {
	uint64_t dev, ino;
	char *name; /* as maps (or --lib) names it */
	struct uprobe_site sites[UPROBE_MAX_FNS];
	unsigned nsites;
	bool target;	 /* it defines the table's first function */
	pid_t *attached; /* pids its probes are attached for (-1: all) */
	size_t nattached, attached_cap;
};

struct uprobe_link;

struct uprobes {
	/* the applet's */
	const struct uprobe_fn *fns; /* fns[0]: what makes a file a target */
	unsigned nfns;
	const char *prefix; /* the functions are PREFIXname; NULL: none */
	int multi; /* BPF_TRACE_UPROBE_MULTI (uprobe_multi_type()); 0: perf */
	/* BPF_TRACE_UPROBE_SESSION: multi_entry is a session program,
	 * which runs at the returns too (where its entry returns 0) */
	int session;
	struct bpf_program *multi_entry; /* every entry, by cookie */
	struct bpf_program *ret;	 /* every return probe */
	/* with perf events: multi_entry with each function's cookie
	 * (perf_cookie: 5.15+), else the entry program of fns[fn] */
	bool perf_cookie;
	struct bpf_program *(*perf_entry)(void *ctx, unsigned fn);
	void *ctx;
	/* the layer's */
	struct uprobe_file *files;
	size_t nfiles, files_cap;
	struct uprobe_link *links;
	size_t nlinks, links_cap;
};

/* BPF_TRACE_UPROBE_MULTI's value where a link of it can be made here,
 * unless STACKBOX_ATTACH=uprobe; 0: a perf event per probe. -v says
 * which, once. */
int uprobe_multi_type(void);
/* Before load: p's calls of the helper numbers is_return_call and
 * cookie_call become calls of those kfuncs, by the kernel's BTF ids.
 * 0, or -ENOENT (no such kfunc, or no such call in p). */
int uprobe_session_kfuncs(struct bpf_program *p, int32_t is_return_call,
			  int32_t cookie_call);

/* The cached file of (dev, inode); its symbols are read from open_path
 * the first time. */
struct uprobe_file *uprobes_file(struct uprobes *u, uint64_t dev, uint64_t ino,
				 const char *name, const char *open_path);
/* Entry probes on the file's functions, return probes where the table
 * asks, for pid's process only or every process (-1; never 0, which
 * libbpf takes as this process). 0, or -errno. */
int uprobes_attach(struct uprobes *u, struct uprobe_file *f,
		   const char *open_path, pid_t pid);
bool uprobes_attached_for(const struct uprobe_file *f, pid_t pid);
/* The target files tgid maps, probed for pid: how many are. */
int uprobes_attach_maps(struct uprobes *u, pid_t tgid, pid_t pid);
/* The target files of every running process, for every process: how
 * many files are probed. */
int uprobes_attach_all(struct uprobes *u);
/* Detach everything (in parallel: each detach waits for RCU) and free. */
void uprobes_free(struct uprobes *u);

#endif
