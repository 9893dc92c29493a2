#!/bin/sh
# Board checker: a suspend under offcpu and oncpu -i 1 (tests/board/
# guest's suspend section): to RAM (S3, x86_64) or to idle (s2idle,
# arm64) for about 5 s, woken by the RTC's alarm, with both on
# tests/workloads/parked.c, whose threads time themselves on
# CLOCK_MONOTONIC and CLOCK_BOOTTIME.
#
# What the kernel's clocks give: CLOCK_BOOTTIME counts the suspend;
# CLOCK_MONOTONIC (bpf_ktime_get_ns, offcpu's clock) and the perf clock
# (oncpu's cpu-clock, the threads' CPU time) stop while timekeeping is
# suspended: S suspended = the boottime a block took less its monotonic
# time. What we report: a snapshot's start and end are wall-clock times,
# its length real (boottime): the one holding the suspend is S longer
# than its interval on CLOCK_MONOTONIC. A thread blocked across the
# suspend is charged its monotonic block, not S; oncpu takes no samples
# in S, and samples the CPUs a suspend took down and up again
# (percpu.c), what it missed on the "lost:" line.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }

# spans TAG: a line per snapshot of the TAG lines' text output: its
# length (s), then the us (offcpu) or samples (oncpu) of rows under
# parked_nap, parked_read and parked_spin
spans() { tag "$1" | snapshot_spans parked_nap parked_read parked_spin; }

# within NAME GOT WANT: GOT within 10% + 20 ms of WANT (us), as
# offcpu.sh's truths on a TCG board
within() {
	if fcmp "$2 >= $3 * 0.9 - 20000 && $2 <= $3 * 1.1 + 20000"; then
		pass "$1: $2 us (want $3)"
	else
		fail "$1" "got $2 us, want $3 +- 10% + 20 ms"
	fi
}

for b in $(boards); do
	# the guest runs the section on the boards with their BTF
	case $b in *-nobtf) continue ;; esac
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
	# a TCG guest whose TSC was mis-calibrated at boot ("tsc: PIT
	# calibration deviates from HPET": 372 MHz for 2.6 GHz) runs its
	# clocks several times too fast: no truth holds there
	set -- $(tag rtc)
	rate=$(awk -v r0="${1:-0}" -v b0="${2:-0}" -v r1="${3:-0}" -v b1="${4:-0}" \
		'BEGIN { printf "%.2f", (r1 > r0 ? (b1 - b0) / (r1 - r0) : 0) }')
	if ! fcmp "$rate >= 0.7 && $rate <= 1.4"; then
		skip "$t" "the guest's CLOCK_BOOTTIME ran $rate times as fast as its RTC (the host's time): its clocks are no truth (a TSC mis-calibrated at boot?)"
		continue
	fi
	set -- $(tag truth | awk '{ print $2, $3, $4 }' | tr '\n' ' ')
	nap=$1 nap_boot=$2 rd=$3 rd_boot=$4 cpu=$5
	# suspended, us: what CLOCK_BOOTTIME counted and CLOCK_MONOTONIC not
	sus=$((nap_boot - nap))
	check "$t: parked and both collectors exit 0 ($(tag rc-parked) $(tag rc) $(tag rc-on))" \
		[ "$(tag rc-parked)$(tag rc)$(tag rc-on)" = 000 ]
	spans off >"$OUT/board/$b.suspend.off"
	spans on >"$OUT/board/$b.suspend.on"
	table=$(cut -d' ' -f1-3 "$OUT/board/$b.suspend.off" | tr '\n' ',')
	# the snapshot holding the suspend: the longest
	set -- $(sort -g -k1,1 "$OUT/board/$b.suspend.off" | tail -n 1)
	len=$1 held_nap=$2 held_read=$3
	awake=$(awk -v l="$len" -v s="$sus" 'BEGIN { printf "%.3f", l - s / 1e6 }')
	if [ "$sus" -lt 1000000 ]; then
		# arm64 virt: no cpuidle driver, so s2idle never freezes the
		# tick and timekeeping runs on
		skip "$t: the suspend not charged" "the kernel counted ${sus} us of ${slept}s in $mode as suspended (CLOCK_MONOTONIC ran on: timekeeping was not suspended), so a block across it is charged it, as the threads' own clocks count it"
		check "$t: the snapshot holding it is ${len}s: -i 1 and the ${slept}s in $mode" \
			fcmp "$len >= $slept - 1 && $len <= $slept + 2.5"
	else
		check "$t: ${slept}s to $mode, ${sus} us of it suspended (boottime - monotonic)" \
			[ "$sus" -ge 2000000 ]
		# awake in it: up to -i 1, the suspend's way down and up
		# (monotonic, the guest's @clocks), a wait cut by the freezer
		# and begun again at the thaw (-i 1), and 0.5 s of TCG
		path=$(awk '/^@clocks-before/ { b = $2 } /^@clocks-after/ { a = $2 }
			END { printf "%.3f", (a - b) / 1e9 }' "$res")
		check "$t: the snapshot holding it is ${len}s: ${awake}s awake (<= 2.5 s + ${path}s down and up) + the suspend" \
			fcmp "$awake >= 0.5 && $awake <= 2.5 + $path"
	fi
	if grep -q 'counted when they wake' "$res"; then
		skip "$t: what its snapshot charges the blocked threads" \
			"before 5.13 a block is counted whole in the snapshot it ends in (offcpu -v: $(tag err | sed -n 's/.*threads blocked at a snapshot are //p'))"
	else
		check "$t: its nanosleep is charged ${held_nap} us, not the suspend (awake ${awake}s; snapshots: s nap read, $table)" \
			fcmp "$held_nap <= $awake * 1e6 + 20000"
		check "$t: its pipe read is charged ${held_read} us, not the suspend (awake ${awake}s)" \
			fcmp "$held_read <= $awake * 1e6 + 20000"
		# a block the freezer ended, and the freezer's wait that
		# followed it, ending after a flip: in the snapshots it lasted
		# through (tests/integration/freeze.sh; with the suspend, 0.43 s
		# of the pipe read was charged to the 5.1 s snapshot holding
		# it, 5.67 s to the 1.0 s one after)
		over=$(awk '$2 > $1 * 1.01e6 + 2000 || $3 > $1 * 1.01e6 + 2000 { n++ } END { print n + 0 }' \
			"$OUT/board/$b.suspend.off")
		check "$t: no snapshot charges a thread more than it lasted ($over do; snapshots: s nap read, $table)" \
			[ "$over" = 0 ]
	fi
	set -- $(awk '{ n += $2; r += $3 } END { print n + 0, r + 0 }' "$OUT/board/$b.suspend.off")
	within "$t: offcpu charges the nanosleep its monotonic time (boottime: $nap_boot)" "$1" "$nap"
	within "$t: offcpu charges the pipe read its monotonic time (boottime: $rd_boot)" "$2" "$rd"
	after=$(awk -v l="$len" '$1 == l { seen = 1; next } seen { n++ } END { print n + 0 }' \
		"$OUT/board/$b.suspend.off")
	check "$t: offcpu snapshots go on at -i 1 after it ($after)" [ "$after" -ge 2 ]
	gaps=$(tag off | awk '/^=== / { split($(NF - 4), a, ":"); split($(NF - 2), b, ":")
		s = a[1] * 3600 + a[2] * 60 + a[3]; e = b[1] * 3600 + b[2] * 60 + b[3]
		if (n++ && (s - end > 0.01 || end - s > 0.01)) g++; end = e }
		END { print g + 0 }')
	check "$t: each offcpu snapshot starts where the last ended ($gaps gaps)" [ "$gaps" = 0 ]
	check "$t: offcpu says nothing lost ($(tag off | grep '^lost:' | sort -u | tr '\n' ' '))" \
		[ -z "$(tag off | grep '^lost:' | grep -v '^lost: none$' || true)" ]
	# oncpu: 99 Hz; samples of the spinner against its CPU time
	set -- $(sort -g -k1,1 "$OUT/board/$b.suspend.on" | tail -n 1)
	olen=$1 oheld=$4
	oawake=$(awk -v l="$olen" -v s="$sus" 'BEGIN { printf "%.3f", l - s / 1e6 }')
	check "$t: oncpu's snapshot holding it (${olen}s) has ${oheld} spinner samples, <= ${oawake}s awake at 99 Hz" \
		fcmp "$oheld <= $oawake * 99 + 3"
	spin=$(awk '{ n += $4 } END { print n + 0 }' "$OUT/board/$b.suspend.on")
	ms=$(awk -v n="$spin" 'BEGIN { printf "%d", n * 1000 / 99 }')
	check "$t: oncpu's $spin spinner samples ($ms ms) are not inflated: <= its CPU time ($((cpu / 1000)) ms) + 10%" \
		fcmp "$ms <= $cpu / 1000 * 1.1 + 30"
	# its samples a second before and after the suspend's snapshot (a
	# CPU the suspend took down was not sampled again: 0 after it)
	set -- $(awk -v l="$olen" '$1 == l { after = 1; next }
		after { at += $1; a += $4; next } { bt += $1; b += $4 }
		END { printf "%.1f %.1f\n", bt ? b / bt : 0, at ? a / at : 0 }' "$OUT/board/$b.suspend.on")
	unsampled=$(tag on | sed -n 's/^lost:.*[ ,]\([0-9][0-9]*\) ms of CPU time not sampled.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	check "$t: oncpu samples the spinner after it as before ($2/s after, $1/s before; $unsampled ms said not sampled)" \
		fcmp "$2 >= $1 / 2 && $1 > 0"
done
