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

# board_boot LABEL ARCH GUEST [FILE]...: boot Debian's 6.1 kernel for
# ARCH (x86_64, arm64) under qemu with the static musl stackbox and
# workloads (board/qemu/run.sh, whose BOARD_* settings pass through), run
# the shell script GUEST in it as root, and leave its output in $res
# (out/board/ARCH/TEST.out; the console in TEST.console). What the boot
# needs, FILEs too, missing: SKIP. No boot: FAIL. Either returns 1.
# Uses TIMEOUT (seconds for the whole boot) and OUT.
board_boot() {
	_label=$1 _arch=$2 _guest=$3
	shift 3
	case $_arch in
	x86_64) _qemu=qemu-system-x86_64 ;;
	arm64) _qemu=qemu-system-aarch64 ;;
	esac
	_why=
	command -v "$_qemu" >/dev/null || _why="no $_qemu (scripts/setup.sh)"
	for _f in "$OUT/musl-$_arch/stackbox" "$OUT/board/$_arch/vmlinuz" \
			"$OUT/board/$_arch/busybox" "$@"; do
		[ -n "$_why" ] || [ -e "$_f" ] || _why="no $_f (make board-prereqs)"
	done
	if [ -n "$_why" ]; then
		skip "$_label" "$_why"
		return 1
	fi
	res=$OUT/board/$_arch/$(basename "$0" .sh).out
	if BOARD_LOG=${res%.out}.console "${SRCTREE:-$root}/board/qemu/run.sh" \
			"$_arch" "$TIMEOUT" -- "$_guest" >"$res" 2>"$res.err"; then
		return 0
	fi
	fail "$_label boots and runs" "run.sh exited $?: $(tail -n 2 "$res.err" | tr '\n' '|')"
	return 1
}
