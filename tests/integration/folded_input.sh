#!/bin/sh
# report of folded stacks against the bin stream they came from: a real
# recording (oncpu of tests/workloads/phases), its folded (a snapshot
# after another) read back gives the same profile. "The same": folded
# out is the bin's folded lines with equal stacks summed, byte for byte;
# the SVG is the bin's but for its title (folded has no time or host);
# the pprof holds the same stacks (comm and frames) with the same
# samples each (go tool pprof -traces, the samples type).
. "$SRCTREE/tests/lib.sh"
need_bpf "folded input against its bin stream"
S=$STACKBOX
"$S" oncpu -F 999 -f bin -i 500ms -o "$T/on.bin" -- "$WORKLOADS/phases" run 3 1 \
	>/dev/null 2>"$T/rec.err"
sb_report -f folded "$T/on.bin" >"$T/bin.folded" 2>/dev/null
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/bin.folded")
# equal stacks summed, in folded's order (strcmp)
awk '{ v = $NF; sub(/ [0-9]+$/, ""); s[$0] += v } END { for (k in s) print k, s[k] }' \
	"$T/bin.folded" | LC_ALL=C sort >"$T/want.folded"
sb_report -f folded "$T/bin.folded" >"$T/fold.folded" 2>"$T/fold.err"
check "folded of a recording ($n samples, $(wc -l <"$T/want.folded") stacks) read back: its stacks and counts byte for byte" \
	sh -c "[ $n -gt 100 ] && [ $(wc -l <"$T/want.folded") -ge 5 ] && cmp -s '$T/want.folded' '$T/fold.folded' && [ ! -s '$T/fold.err' ]"

sb_report -f svg -o "$T/bin.svg" "$T/on.bin" 2>/dev/null
sb_report -f svg -o "$T/fold.svg" "$T/bin.folded"
grep -v 'font-size="16.0"' "$T/bin.svg" >"$T/bin.body"
grep -v 'font-size="16.0"' "$T/fold.svg" >"$T/fold.body"
check "SVG from folded: the bin's byte for byte but the title ($(wc -l <"$T/bin.body") lines)" \
	sh -c "cmp -s '$T/bin.body' '$T/fold.body' && [ \$(wc -l <'$T/bin.svg') = \$(( \$(wc -l <'$T/bin.body') + 1 )) ] &&
		grep -q '>folded: [0-9,]* samples on unknown</text>' '$T/fold.svg'"

if ! command -v go >/dev/null; then
	skip "pprof from folded against the bin's" "go not installed"
	exit 0
fi
# "comm;leaf..root VALUE" per trace, summed, sorted
traces() {
	GOCACHE=$T/go-cache go tool pprof -traces -sample_index=samples "$1" 2>/dev/null | awk '
	function out() { if (st != "") s[comm st] += v; st = "" }
	/^-----------\+/ { out(); next }
	/^ *comm:/ { sub(/^ *comm: */, ""); comm = $0; next }
	/^ *[a-z]+:/ { next }
	/^ +[0-9]/ && st == "" { v = $1; sub(/^ *[0-9]+ +/, ""); st = ";" $0; next }
	/^  +[^ ]/ && st != "" { sub(/^ +/, ""); st = st ";" $0 }
	END { out(); for (k in s) print k, s[k] }' | LC_ALL=C sort
}
sb_report -f pprof -o "$T/bin.pb.gz" "$T/on.bin" 2>/dev/null
sb_report -f pprof -o "$T/fold.pb.gz" "$T/bin.folded"
traces "$T/bin.pb.gz" >"$T/bin.traces"
traces "$T/fold.pb.gz" >"$T/fold.traces"
check "pprof from folded: the bin's stacks with the same samples each ($(wc -l <"$T/bin.traces") stacks, $(awk '{ s += $NF } END { print s + 0 }' "$T/fold.traces") samples)" \
	sh -c "[ -s '$T/bin.traces' ] && cmp -s '$T/bin.traces' '$T/fold.traces'"
