// SPDX-License-Identifier: GPL-2.0
/*
 * Go's own function table (.gopclntab, gopclntab.c parses it) as an ELF
 * file's symbols: names for a stripped Go binary, and the calls Go
 * inlined, stripped or not.
 */
#include <stdlib.h>
#include <string.h>

#include "elfsyms_build.h"
#include "gopclntab.h"
#include "stackbox.h"
#include "syms.h"

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

void gosyms_inline(struct elf_symtab *t, Elf *elf)
{
	struct gotab g;

	if (gopclntab_section(elf, &g))
		read_go_inline(t, elf, &g);
}

bool gosyms_read(struct elf_symtab *t, Elf *elf)
{
	struct gotab g;

	if (!read_gopclntab(t, elf, &g))
		return false;
	read_go_inline(t, elf, &g);
	return true;
}
