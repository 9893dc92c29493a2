/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STACKBOX_ROOTFS_H
#define STACKBOX_ROOTFS_H

/*
 * Files of other processes, read through their /proc/PID/root: a
 * container decides what is there, so nothing it plants may lead us out
 * of its root, block us, or make us read without end.
 */

/* The largest file read: a debug file of a big library fits. */
#define ROOTFS_FILE_MAX (1ULL << 30)
/* Symbolic links followed for one path, as the kernel's own limit. */
#define ROOTFS_MAX_HOPS 40

/*
 * A read-only descriptor of the regular file at path as seen from root
 * ("/proc/PID/root"; "" or NULL: our own root, path as it is). Symlinks
 * and ".." are resolved inside root and cannot leave it. Anything but a
 * regular file of at most ROOTFS_FILE_MAX bytes is refused with ENOEXEC
 * or EFBIG (a FIFO would block, a device would read without end). -1 and
 * errno on failure.
 */
int rootfs_open(const char *root, const char *path);

/* The same below an open directory, by our own walk (kernels before 5.6
 * without openat2): tests call it on any kernel. */
int rootfs_open_walk(int root_fd, const char *path);

#endif
