#!/bin/sh
# Triggers against real BPF: PSI, load, dstate, signal, and no PSI.
# A burst the test makes fires them; the marks' times and the written
# snapshots' times are checked against the burst's. The machine is shared
# and loaded: the margins below are seconds, and say why.
. "$SRCTREE/tests/lib.sh"
need_bpf "trigger integration"
STALL=$WORKLOADS/stall
export TZ=UTC

# calc EXPR: floating point arithmetic
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# epoch "YYYY-MM-DD" "HH:MM:SS.mmm"
epoch() { date -d "$1 $2" +%s.%3N; }

# marks FILE KIND: the times of the text marks of KIND, one a line
marks() {
	grep "^\*\*\* mark [0-9]* $2 at " "$1" | while read -r _ _ _ _ _ d t _; do
		epoch "$d" "${t%:}"
	done
}

# snaps FILE: "START END" of each snapshot written, one a line
snaps() {
	grep '^=== .* snapshot ' "$1" | sed 's/.*: \([0-9-]*\) \([0-9:.]*\) \.\. \([0-9:.]*\) .*/\1 \2 \3/' |
	while read -r d s e; do
		s=$(epoch "$d" "$s") e=$(epoch "$d" "$e")
		fcmp "$e < $s" && e=$(calc "$e + 86400") # past midnight
		echo "$s $e"
	done
}

# all_within FILE FROM TO: every snapshot starts at FROM or later and
# ends by TO (seconds since the epoch)
all_within() {
	snaps "$1" | awk -v f="$2" -v t="$3" '$1 < f || $2 > t { bad = 1 } END { exit bad }'
}

# A cgroup v2 directory of our own: its cpu.pressure sees only the
# burst, not the other work on this machine (whose system-wide CPU
# pressure is often above any threshold a test could pick).
cg2=
for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -e $m/cgroup.procs ] && [ -e $m/cpu.pressure -o -e $m/cgroup.pressure ] && cg2=$m && break
done
CG=
if [ -n "$cg2" ] && mkdir "$cg2/sbtrig.$$" 2>/dev/null; then
	CG=$cg2/sbtrig.$$
	trap 'rmdir "$CG" 2>/dev/null; rm -rf "$T"' EXIT
fi

# in_cgroup CMD...: run CMD in $CG
in_cgroup() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }

# ---- PSI: a burst of 4 busy threads (2 CPUs here) in our cgroup ----
# Window 2s: without CAP_SYS_RESOURCE the kernel takes only whole 2s.
psi_test() {
	applet=$1
	out=$T/psi-$applet.txt
	STACKBOX_PRESSURE_DIR=$CG "$STACKBOX" $applet -v -i 1 -T cpu:some:100ms/2s \
		--hold 2s -d 16 -o "$out" 2>"$T/psi-$applet.err" &
	pid=$!
	# the burst once it has attached (a second idle, more when busy);
	# -d counts from there
	wait_for 60 attached "$T/psi-$applet.err"
	burst=$(in_cgroup "$STALL" cpu 4 3)
	wait $pid
	set -- $burst
	bs=$2 be=$3
	fired=$(marks "$out" fired | head -1)
	cleared=$(marks "$out" cleared | head -1)
	last=$(marks "$out" cleared | tail -1)
	first=$(snaps "$out" | head -1 | cut -d' ' -f2)
	check "PSI $applet: the burst fires the trigger" test -n "$fired"
	check "PSI $applet: the pressure's end clears it" test -n "$cleared"
	[ -n "$fired" ] && [ -n "$cleared" ] || return
	# fires within the burst; the kernel polls at window/10, but a
	# loaded machine delays the threads' start: 2 s after its end at most
	check "PSI $applet: fired during the burst ($fired in $bs..$be)" \
		fcmp "$fired >= $bs && $fired <= $be + 2"
	# a clear needs a window (2 s) of the file's totals, read every
	# 0.5 s, under 100ms of stall; 3.5 s more for a loaded machine
	# (4.49 s measured once here, under other helpers' builds)
	check "PSI $applet: cleared after the burst ($cleared after $be)" \
		fcmp "$cleared >= $be && $cleared <= $be + 6"
	# nothing before the firing; nothing after the clear + hold (2 s),
	# the last snapshot's interval (1 s) and a second for a slow loop
	check "PSI $applet: snapshots only from the firing to the clear + hold" \
		all_within "$out" "$(calc "$fired - 0.05")" "$(calc "$last + 4")"
	check "PSI $applet: snapshots were written" test -n "$first"
	echo "# PSI $applet: burst at $bs, fired +$(calc "$fired - $bs") s," \
		"first snapshot written +$(calc "$first - $bs") s"
}

if [ -z "$CG" ]; then
	skip "PSI trigger" "no cgroup v2 directory to make (its cpu.pressure)"
elif ! [ -e "$CG/cpu.pressure" ]; then
	skip "PSI trigger" "no cpu.pressure in $CG (CONFIG_PSI)"
else
	psi_test oncpu
	psi_test offcpu
fi

# ---- no PSI: one line, and the load trigger instead ----
mkdir "$T/nopsi"
STACKBOX_PRESSURE_DIR=$T/nopsi "$STACKBOX" oncpu -v -i 1 -T cpu:some:100ms/2s \
	--hold 1s -d 6 -o "$T/nopsi.txt" 2>"$T/nopsi.err" &
pid=$!
wait_for 60 attached "$T/nopsi.err"
"$STALL" cpu $(($(nproc) + 8)) 2 >/dev/null
wait $pid
check "no PSI: one line says so" \
	test "$(grep -c 'no PSI' "$T/nopsi.err")" = 1
check "no PSI: ... names the file and the fallback" \
	grep -q "no PSI ($T/nopsi/cpu.pressure: no such file; needs 5.2+ and CONFIG_PSI); using -T load:$(nproc)" "$T/nopsi.err"
check "no PSI: the load trigger fires instead" \
	grep -q "^\*\*\* mark [0-9]* fired at .*: load: " "$T/nopsi.txt"

# most FIELD: /proc/stat's FIELD (procs_running, procs_blocked) at its
# most over 2 s: what the rest of the machine does
most() {
	_m=0
	for _i in $(seq 40); do
		_v=$(awk -v f="$1" '$1 == f { print $2 }' /proc/stat)
		[ "$_v" -gt "$_m" ] && _m=$_v
		sleep 0.05
	done
	echo $_m
}

# watch_stat FIELD FILE: /proc/stat's FIELD every 20 ms, "TIME VALUE" lines
# in FILE, in the background ($watcher): what the machine really did
watch_stat() {
	while :; do
		awk -v f="$1" -v t="$(date +%s.%N)" '$1 == f { print t, $2 }' /proc/stat
		sleep 0.02
	done >"$2" &
	watcher=$!
}
# first_above FILE N FROM: the first time FILE saw more than N before
# FROM, else FROM; last_above FILE N FROM TO: the last time it did
# between FROM and TO, else FROM
first_above() { awk -v n="$2" -v f="$3" 'BEGIN { s = f } $2 > n && $1 < f { s = $1; exit } END { print s }' "$1"; }
last_above() { awk -v n="$2" -v f="$3" -v t="$4" 'BEGIN { s = f } $2 > n && $1 > f && $1 < t { s = $1 } END { print s }' "$1"; }

# fire_clear NAME N SEEN TEXT BS BE: TEXT's trigger fired in the burst
# BS..BE (or once other work passed N, as SEEN watched) and cleared 1 s
# after the machine was last above N, with 2 s of margin
fire_clear() {
	fired=$(marks "$4" fired | head -1)
	cleared=$(marks "$4" cleared | tail -1)
	_from=$(first_above "$3" "$2" "$5")
	check "$1: fires in the burst (or when other work passed $2, at $_from)" \
		fcmp "${fired:-0} >= $_from - 0.05 && ${fired:-0} <= $6"
	_quiet=$(last_above "$3" "$2" "$6" "${cleared:-0}")
	check "$1: clears after it (the burst ended at $6; the machine was last above $2 at $_quiet)" \
		fcmp "${cleared:-0} >= $6 && ${cleared:-0} <= $_quiet + 3"
}

# ---- load:N: N above what else runs here, a burst well above N ----
# (twice the most; and the fire and clear are held to what the machine
# did, watched: at load 20 other work passed any N for seconds)
N=$((2 * $(most procs_running) + 6))
watch_stat procs_running "$T/load.seen"
"$STACKBOX" oncpu -v -i 1 -T load:$N --hold 1s -d 12 -o "$T/load.txt" 2>"$T/load.err" &
pid=$!
wait_for 60 attached "$T/load.err"
set -- $("$STALL" cpu $((N + 16)) 3)
bs=$2 be=$3
wait $pid
kill $watcher
fire_clear "load:$N ($((N + 16)) threads)" $N "$T/load.seen" "$T/load.txt" "$bs" "$be"
check "load:$N: snapshots only from the firing to the clear + hold" \
	all_within "$T/load.txt" "$(calc "${fired:-0} - 0.05")" "$(calc "${cleared:-0} + 3")"

# ---- dstate:N: threads waiting on a throttled device (blkio v1) ----
# O_DIRECT reads at 5 a second: each thread sleeps in io_schedule, the
# kernel's procs_blocked, nearly all the burst. N is above what the
# rest of the machine keeps blocked (a fixed 2 stayed fired 5.5 s after
# the burst while other tests wrote), the burst 4 threads above N.
D=$((2 * $(most procs_blocked) + 2))
dd if=/dev/zero of="$T/disk" bs=1M count=8 status=none && sync
dev=$(stat -c '%Hd:%Ld' "$T/disk" 2>/dev/null)
blk=/sys/fs/cgroup/blkio/sbtrig.$$
if ! [ -e /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ] ||
	! mkdir "$blk" 2>/dev/null; then
	skip "dstate trigger" "no blkio v1 throttling here to make threads wait"
elif ! echo "$dev 5" >"$blk/blkio.throttle.read_iops_device" 2>/dev/null; then
	skip "dstate trigger" "cannot throttle $dev (a partition?)"
	rmdir "$blk"
else
	watch_stat procs_blocked "$T/dstate.seen"
	"$STACKBOX" offcpu -v -i 1 -T dstate:$D --hold 1s -d 12 -o "$T/dstate.txt" 2>"$T/dstate.err" &
	pid=$!
	wait_for 60 attached "$T/dstate.err"
	set -- $(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$blk" "$STALL" io $((D + 4)) 3 "$T/disk")
	bs=$2 be=$3
	wait $pid
	kill $watcher
	rmdir "$blk"
	fire_clear "dstate:$D ($((D + 4)) threads wait on I/O)" $D "$T/dstate.seen" "$T/dstate.txt" "$bs" "$be"
	# (their function, read_direct, may be the caller libc's pread
	# hides from a frame-pointer walk: DESIGN.md)
	check "dstate:$D: offcpu shows the readers blocked" \
		grep -q " stall pid " "$T/dstate.txt"
fi

# ---- signal: SIGUSR1 fires, --hold says how long it writes ----
"$STACKBOX" oncpu -v -i 1 -T signal --hold 2s -d 8 -o "$T/sig.txt" 2>"$T/sig.err" &
pid=$!
wait_for 60 attached "$T/sig.err"
sleep 1
check "signal: nothing written while waiting" test ! -s "$T/sig.txt"
t0=$(date +%s.%3N)
kill -USR1 $pid
wait $pid
fired=$(marks "$T/sig.txt" fired | head -1)
check "signal: SIGUSR1 fires it (a mark)" fcmp "${fired:-0} >= $t0"
check "signal: an event clears at once (a mark)" grep -q "mark 2 cleared at .*: SIGUSR1" "$T/sig.txt"
# the hold's last snapshot ends 2 s after the firing; 2 s more for a
# loaded machine's slow loop
check "signal: written for the 2 s hold, no more" \
	all_within "$T/sig.txt" "$(calc "${fired:-0} - 0.05")" "$(calc "${fired:-0} + 4")"
check "signal: the snapshots of the hold" test "$(snaps "$T/sig.txt" | wc -l)" -ge 2
