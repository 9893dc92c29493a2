#!/bin/sh
# report --anomalies at the scale of an hour: 3,600 one-second
# snapshots of 5,000 stacks (tests/unit/anomaly_stream.c, written
# through the tree's bin writer), five of which change phase at known
# seconds. Each change is found, of its kind, at its second (+-1), and
# nothing else; the work is bounded as a count (values of series read
# to judge them, and series given detectors: report -v says both) and
# the memory by getrusage's ru_maxrss of report. The plain binary: the
# sanitized one's shadow memory is not report's.
. "$SRCTREE/tests/lib.sh"
if ! "$STACKBOX" report --help >/dev/null 2>&1; then
	skip "report --anomalies at scale" "report is not in this build's configuration"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GEN=$TESTS_O/unit/anomaly_stream
SNAPS=3600
STACKS=5000
# At most this many values read per interval: a series judged reads a
# few per interval (its detectors), a change its window once per split
# tried (64), a change waiting for its regime to end its baseline again
# per interval; 5 series need about 550 per interval.
READS_PER_INTERVAL=2000
# Series given detectors: the five changing stacks; the 5,000 others
# never reach half the floor (5 % of an interval's samples).
MAX_SERIES=20
# Memory: the window's 512 intervals of 5,000 stacks, not the hour's.
MAX_RSS_KIB=32768

"$GEN" write "$T/long.bin" $SNAPS $STACKS >"$T/changes"
check "anomaly_stream wrote $SNAPS snapshots of $STACKS stacks" [ $? = 0 -a -s "$T/long.bin" ]
"$GEN" rusage "$STACKBOX" report --anomalies -v -f json -o "$T/long.json" \
	"$T/long.bin" 2>"$T/err"
check "report --anomalies exits 0" [ $? = 0 ]

field() { sed -e 's/,"also":.*//' -n -e "s/.*\"$1\":\"*\([^\",]*\).*/\1/p"; }
while read -r _ kind leaf at; do
	line=$(grep "\"leaf\":\"$leaf\"" "$T/long.json")
	got="$(echo "$line" | field kind) $(echo "$line" | field start)"
	check "$leaf: $kind at $at (+-1): $got" \
		fcmp "\"$(echo "$got" | cut -d' ' -f1)\" == \"$kind\" && $(echo "$got" | cut -d' ' -f2) >= $at - 1 && $(echo "$got" | cut -d' ' -f2) <= $at + 1"
done <"$T/changes"
n=$(grep -c '"kind"' "$T/long.json")
check "nothing else: $n anomalies, $(wc -l <"$T/changes") changes" [ "$n" = "$(wc -l <"$T/changes")" ]

work=$(grep -- '--anomalies: oncpu:' "$T/err")
series=$(echo "$work" | sed -n 's/.* \([0-9]*\) series judged.*/\1/p')
reads=$(echo "$work" | sed -n 's/.* \([0-9]*\) values read.*/\1/p')
check "series judged: ${series:-?} <= $MAX_SERIES of $((STACKS + 5)) stacks" \
	[ "${series:-999999}" -le $MAX_SERIES ]
check "work: ${reads:-?} values read <= $READS_PER_INTERVAL a snapshot ($((READS_PER_INTERVAL * SNAPS)))" \
	[ "${reads:-999999999}" -le $((READS_PER_INTERVAL * SNAPS)) ]
rss=$(sed -n 's/^maxrss_kib //p' "$T/err")
check "memory: report's ru_maxrss ${rss:-?} KiB <= $MAX_RSS_KIB KiB" \
	[ "${rss:-999999999}" -le $MAX_RSS_KIB ]
