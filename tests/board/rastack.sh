#!/bin/sh
# Board checker: rastack on every board (tests/boards.sh; the guest's
# rastack section of tests/board/guest) against tests/workloads/ra.c on
# an empty ext4 disk: the default path (the readahead tracepoints where
# the kernel has them, else fentry where it attaches, else kprobes) and
# kprobes forced.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
RUNS=16 # rand: the guest's RA_RUNS, 16 runs of 4 x 16 KiB

# rows PATH: "TOTAL USED UNUSED FUNC" per text row of that run
rows() {
	sed -n "s/^@$1 //p" "$res" | awk '
	     function flush() { if (have) print t, u, n, (f == "" ? "-" : f); have = 0 }
	     /^ +[0-9]+ +[0-9]+ +[0-9]+ +([0-9.]+%|-) +[0-9.]+% / {
		flush(); t = $1; u = $2; n = $3; f = ""; have = 1; next }
	     have && $1 ~ /^(alpha_seq|beta_rand|gamma_map|delta_write|epsilon_fault|zeta_fill)$/ { f = f $1 }
	     END { flush() }'
}
sum() { awk -v f="$2" -v c="$3" '$4 == f { s += $c } END { print s + 0 }' "$1"; }
read_pages() { sed -n "s/^@err-$1 $2 resident [0-9]* read \([0-9]*\)\$/\1/p" "$res"; }
near() { fcmp "$1 >= $2 * 0.99 - 8 && $1 <= $2 * 1.01 + 8"; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for b in $(boards); do
	arch=$(board_arch "$b")
	t="board/$b rastack"
	board_section "$t" "$b" rastack || continue
	if grep -q '^@no-disk' "$res"; then
		skip "$t" "the board booted without a disk (no mkfs.ext4 on the host?)"
		continue
	fi
	for p in default kprobe; do
		# a run that failed has no numbers to check: one FAIL, with why
		if ! grep -qx "@rc-$p 0" "$res"; then
			fail "$t $p: exits 0" "$(sed -n "s/^@err-$p //p" "$res" | grep -v capabilities | head -n 2 | tr '\n' '|')"
			continue
		fi
		pass "$t $p: exits 0"
		way=$(sed -n "s/^@err-$p rastack: readahead: attached with //p" "$res" | tail -n 1)
		check "$t $p: readahead attached ($way)" \
			sh -c "echo '$way' | grep -qxE 'tp_btf|raw_tp|tracepoint|fentry|kprobe'"
		# BPF trampolines: x86_64 since 5.5, arm64 since 6.0; fentry
		# needs the kernel's own BTF (--btf cannot stand in)
		if [ $p/$arch = default/x86_64 ] && ! board_nobtf "$b"; then
			check "$t: fentry or a tracepoint attaches on x86_64 ($way)" [ "$way" != kprobe ]
		elif [ $p = default ] && board_nobtf "$b" && kernel_before "$b" 6.10; then
			check "$t: kprobes without the kernel's BTF ($way)" [ "$way" = kprobe ]
		fi
		# large-folio readahead (page_cache_ra_order) came in 5.18
		n=5
		! kernel_before "$b" 5.18 || n=4
		[ $p = default ] || check "$t kprobe: forced, every hook but the page cache's uses kprobes ($n)" \
			[ "$(grep -c "^@err-$p rastack: .*: attached with kprobe\$" "$res")" = $n ]
		rows $p >"$T/rows"
		set -- $(sum "$T/rows" alpha_seq 1) $(sum "$T/rows" alpha_seq 2) "$(read_pages $p seq)"
		check "$t $p ($way): alpha_seq read ahead $1 pages, read $3" near "$1" "$3"
		check "$t $p ($way): alpha_seq used ratio $2/$1 >= 0.95" fcmp "$1 > 0 && $2 >= 0.95 * $1"
		set -- $(sum "$T/rows" beta_rand 1) $(sum "$T/rows" beta_rand 2) "$(read_pages $p rand)"
		check "$t $p ($way): beta_rand read ahead $1 pages, read $3" near "$1" "$3"
		check "$t $p ($way): beta_rand used ratio $2/$1 <= 0.40" fcmp "$1 > 0 && $2 <= 0.40 * $1"
		check "$t $p ($way): beta_rand used $2 pages, the $((RUNS * 16)) asked for" \
			fcmp "$2 >= $RUNS * 16 && $2 <= $RUNS * 16 + 8"
		set -- $(sum "$T/rows" gamma_map 1) $(sum "$T/rows" gamma_map 2) "$(read_pages $p map)"
		check "$t $p ($way): gamma_map (mmap) read ahead $1 pages, read $3" near "$1" "$3"
		check "$t $p ($way): gamma_map used ratio $2/$1 >= 0.95" fcmp "$1 > 0 && $2 >= 0.95 * $1"
		check "$t $p ($way): writes and MADV_RANDOM faults count nothing" \
			[ "$(($(sum "$T/rows" delta_write 1) + $(sum "$T/rows" zeta_fill 1) + $(sum "$T/rows" epsilon_fault 1)))" = 0 ]
		bad=$(awk '$2 + $3 != $1 || $1 == 0' "$T/rows" | head -3 | tr '\n' '|')
		check "$t $p ($way): used + unused = read ahead in every row, none zero" [ -z "$bad" ]
		check "$t $p ($way): musl's read is under alpha_seq (leaf repair)" \
			sh -c "sed -n 's/^@$p //p' '$res' | grep -A1 -x ' *alpha_seq' | grep -qE '^ *(read|sccp|__syscall_cp_c)\$'"
	done
done
