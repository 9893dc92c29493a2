// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/PID/maps parser (common/sym/procsyms.c):
 * any maps text must give no crash, no overrun and no leak (ASan, UBSan);
 * every mapping it gives is used. The text goes to the parser directly;
 * one input in FILE_EVERY, the first (the one a reproducer runs) among
 * them, goes through a fake procfs (DIR/1/maps) and the file's reading
 * as well: a file per input would make it 50 times slower.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syms.h"

#define FILE_EVERY 64

static void on_map(const struct proc_map *m, void *arg)
{
	const char *path = proc_map_path(m);

	*(volatile size_t *)arg += m->end - m->start + m->pgoff + m->dev +
				   m->ino + strlen(m->name) +
				   (path ? strlen(path) : 0);
}

/* the fake procfs: dir/1/maps */
static char dir[] = "/tmp/fuzz_maps.XXXXXX", pid[64], maps[64];

/* libFuzzer ends a run by exit(): leave nothing in /tmp */
static void remove_procfs(void)
{
	unlink(maps);
	rmdir(pid);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static volatile size_t sink;
	static unsigned long n;
	char *text;
	FILE *f;

	if (!maps[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(pid, sizeof(pid), "%s/1", dir);
		snprintf(maps, sizeof(maps), "%s/1/maps", dir);
		if (mkdir(pid, 0700))
			abort();
		atexit(remove_procfs);
	}
	if (n++ % FILE_EVERY) {
		text = malloc(len + 1);
		if (!text)
			abort();
		memcpy(text, data, len);
		text[len] = 0;
		proc_maps_text_each_exec(text, dir, 1, on_map, (void *)&sink);
		free(text);
		return 0;
	}
	f = fopen(maps, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
	proc_maps_each_exec(dir, 1, on_map, (void *)&sink);
	return 0;
}
