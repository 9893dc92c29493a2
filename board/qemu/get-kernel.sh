#!/bin/sh
# get-kernel.sh KERNEL ARCH: fetch the board kernel KERNEL (5.10: Debian
# 11, 6.1: Debian 12, 6.12: Debian 13) for ARCH (x86_64, arm64) into the
# cache and print the path of its vmlinuz; its config-* lies beside it.
# Cached; lib.sh's kernel_dir says which package and why.
#
# WHY these kernels: they are real distribution kernels with kprobes,
# fentry and BTF, which the development machine's kernel lacks, so the
# fallback paths and the arm64 build get tested against what users run;
# docs/testing.md says what each one stands for.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# = 2 ] || { echo "usage: $0 5.10|6.1|6.12 x86_64|arm64" >&2; exit 2; }
dir=$(kernel_dir "$1" "$2")
k=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$k" ] || { echo "get-kernel: no vmlinuz in $dir" >&2; exit 1; }
echo "$k"
