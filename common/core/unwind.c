// SPDX-License-Identifier: GPL-2.0
/* --unwind eh_frame: tables into the BPF maps (see unwind.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ehframe.h"
#include "code_changes.h"
#include "kernel.h"
#include "kfeatures.h"
#include "stackbox.h"
#include "syms.h"
#include "unwind.h"
#include "unwind_choice.h"
#include "unwind_walk.h"

#if defined(__x86_64__)
#define UNWIND_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define UNWIND_MACHINE EM_AARCH64
#else
#define UNWIND_MACHINE EM_NONE
#endif

struct unwind {
	struct bpf_map *rows_map, *files_map, *procs_map, *changes_map;
	int rows_fd, files_fd, procs_fd, changes_fd;
	__u32 cap, used;	       /* rows */
	unsigned files, full, without; /* loaded, no room, no table */
	int mode;		       /* SB_UNWIND_EH_FRAME or _AUTO */
	struct walk_cache *walks;      /* _AUTO: each file's walk */
	unsigned by_fp, by_tables;     /* _AUTO: processes walked so */
	__u32 gen; /* the last sb_unwind_proc.gen given: 0 is never one */
};

const char *unwind_missing(void)
{
	if (UNWIND_MACHINE == EM_NONE)
		return "this architecture";
	return unwind_walk_choose(&(struct unwind_walk){0});
}

/* The walk's loop and registers into cfg, said once under -v (each
 * fallback opens the object again). */
static void walk_configure(struct sb_config *cfg)
{
	static bool said;
	struct unwind_walk w;
	char words[256];

	if (unwind_walk_choose(&w))
		return; /* refused before: unwind_missing() */
	cfg->task_stack_off = w.task_stack_off;
	unwind_walk_words(&w, words, sizeof(words));
	if (!said)
		verbose("unwind: the table walk: %s", words);
	said = true;
}

struct unwind *unwind_configure(struct bpf_object *obj, struct sb_config *cfg,
				int mode, long long rows)
{
	static const char *const maps[] = {"sb_unwind_rows", "sb_unwind_files",
					   "sb_unwind_procs",
					   "sb_unwind_memos"};
	struct unwind *u;

	/* whether the walk runs or not: before 5.17 no global function
	 * (checked whether called or not) may reach bpf_loop */
	cfg->unwind_walk =
		unwind_walk_bounded() ? SB_WALK_BOUNDED : SB_WALK_LOOP;
	if (mode != SB_UNWIND_EH_FRAME && mode != SB_UNWIND_AUTO) {
		/* unused: one entry each, not a preallocated thousand */
		for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
			struct bpf_map *m =
				bpf_object__find_map_by_name(obj, maps[i]);

			if (m)
				bpf_map__set_max_entries(m, 1);
		}
		return NULL;
	}
	u = xzalloc(sizeof(*u));
	u->rows_map = bpf_object__find_map_by_name(obj, "sb_unwind_rows");
	u->files_map = bpf_object__find_map_by_name(obj, "sb_unwind_files");
	u->procs_map = bpf_object__find_map_by_name(obj, "sb_unwind_procs");
	u->changes_map = bpf_object__find_map_by_name(obj, "sb_code_changes");
	if (!u->rows_map || !u->files_map || !u->procs_map || !u->changes_map)
		error_exit("--unwind eh_frame: not in these BPF programs "
			   "(CONFIG_UNWIND_EH_FRAME)");
	u->cap = rows;
	bpf_map__set_max_entries(u->rows_map, u->cap);
	cfg->unwind = u->mode = mode;
	walk_configure(cfg);
	if (mode == SB_UNWIND_AUTO)
		u->walks = walk_cache_new();
	return u;
}

void unwind_loaded(struct unwind *u)
{
	if (!u)
		return;
	u->rows_fd = bpf_map__fd(u->rows_map);
	u->files_fd = bpf_map__fd(u->files_map);
	u->procs_fd = bpf_map__fd(u->procs_map);
	u->changes_fd = bpf_map__fd(u->changes_map);
}

/* Our row from ehframe's, or false when it does not fit 16 bits. */
static bool pack_row(const struct cfa_row *c, struct sb_unwind_row *r)
{
	static const __u8 kind[] = {
		[CFA_NONE] = SB_CFA_NONE, [CFA_SP] = SB_CFA_SP,
		[CFA_FP] = SB_CFA_FP,	  [CFA_OTHER] = SB_CFA_OTHER,
		[CFA_END] = SB_CFA_END,
	};

	if (c->addr > UINT32_MAX)
		return false;
	*r = (struct sb_unwind_row){.off = c->addr, .cfa = kind[c->cfa]};
	r->cfa_off = c->cfa_off;
	r->fp_off = c->fp_off;
	r->ra_off = c->ra_off;
	if (c->fp == SAVED_AT)
		r->saved |= SB_SAVED_FP;
	if (c->ra == SAVED_AT)
		r->saved |= SB_SAVED_RA;
	/* what BPF cannot follow: the walk stops or uses frame pointers */
	if (r->cfa_off != c->cfa_off || r->fp_off != c->fp_off ||
	    r->ra_off != c->ra_off || c->fp == SAVED_OTHER ||
	    c->ra == SAVED_OTHER ||
	    (UNWIND_MACHINE == EM_X86_64 && r->cfa != SB_CFA_NONE &&
	     r->cfa != SB_CFA_END && (c->ra != SAVED_AT || c->ra_off != -8)))
		r->cfa = SB_CFA_OTHER;
	return true;
}

static int put_rows(struct unwind *u, const struct sb_unwind_row *rows, __u32 n)
{
	__u32 *keys = xmalloc(n * sizeof(*keys)), count = n;
	int err;

	for (__u32 i = 0; i < n; i++)
		keys[i] = u->used + i;
	err = bpf_map_update_batch(u->rows_fd, keys, rows, &count, NULL);
	if (err) /* kernels without batch operations on arrays */
		for (__u32 i = err = 0; i < n && !err; i++)
			err = bpf_map_update_elem(u->rows_fd, &keys[i],
						  &rows[i], 0);
	free(keys);
	return err;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 +
	       (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Read the table of m's file into the rows map; the file's entry says
 * how. (proc_map_path(m) is the file opened inside the process's
 * root.) */
static void load_file(struct unwind *u, const struct sb_unwind_file_key *key,
		      const struct proc_map *m)
{
	const char *name = m->name;
	struct sb_unwind_file f = {0}; /* no rows: frame pointers */
	struct sb_unwind_row *rows = NULL;
	struct cfa_row *c = NULL;
	unsigned machine = 0;
	size_t n = 0, k = 0;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ehframe_read(proc_map_path(m), true, u->cap - u->used, &c, &n,
			 &machine) &&
	    errno == EFBIG) {
		verbose("--unwind eh_frame: no room for the table of %s: "
			"frame pointers",
			name);
		u->full++;
	} else if (!c || machine != UNWIND_MACHINE || !n) {
		verbose("--unwind eh_frame: no table in %s (%s): frame "
			"pointers",
			name, n ? "another machine" : strerror(errno));
		u->without++;
	} else if (n > u->cap - u->used) {
		verbose("--unwind eh_frame: no room for the %zu rows of %s: "
			"frame pointers",
			n, name);
		u->full++;
	} else {
		rows = xmalloc(n * sizeof(*rows));
		for (size_t i = 0; i < n; i++)
			k += pack_row(&c[i], &rows[k]);
		if (put_rows(u, rows, k)) {
			perror_msg("--unwind eh_frame: loading %s", name);
			u->full++;
		} else {
			f = (struct sb_unwind_file){u->used, k};
			u->used += k;
			u->files++;
			verbose("--unwind eh_frame: %zu rows for %s (%.1f ms)",
				k, name, ms_since(&t0));
		}
	}
	bpf_map_update_elem(u->files_fd, key, &f, BPF_ANY);
	free(rows);
	free(c);
}

/* The kernel's dev_t from the major << 32 | minor of procsyms */
static struct sb_unwind_file_key file_key(const struct proc_map *m)
{
	return (struct sb_unwind_file_key){
		.ino = m->ino,
		.dev = (__u32)((m->dev >> 32) << 20 | (m->dev & 0xfffff)),
	};
}

struct proc_maps {
	struct unwind *u;
	struct sb_unwind_proc p;
	bool more;    /* more than SB_UNWIND_MAPS */
	bool load;    /* the tables' rows into BPF, not only the walks */
	char why[64]; /* _AUTO: the file whose code needs the tables */
};

/* --unwind auto, before any row is loaded: whether m's file makes the
 * process need the tables. */
static void choose_walk(struct proc_maps *pm, const struct proc_map *m,
			const struct sb_unwind_file_key *key)
{
	const char *base = strrchr(m->name, '/');

	/* the C library's table is not even read: it decides nothing */
	if (pm->p.tables || walk_c_library(m->name) ||
	    walk_of_file(pm->u->walks, key, m, UNWIND_MACHINE) != WALK_TABLE)
		return;
	pm->p.tables = 1;
	snprintf(pm->why, sizeof(pm->why), "%s", base ? base + 1 : m->name);
}

static void add_mapping(const struct proc_map *m, void *arg)
{
	struct proc_maps *pm = arg;
	struct sb_unwind_file_key key = file_key(m);
	struct sb_unwind_file f;

	if (pm->p.n == SB_UNWIND_MAPS) {
		pm->more = true;
		return;
	}
	/* [vdso], JIT code, a file that does not open: known, walked by
	 * frame pointer; a file seen before is not opened again */
	if (!m->has_file)
		key = (struct sb_unwind_file_key){0};
	else if (!pm->load)
		choose_walk(pm, m, &key);
	else if (bpf_map_lookup_elem(pm->u->files_fd, &key, &f)) {
		if (proc_map_path(m))
			load_file(pm->u, &key, m);
		else
			key = (struct sb_unwind_file_key){0};
	}
	pm->p.maps[pm->p.n++] =
		(struct sb_unwind_map){m->start, m->end, m->pgoff, key};
}

/* A new gen for an entry of sb_unwind_procs being written: the walks
 * BPF remembered with the old entry no longer hold (unwind_memo.bpf.h). */
static __u32 next_gen(struct unwind *u)
{
	if (!++u->gen)
		u->gen = 1;
	return u->gen;
}

/*
 * BPF met code outside the mappings it was given, and they are still
 * the same (code in memory BPF cannot know): leave it marked stale, so
 * it stops asking; an exec starts afresh.
 */
static bool unchanged(struct unwind *u, pid_t tgid,
		      const struct sb_unwind_proc *now)
{
	struct sb_unwind_proc *old = xmalloc(sizeof(*old));
	bool same = !bpf_map_lookup_elem(u->procs_fd, &tgid, old) &&
		    old->n == now->n &&
		    !memcmp(old->maps, now->maps, now->n * sizeof(*now->maps));

	free(old);
	return same;
}

/*
 * --unwind auto: the walks of tgid's files decide its own; the tables'
 * rows are loaded (a second read of its mappings) only for a process
 * that needs them. false: its mappings did not read.
 */
static bool choose_process(struct proc_maps *pm, pid_t tgid)
{
	if (proc_maps_each_exec("/proc", tgid, add_mapping, pm))
		return false;
	if (!pm->p.tables)
		return true;
	pm->p.n = 0;
	pm->more = false;
	pm->load = true;
	return !proc_maps_each_exec("/proc", tgid, add_mapping, pm);
}

/* --unwind auto: the walk a process got and why, when it is new or
 * changes (its mappings read again after its exec: looks.h) */
static void say_walk(struct unwind *u, pid_t tgid, const struct proc_maps *pm)
{
	struct sb_unwind_proc *old = xmalloc(sizeof(*old));
	bool again = !bpf_map_lookup_elem(u->procs_fd, &tgid, old);
	bool same = again && old->tables == pm->p.tables;

	free(old);
	if (same)
		return;
	if (again) { /* counted by its first walk (or its parent's) */
		verbose("unwind: process %d: %s now (its mappings read "
			"again: %s)",
			tgid,
			pm->p.tables ? "eh_frame tables" : "frame pointers",
			pm->p.tables ? pm->why : "every file keeps them");
		return;
	}
	if (!pm->p.tables)
		verbose("unwind: process %d: frame pointers (every file keeps "
			"them, the C library aside)",
			tgid);
	else
		verbose("unwind: process %d: eh_frame tables (%s has code "
			"without frame pointers)",
			tgid, pm->why);
	if (pm->p.tables)
		u->by_tables++;
	else
		u->by_fp++;
}

/* Read tgid's mappings into BPF: 1, what BPF had changed; 0, the same;
 * -1, they did not read. */
static int read_process(struct unwind *u, pid_t tgid)
{
	struct proc_maps *pm;
	int ret = -1;
	bool read;

	pm = xzalloc(sizeof(*pm));
	pm->u = u;
	pm->load = u->mode == SB_UNWIND_EH_FRAME;
	/* the kernel lists them sorted, as the BPF search needs */
	read = pm->load ? !proc_maps_each_exec("/proc", tgid, add_mapping, pm)
			: choose_process(pm, tgid);
	if (read)
		ret = 0;
	if (read && pm->p.n && !unchanged(u, tgid, &pm->p)) {
		if (u->mode == SB_UNWIND_AUTO)
			say_walk(u, tgid, pm);
		pm->p.gen = next_gen(u);
		bpf_map_update_elem(u->procs_fd, &tgid, &pm->p, BPF_ANY);
		ret = 1;
	}
	if (pm->more)
		verbose("--unwind eh_frame: process %d has more than %d "
			"executable mappings: frame pointers for the rest",
			tgid, SB_UNWIND_MAPS);
	free(pm);
	return ret;
}

/* An exec while the mappings were read leaves the old image's in BPF,
 * put there after the exec made BPF forget them: every walk of the new
 * image would stop at its leaf until the exec's own event is handled,
 * which may come after symbols are read. Read them again after any
 * change of code meanwhile (an exec, code mapped). */
int unwind_process(struct unwind *u, pid_t tgid)
{
	__u64 since;
	int tries = 0, ret;

	if (!u)
		return -1;
	do {
		since = now_ns();
		ret = read_process(u, tgid);
	} while (code_changed_since(u->changes_fd, tgid, since) && ++tries < 3);
	return ret;
}

void unwind_inherit(struct unwind *u, pid_t tgid, pid_t parent)
{
	struct sb_unwind_proc *p;

	if (!u)
		return;
	p = xmalloc(sizeof(*p));
	if (bpf_map_lookup_elem(u->procs_fd, &parent, p)) {
		unwind_process(u, tgid);
	} else {
		p->stale = 0;
		p->gen = next_gen(u);
		bpf_map_update_elem(u->procs_fd, &tgid, p, BPF_ANY);
	}
	free(p);
}

bool unwind_by_frame_pointers(struct unwind *u, pid_t tgid)
{
	struct sb_unwind_proc *p;
	bool fp;

	if (!u || u->mode != SB_UNWIND_AUTO)
		return false;
	p = xmalloc(sizeof(*p));
	fp = !bpf_map_lookup_elem(u->procs_fd, &tgid, p) && !p->tables;
	free(p);
	return fp;
}

void unwind_exit(struct unwind *u, pid_t tgid)
{
	if (u)
		bpf_map_delete_elem(u->procs_fd, &tgid);
}

void unwind_describe(const struct unwind *u, char *buf, size_t len)
{
	int n = 0;

	if (!u) {
		snprintf(buf, len, "user stacks: frame pointers");
		return;
	}
	if (u->mode == SB_UNWIND_AUTO)
		n = snprintf(buf, len,
			     "user stacks: %u processes by frame pointers, %u "
			     "by tables; ",
			     u->by_fp, u->by_tables);
	if (n < 0 || (size_t)n >= len)
		n = 0;
	snprintf(buf + n, len - n,
		 "%seh_frame tables of %u files, %u of %u rows "
		 "(%u KiB); frame pointers for %u files without a table, "
		 "%u without room",
		 n ? "" : "user stacks: ", u->files, u->used, u->cap,
		 (unsigned)((size_t)u->used * sizeof(struct sb_unwind_row) /
			    1024),
		 u->without, u->full);
}

void unwind_free(struct unwind *u)
{
	if (u)
		walk_cache_free(u->walks);
	free(u);
}
