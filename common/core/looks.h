/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Later looks at a new image's mappings. A process read at its exec
 * maps the program and the dynamic loader, which maps the libraries
 * next: what was read then names none of their code, and --unwind auto
 * chose the process's walk without them. A frame-pointer program would
 * keep the frame-pointer walk through an -O2 library, and BPF, meeting
 * no code outside the mappings on that walk, would never ask again. So
 * a process given that walk by a read within LOOK_SETTLE_NS of a change
 * of its code (its exec, or the loader mapping a library) is read again
 * that long after, again as long after while each read finds its
 * mappings changed (the loader still at work: a long library path, slow
 * flash, a loaded machine), then 4 and 16 times as long after reads
 * that find them the same, until a read gives it the tables: BPF asks
 * for what it lacks then. A file's code it maps later, after a quiet
 * while (a loader slower than the looks, a dlopen), starts them again:
 * BPF says so (SB_EV_CODE_MAPPED). Its forks copied meanwhile take its
 * mappings again after each of its reads, where they are still good for
 * them, else read their own.
 */
#ifndef STACKBOX_LOOKS_H
#define STACKBOX_LOOKS_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "stackbox.h"

#define LOOK_SETTLE_NS	(20 * 1000 * 1000ULL)
#define LOOK_SAME_READS 3   /* reads that find the mappings the same */
#define LOOK_MAX	250 /* reads in all: 5 s of a loader at work */

struct looks;

/* What a look found */
enum look_found {
	LOOK_DONE,    /* no more looks: the tables walk it, or it is gone */
	LOOK_CHANGED, /* its mappings changed since the last read */
	LOOK_SAME,
};

/* read: tgid's mappings again, or for a fork copied from parent (not 0)
 * at forked_at, the parent's again */
typedef enum look_found (*look_read_fn)(void *ctx, pid_t tgid, pid_t parent,
					__u64 forked_at);

#if ENABLE_UNWIND_EH_FRAME
struct looks *looks_new(int changes_fd, look_read_fn read, void *ctx);
void looks_free(struct looks *l);
/* tgid's mappings were read, on an event that came at now, and need
 * another look if it changed its code just before (its exec, or the
 * loader's mappings since) */
void looks_read(struct looks *l, pid_t tgid, __u64 now);
/* tgid, walked by frame pointers, maps a file's code after a quiet
 * while (SB_EV_CODE_MAPPED: a slow loader, a dlopen): looks start
 * again, unless some are under way */
void looks_code_mapped(struct looks *l, pid_t tgid, __u64 now);
/* tgid is a fork given parent's mappings: looked at just after parent */
void looks_inherit(struct looks *l, pid_t tgid, pid_t parent, __u64 forked_at);
/* tgid is gone */
void looks_forget(struct looks *l, pid_t tgid);
/* The looks due by now, taken: the time of the next, 0 for none. */
__u64 looks_run(struct looks *l, __u64 now);

#else /* no walk to choose again: nothing to look for */
static inline struct looks *looks_new(int changes_fd, look_read_fn read,
				      void *ctx)
{
	return NULL;
}
static inline void looks_free(struct looks *l)
{
}
static inline void looks_read(struct looks *l, pid_t tgid, __u64 now)
{
}
static inline void looks_code_mapped(struct looks *l, pid_t tgid, __u64 now)
{
}
static inline void looks_inherit(struct looks *l, pid_t tgid, pid_t parent,
				 __u64 forked_at)
{
}
static inline void looks_forget(struct looks *l, pid_t tgid)
{
}
static inline __u64 looks_run(struct looks *l, __u64 now)
{
	return 0;
}
#endif
#endif
