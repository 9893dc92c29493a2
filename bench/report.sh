#!/bin/sh
# report at scale (issue 36): a system-wide minute of oncpu recorded
# while a compile runs, then report's formats and --anomalies on 1, 2,
# 10 and 60 copies of it: wall and CPU time, peak RSS, MB/s of bin
# input, and the growth ratios. Peers on the same data: go tool pprof
# -top on report's pprof, flamegraph.pl on its folded output (not
# packaged by Debian: FLAMEGRAPH=/path/flamegraph.pl, else said absent).
#   sh bench/report.sh            root, from the repository root
# Knobs: RECORDING=FILE (skip the recording: use this bin file),
# COPIES="1 2 10 60", FORMATS="folded text pprof svg anomalies",
# SECS=60, KEEP=1, OLD=BINARY (another stackbox, e.g. main's, timed
# after ours on the same copies: a row "FORMAT old" each).
. bench/lib.sh
bench_start report
COPIES=${COPIES:-1 2 10 60}
FORMATS=${FORMATS:-folded text pprof svg anomalies}
SECS=${SECS:-60}
OLD=${OLD:-}
if [ -n "$OLD" ]; then
	# its own name is stackbox: the applet is chosen by argv[0]
	mkdir "$T/old"
	cp "$OLD" "$T/old/stackbox" || die "cannot read OLD=$OLD"
fi
FLAMEGRAPH=${FLAMEGRAPH:-$(command -v flamegraph.pl || :)}

# ev EXPR: its value (awk); fcmp EXPR: whether it holds
ev() { awk "BEGIN { printf \"%.6g\", $1 }"; }
fcmp() { awk "BEGIN { exit !($1) }"; }

# ---- the recording: oncpu -F 499 -i 200ms while the tree compiles ----
record() {
	mkdir "$T/src"
	git archive HEAD | tar -x -C "$T/src" || die "git archive failed"
	cp .config "$T/src/" 2>/dev/null || :
	(
		cd "$T/src" || exit 1
		while :; do
			make -s clean >/dev/null 2>&1
			make -s -j1 stackbox >/dev/null 2>&1
		done
	) &
	LOAD=$!
	LIVE="$LIVE $LOAD"
	sleep 2
	"$SB" oncpu -F 499 -i 200ms -d "$SECS" -f bin -o "$T/min.bin" ||
		die "oncpu failed"
	kill -- "$LOAD" 2>/dev/null
	pkill -P "$LOAD" 2>/dev/null || :
	wait "$LOAD" 2>/dev/null
}
if [ -n "${RECORDING:-}" ]; then
	cp "$RECORDING" "$T/min.bin" || die "cannot read $RECORDING"
else
	echo "recording ${SECS} s system-wide (oncpu -F 499 -i 200ms) under make -j1..."
	record
fi
size=$(stat -c %s "$T/min.bin")
echo "recording: $size bytes, $("$SB" report -f folded "$T/min.bin" 2>/dev/null | wc -l) folded lines"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) (shared: wall times move with it; CPU times less)"

# measure NAME CMD...: wall s, CPU s (user + sys), peak RSS KB into W C R
measure() {
	_n=$1
	shift
	_t0=$(date +%s.%N)
	"$PROBE" run "$T/$_n.res" "$@" >/dev/null 2>"$T/$_n.err"
	_t1=$(date +%s.%N)
	W=$(ev "$_t1 - $_t0")
	set -- $(awk '$1 == "cpu_ms" { print $2, $3, $5, $7 }' "$T/$_n.res")
	C=$(ev "($1 + $2) / 1000")
	R=$3
	[ "$4" = 0 ] || echo "   ($_n: exit status $4: $(head -c 200 "$T/$_n.err"))"
}

args_of() {
	_a=
	for _i in $(seq "$1"); do _a="$_a $T/min.bin"; done
	echo "$_a"
}

printf '\n%-10s %6s %9s %9s %9s %10s %8s %8s\n' format copies "input MB" "wall s" "cpu s" "MB/s(cpu)" "RSS MB" "x time"
for f in $FORMATS; do
	base=
	for n in $COPIES; do
		case $f in
		anomalies) opt="--anomalies -f json" ;;
		*) opt="-f $f" ;;
		esac
		measure "$f.$n" "$SB" report $opt -o "$T/out.$f" $(args_of "$n")
		mb=$(ev "$n * $size / 1e6")
		[ -n "$base" ] || base=$C
		printf '%-10s %6s %9.1f %9.2f %9.2f %10.1f %8.1f %8.2f\n' "$f" "$n" "$mb" \
			"$W" "$C" "$(ev "$mb / ($C + 0.0001)")" "$(ev "$R / 1024")" \
			"$(ev "$C / ($base + 0.0001)")"
		eval "cpu_${f}_$n=$C rss_${f}_$n=$R"
		if [ -n "$OLD" ]; then
			measure "$f.$n.old" "$T/old/stackbox" report $opt -o "$T/out.old.$f" $(args_of "$n")
			printf '%-10s %6s %9.1f %9.2f %9.2f %10.1f %8.1f\n' "$f old" "$n" "$mb" \
				"$W" "$C" "$(ev "$mb / ($C + 0.0001)")" "$(ev "$R / 1024")"
			cmp -s "$T/out.$f" "$T/out.old.$f" || echo "   ($f, $n copies: old and new outputs differ)"
		fi
		# the peers on what report made of the same copies
		if [ "$f" = pprof ] && command -v go >/dev/null; then
			measure "gopprof.$n" go tool pprof -top "$T/out.pprof"
			printf '%-10s %6s %9s %9.2f %9.2f %10s %8.1f\n' "  go pprof" "$n" "-" "$W" "$C" "-" "$(ev "$R / 1024")"
		fi
		if [ "$f" = folded ] && [ -n "$FLAMEGRAPH" ]; then
			measure "flamegraph.$n" sh -c "perl '$FLAMEGRAPH' '$T/out.folded' >'$T/fg.svg'"
			printf '%-10s %6s %9s %9.2f %9.2f %10s %8.1f\n' "  flamegr." "$n" "-" "$W" "$C" "-" "$(ev "$R / 1024")"
		fi
	done
done
[ -n "$FLAMEGRAPH" ] || echo "flamegraph.pl: absent (Debian has no package; FLAMEGRAPH=/path/flamegraph.pl to compare)"
command -v go >/dev/null || echo "go tool pprof: absent (golang-go)"

# ---- growth and the issue's targets ----
echo
echo "growth of CPU time (x time above): 2 copies / 1 copy, per format"
for f in $FORMATS; do
	eval "c1=\${cpu_${f}_1:-} c2=\${cpu_${f}_2:-}"
	[ -n "$c1" ] && [ -n "$c2" ] && printf '  %-10s %.2f\n' "$f" "$(ev "$c2 / ($c1 + 0.0001)")"
done
eval "c1=\${cpu_anomalies_1:-} r1=\${rss_anomalies_1:-} c2=\${cpu_anomalies_2:-}"
if [ -n "$c1" ] && [ -n "$c2" ]; then
	echo "targets (issue 36), on CPU time:"
	echo "  --anomalies, 1 copy: $c1 s (<= 5), $(ev "$r1 / 1024") MB (<= 100): $(fcmp "$c1 <= 5 && $r1 <= 102400" && echo met || echo missed)"
	echo "  --anomalies, 2 copies / 1: $(ev "$c2 / $c1") (<= 2.2): $(fcmp "$c2 <= 2.2 * $c1" && echo met || echo missed)"
fi
for f in $FORMATS; do
	[ "$f" = anomalies ] && continue
	last=
	for n in $COPIES; do last=$n; done
	eval "c=\${cpu_${f}_$last:-}"
	[ -n "$c" ] || continue
	mbs=$(ev "$last * $size / 1e6 / ($c + 0.0001)")
	echo "  $f at $last copies: $mbs MB/s of bin input (>= 20): $(fcmp "$mbs >= 20" && echo met || echo missed)"
done
