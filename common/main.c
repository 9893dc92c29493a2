// SPDX-License-Identifier: GPL-2.0
/*
 * The multicall entry: the applet is basename(argv[0]), or argv[1] when
 * called as stackbox. The table comes from the applet sources
 * (scripts/gen-applets.sh), filtered by the configuration.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stackbox.h"

#define APPLET(name) extern const struct applet applet_##name;
#include "applets.h"
#undef APPLET
#define APPLET(name) &applet_##name,
const struct applet *const applets[] = {
#include "applets.h"
};
#undef APPLET
const size_t applets_n = ARRAY_SIZE(applets);

static const struct applet *find_applet(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++)
		if (!strcmp(applets[i]->name, name))
			return applets[i];
	return NULL;
}

static int run_applet(const struct applet *a, int argc, char **argv)
{
	void *args = xzalloc(a->args_size);
	int first;

	applet_name = a->name;
	first = opts_parse(a->opts, args, argc, argv, a->usage);
	return a->main(args, argc - first, argv + first);
}

/* stackbox --install [-s] DIR: one link per applet to this binary. */
static int install(int argc, char **argv)
{
	int symbolic = argc > 2 && !strcmp(argv[2], "-s");
	const char *dir = argv[2 + symbolic];
	char self[4096];
	ssize_t n;

	if (argc != 3 + symbolic)
		help_exit("usage: stackbox --install [-s] DIR");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		perror_exit("/proc/self/exe");
	self[n] = 0;
	if (mkdir(dir, 0755) && errno != EEXIST)
		perror_exit("mkdir %s", dir);
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++) {
		char *path = xasprintf("%s/%s", dir, applets[i]->name);

		unlink(path);
		if ((symbolic ? symlink(self, path) : link(self, path)) < 0)
			perror_exit("%s", path);
		free(path);
	}
	return 0;
}

static void usage(void)
{
	printf("usage: stackbox APPLET [ARGS]... | stackbox --list | "
	       "stackbox --install [-s] DIR\n\n"
	       "eBPF stack profilers in one binary. Applets:");
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++)
		printf(" %s", applets[i]->name);
	printf("\n'stackbox APPLET --help' describes one.\n");
}

int main(int argc, char **argv)
{
	const struct applet *a;
	const char *name = basename(argv[0]);

	malloc_setup();
	if ((a = find_applet(name)))
		return run_applet(a, argc, argv);
	if (strcmp(name, "stackbox")) {
		error_msg("applet not found: %s", name);
		return 127;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage();
		return fflush(stdout) ? 1 : argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < ARRAY_SIZE(applets); i++)
			printf("%s\n", applets[i]->name);
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(argv[1], "--install"))
		return install(argc, argv);
	if (!(a = find_applet(argv[1]))) {
		error_msg("applet not found: %s", argv[1]);
		return 127;
	}
	return run_applet(a, argc - 1, argv + 1);
}
