// SPDX-License-Identifier: GPL-2.0
/*
 * What a map costs the kernel, from its type and sizes, as the kernel
 * allocates it: a hash map's elements carry a 48-byte header and sit in
 * a power-of-two bucket array; per-CPU values are kept once per
 * possible CPU. Maps allocated as entries come (BPF_F_NO_PREALLOC) are
 * counted full: that is what the options let them grow to.
 */
#include <bpf/libbpf.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "mapmem.h"
#include "stackbox.h"

enum { HTAB_ELEM = 48, BUCKET = 16, STACK_BUCKET = 8 };
#define CEILING (256ULL << 20)

/* The option that sizes each of the core's maps, for the refusal. */
static const struct {
	const char *map, *option;
} sized_by[] = {
	{"sb_stacks", "--stacks"},     {"sb_counts0", "--rows"},
	{"sb_counts1", "--rows"},      {"sb_unwind_rows", "--unwind-rows"},
	{"ms_allocs", "--max-allocs"}, {"ms_rows", "--rows"},
	{"ra_runs", "--pages"},	       {"ra_owners", "--rows"},
};

static uint64_t round8(uint64_t n)
{
	return (n + 7) & ~7ULL;
}

static uint64_t pow2(uint64_t n)
{
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint64_t map_memory(const struct bpf_map *m, uint64_t ncpus)
{
	uint64_t n = bpf_map__max_entries(m), key = bpf_map__key_size(m),
		 value = round8(bpf_map__value_size(m));

	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		return n * (HTAB_ELEM + round8(key) + value) + pow2(n) * BUCKET;
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return n * (HTAB_ELEM + round8(key) + 8 + value * ncpus) +
		       pow2(n) * BUCKET;
	case BPF_MAP_TYPE_ARRAY:
		return n * value;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return n * value * ncpus;
	case BPF_MAP_TYPE_RINGBUF:
		return n;
	case BPF_MAP_TYPE_STACK_TRACE:
		return n * (value + 32) + pow2(n) * STACK_BUCKET;
	default:
		return n * (key + value);
	}
}

uint64_t mem_ceiling(void)
{
	struct sysinfo si;
	uint64_t eighth;

	if (sysinfo(&si))
		return CEILING;
	eighth = (uint64_t)si.totalram * si.mem_unit / 8;
	return eighth < CEILING ? eighth : CEILING;
}

/* The maps' memory in all, and the largest map with its own. */
static uint64_t sum_maps(const struct bpf_object *obj,
			 const struct bpf_map **big, uint64_t *big_bytes)
{
	int cpus = libbpf_num_possible_cpus();
	const struct bpf_map *m = NULL;
	uint64_t sum = 0;

	*big = NULL;
	*big_bytes = 0;
	while ((m = bpf_object__next_map(obj, m))) {
		uint64_t b = map_memory(m, cpus > 0 ? cpus : 1);

		sum += b;
		if (b > *big_bytes) {
			*big_bytes = b;
			*big = m;
		}
	}
	return sum;
}

uint64_t mem_maps(const struct bpf_object *obj)
{
	const struct bpf_map *big;
	uint64_t big_bytes;

	return sum_maps(obj, &big, &big_bytes);
}

static const char *option_of(const char *map)
{
	for (size_t i = 0; i < ARRAY_SIZE(sized_by); i++)
		if (!strcmp(sized_by[i].map, map))
			return sized_by[i].option;
	return NULL;
}

void mem_check(const struct bpf_object *obj, uint64_t extra)
{
	const struct bpf_map *m;
	uint64_t big, maps = sum_maps(obj, &m, &big), ceiling = mem_ceiling();
	const char *option = m ? option_of(bpf_map__name(m)) : NULL;

	if (maps + extra <= ceiling) {
		verbose("memory: maps %.1f MiB%s, ceiling %.0f MiB",
			maps / 1048576.0, extra ? " and the recorder" : "",
			ceiling / 1048576.0);
		return;
	}
	if (extra > big)
		error_exit("--record-bytes: %.0f MiB with the maps' %.1f MiB "
			   "is over the memory ceiling of %.0f MiB",
			   extra / 1048576.0, maps / 1048576.0,
			   ceiling / 1048576.0);
	error_exit("%s%s%.1f MiB of kernel memory for map %s, %.1f MiB in "
		   "all: over the ceiling of %.0f MiB (1/8 of RAM, at most "
		   "256 MiB)",
		   option ? option : "", option ? ": " : "", big / 1048576.0,
		   bpf_map__name(m), (maps + extra) / 1048576.0,
		   ceiling / 1048576.0);
}
