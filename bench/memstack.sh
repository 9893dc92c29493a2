#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of memstack, every figure measured in this run: the slowdown
# of an allocation-heavy loop (tests/workloads/memstack loop: N pairs of
# malloc(64) and free, timed by the loop itself) under memstack exact,
# memstack -s 512k (sampled: with uprobe sessions where the kernel has
# them, and forced to entry and return probes with
# STACKBOX_ATTACH=uprobe_multi: sampled-classic), memstack --mode alloc
# -s 512k (allocation rate, no probe on free: alloc), and a bpftrace script that traces malloc
# and free with stacks the way memleak does (a record per allocation
# with its size and user stack, deleted at free); and what each call
# costs: BPF time per program run (run_time_ns / run_cnt) and wall time
# per malloc/free pair above the untraced loop.
#
#   sh bench/memstack.sh          from the repository root, as root
#
# Knobs (environment): REPS (rounds, each runs every configuration once,
# 11), N (pairs per traced run, 300000), BPFTRACE (the bpftrace binary),
# KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-11}
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
# RETURN_NS RETURN_RUNS CPU_NS_PER_PAIR" to $T/res (CPU: the loop
# thread's, traps included, without the waits of a shared machine).
run() {
	label=$1 w=$2
	shift 2
	rm -f "$T/in" "$T/out"
	mkfifo "$T/in"
	case $label in
	alone*) "$w" loop $N 64 --wait <"$T/in" >"$T/out" & ;;
	bpftrace*) "$BPFTRACE" "$T/memleak.bt" -c "$w loop $N 64 --wait" <"$T/in" >"$T/out" 2>/dev/null & ;;
	sampled-classic*) STACKBOX_ATTACH=uprobe_multi "$SB" memstack "$@" -f folded -o /dev/null -- "$w" loop $N 64 --wait <"$T/in" >"$T/out" 2>/dev/null & ;;
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
	# sessions: one program for entries and returns, its runs per pair
	[ "$e" != "0 0" ] || { e=$(prog_stat $pid ms_session) r="0 0"; }
	echo go >&3
	exec 3>&-
	wait $pid || :
	echo "$label $(awk '/ns per malloc\/free pair/ { print $1 }' "$T/out") $e $r $(awk '/ns of CPU per pair/ { print $1 }' "$T/out")" >>"$T/res"
}

echo "memstack: malloc(64)/free loop, $N pairs per traced run, $REPS rounds, $(nproc) CPUs, $(uname -r)"
# which way sampled runs took here (memstack -v says it in one line)
"$SB" memstack -v -s 512k -- true 2>&1 | sed -n 's/^memstack: -s: /sampled: /p'
echo "sampled-classic: STACKBOX_ATTACH=uprobe_multi (entry and return probes)"
for r in $(seq 1 "$REPS"); do
	run alone "$GLIBC"
	run exact "$GLIBC"
	run sampled "$GLIBC" -s 512k
	run sampled-classic "$GLIBC" -s 512k
	run alloc "$GLIBC" --mode alloc -s 512k
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
for l in alone exact sampled sampled-classic alloc bpftrace; do
	v=$(median "$T/res" 2 $l)
	s=$(calc ratio "$v" "$alone")
	s2=$(calc ratio "$s" "$bts")
	[ $l != alone ] || s2=-
	printf "%-22s %12s %20s %10s %12s\n" "$l" "$v" "$(spread "$T/res" 2 $l %.1f)" \
		"${s}x" "$s2"
done
printf "%-22s %12s\n" "untraced runs vary" "$(spread_pct "$T/res" 2)"
printf "\nCPU of the loop's thread per pair (traps included), median of %s\n" "$REPS"
printf "%-22s %12s %20s\n" "" "ns per pair" "spread"
for l in alone exact sampled sampled-classic alloc; do
	printf "%-22s %12s %20s\n" "$l" "$(median "$T/res" 7 $l)" "$(spread "$T/res" 7 $l %.1f)"
done
# sampled / exact per round (the same round's runs), then the median:
# CPU (column 7) and wall time (2)
for c in 7 2; do
	for l in sampled sampled-classic alloc; do
		awk -v l=$l -v c=$c '$1 == "exact" { e[++ne] = $c } $1 == l { s[++ns] = $c }
			END { for (i = 1; i <= ns && i <= ne; i++) if (e[i] > 0) print s[i] / e[i] }' "$T/res" >"$T/ratio.$l.$c"
	done
done
printf "\nsampled / exact per pair (each round's own runs; median, min..max;\n"
printf "targets: sampled <= 0.5, alloc <= 0.35)\n"
printf "%-22s %14s %14s %14s %14s\n" "" "CPU" "spread" "wall" "spread"
for l in sampled sampled-classic alloc; do
	printf "%-22s %14s %14s %14s %14s\n" "$l" "$(median "$T/ratio.$l.7" 1 "" %.2f)" "$(spread "$T/ratio.$l.7" 1 "" %.2f)" \
		"$(median "$T/ratio.$l.2" 1 "" %.2f)" "$(spread "$T/ratio.$l.2" 1 "" %.2f)"
done
# The same of the cost alone: CPU per pair above the same round's
# untraced run, over exact's
for l in sampled sampled-classic alloc; do
	awk -v l=$l '$1 == "alone" { a[++na] = $7 } $1 == "exact" { e[++ne] = $7 }
		$1 == l { s[++ns] = $7 }
		END { for (i = 1; i <= ns && i <= ne && i <= na; i++)
			if (e[i] > a[i]) print (s[i] - a[i]) / (e[i] - a[i]) }' \
		"$T/res" >"$T/oratio.$l"
done
printf "\nthe same of the cost above the untraced loop, CPU (median, min..max)\n"
for l in sampled sampled-classic alloc; do
	printf "%-22s %14s %14s\n" "$l" "$(median "$T/oratio.$l" 1 "" %.2f)" \
		"$(spread "$T/oratio.$l" 1 "" %.2f)"
done
printf "\nper call, memstack (BPF run_time_ns / run_cnt, medians; sessions: one\n"
printf "program at entries and the returns it keeps, its runs per pair)\n"
for l in exact sampled sampled-classic alloc; do
	awk -v l=$l -v n=$N '$1 == l && $4 { print $3 / $4, ($6 ? $5 / $6 : 0), $4 / n }' "$T/res" >"$T/pc.$l"
	printf "%-22s entry (malloc or free) %6s ns, return %6s ns, %5s entry runs per pair, wall above alone %7s ns per pair\n" \
		"$l" "$(median "$T/pc.$l" 1 "" %.0f)" "$(median "$T/pc.$l" 2 "" %.0f)" \
		"$(median "$T/pc.$l" 3 "" %.3f)" \
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
