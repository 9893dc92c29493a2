#!/bin/sh
# Board test: the bin stream leaves the device. The static stackbox runs
# oncpu inside Debian's 6.1 kernel under qemu (x86_64 and arm64) and
# writes text and, through STACKBOX_BIN_TEE, the bin stream of the same
# snapshots; the stream comes out as base64, and report on this host
# (another kernel, another architecture for arm64) must print the
# device's text byte for byte: kernel names from the stream, user frames
# from the same workload binary found with --symfs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
[ -n "$OUT" ] || OUT=$root/out
TIMEOUT=${BOARD_TIMEOUT:-240}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

GUEST='STACKBOX_BIN_TEE=/tmp/p.bin stackbox oncpu -d 4 -i 1s -F 199 -- /workloads/burn 3 >/tmp/t.txt 2>/tmp/err
echo "@rc $?"
sed "s/^/@stderr /" /tmp/err
echo @bin
base64 /tmp/p.bin
echo @bin-end
echo @text
cat /tmp/t.txt
echo @text-end
exit 0'

for arch in x86_64 arm64; do
	t="board/$arch report"
	board_boot "$t" "$arch" "$GUEST" "$STACKBOX" \
		"$OUT/musl-$arch/workloads/burn" || continue
	grc=$(sed -n 's/^@rc //p' "$res")
	check "$t: oncpu with the bin tee exits 0 in the guest" [ "$grc" = 0 ]
	sed -n '/^@bin$/,/^@bin-end$/p' "$res" | sed '1d;$d' | tr -d '\r' | base64 -d >"$T/$arch.bin" || true
	sed -n '/^@text$/,/^@text-end$/p' "$res" | sed '1d;$d' | tr -d '\r' >"$T/$arch.text"
	mkdir -p "$T/symfs-$arch/workloads"
	cp "$OUT/musl-$arch/workloads/burn" "$T/symfs-$arch/workloads/burn"
	"$STACKBOX" report --symfs "$T/symfs-$arch" "$T/$arch.bin" >"$T/$arch.report" 2>"$T/$arch.rerr"
	check "$t: the stream decodes on the host, nothing skipped" \
		sh -c "grep -q '^=== oncpu snapshot' '$T/$arch.report' && ! grep -q skipped '$T/$arch.rerr'"
	if cmp -s "$T/$arch.text" "$T/$arch.report"; then
		pass "$t: report on the host is byte for byte the device's text"
	else
		fail "$t: report on the host is byte for byte the device's text" \
			"$(diff "$T/$arch.text" "$T/$arch.report" | head -6 | tr '\n' '|')"
	fi
	check "$t: kernel frames named from the stream, not this host" \
		sh -c "! grep -q '\[kernel 0x' '$T/$arch.report' || grep -q '\[kernel 0x' '$T/$arch.text'"
done
