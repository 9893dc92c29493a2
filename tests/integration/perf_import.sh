#!/bin/sh
# report reads perf script output: a perf record -g of a known ratio
# comes out with that ratio in every format; damaged input is said in
# one line and does not crash.
. "$SRCTREE/tests/lib.sh"
if ! command -v perf >/dev/null; then
	skip "report of perf script output" "no perf (Debian linux-perf)"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BURN=$WORKLOADS/burn

# burn's spins and its 2 s timed in its CPU time ("cpu"): 2:1 and about
# 2000 samples at 999 Hz on a busy machine too.
# cpu-clock: a software event, so it works in VMs without a PMU.
if ! perf record -q -e cpu-clock -F 999 -g -o "$T/perf.data" -- "$BURN" 2 1 2 cpu \
		>/dev/null 2>"$T/rec.err"; then
	skip "report of perf script output" "perf record fails here: $(head -1 "$T/rec.err")"
	exit 0
fi
perf script -i "$T/perf.data" >"$T/p.txt" 2>/dev/null
sb_report -f folded "$T/p.txt" >"$T/p.folded" 2>"$T/p.err"
check "report -f folded of perf script output exits 0, nothing said" [ $? = 0 -a ! -s "$T/p.err" ]
# share FILE: burn_two_thirds / (that + burn_one_third), samples or time
share() {
	awk '/burn_two_thirds/ { a += $NF } /burn_one_third/ { b += $NF }
	     END { if (a + b) printf "%.3f %.2f\n", a / (a + b), b ? a / b : 0; else print "0 0" }' "$1"
}
n=$(grep -c 'cpu-clock:' "$T/p.txt")
set -- $(share "$T/p.folded")
echo "perf import: burn_two_thirds:burn_one_third = $2:1 (share $1) of $n samples"
# 2/3 +- 0.08: 4 standard errors at 300 samples (as oncpu.sh), and ~2000
# are taken on any load
check "perf import: burn_two_thirds has 2/3 of burn's time (share $1, $2:1, $n samples)" \
	fcmp "$1 >= 0.587 && $1 <= 0.747 && $n >= 300"
check "perf import: the value is cpu-clock's period, in us of CPU time" \
	sh -c "'$STACKBOX' report '$T/p.txt' | grep -q 'value: its period, ns of CPU time'"
# every sample's period is perf's, ~1001 us at 999 Hz: the sum matches
us=$(awk '{ s += $NF } END { print s }' "$T/p.folded")
per=$(awk '/cpu-clock:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-clock:") s += $i } END { printf "%d", s / 1000 }' "$T/p.txt")
check "perf import: folded's total is the periods' sum ($us us, perf $per us)" \
	fcmp "$us > 0.999 * $per && $us < 1.001 * $per"

perf script -i "$T/perf.data" 2>/dev/null | sb_report -f folded - >"$T/stdin.folded"
check "perf import from standard input: the same folded" cmp -s "$T/p.folded" "$T/stdin.folded"
sb_report -i 500ms "$T/p.txt" >"$T/i.text"
ns=$(grep -c '^=== perf snapshot' "$T/i.text")
# a snapshot per 500 ms from the first sample's time that has samples:
# counted from perf's own times, as long as the run took on the wall clock
# (times in whole units of their last digit, as exact as the reader's ns)
want=$(awk '/cpu-clock:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-clock:") t = $(i - 1)
	sub(":", "", t); split(t, f, "."); u = 10 ^ length(f[2]); t = f[1] * u + f[2]
	if (t0 == "") t0 = t; k[int((t - t0) / (u / 2))] = 1 } END { print length(k) }' "$T/p.txt")
check "perf import -i 500ms: a snapshot per 500 ms of the run that has samples ($ns, $want)" [ "$ns" = "$want" ]
# perf's clock counts from boot: the first snapshot starts at the first
# sample's time, said as such (it was a 1970 date)
t0=$(awk '/cpu-clock:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-clock:") { t = $(i - 1); sub(":", "", t); printf "%.3f", int(t * 1000) / 1000; exit } }' "$T/p.txt")
check "perf import text: the first snapshot starts at boot+${t0}s, the first sample's time" \
	grep -qE "^=== perf snapshot 1: boot\+$t0""s \.\. boot\+[0-9]+\.[0-9]{3}s \([0-9.]+ s\)\$" "$T/i.text"
sb_report -f svg -o "$T/p.svg" "$T/p.txt"
check "perf import -f svg: burn_two_thirds labelled" grep -q '>burn_two_thirds</text>' "$T/p.svg"
sb_report -f pprof -o "$T/p.pb.gz" "$T/p.txt"
if command -v go >/dev/null; then
	check "perf import -f pprof: go tool pprof reads it" \
		sh -c "go tool pprof -top '$T/p.pb.gz' 2>&1 | grep -q burn_two_thirds"
	GOCACHE=$T/go-cache go tool pprof -raw "$T/p.pb.gz" >"$T/raw" 2>/dev/null
	# burn_two_thirds' Location: perf's address, in burn's Mapping
	set -- $(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0; m = 1; next }
		l && $4 == "burn_two_thirds" { a = $2; id = $3 }
		m && "M=" $1 + 0 == id { p = $3 } END { print a, p }' "$T/raw")
	check "perf import -f pprof: burn_two_thirds at perf's address ($1) in burn's mapping ($2)" \
		[ -n "$1" -a "$1" != 0x0 -a "$2" = "$(readlink -f "$BURN")" ]
fi
# a JVM's perf map agent prints frame lines unindented: the same samples
sed 's/^[[:space:]]*\([0-9a-f][0-9a-f]* \)/\1/' "$T/p.txt" >"$T/flat.txt"
sb_report -f folded "$T/flat.txt" >"$T/flat.folded" 2>"$T/flat.err"
check "perf import, frame lines unindented: the same folded ($(head -1 "$T/flat.err"))" \
	sh -c "cmp -s '$T/p.folded' '$T/flat.folded' && ! grep -q '^[[:space:]]' '$T/flat.txt'"
sb_report --anomalies -i 200ms "$T/p.txt" >/dev/null 2>"$T/an.err"
check "perf import --anomalies -i 200ms runs" [ $? = 0 ]

# damage: one line each, status 1 when nothing could be read, no crash
# (a signal would give a status above 128)
# (inside a line: a cut after a sample's blank line leaves whole samples)
head_inside_line "$T/p.txt" "$T/cut.txt"
sb_report -f folded "$T/cut.txt" >"$T/cut.folded" 2>"$T/cut.err"
rc=$?
check "perf import of a cut file: one line that says where ($(cat "$T/cut.err"))" \
	[ $rc = 0 -a "$(wc -l <"$T/cut.err")" = 1 ] && grep -q 'cut short in line [0-9]*' "$T/cut.err"
check "perf import of a cut file: what came before is read" grep -q burn_two_thirds "$T/cut.folded"
# cut at a frame line's end: the callchain lacks the blank line that
# ends each, so the sample may lack frames: left out, and said
awk 'NF == 0 { s++ } s == 3 && NF == 0 { exit } { print } s == 2 && /^[ \t]/ && ++f == 2 { exit }' \
	"$T/p.txt" >"$T/cutf.txt"
sb_report -f folded "$T/cutf.txt" >"$T/cutf.folded" 2>"$T/cutf.err"
rc=$?
# (the folded total: the first 2 samples' periods, in us)
set -- $(awk '{ n += $NF } END { print n + 0 }' "$T/cutf.folded") $(wc -l <"$T/cutf.txt") \
	$(awk '/cpu-clock:/ && ++k <= 2 { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-clock:") s += $i }
		END { printf "%d", s / 1000 }' "$T/cutf.txt")
check "perf import cut at a frame line's end (line $2): its 2 whole samples read ($1 us, $3 us), one line says where ($(cat "$T/cutf.err"))" \
	[ $rc = 0 -a "$1" = "$3" -a "$(wc -l <"$T/cutf.err")" = 1 ] && grep -q "cut short in line $2:" "$T/cutf.err"
awk 'NR % 50 == 7 { print "garbage \001 line", NR } { print }' "$T/p.txt" >"$T/junk.txt"
sb_report -f folded "$T/junk.txt" >"$T/junk.folded" 2>"$T/junk.err"
rc=$?
check "perf import with junk lines: one line counting them ($(cat "$T/junk.err"))" \
	sh -c "[ $rc = 0 ] && [ \$(wc -l <'$T/junk.err') = 1 ] && grep -q 'lines are not perf script output (the first: line 7)' '$T/junk.err'"
check "perf import with junk lines: the rest is read" grep -q burn_two_thirds "$T/junk.folded"
head -c 20000 /dev/urandom >"$T/rand"
sb_report "$T/rand" >/dev/null 2>"$T/rand.err"
rc=$?
check "random bytes: status 1 and one line ($(cat "$T/rand.err"))" \
	[ $rc = 1 -a "$(wc -l <"$T/rand.err")" = 1 ]
printf 'hello world\nthis is not perf\n' >"$T/text"
sb_report "$T/text" >/dev/null 2>"$T/text.err"
rc=$?
check "text that is not perf script: status 1 and one line ($(cat "$T/text.err"))" \
	[ $rc = 1 -a "$(wc -l <"$T/text.err")" = 1 ]
