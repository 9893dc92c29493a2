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
 *
 * Separate debug files are found in debugfile.c, Go's own table read in
 * gosyms.c; elfsyms_build.h is what they share with this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "elfsyms_build.h"
#include "minidebuginfo.h"
#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"

/* How far back a lookup walks for a symbol that encloses a nested one. */
#define ELF_NEST_MAX 4

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
bool elf_headers_fit(Elf *elf, uint64_t len)
{
	size_t i, shnum, phnum;
	GElf_Ehdr eh;
	GElf_Phdr ph;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) ||
	    elf_getphdrnum(elf, &phnum))
		return false;
	/* libelf counts no sections when it could not read their headers */
	if (shnum < eh.e_shnum)
		shnum = eh.e_shnum;
	if (!shnum && eh.e_shoff)
		shnum = 1;
	if ((shnum && !fits(eh.e_shoff, shnum, eh.e_shentsize, len)) ||
	    (phnum && !fits(eh.e_phoff, phnum, eh.e_phentsize, len)))
		return false;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return false;
		if (ph.p_type == PT_LOAD &&
		    !fits(ph.p_offset, ph.p_filesz, 1, len))
			return false;
	}
	return true;
}

static bool efile_sane(struct efile *ef)
{
	struct stat st;

	return !fstat(ef->fd, &st) && elf_headers_fit(ef->elf, st.st_size);
}

/*
 * path inside root (rootfs_open). Read, not mapped: a file that a
 * container truncates under a mapping would kill us with SIGBUS, and
 * libelf reads only the headers and the sections asked for.
 */
bool efile_open(struct efile *ef, const char *root, const char *path)
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

void efile_close(struct efile *ef)
{
	if (!ef->elf)
		return;
	elf_end(ef->elf);
	close(ef->fd);
	ef->elf = NULL;
}

/* The first section of a type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
Elf_Scn *find_scn_type(Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

Elf_Scn *find_scn_name(Elf *elf, const char *name)
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
struct eraw *eraw_add(struct elf_symtab *t, uint64_t addr, uint64_t end,
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

/*
 * An unsized symbol reaches to the next one, which is right in a full
 * table; .dynsym lists exported functions alone, so there the next
 * symbol may be several static functions away and the unsized one is
 * held to its entry (a stripped binary's classic wrong name).
 */
static void esym_add(struct elf_symtab *t, Elf *elf, const GElf_Sym *s,
		     const char *name, bool partial)
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
	if (!end && partial)
		end = s->st_value + 1;
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
bool sym_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data **data,
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
int read_syms(struct elf_symtab *t, Elf *elf, Elf_Scn *scn)
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
			esym_add(t, elf, &s, name, sh.sh_type == SHT_DYNSYM);
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
void read_build_id(Elf *elf, char *out)
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

/* ---- the table ---- */

static int load_symbols(struct elf_symtab *t, Elf *elf, const char *path,
			const char *root)
{
	Elf_Scn *scn = find_scn_type(elf, SHT_SYMTAB);

	if (scn) {
		/* named by .symtab; inlined calls only Go's table knows */
		gosyms_inline(t, elf);
		return read_syms(t, elf, scn);
	}
	t->names = ELF_NAMES_DEBUG_FILE;
	if (debugfile_symbols(t, elf, path, root))
		return 0;
	/* MiniDebugInfo has the functions .dynsym does not: both are read */
	t->names = ELF_NAMES_MINIDEBUGINFO;
	if (!minidebuginfo_symbols(t, elf))
		t->names = ELF_NAMES_DYNSYM;
	/* a stripped Go binary still names every function (cgo's C ones
	 * are in .dynsym) */
	if (gosyms_read(t, elf))
		t->names = ELF_NAMES_GO;
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

const char *elf_symtab_build_id(const struct elf_symtab *t)
{
	return t->build_id;
}

enum elf_names elf_symtab_names(const struct elf_symtab *t)
{
	return t->names;
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

void elf_symtab_use_loads(struct elf_symtab *t, const struct elf_symtab *from)
{
	free(t->loads);
	t->nloads = from->nloads;
	t->loads = xmalloc((from->nloads + 1) * sizeof(*t->loads));
	memcpy(t->loads, from->loads, from->nloads * sizeof(*t->loads));
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
