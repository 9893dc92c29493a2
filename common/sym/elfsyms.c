// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols of one ELF file, looked up by the file's virtual
 * addresses.
 *
 * The symbols come from .symtab when the file has one; a stripped file
 * (the usual case on a head unit) gets them from its separate debug file,
 * found by build-id or .gnu_debuglink, and only then from .dynsym, which
 * lists exported functions alone. Everything needed later is copied out
 * (one array, one string pool, the PT_LOAD headers) and the file closed:
 * a process may have a hundred of these open for a long time.
 *
 * Files come from untrusted places (/proc/PID/root of a container), so a
 * header is never believed over the file size: libelf checks section
 * bounds against the mapping, and every count here derives from a section
 * size libelf has accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gopclntab.h"
#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"
#include "u64map.h"

#define BUILD_ID_MAX 64 /* bytes; GNU ld writes 20 */
/* How far back a lookup walks for a symbol that encloses a nested one. */
#define ELF_NEST_MAX 4

/* A function while loading: every alias, with what ranks it. */
struct eraw {
	uint64_t addr;
	uint64_t end;	/* exclusive; 0 = unsized */
	uint64_t limit; /* end of the symbol's section, or 0 */
	uint32_t name;	/* offset in the loading pool */
	uint32_t rank;	/* lower wins an alias tie */
};

/* A function kept: 16 bytes. */
struct esym {
	uint64_t addr;
	uint32_t size; /* never 0 once loaded */
	uint32_t name; /* offset in pool */
};

/* Code where Go inlined calls: n names, innermost first, from chain. */
struct einl {
	uint64_t addr;
	uint32_t size;
	uint32_t n;
	uint32_t chain; /* index in inl_chain */
};

struct eload {
	uint64_t off, filesz, vaddr, align;
};

struct elf_symtab {
	struct esym *syms;
	size_t n;
	char *pool;
	size_t pool_len;
	struct eraw *raw; /* while loading */
	size_t nraw, raw_cap;
	char *rpool; /* while loading: names of every alias */
	size_t rpool_len, rpool_cap;
	struct eload *loads;
	size_t nloads;
	struct einl *inl; /* Go's inline trees, sorted, disjoint */
	size_t ninl, inl_cap;
	uint32_t *inl_chain; /* offsets in inl_pool */
	size_t nchain, chain_cap;
	char *inl_pool;
	size_t inl_pool_len, inl_pool_cap;
	struct u64map inl_names; /* while loading: name in the table ->
				  * its offset in inl_pool + 1 */
	char build_id[2 * BUILD_ID_MAX + 1];
	uint16_t machine; /* e_machine: how to decode its code */
	bool msb;	  /* big-endian */
};

/* An Elf handle and the descriptor under it, closed together. */
struct efile {
	int fd;
	Elf *elf;
};

/* Does [off, off + n * size) fit in a file of len bytes? */
static bool fits(uint64_t off, uint64_t n, uint64_t size, uint64_t len)
{
	return off <= len && (!size || n <= (len - off) / size);
}

/*
 * libelf quietly drops what it cannot read: a file cut short (a copy
 * interrupted, a partial download) would open as one without sections.
 * Its headers must describe a file no longer than it is.
 */
static bool efile_sane(struct efile *ef)
{
	size_t i, shnum, phnum;
	struct stat st;
	GElf_Ehdr eh;
	GElf_Phdr ph;

	if (fstat(ef->fd, &st) || !gelf_getehdr(ef->elf, &eh) ||
	    elf_getshdrnum(ef->elf, &shnum) || elf_getphdrnum(ef->elf, &phnum))
		return false;
	/* libelf counts no sections when it could not read their headers */
	if (shnum < eh.e_shnum)
		shnum = eh.e_shnum;
	if (!shnum && eh.e_shoff)
		shnum = 1;
	if ((shnum && !fits(eh.e_shoff, shnum, eh.e_shentsize, st.st_size)) ||
	    (phnum && !fits(eh.e_phoff, phnum, eh.e_phentsize, st.st_size)))
		return false;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return false;
		if (ph.p_type == PT_LOAD &&
		    !fits(ph.p_offset, ph.p_filesz, 1, st.st_size))
			return false;
	}
	return true;
}

/*
 * path inside root (rootfs_open). Read, not mapped: a file that a
 * container truncates under a mapping would kill us with SIGBUS, and
 * libelf reads only the headers and the sections asked for.
 */
static bool efile_open(struct efile *ef, const char *root, const char *path)
{
	static bool ready;

	if (!ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return false;
		ready = true;
	}
	ef->elf = NULL;
	ef->fd = rootfs_open(root, path);
	if (ef->fd < 0)
		return false;
	ef->elf = elf_begin(ef->fd, ELF_C_READ, NULL);
	if (ef->elf && elf_kind(ef->elf) == ELF_K_ELF && efile_sane(ef))
		return true;
	elf_end(ef->elf);
	close(ef->fd);
	ef->elf = NULL;
	errno = ENOEXEC;
	return false;
}

static void efile_close(struct efile *ef)
{
	if (!ef->elf)
		return;
	elf_end(ef->elf);
	close(ef->fd);
	ef->elf = NULL;
}

/* The first section of a type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_scn_type(Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

static Elf_Scn *find_scn_name(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	const char *s;
	GElf_Shdr sh;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		s = elf_strptr(elf, strndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* ---- symbols ---- */

/*
 * Aliases share an address (getpid and __getpid, an ifunc and its
 * resolver): prefer a sized symbol, then fewer leading underscores (the
 * public name of a glibc function is often the weak alias of an internal
 * one), then global over weak over local, then the shorter name.
 * Lower wins.
 */
static uint32_t esym_rank(const GElf_Sym *s, const char *name, size_t len)
{
	uint32_t bind, u = 0;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		bind = 0;
		break;
	case STB_WEAK:
		bind = 1;
		break;
	default:
		bind = 2;
		break;
	}
	while (name[u] == '_' && u < 3)
		u++;
	return (uint32_t)!s->st_size << 31 | u << 29 | bind << 27 |
	       (len < 0x7ffffff ? len : 0x7ffffff);
}

/* A function while loading: name is len bytes, not NUL-terminated. */
static struct eraw *eraw_add(struct elf_symtab *t, uint64_t addr, uint64_t end,
			     const char *name, size_t len, uint32_t rank)
{
	struct eraw *e;

	if (t->rpool_len + len + 1 >= UINT32_MAX)
		return NULL;
	t->raw = grow_array(t->raw, &t->raw_cap, t->nraw + 1, sizeof(*t->raw));
	e = &t->raw[t->nraw++];
	e->addr = addr;
	e->end = end;
	e->limit = 0;
	e->rank = rank;
	t->rpool =
		grow_array(t->rpool, &t->rpool_cap, t->rpool_len + len + 1, 1);
	memcpy(t->rpool + t->rpool_len, name, len);
	t->rpool[t->rpool_len + len] = 0;
	e->name = t->rpool_len;
	t->rpool_len += len + 1;
	return e;
}

static void esym_add(struct elf_symtab *t, Elf *elf, const GElf_Sym *s,
		     const char *name)
{
	/* "dlsym@@GLIBC_2.34": the version says nothing about the code */
	size_t len = strcspn(name, "@");
	uint64_t end;
	struct eraw *e;
	GElf_Shdr sh;

	if (!len)
		len = strlen(name);
	end = s->st_size && s->st_value + s->st_size > s->st_value
		      ? s->st_value + s->st_size
		      : 0;
	e = eraw_add(t, s->st_value, end, name, len, esym_rank(s, name, len));
	if (e && !end && s->st_shndx < SHN_LORESERVE &&
	    gelf_getshdr(elf_getscn(elf, s->st_shndx), &sh))
		e->limit = sh.sh_addr + sh.sh_size;
}

static bool is_function(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       s->st_shndx != SHN_UNDEF && s->st_value;
}

/* A symbol section's header, data and count; false when unreadable. */
static bool sym_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data **data,
			size_t *n)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS || !entsize)
		return false;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	*data = elf_getdata(scn, NULL);
	if (!*data)
		return false;
	*n = (*data)->d_size / entsize;
	return true;
}

/* Add the functions of a symbol section; -1 when it cannot be read. */
static int read_syms(struct elf_symtab *t, Elf *elf, Elf_Scn *scn)
{
	size_t i, n;
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;

	if (!sym_section(elf, scn, &sh, &data, &n))
		return -1;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, i, &s) || !is_function(&s))
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && *name)
			esym_add(t, elf, &s, name);
	}
	return 0;
}

static int eraw_cmp(const void *a, const void *b)
{
	const struct eraw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Keep one name per address; drop an unsized symbol (a label in
 * hand-written assembly) that falls inside a sized function, where it
 * would shadow the function's tail. Returns how many are kept.
 */
static size_t eraw_dedup(struct eraw *r, size_t nraw)
{
	uint64_t covered = 0;
	size_t i, n = 0;

	if (nraw)
		qsort(r, nraw, sizeof(*r), eraw_cmp);
	for (i = 0; i < nraw; i++) {
		if (n && r[n - 1].addr == r[i].addr)
			continue;
		if (!r[i].end && r[i].addr < covered)
			continue;
		if (r[i].end > covered)
			covered = r[i].end;
		r[n++] = r[i];
	}
	return n;
}

/* An unsized symbol reaches to the next one or the end of its section. */
static uint64_t eraw_end(const struct eraw *r, size_t i, size_t n)
{
	uint64_t next = i + 1 < n ? r[i + 1].addr : UINT64_MAX;

	if (r[i].end)
		return r[i].end;
	if (r[i].limit > r[i].addr && r[i].limit < next)
		next = r[i].limit;
	return next != UINT64_MAX ? next : r[i].addr + 1;
}

/* From the loading arrays to the kept ones, names of dropped aliases
 * left behind. */
static void esym_finish(struct elf_symtab *t)
{
	size_t i, n = eraw_dedup(t->raw, t->nraw), len, pool_len = 0;
	uint64_t size;

	for (i = 0; i < n; i++)
		pool_len += strlen(t->rpool + t->raw[i].name) + 1;
	t->syms = xmalloc(n * sizeof(*t->syms));
	t->pool = xmalloc(pool_len);
	for (i = 0, pool_len = 0; i < n; i++) {
		size = eraw_end(t->raw, i, n) - t->raw[i].addr;
		t->syms[i].addr = t->raw[i].addr;
		t->syms[i].size = size < UINT32_MAX ? size : UINT32_MAX;
		t->syms[i].name = pool_len;
		len = strlen(t->rpool + t->raw[i].name) + 1;
		memcpy(t->pool + pool_len, t->rpool + t->raw[i].name, len);
		pool_len += len;
	}
	t->n = n;
	t->pool_len = pool_len;
	free(t->raw);
	free(t->rpool);
	t->raw = NULL;
	t->rpool = NULL;
}

/* ---- build-id and program headers ---- */

static void hex(char *dst, const unsigned char *src, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		dst[2 * i] = digits[src[i] >> 4];
		dst[2 * i + 1] = digits[src[i] & 15];
	}
	dst[2 * n] = 0;
}

/* Find NT_GNU_BUILD_ID in a block of notes; true when found. */
static bool note_build_id(Elf_Data *data, char *out)
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = data->d_buf;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(base + name_off, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz <= BUILD_ID_MAX) {
			hex(out, (const unsigned char *)base + desc_off,
			    nh.n_descsz);
			return true;
		}
		off = next;
	}
	return false;
}

/* From the note sections, else (no section headers) the PT_NOTEs. */
static void read_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n;

	out[0] = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && note_build_id(data, out))
			return;
	}
	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ELF_T_NHDR);
		if (data && note_build_id(data, out))
			return;
	}
}

static int read_loads(struct elf_symtab *t, Elf *elf)
{
	size_t i, n, cap = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		t->loads = grow_array(t->loads, &cap, t->nloads + 1,
				      sizeof(*t->loads));
		t->loads[t->nloads++] = (struct eload){ph.p_offset, ph.p_filesz,
						       ph.p_vaddr, ph.p_align};
	}
	return 0;
}

/* ---- separate debug files ---- */

/* At most ROOTFS_FILE_MAX bytes, even of a file that grows meanwhile. */
static bool crc_matches(const char *root, const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	uint64_t total = 0;
	ssize_t r;
	int fd = rootfs_open(root, path);

	if (fd < 0)
		return false;
	while ((r = read(fd, buf, sizeof(buf))) > 0 &&
	       (total += r) <= ROOTFS_FILE_MAX)
		crc = crc32(crc, buf, r);
	close(fd);
	return r == 0 && (uint32_t)crc == want;
}

/*
 * Take the .symtab of a debug file. A build-id match or a debuglink CRC
 * match proves it belongs to our file; a stale one would name the wrong
 * functions, which is worse than naming none.
 */
static bool use_debug_file(struct elf_symtab *t, const char *root,
			   const char *path, const char *want_id)
{
	char id[sizeof(t->build_id)];
	struct efile ef;
	Elf_Scn *scn;
	bool ok = false;

	if (!efile_open(&ef, root, path))
		return false;
	if (want_id) {
		read_build_id(ef.elf, id);
		if (strcmp(id, want_id))
			goto out;
	}
	scn = find_scn_type(ef.elf, SHT_SYMTAB);
	if (scn && !read_syms(t, ef.elf, scn)) {
		verbose("symbols of %s", path);
		ok = true;
	}
out:
	efile_close(&ef);
	return ok;
}

static bool try_build_id(struct elf_symtab *t, const char *root)
{
	char *p;
	bool ok;

	if (strlen(t->build_id) < 4)
		return false;
	p = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", t->build_id,
		      t->build_id + 2);
	ok = use_debug_file(t, root, p, t->build_id);
	free(p);
	return ok;
}

/* .gnu_debuglink: a file name, padding to 4 bytes, then its CRC32. */
static bool read_debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	Elf_Scn *scn = find_scn_name(elf, ".gnu_debuglink");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *b, *c;
	GElf_Ehdr eh;
	size_t len;

	if (!data || !data->d_buf || !gelf_getehdr(elf, &eh))
		return false;
	b = data->d_buf;
	len = strnlen((const char *)b, data->d_size);
	if (!len || (len + 4) / 4 * 4 + 4 > data->d_size)
		return false;
	c = b + (len + 4) / 4 * 4;
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
	else
		*crc = (uint32_t)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
	*name = (const char *)b;
	return !strchr(*name, '/');
}

static bool try_debuglink(struct elf_symtab *t, Elf *elf, const char *path,
			  const char *root)
{
	const char *slash = strrchr(path, '/'), *dir = slash ? path : ".";
	const char *name;
	char *where[3];
	bool ok = false;
	uint32_t crc;
	size_t i;
	int dlen;

	if (!read_debuglink(elf, &name, &crc))
		return false;
	/* the directory of the file as seen inside root */
	dlen = slash ? (int)(slash - path) : 1;
	where[0] = xasprintf("%.*s/%s", dlen, dir, name);
	where[1] = xasprintf("%.*s/.debug/%s", dlen, dir, name);
	where[2] = xasprintf("/usr/lib/debug%.*s/%s", dlen, dir, name);
	/* a debuglink naming the file itself has no more to give; a debug
	 * file's own debuglink is never followed, so links cannot cycle */
	for (i = 0; i < ARRAY_SIZE(where); i++) {
		if (!ok && strcmp(where[i], path) &&
		    crc_matches(root, where[i], crc))
			ok = use_debug_file(t, root, where[i], NULL);
		free(where[i]);
	}
	return ok;
}

/* ---- exported functions by name (uprobes) ---- */

/* The file offset of vaddr, in the executable PT_LOAD holding it. */
static bool exec_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	return false;
}

/* Global and weak functions one symbol section defines, every alias. */
static void each_global(Elf *elf, Elf_Scn *scn, elf_function_fn fn, void *arg)
{
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;
	uint64_t off;
	size_t i, n;

	if (!sym_section(elf, scn, &sh, &data, &n))
		return;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    GELF_ST_BIND(s.st_info) == STB_LOCAL ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && *name && exec_offset(elf, s.st_value, &off))
			fn(name, off, arg);
	}
}

int elf_each_function(const char *path, unsigned *machine, elf_function_fn fn,
		      void *arg)
{
	uint32_t types[] = {SHT_DYNSYM, SHT_SYMTAB};
	struct efile ef;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!efile_open(&ef, NULL, path))
		return -1;
	*machine = gelf_getehdr(ef.elf, &eh) ? eh.e_machine : EM_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		scn = NULL;
		while ((scn = elf_nextscn(ef.elf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[i])
				each_global(ef.elf, scn, fn, arg);
	}
	efile_close(&ef);
	return 0;
}

/* ---- what a file offers stack walking (stackbox check) ---- */

/* Functions looked at per file: enough for a share, few enough that a
 * 100 MB binary on a slow flash answers at once. */
#define FACTS_SAMPLE 2048

/* x86_64: [endbr64] push %rbp; mov %rsp,%rbp (either encoding). */
static bool x86_frame_setup(const uint8_t *b)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};

	if (!memcmp(b, endbr64, sizeof(endbr64)))
		b += sizeof(endbr64);
	return b[0] == 0x55 && b[1] == 0x48 &&
	       ((b[2] == 0x89 && b[3] == 0xe5) ||
		(b[2] == 0x8b && b[3] == 0xec));
}

/* arm64: stp x29, x30, [sp, #-N]! (or [sp, #N] after sub sp) within the
 * first instructions, after any PAC or BTI landing pad. Instructions
 * are little-endian whatever the data's order. */
static bool arm64_frame_setup(const uint8_t *b)
{
	for (int i = 0; i < 4; i++) {
		uint32_t w = b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16 |
			     (uint32_t)b[4 * i + 3] << 24;

		if ((w & 0xffc07fff) == 0xa9807bfd ||
		    (w & 0xffc07fff) == 0xa9007bfd)
			return true;
	}
	return false;
}

/* Count the sampled functions of a symbol section, and those whose
 * entry sets up a frame pointer. */
static void count_prologues(struct efile *ef, Elf_Scn *scn, struct elf_facts *f)
{
	size_t i, n, step;
	uint8_t code[16];
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;
	uint64_t off;

	if (!sym_section(ef->elf, scn, &sh, &data, &n))
		return;
	step = n / FACTS_SAMPLE + 1;
	for (i = 1; i < n; i += step) {
		if (!gelf_getsym(data, i, &s) || !is_function(&s) ||
		    !s.st_size || !exec_offset(ef->elf, s.st_value, &off) ||
		    pread(ef->fd, code, sizeof(code), off) != sizeof(code))
			continue;
		f->functions++;
		if (f->machine == EM_X86_64    ? x86_frame_setup(code)
		    : f->machine == EM_AARCH64 ? arm64_frame_setup(code)
					       : false)
			f->fp_prologue++;
	}
}

int elf_facts(const char *path, struct elf_facts *f)
{
	Elf_Scn *symtab, *dynsym;
	struct efile ef;
	GElf_Ehdr eh;

	memset(f, 0, sizeof(*f));
	if (!efile_open(&ef, NULL, path))
		return -1;
	f->machine = gelf_getehdr(ef.elf, &eh) ? eh.e_machine : EM_NONE;
	symtab = find_scn_type(ef.elf, SHT_SYMTAB);
	dynsym = find_scn_type(ef.elf, SHT_DYNSYM);
	f->symtab = symtab;
	f->dynsym = dynsym;
	f->eh_frame = find_scn_name(ef.elf, ".eh_frame");
	f->debug_frame = find_scn_name(ef.elf, ".debug_frame");
	f->debugdata = find_scn_name(ef.elf, ".gnu_debugdata");
	f->debuglink = find_scn_name(ef.elf, ".gnu_debuglink");
	_Static_assert(sizeof(f->build_id) >= 2 * BUILD_ID_MAX + 1,
		       "room for the longest build-id");
	read_build_id(ef.elf, f->build_id);
	if (symtab || dynsym)
		count_prologues(&ef, symtab ? symtab : dynsym, f);
	efile_close(&ef);
	return 0;
}

/* ---- Go's own table, for Go binaries without symbols ---- */

/* Below any sized ELF symbol at the same address (lower wins). */
#define GO_RANK UINT32_C(0x7fffffff)

static void go_add(uint64_t entry, uint64_t end, const char *name, size_t len,
		   void *arg)
{
	eraw_add(arg, entry, end, name, len, GO_RANK);
}

/* A Go table: its bytes, where it is loaded, where .text is (0: the
 * header says). */
struct gotab {
	const uint8_t *p;
	size_t len;
	uint64_t vaddr, text;
};

/* Go's table in one non-executable segment, by scanning; true when found.
 * Its header's .text address serves: no section says where .text is. */
static bool scan_gopclntab(struct elf_symtab *t, Elf *elf, const GElf_Phdr *ph,
			   struct gotab *g)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz,
					      ELF_T_BYTE);
	long off;

	if (!data || !data->d_buf)
		return false;
	off = gopclntab_find(data->d_buf, data->d_size, t->msb);
	if (off < 0 ||
	    gopclntab_each((const uint8_t *)data->d_buf + off,
			   data->d_size - off, 0, t->msb, go_add, t) <= 0)
		return false;
	verbose("symbols from a Go pclntab at file offset %#llx",
		(unsigned long long)(ph->p_offset + off));
	*g = (struct gotab){(const uint8_t *)data->d_buf + off,
			    data->d_size - off, ph->p_vaddr + off, 0};
	return true;
}

/* The table by section name (.data.rel.ro.gopclntab in a position-
 * independent build); false when the file has neither. */
static bool gopclntab_section(Elf *elf, struct gotab *g)
{
	Elf_Scn *scn = find_scn_name(elf, ".gopclntab"),
		*text = find_scn_name(elf, ".text");
	Elf_Data *data;
	GElf_Shdr sh, tsh;

	if (!scn)
		scn = find_scn_name(elf, ".data.rel.ro.gopclntab");
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return false;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return false;
	*g = (struct gotab){data->d_buf, data->d_size, sh.sh_addr,
			    text && gelf_getshdr(text, &tsh) ? tsh.sh_addr : 0};
	return true;
}

/*
 * Function names from the table (by section; else, without section
 * headers, the first table in a read-only segment (with .rodata), then
 * in a writable one (PIE: relocated data, read-only once relocated)).
 * True when a table was found, in *g.
 */
static bool read_gopclntab(struct elf_symtab *t, Elf *elf, struct gotab *g)
{
	GElf_Phdr ph;
	size_t i, n;

	if (gopclntab_section(elf, g)) {
		if (gopclntab_each(g->p, g->len, g->text, t->msb, go_add, t) >
		    0)
			verbose("symbols from .gopclntab");
		return true;
	}
	/* sections but none of Go's: not Go, and its data is not scanned
	 * (every stripped library would be) */
	if (elf_getshdrnum(elf, &n) || n || elf_getphdrnum(elf, &n))
		return false;
	for (int writable = 0; writable < 2; writable++)
		for (i = 0; i < n; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    !(ph.p_flags & PF_X) &&
			    !(ph.p_flags & PF_W) == !writable &&
			    scan_gopclntab(t, elf, &ph, g))
				return true;
	return false;
}

/* ---- Go's inline trees ---- */

/* The bytes of the non-executable PT_LOAD holding vaddr. */
static bool segment_at(Elf *elf, uint64_t vaddr, struct gopclntab_funcdata *fd)
{
	Elf_Data *data;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & PF_X) || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ELF_T_BYTE);
		if (!data || !data->d_buf)
			return false;
		fd->p = data->d_buf;
		fd->len = data->d_size;
		fd->vaddr = ph.p_vaddr;
		return true;
	}
	return false;
}

/* go:func.* (Go 1.20+) or go.func.* (1.18, 1.19) from .symtab: where
 * funcdata offsets are from; 0 without it. */
static uint64_t gofunc_symbol(Elf *elf)
{
	Elf_Scn *scn = find_scn_type(elf, SHT_SYMTAB);
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, n;

	if (!scn || !sym_section(elf, scn, &sh, &data, &n))
		return 0;
	for (i = 1; i < n; i++)
		if (gelf_getsym(data, i, &s) &&
		    (name = elf_strptr(elf, sh.sh_link, s.st_name)) &&
		    (!strcmp(name, "go:func.*") || !strcmp(name, "go.func.*")))
			return s.st_value;
	return 0;
}

/* Else the runtime's moduledata, in a data segment. */
static uint64_t gofunc_scan(struct elf_symtab *t, Elf *elf,
			    const struct gotab *g)
{
	Elf_Data *data;
	GElf_Phdr ph;
	uint64_t gofunc;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & PF_X))
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ELF_T_BYTE);
		if (data && data->d_buf &&
		    (gofunc = gopclntab_gofunc(data->d_buf, data->d_size, g->p,
					       g->len, g->vaddr, t->msb)))
			return gofunc;
	}
	return 0;
}

/* name's offset in inl_pool: one copy of each name, keyed by its place
 * in the table (one place, one name). */
static uint32_t inl_name(struct elf_symtab *t, const struct gopclntab_str *s)
{
	uint64_t *at = u64map_add(&t->inl_names, (uintptr_t)s->p);

	if (!*at) {
		t->inl_pool = grow_array(t->inl_pool, &t->inl_pool_cap,
					 t->inl_pool_len + s->len + 1, 1);
		memcpy(t->inl_pool + t->inl_pool_len, s->p, s->len);
		t->inl_pool[t->inl_pool_len + s->len] = 0;
		*at = t->inl_pool_len + 1;
		t->inl_pool_len += s->len + 1;
	}
	return *at - 1;
}

static void inl_add(uint64_t start, uint64_t end,
		    const struct gopclntab_str *names, unsigned n, void *arg)
{
	struct elf_symtab *t = arg;

	if (end - start > UINT32_MAX || t->nchain + n >= UINT32_MAX ||
	    t->inl_pool_len >= UINT32_MAX / 2)
		return;
	/* functions come in order of entry, their ranges in order */
	if (t->ninl &&
	    start < t->inl[t->ninl - 1].addr + t->inl[t->ninl - 1].size)
		return;
	t->inl = grow_array(t->inl, &t->inl_cap, t->ninl + 1, sizeof(*t->inl));
	t->inl[t->ninl++] = (struct einl){start, end - start, n, t->nchain};
	t->inl_chain = grow_array(t->inl_chain, &t->chain_cap, t->nchain + n,
				  sizeof(*t->inl_chain));
	for (unsigned i = 0; i < n; i++)
		t->inl_chain[t->nchain++] = inl_name(t, &names[i]);
}

/* The inline trees of the table g: funcdata from go:func.* (symbol, or
 * moduledata), or (Go 1.16, 1.17) pointers into the table's segment. */
static void read_go_inline(struct elf_symtab *t, Elf *elf,
			   const struct gotab *g)
{
	struct gopclntab_funcdata fd = {0};
	long n;

	fd.gofunc = gofunc_symbol(elf);
	if (fd.gofunc)
		verbose("go:func.* at %#llx, from the symbol table",
			(unsigned long long)fd.gofunc);
	else if ((fd.gofunc = gofunc_scan(t, elf, g)))
		verbose("go:func.* at %#llx, from the runtime's moduledata",
			(unsigned long long)fd.gofunc);
	if (!segment_at(elf, fd.gofunc ? fd.gofunc : g->vaddr, &fd))
		return;
	n = gopclntab_each_inline(g->p, g->len, g->text, t->msb, &fd, inl_add,
				  t);
	u64map_free(&t->inl_names);
	if (n <= 0 || !t->ninl)
		return;
	/* kept as long as the file is: no spare capacity */
	t->inl = xrealloc(t->inl, t->ninl * sizeof(*t->inl));
	t->inl_chain =
		xrealloc(t->inl_chain, t->nchain * sizeof(*t->inl_chain));
	t->inl_pool = xrealloc(t->inl_pool, t->inl_pool_len);
	t->inl_cap = t->ninl;
	t->chain_cap = t->nchain;
	t->inl_pool_cap = t->inl_pool_len;
	verbose("%ld stretches of inlined Go code", n);
}

/* ---- the table ---- */

static int load_symbols(struct elf_symtab *t, Elf *elf, const char *path,
			const char *root)
{
	Elf_Scn *scn = find_scn_type(elf, SHT_SYMTAB);

	struct gotab g;

	if (scn) {
		/* named by .symtab; inlined calls only Go's table knows */
		if (gopclntab_section(elf, &g))
			read_go_inline(t, elf, &g);
		return read_syms(t, elf, scn);
	}
	if (try_build_id(t, root) || try_debuglink(t, elf, path, root))
		return 0;
	/* a stripped Go binary still names every function (cgo's C ones
	 * are in .dynsym) */
	if (read_gopclntab(t, elf, &g))
		read_go_inline(t, elf, &g);
	scn = find_scn_type(elf, SHT_DYNSYM);
	return scn ? read_syms(t, elf, scn) : 0;
}

struct elf_symtab *elf_symtab_open(const char *path, const char *root)
{
	struct elf_symtab *t;
	struct efile ef;
	GElf_Ehdr eh;

	if (!root)
		root = "";
	if (!efile_open(&ef, root, path))
		return NULL;
	t = xzalloc(sizeof(*t));
	if (!gelf_getehdr(ef.elf, &eh) || read_loads(t, ef.elf) < 0)
		goto bad;
	t->machine = eh.e_machine;
	t->msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	read_build_id(ef.elf, t->build_id);
	if (load_symbols(t, ef.elf, path, root) < 0)
		goto bad;
	efile_close(&ef);
	esym_finish(t);
	return t;
bad:
	efile_close(&ef);
	elf_symtab_free(t);
	errno = ENOEXEC;
	return NULL;
}

const char *elf_symtab_lookup(const struct elf_symtab *t, uint64_t vaddr,
			      uint64_t *offset)
{
	size_t lo = 0, hi = t ? t->n : 0, mid, i;
	const struct esym *e;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a nested symbol may end before the function around it */
	for (i = lo; i > 0 && lo - i < ELF_NEST_MAX; i--) {
		e = &t->syms[i - 1];
		if (vaddr - e->addr < e->size) {
			if (offset)
				*offset = vaddr - e->addr;
			return t->pool + e->name;
		}
	}
	return NULL;
}

unsigned elf_symtab_inlined(const struct elf_symtab *t, uint64_t vaddr,
			    const char **names, unsigned max)
{
	size_t lo = 0, hi = t ? t->ninl : 0, mid;
	const struct einl *e;
	unsigned n;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->inl[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr - t->inl[lo - 1].addr >= t->inl[lo - 1].size)
		return 0;
	e = &t->inl[lo - 1];
	for (n = 0; n < e->n && n < max; n++)
		names[n] = t->inl_pool + t->inl_chain[e->chain + n];
	return n;
}

const char *elf_symtab_build_id(const struct elf_symtab *t)
{
	return t->build_id;
}

unsigned elf_symtab_machine(const struct elf_symtab *t)
{
	return t->machine;
}

/*
 * A mapping starts at a page boundary, so its first page may hold file
 * bytes before the segment's own p_offset: those belong to the segment
 * too, at the same load bias.
 */
uint64_t elf_symtab_offset_to_vaddr(const struct elf_symtab *t, uint64_t off)
{
	const struct eload *l;
	uint64_t start, align;
	size_t i;

	for (i = 0; i < t->nloads; i++) {
		l = &t->loads[i];
		if (off >= l->off && off - l->off < l->filesz)
			return off - l->off + l->vaddr;
	}
	for (i = 0; i < t->nloads; i++) {
		l = &t->loads[i];
		align = l->align && !(l->align & (l->align - 1)) ? l->align
								 : 4096;
		start = l->off & ~(align - 1);
		if (off >= start && off < l->off + l->filesz)
			return off - l->off + l->vaddr;
	}
	/* no program headers (a relocatable or debug-only file) */
	return off;
}

size_t elf_symtab_bytes(const struct elf_symtab *t)
{
	return sizeof(*t) + t->n * sizeof(*t->syms) + t->pool_len +
	       t->nloads * sizeof(*t->loads) + t->inl_cap * sizeof(*t->inl) +
	       t->chain_cap * sizeof(*t->inl_chain) + t->inl_pool_cap;
}

void elf_symtab_free(struct elf_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->pool);
	free(t->raw);
	free(t->rpool);
	free(t->loads);
	free(t->inl);
	free(t->inl_chain);
	free(t->inl_pool);
	u64map_free(&t->inl_names);
	free(t);
}
