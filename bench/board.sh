#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/board.sh NAME [VAR=VALUE]...: run bench/NAME.sh inside an x86_64
# board (board/qemu/run.sh: a Debian kernel under qemu, TCG), for what
# this host's kernel lacks (kprobes, fentry). Both tools run in the same
# guest: out/musl-x86_64/stackbox, and this host's perf, offcputime and
# bpftool with the shared libraries they load (the guest's busybox root
# has none). VAR=VALUE pairs are the bench's knobs.
#
#   sh bench/board.sh offcpu REPS=11 NO_BT=1 SB_ARGS="-m 1ms" OC_ARGS="-m 1000"
#
# Environment: BOARD_KERNEL (6.12), BOARD_SMP (2), BENCH_TIMEOUT (3600 s),
# BOARD_TCG (thread=single, as tests/boards.sh: with a host thread per
# vCPU a guest attaching and detaching tracepoints panicked in a
# half-patched instruction, docs/boards.md's stale translation).
# Figures under TCG are every instruction emulated: ratios of one tool to
# the other in the same guest, not times to compare with the host's.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 NAME [VAR=VALUE]..." >&2; exit 2; }
name=$1
shift
[ -f "bench/$name.sh" ] || { echo "$0: no bench/$name.sh" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "$0: the host's tools go into an x86_64 guest" >&2; exit 2; }
make -s musl-x86_64 >/dev/null

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -Wall -static -o "$T/probe" bench/probe.c

# A program and every library it loads, at the same paths in the guest.
files="$T/probe:/bench/probe out/musl-x86_64/stackbox:/bench/stackbox"
for f in bench/lib.sh "bench/$name.sh"; do
	files="$files $f:/root/$f"
done
for tool in perf offcputime bpftool; do
	p=$(command -v "$tool" || ls /usr/sbin/"$tool" 2>/dev/null) ||
		{ echo "$0: no $tool on this host" >&2; exit 2; }
	p=$(readlink -f "$p")
	files="$files $p:/usr/bin/$tool"
	for lib in $(ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		case " $files " in
		*":$lib "*) ;;
		*) files="$files $(readlink -f "$lib"):$lib" ;;
		esac
	done
done
# the knobs, quoted for the guest's shell
knobs=
for kv in "$@"; do
	knobs="$knobs ${kv%%=*}='${kv#*=}'"
done

BOARD_FILES=$files BOARD_KERNEL=${BOARD_KERNEL:-6.12} \
	BOARD_TCG=${BOARD_TCG-thread=single} \
	sh board/qemu/run.sh x86_64 "${BENCH_TIMEOUT:-3600}" -- \
	"cd /root && env BENCH_BUILT=/bench PERF=/usr/bin/perf OFFCPUTIME=/usr/bin/offcputime $knobs sh bench/$name.sh"
