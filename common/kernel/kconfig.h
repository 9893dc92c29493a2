/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's build configuration against the fragment stackbox
 * ships (board/kernel/stackbox.config, built in: a device has no source
 * tree). For stackbox check.
 */
#ifndef STACKBOX_KCONFIG_H
#define STACKBOX_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct kconfig_want {
	const char *option; /* "CONFIG_BPF" */
	bool required;	    /* without it no applet runs */
	const char *why;    /* the fragment's comment: what it is for */
};

/* The config to read: given when not NULL, else /proc/config.gz, else
 * /boot/config-RELEASE; NULL when none can be read. */
const char *kconfig_find(const char *given, char *buf, size_t len);
/* fn for each option of the fragment, with whether path sets it (=y or
 * =m). 0, or -1 with errno when path cannot be read. path may be
 * gzip-compressed or plain. */
int kconfig_each(const char *path,
		 void (*fn)(const struct kconfig_want *w, bool set, void *arg),
		 void *arg);

#endif
