#!/bin/sh
# Board checker: `stackbox check` on every board (the guest's check
# section of tests/board/guest): every way its table gives is the way
# the applet's own -v run attached with on that kernel, its features
# agree with the kernel's version and BTF, and its exit status with the
# runs' (0 when every applet ran). As nobody it runs too. SKIP when the
# binary has no check applet. (Ported from the check branch's version,
# written for one boot per test.)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tsv() { sed -n 's/^@tsv //p' "$res"; }
way() { tsv | awk -F'	' -v a="$1" -v h="$2" '$1 == "attach" && $2 == a && $3 == h { print $4 }'; }
feature() { tsv | awk -F'	' -v f="$1" '$1 == "feature" && $2 == f { print $3 }'; }
# fact NAME VERSION: the feature is there from that kernel version on
fact() {
	want=yes
	! kernel_before "$b" "$2" || want=no
	check "$t: $1 $want ($2+)" [ "$(feature "$1")" = "$want" ]
}

for b in $(boards); do
	t="board/$b check"
	board_section "$t" "$b" check || continue
	if grep -q '^@no-check' "$res"; then
		skip "$t" "this stackbox has no check applet"
		continue
	fi
	want=0
	! grep '^@rc-' "$res" | grep -v '^@rc-user ' | grep -qv ' 0$' || want=1
	check "$t: exit status $want, as the runs' says" grep -qx "@check-rc $want" "$res"
	# the verdict rows, before the table, agree with the exit status
	check "$t: a verdict row per applet with a row in the table" \
		[ "$(tsv | awk -F'	' '$1 == "applet" { print $2 }' | sort | tr '\n' ' ')" = \
		  "$(tsv | awk -F'	' '$1 == "attach" { print $2 }' | sort -u | tr '\n' ' ')" ]
	if grep -qx "@check-rc 0" "$res"; then
		check "$t: exit status 0, every verdict row ok" \
			[ -z "$(tsv | awk -F'	' '$1 == "applet" && $3 != "ok"')" ]
	fi
	check "$t: kernel BTF as /sys/kernel/btf/vmlinux says" \
		[ "$(feature "kernel BTF")" = "$(sed -n 's/^@btf //p' "$res")" ]
	fact bpf_for_each_map_elem 5.13
	fact bpf_loop 5.17
	fact "uprobe_multi links" 6.6
	fact "BPF atomics" 5.12 # arm64's JIT too, on these kernels
	# the walk for code without frame pointers, as offcpu -v took it
	said='?'
	! grep -q '^@err-offcpu .*unwind: the table walk: ' "$res" || said=yes
	! grep -q '^@err-offcpu .*user stacks: frame pointers: this kernel lacks' "$res" || said=no
	row=$(feature "user stacks without frame pointers")
	check "$t: user stacks without frame pointers: $row, as offcpu -v says ($said)" \
		[ "$row" = "$said" ]
	# every hook an applet attached is where check said it would be
	for tag in offcpu rastack iostack disk; do
		applet=$tag mark=
		[ $tag = disk ] && applet=iostack mark=" (--disk)"
		grep -q "^@rc-$tag " "$res" || continue
		if ! grep -qx "@rc-$tag 0" "$res"; then
			# without BTF an applet may stop: check must have said so
			check "$t: $tag did not run, check exits 1" grep -qx "@check-rc 1" "$res"
			continue
		fi
		sed -n "s/^@err-$tag $applet: \(.*\): attached with \(.*\)$/\1	\2/p" "$res" >"$res.$tag"
		check "$t: $tag said how it attached (-v)" test -s "$res.$tag"
		while IFS='	' read -r hook got; do
			w=$(way "$applet" "$hook$mark")
			[ -n "$w" ] || w=$(way "$applet" "$hook (-w)")
			check "$t: $applet attaches $hook with $got, as check said ($w)" [ "$got" = "$w" ]
		done <"$res.$tag"
		rm -f "$res.$tag"
	done
	event=$(sed -n 's/^@err-oncpu oncpu: sampling .* Hz with \(.*\)$/\1/p' "$res")
	check "$t: oncpu samples with $event, as check said" \
		[ "$(way oncpu "perf_event sampling")" = "$event" ]
	rc=$(sed -n 's/^@rc-user //p' "$res")
	check "$t: runs as nobody, without root (status $rc)" sh -c "[ '$rc' = 0 ] || [ '$rc' = 1 ]"
done
