# Shell side of the test protocol (see tests/unit/check.h): each check
# prints one line, PASS/FAIL/SKIP, and tests/run.sh counts them.
# Sourced by tests/integration/*.sh and tests/board/*.sh, which get
# STACKBOX (the binary), WORKLOADS (built workloads) and TMP from run.sh.

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME CONDITION-COMMAND... : PASS when the command succeeds.
check() {
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# Why root-and-BPF tests cannot run here, or nothing when they can.
bpf_unavailable() {
	[ "$(id -u)" = 0 ] || { echo "needs root"; return; }
	[ -e /sys/kernel/btf/vmlinux ] || [ -d /sys/kernel/tracing ] ||
		[ -d /sys/kernel/debug/tracing ] || { echo "no tracefs/BTF"; return; }
}

# need_bpf NAME: skip the whole test file when root+BPF tests cannot run
# here; else make the scratch directory $T, removed at exit.
need_bpf() {
	why=$(bpf_unavailable)
	if [ -n "$why" ]; then skip "$1" "$why"; exit 0; fi
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
}

# Floating point comparison: fcmp "$a >= 0.6"
fcmp() { awk "BEGIN { exit !($1) }"; }
