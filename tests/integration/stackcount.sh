#!/bin/sh
# stackcount against tests/workloads/counted.c, whose events are reached
# a known number of times from two known stacks: exact counts per stack
# for uprobes (glibc dynamic, musl static), return probes, a library
# named by its name in -p's maps, a tracepoint with an in-kernel filter
# and a summed field, several events at once, the bin stream through
# report, and one clear line for each bad event, filter and field.
. "$SRCTREE/tests/lib.sh"
need_bpf "stackcount integration"
CT=$WORKLOADS/counted
USER_PROBES=
MUSL=${OUT:+$OUT/musl-x86_64/workloads}

# sc OUT ARGS...: stackcount ARGS, folded to OUT, errors to OUT.err
sc() {
	out=$1
	shift
	"$STACKBOX" stackcount -f folded "$@" >"$out" 2>"$out.err"
}

# ---- uprobes: exact counts per call site ----
calls() {
	label=$1 w=$2
	sc "$T/u" "u:$w:counted_target" -- "$w" calls 3000 1000
	folded_is "$label u:FILE:FUNCTION: call_a's 3000 calls" "$T/u" ';main;call_a;counted_target ' 3000
	folded_is "$label u:FILE:FUNCTION: call_b's 1000 calls" "$T/u" ';main;call_b;counted_target ' 1000
	folded_is "$label u:FILE:FUNCTION: nothing else" "$T/u" '' 4000
	sc "$T/ur" "ur:$w:counted_target" -- "$w" calls 3000 1000
	# a return probe fires in the caller: the return address is the leaf
	folded_is "$label ur:FILE:FUNCTION: returns into call_a" "$T/ur" ';main;call_a ' 3000
	folded_is "$label ur:FILE:FUNCTION: returns into call_b" "$T/ur" ';main;call_b ' 1000
	# arguments and return values are fields: counted_target(i) gets
	# i = 0..2999 from call_a, 0..999 from call_b, and returns i & 1
	sc "$T/ua" --filter 'arg0 < 1000' "u:$w:counted_target" -- "$w" calls 3000 1000
	folded_is "$label --filter 'arg0 < 1000' on a uprobe: call_a's first 1000" "$T/ua" ';call_a;counted_target ' 1000
	folded_is "$label --filter 'arg0 < 1000' on a uprobe: all of call_b's" "$T/ua" ';call_b;counted_target ' 1000
	sc "$T/uv" --value arg0 "u:$w:counted_target" -- "$w" calls 3000 1000
	folded_is "$label --value arg0: 0 + 1 + ... + 2999 from call_a" "$T/uv" ';call_a;counted_target ' 4498500
	folded_is "$label --value arg0: 0 + 1 + ... + 999 from call_b" "$T/uv" ';call_b;counted_target ' 499500
	sc "$T/ut" --filter 'ret == 1' "ur:$w:counted_target" -- "$w" calls 3000 1000
	folded_is "$label --filter 'ret == 1' on a return probe: call_a's odd 1500" "$T/ut" ';main;call_a ' 1500
	folded_is "$label --filter 'ret == 1' on a return probe: call_b's odd 500" "$T/ut" ';main;call_b ' 500
}
calls glibc "$CT"
if [ -x "$MUSL/counted" ]; then
	calls musl-static "$MUSL/counted"
else
	skip "stackcount musl-static" "no x86_64 musl workload (make check builds out/musl-x86_64/workloads)"
fi

# ---- -p PID: waits for SIGUSR1 once stackcount -p has attached ----
# pstart ARGS...: start counted ARGS waiting; $wl its shell pid, $pid its pid
pstart() {
	rm -f "$T/pid"
	"$CT" "$@" "$T/pid" &
	wl=$!
	wait_for 60 test -s "$T/pid"
	pid=$(cat "$T/pid")
}
# ready ERR: attached, and probes in files placed for -p's process
# (that comes after the attach line)
ready() { attached "$1" && { [ -z "$USER_PROBES" ] || grep -q "$USER_PROBES" "$1"; }; }
# prun OUT ARGS...: stackcount -v -p $pid ARGS until the workload ends;
# USER_PROBES=RE: wait for that -v line of the uprobes placed too
prun() {
	out=$1
	shift
	: >"$out.err"
	"$STACKBOX" stackcount -v -f folded -p "$pid" "$@" >"$out" 2>"$out.err" &
	scp=$!
	wait_for 60 ready "$out.err"
	kill -USR1 "$pid"
	wait "$wl"
	wait "$scp"
	prc=$?
}

pstart writes 3000 1000
prun "$T/pf" --filter 'count > 100' t:syscalls:sys_enter_write
folded_is "--filter 'count > 100' -p PID: only write_large's 1000 writes" "$T/pf" ';write_large;write;' 1000
folded_is "--filter 'count > 100' -p PID: write_small's 10-byte writes left out" "$T/pf" 'write_small' 0
check "-v says how the tracepoint attached" grep -q 'sys_enter_write: attached as tracepoint' "$T/pf.err"

pstart writes 3000 1000
prun "$T/pv" --value count t:syscalls:sys_enter_write
folded_is "--value count: write_large's 1000 x 1000 bytes" "$T/pv" ';write_large;write;' 1000000
folded_is "--value count: write_small's 3000 x 10 bytes" "$T/pv" ';write_small;write;' 30000

pstart writes 3000 1000
prun "$T/pn" --filter '!(count < 5 || count > 100) && fd != 0 && comm == "counted"' t:syscalls:sys_enter_write
check "--filter with !, ||, && and a string: runs (rc 0)" [ $prc = 0 ]
folded_is "--filter with !, ||, && and a string: only write_small" "$T/pn" ';write_small;write;' 3000
folded_is "--filter with !, ||, && and a string: not write_large" "$T/pn" 'write_large' 0

pstart writes 3000 1000
prun "$T/pc" --filter 'comm != "counted"' t:syscalls:sys_enter_write
check "--filter on the task's comm: runs (rc 0)" [ $prc = 0 ]
folded_is "--filter comm != the workload's: none of its writes" "$T/pc" '' 0

# u:LIB:FUNCTION: libc found by its name in the process's maps
pstart writes 3000 1000
USER_PROBES="uprobes in .*libc.* for pid $pid: write"
prun "$T/pl" u:c:write
USER_PROBES=
folded_is "u:c:write under -p: libc.so.6's write from write_small" "$T/pl" ';write_small;write ' 3000
folded_is "u:c:write under -p: and from write_large" "$T/pl" ';write_large;write ' 1000

# ---- USDT: stackbox:plain fired 3000 times, stackbox:guarded 1000 times
# only while its semaphore is raised (0 times if it is not) ----
if "$CT" usdt 0 0 2>/dev/null; then
	sc "$T/U" "U:$CT:stackbox:plain" "U:$CT:stackbox:guarded" -- "$CT" usdt 3000 1000
	folded_is "USDT stackbox:plain: 3000 from usdt_plain" "$T/U" "\\[U:$CT:stackbox:plain\\];.*;main;usdt_plain " 3000
	folded_is "USDT stackbox:guarded, behind its semaphore: 1000 from usdt_guarded" "$T/U" "\\[U:$CT:stackbox:guarded\\];.*;main;usdt_guarded " 1000
	folded_is "USDT: nothing else" "$T/U" '' 4000
	pstart usdt 3000 1000
	USER_PROBES="stackbox:guarded: 1 uprobes in"
	prun "$T/Up" U:counted:stackbox:guarded
	USER_PROBES=
	folded_is "USDT under -p, FILE by its name in the maps: guarded's 1000" "$T/Up" ';main;usdt_guarded ' 1000
	check "-v says the semaphore is raised" grep -q 'stackbox:guarded: 1 uprobes in .*counted, its semaphore raised while attached' "$T/Up.err"
	"$STACKBOX" stackcount --list "U:$CT" >"$T/list" 2>&1
	check "--list U:FILE names both probes, each with its semaphore" \
		[ "$(grep -c '^stackbox:\(plain\|guarded\)  semaphore  ' "$T/list")" = 2 -a "$(wc -l <"$T/list")" = 2 ]
else
	skip "stackcount USDT" "the workload was built without sys/sdt.h (systemtap-sdt-dev)"
fi

# ---- several events: rows per event, named ----
sc "$T/m" "u:$CT:counted_target" t:syscalls:sys_enter_write -- "$CT" calls 300 100
folded_is "two events: the uprobe's rows carry its name" "$T/m" "\\[u:$CT:counted_target\\];.*;counted_target " 400
check "two events: the header names both" sh -c "'$STACKBOX' stackcount u:$CT:counted_target t:syscalls:sys_enter_write -- '$CT' calls 3 1 | grep -q '^value: hits of u:.*:counted_target, t:syscalls:sys_enter_write$'"

# ---- the bin stream: report shows the same counts, per event ----
"$STACKBOX" stackcount -f bin -o "$T/s.bin" "u:$CT:counted_target" sched:sched_process_exit -- "$CT" calls 3000 1000 2>"$T/s.bin.err"
sb_report -f folded -o "$T/s.folded" "$T/s.bin" 2>"$T/s.rep.err"
folded_is "report of a bin stream: call_a's 3000 under the uprobe's name" "$T/s.folded" "\\[u:$CT:counted_target\\];.*;call_a;counted_target " 3000
folded_is "report of a bin stream: call_b's 1000" "$T/s.folded" ';call_b;counted_target ' 1000
sb_report -f svg -o "$T/s.svg" "$T/s.bin" 2>>"$T/s.rep.err"
check "report -f svg of a stackcount stream names its metric" grep -q '<title>all (4001 hits, 100.00%)' "$T/s.svg"

# ---- STACKBOX_ATTACH=tracepoint: the classic way when raw_tp would do ----
STACKBOX_ATTACH=tracepoint "$STACKBOX" stackcount -v -f folded sched:sched_process_exit -- "$CT" calls 1 1 >"$T/cl" 2>"$T/cl.err"
check "STACKBOX_ATTACH=tracepoint: -v says classic" grep -q 'sched:sched_process_exit: attached as tracepoint' "$T/cl.err"
"$STACKBOX" stackcount -v -f folded sched:sched_process_exit -- "$CT" calls 1 1 >"$T/raw" 2>"$T/raw.err"
check "a tracepoint without a filter attaches as raw_tp" grep -q 'sched:sched_process_exit: attached as raw_tp' "$T/raw.err"
folded_is "sched_process_exit: CMD's one exit" "$T/raw" '^counted;' 1

# ---- bad input: one line each, naming the problem ----
# refuses LINE ARGS...: stackcount ARGS fails with exactly LINE on stderr
refuses() {
	want=$1
	shift
	"$STACKBOX" stackcount "$@" -- "$CT" calls 1 1 >"$T/bad" 2>"$T/bad.err"
	rc=$?
	got=$(cat "$T/bad.err")
	if [ $rc != 0 ] && [ "$got" = "$want" ]; then pass "refused: $want"; else
		fail "refuses '$*'" "rc $rc, got '$got', want '$want'"
	fi
}
refuses "stackcount: event 'nonsense': not t:CATEGORY:NAME, CATEGORY:NAME, k:FUNCTION, kr:FUNCTION, u:FILE:FUNCTION, ur:FILE:FUNCTION or U:FILE:PROVIDER:NAME" nonsense
refuses "stackcount: t:sched:no_such: no tracepoint sched:no_such in tracefs (see /sys/kernel/tracing/available_events)" t:sched:no_such
refuses "stackcount: --filter: t:syscalls:sys_enter_write has no field 'bytes' (its fields: __syscall_nr, fd, buf, count; and comm, the task's)" --filter 'bytes > 1' t:syscalls:sys_enter_write
refuses "stackcount: --filter 'count >': expected a number or a \"string\" at column 8" --filter 'count >' t:syscalls:sys_enter_write
refuses "stackcount: --filter 'count > 1 &&& fd == 1': expected a field name at column 13" --filter 'count > 1 &&& fd == 1' t:syscalls:sys_enter_write
refuses "stackcount: --filter 'count == \"x\"': a string compared with a field that is not char[] at column 10" --filter 'count == "x"' t:syscalls:sys_enter_write
refuses "stackcount: --value: t:syscalls:sys_enter_write has no field 'len' (its fields: __syscall_nr, fd, buf, count; and comm, the task's)" --value len t:syscalls:sys_enter_write
refuses "stackcount: --filter: u:$CT:counted_target has no field 'count' (its fields: arg0, arg1, arg2, arg3, arg4, arg5; and comm, the task's)" --filter 'count > 1' "u:$CT:counted_target"
refuses "stackcount: --value: ur:$CT:counted_target has no field 'arg0' (its fields: ret; and comm, the task's)" --value arg0 "ur:$CT:counted_target"
refuses "stackcount: --filter arg0 > 1: U:$CT:stackbox:plain: a USDT probe's arguments are not fields (tracepoints' fields, k: and u: arguments are)" --filter 'arg0 > 1' "U:$CT:stackbox:plain"
refuses "stackcount: u:$CT:no_such_function: $CT has no function no_such_function in its symbols (stripped without .dynsym?)" "u:$CT:no_such_function"
refuses "stackcount: u:/no/such/file:f: /no/such/file: No such file or directory" u:/no/such/file:f
refuses "stackcount: --list /bin/true: no USDT probes (no .note.stapsdt)" --list U:/bin/true
refuses "stackcount: --list $SRCTREE/README.md: not an ELF file" --list "U:$SRCTREE/README.md"
refuses "stackcount: U:$SRCTREE/README.md:p:n: $SRCTREE/README.md: not an ELF file" "U:$SRCTREE/README.md:p:n"
"$STACKBOX" stackcount -d 1 u:c:write >"$T/bad" 2>"$T/bad.err"
check "u:LIB:FUNCTION without -p or CMD: one line asking for either" \
	[ $? != 0 -a "$(cat "$T/bad.err")" = "stackcount: u:c:write: a library name needs -p PID or -- CMD (else give FILE as a path)" ]
"$STACKBOX" stackcount u:nosuchlib:f -- "$CT" calls 1 1 >"$T/bad" 2>"$T/bad.err"
check "u:LIB:FUNCTION that CMD does not map: one line naming it" \
	[ $? != 0 -a "$(grep -c '^stackcount: u:nosuchlib:f: pid [0-9]* maps no library named nosuchlib (give FILE as a path)$' "$T/bad.err")" = 1 -a "$(wc -l <"$T/bad.err")" = 1 ]
# a relative FILE is a path, not a library name
(cd "$(dirname "$CT")" && "$STACKBOX" stackcount -f folded u:./counted:counted_target -- ./counted calls 30 10) >"$T/rel" 2>"$T/rel.err"
folded_is "u:./FILE:FUNCTION, a relative path: call_a's 30" "$T/rel" ';call_a;counted_target ' 30
refuses "stackcount: U:$CT:stackbox:nope: $CT has no USDT probe stackbox:nope (--list U:$CT lists its 2)" "U:$CT:stackbox:nope"
refuses "stackcount: U:/bin/true:p:n: /bin/true has no USDT probes (no .note.stapsdt)" U:/bin/true:p:n
refuses "stackcount: event 'U:$CT:nope': not t:CATEGORY:NAME, CATEGORY:NAME, k:FUNCTION, kr:FUNCTION, u:FILE:FUNCTION, ur:FILE:FUNCTION or U:FILE:PROVIDER:NAME" "U:$CT:nope"
# ---- stackbox check: a row per kind of event ----
"$STACKBOX" check >"$T/check" 2>&1
for kind in 'tracepoints (t:)' 'kernel functions (k:, kr:)' 'user functions (u:, ur:)' 'USDT probes (U:)'; do
	check "stackbox check has a row for $kind" grep -q "^stackcount *$kind " "$T/check"
done
check "stackbox check: user functions attach as uprobes here" grep -q '^stackcount *user functions (u:, ur:) *uprobe ' "$T/check"

# ---- k:, kr: where the kernel has neither fentry nor kprobes ----
if grep -q '^stackcount *kernel functions (k:, kr:) *none ' "$T/check"; then
	"$STACKBOX" stackcount k:vfs_write -- "$CT" calls 1 1 >"$T/k" 2>"$T/k.err"
	rc=$?
	check "k:FUNCTION without fentry and kprobes: one line naming both" \
		[ $rc != 0 -a "$(wc -l <"$T/k.err")" = 1 -a "$(grep -c '^stackcount: k:vfs_write: this kernel has neither fentry (kernel BTF and BPF trampolines .*) nor kprobes (CONFIG_KPROBES=y, CONFIG_KPROBE_EVENTS=y)$' "$T/k.err")" = 1 ]
else
	skip "k:FUNCTION refusal" "this kernel has fentry or kprobes (tests/board/stackcount.sh counts them)"
fi
