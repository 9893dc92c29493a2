#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of stackbox oncpu against perf record, every figure measured in
# this run: overhead on a fixed amount of CPU work, exec-to-attached latency
# of "-- CMD", peak RSS of the collector, binary size. See bench/README.md.
#
#   sh bench/oncpu.sh            from the repository root, as root
#
# Knobs (environment): REPS (runs per overhead configuration, 9), ROUNDS
# (work per thread, 2000000: about 1.7 s of CPU), LAT_REPS (7), RSS_SECS
# (10), SETTLE (seconds from attached to starting the work, 1), PERF (the
# perf binary), KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"
say_status() {
	[ "$STATUS" = 0 ] || [ "$STATUS" = 130 ] ||
		echo "   (profiler exited with status $STATUS)"
}

REPS=${REPS:-9}
ROUNDS=${ROUNDS:-2000000}
LAT_REPS=${LAT_REPS:-7}
RSS_SECS=${RSS_SECS:-10}
SETTLE=${SETTLE:-1}
BURN=obj/tests/workloads/burn # built by the project Makefile, not in the source tree
NCPU=$(getconf _NPROCESSORS_ONLN)

bench_start oncpu "$BURN"
find_perf

# ---- build what is needed ----
cc -O2 -g -fno-omit-frame-pointer -pthread -Wall -o "$T/work" bench/work.c
WORK=$T/work

# ---- helpers ----

# ready_sb ERRFILE / ready_perf: wait until the profiler samples.
# stackbox -v says "sampling N CPUs" once every CPU's event is attached;
# perf has its events open when it holds one perf_event fd per CPU (it
# enables them right after: the SETTLE sleep covers that, and the start-up
# work both do after attaching).
ready_sb() {
	n=0
	until grep -q '^oncpu: sampling' "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 1000 ] && kill -0 "$PID" 2>/dev/null ||
			die "stackbox did not attach: $(cat "$1")"
		sleep 0.01
	done
}
ready_perf() {
	n=0
	while [ "$(ls -l /proc/"$PID"/fd 2>/dev/null | grep -c perf_event)" -lt "$NCPU" ]; do
		n=$((n + 1))
		[ $n -lt 1000 ] && kill -0 "$PID" 2>/dev/null ||
			die "perf did not start: $(cat "$1")"
		sleep 0.01
	done
}

# bpf_sample_ns PID: "RUN_TIME_NS RUN_CNT" of the perf_event BPF programs
# PID holds (kernel.bpf_stats_enabled must be 1).
bpf_sample_ns() {
	for f in /proc/"$1"/fdinfo/*; do
		cat "$f" 2>/dev/null || :
	done | awk '$1 == "prog_type:" { pe = ($2 == 7) }
		pe && $1 == "run_time_ns:" { ns += $2 }
		pe && $1 == "run_cnt:" { n += $2 }
		END { print ns + 0, n + 0 }'
}

echo "== stackbox oncpu benchmark: $(uname -r), $NCPU CPUs, $($PERF --version)"
echo "   $SB of $(stat -c %y "$SB" | cut -d. -f1), tree $(git describe --always --dirty 2>/dev/null || echo '?')"
echo "   load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- 1. overhead on a fixed amount of work ----
# bpf_stats adds two clock reads to each BPF program run (some 50 ns, next
# to microseconds of stack walking); it is restored on exit.
[ -z "$STATS0" ] || echo 1 >/proc/sys/kernel/bpf_stats_enabled
echo "== 1. overhead: work $ROUNDS rounds x 2 threads (fixed work), $REPS runs"
echo "   per config, interleaved; profilers system-wide with -e cpu-clock -g"
echo "   config   run  wall_s  work_cpu_s  prof_cpu_ms(during work / whole life)  work_samples"
: >"$T/ovh"
rep=1
while [ $rep -le "$REPS" ]; do
	# Interleaved so that a change of background load hits every config,
	# and rotated each round so that none always runs first.
	set -- alone sb49 perf49 sb999 perf999
	k=$(((rep - 1) % 5))
	while [ $k -gt 0 ]; do
		x=$1
		shift
		set -- "$@" "$x"
		k=$((k - 1))
	done
	for cfg in "$@"; do
		hz=${cfg#sb}
		hz=${hz#perf}
		case $cfg in
		alone)
			set -- $("$WORK" "$ROUNDS" 2)
			echo "alone $rep $1 $2 0 0 0 0 0" >>"$T/ovh"
			printf '   %-8s %3d  %6.3f  %10.3f\n' $cfg $rep "$1" "$2"
			continue
			;;
		sb*)
			start_prof prof "$SB" oncpu -v -F "$hz" -f folded \
				-o "$T/sb.folded" 2>"$T/sb.err"
			ready_sb "$T/sb.err"
			;;
		perf*)
			start_prof prof "$PERF" record -F "$hz" -e cpu-clock -a -g \
				-o "$T/perf.data" 2>"$T/perf.err"
			ready_perf "$T/perf.err"
			;;
		esac
		sleep "$SETTLE"
		c0=$(run_ms "$PID")
		set -- $("$WORK" "$ROUNDS" 2)
		c1=$(run_ms "$PID")
		bpf="0 0"
		case $cfg in
		sb*) bpf=$(bpf_sample_ns "$PID") ;;
		esac
		stop_prof prof
		say_status
		win=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }')
		case $cfg in
		sb*)
			s=$(awk '/^work;/ { n += $NF } END { print n + 0 }' \
				"$T/sb.folded")
			;;
		perf*)
			s=$("$PERF" report -i "$T/perf.data" --stdio -q -s comm \
				-g none -F sample,comm 2>/dev/null |
				awk '$2 == "work" { n += $1 } END { print n + 0 }')
			;;
		esac
		echo "$cfg $rep $1 $2 $win $CPU_MS $s $bpf" >>"$T/ovh"
		printf '   %-8s %3d  %6.3f  %10.3f  %8s / %6d  %12d\n' $cfg $rep \
			"$1" "$2" "$win" "$CPU_MS" "$s"
	done
	rep=$((rep + 1))
done
[ -z "$STATS0" ] || echo "$STATS0" >/proc/sys/kernel/bpf_stats_enabled

# Paired with the "alone" run of the same round: cfg wall_x cpu_x extra_ms
# capture, where extra_ms = (work cpu - alone work cpu) + profiler cpu
# during the work, and capture = work samples / (HZ x work cpu).
awk 'NR == FNR { if ($1 == "alone") { w[$2] = $3; c[$2] = $4 }; next }
	$1 != "alone" && ($2 in w) { hz = $1; sub(/^[a-z]*/, "", hz)
		printf "%s %.4f %.4f %.1f %.4f\n", $1, $3 / w[$2], $4 / c[$2],
			($4 - c[$2]) * 1000 + $5, $7 / (hz * $4) }' \
	"$T/ovh" "$T/ovh" >"$T/pair"
echo
BW=$(median "$T/ovh" 3 alone)
BC=$(median "$T/ovh" 4 alone)
echo "   median (min..max)      wall_s                    work_cpu_s"
for cfg in alone sb49 perf49 sb999 perf999; do
	printf '   %-8s %8.3f (%s) %8.3f (%s)\n' $cfg \
		"$(median "$T/ovh" 3 $cfg)" "$(spread "$T/ovh" 3 $cfg)" \
		"$(median "$T/ovh" 4 $cfg)" "$(spread "$T/ovh" 4 $cfg)"
done
NOISE_W=$(spread_pct "$T/ovh" 3)
NOISE_C=$(spread_pct "$T/ovh" 4)
echo "   noise: the work alone varies by $NOISE_W in wall time, $NOISE_C in CPU time"
echo "   paired with the same round's alone run (median, min..max):"
echo "   config   wall slowdown              work cpu slowdown          extra cpu ms"
for cfg in sb49 perf49 sb999 perf999; do
	printf '   %-8s x%-7s (%s)   x%-7s (%s)   %6s (%s)\n' $cfg \
		"$(median "$T/pair" 2 $cfg)" "$(spread "$T/pair" 2 $cfg)" \
		"$(median "$T/pair" 3 $cfg)" "$(spread "$T/pair" 3 $cfg)" \
		"$(median "$T/pair" 4 $cfg)" "$(spread "$T/pair" 4 $cfg %.1f)"
done
for cfg in sb49 perf49 sb999 perf999; do
	eval "WX_$cfg=$(median "$T/pair" 2 $cfg | xargs printf %.4f)"
	eval "CX_$cfg=$(median "$T/pair" 3 $cfg | xargs printf %.4f)"
	ex=$(median "$T/pair" 4 $cfg)
	eval "EX_$cfg=$ex"
	eval "EP_$cfg=$(calc pct "$ex" "$BC")"
	eval "DUR_$cfg=$(median "$T/ovh" 5 $cfg)"
	eval "LIFE_$cfg=$(median "$T/ovh" 6 $cfg)"
	eval "CAP_$cfg=$(median "$T/pair" 5 $cfg | awk '{ printf "%.1f%%", 100 * $1 }')"
done
for hz in 49 999; do
	set -- $(awk -v k=sb$hz '$1 == k { ns += $8; n += $9 }
		END { if (n) printf "%.2f %.3f%%\n", ns / n / 1000, ns / n * hz / 1e7
			else print "n/a n/a" }' hz=$hz "$T/ovh")
	eval "BPFUS_$hz=$1 BPFPCT_$hz=$2"
	echo "   stackbox at $hz Hz: BPF program $1 us per sample (bpf_stats), so $2 of each CPU"
done
echo

# ---- 2. exec-to-attached latency of -- CMD ----
echo "== 2. exec-to-attached: from just before exec of the profiler to the start"
echo "   of main() in CMD (CLOCK_MONOTONIC), $LAT_REPS runs each, ms"
: >"$T/lat"
i=1
while [ $i -le "$LAT_REPS" ]; do
	"$PROBE" stamp "$SB" oncpu -o "$T/lat.out" -- "$PROBE" stamp \
		>"$T/stamps" 2>"$T/lat.err" ||
		die "stackbox -- CMD: $(cat "$T/lat.err")"
	awk 'NR == 1 { a = $1 } NR == 2 { printf "sb %.1f\n", ($1 - a) / 1e6 }' \
		"$T/stamps" >>"$T/lat"
	"$PROBE" stamp "$PERF" record -F 49 -e cpu-clock -g -o "$T/lat.data" \
		-- "$PROBE" stamp >"$T/stamps" 2>"$T/lat.err" ||
		die "perf record -- CMD: $(cat "$T/lat.err")"
	awk 'NR == 1 { a = $1 } NR == 2 { printf "perf %.1f\n", ($1 - a) / 1e6 }' \
		"$T/stamps" >>"$T/lat"
	i=$((i + 1))
done
LSB=$(median "$T/lat" 2 sb)
LPF=$(median "$T/lat" 2 perf)
echo "   stackbox oncpu -- CMD     median $LSB ms  (all: $(awk '$1 == "sb" { printf "%s ", $2 }' "$T/lat"))"
echo "   perf record -g -- CMD     median $LPF ms  (all: $(awk '$1 == "perf" { printf "%s ", $2 }' "$T/lat"))"
echo

# ---- 3. peak RSS of the collector ----
echo "== 3. peak RSS: system-wide, 49 Hz, $RSS_SECS s under $BURN (2 threads)"
"$BURN" $((RSS_SECS + 4)) 2 &
B=$!
LIVE="$LIVE $B"
start_prof rss "$SB" oncpu -v -F 49 -i 1 -o "$T/rss.txt" 2>"$T/sb.err"
ready_sb "$T/sb.err"
sleep "$RSS_SECS"
H=$(awk '/^VmHWM/ { print $2 }' /proc/"$PID"/status)
stop_prof rss
say_status
kill "$B" 2>/dev/null || :
wait "$B" 2>/dev/null || :
RSB=$RSS_KB
SNAPS=$(grep -c '^=== oncpu snapshot' "$T/rss.txt") || :
echo "   stackbox oncpu -i 1: peak RSS $RSB kB (VmHWM before SIGINT $H kB), $SNAPS snapshots, cpu $CPU_MS ms"

"$BURN" $((RSS_SECS + 4)) 2 &
B=$!
LIVE="$LIVE $B"
start_prof rss "$PERF" record -F 49 -e cpu-clock -a -g -o "$T/rss.data" \
	2>"$T/perf.err"
ready_perf "$T/perf.err"
sleep "$RSS_SECS"
H=$(awk '/^VmHWM/ { print $2 }' /proc/"$PID"/status)
stop_prof rss
say_status
kill "$B" 2>/dev/null || :
wait "$B" 2>/dev/null || :
RPF=$RSS_KB
echo "   perf record -a -g:   peak RSS $RPF kB (VmHWM before SIGINT $H kB), $(($(stat -c %s "$T/rss.data") / 1024)) kB of data, cpu $CPU_MS ms"
echo

# ---- 4. binary size ----
echo "== 4. binary size"
make -s size >"$T/size"
sed 's/^/   /' "$T/size"
ls out/musl-*/stackbox >/dev/null 2>&1 ||
	echo "   (no musl build in out/: make size shows ./stackbox only)"
SZS=$(awk -v b="$SB" '$1 == b { print $2 }' "$T/size")
SZM=$(awk '$1 ~ /musl-x86_64/ { print $2 }' "$T/size")
PSZ=$(stat -L -c %s "$(command -v "$PERF")")
echo "   $SB unstripped: $(stat -c %s "$SB") bytes, needs $(ldd "$SB" |
	awk '/=>/ { printf "%s%s", s, $1; s = " " }')"
echo "   $PERF (distribution build, stripped): $PSZ bytes"
echo

# ---- summary ----
echo "== summary: medians of this run; the ratio of slowdowns is of overheads,"
echo "   (sb - 1) / (perf - 1), n/a when one is not above the noise"
row() {
	printf '   %-40s %11s %11s %8s\n' "$1" "$2" "$3" "$4"
}
printf '   work alone: %.3f s wall, %.3f s cpu; its noise (max / min - 1 over\n' "$BW" "$BC"
echo "   $REPS runs): $NOISE_W in wall time, $NOISE_C in cpu time"
row "" stackbox perf sb/perf
for hz in 49 999; do
	eval "sw=\$WX_sb$hz pw=\$WX_perf$hz sc=\$CX_sb$hz pc=\$CX_perf$hz"
	eval "se=\$EX_sb$hz pe=\$EX_perf$hz sep=\$EP_sb$hz pep=\$EP_perf$hz"
	eval "sd=\$DUR_sb$hz pd=\$DUR_perf$hz sl=\$LIFE_sb$hz pl=\$LIFE_perf$hz"
	eval "sa=\$CAP_sb$hz pa=\$CAP_perf$hz bu=\$BPFUS_$hz bp=\$BPFPCT_$hz"
	row "$hz Hz: wall slowdown vs alone" "x$sw" "x$pw" "$(calc oratio "$sw" "$pw")"
	row "$hz Hz: work cpu slowdown vs alone" "x$sc" "x$pc" "$(calc oratio "$sc" "$pc")"
	row "$hz Hz: extra cpu, work + profiler, ms" "$se" "$pe" "$(calc pratio "$se" "$pe")"
	row "$hz Hz:   as a share of the work's cpu" "$sep" "$pep" ""
	row "$hz Hz: profiler cpu during work, ms" "$sd" "$pd" "$(calc pratio "$sd" "$pd")"
	row "$hz Hz: profiler cpu whole life, ms" "$sl" "$pl" "$(calc pratio "$sl" "$pl")"
	row "$hz Hz: BPF program time per sample, us" "$bu" "-" ""
	row "$hz Hz:   as a share of each CPU" "$bp" "-" ""
	row "$hz Hz: work samples / (HZ x work cpu)" "$sa" "$pa" ""
done
row "exec to CMD start, ms" "$LSB" "$LPF" "$(calc ratio "$LSB" "$LPF")"
row "peak RSS, -i 1, $RSS_SECS s, kB" "$RSB" "$RPF" "$(calc ratio "$RSB" "$RPF")"
row "binary, stripped, bytes (glibc build)" "$SZS" "$PSZ" "$(calc ratio "$SZS" "$PSZ")"
[ -z "$SZM" ] || row "  static musl x86_64 build" "$SZM" "" "$(calc ratio "$SZM" "$PSZ")"
