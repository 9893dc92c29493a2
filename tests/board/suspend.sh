#!/bin/sh
# Board checker: a suspend under offcpu (tests/board/guest's suspend
# section, 6.12-x86_64): to RAM for 5 s, woken by the RTC's alarm. The
# collector runs on after it, at its interval; the snapshot that holds
# the suspend says how long it really was (the wall clock and
# CLOCK_BOOTTIME both count a suspend), and none is lost or cut.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }

for b in $(boards); do
	# the guest suspends on this board alone (tests/board/guest)
	case $b in 6.12-x86_64) ;; *) continue ;; esac
	t="board/$b suspend"
	board_section "$t" "$b" suspend || continue
	if [ -n "$(tag none)" ]; then
		skip "$t" "no way to suspend ($(tag none))"
		continue
	fi
	set -- $(tag suspend)
	mode=${1:-?} rc=${2:-?} slept=${3:-0}
	if [ "$rc" != 0 ] || [ "$slept" -lt 3 ]; then
		skip "$t" "the board did not suspend ($mode: status $rc, ${slept}s)"
		continue
	fi
	# start and end as seconds of the day, and (D s), per snapshot
	tag snap | awk '{
		split($(NF - 4), a, ":"); split($(NF - 2), b, ":")
		d = $(NF - 1); sub(/\(/, "", d)
		print a[1] * 3600 + a[2] * 60 + a[3], b[1] * 3600 + b[2] * 60 + b[3], d
	}' >"$OUT/board/$b.suspend.spans"
	spans=$OUT/board/$b.suspend.spans
	n=$(wc -l <"$spans")
	longest=$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$spans")
	after=$(awk '$3 >= 3 { seen = 1; next } seen { n++ } END { print n + 0 }' "$spans")
	gaps=$(awk 'NR > 1 { g = $1 - end; if (g < 0) g = -g; if (g > 0.01) n++ } { end = $2 }
		END { print n + 0 }' "$spans")
	check "$t: offcpu -d 8 exits 0 after a ${slept}s suspend to $mode ($(tag rc))" [ "$(tag rc)" = 0 ]
	check "$t: the snapshot that holds it says so (${longest}s of -i 1, >= 3)" \
		fcmp "$longest >= 3 && $longest < 10"
	check "$t: snapshots go on at -i 1 after it ($after)" [ "$after" -ge 2 ]
	check "$t: each of the $n snapshots starts where the last ended ($gaps gaps)" [ "$gaps" = 0 ]
	check "$t: nothing said lost ($(tag lost | sort -u | tr '\n' ' '))" \
		[ -z "$(tag lost | grep -v '^lost: none$' || true)" ]
done
