// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobes on the functions of the files processes map. A file is read
 * once, by (dev, inode), however many processes map it; its probes go
 * where the kernel can take them cheaply; they attach as two
 * uprobe_multi links per file where the kernel has them (one of uprobe
 * sessions where the applet asks), else as a perf event per probe.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect.h"
#include "kernel.h"
#include "kuprobe.h"
#include "stackbox.h"
#include "syms.h"
#include "uprobe.h"

/* An attached uprobe: a perf event's link, or a uprobe_multi link. */
struct uprobe_link {
	struct bpf_link *link;
	int fd;
};

/* ---- finding the functions in a file ---- */

static int fn_index(const struct uprobes *u, const char *name)
{
	size_t plen = u->prefix ? strlen(u->prefix) : 0;

	if (u->prefix && strncmp(name, u->prefix, plen))
		return -1;
	for (unsigned i = 0; i < u->nfns; i++)
		if (!strcmp(name + plen, u->fns[i].name))
			return i;
	return -1;
}

struct site_scan {
	struct uprobes *u;
	struct uprobe_file *f;
};

static void add_site(const char *name, uint64_t off, void *arg)
{
	struct site_scan *sc = arg;
	struct uprobe_file *f = sc->f;
	struct uprobe_site *site = NULL;
	int fn = fn_index(sc->u, name);

	if (fn < 0)
		return;
	for (unsigned i = 0; i < f->nsites; i++)
		if (f->sites[i].off == off || f->sites[i].fn == fn)
			site = &f->sites[i];
	if (site && (site->fn <= fn || site->off != off))
		return; /* glibc's aligned_alloc is memalign: one probe */
	if (!site && f->nsites == UPROBE_MAX_FNS)
		return;
	if (!site)
		site = &f->sites[f->nsites++];
	*site = (struct uprobe_site){off, fn};
	if (fn == 0)
		f->target = true;
}

static int by_fn(const void *a, const void *b)
{
	return ((const struct uprobe_site *)a)->fn -
	       ((const struct uprobe_site *)b)->fn;
}

/* ---- where a probe goes ---- */

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
static void skip_flag_setting(struct uprobe_file *f, const char *open_path,
			      unsigned machine)
{
	int fd;

	if (machine != EM_X86_64 ||
	    (fd = open(open_path, O_RDONLY | O_CLOEXEC)) < 0)
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
	close(fd);
}

static void read_sites(struct uprobes *u, struct uprobe_file *f,
		       const char *open_path)
{
	struct site_scan sc = {u, f};
	unsigned machine;

	if (elf_each_function(open_path, &machine, add_site, &sc))
		return;
	skip_flag_setting(f, open_path, machine);
	qsort(f->sites, f->nsites, sizeof(*f->sites), by_fn);
}

/* The cached file of (dev, inode), or NULL when it was not seen. */
static struct uprobe_file *file_known(struct uprobes *u, uint64_t dev,
				      uint64_t ino)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].ino == ino && u->files[i].dev == dev)
			return &u->files[i];
	return NULL;
}

struct uprobe_file *uprobes_file(struct uprobes *u, uint64_t dev, uint64_t ino,
				 const char *name, const char *open_path)
{
	struct uprobe_file *f = file_known(u, dev, ino);

	if (f)
		return f;
	u->files = grow_array(u->files, &u->files_cap, u->nfiles + 1,
			      sizeof(*u->files));
	f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->ino = ino;
	f->name = xstrdup(name);
	read_sites(u, f, open_path);
	return f;
}

/* ---- uprobe_multi ---- */

int uprobe_session_kfuncs(struct bpf_program *p, int32_t is_return_call,
			  int32_t cookie_call)
{
	const struct bpf_insn *insns = bpf_program__insns(p);
	size_t n = bpf_program__insn_cnt(p);
	struct bpf_insn *copy = xmalloc(n * sizeof(*copy));
	int is_ret = kernel_kfunc_id("bpf_session_is_return"),
	    cookie = kernel_kfunc_id("bpf_session_cookie"), err, patched = 0;

	if (is_ret < 0 || cookie < 0) {
		free(copy);
		return -ENOENT;
	}
	memcpy(copy, insns, n * sizeof(*copy));
	for (size_t i = 0; i < n; i++) {
		struct bpf_insn *in = &copy[i];

		if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg ||
		    (in->imm != is_return_call && in->imm != cookie_call))
			continue;
		in->imm = in->imm == is_return_call ? is_ret : cookie;
		in->src_reg = BPF_PSEUDO_KFUNC_CALL;
		patched++;
	}
	/* none: a program without them (the legacy build's) */
	err = patched ? bpf_program__set_insns(p, copy, n) : -ENOENT;
	free(copy);
	return err;
}

int uprobe_multi_type(void)
{
	static bool said;
	int multi = attach_forced("uprobe") ? 0 : uprobe_multi_attach_type();

	if (!said)
		verbose("uprobes: %s",
			multi ? "uprobe_multi links"
			: attach_forced("uprobe")
				? "a perf event per function "
				  "(STACKBOX_ATTACH)"
				: "a perf event per function (no "
				  "uprobe_multi: Linux < 6.6)");
	said = true;
	return multi;
}

/* ---- attaching ---- */

static void keep_link(struct uprobes *u, struct bpf_link *l, int fd)
{
	u->links = grow_array(u->links, &u->links_cap, u->nlinks + 1,
			      sizeof(*u->links));
	u->links[u->nlinks++] = (struct uprobe_link){l, fd};
}

/* One uprobe_multi link for the entries, one for the returns; with
 * sessions, one link whose program also runs at the returns. */
static int attach_multi(struct uprobes *u, struct uprobe_file *f,
			const char *open_path, pid_t pid)
{
	__u64 off[UPROBE_MAX_FNS], cookie[UPROBE_MAX_FNS],
		ret_off[UPROBE_MAX_FNS];
	unsigned nret = 0, n = 0;
	int fd;

	for (unsigned i = 0; i < f->nsites; i++) {
		const struct uprobe_fn *fn = &u->fns[f->sites[i].fn];

		if (fn->ret || fn->ret_only)
			ret_off[nret++] = f->sites[i].off;
		if (fn->ret_only)
			continue;
		off[n] = f->sites[i].off;
		cookie[n++] = fn->cookie;
	}
	fd = n ? kernel_link_uprobe_multi(bpf_program__fd(u->multi_entry),
					  u->session ? u->session : u->multi,
					  open_path, off, cookie, n, false, pid)
	       : 0;
	if (fd < 0)
		return -errno;
	if (n)
		keep_link(u, NULL, fd);
	if (!nret || u->session)
		return 0;
	fd = kernel_link_uprobe_multi(bpf_program__fd(u->ret), u->multi,
				      open_path, ret_off, NULL, nret, true,
				      pid);
	if (fd < 0)
		return -errno;
	keep_link(u, NULL, fd);
	return 0;
}

/* A perf event uprobe per function and one per return. */
static int attach_perf(struct uprobes *u, struct uprobe_file *f,
		       const char *open_path, pid_t pid)
{
	for (unsigned i = 0; i < f->nsites; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts);
		unsigned fn = f->sites[i].fn;
		struct bpf_link *l = NULL;

		if (!u->fns[fn].ret_only) {
			opts.bpf_cookie =
				u->perf_cookie ? u->fns[fn].cookie : 0;
			l = bpf_program__attach_uprobe_opts(
				u->perf_cookie ? u->multi_entry
					       : u->perf_entry(u->ctx, fn),
				pid, open_path, f->sites[i].off, &opts);
			if (!l)
				return -errno;
			keep_link(u, l, -1);
		}
		if (!u->fns[fn].ret && !u->fns[fn].ret_only)
			continue;
		opts.retprobe = true;
		opts.bpf_cookie = 0;
		l = bpf_program__attach_uprobe_opts(u->ret, pid, open_path,
						    f->sites[i].off, &opts);
		if (!l)
			return -errno;
		keep_link(u, l, -1);
	}
	return 0;
}

bool uprobes_attached_for(const struct uprobe_file *f, pid_t pid)
{
	for (size_t i = 0; i < f->nattached; i++)
		if (f->attached[i] == pid || f->attached[i] == -1)
			return true;
	return false;
}

int uprobes_attach(struct uprobes *u, struct uprobe_file *f,
		   const char *open_path, pid_t pid)
{
	char names[256] = "";
	size_t len = 0;
	int err = u->multi ? attach_multi(u, f, open_path, pid)
			   : attach_perf(u, f, open_path, pid);

	if (err)
		return err;
	for (unsigned i = 0; i < f->nsites; i++) {
		len += snprintf(names + len, sizeof(names) - len, " %s%s",
				u->prefix ? u->prefix : "",
				u->fns[f->sites[i].fn].name);
		if (len >= sizeof(names))
			len = sizeof(names) - 1;
	}
	f->attached = grow_array(f->attached, &f->attached_cap,
				 f->nattached + 1, sizeof(pid_t));
	f->attached[f->nattached++] = pid;
	if (pid > 0)
		verbose("uprobes in %s for pid %d:%s", f->name, pid, names);
	else
		verbose("uprobes in %s for every process:%s", f->name, names);
	return 0;
}

struct maps_walk {
	struct uprobes *u;
	pid_t tgid, pid;
	int n;
};

static void attach_mapping(const struct proc_map *m, void *arg)
{
	struct maps_walk *w = arg;
	struct uprobe_file *f;
	const char *path;
	int err;

	if (!m->has_file)
		return;
	/* most mappings of a new process are of files seen before: those
	 * are not opened again */
	f = file_known(w->u, m->dev, m->ino);
	if (!f) {
		if (!(path = proc_map_path(m)))
			return;
		f = uprobes_file(w->u, m->dev, m->ino, m->name, path);
	}
	if (!f->target)
		return;
	if (uprobes_attached_for(f, w->pid)) {
		w->n++;
		return;
	}
	if (!(path = proc_map_path(m)))
		return;
	if ((err = uprobes_attach(w->u, f, path, w->pid)))
		verbose("uprobes in %s (pid %d): %s", m->name, w->tgid,
			strerror(-err));
	else
		w->n++;
}

int uprobes_attach_maps(struct uprobes *u, pid_t tgid, pid_t pid)
{
	struct maps_walk w = {u, tgid, pid, 0};

	proc_maps_each_exec("/proc", tgid, attach_mapping, &w);
	return w.n;
}

int uprobes_attach_all(struct uprobes *u)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int files = 0;

	if (!d)
		perror_exit("/proc");
	while ((e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && pid != getpid())
			uprobes_attach_maps(u, pid, -1);
	}
	closedir(d);
	for (size_t i = 0; i < u->nfiles; i++)
		files += uprobes_attached_for(&u->files[i], -1);
	return files;
}

/* ---- detaching ---- */

struct unlink_job {
	struct uprobe_link *l;
	size_t n, step;
};

static void *unlink_some(void *arg)
{
	struct unlink_job *j = arg;

	for (size_t i = 0; i < j->n; i += j->step) {
		bpf_link__destroy(j->l[i].link);
		if (j->l[i].fd >= 0)
			close(j->l[i].fd);
	}
	return NULL;
}

/*
 * Detaching a uprobe waits for RCU grace periods (Linux 6.12+: about
 * 100 ms here, under a mutex for perf event uprobes). uprobe_multi
 * links wait once each, and in parallel: threads let the waits
 * overlap.
 */
static void detach_all(struct uprobes *u)
{
	enum { THREADS = 16 };
	struct unlink_job jobs[THREADS];
	pthread_t t[THREADS];
	size_t n = u->nlinks < THREADS ? u->nlinks : THREADS;
	bool started[THREADS] = {0};

	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct unlink_job){u->links + i, u->nlinks - i, n};
		started[i] =
			!pthread_create(&t[i], NULL, unlink_some, &jobs[i]);
		if (!started[i])
			unlink_some(&jobs[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
}

void uprobes_free(struct uprobes *u)
{
	detach_all(u);
	free(u->links);
	for (size_t i = 0; i < u->nfiles; i++) {
		free(u->files[i].name);
		free(u->files[i].attached);
	}
	free(u->files);
	u->links = NULL;
	u->files = NULL;
	u->nlinks = u->nfiles = u->links_cap = u->files_cap = 0;
}
