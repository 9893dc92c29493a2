#!/bin/sh
# rastack against real BPF (raw tracepoint path, and the classic
# tracepoints' for --value total): per named function of
# tests/workloads/ra.c, the pages read ahead against the pages it read
# from storage, the used ratio of a sequential reader and of short runs
# at random offsets, mmap faults, nothing from writes or from faults
# without readahead; used + unused = read ahead in every row; bounded
# maps say what they could not track; report's round trip; user stacks.
. "$SRCTREE/tests/lib.sh"
need_bpf "rastack integration"
RA=$WORKLOADS/ra

# Readahead needs a file system on a block device (tmpfs has none); the
# files are the workload's own, dropped with POSIX_FADV_DONTNEED.
D=
for base in "$T" /var/tmp "$SRCTREE"; do
	case $(stat -f -c %T "$base" 2>/dev/null) in
	tmpfs | ramfs | overlayfs | "") continue ;;
	esac
	D=$(mktemp -d "$base/rastack.XXXXXX") && break
done
if [ -z "$D" ]; then
	skip "rastack integration" "no block-backed file system for the test files"
	exit 0
fi
trap 'rm -rf "$T" "$D"' EXIT
WORK="seq $D 16 rand $D 32 24 map $D 8 write $D 4 randmap $D 8"
RUNS=24 # rand: short runs, 4 x 16 KiB each: 16 pages used per run

# rows TEXT: one line per row, "TOTAL USED UNUSED FUNC..." with the named
# functions (alpha_seq, ...) found in its stack
rows() {
	awk 'function flush() { if (have) print t, u, n, (f == "" ? "-" : f); have = 0 }
	     /^ +[0-9]+ +[0-9]+ +[0-9]+ +([0-9.]+%|-) +[0-9.]+% / {
		flush(); t = $1; u = $2; n = $3; f = ""; have = 1; next }
	     /^=== / { flush() }
	     have && $1 ~ /^(alpha_seq|beta_rand|gamma_map|delta_write|epsilon_fault|zeta_fill)$/ { f = f $1 }
	     END { flush() }' "$1"
}
# sum ROWS FUNC COLUMN: COLUMN (1 total, 2 used, 3 unused) of FUNC's rows
sum() { awk -v f="$2" -v c="$3" '$4 == f { s += $c } END { print s + 0 }' "$1"; }
# read_pages ERR MODE: the pages MODE read from storage (the workload's)
read_pages() { sed -n "s/^$2 resident [0-9]* read \([0-9]*\)\$/\1/p" "$1"; }
# near GOT WANT: GOT is WANT within 1% + 8 pages (file system metadata)
near() { fcmp "$1 >= $2 * 0.99 - 8 && $1 <= $2 * 1.01 + 8"; }
same() {
	if cmp -s "$2" "$3"; then pass "$1"; else
		fail "$1" "$(diff "$2" "$3" | head -6 | tr '\n' '|')"
	fi
}
size() { wc -c <"$1" | tr -d ' '; }

# 1. one run: folded (unused pages), with the same snapshots as bin
STACKBOX_BIN_TEE=$T/ra.bin "$STACKBOX" rastack -v -i 0 -f folded -- "$RA" $WORK \
	>"$T/folded" 2>"$T/err"
check "rastack exits 0" [ $? = 0 ]
check "rastack: every hook on the raw tracepoint path" \
	[ "$(grep -c ': attached with raw_tp$' "$T/err")" = 8 ]
sb_report -f folded "$T/ra.bin" >"$T/folded-r" 2>"$T/report.err"
same "report -f folded is byte for byte rastack's folded" "$T/folded" "$T/folded-r"
sb_report "$T/ra.bin" >"$T/text" 2>>"$T/report.err"
rows "$T/text" >"$T/rows"

# ground truth: what each phase read from storage
for m in seq rand map randmap; do
	eval "want_$m=\$(read_pages "$T/err" $m)"
done
set -- $(sum "$T/rows" alpha_seq 1) $(sum "$T/rows" alpha_seq 2)
if near "$1" "$want_seq"; then
	pass "alpha_seq read ahead $1 pages, its read() read $want_seq"
else
	fail "alpha_seq read ahead" "$1 pages, its read() read $want_seq"
fi
check "alpha_seq (sequential read): used ratio $2/$1 >= 0.95" fcmp "$1 > 0 && $2 >= 0.95 * $1"

set -- $(sum "$T/rows" beta_rand 1) $(sum "$T/rows" beta_rand 2)
if near "$1" "$want_rand"; then
	pass "beta_rand read ahead $1 pages, its preads read $want_rand"
else
	fail "beta_rand read ahead" "$1 pages, its preads read $want_rand"
fi
check "beta_rand (short runs at random offsets): used ratio $2/$1 <= 0.40" \
	fcmp "$1 > 0 && $2 <= 0.40 * $1"
check "beta_rand: used $2 pages, the $((RUNS * 16)) its preads asked for" \
	fcmp "$2 >= $RUNS * 16 && $2 <= $RUNS * 16 + 8"

set -- $(sum "$T/rows" gamma_map 1) $(sum "$T/rows" gamma_map 2)
if near "$1" "$want_map"; then
	pass "gamma_map read ahead $1 pages, its faults read $want_map"
else
	fail "gamma_map read ahead" "$1 pages, its faults read $want_map"
fi
check "gamma_map (mmap touched front to back): used ratio $2/$1 >= 0.95" \
	fcmp "$1 > 0 && $2 >= 0.95 * $1"

check "delta_write: a plain write is not readahead (no row)" \
	[ "$(sum "$T/rows" delta_write 1)" = 0 ]
check "zeta_fill: writing the test files is not readahead (no row)" \
	[ "$(sum "$T/rows" zeta_fill 1)" = 0 ]
check "epsilon_fault: $want_randmap pages faulted in without readahead (MADV_RANDOM), none counted" \
	[ "$(sum "$T/rows" epsilon_fault 1)" = 0 ]

bad=$(awk '$2 + $3 != $1 || $1 == 0' "$T/rows" | head -3 | tr '\n' '|')
check "every row: used + unused = read ahead, and none is zero ($(wc -l <"$T/rows") rows)" \
	[ -z "$bad" ]
set -- $(sed -n 's/^total: \([0-9]*\) read ahead, \([0-9]*\) used, \([0-9]*\) unused,.*/\1 \2 \3/p' "$T/text" | head -1)
check "the totals add up too ($2 + $3 = $1)" [ "$(($2 + $3))" = "$1" ]
set -- "$(awk '$1 ~ /^ra;/ && /beta_rand/ { s += $NF } END { print s + 0 }' "$T/folded")" \
	"$(sum "$T/rows" beta_rand 3)"
check "folded shows unused pages by default (beta_rand $1 = text's $2)" [ "$1" = "$2" ]
check "kernel stacks end at the page cache add, not in our programs" \
	sh -c "grep -q ';filemap_add_folio;__filemap_add_folio [0-9]*\$' '$T/folded' &&
		! grep -q ';bpf_' '$T/folded'"

# 2. text with the bin tee, several snapshots: report prints the same
# text, and the stream is smaller
STACKBOX_BIN_TEE=$T/text.bin "$STACKBOX" rastack -i 50ms -- "$RA" $WORK \
	>"$T/text2" 2>"$T/err2"
sb_report "$T/text.bin" >"$T/text2-r" 2>"$T/report2.err"
same "report of rastack (text, -i 50ms) is byte for byte rastack's text" "$T/text2" "$T/text2-r"
# the share column is of unused pages, the metric rows are sorted by,
# and says so; it sums to 100 % over a snapshot's rows
check "rastack text: the share column is named %unused" \
	grep -q ' %unused  process$' "$T/text2"
sum=$(awk '/^=== rastack/ { s = 0 } /^ +[0-9].*%  [^ ].* pid [0-9]/ {
	for (i = 1; i <= NF; i++) if ($i ~ /%$/) v = $i; s += v }
	END { printf "%.0f", s }' "$T/text2")
check "rastack text: the last snapshot's shares sum to 100 % ($sum)" [ "$sum" = 100 ]
# report of the text (the text parser): the same text, share named
sb_report "$T/text2" 2>/dev/null | sed 's/ ([0-9.]* s)$//' >"$T/text2-t"
check "report of rastack's text is that text (the span aside)" \
	sh -c "sed 's/ ([0-9.]* s)\$//' '$T/text2' | cmp -s - '$T/text2-t'"
# (ra's reads from storage take far more than 50 ms, and a loaded
# machine only makes them longer)
check "rastack -i 50ms: several snapshots ($(grep -c '^=== rastack' "$T/text2"))" \
	[ "$(grep -c '^=== rastack' "$T/text2")" -ge 2 ]
ratio=$(awk -v b="$(size "$T/text.bin")" -v t="$(size "$T/text2")" 'BEGIN { printf "%.3f", b / t }')
echo "size rastack -i 50ms: bin $(size "$T/text.bin") bytes, text $(size "$T/text2") bytes: $ratio"
check "rastack: bin is $ratio of text for the same snapshots (at most 0.2)" fcmp "$ratio <= 0.2"
# values are state: a later snapshot never shows fewer pages read ahead
bad=$(awk '/^total:/ { if ($2 < last) print last " then " $2; last = $2 }' "$T/text2")
check "rastack -i 50ms: totals only grow (cumulative)" [ -z "$bad" ]

# 3. --value used and total; total on the classic tracepoints (kernels
# without BTF take them): the same events, read from their records
STACKBOX_ATTACH=tracepoint "$STACKBOX" rastack -v -i 0 -f folded --value total -- \
	"$RA" seq "$D" 16 >"$T/total" 2>"$T/err3"
check "rastack: every hook on the classic tracepoint path (STACKBOX_ATTACH=tracepoint)" \
	[ "$(grep -c ': attached with tracepoint$' "$T/err3")" = 8 ]
set -- "$(awk '/alpha_seq/ { s += $NF } END { print s + 0 }' "$T/total")" "$(read_pages "$T/err3" seq)"
check "--value total (tracepoint): alpha_seq's folded value $1 is what it read ($2)" near "$1" "$2"
"$STACKBOX" rastack -i 0 -f folded --value used -- "$RA" rand "$D" 32 "$RUNS" >"$T/used" 2>&1
set -- "$(awk '/beta_rand/ { s += $NF } END { print s + 0 }' "$T/used")"
check "--value used: beta_rand's folded value $1 is the $((RUNS * 16)) pages it asked for" \
	fcmp "$1 >= $RUNS * 16 && $1 <= $RUNS * 16 + 8"
"$STACKBOX" rastack --value some 2>"$T/e1"
check "--value some: one clear error" \
	grep -qx 'rastack: --value some: not a value (used, unused, total)' "$T/e1"

# 4. bounded maps: what does not fit is counted, never lost silently
lost() { # FILE TEXT: the snapshot's count for "TEXT"
	sed -n "s/^lost: \(.*, \)\{0,1\}\([0-9]*\) pages not tracked ($2.*/\2/p" "$1" | awk '{ s += $1 } END { print s + 0 }'
}
"$STACKBOX" rastack -i 0 --pages 256 -- "$RA" seq "$D" 16 >"$T/small" 2>"$T/err4"
set -- "$(awk '/^total:/ { print $2; exit }' "$T/small")" "$(lost "$T/small" 'page map full')" \
	"$(read_pages "$T/err4" seq)"
check "--pages 256: $1 pages tracked (at most 256)" fcmp "$1 > 0 && $1 <= 256"
check "--pages 256: tracked $1 + not tracked $2 = read $3" near "$(($1 + $2))" "$3"
"$STACKBOX" rastack -i 0 --rows 1 -- "$RA" seq "$D" 16 >"$T/rows1" 2>"$T/err5"
set -- "$(awk '/^total:/ { print $2; exit }' "$T/rows1")" "$(lost "$T/rows1" 'stack map full')" \
	"$(read_pages "$T/err5" seq)"
check "--rows 1: one stack tracked ($1 pages), the others counted ($2 pages)" \
	fcmp "$1 > 0 && $2 > 0"
check "--rows 1: tracked $1 + not tracked $2 = read $3" near "$(($1 + $2))" "$3"

# 5. user stacks: the named function that calls read()/pread() is
# directly under its outer function (leaf repair), glibc and musl
leaf() { # LABEL FOLDED
	check "rastack $1: outer_seq;alpha_seq;read..." grep -qE ';outer_seq;alpha_seq;[^;]*(read|sccp|syscall)' "$2"
	check "rastack $1: outer_rand;beta_rand;pread..." grep -qE ';outer_rand;beta_rand;[^;]*(pread|sccp|syscall)' "$2"
	check "rastack $1: outer_map;gamma_map (touches the mapping)" grep -qE ';outer_map;gamma_map;-;' "$2"
	check "rastack $1: no libc frame right under outer_X" \
		sh -c "! grep -qE ';outer_(seq|rand|map);[^;]*(read|sccp|syscall)' '$2'"
}
"$STACKBOX" rastack -i 0 -f folded --value total -- "$RA" seq "$D" 4 rand "$D" 8 4 map "$D" 4 >"$T/glibc" 2>&1
leaf glibc "$T/glibc"
if musl_workload ra "rastack musl-static"; then
	"$STACKBOX" rastack -i 0 -f folded --value total -- "$MUSL_W" seq "$D" 4 rand "$D" 8 4 map "$D" 4 >"$T/musl" 2>&1
	leaf musl-static "$T/musl"
fi
"$STACKBOX" rastack -i 0 -f folded --value total --unwind eh_frame -- "$RA" seq "$D" 4 >"$T/eh" 2>&1
check "rastack --unwind eh_frame: main;outer_seq;alpha_seq;read" grep -qE ';main;outer_seq;alpha_seq;[^;]*read' "$T/eh"

# 6. nothing left behind
# (another helper's rastack, a benchmark, would look like ours)
if ! command -v bpftool >/dev/null; then
	skip "no rastack program left loaded" "no bpftool"
elif pgrep -f 'stackbox rastack' >/dev/null; then
	skip "no rastack program left loaded" "another stackbox rastack is running"
else
	# (the kernel frees a raw_tp program after an RCU tasks-trace grace
	# period that follows its link's release: seconds on a busy machine)
	check "no rastack program left loaded" \
		wait_for 10 sh -c "! bpftool prog show | grep -q ' name ra_'"
fi
