#!/bin/sh
# Run the test suites and count their PASS/FAIL/SKIP lines.
#   run.sh [unit|integration|board]...     default: all three
# Environment (set by make check): STACKBOX, TESTS_O, OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
suites=${*:-unit integration board}
log=$(mktemp)
export STACKBOX TESTS_O OUT="${OUT:-}" WORKLOADS="$TESTS_O/workloads"
export FIXTURES="$TESTS_O/fixtures" SRCTREE="${here%/tests}"
# The sanitized build (tests/unit/sanitize.mk): its unit tests run after
# the plain ones, and report's tests use its binary (sb_report). Its
# reports go to files, so a test that ignores report's exit status or
# its stderr still cannot hide one: each file is a FAIL below.
san=$TESTS_O/san
san_logs=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$san_logs"' EXIT
# (only sanitized runs get the options: fuzz targets keep their own)
export SAN_ASAN_OPTIONS="log_path=$san_logs/asan:detect_leaks=1"
export SAN_UBSAN_OPTIONS="log_path=$san_logs/ubsan:print_stacktrace=1"
[ ! -x "$san/stackbox" ] || export SAN_STACKBOX="$san/stackbox"

# report NAME START: a test's heading with the seconds it took (the
# budget is 30 minutes for everything), then its FAILs and SKIPs
report() {
	echo "== $1 ($(($(date +%s) - $2)) s)"
	cat "$log.one" >>"$log"
	grep -E '^(FAIL|SKIP) ' "$log.one" || true
}

# run_unit TEST: one unit test binary or script, its lines into $log
run_unit() {
	start=$(date +%s)
	case $1 in
	*.sh) sh "$1" ;;
	"$san"/*) ( cd "$TESTS_O" && ASAN_OPTIONS=$SAN_ASAN_OPTIONS \
		UBSAN_OPTIONS=$SAN_UBSAN_OPTIONS "$1" ) ;;
	*) ( cd "$TESTS_O" && "$1" ) ;;
	esac >"$log.one" 2>&1 ||
		echo "FAIL $(basename "$1"): exited with status $?" >>"$log.one"
	case $1 in
	"$san"/*) report "unit/san/$(basename "$1")" "$start" ;;
	*) report "unit/$(basename "$1")" "$start" ;;
	esac
}

for suite in $suites; do
	case $suite in
	unit)
		for t in "$TESTS_O"/unit/test_* "$here"/unit/*.sh; do
			[ -x "$t" ] || [ "${t%.sh}" != "$t" ] || continue
			[ -f "$t" ] || continue
			run_unit "$t"
			st=$san/unit/$(basename "$t")
			[ "${t%.sh}" != "$t" ] || [ ! -x "$st" ] || run_unit "$st"
		done
		[ -x "$san/stackbox" ] ||
			echo "SKIP sanitized unit tests and report: not built (tests/unit/sanitize.mk)" | tee -a "$log" ;;
	integration|board)
		for t in "$here/$suite"/*.sh; do
			[ -f "$t" ] || continue
			start=$(date +%s)
			sh "$t" >"$log.one" 2>&1 ||
				echo "FAIL $(basename "$t"): exited with status $?" >>"$log.one"
			report "$suite/$(basename "$t")" "$start"
		done ;;
	*) echo "run.sh: unknown suite '$suite'" >&2; exit 2 ;;
	esac
done
rm -f "$log.one"
for r in "$san_logs"/*; do
	[ -f "$r" ] || continue
	echo "FAIL sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$r" | cut -c1-200) (${r##*/})" | tee -a "$log"
	sed -n '1,30p' "$r"
done
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
