#!/bin/sh
# report --hotcold: oncpu and offcpu on the same process in the same run,
# one profile in time. tests/workloads/hotcold spends 1 s of its CPU time
# in hot_burn() and then sleeps 2 s in cold_sleep(): 1:2.
. "$SRCTREE/tests/lib.sh"
need_bpf "report --hotcold"

# Both collectors attach with -p to the workload, which waits for
# SIGUSR1 until both are ready, so each sees all of both phases.
"$WORKLOADS/hotcold" 1 2 "$T/pid" &
wl=$!
wait_for 60 test -s "$T/pid"
pid=$(cat "$T/pid")
"$STACKBOX" oncpu -F 999 -p "$pid" -v -f bin -o "$T/on.bin" 2>"$T/on.err" &
on=$!
"$STACKBOX" offcpu -p "$pid" -v -f bin -o "$T/off.bin" 2>"$T/off.err" &
off=$!
both_ready() { attached "$T/on.err" && attached "$T/off.err"; }
wait_for 60 both_ready
kill -USR1 "$pid"
wait "$wl"
# (-p: both end with the process; a SIGINT covers a slow pidfd wake-up)
kill -INT "$on" "$off" 2>/dev/null
wait "$on" "$off"

sb_report --hotcold -f folded -o "$T/hc.folded" "$T/on.bin" "$T/off.bin" 2>"$T/hc.err"
check "report --hotcold -f folded of an oncpu and an offcpu stream exits 0" [ $? = 0 ]
# on-CPU time in hot_burn, off-CPU time in cold_sleep (the wait for a
# CPU while burning is off-CPU time in hot_burn: not counted), in us
set -- $(awk '/^\[on-cpu\];.*;hot_burn/ { on += $NF }
	/^\[off-cpu\];.*;cold_sleep/ { off += $NF }
	END { printf "%d %d %.4f\n", on, off, off ? on / off : 0 }' "$T/hc.folded")
echo "hot/cold: hot_burn on-CPU $1 us, cold_sleep off-CPU $2 us, ratio $3 (1:2 is 0.5)"
# 10%: on-CPU time is 999 Hz samples of a clock that a loaded VM's host
# can delay or merge (each sample stands for 1.001 ms); off-CPU time
# includes the wake-up latency after the 2 s sleep (milliseconds).
check "hot/cold: hot_burn:cold_sleep is 1:2 in time within 10% ($1 us : $2 us = $3)" \
	fcmp "$3 >= 0.45 && $3 <= 0.55 && $1 >= 900000"
check "hot/cold: every line is under [on-cpu] or [off-cpu]" \
	sh -c "! grep -qv '^\[o[nf]f*-cpu\];' '$T/hc.folded'"

sb_report --hotcold -f svg -o "$T/hc.svg" "$T/on.bin" "$T/off.bin"
check "hot/cold SVG: [on-cpu] warm, [off-cpu] blue" \
	sh -c "grep -q '<title>\[on-cpu\] ([0-9]* us.*fill=\"rgb(2[0-5][0-9],[0-9]*,[0-9]*)\"' '$T/hc.svg' &&
		grep -q '<title>\[off-cpu\] ([0-9]* us.*fill=\"rgb([0-9]*,[0-9]*,2[0-5][0-9])\"' '$T/hc.svg'"
if command -v python3 >/dev/null; then
	set -- $(python3 "$SRCTREE/tests/svg_labels.py" "$T/hc.svg" hot_burn cold_sleep)
	check "hot/cold SVG: labels in the file, hot_burn and cold_sleep among them" \
		[ "${14}" = 0 -a "$8" = 0 -a "${16}" = yes -a "${18}" = yes ]
fi
if command -v rsvg-convert >/dev/null; then
	check "hot/cold SVG: rsvg-convert renders it" rsvg-convert -o "$T/hc.png" "$T/hc.svg"
fi

sb_report --hotcold -f pprof -o "$T/hc.pb.gz" "$T/on.bin" "$T/off.bin"
if command -v go >/dev/null; then
	# cum (ms) of a function under a sample type
	cum() { go tool pprof -top -nodefraction=0 -nodecount=100000 -unit=ms -sample_index="$1" "$T/hc.pb.gz" 2>/dev/null |
		awk -v f="$2" '$NF == f { sub("ms", "", $4); print $4; exit }'; }
	c=$(cum cpu hot_burn); b=$(cum blocked cold_sleep)
	th=$(cum time hot_burn); tc=$(cum time cold_sleep)
	bh=$(cum blocked hot_burn); cc=$(cum cpu cold_sleep)
	set -- $(awk '/^\[on-cpu\];.*;hot_burn/ { on += $NF } /^\[off-cpu\];.*;cold_sleep/ { off += $NF }
		END { print on / 1000, off / 1000 }' "$T/hc.folded")
	check "hot/cold pprof: cpu and blocked types give folded's times (hot_burn ${c}ms, cold_sleep ${b}ms; folded $1, $2)" \
		fcmp "${c:-0} > 0.99 * $1 && ${c:-0} < 1.01 * $1 && ${b:-0} > 0.99 * $2 && ${b:-0} < 1.01 * $2"
	# hot_burn also waits for a CPU (off-CPU), cold_sleep runs a little
	check "hot/cold pprof: time, the default type, is cpu + blocked (hot_burn $th = $c + ${bh:-0}, cold_sleep $tc = $b + ${cc:-0} ms)" \
		fcmp "${th:-0} - $c - ${bh:-0} < 0.02 && ${th:-0} - $c - ${bh:-0} > -0.02 &&
			${tc:-0} - $b - ${cc:-0} < 0.02 && ${tc:-0} - $b - ${cc:-0} > -0.02"
else
	skip "hot/cold pprof" "go not installed (Debian golang-go)"
fi

sb_report --hotcold -f folded "$T/on.bin" >/dev/null 2>"$T/one.err"
check "hot/cold of an on-CPU stream alone: an error that says the off-CPU one is missing" \
	sh -c "[ $? = 1 ] && grep -q 'no off-CPU stream' '$T/one.err'"
sb_report --hotcold "$T/on.bin" "$T/off.bin" >/dev/null 2>"$T/text.err"
check "hot/cold -f text is refused, naming the formats" grep -q 'folded, svg or pprof' "$T/text.err"
sb_report --hotcold -f pprof -o "$T/one.pb.gz" "$T/off.bin" 2>"$T/one2.err"
check "hot/cold -f pprof of an off-CPU stream alone: says the on-CPU one is missing" \
	sh -c "[ $? = 1 ] && grep -q 'no on-CPU stream' '$T/one2.err'"
