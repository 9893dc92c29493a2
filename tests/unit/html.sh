#!/bin/sh
# report -f html without a browser: the page holds no reference to
# anything outside it, forbids fetching, and its data gives back the
# stacks and values folded has (one stream an applet, several inputs).
# tests/integration/html.sh opens it in Chromium.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FX=$SRCTREE/tests/unit/fixtures

sb_report -f html -o "$T/p.html" "$FX/perf-script.txt" "$FX/perf-vmlinux.folded" 2>"$T/err"
check "report -f html of perf script and folded input: written, nothing said ($(head -1 "$T/err"))" \
	[ -s "$T/p.html" -a ! -s "$T/err" ]
check "the page forbids every fetch (Content-Security-Policy default-src 'none')" \
	grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'" "$T/p.html"
check "the page names nothing outside it: no src=, href=, url(, @import, http(s)://" \
	sh -c "! grep -qiE 'src=|href=|url\(|@import|https?://' '$T/p.html'"
if ! command -v python3 >/dev/null; then
	skip "the page's data against folded" "no python3"
	exit 0
fi
check "one stream an applet, each with its snapshots (perf 1, folded 1)" \
	[ "$(python3 "$SRCTREE/tests/html_data.py" "$T/p.html" | tr '\n' ' ')" = "perf 1 folded 1 " ]
python3 "$SRCTREE/tests/html_data.py" "$T/p.html" perf >"$T/perf"
python3 "$SRCTREE/tests/html_data.py" "$T/p.html" folded >"$T/folded"
check "the page's perf stream is report -f folded's lines" cmp -s "$T/perf" "$FX/perf-script.folded"
check "the page's folded stream is the folded input" cmp -s "$T/folded" "$FX/perf-vmlinux.folded"
sb_report -i 200ms -f html -o "$T/i.html" "$FX/perf-script.txt"
python3 "$SRCTREE/tests/html_data.py" "$T/i.html" perf >"$T/i"
check "-i 200ms: $(python3 "$SRCTREE/tests/html_data.py" "$T/i.html") snapshots, summed back to folded's lines" \
	sh -c "[ \"\$(python3 '$SRCTREE/tests/html_data.py' '$T/i.html')\" = 'perf 2' ] && cmp -s '$T/i' '$FX/perf-script.folded'"
