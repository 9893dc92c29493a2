#!/bin/sh
# A car's faults, one by one: a rotating log on a full disk whose next
# file cannot be created, a log file removed under the collector, the
# log's file system gone read-only, a serial port unplugged, a reader
# that goes away, a collector stopped for seconds. Each time
# collection goes on, nothing is counted twice, and what is lost is
# counted: the files read back whole.
. "$SRCTREE/tests/lib.sh"
need_bpf "faults integration"
BURN=$WORKLOADS/burn

# seqs FILE...: the snapshot numbers report reads in FILEs, one a line
seqs() {
	for f in "$@"; do sb_report "$f" 2>/dev/null; done |
		sed -n 's/^=== oncpu snapshot \([0-9]*\).*/\1/p' | sort -n
}

# 1. --rotate where the next file cannot be created (the tmpfs's inodes
# all taken: the root, a filler, p.bin), until the filler goes; the
# rotation after that fails again, to the end. Every snapshot is written
# or counted, each file decodes alone and whole, none is rotated twice.
mkdir "$T/small"
if mount -t tmpfs -o size=4m,nr_inodes=3 tmpfs "$T/small" 2>/dev/null; then
	: >"$T/small/filler"
	( wait_for 60 grep -q -- '--rotate: opening' "$T/rot.err"
	  sleep 1
	  rm -f "$T/small/filler" ) &
	"$STACKBOX" oncpu -v -F 499 -i 100ms -f bin -o "$T/small/p.bin" --rotate 6k,9 \
		-- "$BURN" 5 2 2 cpu 2>"$T/rot.err"
	rc=$?
	wait
	check "--rotate, no room for the next file: the run goes to the end (status $rc)" [ $rc = 0 ]
	check "--rotate, no room for the next file: said" \
		grep -q -- "--rotate: opening $T/small/p.bin again: No space left on device" "$T/rot.err"
	unwritten=$(sed -n 's/.*works again: \([0-9]*\) snapshots were not written/\1/p
		s/.*: the last \([0-9]*\) snapshots were not written/\1/p' "$T/rot.err" |
		awk '{ s += $1 } END { print s + 0 }')
	files=$(ls "$T/small"/p.bin* | wc -l)
	seqs "$T/small"/p.bin* >"$T/rot.seqs"
	got=$(wc -l <"$T/rot.seqs")
	dup=$(uniq -d "$T/rot.seqs" | wc -l)
	taken=$(sed -n 's/^oncpu: stopped after \([0-9]*\) snapshots$/\1/p' "$T/rot.err")
	check "--rotate, no room: $got snapshots in $files files + $unwritten counted unwritten = the ${taken:-?} taken" \
		[ "$unwritten" -gt 0 -a "$files" -ge 2 -a $((got + unwritten)) = "${taken:-0}" ]
	check "--rotate, no room: no snapshot twice ($dup)" [ "$dup" = 0 ]
	bad=
	for f in "$T/small"/p.bin*; do
		sb_report -v -f folded "$f" >"$T/one" 2>"$T/one.err" &&
			grep -q burn "$T/one" || bad="$bad ${f##*/}"
	done
	check "--rotate, no room: each file decodes alone (${bad:-all})" [ -z "$bad" ]
	umount "$T/small"
else
	skip "--rotate with no room for its next file" "cannot mount a tmpfs here"
fi

# 2. the log file removed under the collector: a new one, said once,
# that decodes alone
( wait_for 60 test -s "$T/rm.bin"; sleep 0.5; rm -f "$T/rm.bin" ) &
"$STACKBOX" oncpu -F 199 -i 100ms -f bin -o "$T/rm.bin" -- "$BURN" 2 2>"$T/rm.err"
rc=$?
wait
check "-o FILE removed: the run goes on (status $rc)" [ $rc = 0 ]
check "-o FILE removed: said once" \
	[ "$(grep -c "^oncpu: -o $T/rm.bin: the file was removed: writing a new one$" "$T/rm.err")" = 1 ]
seqs "$T/rm.bin" >"$T/rm.seqs"
first=$(head -1 "$T/rm.seqs")
check "-o FILE removed: the new file decodes alone, from snapshot ${first:-?} on" \
	[ "${first:-1}" -gt 1 -a "$(wc -l <"$T/rm.seqs")" -ge 1 ]

# 2a. the log's file system goes read-only under the collector, as ext4
# does on an error with errors=remount-ro (trigger_fs_error makes the
# error): said once, the rest counted, what was written reads whole
if command -v mkfs.ext4 >/dev/null && truncate -s 16M "$T/ro.img" &&
	mkfs.ext4 -q -F "$T/ro.img" && mkdir "$T/ro" &&
	mount -o loop,errors=remount-ro "$T/ro.img" "$T/ro" 2>/dev/null; then
	dev=$(basename "$(findmnt -no SOURCE "$T/ro")")
	if [ -w "/sys/fs/ext4/$dev/trigger_fs_error" ]; then
		( wait_for 60 test -s "$T/ro/p.bin"; sleep 0.5
		  echo 1 >"/sys/fs/ext4/$dev/trigger_fs_error" ) &
		"$STACKBOX" oncpu -v -F 199 -i 100ms -f bin -o "$T/ro/p.bin" \
			-- "$BURN" 3 2>"$T/ro.err"
		rc=$?
		wait
		check "read-only file system: the run goes to the end (status $rc)" [ $rc = 0 ]
		check "read-only file system: said once" \
			[ "$(grep -c "writing $T/ro/p.bin .*: Read-only file system" "$T/ro.err")" = 1 ]
		unwritten=$(sed -n 's/.*: the last \([0-9]*\) snapshots were not written/\1/p' "$T/ro.err")
		taken=$(sed -n 's/^oncpu: stopped after \([0-9]*\) snapshots$/\1/p' "$T/ro.err")
		sb_report "$T/ro/p.bin" >"$T/ro.txt" 2>"$T/ro.rep"
		got=$(grep -c '^=== oncpu snapshot' "$T/ro.txt")
		check "read-only file system: $got snapshots written + ${unwritten:-?} counted = the ${taken:-?} taken" \
			[ "$got" -ge 1 -a "${unwritten:-0}" -ge 1 -a $((got + ${unwritten:-0})) = "${taken:-0}" ]
		check "read-only file system: the file reads whole" test ! -s "$T/ro.rep"
	else
		skip "read-only file system" "this ext4 has no /sys/fs/ext4/$dev/trigger_fs_error"
	fi
	umount "$T/ro"
else
	skip "read-only file system" "cannot make and loop-mount an ext4 image here"
fi

# 2b. a serial port unplugged, and another plugged in under the name -o
# gives (a symlink, as udev makes): said once each way, no busy loop
# meanwhile, the new port gets a stream that decodes
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
"$WORKLOADS/ptyread" "$T/port1.bin" 1 >"$T/pty1" &
far=$!
wait_for 30 test -s "$T/pty1"
ln -s "$(cat "$T/pty1")" "$T/port"
"$STACKBOX" oncpu -F 199 -i 200ms -f bin -o "$T/port" -- "$BURN" 8 1 2 cpu 2>"$T/port.err" &
prof=$!
wait $far # 1 s after the first byte: the cable is pulled
wait_for 30 grep -q "writing $T/port" "$T/port.err"
t0=$(cpu_ticks $prof)
sleep 2
t1=$(cpu_ticks $prof)
"$WORKLOADS/ptyread" "$T/port2.bin" 60 >"$T/pty2" &
far=$!
wait_for 30 test -s "$T/pty2"
ln -sfn "$(cat "$T/pty2")" "$T/port"
wait $prof
rc=$?
wait $far
hz=$(getconf CLK_TCK)
check "serial port swapped: the run goes to the end (status $rc)" [ $rc = 0 ]
check "serial port swapped: unplugged said once" \
	[ "$(grep -c "writing $T/port (collection goes on" "$T/port.err")" = 1 ]
check "serial port swapped: plugged in said once, with the count" \
	[ "$(grep -cE "$T/port works again: [1-9][0-9]* snapshots were not written" "$T/port.err")" = 1 ]
check "serial port swapped: no busy loop while it was away ($((t1 - t0)) of $((2 * hz)) ticks)" \
	[ $((t1 - t0)) -le $((hz / 5)) ]
sb_report -f folded "$T/port2.bin" >"$T/port2.folded" 2>"$T/port2.err"
away=$(sed -n 's/.*works again: \([0-9]*\) snapshots were not written/\1/p' "$T/port.err")
check "serial port swapped: the new port's stream decodes" grep -q burn_two_thirds "$T/port2.folded"
# (a snapshot after a failure goes in pieces, each of which carries the
# count: it was once summed over them)
check "serial port swapped: report counts the ${away:-?} snapshots not written, once" \
	[ "$(cat "$T/port2.err")" = "report: $T/port2.bin: the collector could not write ${away:-?} snapshots (its sink failed)" ]

# 2c. a port whose far end holds it (nobody reads the pty): each write
# waits at most 2 s, then the snapshot is counted; -d is kept
"$WORKLOADS/ptyread" "$T/held.bin" 0 30 hold >"$T/pty3" &
far=$!
wait_for 30 test -s "$T/pty3"
start=$(date +%s)
"$STACKBOX" offcpu -i 200ms -d 3 -f text -o "$(cat "$T/pty3")" 2>"$T/held.err"
rc=$?
took=$(($(date +%s) - start))
kill $far 2>/dev/null
wait $far 2>/dev/null
check "a held port: the run ends ($took s for -d 3, the port held 30 s; status $rc)" \
	[ "$took" -lt 20 ]
check "a held port: the snapshots it could not take are counted" \
	grep -qE "the last [1-9][0-9]* snapshots were not written" "$T/held.err"

# 3. standard output's reader goes away (offcpu -d 10 | head -1): the
# run stops at once, status 0, no error; its programs are detached
start=$(date +%s)
( "$STACKBOX" offcpu -i 100ms -d 30 2>"$T/pipe.err"; echo $? >"$T/pipe.rc" ) |
	head -1 >"$T/pipe.out"
took=$(($(date +%s) - start))
check "a reader that goes away: status $(cat "$T/pipe.rc"), nothing on stderr, ${took}s of -d 30" \
	[ "$(cat "$T/pipe.rc")" = 0 -a ! -s "$T/pipe.err" -a "$took" -lt 20 ]
check "a reader that goes away: it read a snapshot's first line" grep -q '^=== offcpu snapshot 1' "$T/pipe.out"

# 4. the collector stopped for 2 s (SIGSTOP; SIGTSTP, as ^Z at a
# terminal), then continued: burn's 4 s of CPU are counted once (199 Hz:
# about 800 samples), the stop's time in the snapshot after it, and the
# run goes on at its interval
stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]; }
# as_job PIDFILE CMD...: CMD in a process group of its own under a parent
# (perl) in another group of this session, as a shell with job control
# starts a job: the kernel discards SIGTSTP sent to an orphaned group,
# which a test run under make in the background is. CMD's pid to
# PIDFILE; its exit status (128 + signal) is as_job's.
as_job() {
	perl -e '$f = shift; $p = fork; if (!$p) { setpgrp(0, 0); exec @ARGV; exit 127 }
		open(F, ">", $f) or die; print F "$p\n"; close F; waitpid($p, 0);
		exit($? & 127 ? 128 + ($? & 127) : $? >> 8)' "$@"
}
stop_for_2s() { # SIGNAL
	rm -f "$T/stop.pid" "$T/stop.err" # (the last signal's says "attached")
	as_job "$T/stop.pid" "$STACKBOX" oncpu -v -F 199 -i 500ms -- "$BURN" 4 1 2 cpu >"$T/stop" 2>"$T/stop.err" &
	job=$!
	wait_for 60 attached "$T/stop.err"
	prof=$(cat "$T/stop.pid")
	sleep 0.7
	kill -"$1" $prof
	if ! wait_for 5 stopped $prof; then
		kill -CONT $prof
		wait $job
		fail "SIG$1 for 2 s" "SIG$1 did not stop the collector (state $(awk '{ print $3 }' "/proc/$prof/stat" 2>/dev/null))"
		return
	fi
	sleep 2
	kill -CONT $prof
	wait $job
	rc=$?
	n=$(awk '/^ +[0-9]+ +[0-9.]+%  burn / { s += $1 } END { print s + 0 }' "$T/stop")
	longest=$(awk '/^=== oncpu snapshot/ { d = $(NF - 1); sub(/\(/, "", d); if (d > m) m = d } END { print m + 0 }' "$T/stop")
	after=$(awk '/^=== oncpu snapshot/ { d = $(NF - 1); sub(/\(/, "", d); if (seen && !/final/) a = d; if (d >= 2) seen = 1 } END { print a + 0 }' "$T/stop")
	check "SIG$1 for 2 s: the run ends with burn (status $rc)" [ "$rc" = 0 ]
	check "SIG$1 for 2 s: burn's 4 s of CPU counted once: $n samples at 199 Hz (796 +- 15 %)" \
		fcmp "$n >= 677 && $n <= 916"
	check "SIG$1 for 2 s: one snapshot holds the stop (${longest}s >= 2)" fcmp "$longest >= 2"
	check "SIG$1 for 2 s: later snapshots are 0.5 s again (${after}s)" fcmp "$after > 0.4 && $after < 0.7"
}
stop_for_2s STOP
stop_for_2s TSTP

# 6. the wall clock set an hour forward, then back, mid-run, as GNSS or
# NTP sets a head unit's (clockshift.so, preloaded, moves CLOCK_REALTIME
# alone): no interval stretches or shrinks by the hour; the next one
# starts an hour on (or back)
SHIFT=$WORKLOADS/clockshift.so
clock_jump() { # SECONDS WAY
	rm -f "$T/jumped"
	( sleep 1.2; : >"$T/jumped" ) &
	LD_PRELOAD=$SHIFT CLOCKSHIFT_FILE=$T/jumped CLOCKSHIFT_SECONDS=$1 \
		"$STACKBOX" oncpu -F 99 -i 500ms -d 3 >"$T/clock" 2>"$T/clock.err"
	rc=$?
	wait
	# each header: its start and end as seconds of the day, and (D s)
	awk '/^=== oncpu snapshot/ {
		split($(NF - 4), a, ":"); split($(NF - 2), b, ":")
		d = $(NF - 1); sub(/\(/, "", d)
		print a[1] * 3600 + a[2] * 60 + a[3], b[1] * 3600 + b[2] * 60 + b[3], d
	}' "$T/clock" >"$T/clock.spans"
	longest=$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$T/clock.spans")
	shortest=$(awk 'NR == 1 || $3 < m { m = $3 } END { print m + 0 }' "$T/clock.spans")
	# gaps between one snapshot's end and the next one's start, signed
	gaps=$(awk 'NR > 1 { g = ($1 - end + 86400 + 43200) % 86400 - 43200
		if (g > 1 || g < -1) printf "%d\n", g + (g > 0 ? 0.5 : -0.5) } { end = $2 }' "$T/clock.spans")
	moved=$(awk 'NR == 1 { s = $1 } { e = $2 } END { g = (e - s + 86400 + 43200) % 86400 - 43200
		print int(g < 0 ? -g : g) }' "$T/clock.spans")
	t="the wall clock set an hour $2"
	if [ "${moved:-0}" -lt 3000 ]; then
		skip "$t" "the preloaded clock did not move (${moved:-?} s; a static stackbox?)"
		return
	fi
	check "$t: the run ends (status $rc)" [ "$rc" = 0 ]
	check "$t: no snapshot stretches or shrinks by it (${shortest}s to ${longest}s of -i 500ms)" \
		fcmp "$shortest > 0 && $longest < 2"
	check "$t: one snapshot starts an hour $2 (gaps: ${gaps:-none} s)" [ "$gaps" = "$1" ]
}
clock_jump 3600 forward
clock_jump -3600 back
