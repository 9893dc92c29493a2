// SPDX-License-Identifier: GPL-2.0
/* cgroup v2: a cgroup's id is the inode number of its directory. */
#include <ftw.h>
#include <mntent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "cgroup.h"
#include "stackbox.h"

#define CGROUP2_SUPER_MAGIC 0x63677270

struct cgroup_name {
	__u64 id;
	char *path;
};

static struct {
	char *mount;
	bool looked;
	struct cgroup_name *names;
	size_t n, cap;
	bool walked; /* since the last refresh */
} cg;

const char *cgroup2_mount(void)
{
	FILE *f;
	struct mntent *m;

	if (cg.looked)
		return cg.mount;
	cg.looked = true;
	f = setmntent("/proc/self/mounts", "r");
	while (f && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			cg.mount = xstrdup(m->mnt_dir);
			break;
		}
	if (f)
		endmntent(f);
	return cg.mount;
}

__u64 cgroup_id(const char *arg)
{
	const char *root = cgroup2_mount();
	char *path = NULL;
	struct statfs sfs;
	struct stat st;

	if (!root)
		error_exit("-c %s: cgroup v2 is not mounted", arg);
	if (arg[0] == '/' && !stat(arg, &st))
		path = xstrdup(arg);
	else
		path = xasprintf("%s/%s", root, arg + (arg[0] == '/'));
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		error_exit("-c %s: no such cgroup (%s)", arg, path);
	if (statfs(path, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		error_exit("-c %s: %s is not in the cgroup v2 hierarchy (%s)",
			   arg, path, root);
	free(path);
	return st.st_ino;
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	const char *rel = path + strlen(cg.mount);

	if (type != FTW_D)
		return 0;
	cg.names = grow_array(cg.names, &cg.cap, cg.n + 1, sizeof(*cg.names));
	cg.names[cg.n].id = st->st_ino;
	cg.names[cg.n++].path = xstrdup(*rel ? rel : "/");
	return 0;
}

const char *cgroup_path(__u64 id)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < cg.n; i++)
			if (cg.names[i].id == id)
				return cg.names[i].path;
		if (cg.walked || !cgroup2_mount())
			break;
		/* new cgroups appear at run time: walk again, once per refresh */
		for (size_t i = 0; i < cg.n; i++)
			free(cg.names[i].path);
		cg.n = 0;
		nftw(cg.mount, visit, 16, FTW_PHYS | FTW_MOUNT);
		cg.walked = true;
	}
	return NULL;
}

void cgroup_names_refresh(void)
{
	cg.walked = false;
}
