#!/bin/sh
# Names of programs built and stripped as images ship them
# (tests/workloads/image: chain, -O2 without frame pointers, glibc
# dynamic and musl static):
# - on the device, from .gnu_debugdata (MiniDebugInfo, as Yocto's
#   minidebuginfo feature adds it): oncpu and offcpu name the whole
#   chain main > run > stage > work > spin, in the workload's shares
#   (CPU 5:3, blocked 2:1), and the bare stripped copy names none of it;
# - on the host, for the bare stripped copy: report of its bin stream
#   gets the same names from Debian's debuginfod serving the debug file
#   (started here on 127.0.0.1, stopped after), also with the binary
#   gone from this PC (then the server gives it too), then from
#   debuginfod's cache with the server gone.
# Stacks are walked with --unwind eh_frame: -O2 code has no frame
# pointers (names, not the walk, are what is tested here).
. "$SRCTREE/tests/lib.sh"
need_bpf "MiniDebugInfo and debuginfod names"
I=$WORKLOADS/image
unset DEBUGINFOD_URLS


CPU_A='main;run;stage_a;work_a;spin_a'
CPU_B='main;run;stage_b;work_b;spin_b'
OFF_A='main;run;idle_a;nap_a;nanosleep;'
OFF_B='main;run;idle_b;nap_b;nanosleep;'

# cpu_split LABEL FILE: the two chains hold most samples, split 5:3
cpu_split() {
	set -- "$1" "$2" "$(folded_sum "$2" "$CPU_A")" "$(folded_sum "$2" "$CPU_B")" \
		"$(folded_sum "$2" '^chain')"
	if fcmp "$3 + $4 >= 0.8 * $5 && $4 > 0 && $3 / $4 >= 1.4 && $3 / $4 <= 2.0"; then
		pass "$1: $CPU_A $3, $CPU_B $4 of $5 samples (5:3)"
	else
		fail "$1: chains named, split 5:3" "$3 and $4 of $5: $(sort -k2 -nr -t' ' "$2" | head -4 | tr '\n' '|')"
	fi
}

# off_split LABEL FILE: the two sleeps' chains, split as the naps took
# (CHAIN_TRUTH: 2:1 asked, the run-queue waits of a loaded machine on
# top, 1.64:1 at load 25), within 15 %
off_split() {
	set -- "$1" "$2" "$(folded_sum "$2" "$OFF_A")" "$(folded_sum "$2" "$OFF_B")" \
		"$(awk '{ if ($2 > 0) print $1 / $2 }' "$T/truth")"
	if fcmp "$4 > 0 && ${5:-0} > 0 && $3 / $4 >= 0.85 * $5 && $3 / $4 <= 1.15 * $5"; then
		pass "$1: ${OFF_A}.. $3 us, ${OFF_B}.. $4 us ($5:1, as the naps took)"
	else
		fail "$1: chains named, split as the naps took (${5:-?}:1)" "$3 and $4 us: $(sort -k2 -nr -t' ' "$2" | head -4 | tr '\n' '|')"
	fi
}

device() { # LIBC BINARY
	"$STACKBOX" oncpu -F 999 -U -f folded --unwind eh_frame -- \
		"$I/minidebuginfo/$2" 5 >"$T/on" 2>"$T/err"
	cpu_split "oncpu $1, .gnu_debugdata" "$T/on"
	# naps of 200 and 100 ms: a preemption as it goes to sleep (R, a
	# few ms on a loaded machine) is small beside them
	CHAIN_TRUTH=$T/truth "$STACKBOX" offcpu -U -f folded --unwind eh_frame -- \
		"$I/minidebuginfo/$2" 2 100 >"$T/off" 2>"$T/err"
	off_split "offcpu $1, .gnu_debugdata" "$T/off"
	"$STACKBOX" oncpu -F 199 -U -f folded --unwind eh_frame -- \
		"$I/stripped/$2" 1 >"$T/bare" 2>"$T/err"
	check "oncpu $1, stripped bare: no name of the chain (the names above are .gnu_debugdata's)" \
		[ "$(folded_sum "$T/bare" '^chain')" -gt 0 -a "$(folded_sum "$T/bare" 'spin_|work_|stage_|;run;')" = 0 ]
}

# A free TCP port on 127.0.0.1 (the kernel's pick, released for the server)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# served URL: the server answers 200 for URL
served() {
	python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$1" 2>/dev/null
}

# serve DIR BUILDID: debuginfod on 127.0.0.1, scanning DIR; PORT and
# SERVER set. Ready when it serves both files of BUILDID: "fts traversed"
# is logged when the walk ends, while its scanner threads may still be
# indexing what the walk queued (a slower machine asked too soon, got
# 404 and the chains stayed unnamed).
serve() {
	PORT=$(free_port)
	debuginfod -F -p "$PORT" -d "$T/db.sqlite" "$1" >"$T/server.log" 2>&1 &
	SERVER=$!
	wait_for 60 served "http://127.0.0.1:$PORT/buildid/$2/debuginfo" &&
		wait_for 60 served "http://127.0.0.1:$PORT/buildid/$2/executable"
}

host() { # LIBC BINARY
	id=$(readelf -n "$I/stripped/$2" | sed -n 's/.*Build ID: *//p')
	rm -rf "$T/scan" "$T/cache" "$T/cache2" "$T/dev"
	mkdir -p "$T/scan" "$T/dev"
	# the server has the debug file and the stripped binary; the
	# program runs from a copy that is later removed (not on this PC)
	cp "$I/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" \
		"$T/scan/$2.debug" || { fail "report $1: debug file" "none for $id"; return; }
	cp "$I/stripped/$2" "$T/scan/$2"
	cp "$I/stripped/$2" "$T/dev/$2"
	"$STACKBOX" oncpu -F 999 -U -f bin -o "$T/s.bin" --unwind eh_frame -- \
		"$T/dev/$2" 5 2>"$T/err"
	sb_report -f folded "$T/s.bin" >"$T/rep0" 2>"$T/err"
	check "report $1: stripped bare, no server: the chain unnamed" \
		[ "$(folded_sum "$T/rep0" '^chain')" -gt 0 -a "$(folded_sum "$T/rep0" 'spin_|work_|stage_')" = 0 ]
	if ! serve "$T/scan" "$id"; then
		fail "report $1: debuginfod serves $T/scan" "$(tail -3 "$T/server.log" | tr '\n' '|')"
		kill "$SERVER" 2>/dev/null
		return
	fi
	url=http://127.0.0.1:$PORT
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache \
		sb_report -f folded "$T/s.bin" >"$T/rep1" 2>"$T/err1"
	cpu_split "report $1, from debuginfod" "$T/rep1"
	check "report $1: the debug file kept in debuginfod's cache" \
		test -s "$T/cache/$id/debuginfo"
	rm "$T/dev/$2"
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache2 \
		sb_report -f folded "$T/s.bin" >"$T/rep3" 2>"$T/err3"
	cpu_split "report $1, binary not on this PC: debug file and binary from debuginfod" "$T/rep3"
	check "report $1: the binary kept in debuginfod's cache" \
		test -s "$T/cache2/$id/executable"
	check "report $1: the same stacks with the binary here or from the server" \
		cmp -s "$T/rep1" "$T/rep3"
	kill "$SERVER"
	wait "$SERVER" 2>/dev/null
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/cache2 \
		sb_report -f folded "$T/s.bin" >"$T/rep2" 2>"$T/err2"
	check "report $1, server gone, cache warm: the same stacks" cmp -s "$T/rep3" "$T/rep2"
	# the names the device gave with .gnu_debugdata
	for f in "$T/on" "$T/rep1"; do
		grep -oE ';(main|run|(stage|work|spin)_[ab])' "$f" | sort -u | tr -d ';' | tr '\n' ' '
		echo
	done >"$T/names"
	check "report $1: the device's names ($(head -1 "$T/names"))" \
		[ "$(sed -n 1p "$T/names")" = "$(sed -n 2p "$T/names")" ]
}

for v in "glibc chain" "musl chain-musl"; do
	set -- $v
	if [ ! -x "$I/minidebuginfo/$2" ]; then
		skip "$1 image-built workload" "not built (musl-gcc missing?)"
		continue
	fi
	device "$1" "$2"
	if ! command -v debuginfod >/dev/null; then
		skip "report $1 through debuginfod" "no debuginfod (Debian package debuginfod)"
		continue
	fi
	host "$1" "$2"
done
