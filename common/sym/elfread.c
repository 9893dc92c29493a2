// SPDX-License-Identifier: GPL-2.0
/*
 * Reading one ELF file for its symbols (elfsyms_build.h): opened safely,
 * its sections found, its function symbols added to a table being built,
 * its build-id. elfsyms.c and the files that add symbols from elsewhere
 * (debugfile.c, gosyms.c, minidebuginfo.c) all read through here.
 *
 * Files come from untrusted places (/proc/PID/root of a container), so a
 * header is never believed over the file size.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms_build.h"
#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"

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

bool elf_is_function(const GElf_Sym *s)
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
		if (!gelf_getsym(data, i, &s) || !elf_is_function(&s))
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && *name)
			esym_add(t, elf, &s, name, sh.sh_type == SHT_DYNSYM);
	}
	return 0;
}

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
