#!/bin/sh
# The cost of waiting for a trigger (docs/triggers.md): stackbox offcpu
# system-wide, -i 1, waiting on each trigger kind that never fires here,
# against the same run collecting (no -T) and the flight recorder (-R,
# which collects and encodes every interval while it waits). Per second
# of waiting: the collector's CPU (schedstat of all its threads) and its
# BPF programs' time (run_time_ns; kernel.bpf_stats_enabled is set for
# the run and restored): the gate in sb_ctl leaves BPF an early return
# per event. Prints numbers only; nothing is asserted.
# Knobs: SECS (per kind, 20), REPS (3), ONLY (a kind's name), KEEP=1.
. bench/lib.sh
bench_start triggers
SECS=${SECS:-20}
REPS=${REPS:-3}
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# PSI of an empty cgroup of our own never rises (this machine's own
# pressure does: a shared VM); else memory full pressure, which seldom
# rises
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	if [ -e $d/cgroup.procs ] && mkdir "$d/sbbench.$$" 2>/dev/null; then
		export STACKBOX_PRESSURE_DIR=$d/sbbench.$$
		trap 'rmdir "$STACKBOX_PRESSURE_DIR"; cleanup' EXIT
		break
	fi
done
psi=${STACKBOX_PRESSURE_DIR:+cpu:some:100ms/2s}

# kinds: NAME and the options; none of these triggers fires here (the
# PSI above; load and dstate thresholds of 100000 tasks; no signal; no
# file)
kinds='collecting|
psi|-T '${psi:-memory:full:1s/2s}'
load|-T load:100000
load100ms|-T load:100000:100ms
dstate|-T dstate:100000
signal|-T signal
file|-T file:'$T'/never
recorder|-R 60s -T signal'

echo "idle cost of waiting, offcpu system-wide, $SECS s per run, median of $REPS"
printf '%-11s %14s %16s %12s\n' kind "cpu ms/s" "bpf us/s" "written"
for r in $(seq "$REPS"); do
	echo "$kinds" | while IFS='|' read -r name opts; do
		[ -z "${ONLY:-}" ] || [ "$ONLY" = "$name" ] || continue
		# shellcheck disable=SC2086 # opts are words
		"$SB" offcpu -i 1 $opts -o "$T/$name.out" -v 2>"$T/$name.err" &
		PID=$!
		LIVE="$LIVE $PID"
		wait_for grep -q 'sched_switch: attached with' "$T/$name.err" ||
			die "$name: offcpu did not attach: $(tail -n 1 "$T/$name.err")"
		sleep 2 # the first snapshot's symbol loading is not waiting
		c0=$(run_ms "$PID")
		set -- $(bpf_stat "$PID")
		b0=$1
		sleep "$SECS"
		c1=$(run_ms "$PID")
		set -- $(bpf_stat "$PID")
		b1=$1
		kill -INT "$PID"
		wait "$PID" 2>/dev/null
		awk -v n="$name" -v c="$c1 - $c0" -v b="$b1 - $b0" -v s="$SECS" \
			-v w="$(stat -c %s "$T/$name.out")" 'BEGIN {
				split(c, cc, " - "); split(b, bb, " - ")
				printf "%s %.3f %.1f %d\n", n, (cc[1] - cc[2]) / s,
					(bb[1] - bb[2]) / s / 1000, w
			}' >>"$T/results"
	done
done
echo "$kinds" | while IFS='|' read -r name opts; do
	[ -z "${ONLY:-}" ] || [ "$ONLY" = "$name" ] || continue
	printf '%-11s %14s %16s %12s\n' "$name" "$(median "$T/results" 2 "$name" %.3f)" \
		"$(median "$T/results" 3 "$name" %.1f)" "$(median "$T/results" 4 "$name" %d)"
done
echo "(written: bytes of output; collecting and only a firing trigger write)"
