#!/bin/sh
# Board checker: stackcount on every board (tests/boards.sh; the guest's
# stackcount section of tests/board/guest) against tests/workloads/
# counted.c, static musl: its 3000 writes from write_small and 1000 from
# write_large counted exactly at vfs_write's entry and return (fentry
# and fexit where the kernel has them, else kprobes; kprobes forced),
# at the write tracepoint with a filter; its 3000 + 1000 calls at a
# uprobe.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

# sum TAG PATTERN: folded values of the TAG lines matching PATTERN
sum() { sed -n "s/^@$1 //p" "$res" | awk -v p="$2" '$0 ~ p { s += $NF } END { print s + 0 }'; }
# is NAME TAG PATTERN WANT
is() {
	got=$(sum "$2" "$3")
	if [ "$got" = "$4" ]; then pass "$1 ($got)"; else
		fail "$1" "got $got, want $4: $(sed -n "s/^@$2 //p" "$res" | cut -c1-200 | head -n 4 | tr '\n' '|')"
	fi
}
# ran NAME TAG: the run's exit status was 0 (else one FAIL with why)
ran() {
	if grep -qx "@rc-$2 0" "$res"; then pass "$1: exits 0"; return 0; fi
	fail "$1: exits 0" "$(sed -n "s/^@err-$2 //p" "$res" | grep -v capabilities | head -n 2 | tr '\n' '|')"
	return 1
}

for b in $(boards); do
	arch=$(board_arch "$b")
	t="board/$b stackcount"
	board_section "$t" "$b" stackcount || continue
	for p in default kprobe; do
		ran "$t $p k:vfs_write kr:vfs_write" $p || continue
		for e in k kr; do
			way=$(sed -n "s/^@err-$p stackcount: $e:vfs_write: attached as //p" "$res")
			if [ $p = kprobe ]; then
				check "$t $p: $e:vfs_write attached as a kprobe ($way)" \
					sh -c "echo '$way' | grep -qxE 'kprobe|kretprobe'"
			elif [ "$arch" = x86_64 ] && ! board_nobtf "$b"; then
				# trampolines: x86_64 since 5.5, with the kernel's own BTF
				check "$t: $e:vfs_write attached by fentry/fexit on x86_64 ($way)" \
					sh -c "echo '$way' | grep -qxE 'fentry|fexit'"
			else
				check "$t: $e:vfs_write attached ($way)" \
					sh -c "echo '$way' | grep -qxE 'fentry|fexit|kprobe|kretprobe'"
			fi
			is "$t $p: $e:vfs_write from write_small" $p "\\[$e:vfs_write\\];.*;write_small;" 3000
			is "$t $p: $e:vfs_write from write_large" $p "\\[$e:vfs_write\\];.*;write_large;" 1000
		done
	done
	if ran "$t --filter on k:'s arg2" kargs; then
		is "$t --filter 'arg2 > 100' k:vfs_write (its count): write_large's 1000" kargs ';write_large;' 1000
		is "$t --filter 'arg2 > 100' k:vfs_write: not write_small" kargs 'write_small' 0
		check "$t --filter on k:: attached by kprobe" grep -q '^@err-kargs stackcount: k:vfs_write: attached as kprobe$' "$res"
	fi
	if ran "$t --filter" filter; then
		is "$t --filter 'count > 100': write_large's 1000" filter ';write_large;' 1000
		is "$t --filter 'count > 100': not write_small" filter 'write_small' 0
	fi
	if ran "$t u:FILE:FUNCTION (static musl)" uprobe; then
		is "$t u:FILE:FUNCTION: call_a's 3000" uprobe ';call_a;counted_target ' 3000
		is "$t u:FILE:FUNCTION: call_b's 1000" uprobe ';call_b;counted_target ' 1000
	fi
done
