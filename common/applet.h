/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An applet as main.c runs it: its name, entry, option table, usage text
 * (generated from its //usage: lines) and, for a collector, its ops.
 * Only applets and main.c include this: usage.h changes with any
 * applet's help text.
 */
#ifndef STACKBOX_APPLET_H
#define STACKBOX_APPLET_H

#include "stackbox.h"

struct collector_ops;
struct applet {
	const char *name;
	int (*main)(void *args, int argc, char **argv);
	const struct opt *opts;
	size_t args_size;
	const char *usage;
	/* A collector's ops, its default first, NULL-ended (COLLECTORS());
	 * NULL for other applets. stackbox check reads them. */
	const struct collector_ops *const *collectors;
};

/* APPLET_DEFINE(name, main, opts, args type[, COLLECTORS(&ops...)]) */
#define APPLET_DEFINE(name, fn, opts, type, ...) \
	const struct applet applet_##name = {    \
		#name, fn, opts, sizeof(type), USAGE_##name, __VA_ARGS__}
/* Every applet of this build (main.c), in the order of --list. */
extern const struct applet *const applets[];
extern const size_t applets_n;

#include "usage.h" /* generated: USAGE_name strings from //usage: lines */

#endif
