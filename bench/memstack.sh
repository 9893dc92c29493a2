#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of memstack, every figure measured in this run: the slowdown
# of an allocation-heavy loop (tests/workloads/memstack loop: N pairs of
# malloc(64) and free, timed by the loop itself) under memstack exact,
# memstack -s 512k (sampled), and a bpftrace script that traces malloc
# and free with stacks the way memleak does (a record per allocation
# with its size and user stack, deleted at free); and what each call
# costs: BPF time per program run (run_time_ns / run_cnt) and wall time
# per malloc/free pair above the untraced loop.
#
#   sh bench/memstack.sh          from the repository root, as root
#
# Knobs (environment): REPS (rounds, each runs every configuration once,
# 5), N (pairs per traced run, 300000), BPFTRACE (the bpftrace binary),
# KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-5}
N=${N:-300000}
BPFTRACE=${BPFTRACE:-bpftrace}

bench_start memstack obj/tests/workloads/memstack

GLIBC=$(pwd)/obj/tests/workloads/memstack
MUSL=$(pwd)/out/musl-x86_64/workloads/memstack
[ "$(uname -m)" = x86_64 ] && [ -x "$MUSL" ] || MUSL=
echo 1 >/proc/sys/kernel/bpf_stats_enabled
LIBC=$(awk '$NF ~ /\/libc\.so\.6$/ { print $NF; exit }' /proc/self/maps)

# bpftrace, the memleak way: each allocation's size and user stack in a
# map keyed by its address, taken out at free
cat >"$T/memleak.bt" <<EOF
uprobe:$LIBC:malloc /pid == cpid/ { @size[tid] = arg0; }
uretprobe:$LIBC:malloc /pid == cpid && @size[tid]/ {
	@allocs[retval] = (@size[tid], ustack);
	delete(@size[tid]);
}
uprobe:$LIBC:free /pid == cpid/ { delete(@allocs[arg0]); }
END { clear(@allocs); clear(@size); }
EOF
if ! command -v "$BPFTRACE" >/dev/null; then
	echo "no $BPFTRACE: its column is left out"
	BPFTRACE=
fi

# prog_stat PID NAME: "RUN_TIME_NS RUN_CNT" of PID's BPF program NAME
prog_stat() {
	for f in /proc/"$1"/fdinfo/*; do
		id=$(awk '$1 == "prog_id:" { print $2 }' "$f" 2>/dev/null)
		[ -n "$id" ] || continue
		bpftool prog show id "$id" 2>/dev/null
	done | awk -v n="$2" '$0 ~ "name " n " " { for (i = 1; i < NF; i++) {
			if ($i == "run_time_ns") t = $(i + 1)
			if ($i == "run_cnt") c = $(i + 1) } }
		END { print t + 0, c + 0 }'
}

# run LABEL WORKLOAD PROFILER...: one run of the loop under PROFILER
# (nothing for "alone"), held at its end (--wait) while the profiler's
# BPF time is read; appends "LABEL NS_PER_PAIR ENTRY_NS ENTRY_RUNS
# RETURN_NS RETURN_RUNS" to $T/res.
run() {
	label=$1 w=$2
	shift 2
	rm -f "$T/in" "$T/out"
	mkfifo "$T/in"
	case $label in
	alone*) "$w" loop $N 64 --wait <"$T/in" >"$T/out" & ;;
	bpftrace*) "$BPFTRACE" "$T/memleak.bt" -c "$w loop $N 64 --wait" <"$T/in" >"$T/out" 2>/dev/null & ;;
	*) "$SB" memstack "$@" -f folded -o /dev/null -- "$w" loop $N 64 --wait <"$T/in" >"$T/out" 2>/dev/null & ;;
	esac
	pid=$!
	exec 3>"$T/in"
	n=0
	until grep -q '^done' "$T/out" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 2400 ] || die "$label: the loop did not end in 120 s"
		sleep 0.05
	done
	e=$(prog_stat $pid ms_entry_multi)
	[ "$e" != "0 0" ] || e=$(prog_stat $pid ms_malloc)
	r=$(prog_stat $pid ms_alloc_return)
	echo go >&3
	exec 3>&-
	wait $pid || :
	echo "$label $(awk '/ns per malloc\/free pair/ { print $1 }' "$T/out") $e $r" >>"$T/res"
}

echo "memstack: malloc(64)/free loop, $N pairs per traced run, $REPS rounds, $(nproc) CPUs, $(uname -r)"
for r in $(seq 1 "$REPS"); do
	run alone "$GLIBC"
	run exact "$GLIBC"
	run sampled "$GLIBC" -s 512k
	[ -z "$BPFTRACE" ] || run bpftrace "$GLIBC"
	if [ -n "$MUSL" ]; then
		run alone-musl "$MUSL"
		run exact-musl "$MUSL"
		run sampled-musl "$MUSL" -s 512k
	fi
	printf "."
done
echo

alone=$(median "$T/res" 2 alone)
printf "\nglibc (dynamic), median of %s (min..max)\n" "$REPS"
printf "%-22s %12s %20s %10s %12s\n" "" "ns per pair" "spread" slowdown "vs bpftrace"
bt=$(median "$T/res" 2 bpftrace)
bts=$(calc ratio "$bt" "$alone")
for l in alone exact sampled bpftrace; do
	v=$(median "$T/res" 2 $l)
	s=$(calc ratio "$v" "$alone")
	s2=$(calc ratio "$s" "$bts")
	[ $l != alone ] || s2=-
	printf "%-22s %12s %20s %10s %12s\n" "$l" "$v" "$(spread "$T/res" 2 $l %.1f)" \
		"${s}x" "$s2"
done
printf "%-22s %12s\n" "untraced runs vary" "$(spread_pct "$T/res" 2)"
printf "\nper call, memstack (BPF run_time_ns / run_cnt, medians)\n"
for l in exact sampled; do
	awk -v l=$l '$1 == l && $4 { print $3 / $4, ($6 ? $5 / $6 : 0) }' "$T/res" >"$T/pc.$l"
	printf "%-22s entry (malloc or free) %6s ns, return %6s ns, wall above alone %7s ns per pair\n" \
		"$l" "$(median "$T/pc.$l" 1 "" %.0f)" "$(median "$T/pc.$l" 2 "" %.0f)" \
		"$(awk -v a="$(median "$T/res" 2 $l)" -v b="$alone" 'BEGIN { printf "%.0f", a - b }')"
done
if [ -n "$MUSL" ]; then
	alone=$(median "$T/res" 2 alone-musl)
	printf "\nmusl (static), median of %s\n" "$REPS"
	for l in alone-musl exact-musl sampled-musl; do
		v=$(median "$T/res" 2 $l)
		printf "%-22s %12s %20s %10s\n" "$l" "$v" "$(spread "$T/res" 2 $l %.1f)" \
			"$(calc ratio "$v" "$alone")x"
	done
fi
