#!/bin/sh
# Zoom in report's SVG flame graph, in headless Chromium (Debian's
# chromium: big, so it is not in scripts/setup.sh; without it this
# says SKIP). The labels need no script (tests/integration/flame.sh
# checks them with rsvg-convert); this checks what the script adds.
#   sh bench/flame-zoom.sh [FILE.bin]   root, from the repository root
# Without FILE, oncpu records tests/workloads/burn for 1 s. The SVG is
# put inline in a page whose last script clicks burn_two_thirds' frame,
# as a user would (a bubbling click event); Chromium's --dump-dom gives
# the page after its scripts ran, --screenshot the picture before and
# after (KEEP=1 keeps them).
. "${SRCTREE:-.}/tests/lib.sh"
SB=${STACKBOX:-./stackbox}
BURN=${WORKLOADS:-obj/tests/workloads}/burn
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$CHROMIUM" ]; then
	skip "flame graph zoom in Chromium" "no chromium (apt-get install chromium)"
	exit 0
fi
T=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "files in $T" || trap 'rm -rf "$T"' EXIT
if [ -n "${1:-}" ]; then
	cp "$1" "$T/b.bin"
else
	"$SB" oncpu -F 199 -f bin -o "$T/b.bin" -- "$BURN" 1 2>/dev/null
fi
"$SB" report -f svg -o "$T/f.svg" "$T/b.bin" || exit 1
if ! grep -q '<title>burn_two_thirds (' "$T/f.svg"; then
	skip "flame graph zoom in Chromium" "no burn_two_thirds frame in the graph (a recording of another build of burn?)"
	exit 0
fi

# page NAME CLICK: the SVG inline; CLICK: also click the frame
page() {
	{
		echo '<!DOCTYPE html><html><body style="margin:0">'
		sed 1d "$T/f.svg"
		[ "$2" = click ] && cat <<'EOF'
<script>
[].slice.call(document.querySelectorAll('g.f')).filter(function(g) {
	return /^burn_two_thirds \(/.test(g.querySelector('title').textContent);
})[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));
</script>
EOF
		echo '</body></html>'
	} >"$T/$1.html"
}
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--window-size=1200,400 "$@" 2>>"$T/chromium.err"
}
page before none
page after click
chrome --screenshot="$T/before.png" "file://$T/before.html"
chrome --screenshot="$T/after.png" "file://$T/after.html"
chrome --dump-dom "file://$T/after.html" >"$T/after.dom"
if [ ! -s "$T/after.dom" ]; then
	fail "Chromium loads the page" "$(tail -2 "$T/chromium.err" | tr '\n' ' ')"
	exit 1
fi
# frame NAME: "x width display" of its first frame after the click
frame() {
	grep "<title>$1 (" "$T/after.dom" | head -1 | sed -n \
		's/.*<g class="f"\([^>]*\)><title>.*<rect x="\([0-9.]*\)" y="[0-9]*" width="\([0-9.]*\)".*/\2 \3 \1/p' |
		awk '{ print $1, $2, (/display: none/ ? "hidden" : "shown") }'
}
set -- $(frame burn_two_thirds)
check "click: burn_two_thirds spans the graph (x $1, width $2)" [ "$1" = 0 -a "$2" = 1200 -a "$3" = shown ]
set -- $(frame burn_one_third)
check "click: burn_one_third beside it is hidden ($3)" [ "$3" = hidden ]
set -- $(frame main)
check "click: main, an ancestor, spans the graph (width $2)" [ "$2" = 1200 -a "$3" = shown ]
# labels: "data-x data-d characters" of every frame shown
labels() {
	sed -n 's/.*<g class="f" data-x="\([0-9.]*\)" data-w="[0-9.]*" data-d="\([0-9]*\)"\( style="display: none;"\)*><title>.*<text[^>]*>\([^<]*\)<\/text>.*/\1 \2 \3 \4/p' "$1" |
		awk '$3 != "style=\"display:" { print $1, $2, length($3) }'
}
labels "$T/f.svg" | sort >"$T/l.before"
labels "$T/after.dom" | sort >"$T/l.after"
longer=$(join -j 1 "$T/l.before" "$T/l.after" | awk '$2 == $4 && $5 > $3' | wc -l)
check "click: labels redrawn for the new widths ($longer frames show more of their name)" [ "$longer" -gt 0 ]
check "screenshots before and after the click differ" \
	sh -c "[ -s '$T/before.png' ] && [ -s '$T/after.png' ] && ! cmp -s '$T/before.png' '$T/after.png'"
