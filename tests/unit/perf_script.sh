#!/bin/sh
# report of perf script output without perf or root: a fixture
# (tests/unit/fixtures/perf-script.txt, perf 6.1's layout with -F
# comm,pid,tid,cpu,time,period,event,ip,sym,dso and --header) whose
# folded form is known line by line: symbols with offsets, a C++
# symbol with spaces and parentheses, [unknown] symbols with and
# without a file, kernel frames, a comm with a space. Its SVG's labels
# are checked as tests/integration/flame.sh checks a recording's.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
F=$SRCTREE/tests/unit/fixtures/perf-script.txt

sb_report -f folded "$F" >"$T/folded" 2>"$T/err"
check "perf script fixture: folded exits 0, says nothing" [ $? = 0 -a ! -s "$T/err" ]
check "perf script fixture: folded is the expected, line by line" \
	cmp -s "$T/folded" "$SRCTREE/tests/unit/fixtures/perf-script.folded"
sb_report -f folded - <"$F" >"$T/stdin"
check "perf script fixture: the same from standard input" cmp -s "$T/folded" "$T/stdin"
sb_report -i 500ms "$F" >"$T/text"
# perf's times count from boot: said so, in seconds, never as a date
# (they were 1970-01-01 00:00:10.000 .. 00:00:10.500)
check "perf script -i 500ms: two snapshots, boot+10.000s .. boot+10.500s and boot+10.500s .. boot+10.600s" \
	sh -c "grep -qx '=== perf snapshot 1: boot+10.000s .. boot+10.500s (0.500 s)' '$T/text' &&
		grep -qx '=== perf snapshot 2 (final): boot+10.500s .. boot+10.600s (0.100 s)' '$T/text'"
check "perf script text: no date anywhere" sh -c "! grep -qE '19[0-9]{2}-[0-9]{2}-[0-9]{2}' '$T/text'"
sb_report "$T/text" >"$T/text2" 2>/dev/null
check "perf script text read back by report: the same text, boot times and all" cmp -s "$T/text" "$T/text2"
sb_report -f folded --from +500ms "$T/text" >"$T/late" 2>/dev/null
check "perf script text read back: --from +500ms keeps the second snapshot's one sample (Web Content)" \
	sh -c "[ \$(wc -l <'$T/late') = 1 ] && grep -q '^Web Content;' '$T/late'"
check "perf script: cpu-clock's period is ns of CPU time (4.0 ms in app's 4 samples)" \
	grep -q 'total: 4 samples, 4.0 ms cpu-clock' "$T/text"
sb_report -f pprof -o "$T/p.pb.gz" "$F"
if command -v go >/dev/null; then
	GOCACHE=$T/go-cache go tool pprof -top "$T/p.pb.gz" >"$T/top" 2>/dev/null
	check "perf script -f pprof: a duration, no time (a date would be 1970)" \
		sh -c "grep -q '^Duration: 599.90ms' '$T/top' && ! grep -q '^Time:' '$T/top'"
else
	skip "perf script -f pprof's time" "go not installed"
fi

sb_report -f svg -o "$T/p.svg" "$F"
# the title: folded's sum (7,000 us of cpu-clock), the host of perf's
# header, the first sample's time to the last's, since boot
check "perf script -f svg: titled with the total, the host of perf's header, the span since boot" \
	grep -qF '>perf: 7,000 us cpu-clock (7.0 ms of CPU) on testhost, boot+10.000s .. boot+10.600s (599.9 ms)</text>' "$T/p.svg"
check "perf script -f svg: the title's total is folded's sum" \
	[ "$(awk '{ s += $NF } END { print s }' "$T/folded")" = 7000 ]
if command -v python3 >/dev/null; then
	set -- $(python3 "$SRCTREE/tests/svg_labels.py" "$T/p.svg" burn_two_thirds "Web Content")
	check "SVG labels: every frame 3 characters wide has one ($6 of $4), none wider than its bar ($8), whole where it fits (${12} not)" \
		[ "$4" -gt 0 -a "${14}" = 0 -a "$8" = 0 -a "${12}" = 0 ]
	check "SVG labels: burn_two_thirds and 'Web Content' are text nodes" grep -q '>Web Content</text>' "$T/p.svg"
else
	skip "SVG labels" "no python3"
fi
if command -v rsvg-convert >/dev/null; then
	check "rsvg-convert renders the SVG" rsvg-convert -o "$T/p.png" "$T/p.svg"
else
	skip "rsvg-convert renders the SVG" "not installed (Debian librsvg2-bin)"
fi

head -c 300 "$F" >"$T/cut"
n=$(($(wc -l <"$T/cut") + 1)) # the line cut
sb_report -f folded "$T/cut" >"$T/cut.folded" 2>"$T/cut.err"
check "a cut file: status 0, one line saying where ($(cat "$T/cut.err"))" \
	sh -c "[ $? = 0 ] && [ \$(wc -l <'$T/cut.err') = 1 ] && grep -q 'cut short in line $n:' '$T/cut.err'"
sed '12s/.*/xx yy/' "$F" >"$T/junk"
sb_report -f folded "$T/junk" >"$T/junk.folded" 2>"$T/junk.err"
check "a junk line: one line counting it, its sample left out ($(cat "$T/junk.err"))" \
	sh -c "grep -q '1 lines are not perf script output (the first: line 12): 1 samples left out' '$T/junk.err' &&
		grep -q 'burn_two_thirds;spin_until 1000' '$T/junk.folded'"

# Four patterns of perf script output, each in a small input of ours
# whose folded form is known: frame lines not indented (a JVM's perf map
# agent), an empty symbol ("ADDR  (DSO)"), kernel frames resolved from a
# vmlinux at small addresses with [unknown] amid them.
for c in unindented nosym vmlinux; do
	sb_report -f folded "$SRCTREE/tests/unit/fixtures/perf-$c.txt" >"$T/$c" 2>"$T/$c.err"
	check "perf script $c: folded is the expected, line by line, nothing said ($(head -1 "$T/$c.err"))" \
		sh -c "cmp -s '$T/$c' '$SRCTREE/tests/unit/fixtures/perf-$c.folded' && [ ! -s '$T/$c.err' ]"
done
check "perf script: unindented frames read, a comm that is hex (deadbeef) still a header" \
	sh -c "grep -qx 'java;start_thread;Lcom/example/Worker:::spin;Interpreter 1000' '$T/unindented' &&
		grep -qx 'deadbeef;beef_loop 1000' '$T/unindented'"
check "perf script: an empty symbol is [libc-2.31.so+0xADDR], not the DSO in parentheses" \
	sh -c "grep -q ';\[libc-2.31.so+0x7f1e2215d058\] 1000$' '$T/nosym' && ! grep -q '(' '$T/nosym'"
check "perf script: vmlinux frames at small addresses are the kernel's, [unknown] amid them too, a JIT leaf not" \
	sh -c "grep -qx 'cat;main;read;-;ksys_read;vfs_read;\[0x2f1a10\];ext4_file_read_iter 1000' '$T/vmlinux' &&
		grep -qx 'node;main;uv_run;\[0x3e1f0000a000\] 1000' '$T/vmlinux'"
sb_report -f pprof -o "$T/v.pb.gz" "$SRCTREE/tests/unit/fixtures/perf-vmlinux.txt"
if command -v go >/dev/null; then
	GOCACHE=$T/go-cache go tool pprof -raw "$T/v.pb.gz" >"$T/raw" 2>/dev/null
	# Locations "N: 0xADDR M=MAPPING NAME", Mappings "N: START/END/OFF PATH"
	set -- $(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0; m = 1; next }
		l && $2 == "0x4e85d9" && $4 == "ext4_file_read_iter" { vm = $3 }
		l && $2 == "0x1150" && $4 == "main" { cat = $3 }
		l && $2 == "0x1800" && $4 == "main" { node = $3 }
		l && $2 == "0x0" { zero++ }
		m { maps++; path["M=" $1 + 0] = $3 }
		END { printf "%s %s %s %d %d %s %s\n", path[vm], path[cat], path[node], zero, maps, vm, cat }' "$T/raw")
	check "perf script -f pprof: locations at perf's addresses, a mapping per DSO (main of cat is not node's; $5 mappings, $4 at 0)" \
		[ "$1" = /lib/modules/6.1.0-test/build/vmlinux -a "$2" = /usr/bin/cat -a "$3" = /usr/bin/node -a "$4" = 0 -a "$5" = 6 ]
else
	skip "perf script -f pprof's addresses and mappings" "go not installed"
fi
# an address and blanks only (no symbol, no DSO; the fuzzer's find)
printf 'app 100/101 [001]  10.000100:    1000000 cpu-clock: \n\t    12caba   \n\t    137b main+0xd8 (/usr/bin/app)\n\n' >"$T/blank"
check "perf script: a frame of an address and blanks only is [0x12caba]" \
	sh -c "[ \"\$('$STACKBOX' report -f folded '$T/blank')\" = 'app;main;[0x12caba] 1000' ]"
