/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sb_code_changes, BPF's note of when each process last changed its
 * code: an exec, or an executable mapping made or moved (collect.bpf.h):
 * user space asks it whether mappings it holds for a process, read or
 * inherited at some time, may no longer be its code's.
 */
#ifndef STACKBOX_CODE_CHANGES_H
#define STACKBOX_CODE_CHANGES_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

/* tgid changed its code at or after since (CLOCK_MONOTONIC ns), by the
 * sb_code_changes map changes_fd. */
bool code_changed_since(int changes_fd, pid_t tgid, __u64 since);

#endif
