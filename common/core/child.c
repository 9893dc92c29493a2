// SPDX-License-Identifier: GPL-2.0
/* The processes a run follows: -p PID's, and CMD, started once attached
 * and stopped at its exec and at its entry point (entry.c). */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"
#include "syms.h"
#include "tables_due.h"
#include "unwind.h"

pid_t tgid_of(pid_t pid)
{
	char path[64], *s, *t;
	pid_t tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	s = read_file(path, NULL);
	if (s && (t = strstr(s, "\nTgid:")))
		tgid = atoi(t + 6);
	free(s);
	return tgid;
}

void add_tgid(struct collector *c, pid_t tgid)
{
	__u8 one = 1;
	__u32 key = tgid;

	if (bpf_map__update_elem(
		    bpf_object__find_map_by_name(c->obj, "sb_tgids"), &key,
		    sizeof(key), &one, sizeof(one), BPF_ANY))
		perror_exit("adding process %d to the filter", tgid);
}

/*
 * The child waits on a pipe until everything is attached, then stops at
 * its exec (PTRACE_TRACEME): its mappings are read before it runs, so a
 * CMD that exits before its first process event is handled still
 * resolves, and the applet attaches to its libraries (ops->target).
 */
bool stops_at_exec(const struct collector *c)
{
	return ENABLE_SYMBOLIZE || c->ops->target;
}

pid_t spawn_waiting(char **cmd, int *go, bool stop_at_exec)
{
	int p[2];
	pid_t pid;
	char byte;

	if (pipe2(p, O_CLOEXEC))
		perror_exit("pipe");
	pid = fork();
	if (pid < 0)
		perror_exit("fork");
	if (!pid) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[1]);
		if (read(p[0], &byte, 1) != 1)
			_exit(127); /* the collector gave up before attaching */
		if (stop_at_exec)
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(cmd[0], cmd);
		perror_msg("cannot run %s", cmd[0]);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

void start_child(struct collector *c, int go, const char *name)
{
	int st;

	if (!stops_at_exec(c)) /* it is not stopped at its exec */
		add_tgid(c, c->child);
	if (write(go, "g", 1) != 1)
		perror_exit("starting %s", name);
	close(go);
	if (!stops_at_exec(c))
		return;
	if (waitpid(c->child, &st, 0) != c->child)
		perror_exit("waiting for %s to start", name);
	if (!WIFSTOPPED(st)) { /* exec failed: it has exited */
		c->child_status = st;
		c->child = -1;
		c->cmd_not_run = true;
		return;
	}
	/* profiled from its exec: before it, it was this program waiting */
	add_tgid(c, c->child);
	/* its libraries too: their symbols and unwind tables are read
	 * before it runs */
	if (collect_run_to_entry(c->child, &st) < 0) {
		c->child_status = st;
		c->child = -1;
		return;
	}
	/* events from before the exec first, so none is handled after this */
	if (c->events)
		ring_buffer__consume(c->events);
	if (c->procs)
		proc_syms_capture(c->procs, c->child);
	tables_now(c, c->child);
	if (c->ops->target)
		c->ops->target(c, c->skel, c->args, c->child);
	ptrace(PTRACE_DETACH, c->child, NULL, NULL);
}

/*
 * -p: a run whose processes have all exited has nothing left to count,
 * so it ends as a CMD's does, with a final snapshot, as perf record -p
 * does. A pidfd (Linux 5.3) turns readable when its process exits;
 * without one the run goes on to -d or a signal, and -v says so.
 */
void watch_pids(struct collector *c)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = PIDS_EV};
	size_t n = c->o->pids.n;

	if (!n)
		return;
	c->pidfds = xmalloc(n * sizeof(*c->pidfds));
	for (size_t i = 0; i < n; i++) {
		int fd = syscall(SYS_pidfd_open, c->o->pids.pid[i], 0);

		if (fd < 0) {
			verbose("-p %d: no pidfd (%s): the run does not end "
				"when it exits",
				c->o->pids.pid[i], strerror(errno));
			c->pids_alive = 0;
			unwatch_pids(c);
			return;
		}
		c->pidfds[i] = fd;
		epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev);
		c->pids_alive++;
	}
}

void unwatch_pids(struct collector *c)
{
	for (size_t i = 0; c->pidfds && i < c->o->pids.n; i++)
		if (c->pidfds[i] >= 0)
			close(c->pidfds[i]);
	free(c->pidfds);
	c->pidfds = NULL;
}

bool pids_gone(struct collector *c)
{
	for (size_t i = 0; c->pidfds && i < c->o->pids.n; i++) {
		struct pollfd p = {.fd = c->pidfds[i], .events = POLLIN};

		if (p.fd < 0 || poll(&p, 1, 0) != 1)
			continue;
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, p.fd, NULL);
		close(p.fd);
		c->pidfds[i] = -1;
		c->pids_alive--;
		error_msg("-p %d: exited%s", c->o->pids.pid[i],
			  c->pids_alive ? "" : ": final snapshot");
	}
	return c->pidfds && !c->pids_alive;
}
