#!/bin/sh
# report -f svg without scripts: every frame wide enough has its label in
# the SVG, cut to its bar, and a renderer that runs no script (rsvg-convert)
# draws them. Zoom in a browser: bench/flame-zoom.sh (headless Chromium).
# The title holds the total and the span; a differential graph draws
# every frame, the unchanged grey.
. "$SRCTREE/tests/lib.sh"
need_bpf "flame graph labels"

"$STACKBOX" oncpu -F 199 -i 250ms -f bin -o "$T/b.bin" -- "$WORKLOADS/burn" 1 2>/dev/null
sb_report -f svg -o "$T/f.svg" "$T/b.bin"
check "report -f svg exits 0" [ $? = 0 ]

# the title: applet, the total as folded sums it (grouped by thousands),
# the CPU time it stands for, host, and the span from the first
# snapshot's start to the last one's end (text's header times, to the
# second), or of the snapshots --from/--to keep
# title_of SVG: the title's text; span_of TEXT: "DATE START .. END"
title_of() { sed -n 's|^<text x="600" y="20"[^>]*>\(.*\)</text>$|\1|p' "$1"; }
span_of() {
	sed -n 's/^=== .*: \([0-9-]*\) \([0-9:]*\)\.[0-9]* \.\. \([0-9:]*\)\..*/\1 \2 \3/p' "$1" |
		awk 'NR == 1 { d = $1; s = $2 } { e = $3 } END { print d, s, "..", e }'
}
sum_of() { awk '{ s += $NF } END { printf "%d", s }' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
# (--from past the first snapshot, however long a loaded machine made
# it: one spanned 1.09 s at -i 250ms, and +500ms dropped nothing)
after=$(sb_report "$T/b.bin" 2>/dev/null | sed -n '1s/^=== .*(\([0-9.]*\) s)$/\1/p' | awk '{ printf "%d", $1 * 1000 + 1 }')
for slice in "" "--from +${after}ms"; do
	sb_report $slice -f svg -o "$T/t.svg" "$T/b.bin" 2>/dev/null
	sb_report $slice -f folded "$T/b.bin" >"$T/t.folded" 2>/dev/null
	sb_report $slice "$T/b.bin" >"$T/t.text" 2>/dev/null
	title=$(title_of "$T/t.svg")
	n=$(grep -c '^=== ' "$T/t.text")
	check "SVG title ${slice:-of all} ($n snapshots): $title" \
		sh -c "echo '$title' | grep -qF 'oncpu: $(sum_of "$T/t.folded") samples (' &&
			echo '$title' | grep -qF ' of CPU) on ' &&
			echo '$title' | grep -qE ', $(span_of "$T/t.text") \([0-9.]+ m?s\)\$'"
done
check "SVG title: --from +${after}ms drew fewer snapshots than all" \
	[ "$(grep -c '^=== ' "$T/t.text")" -lt "$(sb_report "$T/b.bin" 2>/dev/null | grep -c '^=== ')" ]

# differential: a recording against itself changed nowhere, and every
# frame still has a bar, in a neutral grey (they were white on white);
# against burn at RATIO 1 the grown and shrunk keep red and blue
sb_report -f svg --base "$T/b.bin" -o "$T/self.svg" "$T/b.bin"
frames=$(grep -c '^<g class="f"' "$T/self.svg")
grey=$(grep '^<g class="f"' "$T/self.svg" | grep -c '<rect [^>]*width="[0-9.]*[1-9][0-9.]*" [^>]*fill="rgb(221,221,221)"')
same=$(grep '^<g class="f"' "$T/self.svg" | grep -c '<title>[^<]*; base [0-9]*, unchanged)</title>')
rects=$(grep '^<g class="f"' "$T/self.svg" | grep -o '<rect ' | wc -l)
check "differential against itself: $frames frames, $rects bars, $grey grey with width, $same tooltips unchanged" \
	[ "$frames" -gt 5 -a "$rects" = "$frames" -a "$grey" = "$frames" -a "$same" = "$frames" ]
"$STACKBOX" oncpu -F 199 -f bin -o "$T/even.bin" -- "$WORKLOADS/burn" 1 1 1 cpu 2>/dev/null
sb_report -f svg --base "$T/b.bin" -o "$T/diff.svg" "$T/even.bin"
# fill_of NAME: the fill of NAME's first frame
fill_of() { sed -n "s|^<g class=\"f\"[^>]*><title>$1 ([^)]*)</title><rect [^>]*fill=\"\([^\"]*\)\".*|\1|p" "$T/diff.svg" | head -1; }
check "differential against RATIO 1: burn_one_third grew, red ($(fill_of burn_one_third))" \
	grep -qE '<title>burn_one_third \([^)]*, \+[0-9.]+%\)</title><rect [^>]*fill="rgb\(255,([0-9]{1,2}|1[0-9]{2}|2[0-4][0-9]|25[0-4]),\1\)"' "$T/diff.svg"
check "differential against RATIO 1: burn_two_thirds shrank, blue ($(fill_of burn_two_thirds))" \
	grep -qE '<title>burn_two_thirds \([^)]*, -[0-9.]+%\)</title><rect [^>]*fill="rgb\(([0-9]+),\1,255\)"' "$T/diff.svg"
# (the root is unchanged by construction: the base is scaled to its total)
check "differential against RATIO 1: the root unchanged, grey ($(fill_of all))" \
	grep -qE '<title>all \([^)]*, unchanged\)</title><rect [^>]*fill="rgb\(221,221,221\)"' "$T/diff.svg"
if ! command -v python3 >/dev/null; then
	skip "SVG labels" "no python3 to read the SVG"
	exit 0
fi
set -- $(python3 "$SRCTREE/tests/svg_labels.py" "$T/f.svg" burn_two_thirds spin_until)
# frames F wide N labelled L overflow O cut C full-missing M blank B ...
echo "labels: $*"
check "SVG: every frame 3 characters wide has a label ($6 of $4 of $2 frames)" \
	[ "$4" -gt 0 -a "${14}" = 0 -a "$6" -ge "$4" ]
check "SVG: no label is wider than its bar, a cut one ends in '..' ($8 over, ${10} cut)" [ "$8" = 0 ]
check "SVG: a frame with room for its whole name shows it whole (${12} do not)" [ "${12}" = 0 ]
check "SVG: burn_two_thirds and spin_until are text nodes" [ "${16}" = yes -a "${18}" = yes ]

if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$T/f.png" "$T/f.svg" 2>"$T/rsvg.err"
	check "rsvg-convert renders it (no script runs there)" \
		sh -c "[ -s '$T/f.png' ] && head -c 4 '$T/f.png' | od -An -c | grep -q 'P   N   G'"
	# the same picture with the frames' labels emptied must differ: the
	# renderer drew the labels, not only the bars
	sed 's|\(<text x="[0-9.]*" y="[0-9]*">\)[^<]*</text></g>|\1</text></g>|' \
		"$T/f.svg" >"$T/blank.svg"
	rsvg-convert -o "$T/blank.png" "$T/blank.svg" 2>/dev/null
	check "rsvg-convert draws the labels (the picture without them differs)" \
		sh -c "[ -s '$T/blank.png' ] && ! cmp -s '$T/f.png' '$T/blank.png'"
else
	skip "rsvg-convert renders the SVG" "rsvg-convert not installed (Debian librsvg2-bin; make setup installs it)"
fi
