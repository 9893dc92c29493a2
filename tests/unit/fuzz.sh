#!/bin/sh
# The bin reader under libFuzzer for a few seconds, seeded with a valid
# stream (written by test_bin) and the committed ones of both versions
# (tests/unit/fuzz/bin). `make fuzz-bin` runs it for minutes.
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
if "$F" -seed=1 -max_total_time=10 -rss_limit_mb=1024 -artifact_prefix="$T/" "$T/corpus" "$SRCTREE/tests/unit/fuzz/bin" >"$T/log" 2>&1; then
	pass "bin reader: 10 s of libFuzzer (ASan, UBSan), no crash ($(grep -o 'cov: [0-9]*' "$T/log" | tail -1))"
else
	fail "bin reader fuzzing" "$(grep -E 'ERROR|SUMMARY' "$T/log" | head -3 | tr '\n' ' ')"
fi

# test_bin under ASan and UBSan (tests/unit/bin.mk): its damage rounds
A=$TESTS_O/fuzz/test_bin_asan
if [ ! -x "$A" ]; then
	skip "test_bin under ASan and UBSan" "not built (no clang at build time)"
elif (cd "$T" && "$A" >"$T/asan.log" 2>&1) && ! grep -q '^FAIL\|ERROR\|runtime error' "$T/asan.log"; then
	pass "test_bin under ASan and UBSan: $(grep -c '^PASS' "$T/asan.log") checks, no error"
else
	fail "test_bin under ASan and UBSan" "$(grep -E '^FAIL|ERROR|runtime error' "$T/asan.log" | head -3 | tr '\n' ' ')"
fi

# The other readers of untrusted bytes (tests/unit/fuzz.mk), 3 s each
# from their committed seeds; `make fuzz` runs each for FUZZ_SECONDS.
# -seed=1: the same mutations in the same order on every machine, so a
# check that passed here passes on a fresh one (a slower machine runs a
# prefix of them); `make fuzz` explores with a new seed each run.
for n in elf ehframe ksyms maps opts perf_script gopclntab folded_read; do
	F=$TESTS_O/fuzz/fuzz_$n
	if [ ! -x "$F" ]; then
		skip "fuzz_$n" "no fuzz target (clang with -fsanitize=fuzzer not found at build time)"
		continue
	fi
	mkdir "$T/$n"
	if "$F" -seed=1 -max_total_time=3 -rss_limit_mb=1024 -artifact_prefix="$T/" "$T/$n" "$SRCTREE/tests/unit/fuzz/$n" >"$T/$n.log" 2>&1; then
		pass "fuzz_$n: 3 s of libFuzzer (ASan, UBSan), no crash ($(grep -o 'cov: [0-9]*' "$T/$n.log" | tail -1))"
	else
		fail "fuzz_$n" "$(grep -E 'ERROR|SUMMARY' "$T/$n.log" | head -3 | tr '\n' ' ')"
	fi
done
