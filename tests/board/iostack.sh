#!/bin/sh
# Board checker: iostack on every board (tests/boards.sh; the guest's
# iostack section of tests/board/guest), with the static musl workloads:
# every syscall of tests/workloads/io.c on files (tmpfs), sockets and
# pipes, bytes and calls exact (io.want), on both syscall paths; a failed
# write; libc's direct caller (libcall) and --unwind eh_frame through
# code without frame pointers. --disk is not run here (tests/integration
# runs it on a loop device).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

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

for b in $(boards); do
	t="board/$b iostack"
	board_section "$t" "$b" iostack || continue
	for p in raw_tp tracepoint; do
		# a run that failed has no numbers to check: one FAIL, with why
		if ! grep -qx "@rc-$p 0" "$res"; then
			fail "$t $p: exits 0" "$(sed -n "s/^@err-$p //p" "$res" | grep -v capabilities | head -n 2 | tr '\n' '|')"
			continue
		fi
		pass "$t $p: exits 0"
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
	eh_frame_runs "$t" "$b" eh-err || continue
	exact "$t: eh_frame, musl without frame pointers: main;outer_write;sigma_write" ehw 'write other' ';main;outer_write;sigma_write;' 50000
	check "$t: eh_frame ran (no fallback)" test -z "$(grep '^@eh-err .*lacks' "$res")"
done
