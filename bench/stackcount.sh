#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of stackcount against bpftrace's @[kstack, ustack] = count(),
# every figure measured in this run, for a loop (tests/workloads/counted,
# timed by the loop itself) that reaches an event N times from one stack:
#   write   the syscalls:sys_enter_write tracepoint (N writes of 10 bytes
#           to /dev/null)
#   uprobe  a uprobe on the workload's counted_target (N calls)
# Per event: the extra wall time of the loop over the same round's
# untraced run, and the BPF time of the tracer's busiest program
# (run_time_ns / run_cnt, kernel.bpf_stats_enabled set for the run),
# read while the workload holds at its end (COUNTED_HOLD). Each round
# runs every configuration once (alone, stackcount, bpftrace); medians
# over the rounds, and stackcount's figures as ratios of bpftrace's. On
# a shared machine the wall times swing with the other load; the BPF
# time is the steadier figure.
#
#   sh bench/stackcount.sh          from the repository root, as root
#
# Knobs (environment): REPS (rounds, 5), N (events per run, 100000),
# BPFTRACE (the bpftrace binary), KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-5}
N=${N:-100000}
BPFTRACE=${BPFTRACE:-bpftrace}

bench_start stackcount obj/tests/workloads/counted
W=$(pwd)/obj/tests/workloads/counted
command -v "$BPFTRACE" >/dev/null || die "no $BPFTRACE (Debian package bpftrace)"
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# busiest PID: "RUN_TIME_NS RUN_CNT" of the program PID holds that ran most
busiest() {
	for f in /proc/"$1"/fdinfo/*; do
		id=$(awk '$1 == "prog_id:" { print $2 }' "$f" 2>/dev/null)
		[ -z "$id" ] || bpftool prog show id "$id" 2>/dev/null
	done | awk '{ t = c = 0; for (i = 1; i < NF; i++) {
			if ($i == "run_time_ns") t = $(i + 1)
			if ($i == "run_cnt") c = $(i + 1) }
		if (c > bc) { bc = c; bt = t } }
		END { print bt + 0, bc + 0 }'
}

# run EVENT CFG: one run; appends "EVENT-CFG LOOP_NS BPF_NS_PER_EVENT" to $T/res
run() {
	case $1 in
	write) mode=writes sc=t:syscalls:sys_enter_write bt=tracepoint:syscalls:sys_enter_write ;;
	uprobe) mode=calls sc=u:$W:counted_target bt=uprobe:$W:counted_target ;;
	esac
	: >"$T/out"
	case $2 in
	alone) COUNTED_NS=1 "$W" $mode "$N" 0 >"$T/out" & ;;
	stackcount) COUNTED_NS=1 COUNTED_HOLD=2 "$SB" stackcount -f folded -o "$T/sc.folded" "$sc" -- "$W" $mode "$N" 0 >"$T/out" 2>"$T/err" & ;;
	bpftrace) COUNTED_NS=1 COUNTED_HOLD=2 "$BPFTRACE" -e "$bt /pid == cpid/ { @[kstack, ustack] = count(); }" -c "$W $mode $N 0" >"$T/out" 2>"$T/err" & ;;
	esac
	tracer=$!
	LIVE="$LIVE $tracer"
	n=0
	until grep -q '^ns ' "$T/out"; do
		n=$((n + 1))
		[ $n -lt 1200 ] || die "$1 $2: the workload printed no time: $(head -3 "$T/err")"
		sleep 0.05
	done
	set -- "$1" "$2" "$(busiest $tracer)"
	wait $tracer
	LIVE=
	awk -v k="$1-$2" -v s="$3" '$1 == "ns" { split(s, b, " ")
		printf "%s %s %.0f\n", k, $2, b[2] ? b[1] / b[2] : 0 }' "$T/out" >>"$T/res"
}

: >"$T/res"
for r in $(seq "$REPS"); do
	for ev in write uprobe; do
		for cfg in alone stackcount bpftrace; do
			run $ev $cfg
		done
	done
	# stackcount counted every event of the last run: checked, not assumed
	got=$(awk '{ s += $NF } END { print s + 0 }' "$T/sc.folded")
	[ "$got" = "$N" ] || die "stackcount counted $got of $N events"
done

echo "stackcount against bpftrace @[kstack, ustack] = count(), $N events a run, median of $REPS ($(nproc) CPUs, $(uname -r))"
printf '   %-7s %9s %9s %9s %11s %11s %6s %11s %11s %6s\n' event "alone ms" "sc ms" "bt ms" \
	"sc ns/ev" "bt ns/ev" "sc/bt" "sc BPF ns" "bt BPF ns" "sc/bt"
for ev in write uprobe; do
	a=$(median "$T/res" 2 "$ev-alone")
	s=$(median "$T/res" 2 "$ev-stackcount")
	b=$(median "$T/res" 2 "$ev-bpftrace")
	sb=$(median "$T/res" 3 "$ev-stackcount")
	bb=$(median "$T/res" 3 "$ev-bpftrace")
	awk -v e=$ev -v a="$a" -v s="$s" -v b="$b" -v n="$N" -v sb="$sb" -v bb="$bb" 'BEGIN {
		ps = (s - a) / n; pb = (b - a) / n
		printf "   %-7s %9.1f %9.1f %9.1f %11.0f %11.0f %6.2f %11.0f %11.0f %6.2f\n",
			e, a / 1e6, s / 1e6, b / 1e6, ps, pb, (pb > 0 ? ps / pb : 0),
			sb, bb, (bb > 0 ? sb / bb : 0) }'
done
