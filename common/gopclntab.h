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

#endif
