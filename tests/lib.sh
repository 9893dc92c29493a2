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

# sb_report ARGS: stackbox report, under ASan and UBSan when make check
# built that binary (tests/unit/sanitize.mk; tests/run.sh exports it and
# the sanitizers' log directory, where it looks for their reports).
sb_report() {
	if [ -n "${SAN_STACKBOX:-}" ]; then
		ASAN_OPTIONS=$SAN_ASAN_OPTIONS UBSAN_OPTIONS=$SAN_UBSAN_OPTIONS \
			"$SAN_STACKBOX" report "$@"
	else
		"$STACKBOX" report "$@"
	fi
}

# folded_sum FILE PATTERN: the values of FILE's folded lines matching
# PATTERN (an awk regular expression), added
folded_sum() { awk -v p="$2" '$0 ~ p { s += $NF } END { print s + 0 }' "$1"; }
# folded_is NAME FILE PATTERN WANT: FILE's folded lines matching PATTERN
# add up to WANT; a failure shows FILE's lines, their roots cut to ..main;
folded_is() {
	_got=$(folded_sum "$2" "$3")
	if [ "$_got" = "$4" ]; then pass "$1 ($_got)"; else
		fail "$1" "got $_got, want $4: $(sed 's/^[^;]*;\(\[[^]]*\];\)\{0,1\}[^;]*;[^;]*;main;/..main;/' "$2" | tr '\n' '|' | cut -c1-600)"
	fi
}

# musl_workload NAME [LABEL]: sets MUSL_W to the x86_64 musl-static build of
# workload NAME (make check builds them under $OUT/musl-x86_64/workloads);
# false when there is none, with a SKIP for LABEL when one is given.
musl_workload() {
	MUSL_W=${OUT:+$OUT/musl-x86_64/workloads/$1}
	[ "$(uname -m)" = x86_64 ] && [ -x "$MUSL_W" ] && return 0
	[ -z "$2" ] || skip "$2" "no x86_64 musl workload $1 (make check builds out/musl-x86_64/workloads)"
	return 1
}

# Floating point comparison: fcmp "$a >= 0.6"
# snapshot_spans NAME...: of stackbox text on stdin, a line per
# snapshot: its length (s), then per NAME the sum of the rows (us of
# time, or samples) that have a frame NAME
snapshot_spans() {
	awk -v names="$*" '
	BEGIN { k = split(names, name, " ") }
	function flush() { if (fn != "") sum[fn] += v; fn = ""; v = 0 }
	function out(  i, line) { flush(); if (!n) return; line = len
		for (i = 1; i <= k; i++) line = line " " (sum[name[i]] + 0)
		print line; delete sum }
	/^=== / { out(); n++; len = $(NF - 1); sub(/\(/, "", len); next }
	/^ +[0-9.]+ (ns|us|ms|s) +[0-9.]+%/ { flush()
		u = $2 == "s" ? 1e6 : $2 == "ms" ? 1e3 : $2 == "us" ? 1 : 1e-3
		v = $1 * u; fn = "-"; next }
	/^ +[0-9]+ +[0-9.]+%/ { flush(); v = $1; fn = "-"; next }
	fn == "-" { for (i = 1; i <= k; i++) if ($1 == name[i]) fn = $1 }
	END { out() }'
}

# head_inside_line FILE OUT: FILE's first half into OUT, cut inside a
# line (a cut that falls on a line's end leaves whole lines, and readers
# rightly say nothing)
head_inside_line() {
	_hl_n=$(($(wc -c <"$1") / 2))
	[ "$(head -c $_hl_n "$1" | tail -c 1 | od -An -c | tr -d ' ')" != '\n' ] || _hl_n=$((_hl_n + 2))
	head -c $_hl_n "$1" >"$2"
}

fcmp() { awk "BEGIN { exit !($1) }"; }

# attached FILE: an applet's -v standard error, in FILE, says it has
# attached: the capabilities it keeps then, or that it could not give
# them up (privs.c), are the last step before it collects. Tests wait
# for this, not a guessed time.
# FILE must be new: a job started with & truncates it only once it
# runs, so a FILE an earlier run wrote says "attached" before this one
# is (remove it first).
attached() { grep -qE 'capabilities (kept )?after attach' "$1" 2>/dev/null; }

# wait_for SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds
# (0) or SECONDS have passed (1). Tests wait for what a process says
# (attached, ready, a file written) rather than sleep a guessed time: the
# wait ends as soon as that happens, so SECONDS can be generous (a BPF
# load takes 0.1 s idle and over 2 s on a loaded 2-CPU machine).
wait_for() {
	_wf_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_wf_end" ] || return 1
		sleep 0.1
	done
}

# board_list: every board tests/boards.sh boots by default, slowest
# first so that those booted together end together: the three kernels on both
# arches with BTF, and 5.10 and 6.1 with it hidden (vendor kernels built
# without pahole are that old).
board_list() {
	echo 5.10-arm64 6.1-arm64 6.12-arm64 5.10-arm64-nobtf 6.1-arm64-nobtf \
		5.10-x86_64 6.1-x86_64 6.12-x86_64 5.10-x86_64-nobtf 6.1-x86_64-nobtf
}

# boards: the boards the checkers look at (BOARDS, else board_list).
boards() { echo ${BOARDS:-$(board_list)}; }

# board_kernel BOARD, board_arch BOARD: "6.1", "arm64" of "6.1-arm64-nobtf"
board_kernel() { echo "${1%%-*}"; }
board_arch() { _r=${1#*-}; echo "${_r%%-*}"; }
# board_nobtf BOARD: true for a board whose kernel BTF is hidden
board_nobtf() { [ "${1%-nobtf}" != "$1" ]; }
# kernel_before BOARD VERSION: the board's kernel is older than VERSION
kernel_before() {
	[ "$(board_kernel "$1")" != "$2" ] &&
		[ "$(printf '%s\n' "$(board_kernel "$1")" "$2" | sort -V | head -n 1)" != "$2" ]
}

# board_section LABEL BOARD NAME: the section NAME of BOARD's guest
# output (tests/boards.sh boots it, tests/board/guest says what runs) in
# the file $res, out/board/BOARD/NAME.out. A board not booted or a
# section left out: SKIP; a failed boot or a section cut short: FAIL.
# Either returns 1.
board_section() {
	_d=$OUT/board/$2
	if [ ! -f "$_d/guest.out" ]; then
		if [ -s "$_d/run.err" ]; then
			fail "$1 boots" "$(tail -n 2 "$_d/run.err" | tr '\n' '|')"
		else
			skip "$1" "board $2 not booted (make board-run)"
		fi
		return 1
	fi
	res=$_d/$3.out
	if grep -q "^@@@ skipped $3 " "$_d/guest.out"; then
		skip "$1" "section $3 left out of board $2's run (BOARD_SKIP)"
		return 1
	fi
	awk -v b="@@@ begin $3" -v e="@@@ end $3 " '
		$0 == b { on = 1; next }
		on && index($0, e) == 1 { exit }
		on' "$_d/guest.out" >"$res"
	if ! grep -q "^@@@ end $3 " "$_d/guest.out"; then
		fail "$1: the guest ran section $3" "$(tail -n 2 "$res" | tr '\n' '|')"
		return 1
	fi
}

# eh_frame_runs LABEL BOARD TAG: true when --unwind eh_frame can run on
# BOARD's kernel: every board's, now. With bpf_loop (5.17+) the walk
# loops with it, before in a bounded loop (5.10's verifier takes it);
# without the kernel's own BTF (a -nobtf board: its applets get --btf)
# the user's registers come from the top of the kernel stack. Only a
# run with no kernel types at all (the nobtf section) cannot, which
# nobtf.sh checks. LABEL, BOARD and TAG are kept for the callers.
eh_frame_runs() {
	return 0
}

# readme_size LABEL BINARY DEFCONFIG [STRIP]: the README's size table
# row whose first cell starts with `LABEL` must give BINARY's stripped
# size (STRIP, default strip) within README_SIZE_TOL percent (2), the
# tolerance the README states: integrators size flash partitions from
# those figures. A FAIL names the README's line. SKIP when BINARY is
# not built, is older than the sources (make readme-sizes rebuilds it),
# or was not configured with configs/DEFCONFIG alone (BINARY's .config).
readme_size() {
	_rs_label=$1 _rs_bin=$2 _rs_def=$3 _rs_strip=${4:-strip}
	_rs_tol=${README_SIZE_TOL:-2}
	_rs_row=$(grep -n "^| \`$_rs_label\`" "$SRCTREE/README.md" | head -n 1)
	_rs_name="README size of $_rs_label"
	if [ -z "$_rs_row" ]; then
		fail "$_rs_name" "README.md has no size row starting with \`$_rs_label\`"
		return
	fi
	_rs_line=${_rs_row%%:*}
	_rs_want=$(echo "${_rs_row#*:}" | awk -F'|' '{ gsub(/[ ,]/, "", $3); print $3 }')
	_rs_name="README.md:$_rs_line: $_rs_label"
	case $_rs_want in
	'' | *[!0-9]*)
		fail "$_rs_name" "no byte count in the row's second cell: ${_rs_row#*:}"
		return ;;
	esac
	if [ ! -f "$_rs_bin" ]; then
		skip "$_rs_name" "$_rs_bin not built (make readme-sizes builds it)"
		return
	fi
	_rs_new=$(find "$SRCTREE/applets" "$SRCTREE/bpf" "$SRCTREE/common" \
		"$SRCTREE/configs" "$SRCTREE/Kconfig" -type f -newer "$_rs_bin" \
		! -name Config.in -print 2>/dev/null | head -n 1)
	if [ -n "$_rs_new" ]; then
		skip "$_rs_name" "$_rs_bin is older than ${_rs_new#"$SRCTREE"/} (make readme-sizes rebuilds it)"
		return
	fi
	_rs_tmp=$(mktemp -d)
	"$SRCTREE/scripts/config.sh" defconfig "$SRCTREE" \
		"$SRCTREE/configs/$_rs_def" "$_rs_tmp/def" >/dev/null 2>&1
	if ! cmp -s "$_rs_tmp/def" "$(dirname "$_rs_bin")/.config"; then
		skip "$_rs_name" "$_rs_bin was not configured with configs/$_rs_def alone"
		rm -rf "$_rs_tmp"
		return
	fi
	"$_rs_strip" -o "$_rs_tmp/bin" "$_rs_bin" 2>/dev/null || cp "$_rs_bin" "$_rs_tmp/bin"
	_rs_got=$(stat -c %s "$_rs_tmp/bin")
	rm -rf "$_rs_tmp"
	_rs_pct=$(awk "BEGIN { printf \"%+.1f\", ($_rs_got - $_rs_want) * 100 / $_rs_want }")
	if fcmp "($_rs_got - $_rs_want) * 100 <= $_rs_tol * $_rs_want &&
		($_rs_want - $_rs_got) * 100 <= $_rs_tol * $_rs_want"; then
		pass "$_rs_name: README $_rs_want B, built $_rs_got B stripped ($_rs_pct %, within $_rs_tol %)"
	else
		fail "$_rs_name" "README says $_rs_want B, the build is $_rs_got B stripped ($_rs_pct %, more than $_rs_tol %): write the new figure there"
	fi
}
