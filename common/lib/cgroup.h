/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup v2 ids and paths, wherever the v2 hierarchy is mounted. */
#ifndef STACKBOX_CGROUP_H
#define STACKBOX_CGROUP_H

#include <linux/types.h>

/* Where cgroup2 is mounted (/sys/fs/cgroup, or .../unified on hybrid
 * systems), or NULL when it is not. */
const char *cgroup2_mount(void);
/* The id of a cgroup given as an absolute path or one relative to the
 * cgroup2 mount; exits with a one-line error when it is not a cgroup. */
__u64 cgroup_id(const char *arg);
/* The path of a cgroup id below the mount, or NULL. Looks again for
 * cgroups created since the last call to cgroup_names_refresh(). */
const char *cgroup_path(__u64 id);
void cgroup_names_refresh(void);

#endif
