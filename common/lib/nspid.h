/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's pid in its own pid namespace: in a container, the pid its
 * own logs and tools use, beside the host's.
 */
#ifndef STACKBOX_NSPID_H
#define STACKBOX_NSPID_H

#include <stdint.h>

/* The last pid of the "NSpid:" line of PROCFS/TGID/status (the innermost
 * namespace's), or 0 when it is tgid itself or cannot be known: the
 * process is gone, or the kernel is older than 4.1. */
uint32_t nspid_read(const char *procfs, uint32_t tgid);

#endif
