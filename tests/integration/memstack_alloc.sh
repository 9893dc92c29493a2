#!/bin/sh
# memstack --mode alloc (the allocation rate: bytes and calls allocated
# per stack in each interval, free not probed) against
# tests/workloads/memstack.c, whose named functions allocate known
# amounts: exact byte and call counts per stack without -s and with
# -s 1, estimates within 10 % with -s 64k, for glibc (dynamic) and musl
# (static) builds of the same workload; -v shows free is not probed.
. "$SRCTREE/tests/lib.sh"
need_bpf "memstack --mode alloc integration"
MS=$WORKLOADS/memstack
MUSL=${OUT:+$OUT/musl-x86_64/workloads}
PAGE=$(getconf PAGESIZE)

# ma OUT ARGS...: memstack --mode alloc ARGS, bytes folded to OUT and
# calls to OUT.n (two runs), errors to OUT.err
ma() {
	out=$1
	shift
	"$STACKBOX" memstack --mode alloc -f folded "$@" >"$out" 2>"$out.err"
	"$STACKBOX" memstack --mode alloc -f folded --value alloc_objects "$@" >"$out.n" 2>&1
}
# both NAME OUT PATTERN BYTES CALLS
both() {
	folded_is "$1: bytes" "$2" "$3" "$4"
	folded_is "$1: calls" "$2.n" "$3" "$5"
}

# ---- exact: every call, and -s 1 ----
# -s 1 samples every allocation of 23 bytes or more (the countdown is
# at most 32 x ln 2 = 22.2 bytes) and weighs it as its size: exact.
# Smaller ones (realloc_shrink's 10 bytes) are missed with probability
# e^-10 each, so they are asserted without -s only.
exact() {
	label=$1 w=$2 s=$3
	ma "$T/lk" $s -v -- "$w" leak 2000 100 5000
	both "$label: leak_keep 2000 x 100" "$T/lk" ';leak_keep;malloc ' 200000 2000
	both "$label: churn_free 5000 x 100, freed: allocated all the same" "$T/lk" ';churn_free;malloc ' 500000 5000
	check "$label: -v lists the probes: malloc..." grep -q 'uprobes in .* for pid [0-9]*: malloc calloc realloc' "$T/lk.err"
	check "$label: ... and not free" test -z "$(grep 'uprobes in ' "$T/lk.err" | grep -w free)"

	ma "$T/re" $s -- "$w" realloc 1000
	both "$label: base_alloc 1000 x malloc(100)" "$T/re" ';base_alloc;malloc ' 100000 1000
	both "$label: realloc_grow 1000 x realloc(p, 1000)" "$T/re" ';realloc_grow;realloc ' 1000000 1000
	both "$label: realloc(NULL, 64), once each" "$T/re" ';realloc_null;realloc ' 64000 1000
	both "$label: ... not as a malloc of its own" "$T/re" ';realloc_null;realloc;' 0 0
	if [ -z "$s" ]; then
		both "$label: realloc_shrink 500 x realloc(p, 10)" "$T/re" ';realloc_shrink;realloc ' 5000 500
	fi

	ma "$T/ca" $s -- "$w" calloc 1000 400
	both "$label: calloc_keep 1000 x calloc(4, 100); the overflowing one allocates nothing" "$T/ca" ';calloc_keep;calloc ' 400000 1000
	both "$label: ... musl's calloc's malloc is not a call of its own" "$T/ca" ';calloc_keep;calloc;' 0 0

	ma "$T/al" $s -- "$w" align 100
	both "$label: posix_memalign 100 x 1000" "$T/al" ';posix_keep;posix_memalign ' 100000 100
	both "$label: aligned_alloc 100 x 640" "$T/al" ';aligned_keep;' 64000 100
	both "$label: memalign 100 x 320" "$T/al" ';memalign_keep;memalign ' 32000 100
	both "$label: valloc 100 x 100" "$T/al" ';valloc_keep;valloc ' 10000 100
	both "$label: reallocarray 100 x 10 x 30" "$T/al" ';array_keep;reallocarray ' 30000 100
	if [ "$label" = glibc ]; then
		both "$label: pvalloc 100 x a page" "$T/al" ';pvalloc_keep;pvalloc ' $((100 * PAGE)) 100
	fi
}

exact glibc "$MS"
exact "glibc -s 1" "$MS" "-s 1"
if [ "$(uname -m)" = x86_64 ] && [ -x "$MUSL/memstack" ]; then
	exact musl-static "$MUSL/memstack"
	exact "musl-static -s 1" "$MUSL/memstack" "-s 1"
else
	skip "memstack --mode alloc musl-static" "no x86_64 musl workload (make check builds out/musl-x86_64/workloads)"
fi

# the user mode probes free, so the check above can fail
"$STACKBOX" memstack -v -f folded -- "$MS" leak 10 100 10 >/dev/null 2>"$T/user.err"
check "--mode user, for comparison: -v lists free" grep -q 'uprobes in .* for pid [0-9]*: malloc .*free' "$T/user.err"

# perf event uprobes (kernels before uprobe_multi): the same counts
STACKBOX_ATTACH=uprobe ma "$T/pu" -v -- "$MS" realloc 200
check "perf event uprobes: -v says so" grep -q 'uprobes: a perf event per function' "$T/pu.err"
both "perf event uprobes: realloc_grow 200 x 1000" "$T/pu" ';realloc_grow;realloc ' 200000 200
both "perf event uprobes: realloc(NULL, 64)" "$T/pu" ';realloc_null;realloc ' 12800 200
check "perf event uprobes: free not probed (-v)" test -z "$(grep 'uprobes in ' "$T/pu.err" | grep -w free)"

# ---- counts per interval, not levels ----
# age: old_keep allocates 1000 x 100, naps 1.5 s, then young_keep does;
# snapshots every 300 ms: each allocation is in exactly one of them
# (a level would be shown again at every snapshot)
STACKBOX_BIN_TEE=$T/iv.bin ma "$T/iv" -i 300ms -- "$MS" age 1000 100 1500
snaps=$(sb_report "$T/iv.bin" 2>/dev/null | grep -c '^=== memstack snapshot')
n=$(grep -c ';old_keep;malloc ' "$T/iv")
both "-i 300ms: old_keep's 1000 x 100 over all snapshots" "$T/iv" ';old_keep;malloc ' 100000 1000
both "-i 300ms: young_keep's likewise" "$T/iv" ';young_keep;malloc ' 100000 1000
check "-i 300ms: old_keep in 1 or 2 ($n) of $snaps snapshots (at least 4)" [ "$n" -ge 1 -a "$n" -le 2 -a "$snaps" -ge 4 ]

# ---- sampled: -s 64k ----
# sample 400000 512: sample_keep and sample_churn each allocate 400000 x
# 512 bytes (204.8 MB). An allocation of s bytes is sampled with
# probability p = 1 - e^(-s/64k) = 0.0078, independently (the countdown
# is memoryless), and stands for s/p bytes: about 3112 samples per
# stack, a relative standard deviation of sqrt((1 - p) / (N p)) = 1.8 %,
# so 10 % is 5.6 standard deviations. Calls: each sample counts 128 or
# 129 (1/p = 128.5, rounded up with probability 0.5), the same 1.8 %.
# sampled LABEL WORKLOAD [STACKBOX_ATTACH]
sampled() {
	label=$1 w=$2
	STACKBOX_ATTACH=$3 STACKBOX_BIN_TEE=$T/s.bin "$STACKBOX" memstack --mode alloc -s 64k -v -i 0 -- "$w" sample 400000 512 >"$T/s.text" 2>"$T/s.err"
	sb_report -f folded "$T/s.bin" >"$T/s" 2>&1
	for f in sample_keep sample_churn; do
		# (calls: the text's second value, on the row above the frame)
		set -- "$(folded_sum "$T/s" ";$f;malloc ")" \
			"$(awk -v f="$f" '/ pid [0-9]+/ { v = $3 } $1 == f { print v; exit }' "$T/s.text")"
		check "$label: $f's 204.8 MB estimated within 10 % ($1)" fcmp "$1 >= 0.9 * 204800000 && $1 <= 1.1 * 204800000"
		check "$label: $f's 400000 calls estimated within 10 % ($2)" fcmp "$2 >= 360000 && $2 <= 440000"
	done
	check "$label: the header says values are estimates" grep -q 'estimates: allocations sampled every 64.0 KiB' "$T/s.text"
	check "$label: free is not probed (-v)" test -z "$(grep 'uprobes in ' "$T/s.err" | grep -w free)"
}

sessions=no
uname -r | awk -F. '{ exit !($1 > 6 || ($1 == 6 && $2 >= 13)) }' &&
	[ -r /sys/kernel/btf/vmlinux ] && sessions=yes
if [ $sessions = yes ]; then
	sampled "-s 64k, uprobe sessions" "$MS"
	check "-s 64k, uprobe sessions: -v says so" grep -q -- '-s: uprobe sessions' "$T/s.err"
else
	skip "--mode alloc -s with uprobe sessions" "Linux $(uname -r) < 6.13, or no kernel BTF"
fi
sampled "-s 64k, entry and return probes" "$MS" uprobe_multi
check "-s 64k, entry and return probes: -v says so" grep -q -- '-s: entry and return probes (STACKBOX_ATTACH)' "$T/s.err"
if [ "$(uname -m)" = x86_64 ] && [ -x "$MUSL/memstack" ]; then
	sampled "-s 64k, musl-static" "$MUSL/memstack"
fi

# Allocations near the mean in size: 5000 x 100 KiB per stack, each
# sampled with p = 1 - e^(-100/64) = 0.79 and standing for 1/p = 1.27
# calls (1, or 2 with probability 0.27). Per allocation the calls'
# estimate has a variance of p (1 + 3 x 0.27) - 1 = 0.42: over 5000 a
# relative standard deviation of 0.9 %, and 10 % is 11 of them.
# (Rounded to the nearest, each sample stood for 1 call: 21 % low.)
for mode in alloc user; do
	"$STACKBOX" memstack --mode $mode -s 64k -i 0 -- "$MS" sample 5000 102400 >"$T/big.text" 2>&1
	set -- "$(awk '/ pid [0-9]+/ { v = $3 } $1 == "sample_keep" { print v; exit }' "$T/big.text")"
	check "--mode $mode -s 64k: sample_keep's 5000 calls of 100 KiB estimated within 10 % ($1)" fcmp "$1 >= 4500 && $1 <= 5500"
done

# ---- bad input: one line naming the problem ----
"$STACKBOX" memstack --mode alloc --age 1s -- true >/dev/null 2>"$T/e1"
check "--mode alloc --age is refused" grep -qx "memstack: --age: --mode alloc counts per interval, nothing is held" "$T/e1"
"$STACKBOX" memstack --mode alloc --bad-frees -- true >/dev/null 2>"$T/e2"
check "--mode alloc --bad-frees is refused" grep -q "memstack: --bad-frees: every allocation must be seen" "$T/e2"
"$STACKBOX" memstack --mode alloc --value inuse_space -- true >/dev/null 2>"$T/e3"
check "--mode alloc --value inuse_space is refused" grep -q "memstack: --value inuse_space: not a value of --mode alloc" "$T/e3"
