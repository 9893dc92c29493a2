#!/bin/sh
# iostack against real BPF: the bytes, calls and errors that
# tests/workloads/io.c's named functions move through each syscall, on
# files, sockets and pipes, exact, on both syscall paths; --kind, --path,
# no BTF; libc's direct caller (libcall); -f bin round trip; --disk on a
# loop device, on both submission paths.
. "$SRCTREE/tests/lib.sh"
need_bpf "iostack integration"
IO=$WORKLOADS/io

# sum FILE AUX PATTERN: folded values of lines "COMM;[AUX];...PATTERN..."
sum() {
	awk -v a=";[$2];" -v p="$3" 'index($0, a) && $0 ~ p { s += $NF }
		END { print s + 0 }' "$1"
}

# exact NAME FILE AUX PATTERN WANT
exact() {
	got=$(sum "$2" "$3" "$4")
	if [ "$got" = "$5" ]; then
		pass "$1: $got (want $5)"
	else
		fail "$1" "got $got, want $5: $(grep -F "[$3]" "$2" | grep -E "$4" | tr '\n' '|')"
	fi
}

grep -v "^#" "$SRCTREE/tests/workloads/io.want" >"$T/want"

# errors FILE FUNCTION: "calls errors" of the text rows whose stack has
# FUNCTION ("VALUE UNIT calls errors share comm pid ...", frames below)
errors() {
	awk -v f="$2" '/ pid [0-9]+ / { c = $3; e = $4; next }
		$1 == f { cs += c; es += e; c = e = 0 }
		END { print cs + 0, es + 0 }' "$1"
}

# 1. every syscall, on each path: bytes and calls exact
for p in raw_tp tracepoint; do
	STACKBOX_ATTACH=$p "$STACKBOX" iostack -v -f folded -- "$IO" all "$T" >"$T/$p.bytes" 2>"$T/$p.err"
	check "iostack $p: exits 0" [ $? = 0 ]
	check "iostack $p: used $p" grep -q "syscall exit: attached with $p\$" "$T/$p.err"
	STACKBOX_ATTACH=$p "$STACKBOX" iostack --value calls -f folded -- "$IO" all "$T" >"$T/$p.calls" 2>&1
	while read -r aux pat bytes calls; do
		aux=$(echo "$aux" | tr - ' ')
		what="iostack $p: [$aux] $pat"
		[ "$bytes" = 0 ] || exact "$what bytes" "$T/$p.bytes" "$aux" "$pat" "$bytes"
		[ "$calls" = - ] || exact "$what calls" "$T/$p.calls" "$aux" "$pat" "$calls"
	done <"$T/want"
	check "iostack $p: the socket reads took calls" fcmp "$(sum "$T/$p.calls" 'read socket' ';sock_receiver;') >= 5"
	# a failed call moves nothing and counts one error
	STACKBOX_ATTACH=$p "$STACKBOX" iostack -f text -- "$IO" badfd >"$T/$p.bad" 2>&1
	set -- $(errors "$T/$p.bad" bad_writer)
	check "iostack $p: write(-1) x 3: 3 calls, 3 errors ($1, $2)" [ "$1 $2" = "3 3" ]
	check "iostack $p: write(-1) moved 0 bytes" grep -qE '^ +0 B +3 +3 .* write other' "$T/$p.bad"
done
check "iostack: no kernel stacks in syscall mode" test -z "$(grep ';-;' "$T/raw_tp.bytes")"
check "iostack: the header names the path and the kinds" \
	grep -q '^value: bytes I/O syscalls moved (their return value) per user stack at syscall exit (raw_tp); descriptor kinds: file, socket, pipe, other$' "$T/raw_tp.bad"

# 2. --unwind eh_frame: the same bytes under the whole chain
"$STACKBOX" iostack --unwind eh_frame -f folded -- "$IO" files "$T" >"$T/eh" 2>&1
exact "iostack eh_frame: _start..main;run_files2;run_files;file_writer;write" "$T/eh" "write file" '^io;\[write file\];_start;__libc_start_main;__libc_start_call_main;main;run_files2;run_files;file_writer;write ' 32768
exact "iostack eh_frame: vec_preader's preadv and preadv2" "$T/eh" "read file" ';main;run_files2;run_files;vec_preader;(preadv|syscall) ' 5600

# 3. filters
"$STACKBOX" iostack --kind socket,pipe -f folded -- "$IO" all "$T" >"$T/kind" 2>&1
check "iostack --kind socket,pipe: no file or other rows" test -z "$(grep -E '^io;\[(read|write) (file|other)\]' "$T/kind")"
exact "iostack --kind socket,pipe: sock_sender kept" "$T/kind" "write socket" ';sock_sender;' 19000
exact "iostack --kind socket,pipe: pipe_reader kept" "$T/kind" "read pipe" ';pipe_reader;' 3072
exact "iostack --kind socket,pipe: sendfile's socket side kept" "$T/kind" "write socket" ';sendfile_copy;' 20000
mkdir -p "$T/in/deep/er" "$T/out"
"$STACKBOX" iostack --path "$T/in" -f folded -- "$IO" files "$T/in/deep/er" "$T/out" >"$T/path" 2>&1
exact "iostack --path: file_writer under PREFIX (2 dirs down), once" "$T/path" "write file" ';file_writer;' 32768
exact "iostack --path: file_reader under PREFIX, once" "$T/path" "read file" ';file_reader;' 32768
check "iostack --path: only files" test -z "$(grep -vE '^io;\[(read|write) file\]' "$T/path")"
"$STACKBOX" iostack --kind disk 2>"$T/e1"
check "iostack --kind disk: one clear error" grep -qx 'iostack: --kind disk: not a list of kinds (file,socket,pipe,other)' "$T/e1"
"$STACKBOX" iostack --value latency 2>"$T/e2"
check "iostack --value latency without --disk: one clear error" grep -qx 'iostack: --value latency: only with --disk' "$T/e2"
"$STACKBOX" iostack -K 2>"$T/e3"
check "iostack -K: says why not" grep -q '^iostack: -K: syscalls are counted at their exit' "$T/e3"
"$STACKBOX" iostack --path /nonexistent 2>"$T/e4"
check "iostack --path /nonexistent: one clear error" grep -qx 'iostack: --path /nonexistent: No such file or directory' "$T/e4"

# 4. no kernel BTF: no kinds, said in the header; --kind refused
: >"$T/empty"
unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	exec '$STACKBOX' iostack -f text -- '$IO' pipe" >"$T/nobtf" 2>"$T/nobtf.err"
check "iostack without BTF: exits 0" [ $? = 0 ]
check "iostack without BTF: the header says the split is unavailable" \
	grep -q 'descriptor kinds: unavailable (no kernel BTF)$' "$T/nobtf"
check "iostack without BTF: one line says what is missing and how to give it" \
	grep -qx 'iostack: no kernel BTF (CONFIG_DEBUG_INFO_BTF, or --btf FILE): bytes are counted without descriptor kinds' "$T/nobtf.err"
check "iostack without BTF: rows are split by direction only" \
	grep -qE '^ +3.0 KiB +6 +0 .* pid [0-9]+ write cgroup' "$T/nobtf"
unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	exec '$STACKBOX' iostack --kind file -- '$IO' pipe" >/dev/null 2>"$T/nobtf.kind"
check "iostack --kind without BTF: one clear error" \
	grep -qx 'iostack: --kind: telling descriptor kinds needs kernel BTF, which this kernel lacks (CONFIG_DEBUG_INFO_BTF, or --btf FILE)' "$T/nobtf.kind"

# 5. libc's direct caller (leaf repair), glibc and static musl (whose
# leaf is its syscall cancellation point, sccp, under its caller when
# the default walks the static program's tables); the whole chain with
# eh_frame through code without frame pointers
libcall() { # LABEL WORKLOAD
	"$STACKBOX" iostack -f folded -- "$2" write 50 1000 >"$T/lw" 2>&1
	set -- "$1" "$2" "$(sum "$T/lw" 'write other' 'outer_write;sigma_write;(write;sccp|write|sccp) ')" \
		"$(sum "$T/lw" 'write other' 'outer_write;(write|__write|__libc_write|sccp) ')"
	check "iostack $1: outer_write;sigma_write;write moved 50 x 1000 bytes ($3; $4 without sigma_write)" \
		[ "$3 $4" = "50000 0" ]
	"$STACKBOX" iostack -f folded -- "$2" read 100 >"$T/lr" 2>&1
	set -- "$1" "$2" "$(sum "$T/lr" 'read pipe' 'outer_read;kappa_read;(read;sccp|read|sccp) ')"
	check "iostack $1: outer_read;kappa_read;read read the pipe's byte ($3)" [ "$3" = 1 ]
}
libcall glibc "$WORKLOADS/libcall"
if musl_workload libcall "iostack musl-static"; then
	libcall musl-static "$MUSL_W"
fi
"$STACKBOX" iostack --unwind eh_frame -f folded -- "$WORKLOADS/libcall-nofp" write 50 1000 >"$T/ehw" 2>&1
exact "iostack eh_frame, no frame pointers: main;outer_write;sigma_write;write" "$T/ehw" 'write other' ';main;outer_write;sigma_write;write' 50000

# 6. -f bin round trip (issue 7): report prints what the collector did
for fmt in folded text; do
	STACKBOX_BIN_TEE=$T/rt-$fmt.bin "$STACKBOX" iostack -i 100ms -f $fmt -- "$IO" all "$T" >"$T/rt.$fmt" 2>&1
	sb_report -f $fmt "$T/rt-$fmt.bin" >"$T/rt-r.$fmt" 2>"$T/rt-r.err"
	if cmp -s "$T/rt.$fmt" "$T/rt-r.$fmt"; then
		pass "iostack: report -f $fmt is byte for byte iostack's"
	else
		fail "iostack: report -f $fmt is byte for byte iostack's" "$(diff "$T/rt.$fmt" "$T/rt-r.$fmt" | head -4 | tr '\n' '|')"
	fi
	echo "size iostack -f $fmt: bin $(wc -c <"$T/rt-$fmt.bin") bytes, $fmt $(wc -c <"$T/rt.$fmt") bytes"
done
ratio=$(awk -v b="$(wc -c <"$T/rt-text.bin")" -v t="$(wc -c <"$T/rt.text")" 'BEGIN { printf "%.3f", b / t }')
check "iostack: bin is $ratio of text for the same snapshots (at most 0.2)" fcmp "$ratio <= 0.2"

# 7. --disk on a loop device: O_DIRECT writes and reads of a known size,
# and buffered writes made by fsync(), under the stacks that submitted
# them, on both submission paths
why=
for c in losetup mkfs.ext4 mount; do
	command -v $c >/dev/null || why="no $c (util-linux, e2fsprogs)"
done
[ -n "$why" ] || [ -e /dev/loop-control ] || why="no /dev/loop-control (loop driver)"
LOOP=
if [ -z "$why" ]; then
	truncate -s 64M "$T/disk.img" &&
		LOOP=$(losetup --show -f "$T/disk.img" 2>"$T/losetup.err") ||
		why="losetup: $(cat "$T/losetup.err")"
fi
if [ -n "$LOOP" ]; then
	trap 'umount "$T/mnt" 2>/dev/null; losetup -d "$LOOP"; rm -rf "$T"' EXIT
	mkfs.ext4 -q -F "$LOOP" >/dev/null 2>&1 && mkdir "$T/mnt" &&
		mount "$LOOP" "$T/mnt" || why="cannot make or mount ext4 on $LOOP"
fi
if [ -z "$why" ]; then
	dev=${LOOP#/dev/}
	for p in io_start bio_queue; do
		STACKBOX_ATTACH=$p "$STACKBOX" iostack --disk -v -f folded -- "$IO" direct "$T/mnt/d.$p" 16 65536 >"$T/d.$p" 2>"$T/d.$p.err"
		check "iostack --disk $p: exits 0" [ $? = 0 ]
		check "iostack --disk $p: used $p" grep -q "block submit: attached with $p\$" "$T/d.$p.err"
		exact "iostack --disk $p: O_DIRECT 16 x 64 KiB written by direct_writer" "$T/d.$p" "write $dev" ';direct_writer;pwrite;-;' 1048576
		exact "iostack --disk $p: and read back by direct_reader" "$T/d.$p" "read $dev" ';direct_reader;pread;-;' 1048576
		STACKBOX_ATTACH=$p "$STACKBOX" iostack --disk --value latency -f folded -- "$IO" direct "$T/mnt/l.$p" 4 65536 >"$T/dl.$p" 2>&1
		check "iostack --disk $p --value latency: direct_writer's requests took time" \
			fcmp "$(sum "$T/dl.$p" "write $dev" ';direct_writer;') > 0"
		STACKBOX_ATTACH=$p "$STACKBOX" iostack --disk -f folded -- "$IO" fsync "$T/mnt/f.$p" 64 4096 >"$T/df.$p" 2>&1
		exact "iostack --disk $p: 64 x 4 KiB buffered, written by fsync_caller's fsync" "$T/df.$p" "write $dev" ';fsync_caller;fsync;-;' 262144
		check "iostack --disk $p: buffered_writer submitted nothing" test -z "$(grep buffered_writer "$T/df.$p")"
	done
	# writeback: the writer submits nothing, the flusher all of it
	# (the writes start once it says it is attached: the load takes 0.1 s
	# idle, seconds on a loaded machine)
	"$STACKBOX" iostack --disk -v -f folded -o "$T/wb" 2>"$T/wb.err" &
	pid=$!
	wait_for 60 attached "$T/wb.err"
	"$IO" buffered "$T/mnt/wb" 64 4096 && sync
	kill -INT $pid
	wait $pid
	check "iostack --disk: writeback is not the writer's" test -z "$(grep "^io;.*write $dev" "$T/wb")"
	check "iostack --disk: the flusher wrote at least the 256 KiB ($(sum "$T/wb" "write $dev" ';wb_workfn;'))" \
		fcmp "$(sum "$T/wb" "write $dev" ';wb_workfn;') >= 262144"
	STACKBOX_ATTACH=io_start "$STACKBOX" iostack --disk -i 0 -- "$IO" direct "$T/mnt/t" 16 65536 >"$T/d.text" 2>&1
	check "iostack --disk text: 16 requests of direct_writer's" grep -qE "^ +1.0 MiB +16 +0 +[0-9.]+ [mu]?s .* write $dev" "$T/d.text"
	check "iostack --disk: the header says where writeback goes" grep -q 'writeback is counted under the flusher thread, not the writer' "$T/d.text"
else
	skip "iostack --disk" "$why"
fi
