#!/bin/sh
# Whole user stacks, with DEFAULT options, on code built as images build
# it (-O2, no frame pointers): tests/workloads/chain, glibc dynamic and
# musl static. The default (--unwind auto) must see that the program's
# code has no frame pointers and walk it with its .eh_frame table: the
# whole chain main > run > X_a|X_b > ... > leaf for at least 95 % of the
# workload's samples (oncpu) and blocked time (offcpu), split as the
# workload itself measured it (5:3); memstack's bytes under it exactly
# those the workload kept.
. "$SRCTREE/tests/lib.sh"
need_bpf "image-built stacks"

# share FILE COMM RE_A RE_B: "A B ALL", the values of COMM's lines with
# the whole chain A, with B, and of all of COMM's lines (the main thread:
# the lock mode's holder thread has its own name)
share() {
	awk -v c="$2;" -v a="$3" -v b="$4" 'index($0, c) == 1 {
		all += $NF; if ($0 ~ a) x += $NF; else if ($0 ~ b) y += $NF }
		END { printf "%d %d %d\n", x, y, all }' "$1"
}

# split_within A B TA TB TOL: A's share of A + B within TOL of the
# workload's own (TA, TB)
split_within() {
	fcmp "$1 + $2 > 0 && $3 + $4 > 0 &&
		($1 / ($1 + $2) - $3 / ($3 + $4))^2 <= $5^2"
}

# waits_within A B TA TB: neither wait above what the workload timed
# around it (+2 ms of clock reads), and their split within 0.03 of its
waits_within() {
	fcmp "$1 <= $3 + 2000 && $2 <= $4 + 2000" &&
		split_within "$1" "$2" "$3" "$4" 0.03
}

CHAIN_A=';main;run;stage_a;work_a;spin_a(;| )'
CHAIN_B=';main;run;stage_b;work_b;spin_b(;| )'
NAP_A=';main;run;idle_a;rest_a;nap_a;'
NAP_B=';main;run;idle_b;rest_b;nap_b;'
LOCK_A=';main;run;lock_a;queue_a;wait_a;'
LOCK_B=';main;run;lock_b;queue_b;wait_b;'
ALLOC_A=';main;run;keep_a;store_a;alloc_a;malloc( |;)'
ALLOC_B=';main;run;keep_b;store_b;alloc_b;malloc( |;)'
export CHAIN_TRUTH="$T/truth"

# oncpu LABEL WORKLOAD: 4 s of the thread's CPU at 199 Hz, ~800 samples
# whatever the load (the workload counts CPU time). A sample falls in
# spin_a with probability 5/8: the binomial deviation of its share over
# 800 samples is 0.017, so 0.06 is 3.5 of them (sampling at a fixed
# period over 8 ms rounds spreads less than that).
oncpu() {
	"$STACKBOX" oncpu -F 199 -f folded -- "$2" spin 4 >"$T/spin" 2>"$T/err"
	set -- "$1" $(share "$T/spin" chain "$CHAIN_A" "$CHAIN_B") $(cat "$T/truth")
	check "oncpu $1 -O2: whole chain main..spin_a|spin_b in >= 95% ($(($2 + $3)) of $4 samples)" \
		fcmp "$4 >= 400 && $2 + $3 >= 0.95 * $4"
	check "oncpu $1 -O2: spin_a:spin_b $2:$3, the workload's CPU $5:$6 us (5:3) within 0.06" \
		split_within "$2" "$3" "$5" "$6" 0.06
}

# offcpu LABEL WORKLOAD: sleeping time (S) only, so a preempted spin is
# not counted. nap: 5 naps of 50 ms, then 5 of 30 ms, from the same
# registers (the two chains' frames are alike): a walk may be taken
# from the thread's last one, of the same chain, never of the other.
# Each nap's time is at least what it asked (nanosleep never returns
# early) and at most what the workload timed around it (wake-up and
# run-queue wait, which S time holds too), plus 2 ms for its clock
# reads.
offcpu() {
	"$STACKBOX" offcpu -v --state S -f folded -- "$2" nap 5 >"$T/nap" 2>"$T/err"
	again=$(sed -n "s/.*user stacks: .*, \([0-9]*\) more a thread's last walk again/\1/p" "$T/err")
	# the bounded walk (no bpf_loop; STACKBOX_UNWIND_WALK=bounded)
	# keeps no memo: its check loops with bpf_loop
	if grep -q 'the table walk: a bounded loop' "$T/err"; then
		skip "offcpu $1 -O2: walks taken from the thread's last one" "the bounded walk keeps no memo"
	else
		check "offcpu $1 -O2: walks taken from the thread's last one (${again:-none})" \
			[ "${again:-0}" -gt 0 ]
	fi
	set -- "$1" "$2" $(share "$T/nap" chain "$NAP_A" "$NAP_B") $(cat "$T/truth")
	check "offcpu $1 -O2: whole chain main..nap_a|nap_b in >= 95% of blocked time ($(($3 + $4)) of $5 us)" \
		fcmp "$5 > 0 && $3 + $4 >= 0.95 * $5"
	check "offcpu $1 -O2: nap_a $3 us in [250000, $6 + 2000], nap_b $4 us in [150000, $7 + 2000]" \
		fcmp "$3 >= 250000 && $3 <= $6 + 2000 && $4 >= 150000 && $4 <= $7 + 2000"
	# lock: 5 rounds of a mutex held 50 ms and 30 ms by the "holder"
	# thread; the main thread blocks in pthread_mutex_lock (a futex
	# wait) from a little after the hold starts: the split is checked
	# against what the workload timed around each wait
	"$STACKBOX" offcpu --state S -f folded -- "$2" lock 5 >"$T/lock" 2>"$T/err"
	set -- "$1" "$2" $(share "$T/lock" chain "$LOCK_A" "$LOCK_B") $(cat "$T/truth")
	check "offcpu $1 -O2: whole chain main..wait_a|wait_b in >= 95% of blocked time ($(($3 + $4)) of $5 us)" \
		fcmp "$5 > 0 && $3 + $4 >= 0.95 * $5"
	check "offcpu $1 -O2: wait_a:wait_b $3:$4 us, the workload's $6:$7 us (5:3) within 0.03, none above it" \
		waits_within "$3" "$4" "$6" "$7"
}

# memstack LABEL WORKLOAD: 200 rounds of 5000 and 3000 bytes malloc'd
# and kept to the exit; each is seen at malloc's entry, where the walk
# starts in the C library (glibc: its table; musl: none, a return site
# above sp): exact bytes under the whole chain, what the workload kept
memstack() {
	"$STACKBOX" memstack -f folded -- "$2" alloc 200 >"$T/alloc" 2>"$T/err"
	set -- "$1" $(share "$T/alloc" chain "$ALLOC_A" "$ALLOC_B") $(cat "$T/truth")
	check "memstack $1 -O2: whole chain main..alloc_a|alloc_b holds $2 and $3 bytes, the workload kept $5 and $6" \
		[ "$2" = "$5" -a "$3" = "$6" -a "$5" = 1000000 -a "$6" = 600000 ]
}

oncpu glibc "$WORKLOADS/chain"
offcpu glibc "$WORKLOADS/chain"
memstack glibc "$WORKLOADS/chain"
if musl_workload chain "image-built stacks musl-static"; then
	oncpu musl-static "$MUSL_W"
	offcpu musl-static "$MUSL_W"
	memstack musl-static "$MUSL_W"
fi
