#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of the user-stack unwinders, every figure measured in this
# run: BPF time per captured stack and the profiler's own CPU time with
# --unwind fp (frame pointers, the kernel's walk), --unwind eh_frame and
# the default, --unwind auto (per process: the tables where a file has
# code without frame pointers). offcpu over "perf bench sched messaging"
# (a stack per context switch); oncpu at 999 Hz on tests/workloads/
# libcall burn (a loop 7 frames deep) built with frame pointers, where
# the default must cost what fp does (the kernel's walk, chosen per
# process), and built -O2 without them (libcall-nofp), where the default
# must cost what eh_frame does; and what eh_frame tables cost in memory
# per MB of code and time to load, for libcall-nofp's files.
#
#   sh bench/unwind.sh           from the repository root, as root
#
# Knobs (environment): REPS (rounds, each runs every configuration once,
# 5), MSG (perf bench sched messaging options, "-g 2 -l 600"), SECS
# (seconds of each oncpu run, 3), PERF (the perf binary), KEEP=1 keeps
# the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-5}
MSG=${MSG:--g 2 -l 600}
SECS=${SECS:-3}

bench_start unwind obj/tests/workloads/libcall obj/tests/workloads/libcall-nofp
find_perf

WORK=$(pwd)/obj/tests/workloads/libcall
NOFP=$(pwd)/obj/tests/workloads/libcall-nofp
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# ready NAME: wait until the profiler's BPF programs run (or 10 s)
ready() {
	n=0
	until [ "$(bpf_stat "$PID" | cut -d' ' -f2)" -gt 0 ] 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 200 ] || die "$1 never ran its BPF programs"
		sleep 0.05
	done
}

# measure KIND MODE [CODE]: one run; appends "KIND-MODE NS_PER_STACK
# CPU_MS" to $T/res (KIND-CODE-MODE for oncpu, CODE fp or o2). offcpu
# takes a stack at every switch: BPF time over the switch program's runs.
# oncpu -p takes one per sample of the workload: BPF time of the whole
# run (the other CPU's filtered samples included, alike for every mode)
# over the samples counted.
measure() {
	case $1 in
	offcpu)
		label=$1-$2
		start_prof "$label" "$SB" offcpu --unwind "$2" -i 0 -o /dev/null
		ready "$1"
		b0=$(bpf_stat "$PID")
		"$PERF" bench sched messaging $MSG >/dev/null 2>&1
		b1=$(bpf_stat "$PID")
		;;
	oncpu)
		label=$1-$3-$2
		if [ "$3" = fp ]; then prog=$WORK; else prog=$NOFP; fi
		"$prog" burn $((SECS + 2)) &
		w=$!
		start_prof "$label" "$SB" oncpu -F 999 --unwind "$2" -i 0 -p $w \
			-f folded -o "$T/samples"
		ready "$1"
		sleep "$SECS"
		b0="0 0"
		b1="$(bpf_stat "$PID" | cut -d' ' -f1) 0"
		;;
	esac
	stop_prof "$label"
	if [ "$1" = oncpu ]; then
		wait "$w" || :
		b1="${b1% 0} $(awk '{ n += $NF } END { print n + 0 }' "$T/samples")"
	fi
	set -- "$label" $b0 $b1
	echo "$1 $(awk -v t=$(($4 - $2)) -v c=$(($5 - $3)) \
		'BEGIN { printf "%.0f", c ? t / c : 0 }') $CPU_MS" >>"$T/res"
}

# row WHAT LABEL_A LABEL_B: the medians of A and B, B / A
row() {
	a=$(median "$T/res" 2 "$2")
	b=$(median "$T/res" 2 "$3")
	printf "%-40s %10s %10s %7s\n" "$1" "$a" "$b" "$(calc ratio "$b" "$a")"
	printf "%-40s %10s %10s\n" "   spread" "$(spread "$T/res" 2 "$2" %.0f)" \
		"$(spread "$T/res" 2 "$3" %.0f)"
	a=$(median "$T/res" 3 "$2")
	b=$(median "$T/res" 3 "$3")
	printf "%-40s %10s %10s %7s\n" "   profiler CPU ms, whole run" "$a" "$b" "$(calc ratio "$b" "$a")"
}

echo "stackbox user-stack unwinders, $REPS rounds, $(nproc) CPUs, $(uname -r)"
for r in $(seq 1 "$REPS"); do
	for mode in fp eh_frame auto; do
		measure offcpu $mode
	done
	for mode in fp auto; do
		measure oncpu $mode fp
	done
	for mode in eh_frame auto; do
		measure oncpu $mode o2
	done
	printf "."
done
echo

printf "\n%-40s %10s %10s %7s\n" "BPF ns per stack, median of $REPS" A B B/A
echo "frame-pointer code: A --unwind fp, B the default"
row "oncpu 999 Hz, libcall burn" oncpu-fp-fp oncpu-fp-auto
echo "-O2 code, no frame pointers: A --unwind eh_frame, B the default"
row "oncpu 999 Hz, libcall-nofp burn" oncpu-o2-eh_frame oncpu-o2-auto
echo "perf bench sched messaging (Debian's perf, -O2): A fp, B eh_frame"
row "offcpu: per context switch" offcpu-fp offcpu-eh_frame
echo "   the same: A eh_frame, B the default"
row "offcpu: per context switch" offcpu-eh_frame offcpu-auto

# Table memory and the time to load a table: rows of each file of the
# workload (from -v), 12 bytes a row, against the size of its .text.
"$NOFP" burn 3 &
w=$!
sleep 0.2
"$SB" oncpu -v --unwind eh_frame -d 1 -p $w -o /dev/null 2>"$T/rows" || :
wait $w || :
printf "\n%-30s %8s %9s %12s %8s\n" "eh_frame tables" rows "text KiB" "KiB/MiB text" "load ms"
sed -n 's/.*--unwind eh_frame: \([0-9]*\) rows for \(.*\) (\(.*\) ms)/\1 \3 \2/p' "$T/rows" |
	while read -r rows ms path; do
		path=/${path#/proc/*/root/}
		text=$(size -A "$path" 2>/dev/null | awk '$1 == ".text" { print $2 }')
		[ -n "$text" ] || continue
		awk -v r="$rows" -v t="$text" -v p="${path##*/}" -v ms="$ms" 'BEGIN {
			printf "%-30s %8d %9.0f %12.0f %8.1f\n", p, r, t / 1024,
				r * 12 / 1024 / (t / 1048576), ms }'
	done
