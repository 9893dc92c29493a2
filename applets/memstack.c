// SPDX-License-Identifier: GPL-2.0
/* memstack: memory held per allocation stack.
 *
//config:config MEMSTACK
//config:	bool "memstack: memory held per allocation stack"
//config:	default y
//config:	help
//config:	  Counts the bytes allocated and not yet freed per allocation
//config:	  stack: the allocator's functions through uprobes (glibc,
//config:	  musl, static programs, others with --lib), mmap/munmap/brk,
//config:	  page faults, or the kernel's kmem tracepoints.
//usage:usage: memstack [--mode MODE] [-s BYTES] [--age DURATION] [--lib PATH] [--prefix PFX] [--bad-frees] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Memory allocated and not yet freed, per allocation stack: the bytes
//usage:(inuse_space) and allocations (inuse_objects) held at each snapshot,
//usage:and what was allocated in the interval (alloc_space, alloc_objects).
//usage:A process that exits shows what it held once more, marked "held at
//usage:exit", and is then dropped. Under -- CMD, frees and reallocs of
//usage:pointers never allocated or already freed are counted per stack that
//usage:made them (bad_frees), as rows of their own marked "bad free".
//usage:
//usage:  --mode MODE      user: the allocator's functions (default): malloc,
//usage:                   calloc, realloc, reallocarray, posix_memalign,
//usage:                   aligned_alloc, memalign, valloc, pvalloc, free;
//usage:                   mmap: mmap, munmap and brk (bytes mapped);
//usage:                   faults: page faults per stack and interval (memory
//usage:                   touched); kernel: kmalloc, kmem_cache and page
//usage:                   allocations (kmem tracepoints); alloc: bytes and
//usage:                   calls allocated per stack and interval (the
//usage:                   allocation rate: alloc_space, alloc_objects),
//usage:                   the user mode's functions without free
//usage:  -s BYTES         sample allocations, one per BYTES allocated on average
//usage:                   (512k, as Go and jemalloc): values are unbiased
//usage:                   estimates; without -s every allocation counts
//usage:  --age DURATION   only allocations older than DURATION (leak suspects)
//usage:  --lib PATH       the allocator (default: each process's libc.so.6,
//usage:                   ld-musl-ARCH.so.1, or static executable, or any
//usage:                   file it maps that exports malloc)
//usage:  --prefix PFX     the allocator's functions are PFXmalloc... (je_, tc_)
//usage:  --bad-frees      count frees of pointers not known without -- CMD too
//usage:                   (-p): rows marked "unknown free", since what was
//usage:                   allocated before the start is not known
//usage:  --max-allocs N   allocations tracked at once (131072); more are counted
//usage:  --value NAME     what text sorts by and folded shows: inuse_space
//usage:                   (default), inuse_objects, alloc_space, alloc_objects,
//usage:                   bad_frees;
//usage:                   faults: faulted_space (default), faults;
//usage:                   alloc: alloc_space (default), alloc_objects
//usage:@COMMON
//usage:
//usage:STACKBOX_ATTACH=uprobe (perf event uprobes, not uprobe_multi),
//usage:uprobe_multi (-s: entry and return probes, not uprobe sessions), raw_tp
//usage:(--mode mmap: not the syscalls tracepoints) forces a way to attach.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "kernel.h"
#include "kuprobe.h"
#include "mapwalk.h"
#include "memstack.h"
#include "memstack/memstack_hooks.h"
#include "memstack.skel.h"
#include "output.h"
#include "u64map.h"
#include "uprobe.h"

/* Row kinds (sb_key.aux). A free of a pointer not held is bad for
 * certain when every allocation was seen (-- CMD, nothing untracked);
 * else it may be of memory allocated before the start: unknown. */
#define AUX_EXITED	 1
#define AUX_BAD_FREE	 2
#define AUX_UNKNOWN_FREE 3

/* ---- options ---- */

struct ms_state;

struct memstack_args {
	struct collect_opts common;
	int mode; /* enum memstack_mode */
	long long sample;
	uint64_t age;
	const char *lib, *prefix;
	long long max_allocs;
	const char *value;
	int bad_frees;
	struct ms_state *st;
};

static const char *const mode_names[] = {"user", "mmap", "faults", "kernel",
					 "alloc"};

static const struct opt_names modes = {
	mode_names, ARRAY_SIZE(mode_names),
	"unknown mode (user, mmap, faults, kernel, alloc)"};

/* The modes that probe the allocator's functions. */
static bool allocator_mode(int mode)
{
	return mode == MS_MODE_USER || mode == MS_MODE_ALLOC;
}

/* 4096, 64k, 512K, 1M: at most 4 GiB, so the BPF side's products fit */
static const char *opt_bytes(const struct opt *o, const char *arg, void *dst)
{
	char *end;
	double v = parse_size(arg, &end);

	if (end == arg || *end || !(v >= 1) || v > 4294967296.0)
		return "not a size from 1 to 4G (4096, 64k, 512k, 1M)";
	*(long long *)dst = v;
	return NULL;
}

static const struct opt memstack_opts[] = {
	OPT_TABLE(0, "mode", "MODE", opt_name, struct memstack_args, mode,
		  modes, "user"),
	OPT_CUSTOM('s', "sample", "BYTES", opt_bytes, struct memstack_args,
		   sample, NULL, .flags = OPT_SHOWN),
	OPT_DURATION(0, "age", "DURATION", struct memstack_args, age, 1,
		     1LL << 62, NULL),
	OPT_STRING(0, "lib", "PATH", struct memstack_args, lib, NULL),
	OPT_STRING(0, "prefix", "PFX", struct memstack_args, prefix, NULL),
	OPT_INT(0, "max-allocs", "N", struct memstack_args, max_allocs, 16,
		1 << 26, "131072"),
	OPT_STRING(0, "value", "NAME", struct memstack_args, value, NULL,
		   .flags = OPT_SHOWN),
	OPT_FLAG(0, "bad-frees", struct memstack_args, bad_frees),
	OPT_INCLUDE(collect_options, struct memstack_args, common),
	OPT_END,
};

/* The last only when bad frees are counted (-- CMD, --bad-frees). */
static const struct metric held_metrics[] = {
	{"inuse_space", METRIC_BYTES, .level = true, .measure = MEASURE_MEMORY},
	{"inuse_objects", METRIC_COUNT, .level = true},
	{"alloc_space", METRIC_BYTES, .measure = MEASURE_MEMORY},
	{"alloc_objects", METRIC_COUNT},
	{"bad_frees", METRIC_COUNT},
};
#define V_BAD_FREES 4

static const struct metric fault_metrics[] = {
	{"faulted_space", METRIC_BYTES, .measure = MEASURE_MEMORY},
	{"faults", METRIC_COUNT},
};

/* --mode alloc: counts of the interval, not levels */
static const struct metric alloc_metrics[] = {
	{"alloc_space", METRIC_BYTES, .measure = MEASURE_MEMORY},
	{"alloc_objects", METRIC_COUNT},
};

/* ---- run state ---- */

/* What a stack allocated (or old records hold), by row ref; c: its bad
 * frees. */
struct two {
	uint64_t a, b, c;
};

struct ms_state {
	struct memstack_bpf *skel;
	bool filtered;		/* -p or CMD: probes per process */
	bool bad_frees;		/* counted */
	bool all_seen;		/* -- CMD: every allocation from the start */
	struct u64map prev;	/* of struct two: at the last snapshot */
	const char *raw_way;	/* --mode mmap: how it attached */
	struct uprobes uprobes; /* detached by memstack_main */
};

/* ---- sampling tables ---- */

static void fill_tables(struct memstack_bpf *s)
{
	for (int i = 0; i <= 1 << MS_LOG2_BITS; i++)
		s->rodata->log2_tab[i] = log2(1 + i / 1024.0) * 65536 + 0.5;
	s->rodata->weight_tab[0] = 65536; /* the limit at 0 */
	for (int i = 1; i <= MS_WEIGHT_N; i++) {
		double x = i / 64.0;

		s->rodata->weight_tab[i] = x / (1 - exp(-x)) * 65536 + 0.5;
	}
}

/* ---- the allocator's functions, through uprobes ---- */

/* The public entry points: in a static musl program free and realloc
 * are jumps to __libc_free and __libc_realloc, which musl also calls
 * from inside (realloc frees): probing those too would see each free
 * twice. Allocations musl makes for itself through them go unseen,
 * and so do their frees. A file is probed when it defines malloc. */
static const struct uprobe_fn alloc_fns[] = {
	{"malloc", MS_MALLOC, true},
	{"calloc", MS_CALLOC, true},
	{"realloc", MS_REALLOC, true},
	{"reallocarray", MS_REALLOCARRAY, true},
	{"posix_memalign", MS_POSIX_MEMALIGN, true},
	{"aligned_alloc", MS_MEMALIGN, true},
	{"memalign", MS_MEMALIGN, true},
	{"valloc", MS_VALLOC, true},
	{"pvalloc", MS_PVALLOC, true},
	{"free", MS_FREE, false},
};

/* With perf event uprobes and no cookies: a program per function,
 * which passes the call to ms_entry_tail. */
static struct bpf_program *entry_prog(void *skel, unsigned fn)
{
	struct memstack_bpf *s = skel;

	switch (alloc_fns[fn].cookie) {
	case MS_MALLOC:
		return s->progs.ms_malloc;
	case MS_CALLOC:
		return s->progs.ms_calloc;
	case MS_REALLOC:
		return s->progs.ms_realloc;
	case MS_REALLOCARRAY:
		return s->progs.ms_reallocarray;
	case MS_POSIX_MEMALIGN:
		return s->progs.ms_posix_memalign;
	case MS_MEMALIGN:
		return s->progs.ms_memalign;
	case MS_VALLOC:
		return s->progs.ms_valloc;
	case MS_PVALLOC:
		return s->progs.ms_pvalloc;
	default:
		return s->progs.ms_free;
	}
}

/* --lib PATH, as the target sees it when it can be opened that way. */
static void attach_lib(struct memstack_args *a, pid_t pid)
{
	struct uprobes *u = &a->st->uprobes;
	char open_path[4200];
	struct uprobe_file *f;
	struct stat sb;
	int err;

	snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", pid, a->lib);
	if (pid <= 0 || *a->lib != '/' || stat(open_path, &sb))
		snprintf(open_path, sizeof(open_path), "%s", a->lib);
	if (stat(open_path, &sb))
		error_exit("--lib %s: %s", a->lib, strerror(errno));
	f = uprobes_file(u, (uint64_t)major(sb.st_dev) << 32 | minor(sb.st_dev),
			 sb.st_ino, a->lib, open_path);
	if (!f->target)
		error_exit("--lib %s: no %smalloc in its symbols", a->lib,
			   a->prefix ? a->prefix : "");
	if (!uprobes_attached_for(f, pid) &&
	    (err = uprobes_attach(u, f, open_path, pid)))
		error_exit("--lib %s: attaching uprobes: %s", a->lib,
			   strerror(-err));
}

/* -p PID, or CMD at its entry point: probes for it alone. */
static void ms_target(struct collector *c, void *skel, void *args, pid_t tgid)
{
	struct memstack_args *a = args;

	if (!allocator_mode(a->mode))
		return;
	if (a->lib)
		attach_lib(a, tgid);
	else if (!uprobes_attach_maps(&a->st->uprobes, tgid, tgid))
		error_exit(
			"pid %d: no allocator in the files it maps (%smalloc "
			"in libc.so.6, ld-musl-*.so.1, a static executable "
			"or a library); name it with --lib",
			tgid, a->prefix ? a->prefix : "");
}

/* Without -p or CMD: every allocator file of every running process,
 * once each, for every process. */
static void attach_everywhere(struct memstack_args *a)
{
	int files = uprobes_attach_all(&a->st->uprobes);

	if (!files)
		error_exit("no running process maps an allocator (%smalloc); "
			   "name one with --lib",
			   a->prefix ? a->prefix : "");
	verbose("uprobes in %d allocator files; processes started later "
		"are seen when they map one of them",
		files);
}

/* ---- the collector's callbacks ---- */

SB_SKELETON(memstack)

/* task_struct.signal and signal_struct.live: the last thread of a
 * process to exit, when kernel BTF says where they are */
static void probe_exit_layout(struct memstack_bpf *s)
{
	int sig, live;

	if (!kbtf_layouts()) {
		verbose("no kernel BTF (" KBTF_HOW "): a process ends when "
			"its main thread exits");
		return;
	}
	sig = kbtf_member("task_struct", "signal", NULL);
	live = kbtf_member("signal_struct", "live", NULL);
	if (sig > 0 && live >= 0) {
		s->rodata->task_signal_off = sig;
		s->rodata->signal_live_off = live;
	}
}

static void autoload_mode(struct ms_state *st, int mode)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, st->skel->obj)
	{
		const char *n = bpf_program__name(p);
		const char *sec = bpf_program__section_name(p);
		bool want;

		if (strncmp(n, "ms_", 3))
			continue; /* the core's */
		if (!strcmp(n, "ms_exit") || !strcmp(n, "ms_exec"))
			want = allocator_mode(mode) || mode == MS_MODE_MMAP;
		else if (!strcmp(n, "ms_alloc_return"))
			want = allocator_mode(mode) && !st->uprobes.session;
		else if (!strcmp(n, "ms_session"))
			want = allocator_mode(mode) && st->uprobes.session;
		else if (!strcmp(n, "ms_entry"))
			want = allocator_mode(mode) && !st->uprobes.session &&
			       (st->uprobes.multi || st->uprobes.perf_cookie);
		else if (!strncmp(sec, "uprobe", 6)) /* the tail call's */
			want = allocator_mode(mode) && !st->uprobes.multi &&
			       !st->uprobes.perf_cookie;
		else if (!strcmp(sec, "perf_event"))
			want = mode == MS_MODE_FAULTS;
		else if (!strncmp(sec, "tracepoint/kmem/", 16))
			want = mode == MS_MODE_KERNEL;
		else
			want = mode == MS_MODE_MMAP;
		bpf_program__set_autoload(p, want);
	}
	if (st->uprobes.session)
		bpf_program__set_expected_attach_type(
			st->skel->progs.ms_session, st->uprobes.session);
	else if (st->uprobes.multi) {
		bpf_program__set_expected_attach_type(st->skel->progs.ms_entry,
						      st->uprobes.multi);
		bpf_program__set_expected_attach_type(
			st->skel->progs.ms_alloc_return, st->uprobes.multi);
	}
}

/* -s: uprobe sessions where the kernel has them and uprobe_multi is
 * used, unless STACKBOX_ATTACH names a way (uprobe, uprobe_multi). -v
 * says which, in one line. */
static int choose_session(int multi)
{
	bool forced = attach_forced("uprobe") || attach_forced("uprobe_multi");
	int type = forced || !multi ? 0 : uprobe_session_attach_type();

	verbose("-s: %s",
		type	 ? "uprobe sessions: a call not sampled costs one "
			   "trap, no return probe"
		: forced ? "entry and return probes (STACKBOX_ATTACH)"
			 : "entry and return probes (no uprobe sessions: "
			   "Linux < 6.13, or no kernel BTF)");
	return type;
}

/* uprobe_multi where the kernel has it, unless STACKBOX_ATTACH=uprobe;
 * sampled: sessions where they can be */
static void choose_uprobes(struct ms_state *st, const char *prefix,
			   bool sampled, bool with_free)
{
	struct memstack_bpf *s = st->skel;
	int multi = uprobe_multi_type();
	int session = sampled ? choose_session(multi) : 0;

	if (session && uprobe_session_kfuncs(s->progs.ms_session,
					     MS_CALL_SESSION_IS_RETURN,
					     MS_CALL_SESSION_COOKIE))
		error_exit("-s: the session program cannot call the uprobe "
			   "session kfuncs");
	bool cookie = !multi && feature_usable(SB_F_PERF_COOKIE);

	if (!multi)
		verbose("uprobes: %s",
			cookie ? "one entry program, each function's kind in "
				 "its cookie"
			       : "a program per function, passing its call "
				 "to one by tail call (no BPF cookies on "
				 "perf event links: Linux < 5.15)");
	st->uprobes = (struct uprobes){
		.fns = alloc_fns,
		/* free is the table's last: --mode alloc leaves it out */
		.nfns = ARRAY_SIZE(alloc_fns) - !with_free,
		.prefix = prefix,
		.multi = multi,
		.session = session,
		.multi_entry =
			session ? s->progs.ms_session : s->progs.ms_entry,
		.perf_cookie = cookie,
		.ret = s->progs.ms_alloc_return,
		.perf_entry = entry_prog,
		.ctx = s,
	};
}

static void preallocate(struct bpf_map *m)
{
	bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
}

/* Maps a mode does not use take one entry, not their memory. */
static void shrink_unused(struct memstack_bpf *s, int mode)
{
	bool held = mode != MS_MODE_FAULTS && mode != MS_MODE_ALLOC,
	     calls = mode != MS_MODE_FAULTS && mode != MS_MODE_KERNEL;

	if (held) { /* state rows, not the interval's counts */
		bpf_map__set_max_entries(s->maps.sb_counts0, 1);
		bpf_map__set_max_entries(s->maps.sb_counts1, 1);
	} else {
		bpf_map__set_max_entries(s->maps.ms_allocs, 1);
		bpf_map__set_max_entries(s->maps.ms_rows, 1);
	}
	if (!calls) {
		bpf_map__set_max_entries(s->maps.ms_threads, 1);
		bpf_map__set_max_entries(s->maps.ms_procs, 1);
	}
	if (!calls || !held)
		bpf_map__set_max_entries(s->maps.ms_exited, 1);
}

static void ms_size(struct collector *c, void *skel, void *args)
{
	struct memstack_bpf *s = skel;
	struct memstack_args *a = args;

	bpf_map__set_max_entries(s->maps.ms_allocs, a->max_allocs);
	bpf_map__set_max_entries(s->maps.ms_rows, a->common.rows);
	shrink_unused(s, a->mode);
	if (a->mode == MS_MODE_KERNEL) { /* inserts would be kmallocs */
		preallocate(s->maps.ms_allocs);
		preallocate(s->maps.ms_rows);
	}
}

static int ms_configure(struct collector *c, void *skel, void *args)
{
	struct memstack_bpf *s = skel;
	struct memstack_args *a = args;
	struct ms_state *st = a->st;
	long page = sysconf(_SC_PAGESIZE);

	st->skel = s;
	st->filtered = s->rodata->sb_cfg.filter_tgid;
	s->rodata->ms_mode = a->mode;
	s->rodata->page_size = page > 0 ? page : 4096;
	s->rodata->keep_time = a->age != 0;
	s->rodata->bad_frees = st->bad_frees;
	s->rodata->self_tgid = getpid();
	s->rodata->sample_mean = a->sample;
	if (a->sample)
		fill_tables(s);
	/* a uprobe's or syscall's kernel stack is only the trap's path */
	if (allocator_mode(a->mode) || a->mode == MS_MODE_MMAP)
		s->rodata->sb_cfg.kern_stacks = 0;
	if (allocator_mode(a->mode))
		choose_uprobes(st, a->prefix, a->sample != 0,
			       a->mode == MS_MODE_USER);
	autoload_mode(st, a->mode);
	if (allocator_mode(a->mode) || a->mode == MS_MODE_MMAP)
		probe_exit_layout(s);
	if (a->mode == MS_MODE_MMAP)
		st->raw_way = ms_choose_syscalls(s);
	if (a->mode == MS_MODE_KERNEL)
		ms_choose_kevents(s);
	return 0;
}

static int ms_attach(struct collector *c, void *skel, void *args)
{
	struct memstack_args *a = args;
	struct memstack_bpf *s = skel;
	__u32 slot = 0;
	int err, tail;

	if (a->mode == MS_MODE_FAULTS)
		return ms_attach_faults(c, s);
	tail = bpf_program__fd(s->progs.ms_entry_tail);
	if (tail >= 0 && bpf_map_update_elem(bpf_map__fd(s->maps.ms_entry_jump),
					     &slot, &tail, BPF_ANY))
		return -errno;
	if ((err = collect_attach_tracepoints(c, s->obj, "ms_")))
		return err;
	if (a->mode == MS_MODE_MMAP)
		verbose("mmap, munmap, brk: attached with %s", a->st->raw_way);
	if (allocator_mode(a->mode) && !a->st->filtered) {
		if (a->lib)
			attach_lib(a, -1);
		else
			attach_everywhere(a);
	}
	return 0;
}

/* ---- snapshots: the rows as BPF keeps them ---- */

/* Processes gone since the last snapshot, taken from BPF: sorted
 * (tgid << 32 | gen). CMD's exit waits for the final snapshot (cmd, not
 * yet reaped): BPF sees it before SIGCHLD, which brings that snapshot
 * at once, and an interval's snapshot between the two would leave the
 * final one without what CMD held at its exit. */
struct gone {
	uint64_t *id;
	size_t n, cap;
	pid_t cmd;
};

static void take_gone(const void *k, const void *v, void *arg)
{
	const struct ms_exit_key *e = k;
	struct gone *g = arg;

	if (g->cmd && (pid_t)e->tgid == g->cmd)
		return;
	g->id = grow_array(g->id, &g->cap, g->n + 1, sizeof(*g->id));
	g->id[g->n++] = (uint64_t)e->tgid << 32 | e->gen;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_gone(const struct gone *g, uint32_t tgid, uint32_t gen)
{
	uint64_t id = (uint64_t)tgid << 32 | gen;

	return g->n && bsearch(&id, g->id, g->n, sizeof(id), by_u64);
}

struct walk {
	struct gone gone;
	struct u64map aged; /* --age: what old records hold, by ref */
	uint64_t before;    /* --age: records older than this */
	struct ms_alloc_key *drop;
	size_t ndrop, drop_cap;
	struct row *rows;
	size_t nrows, rows_cap;
	struct u64map next_prev;
	uint64_t *idle; /* rows holding nothing that allocated nothing */
	size_t nidle, idle_cap;
	struct ms_state *st;
	int rows_fd;
	bool age;
	__u32 bad_aux; /* AUX_BAD_FREE, or AUX_UNKNOWN_FREE */
};

/* Records: of processes gone (to delete), and old ones (--age). */
static void visit_alloc(const void *k, const void *v, void *arg)
{
	const struct ms_alloc_key *key = k;
	const struct ms_alloc *a = v;
	struct walk *w = arg;

	if (key->tgid && is_gone(&w->gone, key->tgid, key->gen)) {
		w->drop = grow_array(w->drop, &w->drop_cap, w->ndrop + 1,
				     sizeof(*w->drop));
		w->drop[w->ndrop++] = *key;
	}
	if (w->age && a->time < w->before) {
		struct two *s = u64map_add(&w->aged, a->ref);

		s->a += a->bytes;
		s->b += a->objs;
	}
}

static __u64 clamp_held(__u64 v)
{
	return (__s64)v < 0 ? 0 : v; /* a free raced past its allocation */
}

static void add_idle(struct walk *w, uint64_t ref)
{
	w->idle = grow_array(w->idle, &w->idle_cap, w->nidle + 1,
			     sizeof(*w->idle));
	w->idle[w->nidle++] = ref;
}

/* A row of its own for the bad frees a stack made in the interval. */
static void add_bad_frees(struct walk *w, const struct ms_row *r, __u64 n)
{
	struct row *out;

	w->rows = grow_array(w->rows, &w->rows_cap, w->nrows + 1,
			     sizeof(*w->rows));
	out = &w->rows[w->nrows++];
	memset(out, 0, sizeof(*out));
	out->key = r->key;
	out->key.aux = w->bad_aux;
	out->v[V_BAD_FREES] = n;
}

static void visit_row(const void *k, const void *v, void *arg)
{
	const struct ms_row *r = v;
	uint64_t ref = *(const uint64_t *)k;
	struct walk *w = arg;
	struct two *prev = u64map_find(&w->st->prev, ref), *next;
	struct row *out;
	bool gone = r->key.tgid && is_gone(&w->gone, r->key.tgid, r->gen);

	if (r->bad_frees != (prev ? prev->c : 0))
		add_bad_frees(w, r, r->bad_frees - (prev ? prev->c : 0));
	if (!r->alloc_objs && r->bad_frees) { /* a stack that only freed */
		if (gone) {
			bpf_map_delete_elem(w->rows_fd, &ref);
			return;
		}
		((struct two *)u64map_add(&w->next_prev, ref))->c =
			r->bad_frees;
		if (prev && prev->c == r->bad_frees)
			add_idle(w, ref);
		return;
	}
	w->rows = grow_array(w->rows, &w->rows_cap, w->nrows + 1,
			     sizeof(*w->rows));
	out = &w->rows[w->nrows++];
	memset(out, 0, sizeof(*out));
	out->key = r->key;
	if (w->age) {
		struct two *s = u64map_find(&w->aged, ref);

		out->v[0] = s ? s->a : 0;
		out->v[1] = s ? s->b : 0;
	} else {
		out->v[0] = clamp_held(r->inuse_bytes);
		out->v[1] = clamp_held(r->inuse_objs);
		out->v[2] = r->alloc_bytes - (prev ? prev->a : 0);
		out->v[3] = r->alloc_objs - (prev ? prev->b : 0);
	}
	if (gone) { /* shown once more, then its stack is forgotten */
		out->key.aux = AUX_EXITED;
		bpf_map_delete_elem(w->rows_fd, &ref);
		return;
	}
	next = u64map_add(&w->next_prev, ref);
	next->a = r->alloc_bytes;
	next->b = r->alloc_objs;
	next->c = r->bad_frees;
	if (!r->inuse_objs && prev && prev->a == r->alloc_bytes &&
	    prev->b == r->alloc_objs && prev->c == r->bad_frees)
		add_idle(w, ref);
}

/*
 * A row stays while its process lives, even when it holds nothing. When
 * the row map is three quarters full, rows that held nothing and
 * allocated nothing for a whole interval go: BPF makes them again when
 * their stack allocates. (An allocation racing with the delete may go
 * uncounted: better than every new stack going uncounted.)
 */
static void drop_idle(struct walk *w, size_t max_rows)
{
	struct u64map kept = U64MAP_OF(struct two);
	size_t at = 0;
	uint64_t ref;
	void *v;

	if (w->nrows * 4 < max_rows * 3)
		return;
	qsort(w->idle, w->nidle, sizeof(*w->idle), by_u64);
	for (size_t i = 0; i < w->nidle; i++)
		bpf_map_delete_elem(w->rows_fd, &w->idle[i]);
	/* their previous counts go too: a new row counts from 0 */
	while (u64map_next(&w->next_prev, &at, &ref, &v))
		if (!(w->nidle &&
		      bsearch(&ref, w->idle, w->nidle, sizeof(ref), by_u64)))
			*(struct two *)u64map_add(&kept, ref) =
				*(struct two *)v;
	u64map_free(&w->next_prev);
	w->next_prev = kept;
	verbose("row map %zu of %zu full: %zu rows that held nothing dropped",
		w->nrows, max_rows, w->nidle);
}

static void drop_records(struct memstack_bpf *s, struct walk *w)
{
	int fd = bpf_map__fd(s->maps.ms_allocs);

	for (size_t i = 0; i < w->ndrop; i++)
		bpf_map_delete_elem(fd, &w->drop[i]);
	if (w->ndrop)
		verbose("dropped %zu allocations of %zu processes gone",
			w->ndrop, w->gone.n);
}

/*
 * At each snapshot: every stack's row as BPF keeps it (not taken
 * away: what is held is state), what it allocated since the last one,
 * and, once, the rows of processes gone since, marked; then they are
 * dropped with their records. --age: what records older than the age
 * hold, by stack.
 */
static size_t ms_state_rows(struct collector *c, void *skel, void *args,
			    struct row **rows)
{
	struct memstack_bpf *s = skel;
	struct memstack_args *a = args;
	struct walk w = {.gone = {.cmd = collect_cmd_pid(c)},
			 .st = a->st,
			 .age = a->age != 0,
			 .bad_aux = a->st->all_seen && !s->bss->ms_untracked
					    ? AUX_BAD_FREE
					    : AUX_UNKNOWN_FREE,
			 .aged = U64MAP_OF(struct two),
			 .next_prev = U64MAP_OF(struct two)};
	int exited = bpf_map__fd(s->maps.ms_exited);
	struct timespec now;

	if (a->mode == MS_MODE_FAULTS || a->mode == MS_MODE_ALLOC)
		return 0;
	map_walk(exited, sizeof(struct ms_exit_key), sizeof(__u64), false,
		 take_gone, &w.gone);
	for (size_t i = 0; i < w.gone.n; i++) {
		struct ms_exit_key k = {w.gone.id[i] >> 32, w.gone.id[i]};

		bpf_map_delete_elem(exited, &k);
	}
	qsort(w.gone.id, w.gone.n, sizeof(*w.gone.id), by_u64);
	clock_gettime(CLOCK_MONOTONIC, &now);
	w.before = now.tv_sec * NS_PER_SEC + now.tv_nsec - a->age;
	if (w.gone.n || w.age)
		map_walk(bpf_map__fd(s->maps.ms_allocs),
			 sizeof(struct ms_alloc_key), sizeof(struct ms_alloc),
			 false, visit_alloc, &w);
	w.rows_fd = bpf_map__fd(s->maps.ms_rows);
	map_walk(w.rows_fd, sizeof(__u64), sizeof(struct ms_row), false,
		 visit_row, &w);
	drop_idle(&w, a->common.rows);
	drop_records(s, &w);
	u64map_free(&a->st->prev);
	a->st->prev = w.next_prev;
	u64map_free(&w.aged);
	free(w.idle);
	free(w.drop);
	free(w.gone.id);
	*rows = w.rows;
	return w.nrows;
}

static const char *ms_aux_name(__u32 aux)
{
	switch (aux) {
	case AUX_EXITED:
		return "held at exit";
	case AUX_BAD_FREE:
		return "bad free";
	case AUX_UNKNOWN_FREE:
		return "unknown free";
	}
	return "";
}

static unsigned ms_primary(struct collector *c, void *args)
{
	const struct memstack_args *a = args;
	const struct metric *m = a->mode == MS_MODE_FAULTS  ? fault_metrics
				 : a->mode == MS_MODE_ALLOC ? alloc_metrics
							    : held_metrics;
	unsigned n = a->mode == MS_MODE_FAULTS	? ARRAY_SIZE(fault_metrics)
		     : a->mode == MS_MODE_ALLOC ? ARRAY_SIZE(alloc_metrics)
						: ARRAY_SIZE(held_metrics);

	for (unsigned i = 0; a->value && i < n; i++)
		if (!strcmp(a->value, m[i].name))
			return i;
	return 0;
}

static void ms_describe(struct collector *c, void *args, char *buf, size_t len)
{
	const struct memstack_args *a = args;
	char mean[32], age[32];
	int n = 0;

	switch (a->mode) {
	case MS_MODE_USER:
		n = snprintf(buf, len,
			     "value: heap memory allocated and not yet freed "
			     "(inuse), per allocation stack; alloc: allocated "
			     "in the interval");
		break;
	case MS_MODE_MMAP:
		n = snprintf(
			buf, len,
			"value: bytes mapped by mmap and brk and not yet "
			"unmapped (inuse), per stack; alloc: mapped in the "
			"interval");
		break;
	case MS_MODE_FAULTS:
		snprintf(buf, len,
			 "value: page faults per stack in the interval, and "
			 "faults x %ld bytes: memory touched",
			 sysconf(_SC_PAGESIZE));
		return;
	case MS_MODE_ALLOC:
		n = snprintf(buf, len,
			     "value: bytes (alloc_space) and calls "
			     "(alloc_objects) allocated per stack in the "
			     "interval, freed or not (free is not probed)");
		break;
	case MS_MODE_KERNEL:
		n = snprintf(buf, len,
			     "value: kernel memory (kmalloc, kmem_cache, "
			     "pages) allocated and not yet freed (inuse), per "
			     "stack; alloc: allocated in the interval");
		break;
	}
	if (a->sample && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n,
			      "; estimates: allocations sampled every %s on "
			      "average",
			      format_value(mean, sizeof(mean), METRIC_BYTES,
					   a->sample));
	if (a->age && n >= 0 && (size_t)n < len)
		n += snprintf(
			buf + n, len - n,
			"; only allocations older than %s (alloc: not counted)",
			format_value(age, sizeof(age), METRIC_NS, a->age));
	if (a->st->bad_frees && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n,
			 "; bad_frees: frees of pointers not held, per stack "
			 "that freed%s",
			 a->st->all_seen
				 ? " (\"bad free\": never allocated or freed "
				   "already)"
				 : " (\"unknown free\": or allocated before "
				   "the start)");
}

/* The allocator modes count the same losses; what a free that finds no
 * allocation means is all that differs between them. */
#define ALLOCATOR_STATS(unknown_free)                                        \
	{                                                                    \
		"allocations not tracked (--max-allocs full)", unknown_free, \
			"allocations not counted (--rows full)",             \
			"addresses allocated again without a free seen",     \
			"calls not seen (thread map full)",                  \
			"calls whose return was not seen",                   \
			"process ends not seen (exit map full)",             \
			"calls not seen (a tail call failed)", NULL,         \
	}
static const char *const user_stats[] = ALLOCATOR_STATS(
	"frees of pointers not known (allocated before the start, or bad)");
static const char *const sampled_stats[] = ALLOCATOR_STATS(
	"frees of allocations not sampled (or allocated before the start)");
static const char *const alloc_stats[] =
	ALLOCATOR_STATS("frees of pointers not known");

static const char *const mmap_stats[] = {
	"mappings not tracked (--max-allocs full)",
	"munmap or brk shrinks of ranges not tracked",
	"mappings not counted (--rows full)",
	"addresses mapped again without an unmap seen",
	"calls not seen (thread map full)",
	"syscalls whose exit was not seen",
	"process ends not seen (exit map full)",
	NULL,
};

static const char *const kernel_stats[] = {
	"allocations not tracked (--max-allocs full)",
	"frees of objects not known (allocated before the start)",
	"allocations not counted (--rows full)",
	"addresses allocated again without a free seen",
	NULL,
};

static const struct collector_ops memstack_ops = {
	.features =
		(const enum sb_feature[]){SB_F_UPROBE_MULTI,
					  SB_F_UPROBE_SESSION, SB_F_PERF_COOKIE,
					  SB_F_BTF, SB_F_END},
	.metrics = held_metrics,
	.nmetrics = V_BAD_FREES,
	SB_SKELETON_OPS(memstack),
	.size = ms_size,
	.configure = ms_configure,
	.attach = ms_attach,
	.target = ms_target,
	.state_rows = ms_state_rows,
	.primary = ms_primary,
	.describe = ms_describe,
	.aux_name = ms_aux_name,
	.stat_names = user_stats,
};

static void check_args(struct memstack_args *a)
{
	bool user = a->mode == MS_MODE_USER,
	     allocator = allocator_mode(a->mode);
	static const char *const first[] = {"inuse_space", "inuse_space",
					    "faulted_space", "inuse_space",
					    "alloc_space"};

	if (a->sample && !allocator)
		help_exit("-s samples the allocator's calls: --mode user or "
			  "alloc only");
	if ((a->lib || a->prefix) && !allocator)
		help_exit("--lib and --prefix name an allocator: --mode user "
			  "or alloc only");
	if (a->age && (a->mode == MS_MODE_FAULTS || a->mode == MS_MODE_ALLOC))
		help_exit("--age: --mode %s counts per interval, nothing is "
			  "held",
			  mode_names[a->mode]);
	if (a->common.kernel_only && (allocator || a->mode == MS_MODE_MMAP))
		help_exit("-K: --mode %s has user stacks only (kernel stacks: "
			  "--mode kernel)",
			  mode_names[a->mode]);
	if (a->bad_frees && (!user || a->sample))
		help_exit("--bad-frees: every allocation must be seen: --mode "
			  "user without -s");
	if (a->value && !strcmp(a->value, "bad_frees") && !user)
		help_exit("--value bad_frees: --mode user only");
	if (a->value && !ms_primary(NULL, a) &&
	    strcmp(a->value, first[a->mode]))
		help_exit("--value %s: not a value of --mode %s", a->value,
			  mode_names[a->mode]);
}

static int memstack_main(void *args, int argc, char **argv)
{
	struct memstack_args *a = args;
	struct collector_ops ops = memstack_ops;
	struct ms_state st = {.prev = U64MAP_OF(struct two)};
	int status;

	check_args(a);
	a->st = &st;
	/* under -- CMD every allocation is seen; -s sees one in many */
	st.all_seen = argc > 0;
	st.bad_frees = a->mode == MS_MODE_USER && !a->sample &&
		       (argc > 0 || a->bad_frees);
	if (st.bad_frees)
		ops.nmetrics = ARRAY_SIZE(held_metrics);
	else if (a->value && !strcmp(a->value, "bad_frees"))
		help_exit("--value bad_frees: with -- CMD or --bad-frees, "
			  "without -s");
	if (a->mode == MS_MODE_FAULTS || a->mode == MS_MODE_ALLOC) {
		bool faults = a->mode == MS_MODE_FAULTS;

		ops.metrics = faults ? fault_metrics : alloc_metrics;
		ops.nmetrics = faults ? ARRAY_SIZE(fault_metrics)
				      : ARRAY_SIZE(alloc_metrics);
		ops.per_thread = false;
		ops.state_rows = NULL;
		ops.aux_name = NULL;
		ops.stat_names = faults ? NULL : alloc_stats;
	}
	if (a->mode == MS_MODE_USER && a->sample)
		ops.stat_names = sampled_stats;
	if (a->mode == MS_MODE_MMAP)
		ops.stat_names = mmap_stats;
	if (a->mode == MS_MODE_KERNEL)
		ops.stat_names = kernel_stats;
	/* page faults and kmem events come where nothing may allocate */
	ops.prealloc_stacks =
		a->mode == MS_MODE_FAULTS || a->mode == MS_MODE_KERNEL;
	status = collect_run(&ops, &a->common, a, argc, argv);
	uprobes_free(&st.uprobes);
	u64map_free(&st.prev);
	return status;
}

APPLET_DEFINE(memstack, memstack_main, memstack_opts, struct memstack_args,
	      COLLECTORS(&memstack_ops));
