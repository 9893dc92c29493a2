// SPDX-License-Identifier: GPL-2.0
/*
 * Creating a preallocated hash map is the kernel clearing and linking
 * every element: offcpu's 8192 stacks of 1 KiB take some 15 ms here, a
 * fifth of its start. None of it depends on the kernel types the plan
 * indexes meanwhile (kbtf.c), so a thread creates the large maps, sized
 * from the options (the core's, then the applet's size callback), while
 * the main one goes on, and libbpf is given them at load. A map resized
 * later, in configure, is left to libbpf, as is one the thread could not
 * create: libbpf then says why.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapmake.h"
#include "stackbox.h"

/* fewer elements are created in microseconds: not worth a thread */
enum { LARGE = 1024, MAX_MADE = 16 };

struct made {
	char name[BPF_OBJ_NAME_LEN];
	enum bpf_map_type type;
	unsigned key, value, entries, flags;
	int fd;
};

struct map_maker {
	pthread_t thread;
	size_t n;
	struct made maps[MAX_MADE];
};

static bool preallocated_hash(const struct bpf_map *m)
{
	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return !(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC);
	default:
		return false;
	}
}

static bool worth_making(const struct bpf_map *m)
{
	return preallocated_hash(m) && bpf_map__max_entries(m) >= LARGE;
}

static struct made definition(const struct bpf_map *m)
{
	struct made d = {.type = bpf_map__type(m),
			 .key = bpf_map__key_size(m),
			 .value = bpf_map__value_size(m),
			 .entries = bpf_map__max_entries(m),
			 .flags = bpf_map__map_flags(m),
			 .fd = -1};

	snprintf(d.name, sizeof(d.name), "%s", bpf_map__name(m));
	return d;
}

static bool same_definition(struct made a, struct made b)
{
	return !strcmp(a.name, b.name) && a.type == b.type && a.key == b.key &&
	       a.value == b.value && a.entries == b.entries &&
	       a.flags == b.flags;
}

static void *make_maps(void *arg)
{
	struct map_maker *mk = arg;

	for (size_t i = 0; i < mk->n; i++) {
		struct made *d = &mk->maps[i];
		LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = d->flags);

		d->fd = bpf_map_create(d->type, d->name, d->key, d->value,
				       d->entries, &opts);
	}
	return NULL;
}

struct map_maker *map_maker_start(struct bpf_object *obj)
{
	struct map_maker *mk = xzalloc(sizeof(*mk));
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		if (worth_making(m) && mk->n < MAX_MADE)
			mk->maps[mk->n++] = definition(m);
	}
	if (!mk->n || pthread_create(&mk->thread, NULL, make_maps, mk)) {
		free(mk);
		return NULL;
	}
	return mk;
}

void map_maker_finish(struct map_maker *mk, struct bpf_object *obj)
{
	size_t given = 0;

	if (!mk)
		return;
	pthread_join(mk->thread, NULL);
	for (size_t i = 0; i < mk->n; i++) {
		struct made *d = &mk->maps[i];
		struct bpf_map *m = bpf_object__find_map_by_name(obj, d->name);

		if (d->fd < 0)
			continue;
		if (m && same_definition(definition(m), *d) &&
		    !bpf_map__reuse_fd(m, d->fd))
			given++;
		close(d->fd); /* libbpf keeps its own copy */
	}
	verbose("BPF: %zu of %zu large maps created during the start", given,
		mk->n);
	free(mk);
}
