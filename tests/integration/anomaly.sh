#!/bin/sh
# report --anomalies on real recordings: a workload changes phase at a
# known time (tests/workloads/phases.c: a function appears, another
# vanishes, a third doubles its CPU or its blocked time, a subtree
# appears); report lists each change at its interval (+-1) with its kind
# and nothing else, clusters the subtree apart from the unrelated change,
# lists nothing for a steady run, and calls a slow leak growth.
. "$SRCTREE/tests/lib.sh"
need_bpf "anomaly integration"
PHASES=$WORKLOADS/phases
SECONDS_RUN=12
CHANGE_AT=6.5

# record NAME CHANGE: oncpu runs the workload, offcpu joins it by pid
record() {
	rm -f "$T/$1.pid"
	# (real-time threads: a loaded machine's run queue moved the naps'
	# blocked time and starved the CPU loop of samples)
	PHASES_REALTIME=1 "$STACKBOX" oncpu -F 999 -f bin -i 500ms -o "$T/$1-on.bin" -- \
		"$PHASES" run $SECONDS_RUN "$2" "$T/$1.pid" >"$T/$1.out" 2>"$T/$1-on.err" &
	on=$!
	wait_for 60 test -s "$T/$1.pid"
	# -M: not main's join, one block from before the start to the end.
	# A loaded machine attaches offcpu seconds after phases starts: of
	# the 6.5 s before the change, 4 s or more (8 snapshots) remain, and
	# -d counts from the attach, so the end is seen whatever the delay.
	"$STACKBOX" offcpu --state S -M 1s -f bin -i 500ms -p "$(cat "$T/$1.pid")" \
		-d $((SECONDS_RUN - 1)) -o "$T/$1-off.bin" 2>"$T/$1-off.err"
	wait $on
}

# field NAME: the value of a number or string field of each JSON line
field() { sed -e 's/,"also":.*//' -n -e "s/.*\"$1\":\"*\([^\",]*\).*/\1/p"; }

# what a change in a stack with this function is, or nothing
want_kind() {
	case $1 in
	*'"appear_cpu"'* | *'"appear_wait"'* | *'"decode_frame"'*) echo appeared ;;
	*'"vanish_cpu"'* | *'"vanish_wait"'*) echo vanished ;;
	*'"double_cpu"'* | *'"double_wait"'*) echo grew ;;
	esac
}

record phase $CHANGE_AT
change=$(sed -n 's/^change //p' "$T/phase.out")
check "phases printed when it changed phase" [ -n "$change" ]
sb_report --anomalies -f json "$T/phase-on.bin" "$T/phase-off.bin" \
	>"$T/phase.json" 2>"$T/phase.err"
check "report --anomalies -f json exits 0" [ $? = 0 ]
sb_report --anomalies "$T/phase-on.bin" "$T/phase-off.bin" >"$T/phase.txt" 2>&1
cat "$T/phase.txt"
echo "change at $change"

# every anomaly: a changed function, its kind, its interval (+-1). The
# change's time is phases' own clock read when it changed, and the
# stream's times are the collectors' own; load moves neither apart.
bad=
while read -r line; do
	kind=$(echo "$line" | field kind)
	start=$(echo "$line" | field start)
	want=$(want_kind "$line")
	what="$(echo "$line" | field applet) $(echo "$line" | field leaf) $(echo "$line" | sed -n 's/.*"stack":\[\([^]]*\)\].*/\1/p' | cut -d, -f1-4)"
	if [ -z "$want" ]; then
		bad="$bad; $kind in $what: nothing changed there"
	elif [ "$kind" != "$want" ]; then
		bad="$bad; $what: $kind, not $want"
	elif ! fcmp "$start > $change - 1.05 && $start <= $change + 0.55"; then
		bad="$bad; $what: starts at $start, the change was at $change"
	fi
done <"$T/phase.json"
check "every anomaly is a change, of its kind, at its interval (+-1)${bad:+: $bad}" [ -z "$bad" ]

# each change is there
for want in "oncpu vanish_cpu vanished" "oncpu double_cpu grew" \
	"oncpu appear_cpu appeared" "oncpu decode_luma appeared" \
	"oncpu decode_chroma appeared" "offcpu vanish_wait vanished" \
	"offcpu double_wait grew" "offcpu appear_wait appeared"; do
	set -- $want
	check "$1: $2 $3" grep -q "\"kind\":\"$3\",\"applet\":\"$1\".*\"stack\":\[[^]]*\"$2\"" "$T/phase.json"
done

# clusters: the decode subtree is one, apart from appear_cpu
cl_of() { grep "\"applet\":\"oncpu\".*\"stack\":\[[^]]*\"$1\"" "$T/phase.json" | field cluster | sort -u | tr '\n' ' '; }
luma=$(cl_of decode_luma) chroma=$(cl_of decode_chroma) other=$(cl_of appear_cpu)
one_cluster() { [ -n "$luma" ] && [ "$luma" = "$chroma" ] && [ "$(echo $luma | wc -w)" = 1 ]; }
check "cluster: decode_luma and decode_chroma changed together, one cluster ($luma, $chroma)" one_cluster
apart() { [ -n "$other" ] && [ -n "$luma" ] && [ "$other" != "$luma" ]; }
check "cluster: appear_cpu, unrelated, is another ($other vs $luma)" apart
label=$(grep "\"stack\":\[[^]]*\"decode_luma\"" "$T/phase.json" | field cluster_label | sort -u)
check "cluster: the subtree is labelled by its deepest shared frame ($label)" [ "$label" = decode_block ]

# the differential flame graph of one anomaly's window
sb_report --anomalies --anomaly 1 -f folded "$T/phase-on.bin" "$T/phase-off.bin" >"$T/diff.folded" 2>&1
check "-f folded: \"stack BASELINE WINDOW\" lines" \
	awk 'NF < 3 || $(NF) !~ /^[0-9]+$/ || $(NF - 1) !~ /^[0-9]+$/ { exit 1 } END { exit NR == 0 }' "$T/diff.folded"
sb_report --anomalies -f svg -o "$T/diff.svg" "$T/phase-on.bin" "$T/phase-off.bin"
check "-f svg: a differential flame graph" grep -q "against the baseline" "$T/diff.svg"

# a steady run of the same length: nothing
record steady 99
sb_report --anomalies -f json "$T/steady-on.bin" "$T/steady-off.bin" >"$T/steady.json" 2>&1
n=$(grep -c '"kind"' "$T/steady.json")
check "a steady run lists no anomaly ($n: $(field leaf <"$T/steady.json" | tr '\n' ' '))" [ "$n" = 0 ]

# a slow leak: steady cache, then nothing freed any more
"$STACKBOX" memstack -f bin -i 500ms -o "$T/leak.bin" -- "$PHASES" leak 8 4 >"$T/leak.out" 2>"$T/leak.err"
change=$(sed -n 's/^change //p' "$T/leak.out")
sb_report --anomalies -f json "$T/leak.bin" >"$T/leak.json" 2>&1
sb_report --anomalies "$T/leak.bin"
line=$(grep '"stack":\[[^]]*"cache_insert"' "$T/leak.json" | head -1)
what="$(echo "$line" | field kind) $(echo "$line" | field metric)"
check "memstack: the leak is growth of memory held ($what)" [ "$what" = "grew inuse_space" ]
start=$(echo "$line" | field start)
check "memstack: the growth starts at the leak's interval (+-1: $start, $change)" \
	fcmp "${start:-0} > $change - 1.05 && ${start:-0} <= $change + 0.55"
n=$(grep -vc '"cache_insert"' "$T/leak.json")
check "memstack: nothing else ($n others)" [ "$n" = 0 ]
# ANOMALY_KEEP=DIR: keep the recordings and reports there
[ -z "${ANOMALY_KEEP:-}" ] || cp "$T"/* "$ANOMALY_KEEP"/
