// SPDX-License-Identifier: GPL-2.0
/*
 * mapcount ID...: "ID ENTRIES" for each BPF map id, counted by walking
 * its keys (no values: bpftool's dump formats every value, which takes
 * minutes for a full 131072-entry map on a busy machine). bench/soak.sh.
 */
#include <bpf/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		unsigned id = strtoul(argv[i], NULL, 10);
		struct bpf_map_info info = {0};
		__u32 len = sizeof(info);
		unsigned long n = 0;
		char *key, *next;
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
			printf("%u -1\n", id);
			continue;
		}
		key = calloc(2, info.key_size + 1);
		next = key + info.key_size + 1;
		if (!bpf_map_get_next_key(fd, NULL, next)) {
			do {
				n++;
				for (__u32 b = 0; b < info.key_size; b++)
					key[b] = next[b];
			} while (n <= info.max_entries &&
				 !bpf_map_get_next_key(fd, key, next));
		}
		printf("%u %lu\n", id, n);
		free(key);
		close(fd);
	}
	return 0;
}
