/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run state the core's files share (collect.c the lifecycle, plan.c
 * the attach plan, child.c CMD, drain.c the interval's rows,
 * libbpf_log.c libbpf's messages). Applets see struct collector only as
 * a handle.
 */
#ifndef STACKBOX_COLLECTOR_H
#define STACKBOX_COLLECTOR_H

#include <time.h>

#include "collect.h"
#include "kernel.h"
#include "libbpf_log.h"

#define MAX_HOOKS 8

struct tables_due {
	pid_t tgid;
	bool look; /* a new process, or an exec: looks.h */
	__u64 at;  /* when its event came (CLOCK_MONOTONIC ns) */
};

struct collector {
	const struct collector_ops *ops;
	struct collect_opts *o;
	void *args;
	void *skel;
	struct bpf_object *obj;
	struct sb_config *cfg;
	struct sb_ctl *ctl; /* BPF's .bss: the interval's map, the gate */
	unsigned choice[MAX_HOOKS];
	struct { /* kprobe and fentry alternatives' functions in kallsyms */
		const char *name[32];
		char as[32][KSYM_LEN]; /* the symbol each was found as */
		unsigned n, found;
		bool scanned;
	} kfuncs;
	struct bpf_link **links;
	size_t nlinks, links_cap;
	int sigfd, epfd;
	struct ring_buffer *events;
	int changes_fd;	   /* sb_code_changes: when each process last
			    * changed its code */
	bool code_tracked; /* every change: mmap and mprotect too */
	struct stack_cache *stacks;
	struct output *out;
	struct proc_syms *procs;
	struct unwind *unwind;
	struct looks *looks; /* mappings read again after an exec */
	__u64 stats_prev[SB_STAT_MAX];
	bool said_no_quiesce; /* -v said the drain sleeps instead */
	pid_t child;
	int child_status;
	bool cmd_not_run; /* CMD's exec failed: nothing to snapshot */
	int *pidfds;	  /* -p's processes, -1 once gone (child.c) */
	size_t pids_alive;
	int *cpus, ncpus;
	/* per-CPU perf events, read again each second for CPU hotplug */
	struct percpu_events *percpu[2];
	unsigned npercpu;
	uint64_t percpu_next; /* CLOCK_MONOTONIC ns */
	char describe[512];   /* the applet's line, then "filters: ..." */
	unsigned long seq;
	/* new processes whose mappings were read, and forks given their
	 * parent's instead (SB_EV_NEW_TGID) */
	unsigned long procs_read, procs_copied;
	/* processes whose unwind tables are due (tables_due.h): built
	 * after the events at hand have had their mappings read */
	struct tables_due *tables_due;
	size_t ntables_due, tables_due_cap;
	struct kernel_names *knames; /* kernel frames' names; NULL: kallsyms */
	/* CLOCK_BOOTTIME ns: it counts suspend and never jumps, so an
	 * interval is as long as it was when the wall clock is set */
	uint64_t interval_start;
	struct timespec interval_wall; /* the same instant, CLOCK_REALTIME */
	uint64_t next_snap;	       /* CLOCK_MONOTONIC ns; 0: none due */
	struct capture *capture;       /* -T: triggers, the flight recorder */
};

/* plan.c: open, configure, load and attach, falling back as needed;
 * then the links and the object go, links closed in parallel. */
void open_load_attach(struct collector *c);
void destroy_bpf(struct collector *c);

/* child.c: -p and -- CMD */
pid_t tgid_of(pid_t pid);
void add_tgid(struct collector *c, pid_t tgid);
bool stops_at_exec(const struct collector *c);
pid_t spawn_waiting(char **cmd, int *go, bool stop_at_exec);
void start_child(struct collector *c, int go, const char *name);
/* epoll data of -p's processes' pidfds */
#define PIDS_EV 2
/* Watch -p's processes on c->epfd, and close what is left at the end. */
void watch_pids(struct collector *c);
void unwatch_pids(struct collector *c);
/* A pidfd woke epoll: true when every -p process has exited. */
bool pids_gone(struct collector *c);

/* drain.c: drain, merge and emit one interval; nonzero when a sink
 * failed. */
int collect_snapshot(struct collector *c, bool final);

/* An interval starts now, where counting begins: the first attach, a
 * trigger's window opening. (The next starts at each snapshot.) */
static inline void collect_interval_begin(struct collector *c)
{
	c->interval_start = boot_ns();
	clock_gettime(CLOCK_REALTIME, &c->interval_wall);
}

#endif
