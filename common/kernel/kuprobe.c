// SPDX-License-Identifier: GPL-2.0
/* uprobe_multi links and uprobe sessions, as this kernel offers them. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "kuprobe.h"
#include "stackbox.h"

/* BPF_LINK_CREATE for uprobe_multi (Linux 6.6), which the libbpf of
 * Debian 12 does not know: union bpf_attr's link_create as the UAPI
 * lays it out. */
struct uprobe_multi_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, multi_flags, pid, pad;
};
#define UPROBE_MULTI_RETURN 1

int kernel_link_uprobe_multi(int prog_fd, int type, const char *path,
			     const __u64 *offsets, const __u64 *cookies,
			     unsigned n, bool ret, pid_t pid)
{
	struct uprobe_multi_attr attr = {
		.prog_fd = prog_fd,
		.attach_type = type,
		.path = (uintptr_t)path,
		.offsets = (uintptr_t)offsets,
		.cookies = (uintptr_t)cookies,
		.cnt = n,
		.multi_flags = ret ? UPROBE_MULTI_RETURN : 0,
		.pid = pid > 0 ? pid : 0, /* 0: every process */
	};

	return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
}

/* Do insns load as a uprobe_multi program of attach type, and can a
 * link of it be made here? As libbpf 1.3 probes it: a path that is not
 * a file gives EBADF, after every other check passed. */
static bool links_here(const struct bpf_insn *insns, size_t n, int type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, n,
				 &opts),
	    link;
	__u64 off = 0;

	if (prog < 0)
		return false;
	link = kernel_link_uprobe_multi(prog, type, "/", &off, NULL, 1, false,
					0);
	if (link >= 0)
		close(link);
	else
		link = -errno;
	close(prog);
	return link == -EBADF;
}

/* BPF_TRACE_UPROBE_MULTI's value from kernel BTF (without BTF, the
 * UAPI's), when a link of it can be made here; 0 when not. */
int uprobe_multi_attach_type(void)
{
	struct bpf_insn ret0[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K}, /* r0 = 0 */
		{.code = BPF_JMP | BPF_EXIT},
	};
	int type = kbtf_enum_value("bpf_attach_type", "BPF_TRACE_UPROBE_MULTI");

	if (type < 0)
		type = 48; /* no BTF to ask: its UAPI value, never renumbered */
	return type > 0 && links_here(ret0, ARRAY_SIZE(ret0), type) ? type : 0;
}

int kernel_kfunc_id(const char *name)
{
	return kbtf_available() ? kbtf_func_id(name) : -1;
}

/* BPF_TRACE_UPROBE_SESSION from the kernel's BTF, when a program of it
 * that calls both kfuncs loads and a link of it can be made; 0 when
 * not. */
static int probe_session(void)
{
	int type = kbtf_available()
			   ? kbtf_enum_value("bpf_attach_type",
					     "BPF_TRACE_UPROBE_SESSION")
			   : -1,
	    is_ret = kernel_kfunc_id("bpf_session_is_return"),
	    cookie = kernel_kfunc_id("bpf_session_cookie");
	struct bpf_insn insns[] = {
		{.code = BPF_JMP | BPF_CALL,
		 .src_reg = BPF_PSEUDO_KFUNC_CALL,
		 .imm = is_ret},
		{.code = BPF_JMP | BPF_CALL,
		 .src_reg = BPF_PSEUDO_KFUNC_CALL,
		 .imm = cookie},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K}, /* r0 = 0 */
		{.code = BPF_JMP | BPF_EXIT},
	};

	if (type <= 0 || is_ret < 0 || cookie < 0)
		return 0;
	return links_here(insns, ARRAY_SIZE(insns), type) ? type : 0;
}

int uprobe_session_attach_type(void)
{
	static int known = -1;

	if (known < 0)
		known = probe_session();
	return known;
}
