// SPDX-License-Identifier: GPL-2.0
/* rastack: readahead pages used and unused, per stack that started it.
 *
//config:config RASTACK
//config:	bool "rastack: readahead pages used and unused per call stack"
//config:	default y
//config:	help
//config:	  Counts the pages each call stack made the kernel read ahead,
//config:	  and how many of them were then read, faulted or mapped
//config:	  before they left the page cache: where readahead wastes
//config:	  flash bandwidth, page cache and boot time.
//usage:usage: rastack [--value used|unused|total] [--pages N] [OPTIONS] [-- CMD [ARG]...]
//usage:
//usage:Count, per stack that started a readahead, the pages it read ahead,
//usage:how many of those were used (read, faulted or mapped) and how many
//usage:were not (evicted unused, or still unused). Values are pages,
//usage:counted from the start of the run; used + unused = read ahead.
//usage:
//usage:  --value WHICH    what folded shows and text sorts by: unused
//usage:                   (default), used or total (pages read ahead)
//usage:  --pages N        track up to N pages at once (1048576), in runs of
//usage:                   64 pages of one file (a 112-byte map entry each,
//usage:                   allocated at start); more are counted as lost
//usage:@COMMON
//usage:
//usage:STACKBOX_ATTACH=raw_tp|tracepoint|fentry|kprobe forces the way to attach.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "mapwalk.h"
#include "output.h"
#include "rastack.h"
#include "rastack.skel.h"

struct rastack_args {
	struct collect_opts common;
	int value; /* enum ra_metric */
	long long pages;
	bool order_asked, have_order;	/* have_order()'s answer */
	bool starts_asked, want_starts; /* want_read_starts()'s */
	struct {	     /* kernel struct offsets, from BTF once */
		int off[14]; /* one per layout_fields entry; -1: missing */
		int pg_head; /* PG_head, where _flags_1 has the order; -1 */
		bool raw[RA_NTP]; /* the raw tracepoint's arguments are ours */
		bool done;
	} layout;
};

static const char *const value_names[RA_NMETRICS] = {
	[RA_TOTAL] = "total", [RA_USED] = "used", [RA_UNUSED] = "unused"};
static const struct opt_names values = {value_names, RA_NMETRICS,
					"not a value (used, unused, total)"};

static const struct opt rastack_opts[] = {
	OPT_TABLE(0, "value", "WHICH", opt_name, struct rastack_args, value,
		  values, "unused", .flags = OPT_SHOWN),
	OPT_INT(0, "pages", "N", struct rastack_args, pages, RA_RUN_PAGES,
		1LL << 26, "1048576"),
	OPT_INCLUDE(collect_options, struct rastack_args, common),
	OPT_END,
};

static const struct metric rastack_metrics[RA_NMETRICS] = {
	[RA_TOTAL] = {"read ahead", METRIC_COUNT, .level = true,
		      .measure = MEASURE_PAGES},
	[RA_USED] = {"used", METRIC_COUNT, .level = true,
		     .measure = MEASURE_PAGES},
	[RA_UNUSED] = {"unused", METRIC_COUNT, .level = true,
		       .measure = MEASURE_PAGES},
	[RA_RATIO] = {"used ratio", METRIC_RATIO, RA_USED, RA_TOTAL},
};

/* ---- what this kernel has: probed once, before load ---- */

/* The tracepoints: what they are, the classic one's program and the
 * fields it reads, and how many arguments the raw one's BTF prototype
 * takes (btf_trace_NAME: the context, then the tracepoint's). */
static const struct {
	const char *category, *name, *prog, *arg;
	int params;
} tracepoints[RA_NTP] = {
	[RA_TP_ADD] = {"filemap", "mm_filemap_add_to_page_cache", "ra_tp_add",
		       "order", 2},
	[RA_TP_DELETE] = {"filemap", "mm_filemap_delete_from_page_cache",
			  "ra_tp_delete", "order", 2},
	[RA_TP_UNBOUNDED] = {"readahead", "page_cache_ra_unbounded",
			     "ra_tp_unbounded", "nr_to_read", 5},
	[RA_TP_ORDER] = {"readahead", "page_cache_ra_order", "ra_tp_order",
			 "size", 4},
	[RA_TP_GET_PAGES] = {"filemap", "mm_filemap_get_pages",
			     "ra_tp_get_pages", "last_index", 4},
	[RA_TP_FAULT] = {"filemap", "mm_filemap_fault", "ra_tp_fault", NULL, 3},
	[RA_TP_MAP_PAGES] = {"filemap", "mm_filemap_map_pages",
			     "ra_tp_map_pages", "last_index", 4},
	[RA_TP_SYNC] = {"readahead", "page_cache_sync_ra", "ra_tp_sync",
			"req_count", 5},
};

/* Does the raw tracepoint pass the arguments its program reads? */
static bool raw_params(enum ra_tp which)
{
	char proto[96];

	snprintf(proto, sizeof(proto), "btf_trace_%s", tracepoints[which].name);
	return kbtf_proto_params(proto) == tracepoints[which].params;
}

/* Kernel struct offsets for the raw tracepoint, fentry and kprobe
 * paths; -1: missing. */
static const struct {
	const char *type, *member, *alt_type;
} layout_fields[] = {
	{"address_space", "host"},
	{"inode", "i_ino"},
	{"inode", "i_sb"},
	{"super_block", "s_dev"},
	{"readahead_control", "mapping"},
	{"readahead_control", "_index"},
	{"file_ra_state", "size"},
	{"vm_fault", "vma"},
	{"vm_fault", "pgoff"},
	{"vm_area_struct", "vm_file"},
	{"file", "f_mapping"},
	{"folio", "mapping", "page"}, /* before folios (5.16): page */
	{"folio", "index", "page"},
	{"folio", "_flags_1"},
};
#define NLAYOUT ARRAY_SIZE(layout_fields)
_Static_assert(sizeof(struct ra_kernel_layout) == (NLAYOUT + 1) * sizeof(__u16),
	       "one offset per layout_fields entry, then pg_head");
/* which of them each way to attach needs, as bits */
#define L_FILE	(0xfu) /* mapping -> inode -> dev, ino */
#define L_RACTL (L_FILE | 0x30u)
#define L_ORDER (L_RACTL | 0x40u)
#define L_VMF	(L_FILE | 0x780u)
#define L_FOLIO (L_FILE | 0x1800u)
#define L_INODE (0xeu) /* inode -> dev, ino */
/* a folio's order: _flags_1 and PG_head (LARGE: not a layout entry) */
#define L_LARGE	      (1u << 15)
#define L_FOLIO_ORDER (L_FOLIO | 0x2000u | L_LARGE)

static int *kernel_layout(struct rastack_args *a)
{
	if (a->layout.done)
		return a->layout.off;
	a->layout.done = true;
	for (size_t i = 0; i < NLAYOUT; i++) {
		a->layout.off[i] = kbtf_member(layout_fields[i].type,
					       layout_fields[i].member, NULL);
		if (a->layout.off[i] < 0 && layout_fields[i].alt_type)
			a->layout.off[i] =
				kbtf_member(layout_fields[i].alt_type,
					    layout_fields[i].member, NULL);
	}
	/* folio_order() reads the low byte of _flags_1 since 6.6; before,
	 * _folio_order had the order, and _flags_1 a tail page's flags */
	a->layout.pg_head = -1;
	if (kbtf_member("folio", "_folio_order", NULL) < 0) {
		long long bit = kbtf_enum_value("pageflags", "PG_head");

		if (bit > 0 && bit < 64)
			a->layout.pg_head = bit;
	}
	for (enum ra_tp t = 0; t < RA_NTP; t++)
		a->layout.raw[t] = raw_params(t);
	return a->layout.off;
}

static bool have_layout(struct rastack_args *a, unsigned need)
{
	int *off = kernel_layout(a);

	for (size_t i = 0; i < NLAYOUT; i++)
		if ((need & (1u << i)) && off[i] < 0)
			return false;
	return !(need & L_LARGE) || a->layout.pg_head >= 0;
}

static bool find_tp_field(enum ra_tp which, const char *field,
			  struct ra_tp_field *out)
{
	unsigned size = 0;
	int off =
		kernel_tracepoint_field(tracepoints[which].category,
					tracepoints[which].name, field, &size);

	/* BPF reads it from a copy on its stack: aligned, in the copy */
	if (off < 0 || !(size == 1 || size == 2 || size == 4 || size == 8) ||
	    off % size || off + size > RA_TP_RECORD)
		return false;
	out->off = off;
	out->size = size;
	return true;
}

/* A tracepoint is usable when it has the fields we read (an order is
 * optional: before large folios, pages are order 0). */
static bool tp_layout(enum ra_tp which, struct ra_tp_layout *l)
{
	struct ra_tp_layout none = {0};

	*l = none;
	if (!find_tp_field(which, "i_ino", &l->ino) ||
	    !find_tp_field(which, "s_dev", &l->dev) ||
	    !find_tp_field(which, "index", &l->index))
		return false;
	if (tracepoints[which].arg &&
	    !find_tp_field(which, tracepoints[which].arg, &l->arg) &&
	    strcmp(tracepoints[which].arg, "order"))
		return false;
	for (const struct ra_tp_field *f = &l->ino; f <= &l->arg; f++)
		if (f->off + f->size > l->len)
			l->len = (f->off + f->size + 7) & ~7;
	return true;
}

/* An alternative's requires bits: the layout bits (L_*) its program
 * reads at BTF offsets, or the classic tracepoint whose fields it
 * reads, or (RAW) the raw tracepoint whose arguments it reads, and
 * layout bits. */
#define REQ_TP(which)	     ((which + 1u) << 16)
#define REQ_RAW(which, need) (1u << 24 | REQ_TP(which) | (need))

static bool rastack_requires(struct collector *c, void *args, unsigned bits)
{
	struct rastack_args *a = args;
	enum ra_tp which = ((bits >> 16) & 0xff) - 1;
	struct ra_tp_layout l;

	if (bits >> 24)
		return have_layout(a, bits & 0xffff) && a->layout.raw[which];
	if (bits >> 16)
		return tp_layout(which, &l);
	return have_layout(args, bits);
}

/* Raw tracepoints first: a classic one's link, closed, waits for an
 * RCU grace period under a kernel-wide mutex (~25 ms a link, one after
 * the other), a raw one's returns at once. They need kernel types (the
 * layouts, and the btf_trace_NAME prototype that says the tracepoint is
 * there), not tracefs. */
#define RAW(prog, which, need)                                              \
	{                                                                   \
		prog, "raw_tp", KF_LAYOUT, NULL, NULL, REQ_RAW(which, need) \
	}
#define TP(prog, which, category, name)                            \
	{                                                          \
		prog, "tracepoint", KF_TRACEPOINT, category, name, \
			REQ_TP(which)                              \
	}
#define FENTRY(prog, fn, need)                            \
	{                                                 \
		prog, "fentry", KF_FENTRY, NULL, fn, need \
	}
#define KPROBE(prog, fn, need)                            \
	{                                                 \
		prog, "kprobe", KF_KPROBE, NULL, fn, need \
	}

static const struct attach_alt add_alts[] = {
	RAW("ra_raw_add", RA_TP_ADD, L_FOLIO_ORDER),
	TP("ra_tp_add", RA_TP_ADD, "filemap", "mm_filemap_add_to_page_cache"),
	{NULL},
};
static const struct attach_alt delete_alts[] = {
	RAW("ra_raw_delete", RA_TP_DELETE, L_FOLIO_ORDER),
	TP("ra_tp_delete", RA_TP_DELETE, "filemap",
	   "mm_filemap_delete_from_page_cache"),
	{NULL},
};
static const struct attach_alt readahead_alts[] = {
	RAW("ra_raw_unbounded", RA_TP_UNBOUNDED, L_INODE),
	TP("ra_tp_unbounded", RA_TP_UNBOUNDED, "readahead",
	   "page_cache_ra_unbounded"),
	FENTRY("ra_fentry_unbounded", "page_cache_ra_unbounded", L_RACTL),
	KPROBE("ra_kprobe_unbounded", "page_cache_ra_unbounded", L_RACTL),
	KPROBE("ra_kprobe_unbounded_old", "page_cache_readahead_unbounded",
	       L_FILE),
	KPROBE("ra_kprobe_do_ra", "__do_page_cache_readahead", L_FILE),
	{NULL},
};
static const struct attach_alt order_alts[] = {
	RAW("ra_raw_order", RA_TP_ORDER, L_INODE | 0x40u),
	TP("ra_tp_order", RA_TP_ORDER, "readahead", "page_cache_ra_order"),
	FENTRY("ra_fentry_order", "page_cache_ra_order", L_ORDER),
	KPROBE("ra_kprobe_order", "page_cache_ra_order", L_ORDER),
	{NULL},
};
/* The mm_filemap_get_pages ones need the read starts too (below) */
static const struct attach_alt read_alts[] = {
	RAW("ra_raw_get_pages", RA_TP_GET_PAGES, L_FILE),
	TP("ra_tp_get_pages", RA_TP_GET_PAGES, "filemap",
	   "mm_filemap_get_pages"),
	FENTRY("ra_fentry_accessed", "folio_mark_accessed", L_FOLIO),
	KPROBE("ra_kprobe_accessed", "folio_mark_accessed", L_FOLIO),
	KPROBE("ra_kprobe_page_accessed", "mark_page_accessed", L_FOLIO),
	{NULL},
};
static const struct attach_alt read_start_alts[] = {
	RAW("ra_raw_sync", RA_TP_SYNC, L_INODE),
	TP("ra_tp_sync", RA_TP_SYNC, "readahead", "page_cache_sync_ra"),
	FENTRY("ra_fentry_sync", "page_cache_sync_ra", L_RACTL),
	KPROBE("ra_kprobe_sync", "page_cache_sync_ra", L_RACTL),
	{NULL},
};
static const struct attach_alt fault_alts[] = {
	RAW("ra_raw_fault", RA_TP_FAULT, L_FILE),
	TP("ra_tp_fault", RA_TP_FAULT, "filemap", "mm_filemap_fault"),
	FENTRY("ra_fentry_fault", "filemap_fault", L_VMF),
	KPROBE("ra_kprobe_fault", "filemap_fault", L_VMF),
	{NULL},
};
static const struct attach_alt map_alts[] = {
	RAW("ra_raw_map_pages", RA_TP_MAP_PAGES, L_FILE),
	TP("ra_tp_map_pages", RA_TP_MAP_PAGES, "filemap",
	   "mm_filemap_map_pages"),
	FENTRY("ra_fentry_map_pages", "filemap_map_pages", L_VMF),
	KPROBE("ra_kprobe_map_pages", "filemap_map_pages", L_VMF),
	{NULL},
};

/* Large-folio readahead (5.18+) adds its folios itself; before it,
 * every readahead went through the unbounded one. Asked once: the plan
 * asks again after load, when kernel types are released. */
static bool have_order(struct collector *c, void *args)
{
	struct rastack_args *ra = args;

	if (!ra->order_asked) {
		ra->order_asked = true;
		for (const struct attach_alt *a = order_alts; a->prog; a++)
			if (collect_alt_usable(c, a)) {
				ra->have_order = true;
				break;
			}
	}
	return ra->have_order;
}

/* mm_filemap_get_pages says nothing of the folios a call returns when
 * it drops its last one to wait for its I/O: a read that found nothing
 * cached takes its start from page_cache_sync_ra. (folio_mark_accessed
 * names every folio.) Asked once, as have_order. */
static bool want_read_starts(struct collector *c, void *args)
{
	struct rastack_args *ra = args;
	const struct attach_hook reads = {"reads", read_alts},
				 starts = {"read starts", read_start_alts};
	int pick;

	if (ra->starts_asked)
		return ra->want_starts;
	ra->starts_asked = true;
	pick = collect_pick_alt(c, &reads, 0, NULL);
	if (pick < 0 || !strstr(read_alts[pick].prog, "get_pages"))
		return false;
	ra->want_starts = collect_pick_alt(c, &starts, 0, NULL) >= 0;
	if (!ra->want_starts)
		verbose("read starts: no way here: a read that waits for its "
			"last folio may leave the pages before it unused");
	return ra->want_starts;
}

static const struct attach_hook rastack_hooks[] = {
	{"page cache adds", add_alts},
	{"page cache evictions", delete_alts},
	{"readahead", readahead_alts},
	{"large-folio readahead", order_alts, have_order},
	{"reads", read_alts},
	{"read starts", read_start_alts, want_read_starts},
	{"faults", fault_alts},
	{"fault-around", map_alts},
	{NULL},
};

/* A thread's readaheads from one place (same user registers, file and
 * kernel path) share their stacks: captured once, not per readahead.
 * Needs kernel BTF and bpf_task_pt_regs (5.15+) for the registers, and
 * the (raw) tracepoints that tell sync from async readahead. */
static bool can_reuse_stacks(void)
{
	return kbtf_available() &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
				       BPF_FUNC_task_pt_regs, NULL) == 1 &&
	       kbtf_proto_params("btf_trace_page_cache_sync_ra") > 0 &&
	       kbtf_proto_params("btf_trace_page_cache_async_ra") > 0;
}

SB_SKELETON(rastack)

static void rastack_size(struct collector *c, void *skel, void *args)
{
	struct rastack_bpf *s = skel;
	struct rastack_args *a = args;

	bpf_map__set_max_entries(s->maps.ra_runs, a->pages / RA_RUN_PAGES);
	bpf_map__set_max_entries(s->maps.ra_owners, a->common.rows);
	/* every row is state (ra_owners): the interval maps stay empty */
	bpf_map__set_max_entries(s->maps.sb_counts0, 1);
	bpf_map__set_max_entries(s->maps.sb_counts1, 1);
}

static int rastack_configure(struct collector *c, void *skel, void *args)
{
	struct rastack_bpf *s = skel;
	struct rastack_args *a = args;
	struct ra_kernel_layout *kl = (void *)&s->rodata->kl;
	int *off = kernel_layout(a);
	__u16 *slot = (__u16 *)kl;

	/* tracefs formats only for the classic programs the plan loads */
	for (enum ra_tp t = 0; t < RA_NTP; t++)
		if (bpf_program__autoload(bpf_object__find_program_by_name(
			    s->obj, tracepoints[t].prog)))
			tp_layout(t, (struct ra_tp_layout *)&s->rodata->tp[t]);
	for (size_t i = 0; i < NLAYOUT; i++)
		slot[i] = off[i] < 0 ? 0 : off[i];
	kl->pg_head = a->layout.pg_head < 0 ? 0 : a->layout.pg_head;
	/* the sync kind comes with the read starts */
	s->rodata->reuse_stacks = can_reuse_stacks() && want_read_starts(c, a);
	bpf_program__set_autoload(s->progs.ra_raw_async,
				  s->rodata->reuse_stacks);
	verbose("stacks captured %s",
		s->rodata->reuse_stacks
			? "once per place a thread's readaheads come from"
			: "at every readahead (no BTF, bpf_task_pt_regs or "
			  "readahead:page_cache_sync_ra)");
	s->rodata->atomics = feature_usable(SB_F_ATOMICS);
	if (!s->rodata->atomics)
		verbose("%s", feature_refusal(SB_F_ATOMICS));
	return 0;
}

/* The async tracepoint, outside the plan: without it stacks are
 * captured at every async readahead, nothing is lost. */
static int rastack_attach(struct collector *c, void *skel, void *args)
{
	struct rastack_bpf *s = skel;
	struct bpf_link *l;

	if (!s->rodata->reuse_stacks)
		return 0;
	l = bpf_program__attach(s->progs.ra_raw_async);
	if (!l) {
		verbose("%s: %s: stacks captured at every async readahead",
			bpf_program__name(s->progs.ra_raw_async),
			strerror(errno));
		return 0;
	}
	collect_keep_link(c, l);
	return 0;
}

struct owner_rows {
	struct row *row;
	size_t n, cap;
};

static void owner_row(const void *key, const void *value, void *ctx)
{
	struct owner_rows *r = ctx;
	struct ra_owner o = *(const struct ra_owner *)value;
	struct row *row;

	/* read while BPF counts: used may already have a page that pages
	 * has not yet */
	if (o.used > o.pages)
		o.used = o.pages;
	r->row = grow_array(r->row, &r->cap, r->n + 1, sizeof(*r->row));
	row = &r->row[r->n++];
	memset(row, 0, sizeof(*row));
	row->key = o.key;
	row->v[RA_TOTAL] = o.pages;
	row->v[RA_USED] = o.used;
	row->v[RA_UNUSED] = o.pages - o.used;
}

/* Every stack's pages so far: used + unused = read ahead in each row. */
static size_t rastack_state_rows(struct collector *c, void *skel, void *args,
				 struct row **rows)
{
	struct rastack_bpf *s = skel;
	struct owner_rows r = {0};

	map_walk(bpf_map__fd(s->maps.ra_owners), sizeof(__u64),
		 sizeof(struct ra_owner), false, owner_row, &r);
	*rows = r.row;
	return r.n;
}

static unsigned rastack_primary(struct collector *c, void *args)
{
	return ((struct rastack_args *)args)->value;
}

static void rastack_describe(struct collector *c, void *args, char *buf,
			     size_t len)
{
	struct rastack_args *a = args;

	snprintf(buf, len,
		 "value: pages read ahead per stack that started the "
		 "readahead, since the start; used: read, faulted or mapped "
		 "since; unused: evicted unused or still unused; up to %lld "
		 "pages tracked",
		 a->pages);
}

static const char *const rastack_stat_names[] = {
	"pages not tracked (page map full, --pages)",
	"pages not tracked (stack map full, --rows)",
	"pages not tracked (64-page run shared by 4 other stacks)",
	NULL,
};

static const struct collector_ops rastack_ops = {
	.features = (const enum sb_feature[]){SB_F_ATOMICS, SB_F_END},
	.metrics = rastack_metrics,
	.nmetrics = RA_NMETRICS,
	.hooks = rastack_hooks,
	SB_SKELETON_OPS(rastack),
	.size = rastack_size,
	.configure = rastack_configure,
	.attach = rastack_attach,
	.state_rows = rastack_state_rows,
	.requires = rastack_requires,
	.primary = rastack_primary,
	.describe = rastack_describe,
	.stat_names = rastack_stat_names,
};

static int rastack_main(void *args, int argc, char **argv)
{
	struct rastack_args *a = args;

	return collect_run(&rastack_ops, &a->common, a, argc, argv);
}

APPLET_DEFINE(rastack, rastack_main, rastack_opts, struct rastack_args,
	      COLLECTORS(&rastack_ops));
