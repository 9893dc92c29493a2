// SPDX-License-Identifier: GPL-2.0
/*
 * memstack's kernel hooks for the modes without uprobes (the allocator's
 * uprobes are in applets/memstack.c, through common/core/uprobe.c): which
 * programs load, and where the kmem tracepoints keep their fields.
 */
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "collect.h"
#include "kernel.h"
#include "memstack.h"
#include "memstack.skel.h"
#include "memstack_hooks.h"

/* mmap, munmap, brk: their own tracepoints, else every syscall's raw_tp */
const char *ms_choose_syscalls(struct memstack_bpf *s)
{
	bool tp = !attach_forced("raw_tp") &&
		  kernel_tracepoint_exists("syscalls", "sys_enter_mmap") &&
		  kernel_tracepoint_exists("syscalls", "sys_exit_mmap") &&
		  kernel_tracepoint_exists("syscalls", "sys_enter_munmap") &&
		  kernel_tracepoint_exists("syscalls", "sys_exit_brk");

	bpf_program__set_autoload(s->progs.ms_enter_mmap, tp);
	bpf_program__set_autoload(s->progs.ms_exit_mmap, tp);
	bpf_program__set_autoload(s->progs.ms_enter_munmap, tp);
	bpf_program__set_autoload(s->progs.ms_exit_brk, tp);
	bpf_program__set_autoload(s->progs.ms_raw_sys_enter, !tp);
	bpf_program__set_autoload(s->progs.ms_raw_sys_exit, !tp);
	if (!tp && !attach_forced("raw_tp"))
		verbose("no syscalls:sys_enter_mmap tracepoints: every "
			"syscall's raw_tp, by number");
	return tp ? "syscalls tracepoints" : "raw_tp sys_enter/sys_exit";
}

static const struct {
	const char *name;
	const char *ptr; /* "ptr", or "pfn" for pages */
	bool page, alloc;
} kevents[MS_K_NEVENTS] = {
	[MS_K_KMALLOC] = {"kmalloc", "ptr", false, true},
	[MS_K_KMALLOC_NODE] = {"kmalloc_node", "ptr", false, true},
	[MS_K_CACHE_ALLOC] = {"kmem_cache_alloc", "ptr", false, true},
	[MS_K_CACHE_ALLOC_NODE] = {"kmem_cache_alloc_node", "ptr", false, true},
	[MS_K_KFREE] = {"kfree", "ptr", false, false},
	[MS_K_CACHE_FREE] = {"kmem_cache_free", "ptr", false, false},
	[MS_K_PAGE_ALLOC] = {"mm_page_alloc", "pfn", true, true},
	[MS_K_PAGE_FREE] = {"mm_page_free", "pfn", true, false},
	[MS_K_PAGE_FREE_BATCHED] = {"mm_page_free_batched", "pfn", true, false},
};

static struct bpf_program *kevent_prog(struct memstack_bpf *s, int ev)
{
	struct bpf_program *p[MS_K_NEVENTS] = {
		s->progs.ms_kmalloc,
		s->progs.ms_kmalloc_node,
		s->progs.ms_cache_alloc,
		s->progs.ms_cache_alloc_node,
		s->progs.ms_kfree,
		s->progs.ms_cache_free,
		s->progs.ms_page_alloc,
		s->progs.ms_page_free,
		s->progs.ms_page_free_batched,
	};

	return p[ev];
}

static unsigned short field_at(const char *event, const char *field,
			       unsigned char *size)
{
	unsigned sz = 0;
	int off = kernel_tracepoint_field("kmem", event, field, &sz);

	*size = sz;
	return off < 0 || off >= 0xffff ? 0xffff : off;
}

/* Where each kmem tracepoint keeps its fields; the ones this kernel
 * lacks (kmalloc_node went in 6.1) are not loaded. */
void ms_choose_kevents(struct memstack_bpf *s)
{

	for (int ev = 0; ev < MS_K_NEVENTS; ev++) {
		struct ms_kfield *k = &s->rodata->kfields[ev];
		bool ok;

		k->ptr = field_at(kevents[ev].name, kevents[ev].ptr,
				  &k->ptr_size);
		if (k->ptr == 0xffff && kevents[ev].page) /* before 4.x */
			k->ptr = 0xffff;
		k->bytes = field_at(kevents[ev].name, "bytes_alloc",
				    &k->bytes_size);
		k->order = field_at(kevents[ev].name, "order", &k->order_size);
		ok = k->ptr != 0xffff &&
		     (!kevents[ev].alloc || kevents[ev].page
			      ? k->order != 0xffff || !kevents[ev].page
			      : k->bytes != 0xffff);
		bpf_program__set_autoload(kevent_prog(s, ev), ok);
		if (!ok && (ev == MS_K_KMALLOC || ev == MS_K_KFREE))
			error_exit("--mode kernel: no usable tracepoint "
				   "kmem:%s (tracefs, CONFIG_TRACING)",
				   kevents[ev].name);
		if (!ok)
			verbose("kmem:%s: not on this kernel",
				kevents[ev].name);
	}
}

int ms_attach_faults(struct collector *c, struct memstack_bpf *s)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	int n = collect_attach_per_cpu(c, s->progs.ms_fault, &attr,
				       "page-faults");

	verbose("page faults: a software perf event on %d CPUs", n);
	return 0;
}
