/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building one ELF file's symbol table (struct elf_symtab, syms.h):
 * elfread.c reads a file into it for elfsyms.c and for the files that
 * add symbols from elsewhere (debugfile.c: separate debug files;
 * gosyms.c: Go's pclntab; minidebuginfo.c). Not for use outside them:
 * the table's users see syms.h alone.
 */
#ifndef STACKBOX_ELFSYMS_BUILD_H
#define STACKBOX_ELFSYMS_BUILD_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "u64map.h"

#define BUILD_ID_MAX 64 /* bytes; GNU ld writes 20 */

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
	uint8_t names;	  /* enum elf_names */
};

/* An Elf handle and the descriptor under it, closed together. */
struct efile {
	int fd;
	Elf *elf;
};

/* path inside root (rootfs_open), checked against its size; false with
 * errno when unreadable or not ELF. */
bool efile_open(struct efile *ef, const char *root, const char *path);
void efile_close(struct efile *ef);
/* Do the ELF's headers describe a file of at most len bytes? */
bool elf_headers_fit(Elf *elf, uint64_t len);
/* The first section of a type (SHT_SYMTAB, SHT_DYNSYM) or name, or NULL. */
Elf_Scn *find_scn_type(Elf *elf, uint32_t type);
Elf_Scn *find_scn_name(Elf *elf, const char *name);
/* A symbol section's header, data and count; false when unreadable. */
bool sym_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data **data,
		 size_t *n);
/* A defined function (or ifunc) with an address. */
bool elf_is_function(const GElf_Sym *s);
/* Add the functions of a symbol section; -1 when it cannot be read. */
int read_syms(struct elf_symtab *t, Elf *elf, Elf_Scn *scn);
/* Add a function while loading: name is len bytes, not NUL-terminated;
 * lower rank wins an alias tie. NULL when the pool is full. */
struct eraw *eraw_add(struct elf_symtab *t, uint64_t addr, uint64_t end,
		      const char *name, size_t len, uint32_t rank);
/* The hex build-id into out (2 * BUILD_ID_MAX + 1), "" when none. */
void read_build_id(Elf *elf, char *out);

/* debugfile.c: symbols from the separate debug file of the file at path
 * (build-id, then .gnu_debuglink); true when one was used. */
bool debugfile_symbols(struct elf_symtab *t, Elf *elf, const char *path,
		       const char *root);

/* gosyms.c: Go's inline trees, for a file named by .symtab. */
void gosyms_inline(struct elf_symtab *t, Elf *elf);
/* gosyms.c: function names and inline trees from Go's table, for a file
 * without .symtab; false (nothing read) when it is not Go. */
bool gosyms_read(struct elf_symtab *t, Elf *elf);

#endif
