#!/bin/sh
# User stacks that are right (leaf repair): a named function that calls
# libc directly is the caller in the stack, for glibc-dynamic and
# musl-static programs, in every applet that captures user stacks.
# Ground truth: tests/workloads/libcall.c, main -> outer_X -> NAMED -> libc.
. "$SRCTREE/tests/lib.sh"
need_bpf "user stacks integration"

# sum_us FILE PATTERN: folded values of the lines matching PATTERN
sum_us() { awk -v p="$2" '$0 ~ p { s += $NF } END { print s + 0 }' "$1"; }

# A named function may only appear right under its own outer function:
# anything else is a frame made up by the unwinder.
invented() {
	grep -oE '[a-z_]+;(zeta_nap|kappa_read|iota_spin|theta_keep|sigma_write);' "$1" |
		grep -vE '^(outer_nap;zeta_nap|late_writer;zeta_nap|outer_read;kappa_read|outer_spin;iota_spin|outer_alloc;theta_keep|outer_write;sigma_write);$'
}

# blocked LABEL WORKLOAD: offcpu, nanosleep and a pipe read
blocked() {
	"$STACKBOX" offcpu -f folded -- "$2" nap 4 100 >"$T/nap" 2>"$T/err"
	# the named function's time, and any time where libc sits right
	# under outer_X (the caller lost): none
	set -- "$1" "$2" "$(sum_us "$T/nap" 'outer_nap;zeta_nap;')" \
		"$(sum_us "$T/nap" 'outer_nap;(nanosleep|clock_nanosleep|sccp)')"
	check "offcpu $1: zeta_nap is nanosleep's caller ($3 us, want 400 ms; $4 us without it)" \
		fcmp "$3 >= 380000 && $3 <= 425000 && $4 == 0"
	"$STACKBOX" offcpu -f folded -- "$2" read 300 >"$T/read" 2>"$T/err"
	set -- "$1" "$2" "$(sum_us "$T/read" 'outer_read;kappa_read;')" \
		"$(sum_us "$T/read" 'outer_read;(read|__read|sccp)')"
	check "offcpu $1: kappa_read is read's caller ($3 us, want 300 ms; $4 us without it)" \
		fcmp "$3 >= 285000 && $3 <= 320000 && $4 == 0"
	check "offcpu $1: no invented frames" test -z "$(invented "$T/nap")$(invented "$T/read")"
}

# oncpu LABEL WORKLOAD: samples inside memset, called by iota_spin
oncpu() {
	"$STACKBOX" oncpu -F 199 -f folded -- "$2" spin 2 >"$T/spin" 2>"$T/err"
	set -- "$1" "$2" "$(sum_us "$T/spin" 'outer_spin;iota_spin;')" "$(sum_us "$T/spin" 'outer_spin;')"
	check "oncpu $1: iota_spin is memset's caller ($3 of $4 samples)" \
		fcmp "$4 >= 60 && $3 >= 0.9 * $4"
	check "oncpu $1: no invented frames" test -z "$(invented "$T/spin")"
}

blocked glibc "$WORKLOADS/libcall"
oncpu glibc "$WORKLOADS/libcall"
MUSL=${OUT:+$OUT/musl-x86_64/workloads/libcall}
if [ "$(uname -m)" = x86_64 ] && [ -x "$MUSL" ]; then
	blocked musl-static "$MUSL"
	oncpu musl-static "$MUSL"
else
	skip "user stacks musl-static" "no x86_64 musl workload (make check builds out/musl-x86_64/workloads)"
fi

# Without frame pointers the walk cannot know the callers: it must not
# make one up (the leaf stays libc's, no named function appears).
"$STACKBOX" offcpu -f folded -- "$WORKLOADS/libcall-nofp" nap 4 100 >"$T/nofp" 2>"$T/err"
check "offcpu no frame pointers: nothing invented" test -z "$(invented "$T/nofp")"
check "offcpu no frame pointers: zeta_nap not guessed" test -z "$(grep zeta_nap "$T/nofp")"
