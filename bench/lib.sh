# Shared by bench/*.sh (sourced): process control, resource figures and
# statistics. bench_start (at the end) sets T (scratch dir), SB (stackbox),
# PROBE (bench/probe.c built), LIVE (pids to kill on exit) and STATS0
# (bpf_stats to restore).

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

cleanup() {
	for p in $LIVE; do
		kill "$p" 2>/dev/null || :
	done
	[ -z "$STATS0" ] || echo "$STATS0" >/proc/sys/kernel/bpf_stats_enabled
	if [ "${KEEP:-0}" = 1 ]; then
		echo "scratch files kept in $T"
	else
		rm -rf "$T"
	fi
}

# run_ms PID: CPU time of a process so far, all its threads, in ms (from
# the scheduler's nanosecond runtime, not the ticks of /proc/PID/stat).
run_ms() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{ n += $1 } END { printf "%.1f\n", n / 1e6 }'
}

# start_prof NAME CMD [ARG]...: run CMD in the background under "probe run",
# which records its CPU time and peak RSS in $T/NAME.res. Sets PID (CMD)
# and RUNNER (probe).
start_prof() {
	res=$T/$1.res
	shift
	rm -f "$res"
	"$PROBE" run "$res" "$@" &
	RUNNER=$!
	LIVE="$LIVE $RUNNER"
	n=0
	until [ -s "$res" ]; do
		n=$((n + 1))
		[ $n -lt 500 ] || die "$1 did not start"
		sleep 0.01
	done
	PID=$(awk '$1 == "pid" { print $2 }' "$res")
	LIVE="$LIVE $PID"
}

# stop_prof NAME: SIGINT to PID, wait for it; set CPU_MS (user + system,
# its whole life, exit work included), RSS_KB (peak) and STATUS from
# $T/NAME.res. SIGINT again after 5 s, SIGKILL after 30 s, saying so.
stop_prof() {
	kill -INT "$PID" 2>/dev/null || :
	n=0
	while kill -0 "$PID" 2>/dev/null; do
		n=$((n + 1))
		case $n in
		100)
			echo "   ($1: still running 5 s after SIGINT: SIGINT again)"
			kill -INT "$PID" 2>/dev/null || :
			;;
		600)
			echo "   ($1: still running 30 s after SIGINT: SIGKILL)"
			kill -KILL "$PID" 2>/dev/null || :
			;;
		esac
		sleep 0.05
	done
	wait "$RUNNER" || :
	LIVE=""
	line=$(grep '^cpu_ms' "$T/$1.res") || die "$1: no resource usage"
	set -- $line
	CPU_MS=$(($2 + $3))
	RSS_KB=$5
	STATUS=$7
}

# bpf_stat PID [PROG]: "RUN_TIME_NS RUN_CNT" of the BPF programs PID
# holds: time summed over its programs (each counted once, by id), runs
# of the program that makes the events being normalised: the busiest of
# those whose name matches PROG, an awk regex (names as bpftool shows
# them: the kernel keeps 15 characters). Without PROG the busiest of all,
# right only for a profiler whose busiest program is that event's.
# Needs kernel.bpf_stats_enabled and bpftool.
bpf_stat() {
	for id in $(cat /proc/"$1"/fdinfo/* 2>/dev/null |
		awk '$1 == "prog_id:" { print $2 }' | sort -u); do
		bpftool prog show id "$id" 2>/dev/null | head -1
	done | awk -v re="${2:-}" '{ t = c = 0; name = ""
			for (i = 1; i < NF; i++) {
				if ($i == "name") name = $(i + 1)
				if ($i == "run_time_ns") t = $(i + 1)
				if ($i == "run_cnt") c = $(i + 1)
			}
			s += t; if ((re == "" || name ~ re) && c > m) m = c }
		END { print s + 0, m + 0 }'
}

# median FILE COLUMN [KEY [FORMAT]]: median of a column, over the lines
# whose first field is KEY when given; "nan" when there are none.
median() {
	awk -v c="$2" -v k="${3:-}" 'k == "" || $1 == k { print $c }' "$1" |
		sort -g | awk -v f="${4:-}" '{ v[NR] = $1 }
		END {
			if (!NR) { print "nan"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			if (f != "") printf f "\n", m; else print m
		}'
}

# spread FILE COLUMN [KEY [FORMAT]]: "min..max" over the same lines.
spread() {
	awk -v c="$2" -v k="${3:-}" -v f="${4:-%.3f}" 'k == "" || $1 == k {
			if (n++ == 0 || $c + 0 < lo) lo = $c + 0
			if (n == 1 || $c + 0 > hi) hi = $c + 0
		}
		END { if (n) printf f ".." f, lo, hi; else printf "-" }' "$1"
}

# calc OP A B: ratio (A / B), pct (A ms as a
# share of B s), oratio (ratio of overheads A - 1 over B - 1), pratio
# (A / B when both are positive); n/a when it cannot be told.
calc() {
	awk -v e="$1" -v a="$2" -v b="$3" \
		'BEGIN {
			num = "^-?[0-9]+[.]?[0-9]*%?$"
			if (a !~ num || b !~ num) { print "n/a"; exit }
			if (e == "ratio") r = (b + 0 ? sprintf("%.2f", a / b) : "n/a")
			else if (e == "pct") r = sprintf("%.2f%%", a / b / 10)
			else if (e == "oratio") r = (a > 1 && b > 1 ? \
				sprintf("%.2f", (a - 1) / (b - 1)) : "n/a")
			else if (e == "pratio") r = (a > 0 && b > 0 ? \
				sprintf("%.2f", a / b) : "n/a")
			print r
		}'
}

# The perf binary: Debian's /usr/bin/perf, or a versioned one if the plain
# one refuses to run on this kernel. Sets PERF unless it is set already.
find_perf() {
	if [ -z "${PERF:-}" ]; then
		for p in perf /usr/bin/perf_*; do
			if "$p" --version >/dev/null 2>&1; then
				PERF=$p
				break
			fi
		done
	fi
	[ -n "${PERF:-}" ] || die "no working perf binary (set PERF=...)"
}

# spread_pct FILE COLUMN: how much the "alone" rows of FILE vary in COLUMN,
# (max - min) / min, as a percentage: the run's noise floor.
spread_pct() {
	awk -v c="$2" '$1 == "alone" { if (!n++ || $c < lo) lo = $c; if ($c > hi) hi = $c }
		END { printf "%.1f%%", 100 * (hi - lo) / lo }' "$1"
}

# wait_for CMD [ARG]...: run CMD every 10 ms until it succeeds; 1 when
# the profiler PID exits first or 20 s pass.
wait_for() {
	_n=0
	until "$@"; do
		_n=$((_n + 1))
		[ $_n -lt 2000 ] && kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.01
	done
}

# bench_start NAME [MAKE-TARGET]...: the start of every bench/NAME.sh,
# run from the repository root as root. make builds ./stackbox and the
# targets; T is a scratch directory, and cleanup() runs at exit; SB is a
# private copy of ./stackbox, so a rebuild during the run changes nothing
# (it keeps its name: the applet is chosen by argv[0]); PROBE is
# bench/probe.c, built. With BENCH_BUILT=DIR (a board: bench/board.sh)
# both are in DIR, built on the host, and nothing is built.
bench_start() {
	_name=$1
	shift
	[ -f "bench/$_name.sh" ] || die "run from the repository root: sh bench/$_name.sh"
	[ "$(id -u)" = 0 ] || die "run as root (BPF)"
	[ -n "${BENCH_BUILT:-}" ] || make -s stackbox "$@" >/dev/null ||
		die "make failed"
	T=$(mktemp -d /tmp/stackbox-bench.XXXXXX)
	LIVE="" # pids this script started and has not waited for yet
	STATS0=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	if [ -n "${BENCH_BUILT:-}" ]; then
		# inside a board (bench/board.sh): built on the host
		SB=$BENCH_BUILT/stackbox
		PROBE=$BENCH_BUILT/probe
		return
	fi
	mkdir "$T/bin"
	cp ./stackbox "$T/bin/stackbox"
	SB=$T/bin/stackbox
	cc -O2 -Wall -o "$T/probe" bench/probe.c
	PROBE=$T/probe
}
