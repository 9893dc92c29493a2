// SPDX-License-Identifier: GPL-2.0
/*
 * iostack: bytes that I/O syscalls moved, per user stack, split by
 * direction and by what the descriptor is; with --disk, block requests
 * per submitting stack with their latency from issue to completion.
 *
 * Syscalls are counted at their exit, from the return value, with the
 * stack of the calling thread. Two ways in: raw_tp sys_exit alone (the
 * number and the descriptors are read from the saved user registers),
 * or the per-syscall tracepoints, where sys_enter_* keeps the
 * descriptors for sys_exit_*.
 */
#define SB_NVALUES 4
#include "collect.bpf.h"
#include "iostack.h"

/* syscall number -> enum iostack_class (user space fills it) */
const volatile __u8 sys_class[IO_MAX_SYSCALL] = {};
/* kernel BTF gave the layout: descriptor kinds can be told */
const volatile __u8 kinds_known = 0;
const volatile __u8 kind_mask = 0xff; /* --kind: bits of iostack_kind */
const volatile __u8 path_on = 0;      /* --path: (path_dev, path_ino) */
const volatile __u32 path_dev = 0;
const volatile __u64 path_ino = 0;
const volatile struct iostack_layout lay = {};
/* --disk: where each block tracepoint keeps its fields */
const volatile struct iostack_block_fields f_submit = {}, f_issue = {},
					   f_complete = {};

#define PATH_DEPTH 32 /* --path: PREFIX at most this many levels up */

/*
 * What raw_tp sys_exit needs of the user registers the syscall saved
 * (struct pt_regs): its number, its first three arguments, what tells a
 * 32-bit (compat) task, whose numbers are another table's, and where
 * the user stack is. The layouts are the architectures' own and have
 * not moved; each is read in as few copies as it takes.
 */
struct uregs {
	__u64 nr, mode, arg0, arg1, arg2, ip, sp, fp;
};

/* read_uregs() is a subprogram: its copy of the registers (128 bytes on
 * x86_64) is then on its own stack, not on the raw_tp program's under
 * the walk's callbacks, which 6.12 x86_64 refuses beyond 512 bytes
 * combined ("combined stack size of 4 calls is 528"). */

#define W(off, from) (((off) - (from)) / 8) /* index of a register in w */
#if defined(__TARGET_ARCH_x86)
#define REG_CS	     (17 * 8)
#define IS_COMPAT(u) (((u)->mode & 0xffff) == 0x23) /* cs: __USER32_CS */

static __noinline void read_uregs(void *regs, struct uregs *u)
{
	__u64 w[16] = {}; /* bp .. sp */

	bpf_probe_read_kernel(w, sizeof(w), regs + SB_REG_FP);
	u->fp = w[0];
	u->arg2 = w[W(SB_REG_ARG2, SB_REG_FP)];
	u->arg1 = w[W(SB_REG_ARG1, SB_REG_FP)];
	u->arg0 = w[W(SB_REG_ARG0, SB_REG_FP)];
	u->nr = w[W(SB_REG_NR, SB_REG_FP)];
	u->ip = w[W(SB_REG_PC, SB_REG_FP)];
	u->mode = w[W(REG_CS, SB_REG_FP)];
	u->sp = w[W(SB_REG_SP, SB_REG_FP)];
}
#elif defined(__TARGET_ARCH_arm64)
#define REG_PSTATE   (33 * 8)
#define REG_ORIG_X0  (34 * 8)		/* x0 holds the return value by now */
#define IS_COMPAT(u) ((u)->mode & 0x10) /* pstate: PSR_MODE32_BIT */

static __noinline void read_uregs(void *regs, struct uregs *u)
{
	__u64 a[2] = {}, w[7] = {}; /* x1, x2; x29 .. syscallno */

	bpf_probe_read_kernel(a, sizeof(a), regs + SB_REG_ARG1);
	bpf_probe_read_kernel(w, sizeof(w), regs + SB_REG_FP);
	u->arg1 = a[0];
	u->arg2 = a[1];
	u->fp = w[0];
	u->sp = w[W(SB_REG_SP, SB_REG_FP)];
	u->ip = w[W(SB_REG_PC, SB_REG_FP)];
	u->mode = w[W(REG_PSTATE, SB_REG_FP)];
	u->arg0 = w[W(REG_ORIG_X0, SB_REG_FP)];
	u->nr = (__u32)w[W(SB_REG_NR, SB_REG_FP)];
}
#endif

/* per-syscall tracepoint path: the descriptors, from enter to exit */
struct inflight {
	__u64 fd0, fd1;
};

/* preallocated: sized by user space on the path that uses it, else 1 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* --disk: a request from submission to completion, by (dev, sector) */
struct disk_key {
	__u32 dev;
	__u32 pad;
	__u64 sector;
};

struct disk_req {
	struct sb_key key;
	__u64 issued;  /* ns; 0 until block_rq_issue */
	__u64 sectors; /* at issue: what completion still has to finish */
};

/* sized by user space with --disk, else 1 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct disk_key);
	__type(value, struct disk_req);
} disk_reqs SEC(".maps");

static __always_inline void *read_ptr(const void *p)
{
	return (void *)sb_kread((__u64)p);
}

/* The current task's struct file for fd, or NULL. */
static __always_inline void *fd_file(__u64 fd)
{
	void *task = (void *)bpf_get_current_task();
	void *fdt = read_ptr(read_ptr(task + lay.task_files) + lay.files_fdt);
	__u64 w[2] = {}; /* max_fds and fd lie together (user space checked) */
	__u32 max;
	void *fds;

	if (!fdt)
		return NULL;
	bpf_probe_read_kernel(w, sizeof(w), fdt);
	max = *(__u32 *)((void *)w + (lay.fdt_max_fds & 15));
	fds = *(void **)((void *)w + (lay.fdt_fd & 8));
	if (fd >= max)
		return NULL;
	return read_ptr(fds + fd * sizeof(void *));
}

/* The kind of each file type (S_IFMT >> 12), two bits each: FIFO 1
 * pipe, block device 6 and regular 8 file, socket 12, the rest other.
 * A table, not a switch: the verifier follows one unknown kind, not a
 * path per kind through all that comes after it (raw_tp's program:
 * 191,000 instructions processed, not 350,000). */
#define KIND_OF_TYPE 0xfdfccffbULL
_Static_assert(IO_KIND_FILE == 0 && IO_KIND_SOCKET == 1 && IO_KIND_PIPE == 2 &&
		       IO_KIND_OTHER == 3,
	       "two bits per kind");

static __always_inline int file_kind(void *file)
{
	__u16 mode = 0;

	bpf_probe_read_kernel(&mode, sizeof(mode),
			      read_ptr(file + lay.file_inode) + lay.inode_mode);
	return KIND_OF_TYPE >> ((mode >> 12 & 15) * 2) & 3;
}

/* --path: is the file, or a directory above it on its filesystem, the
 * one user space named (by device and inode)? */
static __always_inline int under_path(void *file)
{
	void *dentry = read_ptr(file + lay.file_dentry);

	for (int i = 0; i <= PATH_DEPTH && dentry; i++) {
		void *inode = read_ptr(dentry + lay.dentry_inode);
		void *parent;

		if (inode &&
		    sb_kread((__u64)(inode + lay.inode_ino)) == path_ino) {
			__u32 dev = 0;

			bpf_probe_read_kernel(&dev, sizeof(dev),
					      read_ptr(inode + lay.inode_sb) +
						      lay.sb_dev);
			if (dev == path_dev)
				return 1;
		}
		parent = read_ptr(dentry + lay.dentry_parent);
		if (parent == dentry)
			break; /* the root of its filesystem */
		dentry = parent;
	}
	return 0;
}

/* The kind of fd, or -1 when --kind or --path leave it out. */
static __noinline int wanted_kind(__u64 fd)
{
	void *file;
	int kind;

	if (!kinds_known)
		return IO_KIND_UNKNOWN;
	file = fd_file(fd);
	kind = file ? file_kind(file) : IO_KIND_OTHER;
	if (!(kind_mask & (1 << kind)))
		return -1;
	if (path_on && (kind != IO_KIND_FILE || !under_path(file)))
		return -1;
	return kind;
}

/* The key for the current task, with its user stack from the
 * registers (raw_tp) or not. Subprograms: inlined, the verifier followed
 * each of --unwind eh_frame's stack depths through all that comes after
 * it and gave up (E2BIG). Two, not one with a test of the registers'
 * pointer: the verifier cannot tell a stack pointer from NULL and
 * followed both ways (some 60,000 instructions processed, not 15,129). */
static __noinline void key_init_regs(void *ctx, const struct uregs *u,
				     struct sb_key *key, __u64 id)
{
	sb_key_init_uregs(ctx, key, id, u->ip, u->sp, u->fp);
}

static __noinline void key_init(void *ctx, struct sb_key *key, __u64 id)
{
	sb_key_init(ctx, key, id);
}

/*
 * One syscall's exit: its bytes (the return value; nothing when it
 * failed, which counts an error), once for each descriptor it moved
 * data through: sendfile and splice read one and write the other.
 */
static __always_inline void on_sys_exit(void *ctx, const struct uregs *u,
					__u64 id, __u8 cls, long ret, __u64 fd0,
					__u64 fd1)
{
	struct sb_values v = {{ret > 0 ? ret : 0, 1, ret < 0, 0}};
	int rkind = -1, wkind = -1;
	struct sb_key key = {};

	/* a descriptor that names no file (-1, closed) is of kind other */
	switch (cls) {
	case IO_SYS_READ:
		rkind = wanted_kind(fd0);
		break;
	case IO_SYS_WRITE:
		wkind = wanted_kind(fd0);
		break;
	case IO_SYS_SENDFILE:
		wkind = wanted_kind(fd0);
		rkind = wanted_kind(fd1);
		break;
	case IO_SYS_SPLICE:
		rkind = wanted_kind(fd0);
		wkind = wanted_kind(fd1);
		break;
	}
	if (rkind < 0 && wkind < 0)
		return;
	if (u)
		key_init_regs(ctx, u, &key, id);
	else
		key_init(ctx, &key, id);
	if (rkind >= 0) {
		key.aux = IO_AUX(0, rkind);
		sb_count(&key, &v);
	}
	if (wkind >= 0) {
		key.aux = IO_AUX(IO_WRITE, wkind);
		sb_count(&key, &v);
	}
}

static __always_inline __u8 class_of(__u64 nr)
{
	return nr < IO_MAX_SYSCALL ? sys_class[nr] : IO_SYS_NONE;
}

/* raw_syscalls' sys_exit (regs, ret): every syscall of every task comes
 * here; the number filters first. */
SEC("raw_tp/sys_exit")
int iostack_exit_raw(struct bpf_raw_tracepoint_args *ctx)
{
	void *regs = (void *)ctx->args[0];
	__u8 cls = class_of((__u32)sb_kread((__u64)(regs + SB_REG_NR)));
	struct uregs u;
	__u64 id;

	if (cls == IO_SYS_NONE)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!sb_wanted(id >> 32))
		return 0;
	read_uregs(regs, &u);
	if (IS_COMPAT(&u))
		return 0;
	on_sys_exit(ctx, &u, id, cls, ctx->args[1], (int)u.arg0,
		    (int)(cls == IO_SYS_SPLICE ? u.arg2 : u.arg1));
	return 0;
}

/* Attached by user space to every sys_enter_* of the syscalls counted. */
SEC("tracepoint/syscalls/sys_enter_read")
int iostack_enter_tp(struct sb_sys_enter *ctx)
{
	__u8 cls = class_of((__u32)ctx->nr);
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight in;
	__u32 tid = id;
	__u64 arg1, arg2;

	if (cls == IO_SYS_NONE || !sb_wanted(id >> 32))
		return 0;
	/* both loaded: the context is read at constant offsets only */
	arg1 = *(volatile __u64 *)&ctx->args[1];
	arg2 = *(volatile __u64 *)&ctx->args[2];
	in.fd0 = (int)ctx->args[0];
	in.fd1 = (int)(cls == IO_SYS_SPLICE ? arg2 : arg1);
	if (bpf_map_update_elem(&inflight, &tid, &in, BPF_ANY))
		sb_stat_add(IO_STAT_INFLIGHT_FULL, 1);
	return 0;
}

/* ... and to every sys_exit_* of them */
SEC("tracepoint/syscalls/sys_exit_read")
int iostack_exit_tp(struct sb_sys_exit *ctx)
{
	__u8 cls = class_of((__u32)ctx->nr);
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *p, in;
	__u32 tid = id;

	if (cls == IO_SYS_NONE || !(p = bpf_map_lookup_elem(&inflight, &tid)))
		return 0;
	in = *p;
	bpf_map_delete_elem(&inflight, &tid);
	on_sys_exit(ctx, NULL, id, cls, ctx->ret, in.fd0, in.fd1);
	return 0;
}

/* ---- --disk ---- */

/* A field of a classic tracepoint's record, at an offset user space
 * read from its format file. */
static __always_inline __u64 field(void *ctx, __u16 off, unsigned size)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, size & 8 ? 8 : 4, ctx + off);
	return v;
}

/* rwbs: "R", "WS", "FWFS" (a preflush write), "D", "N"... */
static __always_inline __u32 disk_op(void *ctx, __u16 off)
{
	char rwbs[4] = {};

	bpf_probe_read_kernel(rwbs, sizeof(rwbs), ctx + off);
	for (int i = 0; i < 2; i++) {
		if (rwbs[i] == 'W')
			return IO_DISK_WRITE;
		if (rwbs[i] == 'R')
			return IO_DISK_READ;
		if (rwbs[i] == 'D')
			return IO_DISK_DISCARD;
		if (rwbs[i] != 'F')
			break;
	}
	return IO_DISK_OTHER;
}

static __always_inline void
disk_key_of(void *ctx, const volatile struct iostack_block_fields *f,
	    struct disk_key *k)
{
	k->dev = field(ctx, f->dev, 4);
	k->pad = 0;
	k->sector = field(ctx, f->sector, 8);
}

/* In the submitter's context: who asked for this request. Requests
 * without data (flushes) are left out: they share sector 0. */
static __always_inline void on_submit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct disk_req r = {};
	struct disk_key k;

	if (!(__u32)field(ctx, f_submit.nr_sector, 4) || !sb_wanted(id >> 32))
		return;
	disk_key_of(ctx, &f_submit, &k);
	sb_key_init(ctx, &r.key, id);
	r.key.aux = IO_DISK_AUX(disk_op(ctx, f_submit.rwbs), k.dev);
	if (bpf_map_update_elem(&disk_reqs, &k, &r, BPF_ANY))
		sb_stat_add(IO_STAT_REQS_FULL, 1);
}

/* block_io_start (6.5+): a request is started, in
 * blk_mq_submit_bio(), by the task that submits its first bio. */
SEC("tracepoint/block/block_io_start")
int iostack_io_start(void *ctx)
{
	on_submit(ctx);
	return 0;
}

/* block_bio_queue: a bio enters the block layer, in its submitter's
 * context; the request it starts (or is merged into) carries its
 * sector. */
SEC("tracepoint/block/block_bio_queue")
int iostack_bio_queue(void *ctx)
{
	on_submit(ctx);
	return 0;
}

SEC("tracepoint/block/block_rq_issue")
int iostack_rq_issue(void *ctx)
{
	struct disk_req *r;
	struct disk_key k;

	disk_key_of(ctx, &f_issue, &k);
	r = bpf_map_lookup_elem(&disk_reqs, &k);
	if (!r)
		return 0;
	r->issued = bpf_ktime_get_ns();
	r->sectors = (__u32)field(ctx, f_issue.nr_sector, 4);
	return 0;
}

/* Completion, in whatever context the driver completes in. A request
 * may complete in parts: what is left moves to the sector after the
 * part done, and its latency is counted when the last part is. */
SEC("tracepoint/block/block_rq_complete")
int iostack_rq_complete(void *ctx)
{
	__u64 done = (__u32)field(ctx, f_complete.nr_sector, 4);
	struct sb_values v = {};
	struct disk_req *r, req;
	struct disk_key k;

	disk_key_of(ctx, &f_complete, &k);
	r = bpf_map_lookup_elem(&disk_reqs, &k);
	if (!r || !r->issued) {
		if (done)
			sb_stat_add(IO_STAT_REQS_UNKNOWN, 1);
		return 0;
	}
	req = *r;
	bpf_map_delete_elem(&disk_reqs, &k);
	v.v[IO_BYTES] = done * 512;
	v.v[IO_ERRORS] = (int)field(ctx, f_complete.error, 4) != 0;
	if (done && done < req.sectors) {
		req.sectors -= done;
		k.sector += done;
		bpf_map_update_elem(&disk_reqs, &k, &req, BPF_ANY);
	} else {
		v.v[IO_CALLS] = 1;
		v.v[IO_LATENCY] = bpf_ktime_get_ns() - req.issued;
	}
	sb_count(&req.key, &v);
	return 0;
}
