// SPDX-License-Identifier: GPL-2.0
/*
 * Capabilities after attach. Loading and attaching BPF needs CAP_BPF,
 * CAP_PERFMON (and CAP_SYS_ADMIN, CAP_SYS_RESOURCE on older kernels);
 * the rest of a run only reads, so a bug in the code that parses what
 * containers put in front of us cannot use more than this:
 *
 *   sys_ptrace       /proc/PID/maps and /proc/PID/root of processes of
 *                    other users, or not dumpable (ptrace read access)
 *   dac_read_search  their files inside that root, whatever their modes
 *                    (read only: dac_override, which writes, is dropped)
 *   checkpoint_restore  /proc/PID/map_files/, for mapped files since
 *                    deleted (an upgraded library, a memfd)
 *   syslog           /proc/kallsyms addresses (kptr_restrict=1), read at
 *                    the first kernel frame, after attach
 *   bpf, perfmon     only for applets that attach to processes as they
 *                    start (memstack's uprobes), or open per-CPU perf
 *                    events again (oncpu: a CPU back from offline, whose
 *                    old event the kernel dropped), or where the kernel
 *                    still wants CAP_BPF for reading our own maps (tried
 *                    in a child: before 6.5 every bpf() call checked it)
 *   sys_admin        the same, on kernels older than CAP_BPF (5.8); and
 *                    for applets that attach later: perf event uprobes
 *                    (memstack before uprobe_multi, 6.6) fail with EACCES
 *                    without it (measured on 6.18); and to open perf
 *                    events where perf_event_paranoid is above 2
 *                    (Debian's kernels: EACCES on the 6.12 board)
 *
 * Raw capget/capset: libcap is not a dependency for five calls.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "privs.h"
#include "stackbox.h"

#define SB_CAP_PERFMON		  38
#define SB_CAP_BPF		  39
#define SB_CAP_CHECKPOINT_RESTORE 40

struct caps {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
};

static const struct {
	unsigned cap;
	const char *name;
} cap_names[] = {
	{CAP_DAC_OVERRIDE, "dac_override"},
	{CAP_DAC_READ_SEARCH, "dac_read_search"},
	{CAP_SYS_PTRACE, "sys_ptrace"},
	{CAP_SYS_ADMIN, "sys_admin"},
	{CAP_SYS_RESOURCE, "sys_resource"},
	{CAP_SYSLOG, "syslog"},
	{SB_CAP_PERFMON, "perfmon"},
	{SB_CAP_BPF, "bpf"},
	{SB_CAP_CHECKPOINT_RESTORE, "checkpoint_restore"},
};

static int caps_get(struct caps *c)
{
	memset(c, 0, sizeof(*c));
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capget, &c->hdr, c->data);
}

static int caps_set(struct caps *c)
{
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	c->hdr.pid = 0;
	return syscall(SYS_capset, &c->hdr, c->data);
}

static uint64_t caps_eff(const struct caps *c)
{
	return c->data[0].effective | (uint64_t)c->data[1].effective << 32;
}

/* Effective and permitted become keep & permitted; inheritable none. */
static int caps_limit(uint64_t keep)
{
	struct caps c;
	uint64_t perm;

	if (caps_get(&c))
		return -1;
	perm = (c.data[0].permitted | (uint64_t)c.data[1].permitted << 32) &
	       keep;
	for (int i = 0; i < 2; i++) {
		c.data[i].permitted = perm >> (32 * i);
		c.data[i].effective = perm >> (32 * i);
		c.data[i].inheritable = 0;
	}
	return caps_set(&c);
}

/* Does reading our own map still need CAP_BPF (or CAP_SYS_ADMIN)? A
 * child gives them up and tries. */
static bool map_reads_need_bpf(struct bpf_object *obj, uint64_t keep)
{
	struct bpf_map *m = obj ? bpf_object__next_map(obj, NULL) : NULL;
	int status, fd = m ? bpf_map__fd(m) : -1;
	pid_t pid;

	if (fd < 0)
		return false;
	pid = fork();
	if (pid < 0)
		return true;
	if (!pid) {
		char *key = calloc(1, bpf_map__key_size(m) + 8);

		if (!key || caps_limit(keep))
			_exit(2);
		_exit(bpf_map_get_next_key(fd, NULL, key) && errno == EPERM);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static bool kernel_knows(unsigned cap)
{
	char *s = read_file("/proc/sys/kernel/cap_last_cap", NULL);
	bool known = s && (unsigned)atoi(s) >= cap;

	free(s);
	return known;
}

/* perf_event_paranoid above 2 (Debian's and Android's kernels) lets
 * only CAP_SYS_ADMIN open perf events, whatever CAP_PERFMON says. */
static bool perf_needs_admin(void)
{
	char *s = read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	bool admin = s && atoi(s) > 2;

	free(s);
	return admin;
}

void privs_after_attach(struct bpf_object *obj, bool attaches_later,
			bool reopens_events)
{
	uint64_t keep = 1ULL << CAP_SYS_PTRACE | 1ULL << CAP_DAC_READ_SEARCH |
			1ULL << SB_CAP_CHECKPOINT_RESTORE | 1ULL << CAP_SYSLOG;
	uint64_t bpf = 1ULL << SB_CAP_BPF | 1ULL << SB_CAP_PERFMON;
	char kept[256];

	if (!kernel_knows(SB_CAP_BPF) || attaches_later ||
	    (reopens_events && perf_needs_admin()))
		bpf |= 1ULL << CAP_SYS_ADMIN;
	if (attaches_later || reopens_events || map_reads_need_bpf(obj, keep))
		keep |= bpf;
	if (caps_limit(keep)) {
		perror_msg("giving up capabilities after attach");
		return;
	}
	privs_describe(kept, sizeof(kept));
	verbose("capabilities kept after attach: %s", kept);
}

bool privs_can_bpf(void)
{
	struct caps c;
	uint64_t eff = caps_get(&c) ? 0 : caps_eff(&c);
	uint64_t bpf = 1ULL << SB_CAP_BPF | 1ULL << SB_CAP_PERFMON;

	return (eff & 1ULL << CAP_SYS_ADMIN) ||
	       (kernel_knows(SB_CAP_BPF) && (eff & bpf) == bpf);
}

void privs_describe(char *buf, unsigned len)
{
	struct caps c;
	uint64_t eff = caps_get(&c) ? 0 : caps_eff(&c);
	unsigned used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cap_names) && used < len; i++)
		if (eff & 1ULL << cap_names[i].cap)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", cap_names[i].name);
	if (!used)
		snprintf(buf, len, "none");
}
