// SPDX-License-Identifier: GPL-2.0
/*
 * .gnu_debugdata (MiniDebugInfo): decompressed in memory (liblzma), opened
 * as an ELF image, its .symtab read into the table like any other. The
 * image is freed at once: only the names and ranges are kept.
 *
 * The section comes from an untrusted file: the decoder's memory and the
 * decompressed size are bounded, and the embedded ELF's headers are
 * checked against its size as a file's are.
 */
#include <lzma.h>
#include <stdlib.h>

#include "minidebuginfo.h"
#include "stackbox.h"

/* xz -9 needs 65 MiB to decode; images use the default (-6: 9 MiB). */
#define MDI_DECODER_MEM (80ULL << 20)
/* Function symbols only: a 100 MB library's are a few MB. */
#define MDI_OUT_MAX (64ULL << 20)

/* The decompressed bytes of an xz stream, or NULL; *len their count. */
static unsigned char *unxz(const void *in, size_t in_len, size_t *len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t cap = 0;
	lzma_ret r;

	if (lzma_stream_decoder(&s, MDI_DECODER_MEM, 0) != LZMA_OK)
		return NULL;
	s.next_in = in;
	s.avail_in = in_len;
	do {
		if (!s.avail_out) {
			if (cap >= MDI_OUT_MAX)
				break;
			out = grow_array(out, &cap, cap ? cap * 2 : in_len * 4,
					 1);
			s.next_out = out + s.total_out;
			s.avail_out = cap - s.total_out;
		}
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	*len = s.total_out;
	lzma_end(&s);
	if (r == LZMA_STREAM_END)
		return out;
	verbose(".gnu_debugdata: not an xz stream liblzma decodes (%d%s)",
		(int)r, r == LZMA_OK ? ": over 64 MiB" : "");
	free(out);
	return NULL;
}

static bool read_image(struct elf_symtab *t, unsigned char *image, size_t len)
{
	Elf *mini = elf_memory((char *)image, len);
	Elf_Scn *scn;
	bool ok = false;

	if (mini && elf_kind(mini) == ELF_K_ELF && elf_headers_fit(mini, len) &&
	    (scn = find_scn_type(mini, SHT_SYMTAB)))
		ok = !read_syms(t, mini, scn);
	else
		verbose(".gnu_debugdata: no ELF symbol table in it");
	elf_end(mini);
	return ok;
}

bool minidebuginfo_symbols(struct elf_symtab *t, Elf *elf)
{
	Elf_Scn *scn = find_scn_name(elf, ".gnu_debugdata");
	Elf_Data *data = scn ? elf_rawdata(scn, NULL) : NULL;
	unsigned char *image;
	size_t len, before = t->nraw;
	bool ok;

	if (!data || !data->d_buf || !data->d_size)
		return false;
	image = unxz(data->d_buf, data->d_size, &len);
	if (!image)
		return false;
	ok = read_image(t, image, len);
	free(image);
	if (ok)
		verbose("%zu functions from .gnu_debugdata", t->nraw - before);
	return ok;
}
