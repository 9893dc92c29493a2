#!/bin/sh
# get-kernel.sh ARCH: fetch Debian 12's 6.1 kernel for ARCH (x86_64, arm64)
# into the cache and print the path of its vmlinuz. Cached.
#
# WHY these kernels: they are real distribution kernels with kprobes,
# fentry and BTF, which the development machine's kernel lacks, so the
# fallback paths and the arm64 build get tested against what users run.
# x86_64 takes the cloud flavour: smaller, and it has what qemu needs
# (8250 serial, BPF) built in. The ABI number is resolved through the
# meta-package, never hard-coded.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

arch=${1:-}
case $arch in
x86_64|arm64) ;;
*) echo "usage: $0 x86_64|arm64" >&2; exit 2 ;;
esac
a=$(debarch "$arch")
pkg=$(kernel_pkg "$arch")
# Only ./boot: the modules (300 MB for arm64) stay in the cached .deb;
# get-modules.sh takes the few a board needs.
dir=$(fetch_deb "$pkg:$a" ./boot)
k=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$k" ] || { echo "get-kernel: no vmlinuz in $pkg" >&2; exit 1; }
echo "$k"
