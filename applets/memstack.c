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
//usage:usage: memstack [--mode MODE] [-s BYTES] [--age DURATION] [--lib PATH] [--prefix PFX] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Memory allocated and not yet freed, per allocation stack: the bytes
//usage:(inuse_space) and allocations (inuse_objects) held at each snapshot,
//usage:and what was allocated in the interval (alloc_space, alloc_objects).
//usage:A process that exits shows what it held once more, marked "held at
//usage:exit", and is then dropped.
//usage:
//usage:  --mode MODE      user: the allocator's functions (default): malloc,
//usage:                   calloc, realloc, reallocarray, posix_memalign,
//usage:                   aligned_alloc, memalign, valloc, pvalloc, free;
//usage:                   mmap: mmap, munmap and brk (bytes mapped);
//usage:                   faults: page faults per stack and interval (memory
//usage:                   touched); kernel: kmalloc, kmem_cache and page
//usage:                   allocations (kmem tracepoints)
//usage:  -s BYTES         sample allocations, one per BYTES allocated on average
//usage:                   (512k, as Go and jemalloc): values are unbiased
//usage:                   estimates; without -s every allocation counts
//usage:  --age DURATION   only allocations older than DURATION (leak suspects)
//usage:  --lib PATH       the allocator (default: each process's libc.so.6,
//usage:                   ld-musl-ARCH.so.1, or static executable, or any
//usage:                   file it maps that exports malloc)
//usage:  --prefix PFX     the allocator's functions are PFXmalloc... (je_, tc_)
//usage:  --max-allocs N   allocations tracked at once (131072); more are counted
//usage:  --value NAME     what text sorts by and folded shows: inuse_space
//usage:                   (default), inuse_objects, alloc_space, alloc_objects;
//usage:                   faults: faulted_space (default), faults
//usage:@COMMON
//usage:
//usage:STACKBOX_ATTACH=uprobe (perf event uprobes, not uprobe_multi), raw_tp
//usage:(--mode mmap: not the syscalls tracepoints) forces a way to attach.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "kbtf.h"
#include "mapwalk.h"
#include "memstack.h"
#include "memstack.skel.h"
#include "output.h"

#define AUX_EXITED 1

/* ---- options ---- */

struct ms_file;
struct ms_state;

struct memstack_args {
	struct collect_opts common;
	int mode; /* enum memstack_mode */
	long long sample;
	uint64_t age;
	const char *lib, *prefix;
	long long max_allocs;
	const char *value;
	struct ms_state *st;
};

static const char *const mode_names[] = {"user", "mmap", "faults", "kernel"};

static const char *opt_mode(const struct opt *o, const char *arg, void *dst)
{
	for (size_t i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (!strcmp(arg, mode_names[i])) {
			*(int *)dst = i;
			return NULL;
		}
	return "unknown mode (user, mmap, faults, kernel)";
}

/* 4096, 64k, 512K, 1M: at most 4 GiB, so the BPF side's products fit */
static const char *opt_bytes(const struct opt *o, const char *arg, void *dst)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end == 'k' || *end == 'K')
		v *= 1024, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		v *= 1024 * 1024 * 1024, end++;
	if (end == arg || *end || !(v >= 1) || v > 4294967296.0)
		return "not a size from 1 to 4G (4096, 64k, 512k, 1M)";
	*(long long *)dst = v;
	return NULL;
}

static const struct opt memstack_opts[] = {
	OPT_CUSTOM(0, "mode", "MODE", opt_mode, struct memstack_args, mode,
		   "user"),
	OPT_CUSTOM('s', "sample", "BYTES", opt_bytes, struct memstack_args,
		   sample, NULL),
	OPT_DURATION(0, "age", "DURATION", struct memstack_args, age, 1,
		     1LL << 62, NULL),
	OPT_STRING(0, "lib", "PATH", struct memstack_args, lib, NULL),
	OPT_STRING(0, "prefix", "PFX", struct memstack_args, prefix, NULL),
	OPT_INT(0, "max-allocs", "N", struct memstack_args, max_allocs, 16,
		1 << 26, "131072"),
	OPT_STRING(0, "value", "NAME", struct memstack_args, value, NULL),
	OPT_INCLUDE(collect_options, struct memstack_args, common),
	OPT_END,
};

static const struct metric held_metrics[] = {
	{"inuse_space", METRIC_BYTES, .level = true},
	{"inuse_objects", METRIC_COUNT, .level = true},
	{"alloc_space", METRIC_BYTES},
	{"alloc_objects", METRIC_COUNT},
};

static const struct metric fault_metrics[] = {
	{"faulted_space", METRIC_BYTES},
	{"faults", METRIC_COUNT},
};

/* ---- run state ---- */

/* An attached uprobe: a perf event's link, or a uprobe_multi link. */
struct uprobe {
	struct bpf_link *link;
	int fd;
};

/* A function of the allocator, found in a file's symbols. */
struct fn_site {
	uint64_t off;	  /* file offset */
	unsigned char fn; /* index in alloc_fns */
	unsigned char kind;
	const char *name;
};

#define MAX_SITES 16

/* A file some target maps, by (dev, inode): read once. */
struct ms_file {
	char *dev; /* as maps says it: "08:01" */
	uint64_t ino;
	char *path; /* as maps names it */
	struct fn_site sites[MAX_SITES];
	unsigned nsites;
	bool allocator;	 /* it defines PFXmalloc */
	pid_t *attached; /* pids its probes are attached for (-1: all) */
	size_t nattached, attached_cap;
};

/* A stack's cumulative allocation at the last snapshot (by row ref). */
struct ref_slot {
	uint64_t ref;
	uint64_t a, b;
	bool used;
};
struct ref_map {
	struct ref_slot *slot;
	size_t cap, n;
};

struct ms_state {
	struct memstack_bpf *skel;
	bool filtered; /* -p or CMD: probes per process */
	struct ms_file *files;
	size_t nfiles, files_cap;
	struct ref_map prev;
	const char *raw_way; /* --mode mmap: how it attached */
	const char *prefix;  /* --prefix, for what -v says */
	int multi; /* BPF_TRACE_UPROBE_MULTI's value; 0: perf uprobes */
	struct uprobe *uprobes; /* detached by memstack_main */
	size_t nuprobes, uprobes_cap;
};

/* ---- a small map from row ref to two counters ---- */

static struct ref_slot *ref_find(struct ref_map *m, uint64_t ref, bool add)
{
	size_t i;

	if (add && 2 * (m->n + 1) > m->cap) {
		struct ref_map bigger = {xzalloc((m->cap ? 2 * m->cap : 1024) *
						 sizeof(struct ref_slot)),
					 m->cap ? 2 * m->cap : 1024, 0};

		for (i = 0; i < m->cap; i++)
			if (m->slot[i].used)
				*ref_find(&bigger, m->slot[i].ref, true) =
					m->slot[i];
		free(m->slot);
		*m = bigger;
	}
	if (!m->cap)
		return NULL;
	for (i = (ref * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->slot[i].used && m->slot[i].ref == ref)
			return &m->slot[i];
		if (!m->slot[i].used)
			break;
	}
	if (!add)
		return NULL;
	m->slot[i] = (struct ref_slot){.ref = ref, .used = true};
	m->n++;
	return &m->slot[i];
}

static void ref_free(struct ref_map *m)
{
	free(m->slot);
	*m = (struct ref_map){0};
}

/* ---- sampling tables (no libm: the series are short) ---- */

static double ln(double y) /* y > 0: 2 atanh((y - 1) / (y + 1)) */
{
	int k = 0;
	double z, z2, term, sum = 0;

	while (y > 1.5)
		y /= 2, k++;
	while (y < 0.75)
		y *= 2, k--;
	z = (y - 1) / (y + 1);
	z2 = z * z;
	term = z;
	for (int n = 1; n < 60; n += 2, term *= z2)
		sum += term / n;
	return 2 * sum + k * 0.69314718055994530942;
}

static double expo(double x) /* e^x for |x| <= 40 */
{
	double sum = 1, term = 1, y = x / 64;

	for (int n = 1; n < 30; n++) {
		term *= y / n;
		sum += term;
	}
	for (int i = 0; i < 6; i++)
		sum *= sum;
	return sum;
}

static void fill_tables(struct memstack_bpf *s)
{
	for (int i = 0; i <= 1 << MS_LOG2_BITS; i++)
		s->rodata->log2_tab[i] =
			ln(1 + i / 1024.0) / 0.69314718055994530942 * 65536 +
			0.5;
	s->rodata->weight_tab[0] = 65536; /* the limit at 0 */
	for (int i = 1; i <= MS_WEIGHT_N; i++) {
		double x = i / 64.0;

		s->rodata->weight_tab[i] = x / (1 - expo(-x)) * 65536 + 0.5;
	}
}

/* ---- finding the allocator's functions in a file ---- */

/* The public entry points: in a static musl program free and realloc
 * are jumps to __libc_free and __libc_realloc, which musl also calls
 * from inside (realloc frees): probing those too would see each free
 * twice. Allocations musl makes for itself through them go unseen,
 * and so do their frees. */
static const struct {
	const char *name;
	unsigned char kind;
} alloc_fns[] = {
	{"malloc", MS_MALLOC},
	{"calloc", MS_CALLOC},
	{"realloc", MS_REALLOC},
	{"reallocarray", MS_REALLOCARRAY},
	{"posix_memalign", MS_POSIX_MEMALIGN},
	{"aligned_alloc", MS_MEMALIGN},
	{"memalign", MS_MEMALIGN},
	{"valloc", MS_VALLOC},
	{"pvalloc", MS_PVALLOC},
	{"free", MS_FREE},
};

static int fn_index(const char *name, const char *prefix)
{
	size_t plen = prefix ? strlen(prefix) : 0;

	if (prefix && strncmp(name, prefix, plen))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(alloc_fns); i++)
		if (!strcmp(name + plen, alloc_fns[i].name))
			return i;
	return -1;
}

/* The file offset of vaddr: in the executable PT_LOAD holding it. */
static bool vaddr_to_off(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	return false;
}

static void add_site(struct ms_file *f, int fn, uint64_t off)
{
	struct fn_site *site = NULL;

	for (unsigned i = 0; i < f->nsites; i++)
		if (f->sites[i].off == off || f->sites[i].fn == fn)
			site = &f->sites[i];
	if (site && (site->fn <= fn || site->off != off))
		return; /* glibc's aligned_alloc is memalign: one probe */
	if (!site && f->nsites == MAX_SITES)
		return;
	if (!site)
		site = &f->sites[f->nsites++];
	*site = (struct fn_site){off, fn, alloc_fns[fn].kind,
				 alloc_fns[fn].name};
	if (alloc_fns[fn].kind == MS_MALLOC)
		f->allocator = true;
}

static int by_fn(const void *a, const void *b)
{
	return ((const struct fn_site *)a)->fn -
	       ((const struct fn_site *)b)->fn;
}

/* Global functions defined in one symbol section. */
static void scan_symbols(struct ms_file *f, Elf *elf, Elf_Scn *scn,
			 const char *prefix)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize)
		return;
	for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t off;
		int fn;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (name && (fn = fn_index(name, prefix)) >= 0 &&
		    vaddr_to_off(elf, sym.st_value, &off))
			add_site(f, fn, off);
	}
}

/* Length of an x86_64 instruction that only sets flags from registers
 * or memory (test reg,reg; cmp $imm8 with a rip-relative byte, long or
 * quad), or 0. */
static unsigned flags_only(const uint8_t *c)
{
	unsigned rex = (c[0] & 0xf0) == 0x40;

	if (c[rex] == 0x85 && c[rex + 1] >= 0xc0) /* test reg,reg */
		return rex + 2;
	if ((c[rex] == 0x80 || c[rex] == 0x83) &&
	    c[rex + 1] == 0x3d) /* cmp $imm8, disp32(%rip) */
		return rex + 7;
	return 0;
}

/* Does the kernel emulate this one (no single step): jcc, jmp, call,
 * push reg? */
static bool emulated(const uint8_t *c)
{
	unsigned rex = c[0] == 0x41;

	return (c[0] >= 0x70 && c[0] <= 0x7f) ||
	       (c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f) || c[0] == 0xe8 ||
	       c[0] == 0xe9 || c[0] == 0xeb ||
	       (c[rex] >= 0x50 && c[rex] <= 0x57);
}

/*
 * x86_64 uprobes emulate branches and pushes but single-step anything
 * else out of line, which costs a debug trap: here ~10 us a call against
 * ~1 us. glibc's free starts with test %rdi,%rdi; je: probed at the je,
 * where arguments, stack and return address are still the entry's (the
 * test changed flags alone), a call costs one emulated trap.
 */
static void skip_flag_setting(struct ms_file *f, int fd, Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return;
	for (unsigned i = 0; i < f->nsites; i++) {
		uint8_t c[16] = {0};
		unsigned n;

		if (pread(fd, c, sizeof(c), f->sites[i].off) != sizeof(c))
			continue;
		n = flags_only(c);
		if (n && emulated(c + n))
			f->sites[i].off += n;
	}
}

/* .dynsym (what a library exports), then .symtab (a static program). */
static void read_sites(struct ms_file *f, const char *open_path,
		       const char *prefix)
{
	int fd = open(open_path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		for (int pass = 0; pass < 2; pass++) {
			Elf_Scn *scn = NULL;
			GElf_Shdr sh;

			while ((scn = elf_nextscn(elf, scn)))
				if (gelf_getshdr(scn, &sh) &&
				    sh.sh_type ==
					    (pass ? SHT_SYMTAB : SHT_DYNSYM))
					scan_symbols(f, elf, scn, prefix);
		}
	if (elf && elf_kind(elf) == ELF_K_ELF)
		skip_flag_setting(f, fd, elf);
	elf_end(elf);
	close(fd);
	qsort(f->sites, f->nsites, sizeof(*f->sites), by_fn);
}

/* ---- attaching uprobes ---- */

static void keep_uprobe(struct ms_state *st, struct bpf_link *l, int fd)
{
	st->uprobes = grow_array(st->uprobes, &st->uprobes_cap,
				 st->nuprobes + 1, sizeof(*st->uprobes));
	st->uprobes[st->nuprobes++] = (struct uprobe){l, fd};
}

struct unlink_job {
	struct uprobe *u;
	size_t n, step;
};

static void *unlink_some(void *arg)
{
	struct unlink_job *j = arg;

	for (size_t i = 0; i < j->n; i += j->step) {
		bpf_link__destroy(j->u[i].link);
		if (j->u[i].fd >= 0)
			close(j->u[i].fd);
	}
	return NULL;
}

/*
 * Detaching a uprobe waits for RCU grace periods (Linux 6.12+: about
 * 100 ms here, under a mutex for perf event uprobes). uprobe_multi
 * links wait once each, and in parallel: threads let the waits
 * overlap.
 */
static void detach_uprobes(struct ms_state *st)
{
	enum { THREADS = 16 };
	struct unlink_job jobs[THREADS];
	pthread_t t[THREADS];
	size_t n = st->nuprobes < THREADS ? st->nuprobes : THREADS;
	bool started[THREADS] = {0};

	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct unlink_job){st->uprobes + i, st->nuprobes - i,
					      n};
		started[i] =
			!pthread_create(&t[i], NULL, unlink_some, &jobs[i]);
		if (!started[i])
			unlink_some(&jobs[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	free(st->uprobes);
}

/* BPF_LINK_CREATE for uprobe_multi (Linux 6.6), which the libbpf of
 * Debian 12 does not know: union bpf_attr's link_create as the UAPI
 * lays it out. */
struct uprobe_multi_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, multi_flags, pid, pad;
};
#define UPROBE_MULTI_RETURN 1

static int link_uprobe_multi(int prog_fd, int type, const char *path,
			     const __u64 *offsets, const __u64 *cookies,
			     unsigned n, bool ret, pid_t pid)
{
	struct uprobe_multi_attr attr = {
		.prog_fd = prog_fd,
		.attach_type = type,
		.path = (uintptr_t)path,
		.offsets = (uintptr_t)offsets,
		.cookies = (uintptr_t)cookies,
		.cnt = n,
		.multi_flags = ret ? UPROBE_MULTI_RETURN : 0,
		.pid = pid > 0 ? pid : 0, /* 0: every process */
	};

	return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
}

/* BPF_TRACE_UPROBE_MULTI's value from kernel BTF, when a link of it
 * can be made here (the way libbpf 1.3 probes it: a path that is not
 * a file gives EBADF); 0 when not. */
static int probe_uprobe_multi(void)
{
	struct btf *btf = kbtf_available() ? btf__load_vmlinux_btf() : NULL;
	int id = btf ? btf__find_by_name_kind(btf, "bpf_attach_type",
					      BTF_KIND_ENUM)
		     : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	struct bpf_insn ret0[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K}, /* r0 = 0 */
		{.code = BPF_JMP | BPF_EXIT},
	};
	__u64 off = 0;
	int type = 0, prog, link;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off),
			    "BPF_TRACE_UPROBE_MULTI"))
			type = btf_enum(t)[i].val;
	btf__free(btf);
	if (!type)
		return 0;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &opts);
	if (prog < 0)
		return 0;
	link = link_uprobe_multi(prog, type, "/", &off, NULL, 1, false, 0);
	if (link >= 0)
		close(link);
	else
		link = -errno;
	close(prog);
	return link == -EBADF ? type : 0;
}

static struct bpf_program *entry_prog(struct memstack_bpf *s, unsigned kind)
{
	switch (kind) {
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

static bool attached_for(const struct ms_file *f, pid_t pid)
{
	for (size_t i = 0; i < f->nattached; i++)
		if (f->attached[i] == pid || f->attached[i] == -1)
			return true;
	return false;
}

/* One uprobe_multi link for the entries, one for the returns. */
static int attach_multi(struct ms_state *st, struct ms_file *f,
			const char *open_path, pid_t pid)
{
	__u64 off[MAX_SITES], kind[MAX_SITES], ret_off[MAX_SITES];
	unsigned nret = 0;
	int fd;

	for (unsigned i = 0; i < f->nsites; i++) {
		off[i] = f->sites[i].off;
		kind[i] = f->sites[i].kind;
		if (f->sites[i].kind != MS_FREE)
			ret_off[nret++] = f->sites[i].off;
	}
	fd = link_uprobe_multi(bpf_program__fd(st->skel->progs.ms_entry_multi),
			       st->multi, open_path, off, kind, f->nsites,
			       false, pid);
	if (fd < 0)
		return -errno;
	keep_uprobe(st, NULL, fd);
	fd = link_uprobe_multi(bpf_program__fd(st->skel->progs.ms_alloc_return),
			       st->multi, open_path, ret_off, NULL, nret, true,
			       pid);
	if (fd < 0)
		return -errno;
	keep_uprobe(st, NULL, fd);
	return 0;
}

/* A perf event uprobe per function and one per return. */
static int attach_perf(struct ms_state *st, struct ms_file *f,
		       const char *open_path, pid_t pid)
{
	for (unsigned i = 0; i < f->nsites; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts);
		struct bpf_link *l = bpf_program__attach_uprobe_opts(
			entry_prog(st->skel, f->sites[i].kind), pid, open_path,
			f->sites[i].off, &opts);

		if (!l)
			return -errno;
		keep_uprobe(st, l, -1);
		if (f->sites[i].kind == MS_FREE)
			continue;
		opts.retprobe = true;
		l = bpf_program__attach_uprobe_opts(
			st->skel->progs.ms_alloc_return, pid, open_path,
			f->sites[i].off, &opts);
		if (!l)
			return -errno;
		keep_uprobe(st, l, -1);
	}
	return 0;
}

/* Entry probes on each function, return probes on those that allocate:
 * for pid's process only, or every process (-1). Never pid 0, which
 * libbpf takes as this process. */
static int attach_file(struct ms_state *st, struct ms_file *f,
		       const char *open_path, pid_t pid)
{
	char names[256] = "";
	size_t len = 0;
	int err = st->multi ? attach_multi(st, f, open_path, pid)
			    : attach_perf(st, f, open_path, pid);

	if (err)
		return err;
	for (unsigned i = 0; i < f->nsites; i++) {
		len += snprintf(names + len, sizeof(names) - len, " %s%s",
				st->prefix ? st->prefix : "", f->sites[i].name);
		if (len >= sizeof(names))
			len = sizeof(names) - 1;
	}
	f->attached = grow_array(f->attached, &f->attached_cap,
				 f->nattached + 1, sizeof(pid_t));
	f->attached[f->nattached++] = pid;
	if (pid > 0)
		verbose("uprobes in %s for pid %d:%s", f->path, pid, names);
	else
		verbose("uprobes in %s for every process:%s", f->path, names);
	return 0;
}

static struct ms_file *file_get(struct ms_state *st, const char *dev,
				uint64_t ino, const char *path,
				const char *open_path, const char *prefix)
{
	struct ms_file *f;

	for (size_t i = 0; i < st->nfiles; i++)
		if (st->files[i].ino == ino && !strcmp(st->files[i].dev, dev))
			return &st->files[i];
	st->files = grow_array(st->files, &st->files_cap, st->nfiles + 1,
			       sizeof(*st->files));
	f = &st->files[st->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = xstrdup(dev);
	f->ino = ino;
	f->path = xstrdup(path);
	read_sites(f, open_path, prefix);
	return f;
}

/* The allocator files tgid maps (each executable file mapping that
 * defines PFXmalloc), probed for pid. How many are probed. */
static int attach_maps(struct collector *c, struct memstack_args *a, pid_t tgid,
		       pid_t pid)
{
	char path[64], *maps, *line, *save = NULL;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	maps = read_file(path, NULL);
	for (line = maps ? strtok_r(maps, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char perms[8], dev[16], open_path[4200];
		unsigned long long start, end, off, ino;
		int at = 0, err;
		struct ms_file *f;
		const char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start,
			   &end, perms, &off, dev, &ino, &at) < 6 ||
		    !at || perms[2] != 'x' || line[at] != '/')
			continue;
		file = line + at;
		if (strstr(file, " (deleted)"))
			snprintf(open_path, sizeof(open_path),
				 "/proc/%d/map_files/%llx-%llx", tgid, start,
				 end);
		else
			snprintf(open_path, sizeof(open_path),
				 "/proc/%d/root%s", tgid, file);
		f = file_get(a->st, dev, ino, file, open_path, a->prefix);
		if (!f->allocator)
			continue;
		if (attached_for(f, pid)) {
			n++;
			continue;
		}
		if ((err = attach_file(a->st, f, open_path, pid)))
			verbose("uprobes in %s (pid %d): %s", file, tgid,
				strerror(-err));
		else
			n++;
	}
	free(maps);
	return n;
}

/* --lib PATH, as the target sees it when it can be opened that way. */
static void attach_lib(struct collector *c, struct memstack_args *a, pid_t pid)
{
	char open_path[4200];
	struct stat sb;
	struct ms_file *f;
	char dev[32];
	int err;

	snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", pid, a->lib);
	if (pid <= 0 || *a->lib != '/' || stat(open_path, &sb))
		snprintf(open_path, sizeof(open_path), "%s", a->lib);
	if (stat(open_path, &sb))
		error_exit("--lib %s: %s", a->lib, strerror(errno));
	snprintf(dev, sizeof(dev), "lib:%llu", (unsigned long long)sb.st_dev);
	f = file_get(a->st, dev, sb.st_ino, a->lib, open_path, a->prefix);
	if (!f->allocator)
		error_exit("--lib %s: no %smalloc in its symbols", a->lib,
			   a->prefix ? a->prefix : "");
	if (!attached_for(f, pid) &&
	    (err = attach_file(a->st, f, open_path, pid)))
		error_exit("--lib %s: attaching uprobes: %s", a->lib,
			   strerror(-err));
}

/* -p PID, or CMD at its entry point: probes for it alone. */
static void ms_target(struct collector *c, void *skel, void *args, pid_t tgid)
{
	struct memstack_args *a = args;

	if (a->mode != MS_MODE_USER)
		return;
	if (a->lib)
		attach_lib(c, a, tgid);
	else if (!attach_maps(c, a, tgid, tgid))
		error_exit(
			"pid %d: no allocator in the files it maps (%smalloc "
			"in libc.so.6, ld-musl-*.so.1, a static executable "
			"or a library); name it with --lib",
			tgid, a->prefix ? a->prefix : "");
}

/* Without -p or CMD: every allocator file of every running process,
 * once each, for every process. */
static void attach_everywhere(struct collector *c, struct memstack_args *a)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int files = 0;

	if (!d)
		perror_exit("/proc");
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && pid != getpid())
			attach_maps(c, a, pid, -1);
	}
	closedir(d);
	for (size_t i = 0; i < a->st->nfiles; i++)
		files += attached_for(&a->st->files[i], -1);
	if (!files)
		error_exit("no running process maps an allocator (%smalloc); "
			   "name one with --lib",
			   a->prefix ? a->prefix : "");
	verbose("uprobes in %d allocator files; processes started later "
		"are seen when they map one of them",
		files);
}

/* ---- attaching the other modes ---- */

/* mmap, munmap, brk: their own tracepoints, else every syscall's raw_tp */
static void choose_syscalls(struct ms_state *st)
{
	struct memstack_bpf *s = st->skel;
	bool tp = !collect_forced("raw_tp") &&
		  collect_tracepoint_exists("syscalls", "sys_enter_mmap") &&
		  collect_tracepoint_exists("syscalls", "sys_exit_mmap") &&
		  collect_tracepoint_exists("syscalls", "sys_enter_munmap") &&
		  collect_tracepoint_exists("syscalls", "sys_exit_brk");

	bpf_program__set_autoload(s->progs.ms_enter_mmap, tp);
	bpf_program__set_autoload(s->progs.ms_exit_mmap, tp);
	bpf_program__set_autoload(s->progs.ms_enter_munmap, tp);
	bpf_program__set_autoload(s->progs.ms_exit_brk, tp);
	bpf_program__set_autoload(s->progs.ms_raw_sys_enter, !tp);
	bpf_program__set_autoload(s->progs.ms_raw_sys_exit, !tp);
	st->raw_way = tp ? "syscalls tracepoints" : "raw_tp sys_enter/sys_exit";
	if (!tp && !collect_forced("raw_tp"))
		verbose("no syscalls:sys_enter_mmap tracepoints: every "
			"syscall's raw_tp, by number");
}

static const struct {
	const char *name;
	const char *ptr; /* "ptr", or "pfn" for pages */
	bool page, alloc;
} kevents[MS_K_NEVENTS] = {
	[MS_K_KMALLOC] = {"kmalloc", "ptr", false, true},
	[MS_K_KMALLOC_NODE] = {"kmalloc_node", "ptr", false, true},
	[MS_K_CACHE_ALLOC] = {"kmem_cache_alloc", "ptr", false, true},
	[MS_K_CACHE_ALLOC_NODE] = {"kmem_cache_alloc_node", "ptr", false, true},
	[MS_K_KFREE] = {"kfree", "ptr", false, false},
	[MS_K_CACHE_FREE] = {"kmem_cache_free", "ptr", false, false},
	[MS_K_PAGE_ALLOC] = {"mm_page_alloc", "pfn", true, true},
	[MS_K_PAGE_FREE] = {"mm_page_free", "pfn", true, false},
	[MS_K_PAGE_FREE_BATCHED] = {"mm_page_free_batched", "pfn", true, false},
};

static struct bpf_program *kevent_prog(struct memstack_bpf *s, int ev)
{
	struct bpf_program *p[MS_K_NEVENTS] = {
		s->progs.ms_kmalloc,
		s->progs.ms_kmalloc_node,
		s->progs.ms_cache_alloc,
		s->progs.ms_cache_alloc_node,
		s->progs.ms_kfree,
		s->progs.ms_cache_free,
		s->progs.ms_page_alloc,
		s->progs.ms_page_free,
		s->progs.ms_page_free_batched,
	};

	return p[ev];
}

static unsigned short field_at(const char *event, const char *field,
			       unsigned char *size)
{
	unsigned sz = 0;
	int off = collect_tracepoint_field("kmem", event, field, &sz);

	*size = sz;
	return off < 0 || off >= 0xffff ? 0xffff : off;
}

/* Where each kmem tracepoint keeps its fields; the ones this kernel
 * lacks (kmalloc_node went in 6.1) are not loaded. */
static void choose_kevents(struct ms_state *st)
{
	struct memstack_bpf *s = st->skel;

	for (int ev = 0; ev < MS_K_NEVENTS; ev++) {
		struct ms_kfield *k = &s->rodata->kfields[ev];
		bool ok;

		k->ptr = field_at(kevents[ev].name, kevents[ev].ptr,
				  &k->ptr_size);
		if (k->ptr == 0xffff && kevents[ev].page) /* before 4.x */
			k->ptr = 0xffff;
		k->bytes = field_at(kevents[ev].name, "bytes_alloc",
				    &k->bytes_size);
		k->order = field_at(kevents[ev].name, "order", &k->order_size);
		ok = k->ptr != 0xffff &&
		     (!kevents[ev].alloc || kevents[ev].page
			      ? k->order != 0xffff || !kevents[ev].page
			      : k->bytes != 0xffff);
		bpf_program__set_autoload(kevent_prog(s, ev), ok);
		if (!ok && (ev == MS_K_KMALLOC || ev == MS_K_KFREE))
			error_exit("--mode kernel: no usable tracepoint "
				   "kmem:%s (tracefs, CONFIG_TRACING)",
				   kevents[ev].name);
		if (!ok)
			verbose("kmem:%s: not on this kernel",
				kevents[ev].name);
	}
}

static int attach_faults(struct collector *c, struct ms_state *st)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	int *cpus, n = collect_ncpus(c, &cpus);

	for (int i = 0; i < n; i++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1,
				 PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0)
			perror_exit("perf_event_open(page-faults) on CPU %d",
				    cpus[i]);
		l = bpf_program__attach_perf_event(st->skel->progs.ms_fault,
						   fd);
		if (!l)
			perror_exit("attaching to the page-faults event of "
				    "CPU %d",
				    cpus[i]);
		collect_keep_link(c, l);
	}
	verbose("page faults: a software perf event on %d CPUs", n);
	return 0;
}

/* The mode's tracepoints and raw tracepoints, as their sections say. */
static int attach_tracepoints(struct collector *c, struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
	{
		const char *sec = bpf_program__section_name(p);
		struct bpf_link *l;

		if (!bpf_program__autoload(p) ||
		    strncmp(bpf_program__name(p), "ms_", 3) ||
		    (strncmp(sec, "tracepoint/", 11) &&
		     strncmp(sec, "raw_tp/", 7)))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			error_msg("attaching %s: %s", sec, strerror(errno));
			return -errno;
		}
		collect_keep_link(c, l);
	}
	return 0;
}

/* ---- the collector's callbacks ---- */

SB_SKELETON(memstack)

/* task_struct.signal and signal_struct.live: the last thread of a
 * process to exit, when kernel BTF says where they are */
static void probe_exit_layout(struct memstack_bpf *s)
{
	const struct btf *btf = kbtf();
	int sig, live;

	if (!btf) {
		verbose("no kernel BTF: a process ends when its main thread "
			"exits");
		return;
	}
	sig = kbtf_member(btf, "task_struct", "signal", NULL);
	live = kbtf_member(btf, "signal_struct", "live", NULL);
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
			want = mode == MS_MODE_USER || mode == MS_MODE_MMAP;
		else if (!strcmp(n, "ms_alloc_return"))
			want = mode == MS_MODE_USER;
		else if (!strcmp(n, "ms_entry_multi"))
			want = mode == MS_MODE_USER && st->multi;
		else if (!strncmp(sec, "uprobe", 6))
			want = mode == MS_MODE_USER && !st->multi;
		else if (!strcmp(sec, "perf_event"))
			want = mode == MS_MODE_FAULTS;
		else if (!strncmp(sec, "tracepoint/kmem/", 16))
			want = mode == MS_MODE_KERNEL;
		else
			want = mode == MS_MODE_MMAP;
		bpf_program__set_autoload(p, want);
	}
	if (st->multi) {
		bpf_program__set_expected_attach_type(
			st->skel->progs.ms_entry_multi, st->multi);
		bpf_program__set_expected_attach_type(
			st->skel->progs.ms_alloc_return, st->multi);
	}
}

/* uprobe_multi where the kernel has it, unless STACKBOX_ATTACH=uprobe */
static void choose_uprobes(struct ms_state *st)
{
	static bool said;

	st->multi = collect_forced("uprobe") ? 0 : probe_uprobe_multi();
	if (!said)
		verbose("uprobes: %s",
			st->multi ? "uprobe_multi links"
			: collect_forced("uprobe")
				? "a perf event per function "
				  "(STACKBOX_ATTACH)"
				: "a perf event per function (no "
				  "uprobe_multi: Linux < 6.6)");
	said = true;
}

/* Maps a mode does not use take one entry, not their memory. */
static void shrink_unused(struct memstack_bpf *s, int mode)
{
	bool held = mode != MS_MODE_FAULTS,
	     calls = held && mode != MS_MODE_KERNEL;

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
		bpf_map__set_max_entries(s->maps.ms_exited, 1);
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
	s->rodata->self_tgid = getpid();
	s->rodata->sample_mean = a->sample;
	if (a->sample)
		fill_tables(s);
	/* a uprobe's or syscall's kernel stack is only the trap's path */
	if (a->mode == MS_MODE_USER || a->mode == MS_MODE_MMAP)
		s->rodata->sb_cfg.kern_stacks = 0;
	if (a->mode == MS_MODE_USER)
		choose_uprobes(st);
	autoload_mode(st, a->mode);
	if (a->mode == MS_MODE_USER || a->mode == MS_MODE_MMAP)
		probe_exit_layout(s);
	if (a->mode == MS_MODE_MMAP)
		choose_syscalls(st);
	if (a->mode == MS_MODE_KERNEL)
		choose_kevents(st);
	bpf_map__set_max_entries(s->maps.ms_allocs, a->max_allocs);
	bpf_map__set_max_entries(s->maps.ms_rows, a->common.rows);
	shrink_unused(s, a->mode);
	return 0;
}

static int ms_attach(struct collector *c, void *skel, void *args)
{
	struct memstack_args *a = args;
	struct memstack_bpf *s = skel;
	int err;

	if (a->mode == MS_MODE_FAULTS)
		return attach_faults(c, a->st);
	if ((err = attach_tracepoints(c, s->obj)))
		return err;
	if (a->mode == MS_MODE_MMAP)
		verbose("mmap, munmap, brk: attached with %s", a->st->raw_way);
	if (a->mode == MS_MODE_USER && !a->st->filtered) {
		if (a->lib)
			attach_lib(c, a, -1);
		else
			attach_everywhere(c, a);
	}
	return 0;
}

/* ---- snapshots: the rows as BPF keeps them ---- */

/* Processes gone since the last snapshot, taken from BPF: sorted
 * (tgid << 32 | gen). */
struct gone {
	uint64_t *id;
	size_t n, cap;
};

static void take_gone(const void *k, const void *v, void *arg)
{
	const struct ms_exit_key *e = k;
	struct gone *g = arg;

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
	struct ref_map aged; /* --age: what old records hold, by ref */
	uint64_t before;     /* --age: records older than this */
	struct ms_alloc_key *drop;
	size_t ndrop, drop_cap;
	struct row *rows;
	size_t nrows, rows_cap;
	struct ref_map next_prev;
	uint64_t *idle; /* rows holding nothing that allocated nothing */
	size_t nidle, idle_cap;
	struct ms_state *st;
	int rows_fd;
	bool age;
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
		struct ref_slot *s = ref_find(&w->aged, a->ref, true);

		s->a += a->bytes;
		s->b += a->objs;
	}
}

static __u64 held(__u64 v)
{
	return (__s64)v < 0 ? 0 : v; /* a free raced past its allocation */
}

static void visit_row(const void *k, const void *v, void *arg)
{
	const struct ms_row *r = v;
	uint64_t ref = *(const uint64_t *)k;
	struct walk *w = arg;
	struct ref_slot *prev = ref_find(&w->st->prev, ref, false), *next;
	struct row *out;
	bool gone = r->key.tgid && is_gone(&w->gone, r->key.tgid, r->gen);

	w->rows = grow_array(w->rows, &w->rows_cap, w->nrows + 1,
			     sizeof(*w->rows));
	out = &w->rows[w->nrows++];
	memset(out, 0, sizeof(*out));
	out->key = r->key;
	if (w->age) {
		struct ref_slot *s = ref_find(&w->aged, ref, false);

		out->v[0] = s ? s->a : 0;
		out->v[1] = s ? s->b : 0;
	} else {
		out->v[0] = held(r->inuse_bytes);
		out->v[1] = held(r->inuse_objs);
		out->v[2] = r->alloc_bytes - (prev ? prev->a : 0);
		out->v[3] = r->alloc_objs - (prev ? prev->b : 0);
	}
	if (gone) { /* shown once more, then its stack is forgotten */
		out->key.aux = AUX_EXITED;
		bpf_map_delete_elem(w->rows_fd, &ref);
		return;
	}
	next = ref_find(&w->next_prev, ref, true);
	next->a = r->alloc_bytes;
	next->b = r->alloc_objs;
	if (!r->inuse_objs && prev && prev->a == r->alloc_bytes &&
	    prev->b == r->alloc_objs) {
		w->idle = grow_array(w->idle, &w->idle_cap, w->nidle + 1,
				     sizeof(*w->idle));
		w->idle[w->nidle++] = ref;
	}
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
	struct ref_map kept = {0};

	if (w->nrows * 4 < max_rows * 3)
		return;
	qsort(w->idle, w->nidle, sizeof(*w->idle), by_u64);
	for (size_t i = 0; i < w->nidle; i++)
		bpf_map_delete_elem(w->rows_fd, &w->idle[i]);
	/* their previous counts go too: a new row counts from 0 */
	for (size_t i = 0; i < w->next_prev.cap; i++) {
		const struct ref_slot *e = &w->next_prev.slot[i];

		if (e->used && !(w->nidle && bsearch(&e->ref, w->idle, w->nidle,
						     sizeof(e->ref), by_u64)))
			*ref_find(&kept, e->ref, true) = *e;
	}
	ref_free(&w->next_prev);
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
	struct walk w = {.st = a->st, .age = a->age != 0};
	int exited = bpf_map__fd(s->maps.ms_exited);
	struct timespec now;

	if (a->mode == MS_MODE_FAULTS)
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
	ref_free(&a->st->prev);
	a->st->prev = w.next_prev;
	ref_free(&w.aged);
	free(w.idle);
	free(w.drop);
	free(w.gone.id);
	*rows = w.rows;
	return w.nrows;
}

static const char *ms_aux_name(__u32 aux)
{
	return aux == AUX_EXITED ? "held at exit" : "";
}

static unsigned ms_primary(struct collector *c, void *args)
{
	const struct memstack_args *a = args;
	const struct metric *m =
		a->mode == MS_MODE_FAULTS ? fault_metrics : held_metrics;
	unsigned n = a->mode == MS_MODE_FAULTS ? ARRAY_SIZE(fault_metrics)
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
		snprintf(
			buf + n, len - n,
			"; only allocations older than %s (alloc: not counted)",
			format_value(age, sizeof(age), METRIC_NS, a->age));
}

static const char *const user_stats[] = {
	"allocations not tracked (--max-allocs full)",
	"frees of pointers not known (allocated before the start)",
	"allocations not counted (--rows full)",
	"addresses allocated again without a free seen",
	"calls not seen (thread map full)",
	"calls whose return was not seen",
	"process ends not seen (exit map full)",
	NULL,
};

static const char *const sampled_stats[] = {
	"allocations not tracked (--max-allocs full)",
	"frees of allocations not sampled (or allocated before the start)",
	"allocations not counted (--rows full)",
	"addresses allocated again without a free seen",
	"calls not seen (thread map full)",
	"calls whose return was not seen",
	"process ends not seen (exit map full)",
	NULL,
};

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
	.metrics = held_metrics,
	.nmetrics = ARRAY_SIZE(held_metrics),
	SB_SKELETON_OPS(memstack),
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
	bool user = a->mode == MS_MODE_USER;

	if (a->sample && !user)
		help_exit("-s samples the allocator's calls: --mode user only");
	if ((a->lib || a->prefix) && !user)
		help_exit("--lib and --prefix name an allocator: --mode user "
			  "only");
	if (a->age && a->mode == MS_MODE_FAULTS)
		help_exit("--age: faults are counted per interval, not held");
	if (a->common.kernel_only && (user || a->mode == MS_MODE_MMAP))
		help_exit("-K: --mode %s has user stacks only (kernel stacks: "
			  "--mode kernel)",
			  mode_names[a->mode]);
	if (a->value && !ms_primary(NULL, a) &&
	    strcmp(a->value,
		   a->mode == MS_MODE_FAULTS ? "faulted_space" : "inuse_space"))
		help_exit("--value %s: not a value of --mode %s", a->value,
			  mode_names[a->mode]);
}

static int memstack_main(void *args, int argc, char **argv)
{
	struct memstack_args *a = args;
	struct collector_ops ops = memstack_ops;
	struct ms_state st = {0};
	int status;

	check_args(a);
	st.prefix = a->prefix;
	a->st = &st;
	if (a->mode == MS_MODE_FAULTS) {
		ops.metrics = fault_metrics;
		ops.nmetrics = ARRAY_SIZE(fault_metrics);
		ops.per_thread = false;
		ops.state_rows = NULL;
		ops.aux_name = NULL;
		ops.stat_names = NULL;
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
	detach_uprobes(&st);
	for (size_t i = 0; i < st.nfiles; i++) {
		free(st.files[i].dev);
		free(st.files[i].path);
		free(st.files[i].attached);
	}
	free(st.files);
	ref_free(&st.prev);
	return status;
}

APPLET_DEFINE(memstack, memstack_main, memstack_opts, struct memstack_args);
