#!/bin/sh
# Every snapshot header says which filters the command line set, in the
# text and in the bin stream, so report shows the same line; none, no
# line. offcpu -m with a unit runs (a bare number: tests/unit/multicall.sh).
. "$SRCTREE/tests/lib.sh"
need_bpf "snapshot filters"

# a shell that waits 50 ms for each child: blocks -m 1ms keeps
sh -c 'while :; do sleep 0.05; done' & spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$T"' EXIT

STACKBOX_BIN_TEE=$T/f.bin "$STACKBOX" offcpu -v -p $spid -m 1ms --state S,D \
	-d 2 -i 0 >"$T/f.txt" 2>"$T/f.err"
check "offcpu -p PID -m 1ms --state S,D runs (rc 0)" [ $? = 0 ]
want="filters: -p $spid -m 1ms --state S,D"
check "the text header has the filters line, as given" \
	[ "$(grep '^filters:' "$T/f.txt")" = "$want" ]
check "it follows the applet's line" \
	[ "$(sed -n '3p' "$T/f.txt")" = "$want" ]
check "-v says the filters too" grep -qx "offcpu: $want" "$T/f.err"
check "the filtered run counted the shell's waits" grep -q ' pid '"$spid"' ' "$T/f.txt"
sb_report "$T/f.bin" >"$T/r.txt" 2>"$T/r.err"
check "report of its bin stream exits 0" [ $? = 0 ]
check "report shows the same filters line" \
	[ "$(grep '^filters:' "$T/r.txt")" = "$want" ]
check "report's header is the collector's" \
	[ "$(sed -n 2,3p "$T/r.txt")" = "$(sed -n 2,3p "$T/f.txt")" ]

# a default value filters nothing; no filter, no line
"$STACKBOX" offcpu --state S,D,R -d 1 -i 0 --top 1 >"$T/n.txt" 2>&1
check "no filter: no filters line (--state S,D,R is all states)" \
	[ "$(grep -c '^filters:' "$T/n.txt")" = 0 ]
check "no filter: the run still has its header" grep -q '^=== offcpu snapshot 1' "$T/n.txt"
