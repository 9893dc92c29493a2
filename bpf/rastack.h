/* SPDX-License-Identifier: GPL-2.0 */
/* rastack: shared by rastack.bpf.c and applets/rastack.c. */
#ifndef STACKBOX_RASTACK_H
#define STACKBOX_RASTACK_H

#include <linux/types.h>

#include "sb.h"

/* Pages are tracked in runs of 64 (one bit each) of one file. */
#define RA_RUN_SHIFT 6
#define RA_RUN_PAGES (1 << RA_RUN_SHIFT)
/* Readaheads (their stacks) one run's pages may come from. */
#define RA_SLOTS 4

/* The metrics, in the order of a row's values. */
enum ra_metric { RA_TOTAL, RA_USED, RA_UNUSED, RA_RATIO, RA_NMETRICS };

enum ra_stat {
	RA_STAT_RUNS_FULL = SB_STAT_APPLET0, /* the page map was full */
	RA_STAT_STACKS_FULL,		     /* the stack map was full */
	RA_STAT_SLOTS_FULL, /* a run had RA_SLOTS readaheads already */
};

/* Cumulative per readahead stack: the row user space shows. */
struct ra_owner {
	struct sb_key key;
	__u64 pages; /* read ahead */
	__u64 used;  /* of those, read, faulted or mapped since */
};

/* Where a classic tracepoint's record keeps the fields we read (from
 * its format file: they move between kernels). size 0: no such field. */
struct ra_tp_field {
	__u16 off;
	__u16 size;
};
struct ra_tp_layout {
	struct ra_tp_field ino, dev, index;
	struct ra_tp_field arg; /* last_index, nr_to_read, size, order */
	__u16 len;		/* bytes to read: the fields lie within */
};
#define RA_TP_RECORD 96 /* at most */
enum ra_tp {
	RA_TP_ADD,	 /* filemap:mm_filemap_add_to_page_cache (arg: order) */
	RA_TP_DELETE,	 /* ...delete_from_page_cache (arg: order) */
	RA_TP_UNBOUNDED, /* readahead:page_cache_ra_unbounded (nr_to_read) */
	RA_TP_ORDER,	 /* readahead:page_cache_ra_order (size) */
	RA_TP_GET_PAGES, /* filemap:mm_filemap_get_pages (last_index) */
	RA_TP_FAULT,	 /* filemap:mm_filemap_fault */
	RA_TP_MAP_PAGES, /* filemap:mm_filemap_map_pages (last_index) */
	RA_TP_SYNC,	 /* readahead:page_cache_sync_ra (req_count) */
	RA_NTP,
};

/* Kernel struct offsets from BTF, for the raw tracepoint, fentry and
 * kprobe paths. */
struct ra_kernel_layout {
	__u16 mapping_host;  /* address_space.host */
	__u16 inode_ino;     /* inode.i_ino */
	__u16 inode_sb;	     /* inode.i_sb */
	__u16 sb_dev;	     /* super_block.s_dev */
	__u16 ractl_mapping; /* readahead_control.mapping */
	__u16 ractl_index;   /* readahead_control._index */
	__u16 ra_size;	     /* file_ra_state.size */
	__u16 vmf_vma;	     /* vm_fault.vma */
	__u16 vmf_pgoff;     /* vm_fault.pgoff */
	__u16 vma_file;	     /* vm_area_struct.vm_file */
	__u16 file_mapping;  /* file.f_mapping */
	__u16 folio_mapping; /* folio.mapping (page.mapping) */
	__u16 folio_index;   /* folio.index (page.index) */
	__u16 folio_flags_1; /* folio._flags_1: a large folio's order (6.6+) */
	__u16 pg_head;	     /* enum pageflags' PG_head: the folio is large */
};

#endif
