#!/bin/sh
# Board checker: CPU hotplug under oncpu (tests/board/guest's hotplug
# section, on the boards with BTF). CPU 1 goes offline for 3 s and comes
# back: oncpu says so each way, counts the CPU time not sampled in its
# lost: line (3 s, give or take its once-a-second look at the CPUs),
# and samples a burn pinned to CPU 1 afterwards.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }

for b in $(boards); do
	case $b in *-nobtf) continue ;; esac
	t="board/$b hotplug"
	board_section "$t" "$b" hotplug || continue
	if [ -n "$(tag none)" ]; then
		skip "$t" "no CPU 1 to take offline ($(tag none))"
		continue
	fi
	check "$t: CPU 1 went offline and came back (echo: $(tag off), $(tag on))" \
		[ "$(tag off)" = 0 -a "$(tag on)" = 0 ]
	check "$t: oncpu -d 11 exits 0 ($(tag rc))" [ "$(tag rc)" = 0 ]
	check "$t: said when CPU 1 went" grep -q '^@err oncpu: CPU 1 went offline' "$res"
	check "$t: said when CPU 1 came back" grep -q '^@err oncpu: CPU 1 is online again' "$res"
	ms=$(tag lost | sed -n 's/.*[ ,]\([0-9]*\) ms of CPU time not sampled.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	check "$t: $ms ms of CPU time counted as not sampled (3000 +- 1500)" \
		[ "$ms" -ge 1500 -a "$ms" -le 4500 ]
	check "$t: a burn pinned to CPU 1 is sampled after it came back ($(tag burn) rows)" \
		[ "$(tag burn)" -gt 0 ]
done
