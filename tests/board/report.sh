#!/bin/sh
# Board checker: the bin stream leaves the device. On every board
# (tests/boards.sh; the guest's report section of tests/board/guest) the
# static stackbox runs oncpu and writes text and, through
# STACKBOX_BIN_TEE, the bin stream of the same snapshots; the stream comes
# out as base64, and report on this host (another kernel, another
# architecture for arm64) must print the device's text byte for byte:
# kernel names from the stream, user frames from the same workload binary
# found with --symfs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for b in $(boards); do
	arch=$(board_arch "$b")
	t="board/$b report"
	[ -x "${STACKBOX:-}" ] || { skip "$t" "no host stackbox (make)"; continue; }
	board_section "$t" "$b" report || continue
	grc=$(sed -n 's/^@rc //p' "$res")
	check "$t: oncpu with the bin tee exits 0 in the guest" [ "$grc" = 0 ]
	sed -n '/^@bin$/,/^@bin-end$/p' "$res" | sed '1d;$d' | tr -d '\r' | base64 -d >"$T/$b.bin" || true
	sed -n '/^@text$/,/^@text-end$/p' "$res" | sed '1d;$d' | tr -d '\r' >"$T/$b.text"
	mkdir -p "$T/symfs-$arch/workloads"
	cp "$OUT/musl-$arch/workloads/burn" "$T/symfs-$arch/workloads/burn"
	sb_report --symfs "$T/symfs-$arch" "$T/$b.bin" >"$T/$b.report" 2>"$T/$b.rerr" || true
	check "$t: the stream decodes on the host, nothing skipped" \
		sh -c "grep -q '^=== oncpu snapshot' '$T/$b.report' && ! grep -q skipped '$T/$b.rerr'"
	if cmp -s "$T/$b.text" "$T/$b.report"; then
		pass "$t: report on the host is byte for byte the device's text"
	else
		fail "$t: report on the host is byte for byte the device's text" \
			"$(diff "$T/$b.text" "$T/$b.report" | head -6 | tr '\n' '|')"
	fi
	check "$t: kernel frames named from the stream, not this host" \
		sh -c "! grep -q '\[kernel 0x' '$T/$b.report' || grep -q '\[kernel 0x' '$T/$b.text'"
done
