// SPDX-License-Identifier: GPL-2.0
/*
 * The collector core's lifecycle (see collect.h): set up, open, load
 * and attach (plan.c), start CMD (child.c), a snapshot every interval
 * (drain.c) until a signal, -d or CMD's end, then detach and exit.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "collector.h"
#include "code_changes.h"
#include "kernel_names.h"
#include "kernel.h"
#include "looks.h"
#include "output.h"
#include "output_sink.h"
#include "percpu.h"
#include "privs.h"
#include "sink.h"
#include "stacks.h"
#include "syms.h"
#include "tables_due.h"
#include "trigger.h"
#include "unwind.h"

int collect_ncpus(struct collector *c, int **cpus)
{
	if (!c->cpus)
		c->ncpus = kernel_online_cpus(&c->cpus);
	*cpus = c->cpus;
	return c->ncpus;
}

int collect_attach_per_cpu(struct collector *c, struct bpf_program *prog,
			   struct perf_event_attr *attr, const char *event)
{
	int *cpus, n = collect_ncpus(c, &cpus);

	if (c->npercpu == ARRAY_SIZE(c->percpu))
		error_exit("more than %zu per-CPU events",
			   ARRAY_SIZE(c->percpu));
	c->percpu[c->npercpu++] = percpu_attach(prog, attr, event, cpus, n);
	return n;
}

__u64 collect_unsampled_ns(struct collector *c)
{
	__u64 ns = 0, now = now_ns();

	for (unsigned i = 0; i < c->npercpu; i++)
		ns += percpu_unsampled(c->percpu[i], now);
	return ns;
}

/* CPU hotplug: per-CPU events follow the CPUs that come and go. */
static void poll_cpus(struct collector *c, __u64 now)
{
	if (!c->npercpu || now < c->percpu_next)
		return;
	for (unsigned i = 0; i < c->npercpu; i++)
		percpu_poll(c->percpu[i], now);
	c->percpu_next = now + NS_PER_SEC;
}

int collect_attach_tracepoints(struct collector *c, struct bpf_object *obj,
			       const char *prefix)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
	{
		const char *sec = bpf_program__section_name(p);
		struct bpf_link *l;

		if (!bpf_program__autoload(p) ||
		    strncmp(bpf_program__name(p), prefix, strlen(prefix)) ||
		    (strncmp(sec, "tracepoint/", 11) &&
		     strncmp(sec, "raw_tp/", 7)))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			error_msg("attaching %s: %s", sec, strerror(errno));
			return -errno;
		}
		collect_keep_link(c, l);
	}
	return 0;
}

pid_t collect_cmd_pid(struct collector *c)
{
	return c->child > 0 ? c->child : 0;
}

/* tgid, forked by parent at forked_at and not exec'd since, given its
 * parent's mappings with no /proc/PID/maps read, when the capture of
 * them is good for it: read before the fork, or after it with no change
 * of the parent's code since (every change is seen: c->code_tracked). */
static bool copy_parent(struct collector *c, pid_t tgid, pid_t parent,
			__u64 forked_at)
{
	struct tables_due due;
	bool parent_same;

	if (!ENABLE_SYMBOLIZE || !c->procs ||
	    code_changed_since(c->changes_fd, tgid, forked_at))
		return false;
	if (tables_undue(c, parent, &due)) /* the child copies them */
		tables_build(c, &due);
	parent_same = c->code_tracked &&
		      !code_changed_since(c->changes_fd, parent, forked_at);
	if (proc_syms_inherit(c->procs, tgid, parent, forked_at, parent_same))
		return false;
	unwind_inherit(c->unwind, tgid, parent);
	return true;
}

/* A new process forked: its parent's mappings, where they are good for
 * it. The event was made at the fork: after an exec, the parent's
 * mappings copied would outlive BPF's forgetting them at the exec, and
 * stop every walk of the new image at its leaf until the exec's own
 * event. */
static bool inherit(struct collector *c, const struct sb_event *e)
{
	if (e->type != SB_EV_NEW_TGID || !e->parent ||
	    !copy_parent(c, e->tgid, e->parent, e->forked_at))
		return false;
	looks_inherit(c->looks, e->tgid, e->parent, e->forked_at);
	c->procs_copied++;
	return true;
}

/* A later look at tgid's mappings (looks.h): a fork copied while its
 * parent was looked at takes the parent's again, else they are read */
static enum look_found look_again(void *ctx, pid_t tgid, pid_t parent,
				  __u64 forked_at)
{
	struct collector *c = ctx;
	int read = 0; /* a fork's copy: as if the same */

	if (!parent || !copy_parent(c, tgid, parent, forked_at)) {
		read = unwind_process(c->unwind, tgid);
		if (ENABLE_SYMBOLIZE && c->procs && read >= 0)
			proc_syms_capture(c->procs, tgid);
	}
	if (read < 0 || !unwind_by_frame_pointers(c->unwind, tgid))
		return LOOK_DONE;
	return read ? LOOK_CHANGED : LOOK_SAME;
}

/* The symbol cache's part of a process event. */
static void note_symbols(struct collector *c, const struct sb_event *e)
{
	switch (e->type) {
	case SB_EV_NEW_TGID:
		c->procs_read++;
		/* fall through */
	case SB_EV_UNWIND_MAPS: /* or: its code moved since the capture */
		proc_syms_capture(c->procs, e->tgid);
		break;
	case SB_EV_EXEC:
		proc_syms_exec(c->procs, e->tgid);
		break;
	case SB_EV_EXIT:
		proc_syms_exit(c->procs, e->tgid);
		break;
	}
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct collector *c = ctx;
	const struct sb_event *e = data;

	if (len < sizeof(*e))
		return 0;
	if (e->type == SB_EV_NEW_TGID || e->type == SB_EV_EXEC)
		output_note_process(c->out, e->tgid,
				    e->type == SB_EV_NEW_TGID ? e->parent : 0);
	if (inherit(c, e))
		return 0;
	/* the names first: a read of maps, where the tables below may
	 * parse a large file's .eh_frame for a while, and a short process
	 * exits meanwhile (its rows would keep only addresses) */
	if (ENABLE_SYMBOLIZE && c->procs)
		note_symbols(c, e);
	switch (e->type) {
	case SB_EV_EXEC:
		unwind_exit(c->unwind, e->tgid); /* nothing of it stays */
						 /* fall through */
	case SB_EV_NEW_TGID:
	case SB_EV_UNWIND_MAPS:
		tables_due(c, e->tgid, e->type != SB_EV_UNWIND_MAPS);
		break;
	case SB_EV_EXIT:
		tables_undue(c, e->tgid, NULL);
		unwind_exit(c->unwind, e->tgid);
		looks_forget(c->looks, e->tgid);
		break;
	case SB_EV_CODE_MAPPED: /* once the loader has settled */
		looks_code_mapped(c->looks, e->tgid, now_ns());
		break;
	}
	return 0;
}

/* Returns true when the run should end: a signal, or CMD exited. */
static bool handle_signals(struct collector *c)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(c->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) { /* -T signal */
			capture_signal(c->capture, now_ns());
			continue;
		}
		if (si.ssi_signo != SIGCHLD) {
			verbose("%s: final snapshot", strsignal(si.ssi_signo));
			stop = true;
			continue;
		}
		if (c->child > 0 &&
		    waitpid(c->child, &c->child_status, WNOHANG) == c->child) {
			verbose("%d exited: final snapshot", c->child);
			c->child = -1;
			stop = true;
		}
	}
	return stop;
}

static void setup_wait(struct collector *c)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sigaction old;
	sigset_t set;

	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0)
		perror_exit("epoll");
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	if (trigger_wants_signal(c->o->triggers.spec, c->o->triggers.n))
		sigaddset(&set, SIGUSR1);
	/* under nohup, a hangup is not a reason to stop */
	if (sigaction(SIGHUP, NULL, &old) || old.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	/* Blocked signals are queued even when ignored (a shell's background
	 * job ignores SIGINT), so signalfd sees every one sent from here on. */
	sigprocmask(SIG_BLOCK, &set, NULL);
	c->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigfd < 0)
		perror_exit("signalfd");
	/* a write to a pipe whose reader exited fails with EPIPE instead of
	 * killing the run before it detaches (CMD unblocks it at its start) */
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ev.data.u32 = 0;
	epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->sigfd, &ev);
}

static void add_events(struct collector *c)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 1};

	if (!c->cfg->track_procs)
		return;
	c->events = ring_buffer__new(
		bpf_map__fd(bpf_object__find_map_by_name(c->obj, "sb_events")),
		on_event, c, NULL);
	if (!c->events)
		perror_exit("process event ring");
	c->changes_fd = bpf_map__fd(
		bpf_object__find_map_by_name(c->obj, "sb_code_changes"));
	if (c->unwind)
		c->looks = looks_new(c->changes_fd, look_again, c);
	epoll_ctl(c->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(c->events),
		  &ev);
}

/* The next interval's snapshot is due at next; a slow one skips ahead
 * rather than bursting. */
static void take_interval(struct collector *c, __u64 now, int *failed)
{
	*failed |= collect_snapshot(c, false);
	c->next_snap += c->o->interval;
	if (c->next_snap <= now)
		c->next_snap = now + c->o->interval;
}

static __u64 earliest(__u64 a, __u64 b)
{
	return !a || (b && b < a) ? b : a;
}

static int run_loop(struct collector *c)
{
	__u64 start = now_ns();
	__u64 end = c->o->duration ? start + c->o->duration : 0;
	int failed = 0;

	c->next_snap = c->o->interval && capture_taking(c->capture)
			       ? start + c->o->interval
			       : 0;
	c->percpu_next = start + NS_PER_SEC;
	for (;;) {
		struct epoll_event ev[4];
		__u64 now = now_ns(), until, due = 0;
		int n, timeout;

		/* an interval that ends with the run is the final snapshot,
		 * not one more before a final one a few ms long */
		if (c->next_snap && now >= c->next_snap && !(end && now >= end))
			take_interval(c, now, &failed);
		if (output_reader_gone(c->out))
			break;
		build_due_tables(c);
		poll_cpus(c, now_ns()); /* not now: the snapshot just taken
					 * moved each gone CPU's mark past it */
		/* after it: a source that watches snapshots may have fired */
		if (c->capture)
			due = capture_due(c->capture, now_ns());
		due = earliest(due, looks_run(c->looks, now_ns()));
		if ((end && now >= end) ||
		    c->child < 0) /* CMD could not start */
			break;
		until = earliest(earliest(c->next_snap, end), due);
		until = earliest(until, c->npercpu ? c->percpu_next : 0);
		timeout =
			until ? (int)((until - now + NS_PER_MS - 1) / NS_PER_MS)
			      : -1;
		n = epoll_wait(c->epfd, ev, ARRAY_SIZE(ev), timeout);
		if (n < 0 && errno != EINTR)
			perror_exit("epoll_wait");
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 >= CAPTURE_EV)
				capture_ready(c->capture,
					      ev[i].data.u32 - CAPTURE_EV,
					      now_ns());
			else if (ev[i].data.u32 == 1)
				ring_buffer__consume(c->events);
			else if (ev[i].data.u32 == PIDS_EV) {
				if (pids_gone(c))
					goto done;
			} else if (handle_signals(c))
				goto done;
		}
	}
done:
	/* CMD gone, its SIGCHLD not read (-d or a signal ended the run):
	 * this is its final snapshot too (collect_cmd_pid) */
	if (c->child > 0 &&
	    waitpid(c->child, &c->child_status, WNOHANG) == c->child)
		c->child = -1;
	if (c->events)
		ring_buffer__consume(c->events);
	if (!c->cmd_not_run) /* it said why in one line, and exits 127 */
		failed |= collect_snapshot(c, true);
	return failed;
}

/*
 * The header's text: the applet's line, then the filters the command
 * line set (opts_shown(): -p, -m, --state, ...) on a line of their own,
 * so every snapshot, and report of its bin stream, says what the
 * profile left out. Nothing when no filter is set.
 */
static void describe(struct collector *c, void *args)
{
	const char *filters = opts_shown();
	size_t n;

	if (c->ops->describe)
		c->ops->describe(c, args, c->describe, sizeof(c->describe));
	if (!*filters)
		return;
	verbose("filters: %s", filters);
	n = strlen(c->describe);
	snprintf(c->describe + n, sizeof(c->describe) - n, "%sfilters: %s",
		 n ? "\n" : "", filters);
}

int collect_run(const struct collector_ops *ops, struct collect_opts *o,
		void *args, int argc, char **argv)
{
	char **cmd = argc ? argv : NULL;
	struct collector c = {.ops = ops, .o = o, .args = args, .child = 0};
	int go = -1, status;
	const char *why;

	/* operands only after "--": argv[-1] is what opts_parse stopped at */
	if (argc && strcmp(argv[-1], "--"))
		help_exit("unexpected argument '%s'", argv[0]);
	setup_wait(&c); /* first: a signal sent from now on is not lost */
	verbose_level = o->verbose;
	if ((why = status_open(o->status)))
		error_exit("--status %s: %s", o->status, why);
	libbpf_log_start();
	for (size_t i = 0; i < o->pids.n; i++) {
		pid_t tgid = tgid_of(o->pids.pid[i]);

		if (tgid < 0)
			error_exit("-p %d: no such process", o->pids.pid[i]);
		o->pids.pid[i] = tgid;
	}
	if (cmd && o->pids.n)
		help_exit("-p and -- CMD cannot be used together");
	c.out = output_open(&o->out);
	c.capture = capture_new(
		&c, collect_snapshot); /* -T: a bad spec fails before BPF */
	c.procs = ENABLE_SYMBOLIZE ? output_procs(c.out) : NULL;
	if (cmd)
		c.child = spawn_waiting(cmd, &go, stops_at_exec(&c));
	kbtf_use(o->btf);
	open_load_attach(&c);
	/* privs.c: what is kept */
	privs_after_attach(c.obj, ops->target, c.npercpu > 0);

	c.stacks = stack_cache_new(
		bpf_map__fd(bpf_object__find_map_by_name(c.obj, "sb_stacks")));
	output_set_stacks(c.out, c.stacks);
	if (ENABLE_SYMBOLIZE && !o->user_only) {
		c.knames = kernel_names_open(c.obj);
		output_set_kernel_names(c.out, c.knames);
	}
	for (size_t i = 0; i < o->pids.n; i++) {
		add_tgid(&c, o->pids.pid[i]);
		if (ENABLE_SYMBOLIZE && c.procs) /* now, while they live */
			proc_syms_capture(c.procs, o->pids.pid[i]);
		unwind_process(c.unwind, o->pids.pid[i]);
		if (ops->target)
			ops->target(&c, c.skel, args, o->pids.pid[i]);
	}
	add_events(&c);
	watch_pids(&c);
	if (c.capture)
		capture_watch(c.capture, c.epfd);
	describe(&c, args);
	if (go >= 0)
		start_child(&c, go, cmd[0]);
	/* a status record is one line: the applet's line, then the filters */
	status_say("started, pid filter %s, %.*s%s%s",
		   c.child || o->pids.n ? "on" : "off",
		   (int)strcspn(c.describe, "\n"), c.describe,
		   *opts_shown() ? "; filters: " : "", opts_shown());
	status = run_loop(&c) ? 1 : 0;
	status_say("stopped after %lu snapshots", c.seq);
	verbose("stopped after %lu snapshots", c.seq);
	if (c.procs_read || c.procs_copied)
		verbose("new processes: %lu had their mappings read, %lu "
			"forks not exec'd were given their parent's",
			c.procs_read, c.procs_copied);
	if (c.unwind)
		verbose("user stacks: %llu walked by the tables, %llu more a "
			"thread's last walk again",
			(unsigned long long)c.stats_prev[SB_STAT_UNWIND_WALKS],
			(unsigned long long)
				c.stats_prev[SB_STAT_UNWIND_RECALLED]);

	ring_buffer__free(c.events);
	free(c.tables_due);
	capture_free(c.capture);
	destroy_bpf(&c);
	unwind_free(c.unwind);
	looks_free(c.looks);
	stack_cache_free(c.stacks);
	if (output_close(c.out))
		status = 1;
	if (ENABLE_SYMBOLIZE && c.knames) {
		verbose("kernel frames: %lu addresses named by the kernel",
			kernel_names_asked(c.knames));
		kernel_names_free(c.knames);
	}
	if (c.child > 0) { /* stopped by -d or a signal: CMD goes on */
		verbose("%s (pid %d) is still running", cmd[0], c.child);
	} else if (c.child < 0) {
		if (WIFEXITED(c.child_status))
			status = WEXITSTATUS(c.child_status);
		else if (WIFSIGNALED(c.child_status))
			status = 128 + WTERMSIG(c.child_status);
	}
	unwatch_pids(&c);
	free(c.links);
	free(c.cpus);
	return status;
}
