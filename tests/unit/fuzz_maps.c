// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/PID/maps parser (common/procsyms.c):
 * any maps text, in a fake procfs (DIR/1/maps), must give no crash, no
 * overrun and no leak (ASan, UBSan); every mapping it gives is used.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syms.h"

static void on_map(const struct proc_map *m, void *arg)
{
	const char *path = proc_map_path(m);

	*(volatile size_t *)arg += m->end - m->start + m->pgoff + m->dev +
				   m->ino + strlen(m->name) +
				   (path ? strlen(path) : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static char dir[] = "/tmp/fuzz_maps.XXXXXX", maps[64];
	static volatile size_t sink;
	FILE *f;

	if (!maps[0]) {
		char pid[64];

		if (!mkdtemp(dir))
			abort();
		snprintf(pid, sizeof(pid), "%s/1", dir);
		snprintf(maps, sizeof(maps), "%s/1/maps", dir);
		if (mkdir(pid, 0700))
			abort();
	}
	f = fopen(maps, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
	proc_maps_each_exec(dir, 1, on_map, (void *)&sink);
	return 0;
}
