#!/bin/sh
# Board test: stackbox check in the board kernels under qemu (TCG),
# x86_64 and arm64: every way its table gives is the way the applet's
# own -v run attaches with on that kernel, its features agree with the
# kernel's version and BTF, and its exit status with the runs'.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
TIMEOUT=${BOARD_TIMEOUT:-300}

GUEST='stackbox check --tsv >/tmp/tsv; echo "@check-rc $?"
sed "s/^/@tsv /" /tmp/tsv
echo "@uname $(uname -r)"
[ -s /sys/kernel/btf/vmlinux ] && echo "@btf yes" || echo "@btf no"
run() { tag=$1; shift; stackbox "$@" -v -d 2 -f folded >/dev/null 2>/tmp/err; echo "@rc-$tag $?"; sed "s/^/@err-$tag /" /tmp/err; }
run offcpu offcpu -w
run rastack rastack
run iostack iostack
run disk iostack --disk
run oncpu oncpu
exit 0'

tsv() { sed -n 's/^@tsv //p' "$res"; }
way() { tsv | awk -F'	' -v a="$1" -v h="$2" '$1 == "attach" && $2 == a && $3 == h { print $4 }'; }
feature() { tsv | awk -F'	' -v f="$1" '$1 == "feature" && $2 == f { print $3 }'; }
# at_least MAJOR MINOR: the guest's kernel is that version or later
at_least() {
	sed -n 's/^@uname //p' "$res" |
		awk -F. -v M="$1" -v m="$2" '{ exit !($1 > M || ($1 == M && $2 >= m)) }'
}
yes_if() { if "$@"; then echo yes; else echo no; fi; }
# fact NAME MAJOR MINOR: the feature is there from that version on
fact() {
	want=$(yes_if at_least "$2" "$3")
	check "$t: $1 $want ($2.$3+)" [ "$(feature "$1")" = "$want" ]
}

for arch in x86_64 arm64; do
	t="board/$arch check"
	board_boot "$t" "$arch" "$GUEST" || continue
	kernel=$(sed -n 's/^@uname //p' "$res")
	t="$t ($kernel)"
	check "$t: exit status 0" grep -qx "@check-rc 0" "$res"
	check "$t: kernel BTF as /sys/kernel/btf/vmlinux says" \
		[ "$(feature "kernel BTF")" = "$(sed -n 's/^@btf //p' "$res")" ]
	fact bpf_for_each_map_elem 5 13
	fact bpf_loop 5 17
	fact "uprobe_multi links" 6 6
	fact "BPF atomics" 5 12 # arm64's JIT too, on these kernels
	# every hook an applet attached is where check said it would be
	for tag in offcpu rastack iostack disk; do
		applet=$tag mark=
		[ $tag = disk ] && applet=iostack mark=" (--disk)"
		check "$t: $tag runs" grep -qx "@rc-$tag 0" "$res"
		sed -n "s/^@err-$tag $applet: \(.*\): attached with \(.*\)$/\1	\2/p" "$res" >"$res.$tag"
		check "$t: $tag said how it attached (-v)" test -s "$res.$tag"
		while IFS='	' read -r hook got; do
			want=$(way "$applet" "$hook$mark")
			[ -n "$want" ] || want=$(way "$applet" "$hook (-w)")
			check "$t: $applet attaches $hook with $got, as check said ($want)" \
				[ "$got" = "$want" ]
		done <"$res.$tag"
		rm -f "$res.$tag"
	done
	event=$(sed -n 's/^@err-oncpu oncpu: sampling .* Hz with \(.*\)$/\1/p' "$res")
	check "$t: oncpu samples with $event, as check said" \
		[ "$(way oncpu "perf_event sampling")" = "$event" ]
done
