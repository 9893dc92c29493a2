#!/bin/sh
# Run the test suites and count their PASS/FAIL/SKIP lines.
#   run.sh [unit|integration|board]...     default: all three
# Environment (set by make check): STACKBOX, TESTS_O, OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
suites=${*:-unit integration board}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export STACKBOX TESTS_O OUT="${OUT:-}" WORKLOADS="$TESTS_O/workloads"
export FIXTURES="$TESTS_O/fixtures" SRCTREE="${here%/tests}"

for suite in $suites; do
	case $suite in
	unit)
		for t in "$TESTS_O"/unit/test_* "$here"/unit/*.sh; do
			[ -x "$t" ] || [ "${t%.sh}" != "$t" ] || continue
			[ -f "$t" ] || continue
			echo "== unit/$(basename "$t")"
			case $t in
			*.sh) sh "$t" ;;
			*) ( cd "$TESTS_O" && "$t" ) ;;
			esac >"$log.one" 2>&1 ||
				echo "FAIL $(basename "$t"): exited with status $?" >>"$log.one"
			cat "$log.one" >>"$log"
			grep -E '^(FAIL|SKIP) ' "$log.one" || true
		done ;;
	integration|board)
		for t in "$here/$suite"/*.sh; do
			[ -f "$t" ] || continue
			echo "== $suite/$(basename "$t")"
			sh "$t" >"$log.one" 2>&1 ||
				echo "FAIL $(basename "$t"): exited with status $?" >>"$log.one"
			cat "$log.one" >>"$log"
			grep -E '^(FAIL|SKIP) ' "$log.one" || true
		done ;;
	*) echo "run.sh: unknown suite '$suite'" >&2; exit 2 ;;
	esac
done
rm -f "$log.one"
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
if [ "$f" != 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
