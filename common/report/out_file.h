/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report's -o FILE, whatever the format: written under a temporary name
 * beside FILE and renamed over it only when report succeeds, so a
 * failed report leaves no file (or the old one, untouched), never an
 * empty or half-written one a viewer would open.
 */
#ifndef STACKBOX_REPORT_OUT_FILE_H
#define STACKBOX_REPORT_OUT_FILE_H

#include <stdbool.h>

struct out_file {
	const char *path; /* what -o named */
	char *tmp;	  /* written instead; NULL: path itself is */
};

/* The name to write -o PATH to: a new empty file beside PATH, or PATH
 * itself when it is no regular file (standard output "-", a device, a
 * FIFO), which cannot be replaced. Dies when it cannot be created. */
const char *out_file_begin(struct out_file *o, const char *path);
/* ok: the temporary file becomes PATH; else it is removed. 0, or -1
 * when the rename failed (said on standard error). */
int out_file_end(struct out_file *o, bool ok);

#endif
