#!/bin/sh
# Run the test suites and count their PASS/FAIL/SKIP lines.
#   run.sh [unit|integration|board]...     default: all three
# Environment (set by make check): STACKBOX, TESTS_O, OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
san=$TESTS_O/san

# run_test OUT TEST: one test binary or script, its lines into OUT and
# the seconds it took into OUT.s. Unit tests share nothing but the build
# they read, so they run UNIT_JOBS (2) at a time, each lane a run.sh
# --unit (xargs); integration tests attach BPF system-wide and run one
# at a time.
run_test() {
	start=$(date +%s)
	case $2 in
	*.sh) sh "$2" ;;
	"$san"/*) ( cd "$TESTS_O" && ASAN_OPTIONS=$SAN_ASAN_OPTIONS \
		UBSAN_OPTIONS=$SAN_UBSAN_OPTIONS "$2" ) ;;
	*) ( cd "$TESTS_O" && "$2" ) ;;
	esac >"$1" 2>&1 ||
		echo "FAIL $(basename "$2"): exited with status $?" >>"$1"
	echo $(($(date +%s) - start)) >"$1.s"
}
if [ "${1:-}" = --unit ]; then
	run_test "$2" "$3"
	exit 0
fi

suites=${*:-unit integration board}
log=$(mktemp)
runs=$(mktemp -d)
export STACKBOX TESTS_O OUT="${OUT:-}" WORKLOADS="$TESTS_O/workloads"
export FIXTURES="$TESTS_O/fixtures" SRCTREE="${here%/tests}"
# The sanitized build (tests/unit/sanitize.mk): its unit tests run after
# the plain ones, and report's tests use its binary (sb_report). Its
# reports go to files, so a test that ignores report's exit status or
# its stderr still cannot hide one: each file is a FAIL below.
san_logs=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$san_logs" "$runs"' EXIT
# (only sanitized runs get the options: fuzz targets keep their own)
export SAN_ASAN_OPTIONS="log_path=$san_logs/asan:detect_leaks=1"
export SAN_UBSAN_OPTIONS="log_path=$san_logs/ubsan:print_stacktrace=1"
[ ! -x "$san/stackbox" ] || export SAN_STACKBOX="$san/stackbox"

# report NAME OUT SECONDS: a test's heading with the seconds it took
# (the budget is 30 minutes for everything), then its FAILs and SKIPs,
# each FAIL with the lines indented under it (what the test showed of
# why: a flake on CI's machine leaves nothing else to read)
report() {
	echo "== $1 ($3 s)"
	cat "$2" >>"$log"
	awk '/^(FAIL|SKIP) / { print; why = /^FAIL/; next }
		why && /^    / { print; next } { why = 0 }' "$2"
}

for suite in $suites; do
	case $suite in
	unit)
		# the list, each sanitized test after its plain one; run in
		# lanes, reported in this order
		for t in "$TESTS_O"/unit/test_* "$here"/unit/*.sh; do
			[ -x "$t" ] || [ "${t%.sh}" != "$t" ] || continue
			[ -f "$t" ] || continue
			echo "$t"
			st=$san/unit/$(basename "$t")
			[ "${t%.sh}" != "$t" ] || [ ! -x "$st" ] || echo "$st"
		done | awk -v d="$runs" '{ print d "/" NR, $0 }' >"$runs/list"
		xargs -P "${UNIT_JOBS:-2}" -L 1 sh "$0" --unit <"$runs/list"
		while read -r out t; do
			case $t in
			"$san"/*) name=unit/san/$(basename "$t") ;;
			*) name=unit/$(basename "$t") ;;
			esac
			report "$name" "$out" "$(cat "$out.s")"
		done <"$runs/list"
		[ -x "$san/stackbox" ] ||
			echo "SKIP sanitized unit tests and report: not built (tests/unit/sanitize.mk)" | tee -a "$log" ;;
	integration|board)
		for t in "$here/$suite"/*.sh; do
			[ -f "$t" ] || continue
			run_test "$runs/one" "$t"
			report "$suite/$(basename "$t")" "$runs/one" "$(cat "$runs/one.s")"
		done ;;
	*) echo "run.sh: unknown suite '$suite'" >&2; exit 2 ;;
	esac
done
for r in "$san_logs"/*; do
	[ -f "$r" ] || continue
	echo "FAIL sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$r" | cut -c1-200) (${r##*/})" | tee -a "$log"
	sed -n '1,30p' "$r"
done
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
