#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of the user-stack unwinders, every figure measured in this
# run: BPF time per captured stack and the profiler's own CPU time with
# --unwind fp (frame pointers, the kernel's walk) and --unwind eh_frame,
# on offcpu over "perf bench sched messaging" (a stack per context
# switch) and oncpu at 999 Hz on tests/workloads/libcall (a loop 7 frames
# deep, built with frame pointers so both modes walk the same whole
# stacks and symbolise the same frames); and what eh_frame tables cost
# in memory per MB of code and time to load, for libcall-nofp's files.
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

# measure KIND MODE: one run; appends "KIND-MODE NS_PER_STACK CPU_MS" to
# $T/res. offcpu takes a stack at every switch: BPF time over the switch
# program's runs. oncpu -p takes one per sample of the workload: BPF time
# of the whole run (the other CPU's filtered samples included, alike for
# both modes) over the samples counted.
measure() {
	case $1 in
	offcpu)
		start_prof "$1-$2" "$SB" offcpu --unwind "$2" -i 0 -o /dev/null
		ready "$1"
		b0=$(bpf_stat "$PID")
		"$PERF" bench sched messaging $MSG >/dev/null 2>&1
		b1=$(bpf_stat "$PID")
		;;
	oncpu)
		"$WORK" burn $((SECS + 2)) &
		w=$!
		start_prof "$1-$2" "$SB" oncpu -F 999 --unwind "$2" -i 0 -p $w \
			-f folded -o "$T/samples"
		ready "$1"
		sleep "$SECS"
		b0="0 0"
		b1="$(bpf_stat "$PID" | cut -d' ' -f1) 0"
		;;
	esac
	stop_prof "$1-$2"
	if [ "$1" = oncpu ]; then
		wait "$w" || :
		b1="${b1% 0} $(awk '{ n += $NF } END { print n + 0 }' "$T/samples")"
	fi
	set -- "$1" "$2" $b0 $b1
	echo "$1-$2 $(awk -v t=$(($5 - $3)) -v c=$(($6 - $4)) \
		'BEGIN { printf "%.0f", c ? t / c : 0 }') $CPU_MS" >>"$T/res"
}

echo "stackbox user-stack unwinders, $REPS rounds, $(nproc) CPUs, $(uname -r)"
for r in $(seq 1 "$REPS"); do
	for kind in offcpu oncpu; do
		for mode in fp eh_frame; do
			measure $kind $mode
		done
	done
	printf "."
done
echo

printf "\n%-34s %10s %10s %7s\n" "median of $REPS (min..max)" fp eh_frame ratio
for kind in offcpu oncpu; do
	case $kind in
	offcpu) what="offcpu: BPF ns per context switch" ;;
	oncpu) what="oncpu 999 Hz: BPF ns per stack" ;;
	esac
	a=$(median "$T/res" 2 "$kind-fp")
	b=$(median "$T/res" 2 "$kind-eh_frame")
	printf "%-34s %10s %10s %7s\n" "$what" "$a" "$b" "$(calc ratio "$b" "$a")"
	printf "%-34s %10s %10s\n" "   spread" "$(spread "$T/res" 2 "$kind-fp" %.0f)" \
		"$(spread "$T/res" 2 "$kind-eh_frame" %.0f)"
	a=$(median "$T/res" 3 "$kind-fp")
	b=$(median "$T/res" 3 "$kind-eh_frame")
	printf "%-34s %10s %10s %7s\n" "   profiler CPU ms, whole run" "$a" "$b" "$(calc ratio "$b" "$a")"
done

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
