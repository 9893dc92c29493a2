// SPDX-License-Identifier: GPL-2.0
/*
 * Every kernel type and member user space reads from kernel BTF
 * (kbtf_member() and friends), as CO-RE relocations, so that
 * `bpftool gen min_core_btf` keeps exactly these of a kernel's BTF:
 * the minimal BTF CONFIG_BTF_EMBED builds in (Makefile: btf-min).
 * Never loaded. A read added to an applet is added here too; the unit
 * test btf_needs.sh checks that every kbtf_member() pair is listed.
 *
 * Local declarations: the names match the kernel's, the member kinds
 * (integer, pointer, struct) must too; sizes and the rest come from the
 * kernel's BTF.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define KERNEL_TYPE __attribute__((preserve_access_index))

struct sched_entity {
	__u64 sum_exec_runtime;
} KERNEL_TYPE;
struct task_struct {
	int pid;
	unsigned int __state;
	long state; /* before 5.14 */
	struct sched_entity se;
	void *files;
	void *signal;
	void *stack;   /* the table walk: the user's registers at its top */
	char comm[16]; /* offcpu switch-in: read when a block is counted */
	void *cgroups; /* ... with its default cgroup's id: */
} KERNEL_TYPE;
struct css_set {
	void *dfl_cgrp;
} KERNEL_TYPE;
struct cgroup {
	void *kn;
} KERNEL_TYPE;
struct kernfs_node {
	__u64 id;
} KERNEL_TYPE;
struct signal_struct {
	struct {
		int counter;
	} live;
} KERNEL_TYPE;
struct path {
	void *dentry;
} KERNEL_TYPE;
struct file {
	struct path f_path;
	void *f_inode;
	void *f_mapping;
} KERNEL_TYPE;
struct files_struct {
	void *fdt;
} KERNEL_TYPE;
struct fdtable {
	unsigned int max_fds;
	void *fd;
} KERNEL_TYPE;
struct inode {
	unsigned short i_mode;
	unsigned long i_ino;
	void *i_sb;
} KERNEL_TYPE;
struct super_block {
	unsigned int s_dev;
} KERNEL_TYPE;
struct dentry {
	void *d_inode;
	void *d_parent;
} KERNEL_TYPE;
struct address_space {
	void *host;
} KERNEL_TYPE;
struct readahead_control {
	void *mapping;
	unsigned long _index;
} KERNEL_TYPE;
struct file_ra_state {
	unsigned int size;
} KERNEL_TYPE;
struct vm_fault {
	void *vma;
	unsigned long pgoff;
} KERNEL_TYPE;
struct vm_area_struct {
	void *vm_file;
} KERNEL_TYPE;
struct folio {
	void *mapping;
	unsigned long index;
	unsigned long _flags_1;	    /* rastack: the order's byte (6.6+) */
	unsigned char _folio_order; /* rastack: where the order was before */
} KERNEL_TYPE;
struct page { /* before folios (5.16) */
	void *mapping;
	unsigned long index;
} KERNEL_TYPE;
/* offcpu: does sched_switch pass prev_state (5.18+)? Kept only where
 * it does (the prototype must match), which is all offcpu asks. */
typedef void (*btf_trace_sched_switch)(void *, _Bool, struct task_struct *,
				       struct task_struct *, unsigned int);
/* rastack: the raw tracepoints' arguments, kept where they match */
typedef void (*btf_trace_mm_filemap_add_to_page_cache)(void *, struct folio *);
typedef void (*btf_trace_mm_filemap_delete_from_page_cache)(void *,
							    struct folio *);
typedef void (*btf_trace_page_cache_ra_unbounded)(void *, struct inode *,
						  unsigned long, unsigned long,
						  unsigned long);
typedef void (*btf_trace_page_cache_ra_order)(void *, struct inode *,
					      unsigned long,
					      struct file_ra_state *);
typedef void (*btf_trace_mm_filemap_get_pages)(void *, struct address_space *,
					       unsigned long, unsigned long);
typedef void (*btf_trace_mm_filemap_fault)(void *, struct address_space *,
					   unsigned long);
typedef void (*btf_trace_mm_filemap_map_pages)(void *, struct address_space *,
					       unsigned long, unsigned long);
typedef void (*btf_trace_page_cache_sync_ra)(void *, struct inode *,
					     unsigned long,
					     struct file_ra_state *,
					     unsigned long);
typedef void (*btf_trace_page_cache_async_ra)(void *, struct inode *,
					      unsigned long,
					      struct file_ra_state *,
					      unsigned long);
/* rastack: a large folio's flag */
enum pageflags {
	PG_head = 6,
};
/* memstack: the uprobe_multi link's attach type (6.6+) */
enum bpf_attach_type {
	BPF_TRACE_UPROBE_MULTI = 48,
};

#define NEED(type, member) bpf_core_field_exists(((type *)0)->member)

__u64 needs;

SEC("raw_tp")
int btf_needs(void *ctx)
{
	__u64 n = 0;

	n += NEED(struct task_struct, pid) + NEED(struct task_struct, __state) +
	     NEED(struct task_struct, state) + NEED(struct task_struct, se) +
	     NEED(struct sched_entity, sum_exec_runtime) +
	     NEED(struct task_struct, files) +
	     NEED(struct task_struct, signal) + NEED(struct task_struct, stack);
	n += NEED(struct task_struct, comm) +
	     NEED(struct task_struct, cgroups) +
	     NEED(struct css_set, dfl_cgrp) + NEED(struct cgroup, kn) +
	     NEED(struct kernfs_node, id);
	n += NEED(struct signal_struct, live) + NEED(struct path, dentry) +
	     NEED(struct file, f_path) + NEED(struct file, f_inode) +
	     NEED(struct file, f_mapping) + NEED(struct files_struct, fdt) +
	     NEED(struct fdtable, max_fds) + NEED(struct fdtable, fd);
	n += NEED(struct inode, i_mode) + NEED(struct inode, i_ino) +
	     NEED(struct inode, i_sb) + NEED(struct super_block, s_dev) +
	     NEED(struct dentry, d_inode) + NEED(struct dentry, d_parent);
	n += NEED(struct address_space, host) +
	     NEED(struct readahead_control, mapping) +
	     NEED(struct readahead_control, _index) +
	     NEED(struct file_ra_state, size) + NEED(struct vm_fault, vma) +
	     NEED(struct vm_fault, pgoff) +
	     NEED(struct vm_area_struct, vm_file);
	n += NEED(struct folio, mapping) + NEED(struct folio, index) +
	     NEED(struct folio, _flags_1) + NEED(struct folio, _folio_order) +
	     NEED(struct page, mapping) + NEED(struct page, index);
	n += bpf_core_type_exists(btf_trace_sched_switch);
	n += bpf_core_type_exists(btf_trace_mm_filemap_add_to_page_cache) +
	     bpf_core_type_exists(btf_trace_mm_filemap_delete_from_page_cache) +
	     bpf_core_type_exists(btf_trace_page_cache_ra_unbounded) +
	     bpf_core_type_exists(btf_trace_page_cache_ra_order) +
	     bpf_core_type_exists(btf_trace_mm_filemap_get_pages) +
	     bpf_core_type_exists(btf_trace_mm_filemap_fault) +
	     bpf_core_type_exists(btf_trace_mm_filemap_map_pages) +
	     bpf_core_type_exists(btf_trace_page_cache_sync_ra) +
	     bpf_core_type_exists(btf_trace_page_cache_async_ra);
	n += bpf_core_enum_value_exists(enum pageflags, PG_head);
	n += bpf_core_enum_value_exists(enum bpf_attach_type,
					BPF_TRACE_UPROBE_MULTI);
	needs = n;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
