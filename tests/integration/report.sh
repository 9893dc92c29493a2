#!/bin/sh
# -f bin and report against real BPF: report prints byte for byte what
# the collector printed in the same run (STACKBOX_BIN_TEE writes the
# stream besides text or folded), filters and slices, resolves stripped
# binaries offline, and a failing sink does not stop collection.
. "$SRCTREE/tests/lib.sh"
need_bpf "report integration"
BURN=$WORKLOADS/burn
BLOCK=$WORKLOADS/block
# burn SECONDS in its own CPU time (burn.c): at 199 Hz about 200 samples
# a second of it however loaded the machine is, where wall-clock seconds
# gave a third of that at load 16 on 2 CPUs
CPU_BURN="1 2 cpu"

# share FILE: burn_two_thirds samples / (those + burn_one_third samples)
share() {
	awk '/burn_two_thirds/ { a += $NF } /burn_one_third/ { b += $NF }
	     END { if (a + b) printf "%.3f %d\n", a / (a + b), a + b; else print "0 0" }' "$1"
}
size() { wc -c <"$1" | tr -d ' '; }
# same NAME A B: identical files, else the first difference
same() {
	if cmp -s "$2" "$3"; then pass "$1"; else
		fail "$1" "$(diff "$2" "$3" | head -14 | tr '\n' '|')"
	fi
}

# 1. round trip, one run: folded and text identical to the collector's
for fmt in folded text; do
	STACKBOX_BIN_TEE=$T/on-$fmt.bin "$STACKBOX" oncpu -F 199 -i 500ms \
		-f $fmt -- "$BURN" 3 $CPU_BURN >"$T/on.$fmt" 2>"$T/on.$fmt.err"
	check "oncpu -f $fmt with the bin tee exits 0" [ $? = 0 ]
	sb_report -f $fmt "$T/on-$fmt.bin" >"$T/on-r.$fmt" 2>"$T/on-r.$fmt.err"
	check "report -f $fmt of oncpu exits 0" [ $? = 0 ]
	same "report -f $fmt is byte for byte oncpu's -f $fmt" "$T/on.$fmt" "$T/on-r.$fmt"
	echo "size oncpu: bin $(size "$T/on-$fmt.bin") bytes, $fmt $(size "$T/on.$fmt") bytes"
done
# the ratio itself is oncpu.sh's to assert; here only that it survives:
# ~600 samples of CPU time, and at 100 the share's standard error is
# 0.047, so > 0.5 is 3.5 of them below 2/3
set -- $(share "$T/on-r.folded")
check "report: burn_two_thirds has most of burn's $2 samples ($1)" \
	fcmp "$1 > 0.5 && $2 >= 100"
# 6 or more at -i 500ms (a wake-up would have to be 500 ms late to skip
# one: collect.c takes a late snapshot, then keeps the schedule)
check "report: several snapshots in the stream" \
	[ "$(grep -c '^=== oncpu snapshot' "$T/on-r.text")" -ge 3 ]
ratio=$(awk -v b="$(size "$T/on-text.bin")" -v t="$(size "$T/on.text")" 'BEGIN { printf "%.3f", b / t }')
check "oncpu: bin is $ratio of text for the same intervals (at most 0.2)" fcmp "$ratio <= 0.2"

STACKBOX_BIN_TEE=$T/off.bin "$STACKBOX" offcpu -w -i 100ms -- "$BLOCK" >"$T/off.text" 2>&1
sb_report "$T/off.bin" >"$T/off-r.text" 2>"$T/off-r.err"
same "report of offcpu -w (states, wakers) is byte for byte offcpu's text" "$T/off.text" "$T/off-r.text"
ratio=$(awk -v b="$(size "$T/off.bin")" -v t="$(size "$T/off.text")" 'BEGIN { printf "%.3f", b / t }')
check "offcpu -w: bin is $ratio of text for the same intervals (at most 0.2)" fcmp "$ratio <= 0.2"
echo "size offcpu -w: bin $(size "$T/off.bin") bytes, text $(size "$T/off.text") bytes"
STACKBOX_BIN_TEE=$T/offf.bin "$STACKBOX" offcpu -f folded -- "$BLOCK" >"$T/off.folded" 2>&1
sb_report -f folded "$T/offf.bin" >"$T/off-r.folded" 2>&1
same "report -f folded of offcpu is byte for byte offcpu's folded" "$T/off.folded" "$T/off-r.folded"

# across key frames (one every 16 snapshots): 30 snapshots, the 3 s of
# burn's wall clock at -i 100ms; 17 needed, each skipped one a wake-up
# 100 ms late
STACKBOX_BIN_TEE=$T/keys.bin "$STACKBOX" oncpu -F 199 -i 100ms -- "$BURN" 3 >"$T/keys.text" 2>&1
sb_report "$T/keys.bin" >"$T/keys-r.text" 2>&1
check "30 snapshots, across key frames: more than 16 in the text" \
	[ "$(grep -c '^=== oncpu snapshot' "$T/keys.text")" -gt 16 ]
same "report across key frames is byte for byte oncpu's text" "$T/keys.text" "$T/keys-r.text"

# leaf repair (libc's direct caller, from the call site's code) and
# --unwind eh_frame go through the same resolver: same text from report
STACKBOX_BIN_TEE=$T/leaf.bin "$STACKBOX" offcpu -i 200ms -- "$WORKLOADS/libcall" nap 4 100 >"$T/leaf.text" 2>&1
sb_report "$T/leaf.bin" >"$T/leaf-r.text" 2>&1
check "leaf repair: zeta_nap, nanosleep's direct caller, is in offcpu's text" grep -q zeta_nap "$T/leaf.text"
same "leaf repair: report is byte for byte offcpu's text" "$T/leaf.text" "$T/leaf-r.text"
if [ -x "$WORKLOADS/libcall-nofp" ]; then
	STACKBOX_BIN_TEE=$T/eh.bin "$STACKBOX" offcpu --unwind eh_frame -i 200ms -- "$WORKLOADS/libcall-nofp" nap 4 100 >"$T/eh.text" 2>&1
	sb_report "$T/eh.bin" >"$T/eh-r.text" 2>&1
	same "--unwind eh_frame: report is byte for byte offcpu's text (its header line too)" "$T/eh.text" "$T/eh-r.text"
fi

# 2. -f bin -o FILE, filters and time slices
"$STACKBOX" oncpu -F 199 -i 500ms -f bin -o "$T/b.bin" -- "$BURN" 3 $CPU_BURN 2>"$T/b.err"
check "oncpu -f bin -o FILE exits 0" [ $? = 0 ]
sb_report -f folded "$T/b.bin" >"$T/b.folded"
set -- $(share "$T/b.folded")
# (as above: ~600 samples of CPU time, > 0.5 is 3.5 standard errors at 100)
check "oncpu -f bin, report: burn_two_thirds has most of $2 samples ($1)" \
	fcmp "$1 > 0.5 && $2 >= 100"
pid=$(awk '/^=== /{ next } / pid [0-9]+/ { for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1); exit } }' "$T/on-r.text")
sb_report -f folded --pid 1 "$T/b.bin" >"$T/pid1" 2>/dev/null
check "report --pid of another process: no rows" test ! -s "$T/pid1"
sb_report -f folded --comm burn "$T/b.bin" >"$T/comm"
check "report --comm burn keeps burn's rows" cmp -s "$T/comm" "$T/b.folded"
sb_report -f folded --comm nosuch "$T/b.bin" >"$T/comm2"
check "report --comm of another name: no rows" test ! -s "$T/comm2"
all=$(grep -c '^=== ' "$T/on-r.text")
sb_report --from +1s "$T/on-text.bin" >"$T/from" 2>&1
sb_report --to +1s "$T/on-text.bin" >"$T/to" 2>&1
nf=$(grep -c '^=== ' "$T/from"); nt=$(grep -c '^=== ' "$T/to")
# (snapshots' own times: burn's 3 s give some on each side of 1 s)
check "report --from +1s and --to +1s split the $all snapshots ($nf, $nt)" \
	[ "$nf" -lt "$all" -a "$nt" -lt "$all" -a $((nf + nt)) -ge "$all" ]
cat "$T/b.bin" "$T/b.bin" | sb_report -f folded - >"$T/twice" 2>&1
check "report reads standard input, streams one after the other" \
	[ "$(awk '{ s += $NF } END { print s }' "$T/twice")" = \
	  "$(awk '{ s += 2 * $NF } END { print s }' "$T/b.folded")" ]

# 3. a stream cut and damaged in the middle still gives its later
# snapshots: 30 of them, a key frame every 16
"$STACKBOX" oncpu -F 199 -i 100ms -f bin -o "$T/long.bin" -- "$BURN" 3 2>/dev/null
len=$(size "$T/long.bin")
{ head -c $((len / 4)) "$T/long.bin"; head -c 777 /dev/urandom; tail -c $((len / 2)) "$T/long.bin"; } >"$T/bad.bin"
sb_report "$T/bad.bin" >"$T/bad.text" 2>"$T/bad.err"
check "report of a damaged stream says what it skipped" grep -q 'skipped [1-9][0-9]* bytes' "$T/bad.err"
check "report of a damaged stream still gives snapshots" grep -q '^=== oncpu snapshot' "$T/bad.text"

# 4. offline symbolisation of a stripped binary: --symfs, --debug-dir
mkdir -p "$T/dev" "$T/sym$T/dev" "$T/dbg"
cp "$BURN" "$T/sym$T/dev/burn"
cp "$BURN" "$T/dev/burn" && strip --strip-all "$T/dev/burn"
"$STACKBOX" oncpu -F 199 -f bin -o "$T/s.bin" -- "$T/dev/burn" 1 2>/dev/null
sb_report -f folded "$T/s.bin" >"$T/s.none"
check "stripped binary: frames are [burn+offset] without symbols" \
	grep -qE '\[burn\+0x[0-9a-f]+\]' "$T/s.none"
sb_report -f folded --symfs "$T/sym" "$T/s.bin" >"$T/s.symfs"
check "report --symfs DIR resolves the stripped binary by path" grep -q 'burn_two_thirds' "$T/s.symfs"
bid=$(readelf -n "$BURN" | sed -n 's/^[[:space:]]*Build ID: *//p')
if [ -n "$bid" ]; then
	mkdir -p "$T/dbg/.build-id/$(echo "$bid" | cut -c1-2)"
	objcopy --only-keep-debug "$BURN" "$T/dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
	sb_report -f folded --debug-dir "$T/dbg" "$T/s.bin" >"$T/s.dbg"
	check "report --debug-dir DIR resolves the stripped binary by build-id" grep -q 'burn_two_thirds' "$T/s.dbg"
	# a file with another build-id at that path is not used
	mkdir -p "$T/wrong$T/dev" && cp "$WORKLOADS/block" "$T/wrong$T/dev/burn"
	sb_report -f folded --symfs "$T/wrong" "$T/s.bin" >"$T/s.wrong" 2>&1
	check "report --symfs: a file whose build-id differs is not used" \
		test -z "$(grep -E 'nap_thread|pipe_thread|lock_thread' "$T/s.wrong")"
else
	skip "report --debug-dir" "the burn workload has no build-id"
fi

# 4b. a recording whose program is not on this machine: one line names
# it, its build-id and what to pass; under a --symfs that holds only the
# program, libc resolves from this machine's copy of the same build
mkdir -p "$T/gone" "$T/root$T/gone"
cp "$BURN" "$T/gone/app"
"$STACKBOX" oncpu -F 199 -f bin -o "$T/gone.bin" -- "$T/gone/app" 1 2>/dev/null
mv "$T/gone/app" "$T/root$T/gone/app"
sb_report -f folded "$T/gone.bin" >"$T/gone.folded" 2>"$T/gone.err"
appbid=$(readelf -n "$T/root$T/gone/app" | sed -n 's/^[[:space:]]*Build ID: *//p')
unnamed=$(grep -o '\[app+0x[0-9a-f]*\]' "$T/gone.folded" | wc -l)
check "report: a missing program's frames counted in one line ($unnamed in folded)" \
	grep -qE "^report: [0-9]+ user frames unnamed: 1 file not found: $T/gone/app \(build-id ${appbid:-x}\); pass --symfs DIR" "$T/gone.err"
check "report: that line is all of standard error" [ "$(wc -l <"$T/gone.err")" = 1 ]
sb_report -f folded --symfs "$T/root" "$T/gone.bin" >"$T/gone.symfs" 2>"$T/gone.symfs.err"
check "report --symfs with the program only: it resolves" grep -q 'burn_two_thirds' "$T/gone.symfs"
check "report --symfs with the program only: libc from this machine's same build" \
	[ "$(grep -c '\[libc\.so' "$T/gone.symfs")" = 0 -a "$(grep -c '__libc_start' "$T/gone.symfs")" -gt 0 ]
check "report --symfs with everything found: nothing on standard error" [ ! -s "$T/gone.symfs.err" ]

# 5. a sink that fails (ENOSPC) does not stop collection; it is counted
"$STACKBOX" oncpu -F 199 -i 100ms -f bin -o /dev/full -- "$BURN" 3 $CPU_BURN >/dev/null 2>"$T/full.err"
rc=$?
check "oncpu -o /dev/full: collection runs to the end of CMD (its status, 0)" [ $rc = 0 ]
check "oncpu -o /dev/full: says the write failed" grep -q 'writing /dev/full' "$T/full.err"
# 3 s or more at -i 100ms: 30 snapshots and the final one; 10 needed. A
# slow snapshot skips intervals (the first reads kernel symbols): 1 s of
# burn at -i 200ms gave 3 of 6 once on a loaded machine.
check "oncpu -o /dev/full: counts the snapshots not written, naming the sink" \
	grep -qE '^oncpu: /dev/full: the last [1-9][0-9]+ snapshots were not written' "$T/full.err"

# 6. a serial line: a pseudo-terminal pair stands in for /dev/ttyS0.
# In cooked mode the tty would turn every 0x0a into 0x0d 0x0a.
# (ptyread copies from the first byte until the collector closes the tty)
"$WORKLOADS/ptyread" "$T/serial.bin" 60 >"$T/pty" &
far=$!
wait_for 30 test -s "$T/pty"
pty=$(cat "$T/pty")
"$STACKBOX" oncpu -F 199 -i 250ms -f bin -o "$pty" --baud 115200 -- "$BURN" 2 $CPU_BURN 2>"$T/serial.err"
check "oncpu -o PTY --baud 115200 exits 0" [ $? = 0 ]
wait $far
sb_report -f folded "$T/serial.bin" >"$T/serial.folded" 2>"$T/serial.rerr"
check "the stream through the tty decodes intact (nothing skipped)" \
	test -s "$T/serial.folded" -a ! -s "$T/serial.rerr"
set -- $(share "$T/serial.folded")
# 2 s of CPU time at 199 Hz is ~400 samples on any load; at 60 the
# share's standard error is 0.061, so > 0.5 is 2.7 of them below 2/3
check "through the tty: burn_two_thirds has most of $2 samples ($1)" \
	fcmp "$1 > 0.5 && $2 >= 60"
"$STACKBOX" oncpu -F 49 -o "$T/tty-check" --baud 9600 -d 100ms >/dev/null 2>"$T/baud.err"
check "--baud on a file that is not a terminal is refused" grep -q 'is not a terminal' "$T/baud.err"

# text on a serial console keeps its line ends readable there: \r\n
"$WORKLOADS/ptyread" "$T/serial-text" 60 >"$T/pty3" &
far=$!
wait_for 30 test -s "$T/pty3"
"$STACKBOX" oncpu -F 99 -o "$(cat "$T/pty3")" -- "$BURN" 1 2>/dev/null
wait $far
check "text to a tty: lines end in CR LF, the rest untouched" \
	sh -c "grep -q \"\$(printf '^=== oncpu snapshot.*\r\$')\" '$T/serial-text'"

# the far end goes away mid-run: collection goes on, losses counted.
# ptyread closes 1 s after the first snapshot arrives, however late the
# BPF load makes that; burn's 3 s leave about 9 snapshots at -i 200ms
# to fail after it.
"$WORKLOADS/ptyread" "$T/serial2.bin" 1 3 >"$T/pty2" &
far=$!
wait_for 30 test -s "$T/pty2"
"$STACKBOX" oncpu -F 199 -i 200ms -f bin -o "$(cat "$T/pty2")" -- "$BURN" 3 2>"$T/pulled.err"
rc=$?
wait $far 2>/dev/null
check "serial far end closed mid-run: the collector runs to the end (status $rc)" [ $rc = 0 ]
check "serial far end closed mid-run: the snapshots not written are counted" \
	grep -qE 'the last [1-9][0-9]* snapshots were not written' "$T/pulled.err"
check "serial far end closed mid-run: what arrived before decodes" \
	sh -c "'$STACKBOX' report -f folded '$T/serial2.bin' | grep -q burn_two_thirds"

# 7. rotation: sizes and counts respected, the newest file decodes alone
mkdir "$T/rot"
# (30 snapshots of 3 s of burn at -i 100ms, a few hundred bytes each)
"$STACKBOX" oncpu -F 199 -i 100ms -f bin -o "$T/rot/r.bin" --rotate 1k,2 -- "$BURN" 3 2>/dev/null
check "--rotate 1k,2: FILE, FILE.1 and FILE.2, no more" \
	[ -f "$T/rot/r.bin" -a -f "$T/rot/r.bin.1" -a -f "$T/rot/r.bin.2" -a ! -e "$T/rot/r.bin.3" ]
# a file over SIZE may only hold one snapshot bigger than SIZE by itself
big=0
for f in $(find "$T/rot" -name 'r.bin*' -size +1024c); do
	[ "$(sb_report "$f" 2>/dev/null | grep -c '^=== ')" = 1 ] || big=$((big + 1))
done
check "--rotate 1k,2: no file is over 1 KiB but for a lone bigger snapshot" [ "$big" = 0 ]
sb_report "$T/rot/r.bin" >"$T/rot.text" 2>"$T/rot.err"
check "--rotate: the newest file decodes on its own, nothing skipped" \
	test -s "$T/rot.text" -a ! -s "$T/rot.err"
# (20 text snapshots of 2 s of burn, 260 bytes each with no sample at
# all: over 4 KiB unless 5 wake-ups come 100 ms late)
"$STACKBOX" oncpu -F 199 -i 100ms -o "$T/rot/t.txt" --rotate 4k,1 -- "$BURN" 2 2>/dev/null
check "--rotate 4k,1 on text: FILE and FILE.1, each under 4 KiB" \
	[ -f "$T/rot/t.txt.1" -a ! -e "$T/rot/t.txt.2" -a "$(wc -c <"$T/rot/t.txt.1")" -le 4096 ]

# 8. pprof: go tool pprof reads it; the hot function first
sb_report -f pprof -o "$T/p.pb.gz" "$T/b.bin"
check "report -f pprof writes gzip" sh -c "head -c 2 '$T/p.pb.gz' | od -An -tx1 | grep -q '1f 8b'"
if command -v go >/dev/null; then
	go tool pprof -top "$T/p.pb.gz" >"$T/top" 2>&1
	first=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top")
	check "go tool pprof -top lists the hot function first ($first)" [ "$first" = spin_until ]
	check "pprof: sample type cpu, build-id of the mapping" \
		sh -c "grep -q '^Type: cpu' '$T/top' && grep -q '^Build ID: [0-9a-f]' '$T/top'"
	cum=$(awk '$NF == "burn_two_thirds" { sub("%", "", $5); print $5 }' "$T/top")
	check "pprof: burn_two_thirds has most of the time (${cum}%)" fcmp "${cum:-0} > 50"
	sb_report -f pprof -o "$T/off.pb.gz" "$T/offf.bin"
	go tool pprof -top "$T/off.pb.gz" >"$T/offtop" 2>&1
	check "pprof of offcpu: sample type blocked (not cpu), in nanoseconds" \
		sh -c "grep -q '^Type: blocked' '$T/offtop' && grep -q 'nap_thread' '$T/offtop'"
	# the first Mapping is what pprof shows as the main binary: one
	# process's, its program; of several, the program with the most
	# samples that is a file. A copy of burn run from a memfd (resolved
	# through --symfs) takes the biggest row, RATIO 8 for 6 s (on into
	# the whole machine's profile) against the real burn's 1 s at
	# RATIO 1, and was the first Mapping before.
	check "pprof of one process: its program is the main binary" grep -q '^File: burn$' "$T/top"
	if command -v python3 >/dev/null; then
		python3 -c 'import os, sys
fd = os.memfd_create("burn", 0)
os.write(fd, open(sys.argv[1], "rb").read())
os.execv("/proc/self/fd/%d" % fd, ["burn"] + sys.argv[2:])' "$BURN" 6 1 8 cpu &
		mf=$!
		"$BURN" 1 1 1 cpu &
		rb=$!
		wait_for 30 grep -q memfd: "/proc/$mf/maps"
		"$STACKBOX" oncpu -F 199 -p $mf,$rb -d 2 -f bin -o "$T/two.bin" 2>/dev/null
		"$STACKBOX" oncpu -F 199 -d 1 -f bin -o "$T/all.bin" 2>/dev/null
		wait $mf $rb
		mkdir -p "$T/mfd" && cp "$BURN" "$T/mfd/memfd:burn"
		sb_report --symfs "$T/mfd" -f folded "$T/two.bin" >"$T/two.folded" 2>/dev/null
		sb_report --symfs "$T/mfd" -f pprof -o "$T/two.pb.gz" "$T/two.bin" 2>/dev/null
		sb_report -f pprof -o "$T/all.pb.gz" "$T/all.bin" 2>/dev/null
		go tool pprof -raw "$T/two.pb.gz" 2>/dev/null | sed -n '/^Mappings/{n;p;q}' >"$T/two.main"
		go tool pprof -raw "$T/all.pb.gz" 2>/dev/null | sed -n '/^Mappings/{n;p;q}' >"$T/all.main"
		set -- $(awk '$1 ~ /burn_two_thirds/ { if (/^burn;/) b += $NF; else m += $NF }
			END { print m + 0, b + 0 }' "$T/two.folded")
		check "pprof of burn and a memfd copy: the copy has the most samples ($1 against $2)" [ "$1" -gt "$2" ]
		check "pprof of burn and a memfd copy: burn is the first Mapping ($(cat "$T/two.main"))" \
			grep -q "^1: 0x[0-9a-f]*/0x[0-9a-f]*/0x[0-9a-f]* $BURN $bid" "$T/two.main"
		# (its path: "1: START/END/OFFSET PATH BUILD-ID [FN]")
		path=$(awk '{ print $3 }' "$T/all.main")
		check "pprof of the whole machine: the first Mapping is a file ($(cat "$T/all.main"))" \
			sh -c "echo '$path' | grep -q '^/' && ! echo '$path' | grep -qE '^/memfd:|\(deleted\)'"
	else
		skip "pprof main binary among several" "no python3 (memfd_create)"
	fi
else
	skip "go tool pprof reads our pprof" "go not installed (Debian golang-go; make setup installs it)"
fi

# 9. SVG flame graphs: well-formed, the hot function with its share
sb_report -f svg -o "$T/f.svg" "$T/b.bin"
if command -v xmllint >/dev/null; then
	check "report -f svg is well-formed XML" xmllint --noout "$T/f.svg"
else
	skip "SVG is well-formed XML" "xmllint not installed (libxml2-utils)"
fi
pct=$(sed -n 's/.*<title>burn_two_thirds ([0-9]* samples, \([0-9.]*\)%).*/\1/p' "$T/f.svg" | head -1)
check "SVG: burn_two_thirds with its share (${pct}%)" fcmp "${pct:-0} > 50 && ${pct:-0} < 85"
check "SVG: search, zoom and tooltips are in the file" \
	sh -c "grep -q 'function search' '$T/f.svg' && grep -q 'function zoom' '$T/f.svg' && grep -q '<title>' '$T/f.svg'"
sb_report -f svg -o "$T/off.svg" "$T/offf.bin"
check "SVG palettes: oncpu warm, offcpu blue" \
	sh -c "grep -q 'fill=\"rgb(2[0-5][0-9],' '$T/f.svg' && grep -q 'nap_thread' '$T/off.svg' && ! grep -q 'fill=\"rgb(2[0-5][0-9],[0-9]*,[0-9])\"' '$T/off.svg'"
"$STACKBOX" oncpu -F 199 -f bin -o "$T/even.bin" -- "$BURN" 3 1 1 2>/dev/null
sb_report -f svg --base "$T/b.bin" -o "$T/diff.svg" "$T/even.bin"
check "differential SVG: titled so, burn_one_third grew against the base" \
	sh -c "grep -q '(differential)' '$T/diff.svg' && grep -qE '<title>burn_one_third \([0-9]+ samples, [0-9.]+%; base [0-9]+, \+[0-9.]+%\)' '$T/diff.svg'"

# 10. --push to Pyroscope's ingest API (0.37's /ingest, also in Grafana
# Pyroscope 1.x): a receiver here checks the request
"$WORKLOADS/httprecv" "$T/h" >"$T/h.port" &
recv=$!
wait_for 30 test -s "$T/h.port"
sb_report --push "http://127.0.0.1:$(cat "$T/h.port")" "$T/b.bin" >/dev/null 2>"$T/push.err"
check "report --push exits 0 on 200" [ $? = 0 ]
wait $recv
line=$(head -1 "$T/h.head")
check "push: POST /ingest with name, from, until, format=pprof, sampleRate" \
	sh -c "echo '$line' | grep -qE '^POST /ingest\?name=stackbox\.oncpu%7Bhost%3D[^&]+%7D&from=[0-9]+&until=[0-9]+&format=pprof&spyName=stackbox&sampleRate=199 HTTP/1.1'"
check "push: multipart/form-data body" grep -qi '^Content-Type: multipart/form-data; boundary=' "$T/h.head"
check "push: the profile part is gzip" sh -c "head -c 2 '$T/h.profile' | od -An -tx1 | grep -q '1f 8b'"
if command -v go >/dev/null; then
	check "push: the profile part is the pprof profile" \
		sh -c "go tool pprof -top '$T/h.profile' 2>&1 | grep -q burn_two_thirds"
fi
"$WORKLOADS/httprecv" "$T/h2" "400 Bad Request" >"$T/h2.port" &
recv=$!
wait_for 30 test -s "$T/h2.port"
sb_report --push "http://127.0.0.1:$(cat "$T/h2.port")" "$T/b.bin" >/dev/null 2>"$T/push2.err"
rc=$?
wait $recv
check "push: a 400 answer is an error that says so" \
	sh -c "[ $rc = 1 ] && grep -q '400 Bad Request' '$T/push2.err'"

# 11. --status kmsg: one-line records in the kernel log
"$STACKBOX" oncpu -F 49 -d 300ms --status kmsg -o /dev/null -- "$BURN" 1 2>/dev/null &
sb=$!
wait $sb
if dmesg >/dev/null 2>&1; then
	# records reach the log buffer a moment later on a busy machine
	kmsg_stopped() {
		dmesg | grep "stackbox oncpu\[$sb\]:" >"$T/kmsg"
		grep -q 'stopped after' "$T/kmsg"
	}
	wait_for 30 kmsg_stopped
	check "--status kmsg: start, sink and stop records" \
		sh -c "grep -q 'writing text to /dev/null' '$T/kmsg' && grep -q 'started' '$T/kmsg' && grep -q 'stopped after [0-9]* snapshots' '$T/kmsg'"
else
	skip "--status kmsg" "dmesg cannot read the kernel log here"
fi
"$STACKBOX" oncpu --status email -d 100ms >/dev/null 2>"$T/status.err"
check "--status of an unknown kind is refused, naming the kinds" grep -q 'kmsg, syslog' "$T/status.err"

# 12. a full disk that frees up again: counted, said, carried in the stream
mkdir "$T/small"
if mount -t tmpfs -o size=256k tmpfs "$T/small" 2>/dev/null; then
	head -c 250k /dev/zero >"$T/small/filler" 2>/dev/null
	head -c 8k /dev/zero >>"$T/small/filler" 2>/dev/null # to the last block
	# freed once the collector has said a write failed (not after a
	# guessed time: a loaded machine's BPF load can outlast it); burn's
	# 3 s leave over 20 snapshots at -i 100ms to find the room
	( wait_for 60 grep -q 'collection goes on' "$T/small.err"
	  rm -f "$T/small/filler" ) &
	"$STACKBOX" oncpu -F 199 -i 100ms -f bin -o "$T/small/s.bin" -- "$BURN" 3 2>"$T/small.err"
	rc=$?
	wait
	check "full tmpfs that frees up: the collector runs to the end (status $rc)" [ $rc = 0 ]
	check "full tmpfs: says when the sink works again, with the count" \
		grep -qE 'works again: [1-9][0-9]* snapshots were not written' "$T/small.err"
	sb_report -f folded "$T/small/s.bin" >"$T/small.folded" 2>"$T/small.rerr"
	check "full tmpfs: report tells how many snapshots the collector could not write" \
		grep -qE 'could not write [1-9][0-9]* snapshots' "$T/small.rerr"
	check "full tmpfs: what was written afterwards decodes" grep -q burn_two_thirds "$T/small.folded"
	umount "$T/small"
else
	skip "sink on a full tmpfs" "cannot mount a tmpfs here"
fi

# 13. a stream without one sample (a process that only sleeps): every
# format still writes a profile (pprof's empty pieces were memcpy(NULL)
# until the sanitized report caught it)
# (it sleeps past the BPF load and -d 1 on any load, and is killed then)
sleep 60 &
"$STACKBOX" oncpu -F 99 -p $! -d 1 -f bin -o "$T/none.bin" 2>/dev/null
kill $! 2>/dev/null
for fmt in text folded pprof svg; do
	sb_report -f $fmt -o "$T/none.$fmt" "$T/none.bin" 2>"$T/none.err"
	check "a stream without samples: report -f $fmt exits 0 ($(head -c 100 "$T/none.err"))" [ $? = 0 ]
done
