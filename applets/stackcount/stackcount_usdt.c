// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes (sys/sdt.h) of an ELF file: each is a note in
 * .note.stapsdt (owner "stapsdt", type 3) that gives the probe's
 * address, the .stapsdt.base address the file was linked with, its
 * semaphore's address (0: none), then "provider\0name\0arguments\0".
 * A uprobe goes at the address's file offset; the semaphore's file
 * offset is the uprobe's reference counter, which the kernel raises in
 * every process the probe is attached in, so code guarded by it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbox.h"
#include "stackcount_common.h"

#define STAPSDT_TYPE 3

/* The file offset of vaddr in a loaded segment (executable ones only
 * when exec), or 0. */
static uint64_t file_offset(Elf *elf, uint64_t vaddr, bool exec)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (!exec || ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_memsz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	return 0;
}

/* The address .stapsdt.base has in this file, and the note section. */
static Elf_Scn *notes_section(Elf *elf, uint64_t *base)
{
	Elf_Scn *scn = NULL, *notes = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*base = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".stapsdt.base"))
			*base = sh.sh_addr;
		else if (!strcmp(name, ".note.stapsdt") &&
			 sh.sh_type == SHT_NOTE)
			notes = scn;
	}
	return notes;
}

/* One note's description: three addresses of the file's word size,
 * then three strings. */
static bool note_probe(Elf *elf, const char *desc, size_t len, uint64_t base,
		       struct usdt_probe *p)
{
	size_t w = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	uint64_t a[3] = {0};
	const char *s = desc + 3 * w, *end = desc + len;

	if (len < 3 * w + 3)
		return false;
	for (int i = 0; i < 3; i++)
		memcpy(&a[i], desc + i * w, w); /* the host's byte order */
	p->provider = s;
	s += strnlen(s, end - s) + 1;
	p->name = s < end ? s : "";
	s += strnlen(p->name, end - s) + 1;
	p->args = s < end ? s : "";
	/* prelinked: the probe moved with .stapsdt.base */
	if (base && a[1])
		a[0] += base - a[1];
	p->off = file_offset(elf, a[0], true);
	p->sema_off = a[2] ? file_offset(elf, a[2], false) : 0;
	return p->off != 0;
}

int usdt_each(const char *path, usdt_fn fn, void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	uint64_t base;
	Elf_Data *data;
	Elf_Scn *scn;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	scn = notes_section(elf, &base);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	for (size_t off = 0, name_off, desc_off; data;) {
		GElf_Nhdr nh;
		struct usdt_probe p;

		off = gelf_getnote(data, off, &nh, &name_off, &desc_off);
		if (!off)
			break;
		if (nh.n_type != STAPSDT_TYPE || nh.n_namesz != 8 ||
		    memcmp((char *)data->d_buf + name_off, "stapsdt", 8) ||
		    !note_probe(elf, (char *)data->d_buf + desc_off,
				nh.n_descsz, base, &p))
			continue;
		fn(&p, arg);
		n++;
	}
	elf_end(elf);
	close(fd);
	return n;
}
