/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind eh_frame, the user-space half: call frame tables from the
 * profiled programs' files into the BPF maps bpf/unwind.bpf.h walks.
 * Tables are per file (dev, inode), shared by every process mapping it,
 * loaded when a process is named (-p, -- CMD) or first sampled, within a
 * fixed budget of rows; a file that does not fit is walked by frame
 * pointer, and the snapshot header says how many.
 */
#ifndef STACKBOX_UNWIND_H
#define STACKBOX_UNWIND_H

#include <linux/types.h>
#include <stddef.h>
#include <sys/types.h>

#include "sb.h"
#include "stackbox.h"

struct bpf_object;
struct unwind;

#if ENABLE_UNWIND_EH_FRAME

/* What this kernel lacks for --unwind eh_frame (one phrase: the feature
 * and the version or option it comes with), NULL when nothing. */
const char *unwind_missing(void);
/* Before load: choose the mode the kernel supports (saying why when it
 * is not the one asked for), size the maps, fill cfg. NULL: frame
 * pointers. */
struct unwind *unwind_configure(struct bpf_object *obj, struct sb_config *cfg,
				int mode, long long rows);
/* After load: the maps exist. */
void unwind_loaded(struct unwind *u);
/* Tell BPF where tgid's code is, loading the tables of its files:
 * when it is named or first seen, after exec, and when BPF met code
 * outside its known mappings. 1: what BPF had changed; 0: the same;
 * -1: they did not read (it is gone). */
int unwind_process(struct unwind *u, pid_t tgid);
/* tgid is a fork of parent that has not exec'd: parent's mappings. */
void unwind_inherit(struct unwind *u, pid_t tgid, pid_t parent);
/* --unwind auto gave tgid the frame-pointer walk. */
bool unwind_by_frame_pointers(struct unwind *u, pid_t tgid);
/* It is gone. */
void unwind_exit(struct unwind *u, pid_t tgid);
/* One line for the snapshot header (a string a bin stream interns:
 * what changes every interval goes elsewhere). */
void unwind_describe(const struct unwind *u, char *buf, size_t len);
void unwind_free(struct unwind *u);
#else
static inline const char *unwind_missing(void)
{
	return NULL; /* the option is refused with the build's reason */
}
static inline struct unwind *unwind_configure(struct bpf_object *obj,
					      struct sb_config *cfg, int mode,
					      long long rows)
{
	return NULL;
}
static inline void unwind_loaded(struct unwind *u)
{
}
static inline int unwind_process(struct unwind *u, pid_t tgid)
{
	return -1;
}
static inline void unwind_inherit(struct unwind *u, pid_t tgid, pid_t parent)
{
}
static inline bool unwind_by_frame_pointers(struct unwind *u, pid_t tgid)
{
	return false;
}
static inline void unwind_exit(struct unwind *u, pid_t tgid)
{
}
static inline void unwind_describe(const struct unwind *u, char *buf,
				   size_t len)
{
	snprintf(buf, len, "user stacks: frame pointers");
}
static inline void unwind_free(struct unwind *u)
{
}
#endif

#endif
