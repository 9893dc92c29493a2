#!/bin/sh
# Board checker: `stackbox check` on every board (tests/board/guest's
# check section runs it as root and as nobody). SKIP when the binary
# has no check applet. Minimal for now: the table names every applet the
# binary has, and the exit status is 0 (every applet can run) or 1.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }

for b in $(boards); do
	t="board/$b check"
	board_section "$t" "$b" info || continue
	applets=$(tag list | grep -vx -e check -e report)
	board_section "$t" "$b" check || continue
	if grep -q '^@no-check' "$res"; then
		skip "$t" "this stackbox has no check applet"
		continue
	fi
	rc=$(tag rc)
	check "$t: exits 0 or 1 as root (status $rc)" sh -c "[ '$rc' = 0 ] || [ '$rc' = 1 ]"
	for a in $applets; do
		check "$t: the table names $a" sh -c "sed -n 's/^@check //p' '$res' | grep -qw '$a'"
	done
	rc=$(tag rc-user)
	check "$t: runs without root (status $rc)" sh -c "[ '$rc' = 0 ] || [ '$rc' = 1 ]"
done
