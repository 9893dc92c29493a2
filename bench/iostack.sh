#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark of stackbox iostack against a bpftrace script doing the same
# accounting (bytes, calls and errors per comm, user stack and syscall,
# at syscall exit), every figure measured in this run: the extra CPU per
# syscall on a 4 KiB read/write loop, BPF time per syscall, and what the
# hook costs syscalls iostack does not count. See bench/README.md.
#
#   sh bench/iostack.sh           from the repository root, as root
#
# Knobs (environment): REPS (rounds, each runs every configuration once,
# 7), LOOPS (read/write pairs per run, 300000), NOPS (getppid calls per
# run, 2000000), SETTLE (seconds from attached to starting the work, 1),
# BPF_STATS (1: set kernel.bpf_stats_enabled for the run, restored on
# exit), BPFTRACE (the peer's binary), KEEP=1 keeps the scratch directory.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-7}
LOOPS=${LOOPS:-300000}
NOPS=${NOPS:-2000000}
SETTLE=${SETTLE:-1}
BPF_STATS=${BPF_STATS:-1}
BPFTRACE=${BPFTRACE:-$(command -v bpftrace || :)}

bench_start iostack

# ---- build what is needed ----
# the workload as the tests build it: frame pointers, named functions
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$T/io" tests/workloads/io.c

# The peer: what iostack counts, at the exit of the same syscalls, keyed
# by comm, user stack and syscall (its direction): bytes and calls in one
# stats() map, errors in another. It does not tell descriptor kinds
# apart (that needs an entry probe and a walk of the file table), so it
# does less per call than iostack. BEGIN runs once all is attached.
{
	printf '%s\n' 'BEGIN { printf("attached\n"); }'
	sep=
	for s in read write pread64 pwrite64 readv writev preadv pwritev \
		preadv2 pwritev2 recvfrom sendto recvmsg sendmsg sendfile64 splice; do
		printf '%stracepoint:syscalls:sys_exit_%s' "$sep" "$s"
		sep=',
'
	done
	cat <<'EOF'

{
	@io[comm, ustack, probe] = stats(args->ret > 0 ? args->ret : 0);
	if (args->ret < 0) {
		@errors[comm, ustack, probe] = count();
	}
}
EOF
} >"$T/io.bt"

# ready CFG ERRFILE: wait until the profiler PID is attached, or fail
# (return 1) if it exits first or takes 20 s.
ready() {
	case $1 in
	sb*) wait_for grep -qs 'syscall exit: attached with' "$2" ;;
	bt) wait_for grep -qs '^attached' "$T/bt.out" ;;
	esac
}

# work RES ARG...: one run of the workload in the foreground under
# probe; sets WCPU (its CPU time, ms) and WALL (s).
work() {
	res=$1
	shift
	s0=$("$PROBE" stamp)
	"$PROBE" run "$res" "$T/io" "$@" >"$T/work.out" 2>&1
	s1=$("$PROBE" stamp)
	set -- $(grep '^cpu_ms' "$res") || die "work: no resource usage"
	[ "$7" = 0 ] || die "io failed ($7): $(cat "$T/work.out")"
	WCPU=$(($2 + $3))
	WALL=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
}

# start CFG: the profiler of a configuration, system-wide, attached
start() {
	# again before each run: another benchmark on this machine may
	# have restored it meanwhile
	[ "$BPF_STATS" != 1 ] || [ -z "$STATS0" ] ||
		echo 1 >/proc/sys/kernel/bpf_stats_enabled
	case $1 in
	sb)
		start_prof prof "$SB" iostack -v -f folded -o /dev/null 2>"$T/prof.err" ;;
	sbtp)
		export STACKBOX_ATTACH=tracepoint
		start_prof prof "$SB" iostack -v -f folded -o /dev/null 2>"$T/prof.err"
		unset STACKBOX_ATTACH ;;
	bt)
		rm -f "$T/bt.out"
		start_prof prof "$BPFTRACE" "$T/io.bt" >"$T/bt.out" 2>"$T/prof.err" ;;
	esac
	if ! ready "$1" "$T/prof.err"; then
		stop_prof prof
		echo "   $1: did not attach (exit status $STATUS):"
		sed 's/^/      | /' "$T/prof.err" | head -20
		return 1
	fi
	sleep "$SETTLE"
}

# rounds OUT CFGS WORKARGS...: REPS rounds of the configurations,
# interleaved and rotated per round; a line per run in OUT:
# "cfg round wall_s work_cpu_ms prof_cpu_ms bpf_ns bpf_runs" (BPF time
# of all the profiler's programs, runs of the busiest)
rounds() {
	out=$1 cfgs=$2
	shift 2
	: >"$out"
	rep=1
	ncfg=$(echo $cfgs | wc -w)
	while [ $rep -le "$REPS" ]; do
		order=$(echo $cfgs | awk -v k=$(((rep - 1) % ncfg)) '{
			for (i = 0; i < NF; i++) printf "%s ", $((i + k) % NF + 1) }')
		for cfg in $order; do
			if [ "$cfg" = alone ]; then
				work "$T/work.res" "$@"
				echo "alone $rep $WALL $WCPU 0 0 0" >>"$out"
				continue
			fi
			start "$cfg" || continue
			c0=$(run_ms "$PID")
			set -- $(bpf_stat "$PID") "$@"
			b0=$1 r0=$2
			shift 2
			work "$T/work.res" "$@"
			set -- $(bpf_stat "$PID") "$@"
			b1=$1 r1=$2
			shift 2
			c1=$(run_ms "$PID")
			stop_prof prof
			echo "$cfg $rep $WALL $WCPU $(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }') $((b1 - b0)) $((r1 - r0))" >>"$out"
		done
		rep=$((rep + 1))
	done
}

# per_call OUT CFG CALLS: median over rounds of the extra CPU per call in
# ns: (work cpu - the same round's alone work cpu) + profiler cpu during
# the work, over CALLS syscalls
per_call() {
	awk -v c="$2" -v n="$3" '$1 == "alone" { a[$2] = $4 }
		$1 == c { x[$2] = $4 + $5 }
		END { for (r in x) if (r in a) printf "%.0f\n", (x[r] - a[r]) * 1e6 / n }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (!NR) { print "nan"; exit }
			print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bpf_per_call OUT CFG CALLS: median BPF ns per call of the workload: the
# time of all the profiler's programs over the work (other processes'
# syscalls in that time included), over CALLS
bpf_per_call() {
	awk -v c="$2" -v n="$3" '$1 == c && $7 > 0 { printf "%.0f\n", $6 / n }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (!NR) { print "nan"; exit }
			print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "== stackbox iostack benchmark: $(uname -r), $(getconf _NPROCESSORS_ONLN) CPUs"
echo "   ./stackbox of $(stat -c %y ./stackbox | cut -d. -f1), tree $(git describe --always --dirty 2>/dev/null || echo '?')"
echo "   bpftrace: ${BPFTRACE:-not found}$([ -z "$BPFTRACE" ] ||
	echo " ($("$BPFTRACE" --version 2>/dev/null | head -1))")"
echo "   load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$BPF_STATS" != 1 ] || [ -z "$STATS0" ] ||
	echo 1 >/proc/sys/kernel/bpf_stats_enabled

CFGS="alone sb sbtp"
[ -n "$BPFTRACE" ] && CFGS="$CFGS bt" || echo "   bpftrace not found: its figures are left out"
echo
echo "== 1. io loop $LOOPS 4096: $LOOPS x (read 4 KiB from /dev/zero, write 4 KiB to"
echo "   /dev/null), $REPS rounds, the configs interleaved; profilers system-wide:"
echo "   sb = iostack (raw_tp), sbtp = iostack forced to the per-syscall"
echo "   tracepoints, bt = the bpftrace script; extra cpu = work cpu - alone's +"
echo "   profiler cpu during the work, per syscall (2 per loop)"
rounds "$T/loop" "$CFGS" loop "$LOOPS" 4096
echo "   config run wall_s work_cpu_ms prof_cpu_ms bpf_ns runs"
sed 's/^/   /' "$T/loop"
calls=$((LOOPS * 2))
alone=$(median "$T/loop" 4 alone)
echo
printf '   %-5s %14s %16s %16s\n' config "work cpu ms" "extra ns/call" "bpf ns/call"
for c in $CFGS; do
	printf '   %-5s %14s %16s %16s\n' "$c" "$(median "$T/loop" 4 "$c")" \
		"$([ $c = alone ] && echo 0 || per_call "$T/loop" $c $calls)" \
		"$([ $c = alone ] && echo - || bpf_per_call "$T/loop" $c $calls)"
done
sb=$(per_call "$T/loop" sb $calls)
tp=$(per_call "$T/loop" sbtp $calls)
if [ -n "$BPFTRACE" ]; then
	bt=$(per_call "$T/loop" bt $calls)
	echo
	echo "   iostack / bpftrace, extra cpu per call: $(calc ratio "$sb" "$bt") (target: at most 0.5)"
	echo "   iostack tracepoint path / bpftrace:     $(calc ratio "$tp" "$bt")"
	# same-round ratios, so that a change of load shows as spread
	awk '$1 == "alone" { a[$2] = $4 } $1 == "sb" { s[$2] = $4 + $5 } $1 == "bt" { b[$2] = $4 + $5 }
		END { for (r in s) if ((r in b) && (r in a) && b[r] > a[r]) printf "%.2f\n", (s[r] - a[r]) / (b[r] - a[r]) }' "$T/loop" |
		sort -g | tr '\n' ' ' | sed 's/^/   same-round ratios: /; s/$/\n/'
fi

echo
echo "== 2. io nop $NOPS: getppid(), which iostack does not count: what its"
echo "   hook costs every other syscall of the machine, $REPS rounds"
rounds "$T/nop" "alone sb sbtp" nop "$NOPS"
for c in sb sbtp; do
	echo "   $c: extra $(per_call "$T/nop" $c "$NOPS") ns per uncounted syscall, BPF $(bpf_per_call "$T/nop" $c "$NOPS") ns of it (work cpu alone $(median "$T/nop" 4 alone) ms)"
done
echo "   raw_tp costs every syscall a BPF run that looks up its number; the"
echo "   per-syscall tracepoints cost a counted one an entry hook and a map"
echo "   entry: raw_tp is cheaper while uncounted syscalls are fewer than"
echo "   (tracepoint - raw_tp per counted call) / (raw_tp - tracepoint per"
echo "   uncounted call) per counted one: $(awk -v a="$tp" -v b="$sb" \
	-v c="$(per_call "$T/nop" sb "$NOPS")" -v d="$(per_call "$T/nop" sbtp "$NOPS")" \
	'BEGIN { if (c > d && a > b) printf "%.0f", (a - b) / (c - d); else print "always" }')"
