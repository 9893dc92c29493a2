/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Go's own function table (.gopclntab), which every Go binary keeps,
 * stripped (-ldflags=-s -w) or not: the runtime needs it for tracebacks
 * and the garbage collector. Read from a buffer; nothing here trusts a
 * count or an offset the buffer gives.
 */
#ifndef STACKBOX_GOPCLNTAB_H
#define STACKBOX_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The magic numbers by format: Go 1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+ */
#define GOPCLNTAB_MAGIC_12  0xfffffffbu
#define GOPCLNTAB_MAGIC_116 0xfffffffau
#define GOPCLNTAB_MAGIC_118 0xfffffff0u
#define GOPCLNTAB_MAGIC_120 0xfffffff1u

/* One function: [entry, end) in the file's virtual addresses, its name
 * (name_len bytes, not NUL-terminated in the buffer's own memory). */
typedef void (*gopclntab_fn)(uint64_t entry, uint64_t end, const char *name,
			     size_t name_len, void *arg);

/* Does the header at p (len bytes) look like a table we read: known
 * magic, two zero bytes, pc quantum 1, 2 or 4, pointer size 4 or 8.
 * msb: the file is big-endian. */
bool gopclntab_header(const uint8_t *p, size_t len, bool msb);

/*
 * fn for each function of the table at data (len bytes: the section, or
 * what follows a header found by scanning). text is the address of .text
 * when known, else 0: Go 1.18+ stores entries relative to runtime.text,
 * which its header gives, and which is .text's start where the header
 * says 0 (left to a relocation). Functions whose
 * records fall outside the buffer, or are out of order, are skipped.
 * Returns how many were given, or -1 when the header is not one we read
 * or its table does not fit.
 */
long gopclntab_each(const uint8_t *data, size_t len, uint64_t text, bool msb,
		    gopclntab_fn fn, void *arg);

/* The offset of the first table in buf (a read-only segment of a file
 * without section headers), at pointer alignment, whose header and
 * function table parse; -1 when there is none. */
long gopclntab_find(const uint8_t *buf, size_t len, bool msb);

/* ---- inline trees (Go 1.16+) ---- */

/* The deepest chain of inlined calls given for one pc. */
#define GOPCLNTAB_INLINE_MAX 16

struct gopclntab_str {
	const char *p; /* in the table's buffer, not NUL-terminated */
	size_t len;
};

/* Where the inline trees are: the bytes of the segment holding them (a
 * file's PT_LOAD), at virtual address vaddr. gofunc is
 * moduledata.gofunc (the go:func.* symbol), which Go 1.18+ funcdata
 * offsets are from; 0 when unknown (then 1.18+ trees are not read). */
struct gopclntab_funcdata {
	const uint8_t *p;
	size_t len;
	uint64_t vaddr, gofunc;
};

/* [start, end) runs n functions inlined into the function holding it:
 * names[0] the innermost, names[n - 1] the one called by that
 * function itself. */
typedef void (*gopclntab_inline_fn)(uint64_t start, uint64_t end,
				    const struct gopclntab_str *names,
				    unsigned n, void *arg);

/* fn for each stretch of inlined code in the table (as for
 * gopclntab_each). Ranges of one function are in order and do not
 * overlap; chains that leave the buffers or loop are skipped. Returns
 * how many were given, or -1 when the table is not one we read (Go
 * 1.2-1.15 included). */
long gopclntab_each_inline(const uint8_t *data, size_t len, uint64_t text,
			   bool msb, const struct gopclntab_funcdata *fd,
			   gopclntab_inline_fn fn, void *arg);

/* moduledata.gofunc for a Go 1.18+ table at tab_vaddr (tab_len bytes
 * at tab), found in seg (a data segment of the same file) as the
 * runtime's moduledata, whose first words point at the table and its
 * parts; 0 when there is none. */
uint64_t gopclntab_gofunc(const uint8_t *seg, size_t seg_len,
			  const uint8_t *tab, size_t tab_len,
			  uint64_t tab_vaddr, bool msb);

#endif
