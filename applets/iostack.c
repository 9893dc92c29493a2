// SPDX-License-Identifier: GPL-2.0
/* iostack: I/O bytes per call stack, files and sockets, and disk requests.
 *
//config:config IOSTACK
//config:	bool "iostack: I/O bytes per call stack"
//config:	default y
//config:	help
//config:	  Counts the bytes that read, write and the other I/O syscalls
//config:	  actually moved (their return value), per user stack, split
//config:	  by direction and by what the descriptor is (file, socket,
//config:	  pipe, other); with --disk, block requests per submitting
//config:	  stack with their latency from issue to completion.
//usage:usage: iostack [--disk] [--kind LIST] [--path PREFIX] [--value WHAT] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Count the bytes I/O syscalls moved per user stack, at their exit:
//usage:read, write, pread64, pwrite64, readv, writev, preadv, pwritev
//usage:(and their v2 forms), sendto, recvfrom, sendmsg, recvmsg, sendfile
//usage:and splice. A failed call moves nothing and counts an error. Rows
//usage:are split by direction and by what the descriptor is: file, socket,
//usage:pipe or other (character devices, eventfd...); without kernel BTF
//usage:only by direction. sendfile and splice count on both sides: a read
//usage:of the source and a write of the destination. Syscall mode takes no
//usage:kernel stacks: at the exit of a syscall they are the exit path.
//usage:
//usage:  --disk           count block requests instead: bytes, requests, errors and
//usage:                   latency (issue to completion) per stack that submitted
//usage:                   them, split by direction and device. Writeback of dirty
//usage:                   pages is submitted by the flusher thread (kworker), so it
//usage:                   is counted there, not under the writer
//usage:  --kind LIST      only descriptors of these kinds: file,socket,pipe,other
//usage:  --path PREFIX    only files at or below PREFIX, on PREFIX's filesystem
//usage:                   (not those on filesystems mounted below it), PREFIX at
//usage:                   most 32 levels above the file
//usage:  --value WHAT     bytes (default), calls (requests with --disk), or
//usage:                   latency (--disk; folded in microseconds): what text sorts
//usage:                   by and folded shows
//usage:@COMMON
//usage:
//usage:STACKBOX_ATTACH=raw_tp|tracepoint forces the syscall path,
//usage:io_start|bio_queue the --disk one.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "iostack.h"
#include "iostack.skel.h"
#include "kernel.h"

/* The maps of one path, preallocated: sized only where it is taken
 * (16384 requests took 10 ms of every start). Syscalls in flight on the
 * per-syscall tracepoints, by thread; block requests in flight. */
enum { INFLIGHT = 10240, DISK_REQS = 16384 };

struct iostack_args {
	struct collect_opts common;
	int disk;
	int kinds; /* --kind: bits of enum iostack_kind; 0: all */
	const char *path;
	int value; /* enum iostack_value */
	bool kinds_known;
	const char *way; /* the attach path configure() saw chosen */
};

static const char *const kind_names[IO_NKINDS] = {"file", "socket", "pipe",
						  "other", "?"};

static const struct opt_names kinds = {
	kind_names, IO_KIND_UNKNOWN,
	"not a list of kinds (file,socket,pipe,other)"};

static const char *const value_names[] = {"bytes", "calls", NULL, "latency"};
static const struct opt_names values = {value_names, ARRAY_SIZE(value_names),
					"not a value (bytes, calls, latency)"};

static const struct opt iostack_opts[] = {
	OPT_FLAG(0, "disk", struct iostack_args, disk),
	OPT_TABLE(0, "kind", "LIST", opt_name_list, struct iostack_args, kinds,
		  kinds, NULL, .flags = OPT_SHOWN),
	OPT_STRING(0, "path", "PREFIX", struct iostack_args, path, NULL,
		   .flags = OPT_SHOWN),
	OPT_TABLE(0, "value", "WHAT", opt_name, struct iostack_args, value,
		  values, "bytes", .flags = OPT_SHOWN),
	OPT_INCLUDE(collect_options, struct iostack_args, common),
	OPT_END,
};

static const struct metric syscall_metrics[] = {
	{"bytes", METRIC_BYTES},
	{"calls", METRIC_COUNT},
	{"errors", METRIC_COUNT},
};

static const struct metric disk_metrics[] = {
	{"bytes", METRIC_BYTES},
	{"requests", METRIC_COUNT},
	{"errors", METRIC_COUNT},
	{"latency", METRIC_NS},
};

/* ---- syscall mode ---- */

/* The syscalls counted: per-syscall tracepoint name, number, class. */
static const struct io_syscall {
	const char *tp; /* syscalls:sys_enter_TP, sys_exit_TP */
	long nr;
	__u8 cls;
} io_syscalls[] = {
	{"read", SYS_read, IO_SYS_READ},
	{"write", SYS_write, IO_SYS_WRITE},
	{"pread64", SYS_pread64, IO_SYS_READ},
	{"pwrite64", SYS_pwrite64, IO_SYS_WRITE},
	{"readv", SYS_readv, IO_SYS_READ},
	{"writev", SYS_writev, IO_SYS_WRITE},
	{"preadv", SYS_preadv, IO_SYS_READ},
	{"pwritev", SYS_pwritev, IO_SYS_WRITE},
	{"preadv2", SYS_preadv2, IO_SYS_READ},
	{"pwritev2", SYS_pwritev2, IO_SYS_WRITE},
	{"recvfrom", SYS_recvfrom, IO_SYS_READ},
	{"sendto", SYS_sendto, IO_SYS_WRITE},
	{"recvmsg", SYS_recvmsg, IO_SYS_READ},
	{"sendmsg", SYS_sendmsg, IO_SYS_WRITE},
	{"sendfile64", SYS_sendfile, IO_SYS_SENDFILE},
	{"splice", SYS_splice, IO_SYS_SPLICE},
};

/* raw_tp first: one program at every syscall's exit, no entry hook and
 * no map between the two; bench/iostack.sh measures both (README). */
static const struct attach_alt sys_exit_alts[] = {
	{"iostack_exit_raw", "raw_tp"},
	{"iostack_exit_tp", "tracepoint", KF_TRACEPOINT, "syscalls",
	 "sys_exit_read"},
	{NULL},
};

static const struct attach_hook syscall_hooks[] = {
	{"syscall exit", sys_exit_alts},
	{NULL},
};

/*
 * Where the kernel keeps what tells a descriptor's kind and its
 * directories: task->files->fdt->fd[fd]->f_inode->i_mode, and
 * f_path.dentry->d_parent... for --path. False when BTF lacks any.
 */
static bool probe_file_layout(struct iostack_layout *l)
{
	int path_dentry, f_path;
	bool ok;

	if (!kbtf_layouts())
		return false;
	f_path = kbtf_member("file", "f_path", NULL);
	path_dentry = kbtf_member("path", "dentry", NULL);
	struct {
		__u32 *dst;
		int off;
	} m[] = {
		{&l->task_files, kbtf_member("task_struct", "files", NULL)},
		{&l->files_fdt, kbtf_member("files_struct", "fdt", NULL)},
		{&l->fdt_max_fds, kbtf_member("fdtable", "max_fds", NULL)},
		{&l->fdt_fd, kbtf_member("fdtable", "fd", NULL)},
		{&l->file_inode, kbtf_member("file", "f_inode", NULL)},
		{&l->file_dentry,
		 f_path < 0 || path_dentry < 0 ? -1 : f_path + path_dentry},
		{&l->inode_mode, kbtf_member("inode", "i_mode", NULL)},
		{&l->inode_ino, kbtf_member("inode", "i_ino", NULL)},
		{&l->inode_sb, kbtf_member("inode", "i_sb", NULL)},
		{&l->sb_dev, kbtf_member("super_block", "s_dev", NULL)},
		{&l->dentry_inode, kbtf_member("dentry", "d_inode", NULL)},
		{&l->dentry_parent, kbtf_member("dentry", "d_parent", NULL)},
	};

	ok = true;
	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		ok &= m[i].off >= 0;
		*m[i].dst = m[i].off;
	}
	/* BPF reads both in one copy of the table's first 16 bytes */
	ok &= l->fdt_max_fds <= 12 && l->fdt_fd % 8 == 0 && l->fdt_fd <= 8;
	return ok;
}

/* --path: the directory (or file) as the kernel names it: s_dev is
 * MKDEV(major, minor) = major << 20 | minor. */
static void configure_path(struct iostack_bpf *s, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		perror_exit("--path %s", path);
	s->rodata->path_on = 1;
	s->rodata->path_ino = st.st_ino;
	s->rodata->path_dev = major(st.st_dev) << 20 | minor(st.st_dev);
}

static void configure_syscalls(struct iostack_bpf *s, struct iostack_args *a)
{
	bool tp = bpf_program__autoload(s->progs.iostack_exit_tp);

	for (size_t i = 0; i < ARRAY_SIZE(io_syscalls); i++)
		if (io_syscalls[i].nr >= 0 &&
		    io_syscalls[i].nr < IO_MAX_SYSCALL)
			s->rodata->sys_class[io_syscalls[i].nr] =
				io_syscalls[i].cls;
	/* the entry hook only serves the per-syscall tracepoints */
	bpf_program__set_autoload(s->progs.iostack_enter_tp, tp);
	if (tp)
		bpf_map__set_max_entries(s->maps.inflight, INFLIGHT);
	a->way = tp ? "tracepoint" : "raw_tp";
	a->kinds_known = probe_file_layout(&s->rodata->lay);
	s->rodata->kinds_known = a->kinds_known;
	if (!a->kinds_known && (a->kinds || a->path))
		error_exit("%s: telling descriptor kinds needs kernel BTF, "
			   "which this kernel lacks (" KBTF_HOW ")",
			   a->path ? "--path" : "--kind");
	if (!a->kinds_known)
		error_msg("no kernel BTF (" KBTF_HOW "): bytes are counted "
			  "without descriptor kinds");
	if (a->kinds)
		s->rodata->kind_mask = a->kinds;
	if (a->path)
		configure_path(s, a->path);
	/* the kernel stack at a syscall's exit is the exit path */
	s->rodata->sb_cfg.kern_stacks = 0;
}

/* The per-syscall tracepoints: the core attached the exit program to
 * sys_exit_read; here it goes to the others, and the entry program to
 * all of them. */
static int attach_syscall_tracepoints(struct collector *c,
				      struct iostack_bpf *s)
{
	char name[64];

	for (size_t i = 0; i < ARRAY_SIZE(io_syscalls); i++) {
		for (int exit = 0; exit < 2; exit++) {
			struct bpf_program *p =
				exit ? s->progs.iostack_exit_tp
				     : s->progs.iostack_enter_tp;
			struct bpf_link *l;

			if (exit && !strcmp(io_syscalls[i].tp, "read"))
				continue;
			snprintf(name, sizeof(name), "sys_%s_%s",
				 exit ? "exit" : "enter", io_syscalls[i].tp);
			if (!kernel_tracepoint_exists("syscalls", name)) {
				verbose("no tracepoint syscalls:%s: %s is not "
					"counted",
					name, io_syscalls[i].tp);
				break;
			}
			l = bpf_program__attach_tracepoint(p, "syscalls", name);
			if (!l) {
				error_msg("attaching to syscalls:%s: %s", name,
					  strerror(errno));
				return -errno;
			}
			collect_keep_link(c, l);
		}
	}
	return 0;
}

/* ---- --disk ---- */

/* block_io_start (6.5+) starts each request in the submitter's context;
 * block_bio_queue sees each bio there, before merging. */
static const struct attach_alt submit_alts[] = {
	{"iostack_io_start", "io_start", KF_TRACEPOINT, "block",
	 "block_io_start"},
	{"iostack_bio_queue", "bio_queue", KF_TRACEPOINT, "block",
	 "block_bio_queue"},
	{NULL},
};

static const struct attach_alt issue_alts[] = {
	{"iostack_rq_issue", "tracepoint", KF_TRACEPOINT, "block",
	 "block_rq_issue"},
	{NULL},
};

static const struct attach_alt complete_alts[] = {
	{"iostack_rq_complete", "tracepoint", KF_TRACEPOINT, "block",
	 "block_rq_complete"},
	{NULL},
};

static const struct attach_hook disk_hooks[] = {
	{"block submit", submit_alts},
	{"block issue", issue_alts},
	{"block complete", complete_alts},
	{NULL},
};

/* A block tracepoint's fields, from its format file. */
static void block_fields(const char *tp, struct iostack_block_fields *f,
			 bool complete)
{
	static const struct {
		const char *name;
		size_t off;
		unsigned size; /* what the BPF side reads; 0: any */
	} want[] = {
		{"dev", offsetof(struct iostack_block_fields, dev), 4},
		{"sector", offsetof(struct iostack_block_fields, sector), 8},
		{"nr_sector", offsetof(struct iostack_block_fields, nr_sector),
		 4},
		{"rwbs", offsetof(struct iostack_block_fields, rwbs), 0},
		{"error", offsetof(struct iostack_block_fields, error), 4},
	};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		unsigned size = 0;
		int off;

		if (!strcmp(want[i].name, "error") && !complete)
			continue;
		if (!strcmp(want[i].name, "rwbs") && complete)
			continue;
		off = kernel_tracepoint_field("block", tp, want[i].name, &size);
		if (off < 0 || (want[i].size && size != want[i].size))
			error_exit("--disk: tracepoint block:%s has no %u-byte "
				   "field %s",
				   tp, want[i].size, want[i].name);
		*(__u16 *)((char *)f + want[i].off) = off;
	}
}

static void configure_disk(struct iostack_bpf *s, struct iostack_args *a)
{
	bool io_start = bpf_program__autoload(s->progs.iostack_io_start);

	a->way = io_start ? "block_io_start" : "block_bio_queue";
	bpf_map__set_max_entries(s->maps.disk_reqs, DISK_REQS);
	block_fields(io_start ? "block_io_start" : "block_bio_queue",
		     (struct iostack_block_fields *)&s->rodata->f_submit,
		     false);
	block_fields("block_rq_issue",
		     (struct iostack_block_fields *)&s->rodata->f_issue, false);
	block_fields("block_rq_complete",
		     (struct iostack_block_fields *)&s->rodata->f_complete,
		     true);
}

/* ---- both ---- */

SB_SKELETON(iostack)

static int iostack_configure(struct collector *c, void *skel, void *args)
{
	struct iostack_bpf *s = skel;
	struct iostack_args *a = args;
	struct bpf_program *syscall_progs[] = {s->progs.iostack_exit_raw,
					       s->progs.iostack_exit_tp,
					       s->progs.iostack_enter_tp};
	struct bpf_program *disk_progs[] = {
		s->progs.iostack_io_start, s->progs.iostack_bio_queue,
		s->progs.iostack_rq_issue, s->progs.iostack_rq_complete};

	/* the other mode's programs are not in this mode's plan */
	for (size_t i = 0; i < ARRAY_SIZE(syscall_progs) && a->disk; i++)
		bpf_program__set_autoload(syscall_progs[i], false);
	for (size_t i = 0; i < ARRAY_SIZE(disk_progs) && !a->disk; i++)
		bpf_program__set_autoload(disk_progs[i], false);
	if (a->disk)
		configure_disk(s, a);
	else
		configure_syscalls(s, a);
	return 0;
}

static int iostack_attach(struct collector *c, void *skel, void *args)
{
	struct iostack_bpf *s = skel;

	if (!((struct iostack_args *)args)->disk &&
	    bpf_program__autoload(s->progs.iostack_exit_tp))
		return attach_syscall_tracepoints(c, s);
	return 0;
}

static unsigned iostack_primary(struct collector *c, void *args)
{
	return ((struct iostack_args *)args)->value;
}

static void iostack_describe(struct collector *c, void *args, char *buf,
			     size_t len)
{
	struct iostack_args *a = args;

	if (a->disk)
		snprintf(buf, len,
			 "value: block requests per stack that submitted them "
			 "(%s), bytes completed, latency from issue to "
			 "completion; writeback is counted under the flusher "
			 "thread, not the writer",
			 a->way);
	else
		snprintf(buf, len,
			 "value: bytes I/O syscalls moved (their return value) "
			 "per user stack at syscall exit (%s); descriptor "
			 "kinds: %s%s%s",
			 a->way,
			 a->kinds_known ? "file, socket, pipe, other"
					: "unavailable (no kernel BTF)",
			 a->path ? "; only files under " : "",
			 a->path ? a->path : "");
}

static const char *syscall_aux_name(__u32 aux)
{
	static const char *const names[2][IO_NKINDS] = {
		{"read file", "read socket", "read pipe", "read other", "read"},
		{"write file", "write socket", "write pipe", "write other",
		 "write"},
	};
	unsigned kind = aux >> 1;

	return names[aux & IO_WRITE][kind < IO_NKINDS ? kind : IO_KIND_OTHER];
}

/* "write loop0": the device's name from sysfs, MAJ:MIN when it has
 * none (it went away). Names are kept for the run. */
static const char *disk_aux_name(__u32 aux)
{
	static const char *const ops[] = {"read", "write", "discard", "other"};
	static struct {
		__u32 aux;
		char *name;
	} cache[64];
	static unsigned n;
	unsigned maj = IO_DISK_AUX_MAJOR(aux), min = IO_DISK_AUX_MINOR(aux);
	char path[64], *uevent, *dev = NULL;
	const char *op = ops[IO_DISK_AUX_OP(aux)];

	for (unsigned i = 0; i < n; i++)
		if (cache[i].aux == aux)
			return cache[i].name;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	uevent = read_file(path, NULL);
	if (uevent && (dev = strstr(uevent, "DEVNAME=")))
		dev[strcspn(dev, "\n")] = 0;
	if (n == ARRAY_SIZE(cache))
		free(cache[--n].name);
	cache[n].aux = aux;
	cache[n].name = dev ? xasprintf("%s %s", op, dev + 8)
			    : xasprintf("%s %u:%u", op, maj, min);
	free(uevent);
	return cache[n++].name;
}

static const char *const iostack_stat_names[] = {
	"syscalls not tracked (entry map full)",
	"requests not tracked (request map full)",
	"requests completed whose submitter was not seen",
	NULL,
};

static const struct collector_ops syscall_ops = {
	.features = (const enum sb_feature[]){SB_F_BTF, SB_F_END},
	.metrics = syscall_metrics,
	.nmetrics = ARRAY_SIZE(syscall_metrics),
	.hooks = syscall_hooks,
	SB_SKELETON_OPS(iostack),
	.configure = iostack_configure,
	.attach = iostack_attach,
	.primary = iostack_primary,
	.describe = iostack_describe,
	.stat_names = iostack_stat_names,
	.aux_name = syscall_aux_name,
};

static const struct collector_ops disk_ops = {
	.option = "--disk",
	.metrics = disk_metrics,
	.nmetrics = ARRAY_SIZE(disk_metrics),
	.hooks = disk_hooks,
	SB_SKELETON_OPS(iostack),
	.configure = iostack_configure,
	.primary = iostack_primary,
	.describe = iostack_describe,
	.stat_names = iostack_stat_names,
	.aux_name = disk_aux_name,
};

static int iostack_main(void *args, int argc, char **argv)
{
	struct iostack_args *a = args;

	if (a->disk && (a->kinds || a->path))
		help_exit("%s: only for syscalls, not with --disk",
			  a->kinds ? "--kind" : "--path");
	if (!a->disk && a->value == IO_LATENCY)
		help_exit("--value latency: only with --disk");
	if (!a->disk && a->common.kernel_only)
		help_exit("-K: syscalls are counted at their exit, where the "
			  "kernel stack is the exit path (kernel stacks: "
			  "--disk)");
	return collect_run(a->disk ? &disk_ops : &syscall_ops, &a->common, a,
			   argc, argv);
}

APPLET_DEFINE(iostack, iostack_main, iostack_opts, struct iostack_args,
	      COLLECTORS(&syscall_ops, &disk_ops));
