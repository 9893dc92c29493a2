// SPDX-License-Identifier: GPL-2.0
/* The running kernel's config against stackbox.config (kconfig.h). */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "kconfig.h"
#include "kconfig_frag.h" /* generated: kconfig_wants[] */
#include "stackbox.h"

const char *kconfig_find(const char *given, char *buf, size_t len)
{
	struct utsname u;

	if (given)
		return access(given, R_OK) ? NULL : given;
	if (!access("/proc/config.gz", R_OK))
		return "/proc/config.gz";
	if (uname(&u))
		return NULL;
	snprintf(buf, len, "/boot/config-%s", u.release);
	return access(buf, R_OK) ? NULL : buf;
}

/* "CONFIG_X=y" or "=m": which of the wanted options it sets. */
static void mark(const char *line, bool *set)
{
	size_t n = strcspn(line, "=");

	if (line[n] != '=' || (line[n + 1] != 'y' && line[n + 1] != 'm'))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(kconfig_wants); i++)
		if (strlen(kconfig_wants[i].option) == n &&
		    !strncmp(kconfig_wants[i].option, line, n))
			set[i] = true;
}

int kconfig_each(const char *path,
		 void (*fn)(const struct kconfig_want *w, bool set, void *arg),
		 void *arg)
{
	bool set[ARRAY_SIZE(kconfig_wants)] = {0};
	char line[512];
	gzFile z = gzopen(path, "r"); /* reads a plain file as it is */

	if (!z)
		return -1;
	while (gzgets(z, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_", 7))
			mark(line, set);
	gzclose(z);
	for (size_t i = 0; i < ARRAY_SIZE(kconfig_wants); i++)
		fn(&kconfig_wants[i], set[i], arg);
	return 0;
}
