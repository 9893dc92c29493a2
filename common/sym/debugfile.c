// SPDX-License-Identifier: GPL-2.0
/*
 * Separate debug files of a stripped ELF file, as gdb finds them: by
 * build-id under ROOT/usr/lib/debug/.build-id/, then by .gnu_debuglink
 * (a name and a CRC32) next to the file, in its .debug/ and under
 * ROOT/usr/lib/debug/DIR/. Only a file proved to be the same build
 * (build-id or CRC) is used.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "elfsyms_build.h"
#include "rootfs.h"
#include "stackbox.h"

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

bool debugfile_symbols(struct elf_symtab *t, Elf *elf, const char *path,
		       const char *root)
{
	return try_build_id(t, root) || try_debuglink(t, elf, path, root);
}
