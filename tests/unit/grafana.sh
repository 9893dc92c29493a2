#!/bin/sh
# board/grafana/stackbox.json, the Grafana dashboard for what report
# --push sends: the model's shape (tests/grafana_check.py json), per
# collector applet (those with BPF programs, bpf/*.bpf.c). The profile types against
# real pushes: tests/integration/grafana.sh.
. "$SRCTREE/tests/lib.sh"
if ! command -v python3 >/dev/null; then
	skip "Grafana dashboard" "no python3 to read the JSON"
	exit 0
fi
applets=$(cd "$SRCTREE/bpf" && ls *.bpf.c | sed 's/\.bpf\.c$//')
python3 "$SRCTREE/tests/grafana_check.py" json "$SRCTREE/board/grafana/stackbox.json" $applets
