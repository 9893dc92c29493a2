// SPDX-License-Identifier: GPL-2.0
/* --unwind auto: the walk each file needs (see unwind_choice.h). */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"
#include "unwind_choice.h"

enum file_walk walk_of_rows(const struct cfa_row *rows, size_t n,
			    unsigned long long code, unsigned *fp_pct,
			    unsigned *cfi_pct)
{
	unsigned long long fp = 0, all = 0;

	/* a row covers up to the next; the last one's end is unknown */
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned long long len = rows[i + 1].addr - rows[i].addr;

		if (rows[i].cfa == CFA_NONE || rows[i].cfa == CFA_END)
			continue;
		all += len;
		if (rows[i].cfa == CFA_FP)
			fp += len;
	}
	*fp_pct = all ? fp * 100 / all : 0;
	*cfi_pct = code ? (all < code ? all : code) * 100 / code : 100;
	if (!all)
		return WALK_NONE;
	/* most of its code outside the table: code linked in without CFI
	 * (musl's libc in a static program), whose frames only the table
	 * walk finds again, by their return sites */
	if (all * 2 < code)
		return WALK_TABLE;
	return fp * 2 >= all ? WALK_FP : WALK_TABLE;
}

unsigned long long walk_code_bytes(const char *path)
{
	unsigned long long code = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd = rootfs_open("", path);
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    sh.sh_flags & SHF_EXECINSTR)
			code += sh.sh_size;
	elf_end(elf);
	close(fd);
	return code;
}

bool walk_c_library(const char *name)
{
	static const char *const prefixes[] = {
		"libc.so",   "libc-",  "ld-linux",    "ld-musl",
		"libc.musl", "ld64.",  "libpthread.", "libm.so",
		"libm-",     "libdl.", "librt.",      "libresolv.",
	};
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

struct walk_entry {
	struct sb_unwind_file_key key;
	enum file_walk walk;
};

struct walk_cache {
	struct walk_entry *e;
	size_t n, cap;
};

struct walk_cache *walk_cache_new(void)
{
	return xzalloc(sizeof(struct walk_cache));
}

static enum file_walk read_walk(const char *path, const char *name,
				unsigned machine)
{
	struct cfa_row *rows = NULL;
	unsigned file_machine = 0, fp = 0, cfi = 0;
	enum file_walk w = WALK_NONE;
	size_t n = 0;

	if (!path || ehframe_read(path, true, 0, &rows, &n, &file_machine))
		verbose("unwind: %s: no table (%s): frame pointers", name,
			path ? strerror(errno) : "does not open");
	else if (file_machine != machine)
		verbose("unwind: %s: another machine's code", name);
	else if ((w = walk_of_rows(rows, n, walk_code_bytes(path), &fp,
				   &cfi)) == WALK_FP)
		verbose("unwind: %s: frame pointers (its table covers %u%% "
			"of its code, %u%% of that finds its frame by one)",
			name, cfi, fp);
	else if (w == WALK_TABLE)
		verbose("unwind: %s: its .eh_frame table (it covers %u%% of "
			"its code, %u%% of that finds its frame by a frame "
			"pointer)",
			name, cfi, fp);
	else
		verbose("unwind: %s: an empty table: frame pointers", name);
	free(rows);
	return w;
}

enum file_walk walk_of_file(struct walk_cache *wc,
			    const struct sb_unwind_file_key *key,
			    const struct proc_map *m, unsigned machine)
{
	struct walk_entry *e;

	for (size_t i = 0; i < wc->n; i++)
		if (!memcmp(&wc->e[i].key, key, sizeof(*key)))
			return wc->e[i].walk;
	if (wc->n == wc->cap) {
		wc->cap = wc->cap ? 2 * wc->cap : 64;
		wc->e = xrealloc(wc->e, wc->cap * sizeof(*wc->e));
	}
	e = &wc->e[wc->n++];
	e->key = *key;
	e->walk = read_walk(proc_map_path(m), m->name, machine);
	return e->walk;
}

void walk_cache_free(struct walk_cache *wc)
{
	if (wc)
		free(wc->e);
	free(wc);
}
