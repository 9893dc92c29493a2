/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel symbols a bin stream recorded (address, name pairs, in the
 * order they came) as a lookup table of exactly those addresses. Each
 * time the dictionary grows only the new pairs are added (bin_replay.c).
 */
#ifndef STACKBOX_BIN_KSYMS_H
#define STACKBOX_BIN_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct bin_ksyms;
struct ksyms;

struct bin_ksyms *bin_ksyms_new(void);
/* The table of the n pairs; those before the last call's n may be the
 * same as then (a grown dictionary) or not (a new one). It reads k: it
 * serves until the next call on k or its free. */
struct ksyms *bin_ksyms_build(struct bin_ksyms *k, const uint64_t *addr,
			      const char *const *name, size_t n);
void bin_ksyms_free(struct bin_ksyms *k);

#endif
