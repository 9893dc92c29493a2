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
x86_64) meta=linux-image-cloud-amd64:amd64 ;;
arm64) meta=linux-image-arm64:arm64 ;;
*) echo "usage: $0 x86_64|arm64" >&2; exit 2 ;;
esac
a=$(debarch "$arch")
# "Depends: linux-image-6.1.0-NN-cloud-amd64" (the arm64 one ends in :arm64).
pkg=$(apt-cache depends "$meta" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' | head -n 1)
if [ -z "$pkg" ]; then
	# Offline: any kernel fetched before.
	pkg=$(ls -d "$CACHE/debs/linux-image-"*"_$a/.done" 2>/dev/null |
		sort -V | tail -n 1 | sed 's|.*/\(linux-image-[^_]*\)_.*|\1|')
	[ -n "$pkg" ] || { echo "get-kernel: cannot resolve $meta (apt-get update?)" >&2; exit 1; }
fi
# Only ./boot: the modules (300 MB for arm64) are not used by the
# initramfs; the .deb stays in the cache if they are ever needed.
dir=$(fetch_deb "$pkg:$a" ./boot)
k=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$k" ] || { echo "get-kernel: no vmlinuz in $pkg" >&2; exit 1; }
echo "$k"
