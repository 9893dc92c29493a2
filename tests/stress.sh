#!/bin/sh
# make check-stress: the integration tests whose checks measure time or
# count events, each run ROUNDS times (20) with both CPUs kept busy by
# stress-ng, and a table of how often each check failed. A check that
# passes only on a quiet machine shows here before it shows in CI.
#   stress.sh [TEST...]    default: offcpu unwind rastack memstack
# Environment (from make): STACKBOX, TESTS_O, OUT; ROUNDS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export STACKBOX TESTS_O OUT="${OUT:-}" WORKLOADS="$TESTS_O/workloads"
export SRCTREE="${here%/tests}"
rounds=${ROUNDS:-20}
tests=${*:-offcpu unwind rastack memstack}
command -v stress-ng >/dev/null || { echo "stress.sh: stress-ng is not installed (make setup)" >&2; exit 2; }
log=$(mktemp -d)
trap 'kill $load 2>/dev/null; rm -rf "$log"' EXIT
stress-ng --cpu 2 --timeout 0 >/dev/null 2>&1 &
load=$!
for t in $tests; do
	for r in $(seq "$rounds"); do
		sh "$here/integration/$t.sh" >"$log/$t.$r" 2>&1 ||
			echo "FAIL $t.sh: exited with status $?" >>"$log/$t.$r"
		printf '%s round %d: %d passed, %d failed\n' "$t" "$r" \
			"$(grep -c '^PASS ' "$log/$t.$r")" "$(grep -c '^FAIL ' "$log/$t.$r")"
	done
done
# checks named without their measured figures: "NAME: ..." and the
# numbers in parentheses differ between rounds
echo
printf '%-8s %-70s %s\n' test check "failed/$rounds"
for t in $tests; do
	cat "$log/$t".* | sed -n 's/^FAIL //p' | sed -e 's/: .*//' \
		-e 's/([^)]*)//g' -e 's/[0-9][0-9.]*/N/g' | sort | uniq -c |
		while read -r n name; do
			printf '%-8s %-70.70s %d\n' "$t" "$name" "$n"
		done
done
total=$(cat "$log"/* | grep -c '^FAIL ')
echo "$total failures in $rounds rounds of: $tests"
[ "$total" = 0 ]
