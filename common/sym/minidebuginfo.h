/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MiniDebugInfo: the function symbols a stripped file carries in
 * .gnu_debugdata, an xz-compressed ELF file holding a .symtab (Yocto's
 * minidebuginfo distro feature, Fedora's default). Kconfig
 * MINIDEBUGINFO; without it, nothing is read.
 */
#ifndef STACKBOX_MINIDEBUGINFO_H
#define STACKBOX_MINIDEBUGINFO_H

#include <stdbool.h>

#include "elfsyms_build.h"
#include "stackbox.h"

#if ENABLE_MINIDEBUGINFO
/* Add the functions of elf's .gnu_debugdata to t; true when it had some.
 * A section that does not decompress, or is not ELF, is said under -v. */
bool minidebuginfo_symbols(struct elf_symtab *t, Elf *elf);
#else
static inline bool minidebuginfo_symbols(struct elf_symtab *t, Elf *elf)
{
	return false;
}
#endif

#endif
