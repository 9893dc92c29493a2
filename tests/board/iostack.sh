#!/bin/sh
# Board test: iostack in Debian 12's 6.1 kernels under qemu (TCG),
# x86_64 and arm64, with the static musl workloads: every syscall of
# tests/workloads/io.c on files (tmpfs), sockets and pipes, bytes and
# calls exact (io.want), on both syscall paths; a failed write; libc's
# direct caller (libcall) and --unwind eh_frame through code without
# frame pointers. --disk is not run here: the initramfs has no block
# device, and the 6.1 kernels build loop, brd and virtio-blk as modules.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
TIMEOUT=${BOARD_TIMEOUT:-300}

GUEST='for p in raw_tp tracepoint; do
	export STACKBOX_ATTACH=$p
	stackbox iostack -v -f folded -- /workloads/io all /tmp 2>/tmp/io.err >/tmp/io.folded
	echo "@rc-$p $?"
	sed "s/^/@bytes-$p /" /tmp/io.folded
	sed "s/^/@err-$p /" /tmp/io.err
	stackbox iostack --value calls -f folded -- /workloads/io all /tmp 2>&1 | sed "s/^/@calls-$p /"
	stackbox iostack -f text -- /workloads/io badfd 2>&1 | sed "s/^/@bad-$p /"
done
unset STACKBOX_ATTACH
stackbox iostack -f folded -- /workloads/libcall write 50 1000 | sed "s/^/@lw /"
stackbox iostack -f folded -- /workloads/libcall read 100 | sed "s/^/@lr /"
stackbox iostack --unwind eh_frame -f folded -- /workloads/libcall-nofp write 50 1000 2>/tmp/io.err | sed "s/^/@ehw /"
sed "s/^/@eh-err /" /tmp/io.err
exit 0'

# sum TAG AUX PATTERN: folded values of the TAG lines of split AUX
# matching PATTERN
sum() {
	sed -n "s/^@$1 //p" "$res" | awk -v a=";[$2];" -v p="$3" \
		'index($0, a) && $0 ~ p { s += $NF } END { print s + 0 }'
}

exact() { # NAME TAG AUX PATTERN WANT
	got=$(sum "$2" "$3" "$4")
	if [ "$got" = "$5" ]; then
		pass "$1: $got (want $5)"
	else
		fail "$1" "got $got, want $5: $(sed -n "s/^@$2 //p" "$res" | grep -F "[$3]" | tr '\n' '|')"
	fi
}

for arch in x86_64 arm64; do
	t="board/$arch iostack"
	board_boot "$t" "$arch" "$GUEST" "$OUT/musl-$arch/workloads/io" || continue
	for p in raw_tp tracepoint; do
		check "$t $p: exits 0" grep -qx "@rc-$p 0" "$res"
		check "$t $p: used $p" grep -qx "@err-$p iostack: syscall exit: attached with $p" "$res"
		grep -v '^#' "$root/tests/workloads/io.want" | while read -r aux pat bytes calls; do
			aux=$(echo "$aux" | tr - ' ')
			what="$t $p: [$aux] $pat"
			# musl's sendmsg is no leaf and keeps no frame pointer:
			# its caller is lost, the stack is the libc leaf alone
			[ "$pat" != ';sock_sender;' ] ||
				pat="(;sock_sender;|^io;\\[write socket\\];[a-z_]+ )"
			[ "$bytes" = 0 ] || exact "$what bytes" bytes-$p "$aux" "$pat" "$bytes"
			[ "$calls" = - ] || exact "$what calls" calls-$p "$aux" "$pat" "$calls"
		done
		check "$t $p: write(-1) x 3: 0 bytes, 3 calls, 3 errors" \
			grep -qE "^@bad-$p +0 B +3 +3 .* write other" "$res"
	done
	# musl's leaf is its syscall cancellation point (sccp), under the
	# syscall's own function where that keeps a frame record (arm64);
	# the named function is the caller, and nothing is right under
	# outer_X without it
	set -- "$(sum lw 'write other' ';outer_write;sigma_write;')" "$(sum lw 'write other' ';outer_write;')"
	check "$t: outer_write;sigma_write;LIBC moved 50 x 1000 bytes ($1 of $2 under outer_write)" [ "$1 $2" = "50000 50000" ]
	set -- "$(sum lr 'read pipe' ';outer_read;kappa_read;')" "$(sum lr 'read pipe' ';outer_read;')"
	check "$t: outer_read;kappa_read;LIBC read the pipe's byte ($1 of $2 under outer_read)" [ "$1 $2" = "1 1" ]
	exact "$t: eh_frame, musl without frame pointers: main;outer_write;sigma_write" ehw 'write other' ';main;outer_write;sigma_write;' 50000
	check "$t: eh_frame ran (no fallback)" test -z "$(grep '^@eh-err .*lacks' "$res")"
done
