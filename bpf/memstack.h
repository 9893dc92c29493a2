/* SPDX-License-Identifier: GPL-2.0 */
/* memstack: shared by memstack.bpf.c and applets/memstack.c. */
#ifndef STACKBOX_MEMSTACK_H
#define STACKBOX_MEMSTACK_H

#include "sb.h"

enum memstack_mode {
	MS_MODE_USER,	/* the allocator's functions (uprobes) */
	MS_MODE_MMAP,	/* mmap, munmap, brk (syscalls) */
	MS_MODE_FAULTS, /* user page faults (perf software event) */
	MS_MODE_KERNEL, /* kmem tracepoints */
	MS_MODE_ALLOC,	/* the allocator's functions but free: counted
			 * per interval (sb_count), no records */
};

/* What a thread is in the middle of (the entry of a call whose return
 * is still to come), and which entry program a function gets. */
enum ms_kind {
	MS_MALLOC,	   /* (size) */
	MS_CALLOC,	   /* (nmemb, size) */
	MS_REALLOC,	   /* (ptr, size) */
	MS_REALLOCARRAY,   /* (ptr, nmemb, size) */
	MS_POSIX_MEMALIGN, /* (&ptr, align, size), 0 on success */
	MS_MEMALIGN,	   /* (align, size): memalign, aligned_alloc */
	MS_VALLOC,	   /* (size) */
	MS_PVALLOC,	   /* (size), rounded up to pages */
	MS_FREE,	   /* (ptr) */
	MS_NKINDS,
	MS_MMAP = MS_NKINDS /* mmap's syscall, between entry and exit */
};

/* One allocation still held: keyed by process incarnation and address.
 * gen tells a process from one that had its pid before (or its image
 * before exec). Kernel mode: tgid 0, gen 0 for slab objects, 1 for
 * pages (addr is the pfn). */
struct ms_alloc_key {
	__u32 tgid;
	__u32 gen;
	__u64 addr;
};
#define MS_BRK_SEGMENT (1ULL << 63) /* addr: the end of a brk growth */

/* The session program calls the kfuncs bpf_session_is_return() and
 * bpf_session_cookie() as these helper numbers, which user space turns
 * into kfunc calls before loading it (uprobe_session_kfuncs()): as
 * extern kfuncs, libbpf 1.1 would want kernel BTF for the whole object
 * even where that program is not loaded. */
#define MS_CALL_SESSION_IS_RETURN 0x7ffff001
#define MS_CALL_SESSION_COOKIE	  0x7ffff002

struct ms_alloc {
	__u64 bytes; /* exact, or the sampled estimate */
	__u64 objs;  /* 1, or the sampled estimate */
	__u64 ref;   /* its stack's row in ms_rows */
	__u64 time;  /* bpf_ktime_get_ns() at allocation (--age) */
};

/* A stack's state: what is held now, and what was ever allocated (user
 * space takes differences between snapshots). */
struct ms_row {
	struct sb_key key;
	__u32 gen;
	__u32 pad;
	__u64 inuse_bytes, inuse_objs;
	__u64 alloc_bytes, alloc_objs;
	__u64 bad_frees; /* --bad-frees: frees by this stack of pointers
			  * not held (never allocated, or freed already) */
};

/* A process incarnation that is gone (exit or exec): user space drops
 * its rows after one last snapshot, and its allocations. */
struct ms_exit_key {
	__u32 tgid;
	__u32 gen;
};

enum ms_stat {
	MS_STAT_ALLOCS_FULL = SB_STAT_APPLET0, /* allocation not tracked */
	MS_STAT_FREE_MISS,    /* free (munmap) of something not known (-s: or
			    * not sampled) */
	MS_STAT_ROWS_FULL,    /* allocation not counted: row map full */
	MS_STAT_REPLACED,     /* address allocated again without a free */
	MS_STAT_THREADS_FULL, /* call not seen: thread map full */
	MS_STAT_NO_RETURN,    /* a call whose return was not seen */
	MS_STAT_EXITS_LOST,   /* a process end not noted: exit map full */
	MS_STAT_NO_ENTRY,     /* call not seen: its tail call failed */
};

/* Tables for sampling (-s), filled by user space. */
#define MS_LOG2_BITS  10   /* log2_tab: log2(1 + i/1024), 16.16 */
#define MS_WEIGHT_N   1024 /* weight_tab: x/(1-e^-x) at x = i/64, 16.16 */
#define MS_WEIGHT_MAX 16   /* beyond x = 16 the weight is the size */

/* Kernel mode: where each kmem tracepoint keeps its fields (tracefs
 * format files); 0xffff: the field is not there. */
struct ms_kfield {
	__u16 ptr, bytes, order;
	__u8 ptr_size, bytes_size, order_size;
	__u8 pad;
};
enum ms_kevent {
	MS_K_KMALLOC,
	MS_K_KMALLOC_NODE,
	MS_K_CACHE_ALLOC,
	MS_K_CACHE_ALLOC_NODE,
	MS_K_KFREE,
	MS_K_CACHE_FREE,
	MS_K_PAGE_ALLOC,
	MS_K_PAGE_FREE,
	MS_K_PAGE_FREE_BATCHED,
	MS_K_NEVENTS,
};

#endif
