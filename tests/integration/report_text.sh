#!/bin/sh
# report reads stackbox's own text output (what every applet prints by
# default) as it reads a bin stream, less what text does not hold: one
# run writes both (STACKBOX_BIN_TEE), and report of the text gives the
# stacks and values report of the bin stream gives, counts exactly and
# times within the rounding text prints them with. A report that fails
# leaves no -o file behind.
. "$SRCTREE/tests/lib.sh"
need_bpf "report of text output"
BURN=$WORKLOADS/burn
BLOCK=$WORKLOADS/block

# stacks FILE: the folded lines without their values
stacks() { sed 's/ [0-9]*$//' "$1"; }
# 1. oncpu: counts are printed whole, so folded is byte for byte
STACKBOX_BIN_TEE=$T/on.bin "$STACKBOX" oncpu -F 199 -i 500ms -- \
	"$BURN" 3 1 2 cpu >"$T/on.text" 2>"$T/on.err"
check "oncpu (text, bin tee) exits 0" [ $? = 0 ]
sb_report -f folded "$T/on.text" >"$T/on-t.folded" 2>"$T/on-t.err"
check "report -f folded of oncpu's text exits 0" [ $? = 0 ]
sb_report -f folded "$T/on.bin" >"$T/on-b.folded" 2>/dev/null
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/on-b.folded")
if cmp -s "$T/on-t.folded" "$T/on-b.folded"; then
	pass "oncpu: folded of text is byte for byte folded of bin ($n samples, $(wc -l <"$T/on-b.folded") lines)"
else
	fail "oncpu: folded of text is folded of bin" \
		"$(diff "$T/on-t.folded" "$T/on-b.folded" | head -4 | tr '\n' '|')"
fi
# burn's ground truth (burn.c): 2:1 in its own CPU time; > 0.5 is 3.5
# standard errors below 2/3 at 100 samples (report.sh's bound)
share=$(awk '/burn_two_thirds/ { a += $NF } /burn_one_third/ { b += $NF }
	END { printf "%.3f", a + b ? a / (a + b) : 0 }' "$T/on-t.folded")
check "oncpu text: burn_two_thirds has most of $n samples ($share)" \
	fcmp "$share > 0.5 && $n >= 100"
# the one line saying what text cannot give, and nothing else
msg="$T/on.text: stackbox text output: names only, no addresses, values as rounded in print; record with -f bin to resolve symbols later"
check "report of text says in one line what it read and what text lacks" \
	[ "$(cat "$T/on-t.err")" = "report: $msg" ]
sb_report -f folded "$T/on.bin" 2>&1 >/dev/null | grep -q 'text output'
check "report of a bin stream does not say it" [ $? != 0 ]
# text of text: the collector's own text again, but the span in
# seconds, which text's millisecond times give to 1 ms
sb_report "$T/on.text" 2>/dev/null | sed 's/ ([0-9.]* s)$//' >"$T/on-t.text"
sed 's/ ([0-9.]* s)$//' "$T/on.text" >"$T/on-c.text"
if cmp -s "$T/on-t.text" "$T/on-c.text"; then
	pass "report of oncpu's text is that text (the span aside)"
else
	fail "report of oncpu's text is that text (the span aside)" \
		"$(diff "$T/on-c.text" "$T/on-t.text" | head -12 | tr '\n' '|')"
fi
# lost: only the counters that are not zero, "none" when all are
check "oncpu text: no zero counter in a lost: line" \
	[ -z "$(grep -E '^lost: (.*, )?0 ' "$T/on.text")" ]
check "oncpu text: a lost: line per snapshot, none or counts" \
	[ "$(grep -cE '^lost: (none|[1-9][0-9]* [a-z])' "$T/on.text")" = "$(grep -c '^=== ' "$T/on.text")" ]
check "oncpu text: the share column is named %samples" \
	grep -qx '      samples %samples  process' "$T/on.text"

# 2. offcpu -w: times are printed to 3-4 digits ("300.3 ms"), so each
# folded line of text is within half a printed step of bin's: 0.05 us
# under 1 ms, 50 us under 1 s, 5 ms from 1 s, plus 1 us of folded's own
# rounding to whole us, per row folded into the line
export BLOCK_WAITED="$T/waited"
STACKBOX_BIN_TEE=$T/off.bin "$STACKBOX" offcpu -w -i 200ms -- "$BLOCK" \
	>"$T/off.text" 2>"$T/off.err"
check "offcpu -w (text, bin tee) exits 0" [ $? = 0 ]
sb_report -f folded "$T/off.text" >"$T/off-t.folded" 2>/dev/null
sb_report -f folded "$T/off.bin" >"$T/off-b.folded" 2>/dev/null
stacks "$T/off-t.folded" >"$T/off-t.stacks"
stacks "$T/off-b.folded" >"$T/off-b.stacks"
check "offcpu -w: folded of text has bin's stacks, wakers and states ($(wc -l <"$T/off-b.stacks") lines)" \
	cmp -s "$T/off-t.stacks" "$T/off-b.stacks"
# rows: how many text rows each folded line sums (the bound is per row)
set -- $(paste -d' ' "$T/off-t.folded" "$T/off-b.folded" | awk '
	{ t = $(NF / 2); b = $NF; d = t > b ? t - b : b - t
	  step = b < 1000 ? 1 : b < 1000000 ? 51 : 5001
	  if (d > max) max = d
	  if (d > step * 4) bad++
	  if (d > step) over++ }
	END { printf "%d %d %d %d\n", max, over, bad, NR }')
echo "offcpu text against bin: largest difference $1 us, $2 of $4 lines past one row's step"
check "offcpu -w: every folded value of text within the printed rounding ($1 us at most)" \
	[ "$3" = 0 ]
# the ground truth: nap_thread's 4 x 250 ms, as block.c timed them,
# to offcpu.sh's bound (-5 % - 5 ms .. +2 ms) widened by text's rounding
# (50 us a row, 5 snapshots or more)
got=$(awk '{ split($0, p, ";--;") } p[1] ~ /nap_thread/ { s += $NF }
	END { print s + 0 }' "$T/off-t.folded")
want=$(awk '$1 == "nap_thread" { print $2 }' "$T/waited")
check "offcpu text: nap_thread blocked $got us, block.c waited ${want:-?} us" \
	fcmp "${want:-0} > 0 && $got >= $want * 0.95 - 6000 && $got <= $want + 3000"

# 3. every format from text: an SVG of the workload's functions, pprof
sb_report -f svg -o "$T/off.svg" "$T/off.text" 2>/dev/null
check "report -f svg of text exits 0" [ $? = 0 ]
for f in nap_thread pipe_thread lock_thread; do
	check "SVG of offcpu's text holds $f" grep -q "$f" "$T/off.svg"
done
sb_report -f svg -o "$T/on.svg" "$T/on.text" 2>/dev/null
check "SVG of oncpu's text holds burn_two_thirds and burn_one_third" \
	sh -c "grep -q burn_two_thirds '$T/on.svg' && grep -q burn_one_third '$T/on.svg'"
sb_report -f pprof -o "$T/on.pb.gz" "$T/on.text" 2>/dev/null
rc=$?
check "report -f pprof of text writes a gzip profile (exit $rc)" \
	sh -c "[ $rc = 0 ] && gzip -t '$T/on.pb.gz' && [ \$(gzip -dc '$T/on.pb.gz' | wc -c) -gt 100 ]"
# --to: times are the snapshots' own, to the ms; 1.2 s is 0.2 s from
# any -i 500ms boundary
nt=$(sb_report --to +1200ms "$T/on.text" 2>/dev/null | grep -c '^=== ')
nb=$(sb_report --to +1200ms "$T/on.bin" 2>/dev/null | grep -c '^=== ')
all=$(grep -c '^=== ' "$T/on.text")
check "report --to +1200ms of text keeps bin's $nb of $all snapshots ($nt)" \
	[ "$nt" = "$nb" -a "$nt" -lt "$all" -a "$nt" -gt 0 ]

# 4. a cut text: the row the cut falls in is left out, and said
# (inside a line: half the file fell on a line's end in a fresh clone,
# and a text cut there is whole)
head_inside_line "$T/off.text" "$T/cut.text"
sb_report -f folded "$T/cut.text" >"$T/cut.folded" 2>"$T/cut.err"
check "a cut text still gives its snapshots, exit 0" \
	[ $? = 0 -a "$(wc -l <"$T/cut.folded")" -gt 0 ]
check "a cut text: said in one line" grep -q 'cut short in line [0-9]*: its row is left out' "$T/cut.err"
# cut at a frame line's end: the row lacks the blank line that ends each
# snapshot, so it may lack frames: left out, and said
awk '/^ +[0-9.]+ (ns|us|ms|s) +[0-9.]+%/ { r++; f = 0; print; next }
	r == 2 && /^                    +[^ ]/ && ++f == 2 { print; exit } { print }' \
	"$T/off.text" >"$T/cutf.text"
sb_report -f folded "$T/cutf.text" >"$T/cutf.folded" 2>"$T/cutf.err"
set -- $(wc -l <"$T/cutf.text") $(wc -l <"$T/cutf.folded")
check "a text cut at a frame line's end (line $1): its first row read, one line says where ($2 rows; $(grep "cut short" "$T/cutf.err"))" \
	sh -c "[ $2 = 1 ] && grep -q 'cut short in line $1: its row is left out' '$T/cutf.err'"

# 5. a failing report leaves no output file, and an old one untouched
mkdir "$T/o"
head -c 5000 /dev/urandom | tr -d '\n' >"$T/junk"
sb_report -f svg -o "$T/o/junk.svg" "$T/junk" 2>"$T/junk.err"
rc=$?
check "report of garbage exits non-zero ($rc)" [ $rc != 0 ]
check "report of garbage leaves no -o file, nor a temporary one" \
	[ -z "$(ls -A "$T/o")" ]
check "report of garbage says so in one line: $(head -1 "$T/junk.err")" \
	sh -c "[ \$(wc -l <'$T/junk.err') = 1 ] && grep -q 'neither a bin stream' '$T/junk.err'"
for f in text folded pprof; do
	echo old >"$T/o/out"
	sb_report -f $f -o "$T/o/out" "$T/junk" 2>/dev/null
	check "report -f $f of garbage: exit $? and -o FILE as it was" \
		[ "$(cat "$T/o/out")" = old -a "$(ls -A "$T/o")" = out ]
done
sb_report -f folded -o "$T/o/out" "$T/on.text" 2>/dev/null
check "report -f folded -o FILE of text replaces it on success" \
	cmp -s "$T/o/out" "$T/on-b.folded"

# a run's filters are a second line under the applet's: read back, said
# again, no line left unread
"$STACKBOX" offcpu -m 1ms -d 300ms >"$T/filt.text" 2>/dev/null
sb_report "$T/filt.text" >"$T/filt.out" 2>"$T/filt.err"
check "text with a filters line: read whole (only the input-kind line on stderr)" \
	[ "$(wc -l <"$T/filt.err")" = 1 ]
check "text with a filters line: said again" grep -qx 'filters: -m 1ms' "$T/filt.out"

# the design card's workflow: text to a file, then an SVG of it; on a
# terminal report names a file to pass rather than print the SVG
"$STACKBOX" offcpu -d 300ms >"$T/x" 2>/dev/null
(cd "$T" && script -qc "'$STACKBOX' report -f svg x" /dev/null) >"$T/tty.out" 2>&1
check "report -f svg to a terminal: refused, naming a file to pass" \
	grep -q 'report: -f svg: standard output is a terminal: name a file, -o x.svg' "$T/tty.out"
(cd "$T" && sb_report -f svg -o x.svg x 2>/dev/null)
check "report -f svg -o x.svg of offcpu's text: an SVG with its title" \
	grep -q '<text [^>]*>offcpu: [0-9,]* us blocked' "$T/x.svg"
