#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The anomaly detector (common/lib/anomaly.c) on the Numenta Anomaly
# Benchmark: bench/nab.c runs it over every NAB data file, writes NAB's
# result layout (RESULTS/NAME/CATEGORY/NAME_FILE.csv with
# timestamp,value,anomaly_score,label; label is 1 inside a labelled
# window), and prints the three profiles' scores from our own
# implementation of NAB's scoring, points per second and the bytes of
# state per series. With NAB_DIR (a checkout of github.com/numenta/NAB)
# it also runs NAB's own scorer on the same results and prints its scores
# beside ours and the leaderboard's.
#
#   sh bench/nab.sh                       no root, about 2 s
#   NAB_DIR=/tmp/nab sh bench/nab.sh      NAB's scorer too: minutes
#
# Knobs (environment): NAB_DATA (the NAB data and labels, default
# ../shared/nab beside the repository, or beside the main worktree), NAME (the detector's name in NAB,
# no underscore: stackbox), RESULTS (out/nab/results), NAB_DIR, PYTHON
# (one with pandas: Debian's /usr/bin/python3 and python3-pandas),
# NAB_CPUS (2), CC.
set -eu

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
# shared/ sits beside the clone; a worktree finds it beside the main one
common=$(cd "$top" && cd "$(git rev-parse --git-common-dir)/.." && pwd)
for d in "$top/../shared/nab" "$common/../shared/nab"; do
	[ -n "${NAB_DATA:-}" ] || [ ! -d "$d/data" ] || NAB_DATA=$d
done
NAB_DATA=${NAB_DATA:-$top/../shared/nab}
NAME=${NAME:-stackbox}
RESULTS=${RESULTS:-$top/out/nab/results}
PYTHON=${PYTHON:-/usr/bin/python3}
NAB_CPUS=${NAB_CPUS:-2}
CC=${CC:-cc}
WINDOWS=$NAB_DATA/labels/combined_windows.json

[ -d "$NAB_DATA/data" ] && [ -f "$WINDOWS" ] ||
	die "no NAB data in $NAB_DATA (set NAB_DATA to a directory with data/ and labels/)"
case $NAME in *_*) die "NAME must not contain an underscore: $NAME" ;; esac

bin=$top/out/nab/nab
mkdir -p "$(dirname "$bin")" "$RESULTS"
$CC -O2 -Wall -Wextra -I"$top/common/lib" -o "$bin" "$top/bench/nab.c" \
	"$top/common/lib/anomaly.c" -lm
rm -rf "${RESULTS:?}/$NAME"
echo "== detector $NAME over $NAB_DATA/data (results in $RESULTS/$NAME)"
"$bin" -o "$RESULTS/$NAME" -n "$NAME" "$NAB_DATA/data" "$WINDOWS" | tee "$RESULTS/$NAME.ours"

[ -n "${NAB_DIR:-}" ] || {
	echo "(NAB_DIR unset: NAB's own scorer not run; the scores above are our implementation of it)"
	exit 0
}
[ -f "$NAB_DIR/run.py" ] || die "NAB_DIR=$NAB_DIR has no run.py"
"$PYTHON" -c 'import pandas' 2>/dev/null ||
	die "$PYTHON has no pandas (apt-get install python3-pandas)"
rm -rf "${NAB_DIR:?}/results/$NAME"
cp -r "$RESULTS/$NAME" "$NAB_DIR/results/$NAME"
echo "== NAB's scorer (run.py in $NAB_DIR)"
(cd "$NAB_DIR" && "$PYTHON" run.py -d "$NAME" --optimize --score --normalize \
	--skipConfirmation -n "$NAB_CPUS") >"$RESULTS/$NAME.nab" 2>&1 ||
	die "NAB's run.py failed: see $RESULTS/$NAME.nab"
awk -v name="$NAME" '
	FNR == NR && /^(standard|reward)/ { ours[$1] = $2; next }
	/^Final score for/ {
		split($0, q, "\047")
		nab[q[4]] = $NF
	}
	END {
		board["standard"] = "58.2 58.0 54.6"
		board["reward_low_FP_rate"] = "46.2 43.4 47.6"
		board["reward_low_FN_rate"] = "63.9 64.8 58.8"
		printf "%-20s %8s %8s   %s\n", "profile", "NAB", "ours",
			"leaderboard: Skyline KNN-CAD RelEntropy"
		n = split("standard reward_low_FP_rate reward_low_FN_rate", ps, " ")
		for (i = 1; i <= n; i++)
			printf "%-20s %8s %8s   %s\n", ps[i], nab[ps[i]],
				ours[ps[i]], board[ps[i]]
	}' "$RESULTS/$NAME.ours" "$RESULTS/$NAME.nab"
