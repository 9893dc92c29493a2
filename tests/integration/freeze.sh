#!/bin/sh
# offcpu across a freeze: what a suspend does to every user task, here
# with a cgroup freezer holding both tests/workloads/parked.c and the
# collector, 3 times 2 s. At a thaw all wake at once: a thread whose
# block (a pipe read the freezer interrupted, then the freezer's own
# wait) ends around the collector's flip must still be charged to the
# snapshot it was blocked in. It went to the next one at about one thaw
# in two when it ended after the flip but before the cut pass, and in
# about one run in eight when its count, after a stack walk, read which
# map counts after the flip had moved it. A thread is never charged more
# than the snapshot lasted.
. "$SRCTREE/tests/lib.sh"
need_bpf "offcpu across a freeze"

# a cgroup freezer: v1's freezer.state, or v2's cgroup.freeze
frz=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/mounts)
if [ -n "$frz" ]; then
	freeze() { echo FROZEN >"$F/freezer.state"; }
	thaw() { echo THAWED >"$F/freezer.state"; }
else
	frz=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	freeze() { echo 1 >"$F/cgroup.freeze"; }
	thaw() { echo 0 >"$F/cgroup.freeze"; }
fi
F=$frz/stackbox-freeze.$$
if [ -z "$frz" ] || ! mkdir "$F" 2>/dev/null ||
	{ [ ! -e "$F/freezer.state" ] && [ ! -e "$F/cgroup.freeze" ]; }; then
	rmdir "$F" 2>/dev/null
	skip "offcpu across a freeze" "no cgroup freezer here (v1 freezer.state or v2 cgroup.freeze)"
	exit 0
fi
trap 'thaw 2>/dev/null; rmdir "$F" 2>/dev/null; rm -rf "$T"' EXIT

# both join the cgroup before they exec
sh -c "echo \$\$ >$F/cgroup.procs && exec '$WORKLOADS/parked' 12" >"$T/truth" &
w=$!
sh -c "echo \$\$ >$F/cgroup.procs && exec '$STACKBOX' offcpu -i 1 -p $w -o '$T/off' -v" \
	2>"$T/off.err" &
p=$!
wait_for 60 attached "$T/off.err"
kill -USR1 "$w"
for i in 1 2 3; do
	sleep 1.5
	freeze
	sleep 2
	thaw
done
wait "$w"
rw=$?
kill -INT "$p" 2>/dev/null
wait "$p"
rp=$?
check "parked and offcpu exit 0 ($rw $rp)" [ "$rw$rp" = 00 ]

# a line per snapshot: its length (s), then the us charged to parked_nap
# and to parked_read
snapshot_spans parked_nap parked_read <"$T/off" >"$T/spans"
table=$(tr '\n' ',' <"$T/spans")

# the snapshots holding a freeze: 1.5 s or longer (the collector was
# frozen too). Both threads were off the CPU through them: blocked,
# frozen, or waiting for a CPU at the thaw (all of which offcpu counts by
# default).
set -- $(awk '$1 >= 1.5 { n++; if ($2 < $1 * 0.95e6) nap++; if ($3 < $1 * 0.95e6) rd++ }
	END { print n + 0, nap + 0, rd + 0 }' "$T/spans")
check "3 snapshots hold a freeze, each as long ($1; snapshots: s nap read, $table)" [ "$1" = 3 ]
check "the nanosleep is charged each freeze's snapshot whole ($2 are not)" [ "$2" = 0 ]
check "the pipe read, which the freezer interrupted, is charged each freeze's snapshot whole ($3 are not)" \
	[ "$3" = 0 ]
# (the lengths are printed to the ms, the values to 3 digits)
over=$(awk '$2 > $1 * 1.01e6 + 2000 || $3 > $1 * 1.01e6 + 2000 { n++ } END { print n + 0 }' "$T/spans")
check "no snapshot charges a thread more than it lasted ($over do: $table)" [ "$over" = 0 ]
set -- $(awk '{ n += $2; r += $3 } END { print n, r }' "$T/spans") \
	$(awk '{ print $2 }' "$T/truth" | tr '\n' ' ')
check "the nanosleep's total is its time on CLOCK_MONOTONIC ($1 us, parked: $3 us)" \
	fcmp "$1 >= $3 * 0.98 && $1 <= $3 * 1.01"
check "the pipe read's total is its time on CLOCK_MONOTONIC ($2 us, parked: $4 us)" \
	fcmp "$2 >= $4 * 0.98 && $2 <= $4 * 1.01"
