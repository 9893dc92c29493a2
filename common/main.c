// SPDX-License-Identifier: GPL-2.0
/*
 * The multicall entry: the applet is basename(argv[0]), or argv[1] when
 * called as stackbox (or any name starting with it). The table comes
 * from the applet sources (scripts/gen-applets.sh), filtered by the
 * configuration.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applet.h"
#include "stackbox.h"
#include "version.h" /* generated: STACKBOX_VERSION, STACKBOX_GIT_ID */

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

/* stackbox --install [-s] [--all] DIR, its words in any order */
struct install_args {
	int symbolic, all;
	const char *dir;
};

#define INSTALL_USAGE "usage: stackbox --install [-s] [--all] DIR"

static void install_args(int argc, char **argv, struct install_args *ia)
{
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-s"))
			ia->symbolic = 1;
		else if (!strcmp(argv[i], "--all"))
			ia->all = 1;
		else if (!ia->dir && argv[i][0] != '-')
			ia->dir = argv[i];
		else
			help_exit(INSTALL_USAGE);
	}
	if (!ia->dir)
		help_exit(INSTALL_USAGE);
}

/*
 * Whether --install links an applet without --all. The collectors'
 * names are ours; report and check (the applets without collectors)
 * are words other programs use in a PATH, so they run as `stackbox
 * report` unless asked for.
 */
static bool linked_by_default(const struct applet *a)
{
	return a->collectors != NULL;
}

/* path is already this binary: a link an earlier --install made */
static bool is_self(const char *path, const struct stat *self)
{
	struct stat st;

	return !stat(path, &st) && st.st_dev == self->st_dev &&
	       st.st_ino == self->st_ino;
}

/*
 * One link to self. A file of that name that is not this binary is kept,
 * never replaced (it may be another program), and said in one line; a
 * link to this binary is left as it is.
 */
static void link_one(const char *self, const struct stat *self_st,
		     const char *path, int symbolic)
{
	if (!(symbolic ? symlink(self, path) : link(self, path)))
		return;
	if (errno != EEXIST)
		perror_exit("%s", path);
	if (!is_self(path, self_st))
		error_msg("--install: kept %s: a file of that name exists",
			  path);
}

/* stackbox --install [-s] [--all] DIR: one link per applet to this binary. */
static int install(int argc, char **argv)
{
	struct install_args ia = {0};
	struct stat self_st;
	char self[4096];
	ssize_t n;

	install_args(argc, argv, &ia);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		perror_exit("/proc/self/exe");
	self[n] = 0;
	if (stat(self, &self_st))
		perror_exit("%s", self);
	if (mkdir(ia.dir, 0755) && errno != EEXIST)
		perror_exit("mkdir %s", ia.dir);
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++) {
		char *path;

		if (!ia.all && !linked_by_default(applets[i]))
			continue;
		path = xasprintf("%s/%s", ia.dir, applets[i]->name);
		link_one(self, &self_st, path, ia.symbolic);
		free(path);
	}
	return 0;
}

/* What was built: from the build host's git (gen/version.h), never from
 * running this binary, which may be for another architecture. */
static int version(void)
{
	printf("stackbox %s\ngit %s\napplets:", STACKBOX_VERSION,
	       STACKBOX_GIT_ID);
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++)
		printf(" %s", applets[i]->name);
	putchar('\n');
	return fflush(stdout) ? 1 : 0;
}

static void usage(void)
{
	printf("usage: stackbox APPLET [ARGS]... | stackbox --list | "
	       "stackbox --version\n"
	       "       stackbox --install [-s] [--all] DIR\n\n"
	       "eBPF stack profilers in one binary. Applets:");
	for (size_t i = 0; i < ARRAY_SIZE(applets); i++)
		printf(" %s", applets[i]->name);
	printf("\n'stackbox APPLET --help' describes one.\n\n"
	       "--install links DIR/APPLET to this binary (-s: symbolic) for "
	       "each collector\n"
	       "applet; --all also for report and check, whose names other "
	       "programs use.\n"
	       "Existing files are kept, never replaced.\n");
}

/* A copy under another name (stackbox-musl, stackbox.new) is still
 * stackbox, as BusyBox is under any busybox* name. */
static bool is_stackbox(const char *name)
{
	return !strncmp(name, "stackbox", strlen("stackbox"));
}

int main(int argc, char **argv)
{
	const struct applet *a;
	const char *name = basename(argv[0]);

	tune_malloc();
	if ((a = find_applet(name)))
		return run_applet(a, argc, argv);
	if (!is_stackbox(name)) {
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
	if (!strcmp(argv[1], "--version"))
		return version();
	if (!strcmp(argv[1], "--install"))
		return install(argc, argv);
	if (!(a = find_applet(argv[1]))) {
		error_msg("applet not found: %s", argv[1]);
		return 127;
	}
	return run_applet(a, argc - 1, argv + 1);
}
