#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# How fast each applet starts and stops, and what it holds: for every
# collector applet, exec to attached, end to exit, peak RSS and how many
# times it parsed kernel BTF; perf record, libbpf-tools' offcputime and
# bpftrace (a trivial script) measured the same way in the same run.
#
#   sh bench/startup.sh          from the repository root, as root
#
# "Attached" is when CMD starts under "-- CMD": CMD writes the time, and
# exits at once, which is the end; exit is when the profiler's process has
# gone. offcputime takes no CMD: it runs for 1 s and its whole life less
# that second is shown as start + stop. bpftrace's BEGIN runs once its
# probes are attached: it prints, and exits there.
# Knobs (environment): REPS (runs of each, the median is shown, 5),
# OFFCPUTIME, BPFTRACE, PERF (the peers' binaries), KEEP=1.
set -eu
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-5}
bench_start startup
[ -z "${SB_BIN:-}" ] || cp "$SB_BIN" "$SB"
find_perf
OFFCPUTIME=${OFFCPUTIME:-$(command -v offcputime || echo /usr/sbin/offcputime)}
BPFTRACE=${BPFTRACE:-$(command -v bpftrace || :)}

now_ns() { date +%s%N; }

# CMD for "-- CMD": the time it started, in $T/attached
cat >"$T/mark" <<EOF
#!/bin/sh
date +%s%N >$T/attached
EOF
chmod +x "$T/mark"

# run NAME PROFILER [ARG]...: one run of PROFILER ... -- mark; a line
# "NAME start_ms stop_ms rss_kb" in $T/runs
run() {
	name=$1
	shift
	rm -f "$T/attached"
	t0=$(now_ns)
	/usr/bin/time -f %M -o "$T/rss" "$@" >/dev/null 2>"$T/err" ||
		die "$name failed: $(tail -3 "$T/err")"
	t2=$(now_ns)
	[ -s "$T/attached" ] || die "$name: CMD did not run"
	t1=$(cat "$T/attached")
	echo "$name $(((t1 - t0) / 1000))e-3 $(((t2 - t1) / 1000))e-3 $(tail -1 "$T/rss")" >>"$T/runs"
}

# run_bpftrace: BEGIN prints once attached, and exits
run_bpftrace() {
	t0=$(now_ns)
	/usr/bin/time -f %M -o "$T/rss" "$BPFTRACE" -e \
		'tracepoint:sched:sched_switch { @n = count(); }
		 BEGIN { printf("attached\n"); exit(); }' 2>/dev/null |
		while read -r line; do
			[ "$line" != attached ] || now_ns >"$T/attached"
		done
	t2=$(now_ns)
	t1=$(cat "$T/attached")
	echo "bpftrace $(((t1 - t0) / 1000))e-3 $(((t2 - t1) / 1000))e-3 $(tail -1 "$T/rss")" >>"$T/runs"
}

# run_offcputime: 1 s; its life less that second
run_offcputime() {
	t0=$(now_ns)
	/usr/bin/time -f %M -o "$T/rss" "$OFFCPUTIME" 1 >/dev/null 2>&1
	t2=$(now_ns)
	echo "offcputime $(((t2 - t0) / 1000 - 1000000))e-3 - $(tail -1 "$T/rss")" >>"$T/runs"
}

# How many times a run parsed kernel BTF: stackbox says so under -v;
# strace counts every open of it, availability checks included.
btf_parses() {
	"$SB" "$1" -v -i 0 -f folded -o /dev/null -- "$T/mark" 2>&1 |
		sed -n 's/.*kernel BTF parsed \([0-9]*\) times.*/\1/p'
}
btf_opens() {
	command -v strace >/dev/null || { echo n/a; return; }
	strace -f -e trace=openat -o "$T/strace" "$@" >/dev/null 2>&1 || :
	grep -c 'btf/vmlinux"' "$T/strace" || :
}

: >"$T/runs"
APPLETS=$("$SB" --list 2>/dev/null | grep -vxE "report|check" || echo "oncpu offcpu memstack iostack rastack")
for i in $(seq "$REPS"); do
	for a in $APPLETS; do
		run "$a" "$SB" "$a" -i 0 -f folded -o /dev/null -- "$T/mark"
	done
	run perf "$PERF" record -q -e cpu-clock -F 49 -g -o "$T/perf.data" -- "$T/mark"
	[ ! -x "$OFFCPUTIME" ] || run_offcputime
	[ -z "$BPFTRACE" ] || run_bpftrace
done

echo "== startup and shutdown, median of $REPS runs (ms; RSS in KB)"
printf '%-11s %10s %10s %9s %11s %11s\n' profiler "exec->att" "end->exit" "peak RSS" "BTF parses" "BTF opens"
for name in $APPLETS perf offcputime bpftrace; do
	grep -q "^$name " "$T/runs" || continue
	case $name in
	perf) parses=-; opens=$(btf_opens "$PERF" record -q -o "$T/perf.data" -- "$T/mark") ;;
	offcputime) parses=-; opens=$(btf_opens "$OFFCPUTIME" 1) ;;
	bpftrace) parses=-; opens=$(btf_opens "$BPFTRACE" -e 'BEGIN { exit(); }') ;;
	*) parses=$(btf_parses "$name"); opens=$(btf_opens "$SB" "$name" -i 0 -f folded -o /dev/null -- "$T/mark") ;;
	esac
	printf '%-11s %10s %10s %9s %11s %11s\n' "$name" \
		"$(median "$T/runs" 2 "$name" %.1f)" \
		"$(median "$T/runs" 3 "$name" %.1f)" \
		"$(median "$T/runs" 4 "$name" %.0f)" "$parses" "$opens"
done
echo "   offcputime: start + stop together under exec->att (no CMD to time)"
