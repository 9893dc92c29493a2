/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sb_execs, BPF's note of when each process last exec'd (collect.bpf.h):
 * user space asks it whether mappings it holds for a process, read or
 * inherited at some time, may be an older image's.
 */
#ifndef STACKBOX_EXECS_H
#define STACKBOX_EXECS_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

/* tgid exec'd at or after since (CLOCK_MONOTONIC ns), by the sb_execs
 * map execs_fd. */
bool execd_since(int execs_fd, pid_t tgid, __u64 since);

#endif
