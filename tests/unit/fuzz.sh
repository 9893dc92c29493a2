#!/bin/sh
# The bin reader under libFuzzer for a few seconds, seeded with a valid
# stream (written by test_bin). `make fuzz-bin` runs it for minutes.
. "$SRCTREE/tests/lib.sh"
F=$TESTS_O/fuzz/fuzz_bin
if [ ! -x "$F" ]; then
	skip "bin reader fuzzing" "no fuzz target (clang with -fsanitize=fuzzer not found at build time)"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/corpus"
[ -f "$TESTS_O/bin-seed.bin" ] && cp "$TESTS_O/bin-seed.bin" "$T/corpus/seed"
if "$F" -max_total_time=10 -rss_limit_mb=1024 "$T/corpus" >"$T/log" 2>&1; then
	pass "bin reader: 10 s of libFuzzer (ASan, UBSan), no crash ($(grep -o 'cov: [0-9]*' "$T/log" | tail -1))"
else
	fail "bin reader fuzzing" "$(grep -E 'ERROR|SUMMARY' "$T/log" | head -3 | tr '\n' ' ')"
fi
