#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of stackcount against bpftrace's @[kstack, ustack] = count(),
# every figure measured in this run: the extra wall time per event of a
# loop (tests/workloads/counted, timed by the loop itself) that reaches
# the event N times from one stack, for two events:
#   write   the syscalls:sys_enter_write tracepoint (N writes of 10 bytes
#           to /dev/null)
#   uprobe  a uprobe on the workload's counted_target (N calls)
# Each round runs every configuration once (alone, stackcount,
# bpftrace); medians over the rounds, and stackcount's cost per event
# as a ratio of bpftrace's.
#
#   sh bench/stackcount.sh          from the repository root, as root
#
# Knobs (environment): REPS (rounds, 5), N (events per run, 200000),
# BPFTRACE (the bpftrace binary), KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-5}
N=${N:-200000}
BPFTRACE=${BPFTRACE:-bpftrace}

bench_start stackcount obj/tests/workloads/counted
W=$(pwd)/obj/tests/workloads/counted
command -v "$BPFTRACE" >/dev/null || die "no $BPFTRACE (Debian package bpftrace)"

# loop_ns OUT: the ns the workload's loop printed in OUT
loop_ns() { awk '$1 == "ns" { print $2 }' "$1"; }

# run EVENT CFG: one run; appends "EVENT-CFG NS" to $T/res
run() {
	case $1 in
	write) mode=writes sc=t:syscalls:sys_enter_write bt=tracepoint:syscalls:sys_enter_write ;;
	uprobe) mode=calls sc=u:$W:counted_target bt=uprobe:$W:counted_target ;;
	esac
	case $2 in
	alone) COUNTED_NS=1 "$W" $mode "$N" 0 >"$T/out" ;;
	stackcount) COUNTED_NS=1 "$SB" stackcount -f folded -o "$T/sc.folded" "$sc" -- "$W" $mode "$N" 0 >"$T/out" 2>"$T/err" ;;
	bpftrace) COUNTED_NS=1 "$BPFTRACE" -e "$bt /pid == cpid/ { @[kstack, ustack] = count(); }" -c "$W $mode $N 0" >"$T/out" 2>"$T/err" ;;
	esac
	ns=$(loop_ns "$T/out")
	[ -n "$ns" ] || die "$1 $2: the workload printed no time: $(cat "$T/err" 2>/dev/null | head -3)"
	echo "$1-$2 $ns" >>"$T/res"
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
printf '   %-7s %12s %12s %12s %14s %14s %8s\n' event "alone ms" "sc ms" "bt ms" "sc ns/event" "bt ns/event" "sc/bt"
for ev in write uprobe; do
	a=$(median "$T/res" 2 "$ev-alone")
	s=$(median "$T/res" 2 "$ev-stackcount")
	b=$(median "$T/res" 2 "$ev-bpftrace")
	awk -v e=$ev -v a="$a" -v s="$s" -v b="$b" -v n="$N" 'BEGIN {
		ps = (s - a) / n; pb = (b - a) / n
		printf "   %-7s %12.1f %12.1f %12.1f %14.0f %14.0f %8.2f\n",
			e, a / 1e6, s / 1e6, b / 1e6, ps, pb, pb > 0 ? ps / pb : 0 }'
done
