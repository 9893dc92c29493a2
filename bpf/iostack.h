/* SPDX-License-Identifier: GPL-2.0 */
/* iostack: shared by iostack.bpf.c and applets/iostack.c. */
#ifndef STACKBOX_IOSTACK_H
#define STACKBOX_IOSTACK_H

/* The values of a row, in this order in both modes. */
enum iostack_value {
	IO_BYTES,   /* bytes moved: a syscall's return value, a request's */
	IO_CALLS,   /* syscalls (syscall mode), requests (--disk) */
	IO_ERRORS,  /* calls that failed, requests that completed in error */
	IO_LATENCY, /* --disk: ns from issue to completion, summed */
	IO_NVALUES,
};

/*
 * What a syscall does with its descriptors: the class of its number,
 * filled by user space from its own <sys/syscall.h> (numbers differ per
 * architecture; the BPF object's headers are the host's).
 */
enum iostack_class {
	IO_SYS_NONE,
	IO_SYS_READ,	 /* reads its first argument's descriptor */
	IO_SYS_WRITE,	 /* writes its first argument's descriptor */
	IO_SYS_SENDFILE, /* sendfile(out, in, ...): writes arg 0, reads arg 1 */
	IO_SYS_SPLICE, /* splice(in, off, out, ...): reads arg 0, writes arg 2 */
};
#define IO_MAX_SYSCALL 512

/*
 * Syscall mode: the key's aux is direction | kind << 1. IO_KIND_UNKNOWN
 * when the kernel has no BTF to find the file's type with.
 */
#define IO_WRITE 1
enum iostack_kind {
	IO_KIND_FILE,	/* regular file or block device */
	IO_KIND_SOCKET, /* socket */
	IO_KIND_PIPE,	/* pipe or FIFO */
	IO_KIND_OTHER,	/* character device, anon inode (eventfd...), dir */
	IO_KIND_UNKNOWN,
	IO_NKINDS,
};
#define IO_AUX(dir, kind) ((dir) | (kind) << 1)

/*
 * --disk: aux is the request's direction in bits 30-31 and its device
 * (major in bits 20-29, minor in 0-19: the kernel's dev_t, its major
 * cut to 10 bits).
 */
enum iostack_disk_op {
	IO_DISK_READ,
	IO_DISK_WRITE,
	IO_DISK_DISCARD,
	IO_DISK_OTHER,
};
#define IO_DISK_AUX(op, dev)   ((__u32)(op) << 30 | ((dev)&0x3fffffff))
#define IO_DISK_AUX_OP(aux)    ((aux) >> 30)
#define IO_DISK_AUX_MAJOR(aux) (((aux) >> 20) & 0x3ff)
#define IO_DISK_AUX_MINOR(aux) ((aux)&0xfffff)

/* Where the kernel keeps what the kind and --path walks read: offsets
 * from kernel BTF, found by user space (no CO-RE, so the object loads
 * without BTF). */
struct iostack_layout {
	__u32 task_files;    /* task_struct.files */
	__u32 files_fdt;     /* files_struct.fdt */
	__u32 fdt_max_fds;   /* fdtable.max_fds */
	__u32 fdt_fd;	     /* fdtable.fd */
	__u32 file_inode;    /* file.f_inode */
	__u32 file_dentry;   /* file.f_path.dentry */
	__u32 inode_mode;    /* inode.i_mode */
	__u32 inode_ino;     /* inode.i_ino */
	__u32 inode_sb;	     /* inode.i_sb */
	__u32 sb_dev;	     /* super_block.s_dev */
	__u32 dentry_inode;  /* dentry.d_inode */
	__u32 dentry_parent; /* dentry.d_parent */
};

/* Offsets of the classic block tracepoints' fields (their format files:
 * fields move between kernels). */
struct iostack_block_fields {
	__u16 dev, sector, nr_sector, rwbs;
	__u16 error; /* block_rq_complete only */
};

enum iostack_stat {
	IO_STAT_INFLIGHT_FULL = SB_STAT_APPLET0, /* a syscall entry not kept */
	IO_STAT_REQS_FULL,    /* a submitted request not tracked */
	IO_STAT_REQS_UNKNOWN, /* completed, submitter not seen */
};

#endif
