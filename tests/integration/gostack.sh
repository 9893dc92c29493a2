#!/bin/sh
# Go stacks through Go's own table (.gopclntab): goburn's goAlpha does
# twice goBeta's work, unstripped and stripped (-ldflags='-s -w'), so
# oncpu must give 2:1 in both, with every frame of the stripped build
# named. report resolves a recording of the stripped build the same way.
# The Go builds come from tests/unit/gopclntab.mk when go exists.
. "$SRCTREE/tests/lib.sh"
need_bpf "Go stacks"
if [ ! -x "$WORKLOADS/goburn-stripped" ]; then
	skip "Go stacks" "no $WORKLOADS/goburn-stripped (go was not found at build time)"
	exit 0
fi

# share FILE: goAlpha samples / (those + goBeta samples), and the total
share() {
	awk '/;main\.goAlpha;/ { a += $NF } /;main\.goBeta;/ { b += $NF }
	     END { if (a + b) printf "%.3f %d\n", a / (a + b), a + b; else print "0 0" }' "$1"
}

# 2:1 is a share of 2/3. -F 499 for 3 s gives 1500 samples, or 300 when
# a loaded machine leaves goburn a fifth of a CPU (>= 200 required); the
# share's standard error is then at most sqrt(2/3 x 1/3 / 300) = 0.027,
# and 0.08 is three of them (a share of 0.587 to 0.747, a ratio of 1.42
# to 2.95). The work is counted in loop iterations, not time, so load
# slows both functions alike and leaves the ratio alone (measured here:
# 1.9 to 2.05:1).
ratio() {
	label=$1 f=$2
	set -- $(share "$f")
	if fcmp "$1 > 0.587 && $1 < 0.747 && $2 >= 200"; then
		pass "$label: goAlpha share $1 of $2 samples is 2/3 +- 0.08 ($(awk "BEGIN { printf \"%.2f\", $1 / (1 - $1) }"):1)"
	else
		fail "$label: goAlpha share" "got $1 of $2 samples, want 0.667 +- 0.08 and >= 200 samples: $(grep main\\. "$f" | head -c 600 | tr '\n' '|')"
	fi
}

for b in goburn goburn-stripped; do
	STACKBOX_BIN_TEE=$T/$b.bin "$STACKBOX" oncpu -F 499 -f folded -- "$WORKLOADS/$b" 3 >"$T/$b" 2>"$T/$b.err"
	ratio "oncpu $b" "$T/$b"
	check "oncpu $b: runtime.main;main.main;main.goAlpha;main.spin" \
		grep -q ';runtime\.main;main\.main;main\.goAlpha;main\.spin ' "$T/$b"
done
# The stripped build's own frames: no raw addresses (a frame that names
# no function is "[goburn-stripped+0x..]"; the [vdso]'s time functions
# are not Go's to name).
raw=$(grep -c '\[goburn-stripped+0x' "$T/goburn-stripped")
check "oncpu goburn-stripped: every frame in it named ($raw lines with raw addresses)" [ "$raw" = 0 ]

sb_report -f folded "$T/goburn-stripped.bin" >"$T/rep" 2>"$T/rep.err"
ratio "report of goburn-stripped's recording" "$T/rep"
check "report of goburn-stripped's recording: names from .gopclntab" \
	grep -q ';main\.main;main\.goBeta;main\.spin ' "$T/rep"
