#!/bin/sh
# A process in a pid namespace of its own (a container's): text shows its
# pid there beside the host's, the bin stream carries it to report, and
# pprof labels carry both. burn runs as pid 1 of a new namespace
# (unshare -p -f --mount-proc); a process in ours shows no nspid.
. "$SRCTREE/tests/lib.sh"
need_bpf "NSpid"
BURN=$WORKLOADS/burn
if ! unshare -p -f --mount-proc true 2>/dev/null; then
	skip "NSpid" "unshare -p -f --mount-proc fails here (no CLONE_NEWPID?)"
	exit 0
fi
# (burn outlives the BPF load and -d 1 on any load, and is killed then)
unshare -p -f --mount-proc "$BURN" 60 &
u=$!
child() { pid=$(pgrep -P $u); }
wait_for 60 child
check "burn runs as pid 1 of its namespace (host pid $pid)" \
	grep -q "^NSpid:[[:space:]]*$pid[[:space:]]*1$" /proc/$pid/status
STACKBOX_BIN_TEE=$T/ns.bin "$STACKBOX" oncpu -p "$pid" -d 1 >"$T/ns.text" 2>&1
kill -KILL "$pid" # (pid 1 of its namespace: SIGTERM from outside is ignored)
wait $u
check "text: burn pid $pid nspid 1" grep -q "burn pid $pid nspid 1 " "$T/ns.text"
check "text: every row of it says so" test -z "$(grep " pid $pid " "$T/ns.text" | grep -v ' nspid 1 ')"
sb_report "$T/ns.bin" >"$T/ns.report" 2>&1
check "report of the bin: the same text" cmp -s "$T/ns.text" "$T/ns.report"
sb_report -f pprof -o "$T/ns.pb.gz" "$T/ns.bin" 2>/dev/null
if command -v go >/dev/null; then
	GOCACHE=$T/go-cache go tool pprof -tags "$T/ns.pb.gz" >"$T/tags" 2>/dev/null
	check "pprof labels: pid $pid" sh -c "sed -n '/^ pid:/,/^\$/p' '$T/tags' | grep -q '100%): $pid\$'"
	check "pprof labels: nspid 1" sh -c "sed -n '/^ nspid:/,/^\$/p' '$T/tags' | grep -q '100%): 1\$'"
else
	skip "pprof labels" "go not installed (Debian golang-go; make setup installs it)"
fi

"$STACKBOX" oncpu -d 1 -- "$BURN" 1 >"$T/host.text" 2>&1
check "a process in our own namespace: no nspid" sh -c "grep -q 'burn pid' '$T/host.text' && ! grep -q nspid '$T/host.text'"
