// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF symbol reader (common/sym/elfsyms.c): any
 * file must give no crash, no overrun and no leak (ASan, UBSan). Every
 * answer it gives is asked for: symbols at a spread of addresses, the
 * build-id, the machine, offsets to vaddrs. Debuglinks are looked for
 * beside /proc/self/fd/N, where nothing matches.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_file.h"
#include "syms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile size_t sink;
	const char *path = fuzz_file(data, len);
	struct elf_symtab *t = path ? elf_symtab_open(path, "") : NULL;
	uint64_t off;

	if (!t)
		return 0;
	sink += elf_symtab_machine(t) + strlen(elf_symtab_build_id(t));
	for (uint64_t a = 0; a < 0x600000; a = a * 2 + 0x1000) {
		const char *s = elf_symtab_lookup(t, a, &off);

		sink += s ? strlen(s) + off : 0;
		sink += elf_symtab_offset_to_vaddr(t, a);
	}
	elf_symtab_free(t);
	return 0;
}
