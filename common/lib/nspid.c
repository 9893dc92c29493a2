// SPDX-License-Identifier: GPL-2.0
/* A process's pid in its own pid namespace, from /proc/PID/status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nspid.h"
#include "stackbox.h"

uint32_t nspid_read(const char *procfs, uint32_t tgid)
{
	char path[64], *s, *line, *end;
	unsigned long v, last = 0;

	snprintf(path, sizeof(path), "%s/%u/status", procfs, tgid);
	s = read_file(path, NULL);
	line = s ? strstr(s, "\nNSpid:") : NULL;
	if (line) {
		/* "NSpid:\t4242\t17\t1": host first, innermost last */
		for (line += 7; *line && *line != '\n'; line = end) {
			v = strtoul(line, &end, 10);
			if (end == line)
				break;
			last = v;
		}
	}
	free(s);
	return last != tgid && last <= UINT32_MAX ? last : 0;
}
