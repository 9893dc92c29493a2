#!/bin/sh
# report -f html in headless Chromium (Debian's chromium, make setup):
# a recording of tests/workloads/phases (appear_cpu only after its
# change, vanish_cpu only before) opened through the URL fragment. A
# range after the change draws appear_cpu and not vanish_cpu, one
# before the reverse, the two together the differential where
# appear_cpu is new (base 0, red); each range's total is report -f
# folded's of the same --from/--to. No console message, no script
# error, no network request (Chromium's net log; a page that does fetch
# is counted, to show the count works).
. "$SRCTREE/tests/lib.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$CHROMIUM" ]; then
	skip "report -f html in Chromium" "no chromium (make setup installs Debian's)"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	skip "report -f html in Chromium" "no python3 to read Chromium's net log"
	exit 0
fi
need_bpf "report -f html in Chromium"
"$STACKBOX" oncpu -F 999 -f bin -i 500ms -o "$T/on.bin" -- \
	"$WORKLOADS/phases" run 6 3 >"$T/phases.out" 2>"$T/rec.err"
change=$(sed -n 's/^change //p' "$T/phases.out")
sb_report -f html -o "$T/p.html" "$T/on.bin" 2>"$T/html.err"
check "report -f html writes the page, says nothing ($(head -1 "$T/html.err"))" \
	[ -s "$T/p.html" -a ! -s "$T/html.err" -a -n "$change" ]
t0=$(grep -o '"t0":[0-9.]*' "$T/p.html" | cut -d: -f2)

# load FRAGMENT NAME: the page's DOM after its script ran, Chromium's
# log and net log
load() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--window-size=1300,900 --enable-logging=stderr --v=0 \
		--log-net-log="$T/$2.net" --dump-dom "file://$1" \
		>"$T/$2.dom" 2>"$T/$2.log"
}
# state NAME FIELD: what the page published (#sb-state)
state() { grep -o 'id="sb-state">[^<]*' "$T/$1.dom" | grep -o "\"$2\":[^,}]*" | cut -d: -f2; }
# has NAME FUNCTION: a frame of it is drawn (its title "NAME (...")
has() { grep -q "title=\"$2 (" "$T/$1.dom"; }
# folded_total FROM TO: what report sums over the same range
folded_total() {
	sb_report -f folded --from "$1" --to "$2" "$T/on.bin" 2>/dev/null |
		awk '{ s += $NF } END { print s + 0 }'
}

# ranges in the middle of 500 ms snapshots, away from their edges: the
# last before the change 0.6 s or more before it, the first after as
# far after it
set -- $(awk -v c="$change" -v t0="$t0" 'BEGIN {
	r = c - t0; b = int((r - 0.6 - 0.25) / 0.5) * 0.5 + 0.25
	a = int((r + 0.6 - 0.25) / 0.5 + 1) * 0.5 + 0.25
	printf "%d %d %d %d\n", 250, b * 1000, a * 1000, a * 1000 + 2000 }')
bf=+$1ms bt=+$2ms af=+$3ms at=+$4ms
echo "change at +$(awk -v c="$change" -v t0="$t0" 'BEGIN { printf "%.3f", c - t0 }')s; before $bf..$bt, after $af..$at"

load "$T/p.html#from=$af&to=$at" after
load "$T/p.html#from=$bf&to=$bt" before
load "$T/p.html#from=$af&to=$at&base_from=$bf&base_to=$bt" diff
check "after the change: appear_cpu drawn, vanish_cpu not" \
	sh -c "grep -q 'title=\"appear_cpu (' '$T/after.dom' && ! grep -q 'title=\"vanish_cpu (' '$T/after.dom'"
check "before the change: vanish_cpu drawn, appear_cpu not" \
	sh -c "grep -q 'title=\"vanish_cpu (' '$T/before.dom' && ! grep -q 'title=\"appear_cpu (' '$T/before.dom'"
check "the differential: appear_cpu is new (base 0, +%) and red" \
	grep -q 'title="appear_cpu ([0-9]* samples, [0-9.]*%; base 0, +[0-9.]*%)" style="[^"]*background:rgb(255,' "$T/diff.dom"
for r in "after $af $at" "before $bf $bt"; do
	set -- $r
	want=$(folded_total "$2" "$3")
	check "$1's flame graph totals report -f folded --from $2 --to $3 ($(state "$1" total) = $want samples)" \
		[ "$(state "$1" total)" = "$want" -a "$want" -gt 100 ]
done
# the same range in seconds since the epoch, as --from takes them too
ef=$(awk -v t0="$t0" -v a="${af#+}" 'BEGIN { sub("ms", "", a); printf "%.3f", t0 + a / 1000 }')
et=$(awk -v t0="$t0" -v a="${at#+}" 'BEGIN { sub("ms", "", a); printf "%.3f", t0 + a / 1000 }')
load "$T/p.html#from=$ef&to=$et" epoch
check "#from=$ef&to=$et (epoch seconds): the same range as $af..$at ($(state epoch total) samples)" \
	[ "$(state epoch total)" = "$(state after total)" ]
check "the differential's base totals the before range ($(state diff base_total) = $(state before total))" \
	[ "$(state diff base_total)" = "$(state before total)" ]
for n in after before diff; do
	req=$(python3 "$SRCTREE/tests/netlog_page_requests.py" "$T/$n.net")
	check "$n: no console message, no script error, no resource, no network request (net log: $req)" \
		[ "$(grep -c 'CONSOLE' "$T/$n.log")" = 0 -a "$(state $n errors)" = 0 -a \
		"$(state $n resources)" = 0 -a "$req" = 0 ]
done
echo "selection drawn in $(state after draw_ms | cut -c1-5) ms (after), $(state diff draw_ms | cut -c1-5) ms (differential)"

# inject NAME SCRIPT: a copy of the page whose last script is SCRIPT,
# run once the page's has drawn (what a user's click or key would do)
inject() {
	sed 's|</body></html>|<script>(function () { var c = document.getElementById("sb-heat"), r = c.getBoundingClientRect(); '"$2"' })();</script></body></html>|' \
		"$T/p.html" >"$T/$1.html"
}
# clicking the first anomaly that appeared: its window selected against
# its baseline (which may hold the snapshot of the change), where
# appear_cpu grew, in red
inject click 'var m = JSON.parse(document.getElementById("sb-state").textContent).markers.filter(function (m) { return m.kind === "appeared"; })[0]; c.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, clientX: r.left + m.x, clientY: r.top + m.y + 5 }));'
load "$T/click.html" click
win=$(grep -o '"appeared","applet":"oncpu".*' "$T/p.html" | head -1 |
	sed 's/.*"start":\([0-9.]*\),"end":\([0-9.]*\).*"baseline_start":\([0-9.]*\).*/\1 \2 \3/')
set -- $win
check "a click on the first anomaly that appeared selects its window against its baseline ($(state click hash))" \
	sh -c "awk -v f='$(state click from)' -v t='$(state click to)' -v bf='$(state click base_from)' -v s=$1 -v e=$2 -v b=$3 -v t0=$t0 \
		'BEGIN { d = 0.002; exit !(f - (s - t0) < d && (s - t0) - f < d && t - (e - t0) < d && (e - t0) - t < d && bf - (b - t0) < d && (b - t0) - bf < d) }' &&
		grep -Eq 'title=\"appear_cpu \([0-9]* samples, [0-9.]*%; base [0-9]*, \+[0-9.]*%\)\" style=\"[^\"]*background:rgb\(255,' '$T/click.dom'"
# the right arrow moves the selection one snapshot on, and the address
# follows it
inject key 'c.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));'
load "$T/key.html#from=+250ms&to=+750ms" key
check "the right arrow moves +250ms..+750ms on by a snapshot ($(state key from | cut -c1-5) s), the address with it ($(state key hash))" \
	sh -c "awk -v f='$(state key from)' -v t='$(state key to)' 'BEGIN { exit !(f > 0.7 && f < 0.8 && t > 1.2 && t < 1.3) }' &&
		grep -q 'id=\"sb-state\">.*\"hash\":\"#from=+7[0-9]*ms&amp;to=+12[0-9]*ms\"' '$T/key.dom'"

# the checks above can see a fetch and a console message: a page that
# makes both (no Content-Security-Policy) is caught
printf '%s\n' '<!DOCTYPE html><html><body><script>' \
	"fetch('http://127.0.0.1:9/probe').catch(function () {}); console.log('probe');" \
	'</script></body></html>' >"$T/probe.html"
load "$T/probe.html" probe
req=$(python3 "$SRCTREE/tests/netlog_page_requests.py" "$T/probe.net")
check "a page that fetches and logs is caught: $req request, $(grep -c CONSOLE "$T/probe.log") console line" \
	[ "$req" = 1 -a "$(grep -c CONSOLE "$T/probe.log")" = 1 ]
if [ -n "${SCREENSHOT:-}" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1240,700 --screenshot="$SCREENSHOT" \
		"file://$T/p.html#from=$af&to=$at&base_from=$bf&base_to=$bt" 2>/dev/null
fi
