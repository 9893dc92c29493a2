// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF objects are embedded gzip-compressed (scripts/skel-zip.sh);
 * a skeleton asks for its object here when it is opened. libbpf reads
 * the object until it is loaded, so the copy is kept until the next
 * skeleton is opened or sb_elf_release() says the load is done.
 */
#include <stdlib.h>
#include <zlib.h>

#include "collect.h"

static void *elf_copy;

void sb_elf_release(void)
{
	free(elf_copy);
	elf_copy = NULL;
}

const void *sb_elf_inflate(const unsigned char *gz, size_t len, size_t size,
			   size_t *sz)
{
	z_stream z = {0};
	int ret;

	sb_elf_release();
	elf_copy = xmalloc(size);
	z.next_in = (unsigned char *)gz;
	z.avail_in = len;
	z.next_out = elf_copy;
	z.avail_out = size;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		error_exit("zlib: cannot inflate the BPF object");
	ret = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (ret != Z_STREAM_END || z.total_out != size)
		error_exit("the embedded BPF object is damaged (zlib: %d)",
			   ret);
	*sz = size;
	return elf_copy;
}
