#!/bin/sh
# Board checker: triggers and the flight recorder in the 5.10 and 6.1
# guests (tests/board/guest's trigger section; docs/triggers.md). A
# CPU-pressure trigger (the kernel's PSI, not the load fallback) fires
# during a burst of 4 busy threads on 2 CPUs and snapshots are written
# only from then on; a recorder started with the workload writes nothing
# until SIGUSR1, then a stream report reads, whose window holds the
# first phase's vanish_cpu from before the trigger.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }
# epoch "YYYY-MM-DD HH:MM:SS.mmm": seconds, as the guest's UTC clock
epoch() { date -u -d "$1" +%s.%N; }

for b in $(boards); do
	case $b in
	5.10-*-nobtf | 6.1-*-nobtf | 6.12-*) continue ;;
	esac
	t="board/$b triggers"
	board_section "$t" "$b" trigger || continue
	check "$t: oncpu -T cpu:some exits 0" [ "$(tag rc-psi)" = 0 ]
	check "$t: PSI is there (no fallback)" sh -c "! grep -q '^@psi-err .*PSI' '$res'"
	set -- $(tag burst)
	bs=${1:-0} be=${2:-0}
	fired=$(tag psi | sed -n 's/^\*\*\* mark [0-9]* fired at \([0-9-]* [0-9:.]*\): cpu some.*/\1/p' | head -n 1)
	if [ -n "$fired" ]; then
		f=$(epoch "$fired")
		# the kernel polls at window/10; TCG delays the threads' start
		# and the event: 3 s after the burst's end at most
		check "$t: fired during the burst ($f in $bs..$be + 3)" \
			fcmp "$f >= $bs && $f <= $be + 3"
	else
		fail "$t: the burst fires the PSI trigger" "marks: $(tag psi | tr '\n' '|')"
	fi
	check "$t: snapshots written after the firing ($(tag psi-snapshots))" \
		[ "$(tag psi-snapshots)" -ge 1 ]
	check "$t: the recorder writes nothing before the trigger" [ "$(tag before)" = 0 ]
	check "$t: the recorder exits 0" [ "$(tag rc-rec)" = 0 ]
	check "$t: report reads the dump" sh -c "[ '$(tag rc-report)' = 0 ] && ! grep -q '^@rep-err' '$res'"
	check "$t: the dump's first mark is the signal" \
		sh -c "sed -n 's/^@mark //p' '$res' | grep -q '^\*\*\* mark 1 fired at .*SIGUSR1'"
	n=$(tag mark | sed -n 's/.* window at .*: flight recorder: \([0-9]*\) snapshots.*/\1/p' | head -n 1)
	check "$t: the window held the seconds before (${n:-no} snapshots >= 5)" [ "${n:-0}" -ge 5 ]
	check "$t: the minute before the trigger has the first phase (vanish_cpu)" \
		[ "$(tag vanish)" -ge 1 ]
done
