// SPDX-License-Identifier: GPL-2.0
/* Walking BPF hash maps (see mapwalk.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mapwalk.h"
#include "stackbox.h"

#define BATCH_BYTES (64 * 1024) /* keys and values read per call */

/* Key by key: the next key is found before this one is deleted. */
static size_t walk_keys(int fd, size_t key_size, size_t value_size, bool take,
			map_visit_fn visit, void *ctx)
{
	char *key = xmalloc(key_size), *next = xmalloc(key_size);
	char *value = xmalloc(value_size);
	int more = !bpf_map_get_next_key(fd, NULL, key);
	size_t n = 0;

	while (more) {
		more = !bpf_map_get_next_key(fd, key, next);
		if (!bpf_map_lookup_elem(fd, key, value)) {
			visit(key, value, ctx);
			n++;
		}
		if (take)
			bpf_map_delete_elem(fd, key);
		memcpy(key, next, key_size);
	}
	free(key);
	free(next);
	free(value);
	return n;
}

/* One batch call: 0 and *count entries, -ENOENT and the last *count, or
 * another -errno. */
static int batch(int fd, void *in, void *out, void *keys, void *values,
		 __u32 *count, bool take)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int err = take ? bpf_map_lookup_and_delete_batch(fd, in, out, keys,
							 values, count, &opts)
		       : bpf_map_lookup_batch(fd, in, out, keys, values, count,
					      &opts);

	return err < 0 && errno ? -errno : err;
}

size_t map_walk(int fd, size_t key_size, size_t value_size, bool take,
		map_visit_fn visit, void *ctx)
{
	size_t cap = BATCH_BYTES / (key_size + value_size) + 1, n = 0;
	/* the position between calls: a bucket index for hash maps */
	char token[2][64];
	char *keys = xmalloc(cap * key_size),
	     *values = xmalloc(cap * value_size);
	bool first = true;
	int err;

	do {
		__u32 count = cap;

		err = batch(fd, first ? NULL : token[0], token[1], keys, values,
			    &count, take);
		if (err == -ENOSPC && count == 0) { /* a bucket holds more */
			cap *= 2;
			keys = xrealloc(keys, cap * key_size);
			values = xrealloc(values, cap * value_size);
			continue;
		}
		if (err && err != -ENOENT) {
			if (first) /* EINVAL, ENOTSUPP: no batch operations */
				n = walk_keys(fd, key_size, value_size, take,
					      visit, ctx);
			break;
		}
		for (__u32 i = 0; i < count; i++)
			visit(keys + i * key_size, values + i * value_size,
			      ctx);
		n += count;
		memcpy(token[0], token[1], sizeof(token[0]));
		first = false;
	} while (!err);
	free(keys);
	free(values);
	return n;
}
