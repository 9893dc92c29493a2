#!/bin/sh
# The Grafana dashboard queries what report --push sends: each collector
# records a moment of its workload, report --push sends it to a receiver
# standing in for Pyroscope (tests/workloads/httprecv), and
# tests/grafana_check.py works out the profile types Pyroscope makes of
# each pushed profile (its name rule, period and sample types) and the
# labels the push carries; every query must use one of those.
. "$SRCTREE/tests/lib.sh"
need_bpf "Grafana dashboard against report --push"
if ! command -v python3 >/dev/null; then
	skip "Grafana dashboard against report --push" "no python3"
	exit 0
fi
W=$WORKLOADS
D=
for base in /var/tmp "$SRCTREE"; do # rastack needs a block-backed file system
	case $(stat -f -c %T "$base" 2>/dev/null) in
	tmpfs | ramfs | overlayfs | "") continue ;;
	esac
	D=$(mktemp -d "$base/grafana.XXXXXX") && break
done
trap 'rm -rf "$T" "$D"' EXIT

record() {
	a=$1
	shift
	"$STACKBOX" "$a" -f bin -o "$T/$a.bin" "$@" >/dev/null 2>"$T/$a.err"
}
record oncpu -F 99 -- "$W/burn" 0.3
record offcpu -- "$W/block"
record memstack -s 16k -- "$W/memstack" sample 20000 256
record iostack -- "$W/io" all "$T"
[ -n "$D" ] && record rastack -- "$W/ra" seq "$D" 4
record stackcount t:syscalls:sys_enter_write -- sh -c 'echo a; echo b'
caps=
for a in oncpu offcpu memstack iostack rastack stackcount; do
	if [ ! -s "$T/$a.bin" ]; then
		skip "push of $a" "no recording: $(head -1 "$T/$a.err" 2>/dev/null)"
		continue
	fi
	"$W/httprecv" "$T/h-$a" >"$T/h-$a.port" &
	recv=$!
	wait_for 30 test -s "$T/h-$a.port"
	sb_report --push "http://127.0.0.1:$(cat "$T/h-$a.port")" "$T/$a.bin" >/dev/null 2>"$T/push-$a.err"
	check "report --push of $a exits 0" [ $? = 0 ]
	wait $recv
	caps="$caps $T/h-$a.head $T/h-$a.profile"
done
python3 "$SRCTREE/tests/grafana_check.py" push "$SRCTREE/board/grafana/stackbox.json" $caps
# the same check must fail on a query of a type no push of its applet makes
sed 's/"blocked:blocked:nanoseconds::"/"process_cpu:cpu:nanoseconds:cpu:nanoseconds"/' \
	"$SRCTREE/board/grafana/stackbox.json" >"$T/wrong.json"
python3 "$SRCTREE/tests/grafana_check.py" push "$T/wrong.json" $caps >"$T/wrong.out"
check "the check rejects an offcpu query of oncpu's profile type" \
	sh -c "[ $? = 1 ] && grep -q '^FAIL push: offcpu' '$T/wrong.out'"
