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
		if (!gelf_getsym(data, i, &s) || !elf_is_function(&s) ||
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
