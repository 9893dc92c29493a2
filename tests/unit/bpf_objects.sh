#!/bin/sh
# What the kernels below 5.13 and without BTF need of the BPF build,
# checked on the objects themselves, without a board:
#  - the legacy programs (CONFIG_BPF_LEGACY) hold no instruction 5.10's
#    loader refuses anywhere in a program: no atomic fetch, exchange or
#    compare-and-exchange, no callback (a function's address loaded);
#  - both builds of an applet place their global variables at the same
#    offsets: one skeleton, generated from the modern object, opens the
#    legacy one too (a variable in one build only shifted every later
#    .rodata offset, and 5.10 read its limits from the wrong place);
#  - every kernel type and member user space reads from BTF is in
#    bpf/btf-needs.c, so the minimal BTF (CONFIG_BTF_EMBED) has it.
. "$SRCTREE/tests/lib.sh"
BPF_O=${TESTS_O%/tests}/bpf

if ! command -v llvm-objdump >/dev/null; then
	skip "legacy BPF objects" "no llvm-objdump (llvm)"
elif ! ls "$BPF_O"/*.legacy.bpf.o >/dev/null 2>&1; then
	skip "legacy BPF objects" "none built (CONFIG_BPF_LEGACY off)"
else
	# globals: "offset section size name" of each .rodata, .bss, .data
	# symbol
	globals() {
		awk 'NF >= 3 && $(NF-2) ~ /^\.(rodata|bss|data)/ {
			print $1, $(NF-2), $(NF-1), $NF }' | sort -k4
	}
	for o in "$BPF_O"/*.legacy.bpf.o; do
		n=$(basename "$o" .legacy.bpf.o)
		bad=$(llvm-objdump -d "$o" | grep -E 'atomic_fetch|xchg|cmpxchg|= [a-z_]+ ll$|ld_imm64 .*func' | head -n 3)
		check "legacy $n: no atomic fetch, exchange or callback ($bad)" [ -z "$bad" ]
		calls=$(llvm-objdump -d -r "$o" | grep -c 'R_BPF_64_64.*\.text')
		check "legacy $n: no function address loaded ($calls)" [ "$calls" = 0 ]
		llvm-objdump -t "$BPF_O/$n.bpf.o" | globals >"$T/$n.modern"
		llvm-objdump -t "$o" | globals >"$T/$n.legacy"
		check "legacy $n: globals at the modern build's offsets ($(wc -l <"$T/$n.modern") of them)" \
			cmp -s "$T/$n.modern" "$T/$n.legacy"
	done
fi

# Every kbtf_member("TYPE", "MEMBER", ...) and rastack's layout
# table entries {"TYPE", "MEMBER"[, "ALT"]} have NEED(struct TYPE, MEMBER)
# (or the ALT type) in btf-needs.c.
needs=$SRCTREE/bpf/btf-needs.c
{
	grep -ho 'kbtf_member("[a-z_]*", "[a-z_]*"' "$SRCTREE"/applets/*.c "$SRCTREE"/applets/*/*.c "$SRCTREE"/common/*/*.c |
		sed 's/.*("\([a-z_]*\)", "\([a-z_]*\)"/\1 \2/'
	sed -n '/layout_fields\[\] = {/,/^};/p' "$SRCTREE/applets/rastack.c" |
		sed -n 's/^[^{]*{"\([a-z_]*\)", "\([a-z_]*\)"\(, "\([a-z_]*\)"\)\{0,1\}}.*/\1 \2 \4/p'
} | sort -u >"${TMPDIR:-/tmp}/btf-needs.$$"
n=0
while read -r type member alt; do
	n=$((n + 1))
	if grep -q "NEED(struct $type, $member)" "$needs" &&
		{ [ -z "$alt" ] || grep -q "NEED(struct $alt, $member)" "$needs"; }; then
		:
	else
		fail "btf-needs.c lists $type.$member${alt:+ (and $alt.$member)}" "add NEED(struct $type, $member) to bpf/btf-needs.c"
	fi
done <"${TMPDIR:-/tmp}/btf-needs.$$"
rm -f "${TMPDIR:-/tmp}/btf-needs.$$"
check "btf-needs.c lists the $n type members user space reads (> 20)" [ "$n" -gt 20 ]
