#!/bin/sh
# report -f html of a one-hour recording at -i 1s: the page's size and
# the time headless Chromium takes to load it and to draw a selection
# (the whole hour, one minute). The hour is perf script text made up
# here (perf's clock, 1 s snapshots): STACKS rows a second (default 200,
# oncpu's 49 Hz on 4 CPUs at most), drawn from POOL distinct stacks
# (2000) 10 frames deep, each sample a 1 ms cpu-clock period.
#   sh bench/html-hour.sh            from the repository root
. "${SRCTREE:-.}/tests/lib.sh"
SB=${STACKBOX:-./stackbox}
STACKS=${STACKS:-200}
POOL=${POOL:-2000}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
T=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "files in $T" || trap 'rm -rf "$T"' EXIT

start=$(date +%s.%N)
awk -v S="$STACKS" -v P="$POOL" 'BEGIN {
	for (sec = 0; sec < 3600; sec++)
		for (k = 0; k < S; k++) {
			id = (sec * 7919 + k * 104729 + int(sec / 600) * 31) % P
			printf "app 100/%d [000] %d.%06d: 1000000 cpu-clock:\n", 101 + id % 4, 100 + sec, k * 1000
			for (j = 9; j >= 0; j--)
				printf "\t%x fn_%d_%d (/usr/bin/app)\n", 4096 + j * 64 + id % 64, j, int(id / (2 ^ (j / 2 + 1))) % (j * 40 + 3)
			printf "\n"
		}
}' | "$SB" report -i 1s -f html -o "$T/hour.html" - 2>"$T/err" || { cat "$T/err"; exit 1; }
end=$(date +%s.%N)
size=$(wc -c <"$T/hour.html")
snaps=$(grep -o '"t":\[[^]]*' "$T/hour.html" | tr ',' '\n' | wc -l)
echo "one hour at -i 1s, $STACKS stacks a snapshot ($POOL distinct): $((snaps / 2)) snapshots," \
	"$size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f MB, %.2f bytes a stack a snapshot", s / 1e6, s / 3600 / '"$STACKS"' }'))," \
	"made in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
if [ -z "$CHROMIUM" ]; then
	skip "drawing the hour in Chromium" "no chromium"
	exit 0
fi
for r in "the whole hour:from=%2B0s&to=%2B3600s" "one minute:from=%2B1800s&to=%2B1860s" \
	"a minute against the one before:from=%2B1800s&to=%2B1860s&base_from=%2B1740s&base_to=%2B1800s"; do
	timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --window-size=1300,900 \
		--dump-dom "file://$T/hour.html#${r#*:}" 2>/dev/null >"$T/dom"
	st=$(grep -o 'id="sb-state">[^<]*' "$T/dom")
	f() { echo "$st" | grep -o "\"$1\":[^,}]*" | cut -d: -f2 | awk '{ printf "%.0f", $1 }'; }
	echo "${r%%:*}: drawn in $(f draw_ms) ms (the tree $(f sum_ms) ms, the rest the DOM of $(f frames) frames; total $(f total)), page loaded and drawn in $(f load_ms) ms"
done
