#!/bin/sh
# The flight recorder against real BPF: a workload changes phase at a
# known time, a trigger fires after it; the dump holds the first phase,
# nothing is written before the trigger, and memory stays bounded.
. "$SRCTREE/tests/lib.sh"
need_bpf "recorder integration"
PHASES=$WORKLOADS/phases

# size FILE: its bytes, 0 when it is not there
size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# changed FILE: phases has said it changed phase
changed() { grep -q '^change ' "$1"; }

# ---- bin sink, file trigger: phases changes at 5 s, the file 2 s later ----
# The file comes 2 s (two snapshots of the second phase) after phases
# says it changed, not at a guessed time: a loaded machine starts CMD
# seconds late. The run's 13 s leave 6 s for the 2 s hold.
rm -f "$T/go"
"$STACKBOX" oncpu -i 1 -R 60s --record-bytes 256k -T "file:$T/go" --hold 2s \
	-f bin -o "$T/rec.bin" -- "$PHASES" run 13 5 >"$T/phases.out" 2>"$T/rec.err" &
pid=$!
wait_for 60 changed "$T/phases.out"
sleep 2
before=$(size "$T/rec.bin")
touch "$T/go"
wait $pid
check "recorder bin: nothing written before the trigger ($before bytes)" test "$before" = 0
sb_report "$T/rec.bin" >"$T/rec.txt" 2>"$T/report.err"
check "recorder bin: report reads the dump, nothing skipped" test ! -s "$T/report.err"
check "recorder bin: the firing is mark 1" grep -q "^\*\*\* mark 1 fired at .*: file $T/go touched" "$T/rec.txt"
check "recorder bin: the window is a mark with the bound" \
	grep -q "^\*\*\* mark 3 window at .*flight recorder: [0-9]* snapshots before this one.* of at most 262144 bytes; dropped 0 " "$T/rec.txt"
# the first phase's own function, before the trigger: the minute before
sb_report --from mark:1-60s --to mark:1 "$T/rec.bin" >"$T/before.txt" 2>&1
check "recorder bin: the minute before mark 1 has the first phase (vanish_cpu)" \
	grep -q vanish_cpu "$T/before.txt"
check "recorder bin: ... and the second's (appear_cpu) after the change" \
	grep -q appear_cpu "$T/before.txt"
check "recorder bin: report --to mark:1 stops at the firing" \
	test "$(grep -c '^=== ' "$T/before.txt")" -lt "$(grep -c '^=== ' "$T/rec.txt")"

# ---- text sink, signal trigger, offcpu: the dump decoded on the device ----
# (SIGUSR1 once phases says it changed phase: the first phase's 4 s are
# recorded by then, whenever CMD started)
"$STACKBOX" offcpu -i 1 -R 30s -T signal --hold 1s -o "$T/off.txt" \
	-- "$PHASES" run 11 4 >"$T/off.out" 2>"$T/off.err" &
pid=$!
wait_for 60 changed "$T/off.out"
sleep 1
before=$(size "$T/off.txt")
kill -USR1 $pid
wait $pid
check "recorder text: nothing written before SIGUSR1 ($before bytes)" test "$before" = 0
check "recorder text: the first phase's naps are in the dump (vanish_wait)" \
	grep -q vanish_wait "$T/off.txt"
check "recorder text: the marks are lines" grep -q "^\*\*\* mark 1 fired at .*: SIGUSR1" "$T/off.txt"

# ---- the bound: 16k for a 60 s window of 2 snapshots a second ----
# phases' snapshots are about 1k each: 60 s of them would be 100k, so
# the ring must drop to stay in 16k. RSS is read once the caches are
# warm (symbols of phases and libc at the first snapshots, 6 s allows
# for a loaded machine) and 9 s later: the ring may add no more than
# its bound; 512 KiB allows for the allocator (measured: 80-170 KiB of
# drift in 10-30 s, no leak under valgrind). -U: kernel symbols (3 MiB)
# load at the first kernel-mode sample, which for this user-space loop
# may come at any time, on an idle machine after the first reading.
# The readings count from phases' start (its pid file: the collector is
# attached then, however long the BPF load took): 3 s, six snapshots,
# warm the caches, and the second comes 12 s in, 5 s before the end.
"$STACKBOX" oncpu -U -i 500ms -R 60s --record-bytes 16k -T "file:$T/never" -v \
	-o "$T/bound.txt" -- "$PHASES" run 17 8 "$T/bound.pid" >/dev/null 2>"$T/bound.err" &
pid=$!
wait_for 60 test -s "$T/bound.pid"
sleep 3
rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)
sleep 9
rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)
wait $pid
peak=$(sed -n 's/.*flight recorder: held at most \([0-9]*\) bytes.*/\1/p' "$T/bound.err")
echo "# recorder bound 16384: held at most ${peak:-?} bytes; RSS ${rss0} -> ${rss1} KiB"
check "recorder bound: nothing written without a trigger" test ! -s "$T/bound.txt"
check "recorder bound: the ring held at most 16k" test "${peak:-99999999}" -le 16384
check "recorder bound: it had to drop to stay there (over 16k were recorded)" \
	grep -q "flight recorder: dropped [1-9][0-9]* snapshots" "$T/bound.err"
check "recorder bound: RSS grew less than 512 KiB over 9 s (both read while it ran)" \
	test -n "$rss0" -a -n "$rss1" -a $((${rss1:-0} - ${rss0:-0})) -lt 512

# ---- -T anomaly: the detector as one more source (it needs -R) ----
"$STACKBOX" oncpu -T anomaly -d 1 >/dev/null 2>"$T/an1.err"
check "anomaly: without -R, one line says it needs it" \
	grep -q "^oncpu: -T anomaly: needs -R" "$T/an1.err"
# phases' second phase brings stacks that appeared and doubled: the
# detector fires at some snapshot (when is its own business, and
# tested with report --anomalies); the dump is then written. Its 7 s
# after the change are counted from CMD's start, and phases measures
# its work in loop units, not time, so a loaded machine changes the
# samples' number, not the stacks' shares.
"$STACKBOX" oncpu -i 1 -R 30s -T anomaly --hold 1s -o "$T/an.txt" \
	-- "$PHASES" run 12 5 >/dev/null 2>"$T/an.err"
check "anomaly: fires, and the dump carries its mark" \
	grep -q "^\*\*\* mark 1 fired at .*: anomaly: phases pid " "$T/an.txt"
check "anomaly: ... and the recorder's window" \
	grep -q "^\*\*\* mark 2 window at .*: flight recorder: " "$T/an.txt"
