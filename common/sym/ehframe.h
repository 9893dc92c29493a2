/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call frame tables of an ELF file (.eh_frame), flattened to one row
 * per address range: where the canonical frame address (CFA) is, and
 * where the caller's frame pointer and return address were saved. This is
 * all an unwinder needs for code compiled without frame pointers.
 */
#ifndef STACKBOX_EHFRAME_H
#define STACKBOX_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cfa_kind {
	CFA_NONE,  /* no table covers these addresses */
	CFA_SP,	   /* CFA = stack pointer + cfa_off */
	CFA_FP,	   /* CFA = frame pointer + cfa_off */
	CFA_OTHER, /* an expression or another register: not followed */
	CFA_END,   /* the return address is undefined: the outermost frame */
};

enum saved_kind {
	SAVED_NONE,  /* not saved: the register still holds the value */
	SAVED_AT,    /* at CFA + off */
	SAVED_OTHER, /* somewhere an unwinder does not follow */
};

struct cfa_row {
	uint64_t addr; /* first file vaddr the row covers, up to the next */
	uint8_t cfa, fp, ra; /* enum cfa_kind, enum saved_kind x 2 */
	int32_t cfa_off, fp_off, ra_off;
};

/*
 * Rows sorted by addr, without repeats, for the ELF file at path: addr
 * is a vaddr, or with file_offsets the file offset of that vaddr (as a
 * mapping of the file sees it). *machine is its e_machine (only
 * EM_X86_64 and EM_AARCH64 are read). max_rows, when not 0, skips a
 * table too big to give fewer rows without reading it. 0, or -1 with
 * errno (ENOENT: the file has no .eh_frame; ENOEXEC: not ELF, or a table
 * that does not parse; EFBIG: more than max_rows).
 */
int ehframe_read(const char *path, bool file_offsets, size_t max_rows,
		 struct cfa_row **rows, size_t *n, unsigned *machine);

#endif
