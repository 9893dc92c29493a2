// SPDX-License-Identifier: GPL-2.0
/*
 * User-space symbols per process: /proc/PID/maps says which file holds an
 * address and at which file offset; the file's ELF symbols name it.
 *
 * A process is captured whole (its executable mappings and the symbols of
 * every file behind them) the first time it is asked about, because a
 * process that exits inside an interval must still resolve at the end of
 * it, when /proc/PID is gone. Files are opened through /proc/PID/root so
 * a container's /usr/lib is the container's, and are shared between
 * processes by (dev, inode): a hundred processes on one libc read it once.
 *
 * The strings handed out in struct usym stay valid until the process is
 * dropped (proc_syms_exec, proc_syms_gc, proc_syms_free).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"

#define NBUCKETS 256
#define DELETED	 " (deleted)"
/* Recorded files no process maps any more, kept for the next process
 * that maps them (a compile's hundreds of cc1): a bounded number */
#define IDLE_MAX 64

/* One ELF file, shared by every mapping of the same (dev, inode). */
struct sfile {
	struct sfile *next;
	uint64_t dev, ino;
	struct elf_symtab *t; /* NULL: could not be read, do not retry */
	int fd;		      /* the file again, for its code; -1: none */
	unsigned int refs;
};

/* One executable mapping of a process. */
struct smap {
	uint64_t start, end, pgoff;
	struct sfile *file; /* NULL: nothing to read symbols from */
	char *name;	    /* the path, or "[vdso]", "[anon]", ... */
	const char *module; /* basename of name */
};

struct sproc {
	struct sproc *next;
	uint32_t tgid;
	bool exited;	    /* drop at the next gc */
	bool reread;	    /* maps read again for a miss since the last gc */
	bool recorded;	    /* from a recording: no procfs, no gc */
	uint64_t starttime; /* from stat, to notice pid reuse; 0: unknown
				* yet (a fork copied: read at the next gc) */
	uint64_t read_at;   /* maps read by then, CLOCK_MONOTONIC ns */
	struct smap *maps;  /* sorted by start */
	size_t nmaps;
};

/* A symbol looked up lately: a compile's stacks name the same few
 * thousand addresses again and again, and each lookup is two binary
 * searches of tables too large for the cache. Cleared when a file's
 * table is freed (a new one may take its address). */
#define SYMS_SEEN_BITS 14
struct sym_seen {
	const struct elf_symtab *t; /* NULL: empty */
	uint64_t vaddr, sym_off;
	const char *sym; /* NULL: none covers vaddr */
};

/* The bytes before a return address, read lately: a leaf's repair
 * reads them for every stack, the same few hundred call sites again and
 * again. Cleared with sym_seen. */
#define CODE_SEEN_BITS 12
struct code_seen {
	const struct elf_symtab *t; /* NULL: empty */
	uint64_t off;		    /* of the byte after code */
	uint8_t code[8];
	bool read; /* false: the file has no bytes there */
};

struct proc_syms {
	char *procfs;
	struct sym_seen *sym_seen;   /* 1 << SYMS_SEEN_BITS */
	struct code_seen *code_seen; /* 1 << CODE_SEEN_BITS */
	proc_syms_finder find;
	void *find_ctx;
	struct sproc *procs[NBUCKETS];
	struct sfile *files[NBUCKETS];
	struct sfile *idle[IDLE_MAX]; /* oldest first */
	size_t nidle;
	size_t unrecorded; /* processes read from procfs, for the gc */
};

/* A parsed line of /proc/PID/maps. */
struct mline {
	uint64_t start, end, pgoff, dev, ino;
	bool exec, deleted;
	char *path; /* "" for an anonymous mapping */
};

struct proc_syms *proc_syms_new(const char *procfs)
{
	struct proc_syms *ps = xzalloc(sizeof(*ps));

	ps->procfs = xstrdup(procfs);
	return ps;
}

/* ---- files ---- */

/* Recorded files have no (dev, inode): (path, build-id) stands for it,
 * in a device number no real file has. */
#define RECORDED_DEV UINT64_MAX

static bool file_recorded(const struct sfile *f)
{
	return f->dev == RECORDED_DEV;
}

static struct sfile **file_bucket(struct proc_syms *ps, uint64_t dev,
				  uint64_t ino)
{
	return &ps->files[(ino * 31 + dev) % NBUCKETS];
}

static void file_free(struct proc_syms *ps, struct sfile *f)
{
	struct sfile **pp;

	for (pp = file_bucket(ps, f->dev, f->ino); *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	if (f->t && ps->sym_seen)
		memset(ps->sym_seen, 0,
		       sizeof(*ps->sym_seen) << SYMS_SEEN_BITS);
	if (f->t && ps->code_seen)
		memset(ps->code_seen, 0,
		       sizeof(*ps->code_seen) << CODE_SEEN_BITS);
	elf_symtab_free(f->t);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

static void file_put(struct proc_syms *ps, struct sfile *f)
{
	if (!f || --f->refs)
		return;
	if (!file_recorded(f)) {
		file_free(ps, f);
		return;
	}
	if (ps->nidle == IDLE_MAX) {
		file_free(ps, ps->idle[0]);
		memmove(ps->idle, ps->idle + 1,
			--ps->nidle * sizeof(*ps->idle));
	}
	ps->idle[ps->nidle++] = f;
}

/* An idle file mapped again: no longer a candidate to be freed. */
static void file_revive(struct proc_syms *ps, struct sfile *f)
{
	size_t i = 0;

	while (i < ps->nidle && ps->idle[i] != f)
		i++;
	if (i == ps->nidle)
		return;
	memmove(ps->idle + i, ps->idle + i + 1,
		(--ps->nidle - i) * sizeof(*ps->idle));
}

/* The link that reaches a mapping's file, deleted or not */
static char *map_files(const char *procfs, uint32_t tgid, const struct mline *m)
{
	return xasprintf("%s/%u/map_files/%llx-%llx", procfs, tgid,
			 (unsigned long long)m->start,
			 (unsigned long long)m->end);
}

/*
 * A descriptor of the file m maps: resolved inside the process's root
 * (rootfs.h: a container's symlinks and ".." cannot lead out of it), or
 * its map_files/ link when the file was deleted. When the process went
 * (its /proc/PID/root with it), the same inode at the same path on the
 * host will do. -1 when none opens.
 */
static int open_mapped(const char *procfs, uint32_t tgid, const struct mline *m)
{
	struct stat st;
	char *p;
	int fd;

	if (m->deleted) {
		p = map_files(procfs, tgid, m);
		fd = rootfs_open("", p);
	} else {
		p = xasprintf("%s/%u/root", procfs, tgid);
		fd = rootfs_open(p, m->path);
		if (fd < 0 && !stat(m->path, &st) && st.st_ino == m->ino)
			fd = rootfs_open("", m->path);
	}
	free(p);
	return fd;
}

/*
 * Read the file of a mapping while the process lives. A deleted file (an
 * upgraded library, a memfd) has no path any more: map_files/ still
 * reaches it. Without access to /proc/PID/root (not root), the same path
 * on the host will do if it is the same inode.
 */
static struct elf_symtab *file_open(struct proc_syms *ps, uint32_t tgid,
				    const struct mline *m, int *fd)
{
	struct elf_symtab *t;
	struct stat st;
	char *root, *p;

	/* p inside root: both "" for a path of our own */
	if (m->deleted) {
		root = xstrdup("");
		p = map_files(ps->procfs, tgid, m);
		t = elf_symtab_open(p, "");
	} else {
		root = xasprintf("%s/%u/root", ps->procfs, tgid);
		p = xstrdup(m->path);
		t = elf_symtab_open(m->path, root);
		if (!t && !stat(m->path, &st) && st.st_ino == m->ino) {
			root[0] = 0;
			t = elf_symtab_open(p, "");
		}
	}
	if (!t)
		verbose("no symbols for %s in %u: %s", m->path, tgid,
			strerror(errno));
	/* kept open: its code is read after the process may be gone */
	*fd = t ? open_mapped(ps->procfs, tgid, m) : -1;
	free(root);
	free(p);
	return t;
}

/* The cached file of (dev, inode), read on first use. */
static struct sfile *file_get(struct proc_syms *ps, uint32_t tgid,
			      const struct mline *m)
{
	struct sfile **head = file_bucket(ps, m->dev, m->ino), *f;

	/* inode 0 is no identity: such a file is read per mapping */
	for (f = m->ino ? *head : NULL; f; f = f->next) {
		if (f->dev == m->dev && f->ino == m->ino) {
			f->refs++;
			return f;
		}
	}
	f = xzalloc(sizeof(*f));
	f->dev = m->dev;
	f->ino = m->ino;
	f->refs = 1;
	f->t = file_open(ps, tgid, m, &f->fd);
	f->next = *head;
	*head = f;
	return f;
}

/* ---- /proc/PID/maps ---- */

/* A hex number that must be followed by sep; advances *p past sep. */
static bool parse_hex(char **p, char sep, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)**p))
		return false;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno || *end != sep)
		return false;
	*p = end + 1;
	return true;
}

/* "start-end perms offset major:minor inode   path"; false if not that. */
static bool parse_maps_line(char *line, struct mline *m)
{
	uint64_t major, minor;
	char *p = line, *end;
	size_t len;

	if (!parse_hex(&p, '-', &m->start) || !parse_hex(&p, ' ', &m->end) ||
	    strnlen(p, 5) < 5 || p[4] != ' ')
		return false;
	m->exec = p[2] == 'x';
	p += 5;
	if (!parse_hex(&p, ' ', &m->pgoff) || !parse_hex(&p, ':', &major) ||
	    !parse_hex(&p, ' ', &minor) || !isdigit((unsigned char)*p))
		return false;
	m->dev = major << 32 | (minor & 0xffffffff);
	m->ino = strtoull(p, &end, 10);
	if (*end && *end != ' ')
		return false;
	for (p = end; *p == ' '; p++)
		;
	m->path = p;
	len = strlen(p);
	m->deleted = len > strlen(DELETED) &&
		     !strcmp(p + len - strlen(DELETED), DELETED);
	if (m->deleted)
		p[len - strlen(DELETED)] = 0;
	return m->start < m->end;
}

/* A mapping's file during proc_maps_each_exec's call: opened when asked. */
struct mapped_file {
	const char *procfs;
	uint32_t tgid;
	const struct mline *m;
	bool tried;
	int fd;
	char *path;
};

const char *proc_map_path(const struct proc_map *pm)
{
	struct mapped_file *f = pm->file;

	if (!f || f->tried)
		return f ? f->path : NULL;
	f->tried = true;
	f->fd = open_mapped(f->procfs, f->tgid, f->m);
	if (f->fd >= 0)
		f->path = xasprintf("/proc/self/fd/%d", f->fd);
	return f->path;
}

/* Each executable mapping that maps text lists, to fn: the one reader of
 * maps lines. text is NUL-terminated; its lines are cut in place. */
static void each_exec_line(char *text,
			   void (*fn)(const struct mline *m, void *arg),
			   void *arg)
{
	char *line, *nl;
	struct mline m;

	for (line = text; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		else
			nl = line + strlen(line);
		if (parse_maps_line(line, &m) && m.exec)
			fn(&m, arg);
	}
}

struct each_exec {
	const char *procfs;
	uint32_t tgid;
	void (*fn)(const struct proc_map *m, void *arg);
	void *arg;
};

static void give_exec_map(const struct mline *m, void *arg)
{
	struct each_exec *e = arg;
	struct mapped_file file = {e->procfs, e->tgid, m, false, -1, NULL};
	struct proc_map pm = {m->start, m->end, m->pgoff, m->dev, m->ino};

	pm.name = m->path;
	pm.has_file = m->path[0] == '/';
	pm.file = pm.has_file ? &file : NULL;
	e->fn(&pm, e->arg);
	free(file.path);
	if (file.fd >= 0)
		close(file.fd);
}

void proc_maps_text_each_exec(char *text, const char *procfs, uint32_t tgid,
			      void (*fn)(const struct proc_map *m, void *arg),
			      void *arg)
{
	struct each_exec e = {procfs, tgid, fn, arg};

	each_exec_line(text, give_exec_map, &e);
}

int proc_maps_each_exec(const char *procfs, uint32_t tgid,
			void (*fn)(const struct proc_map *m, void *arg),
			void *arg)
{
	char *path = xasprintf("%s/%u/maps", procfs, tgid);
	char *buf = read_file(path, NULL);
	int err = errno;

	free(path);
	if (!buf) {
		errno = err;
		return -1;
	}
	proc_maps_text_each_exec(buf, procfs, tgid, fn, arg);
	free(buf);
	return 0;
}

/* A mapping's own copy of its name, and the module shown for it: a
 * file's base name, or the whole name ([vdso], [anon]). */
static void smap_name(struct smap *s, const char *name)
{
	const char *slash;

	s->name = xstrdup(name);
	slash = name[0] == '/' ? strrchr(s->name, '/') : NULL;
	s->module = slash ? slash + 1 : s->name;
}

static void add_map(struct proc_syms *ps, struct sproc *pr, size_t *cap,
		    const struct mline *m)
{
	struct smap *s;

	pr->maps = grow_array(pr->maps, cap, pr->nmaps + 1, sizeof(*pr->maps));
	s = &pr->maps[pr->nmaps++];
	s->start = m->start;
	s->end = m->end;
	s->pgoff = m->pgoff;
	smap_name(s, *m->path ? m->path : "[anon]");
	/* only real files have symbols; [vdso] lives in memory alone */
	s->file = m->path[0] == '/' ? file_get(ps, pr->tgid, m) : NULL;
}

static int smap_cmp(const void *a, const void *b)
{
	const struct smap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct maps_read {
	struct proc_syms *ps;
	struct sproc *pr;
	size_t cap;
};

static void read_map(const struct mline *m, void *arg)
{
	struct maps_read *r = arg;

	add_map(r->ps, r->pr, &r->cap, m);
}

static void read_maps(struct proc_syms *ps, struct sproc *pr, char *buf)
{
	struct maps_read r = {ps, pr, 0};

	each_exec_line(buf, read_map, &r);
	/* the kernel writes them sorted; a hand-made file may not be */
	if (pr->nmaps)
		qsort(pr->maps, pr->nmaps, sizeof(*pr->maps), smap_cmp);
}

/* Field 22 of /proc/PID/stat, counted after the ")" that ends comm. */
static uint64_t read_starttime(struct proc_syms *ps, uint32_t tgid)
{
	char *path = xasprintf("%s/%u/stat", ps->procfs, tgid);
	char *buf = read_file(path, NULL), *p;
	uint64_t v = 0;
	int field;

	free(path);
	p = buf ? strrchr(buf, ')') : NULL;
	for (field = 2; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (p && isdigit((unsigned char)*p))
		v = strtoull(p, NULL, 10);
	free(buf);
	return v;
}

/* ---- processes ---- */

/* The clock BPF stamps forks with (bpf_ktime_get_ns). */
static uint64_t monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct sproc **proc_slot(struct proc_syms *ps, uint32_t tgid)
{
	struct sproc **pp = &ps->procs[tgid % NBUCKETS];

	while (*pp && (*pp)->tgid != tgid)
		pp = &(*pp)->next;
	return pp;
}

static void proc_drop(struct proc_syms *ps, struct sproc **slot)
{
	struct sproc *pr = *slot;
	size_t i;

	*slot = pr->next;
	ps->unrecorded -= !pr->recorded;
	for (i = 0; i < pr->nmaps; i++) {
		file_put(ps, pr->maps[i].file);
		free(pr->maps[i].name);
	}
	free(pr->maps);
	free(pr);
}

static struct sproc *proc_add(struct proc_syms *ps, uint32_t tgid, bool exited)
{
	struct sproc *pr = xzalloc(sizeof(*pr));

	pr->tgid = tgid;
	pr->exited = exited;
	ps->unrecorded++;
	pr->next = ps->procs[tgid % NBUCKETS];
	ps->procs[tgid % NBUCKETS] = pr;
	return pr;
}

/*
 * Read the maps again. An empty maps file means the process has already
 * released its memory (it is exiting, or a zombie): that tells nothing
 * new, so what was captured while it lived is kept, unless the caller
 * knows it is stale (exec).
 */
static int capture(struct proc_syms *ps, uint32_t tgid, bool keep_on_empty)
{
	struct sproc **slot, *pr, *old;
	char *path, *buf;
	int err;

	path = xasprintf("%s/%u/maps", ps->procfs, tgid);
	buf = read_file(path, NULL);
	err = errno;
	free(path);
	slot = proc_slot(ps, tgid);
	if (!buf || !*buf) {
		if (*slot && !(keep_on_empty && (*slot)->nmaps))
			proc_drop(ps, slot);
		free(buf);
		errno = buf ? ESRCH : err;
		return -1;
	}
	/* the old maps go after the new ones are read: files they share
	 * stay open, so a process that exits meanwhile loses none */
	old = *slot;
	if (old)
		*slot = old->next;
	pr = proc_add(ps, tgid, false);
	pr->starttime = read_starttime(ps, tgid);
	pr->read_at = monotonic_ns(); /* after the read, not before it */
	read_maps(ps, pr, buf);
	free(buf);
	if (old)
		proc_drop(ps, &old);
	return 0;
}

int proc_syms_capture(struct proc_syms *ps, uint32_t tgid)
{
	return capture(ps, tgid, true);
}

/*
 * A fork maps what its parent mapped at the fork, and neither has exec'd
 * since (BPF checked). The parent's capture says so if it was read
 * before the fork, or if the parent has not changed its code since the
 * fork (parent_same, told by BPF): a read after a change may show what
 * the parent exec'd or mapped after. What the parent mapped between its
 * capture and the fork, the child finds as a miss, read then (lookup).
 */
int proc_syms_inherit(struct proc_syms *ps, uint32_t tgid, uint32_t parent,
		      uint64_t forked_at, bool parent_same)
{
	const struct sproc *from = *proc_slot(ps, parent);
	struct sproc **slot, *pr;
	size_t i;

	if (!from || from->recorded || !from->nmaps || parent == tgid ||
	    (from->read_at >= forked_at && !parent_same))
		return -1;
	slot = proc_slot(ps, tgid);
	if (*slot)
		proc_drop(ps, slot);
	pr = proc_add(ps, tgid, false); /* its start time: at the next gc */
	pr->read_at = from->read_at;
	pr->maps = xmalloc(from->nmaps * sizeof(*pr->maps));
	for (i = 0; i < from->nmaps; i++) {
		struct smap *m = &pr->maps[i];

		*m = from->maps[i];
		smap_name(m, from->maps[i].name);
		if (m->file)
			m->file->refs++;
	}
	pr->nmaps = from->nmaps;
	return 0;
}

void proc_syms_exec(struct proc_syms *ps, uint32_t tgid)
{
	/* failing now is fine: the next lookup tries again */
	capture(ps, tgid, false);
}

void proc_syms_exit(struct proc_syms *ps, uint32_t tgid)
{
	struct sproc *pr = *proc_slot(ps, tgid);

	if (pr)
		pr->exited = true;
}

/*
 * Drop what exited. A process gone without an exit call is marked now and
 * dropped next time, so its last interval still resolves; one whose start
 * time changed is a new process on a reused pid and is dropped at once.
 */
void proc_syms_gc(struct proc_syms *ps)
{
	struct sproc **slot;
	uint64_t st;
	size_t b;

	/* a recording's processes are never read nor dropped here */
	for (b = 0; ps->unrecorded && b < NBUCKETS; b++) {
		slot = &ps->procs[b];
		while (*slot) {
			(*slot)->reread = false;
			if ((*slot)->recorded) {
				slot = &(*slot)->next;
				continue;
			}
			if (!(*slot)->exited) {
				st = read_starttime(ps, (*slot)->tgid);
				if (!st)
					(*slot)->exited = true;
				else if (!(*slot)->starttime)
					(*slot)->starttime = st; /* a fork's */
				else if (st != (*slot)->starttime) {
					proc_drop(ps, slot);
					continue;
				}
				slot = &(*slot)->next;
				continue;
			}
			proc_drop(ps, slot);
		}
	}
}

static const struct smap *find_map(const struct sproc *pr, uint64_t addr)
{
	size_t lo = 0, hi = pr->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pr->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < pr->maps[lo - 1].end)
		return &pr->maps[lo - 1];
	return NULL;
}

/* The mapping holding addr in tgid, the process captured or its maps
 * read again when need be; NULL when none. */
static const struct smap *lookup_map(struct proc_syms *ps, uint32_t tgid,
				     uint64_t addr)
{
	const struct sproc *pr = *proc_slot(ps, tgid);
	const struct smap *m;

	if (!pr && proc_syms_capture(ps, tgid) < 0)
		/* gone or forbidden: an empty entry answers its other
		 * frames without asking /proc again, until the next gc */
		pr = proc_add(ps, tgid, true);
	else if (!pr)
		pr = *proc_slot(ps, tgid);
	m = find_map(pr, addr);
	if (!m && !pr->exited && !pr->reread && !pr->recorded) {
		/* mapped since the capture (ld.so after exec, dlopen): read
		 * the maps again, once per interval */
		capture(ps, tgid, true);
		pr = *proc_slot(ps, tgid); /* replaced, kept or dropped */
		if (!pr)
			return NULL;
		((struct sproc *)pr)->reread = true;
		m = find_map(pr, addr);
	}
	return m;
}

bool proc_syms_mapped(struct proc_syms *ps, uint32_t tgid, uint64_t addr)
{
	return lookup_map(ps, tgid, addr) != NULL;
}

static struct sym_seen *sym_slot(struct proc_syms *ps,
				 const struct elf_symtab *t, uint64_t vaddr)
{
	uint64_t h = ((uintptr_t)t * 0x9e3779b97f4a7c15ULL ^ vaddr) *
		     0xd6e8feb86659fd93ULL;

	if (!ps->sym_seen)
		ps->sym_seen = xzalloc(sizeof(*ps->sym_seen) << SYMS_SEEN_BITS);
	return &ps->sym_seen[h >> (64 - SYMS_SEEN_BITS)];
}

int proc_syms_lookup(struct proc_syms *ps, uint32_t tgid, uint64_t addr,
		     struct usym *u)
{
	const struct smap *m;
	struct sym_seen *seen;
	uint64_t vaddr;

	memset(u, 0, sizeof(*u));
	m = lookup_map(ps, tgid, addr);
	if (!m)
		return -1;
	u->module = m->module;
	u->module_off = addr - m->start + m->pgoff;
	if (!m->file || !m->file->t)
		return -1;
	vaddr = elf_symtab_offset_to_vaddr(m->file->t, u->module_off);
	seen = sym_slot(ps, m->file->t, vaddr);
	if (seen->t == m->file->t && seen->vaddr == vaddr) {
		u->sym = seen->sym;
		u->sym_off = seen->sym_off;
		return u->sym ? 0 : -1;
	}
	u->sym = elf_symtab_lookup(m->file->t, vaddr, &u->sym_off);
	if (u->sym)
		u->ninlined = elf_symtab_inlined(m->file->t, vaddr, u->inlined,
						 USYM_INLINE_MAX);
	/* (calls inlined there are rare: those are looked up each time) */
	if (!u->ninlined)
		*seen = (struct sym_seen){m->file->t, vaddr, u->sym_off,
					  u->sym};
	return u->sym ? 0 : -1;
}

size_t proc_syms_maps(struct proc_syms *ps, uint32_t tgid,
		      struct rec_map **maps)
{
	const struct sproc *pr = *proc_slot(ps, tgid);

	*maps = NULL;
	if (!pr || !pr->nmaps)
		return 0;
	*maps = xmalloc(pr->nmaps * sizeof(**maps));
	for (size_t i = 0; i < pr->nmaps; i++) {
		const struct smap *m = &pr->maps[i];

		(*maps)[i] = (struct rec_map){
			.start = m->start,
			.end = m->end,
			.pgoff = m->pgoff,
			.path = m->name,
			.build_id = m->file && m->file->t
					    ? elf_symtab_build_id(m->file->t)
					    : "",
		};
	}
	return pr->nmaps;
}

void proc_syms_set_finder(struct proc_syms *ps, proc_syms_finder find,
			  void *ctx)
{
	ps->find = find;
	ps->find_ctx = ctx;
}

/* The inode standing for a recorded file: (path, build-id) hashed. */
static uint64_t recorded_ino(const struct rec_map *pm)
{
	uint64_t ino = 0xcbf29ce484222325ULL;

	for (const char *s = pm->path; *s; s++)
		ino = (ino ^ (unsigned char)*s) * 0x100000001b3ULL;
	for (const char *s = pm->build_id; *s; s++)
		ino = (ino ^ (unsigned char)*s) * 0x100000001b3ULL;
	return ino;
}

static struct sfile *recorded_file(struct proc_syms *ps,
				   const struct rec_map *pm)
{
	uint64_t ino = recorded_ino(pm);
	struct sfile **head, *f;

	head = file_bucket(ps, RECORDED_DEV, ino);
	for (f = *head; f; f = f->next) {
		if (f->dev == RECORDED_DEV && f->ino == ino) {
			if (!f->refs++)
				file_revive(ps, f);
			return f;
		}
	}
	f = xzalloc(sizeof(*f));
	f->dev = RECORDED_DEV;
	f->ino = ino;
	f->refs = 1;
	f->fd = -1;
	if (ps->find) {
		f->t = ps->find(ps->find_ctx, pm->path, pm->build_id, &f->fd);
	} else {
		/* this machine's file: its code too, for leaf repair */
		f->t = elf_symtab_open(pm->path, "");
		if (f->t)
			f->fd = open(pm->path, O_RDONLY | O_CLOEXEC);
	}
	f->next = *head;
	*head = f;
	return f;
}

/* Whether a recorded process already has these maps, in this order:
 * the same files (by path and build-id) at the same places. */
static bool same_maps(const struct sproc *pr, const struct rec_map *maps,
		      size_t n)
{
	if (!pr->recorded || pr->nmaps != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct smap *s = &pr->maps[i];

		if (s->start != maps[i].start || s->end != maps[i].end ||
		    s->pgoff != maps[i].pgoff ||
		    strcmp(s->name, maps[i].path) ||
		    (s->file ? s->file->ino != recorded_ino(&maps[i])
			     : maps[i].path[0] == '/'))
			return false;
	}
	return true;
}

void proc_syms_record(struct proc_syms *ps, uint32_t tgid,
		      const struct rec_map *maps, size_t n)
{
	struct sproc **slot = proc_slot(ps, tgid), *pr;

	/* recorded again as they were: nothing to do */
	if (*slot && same_maps(*slot, maps, n))
		return;

	/* the new files first, so one shared with the old maps stays open */
	struct sfile **files = xmalloc((n + 1) * sizeof(*files));

	for (size_t i = 0; i < n; i++)
		files[i] = maps[i].path[0] == '/' ? recorded_file(ps, &maps[i])
						  : NULL;
	if (*slot)
		proc_drop(ps, slot);
	pr = proc_add(ps, tgid, false);
	pr->recorded = true;
	ps->unrecorded--;
	pr->maps = xmalloc((n + 1) * sizeof(*pr->maps));
	for (size_t i = 0; i < n; i++) {
		struct smap *s = &pr->maps[pr->nmaps++];
		const char *slash;

		s->start = maps[i].start;
		s->end = maps[i].end;
		s->pgoff = maps[i].pgoff;
		s->name = xstrdup(maps[i].path);
		slash = s->name[0] == '/' ? strrchr(s->name, '/') : NULL;
		s->module = slash ? slash + 1 : s->name;
		s->file = files[i];
	}
	free(files);
	if (pr->nmaps)
		qsort(pr->maps, pr->nmaps, sizeof(*pr->maps), smap_cmp);
}

/* The 8 bytes of f before file offset off, through code_seen. */
static bool code_before(struct proc_syms *ps, const struct sfile *f,
			uint64_t off, uint8_t code[8])
{
	uint64_t h = ((uintptr_t)f->t * 0x9e3779b97f4a7c15ULL ^ off) *
		     0xd6e8feb86659fd93ULL;
	struct code_seen *c;

	if (!ps->code_seen)
		ps->code_seen =
			xzalloc(sizeof(*ps->code_seen) << CODE_SEEN_BITS);
	c = &ps->code_seen[h >> (64 - CODE_SEEN_BITS)];
	if (c->t != f->t || c->off != off) {
		c->t = f->t;
		c->off = off;
		c->read = pread(f->fd, c->code, sizeof(c->code),
				off - sizeof(c->code)) == sizeof(c->code);
	}
	memcpy(code, c->code, sizeof(c->code));
	return c->read;
}

int proc_syms_lost_caller(struct proc_syms *ps, uint32_t tgid, uint64_t leaf,
			  uint64_t ret, uint64_t *entry)
{
	const struct smap *m;
	struct usym lu, tu;
	uint8_t code[8];
	uint64_t off, target;
	bool leaf_known;

	leaf_known = !proc_syms_lookup(ps, tgid, leaf, &lu);
	m = find_map(*proc_slot(ps, tgid), ret); /* captured by the lookup */
	if (!m || !m->file || !m->file->t || m->file->fd < 0)
		return -1;
	off = ret - m->start + m->pgoff;
	if (off < sizeof(code) || !code_before(ps, m->file, off, code) ||
	    !callsite_target(elf_symtab_machine(m->file->t), code, sizeof(code),
			     ret, &target))
		return -1;
	/* a function's entry, not a PLT stub or garbage from a stack that
	 * only looked like frame records */
	if (proc_syms_lookup(ps, tgid, target, &tu) || tu.sym_off)
		return -1;
	/* the leaf in that very function: its frame record was there */
	if (leaf_known ? leaf - lu.sym_off == target
		       : find_map(*proc_slot(ps, tgid), leaf) ==
				 find_map(*proc_slot(ps, tgid), target))
		return -1;
	*entry = target;
	return 0;
}

void proc_syms_free(struct proc_syms *ps)
{
	size_t b;

	if (!ps)
		return;
	for (b = 0; b < NBUCKETS; b++)
		while (ps->procs[b])
			proc_drop(ps, &ps->procs[b]);
	while (ps->nidle)
		file_free(ps, ps->idle[--ps->nidle]);
	free(ps->sym_seen);
	free(ps->code_seen);
	free(ps->procfs);
	free(ps);
}

void proc_syms_held(const struct proc_syms *ps, struct proc_syms_held *h)
{
	*h = (struct proc_syms_held){0};
	for (size_t b = 0; b < NBUCKETS; b++) {
		for (const struct sproc *p = ps->procs[b]; p; p = p->next)
			h->procs++;
		for (const struct sfile *f = ps->files[b]; f; f = f->next) {
			h->files++;
			h->bytes += f->t ? elf_symtab_bytes(f->t) : 0;
		}
	}
}
