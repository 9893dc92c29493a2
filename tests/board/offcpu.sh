#!/bin/sh
# Board checker: offcpu on every board (tests/boards.sh; the guest's
# offcpu section of tests/board/guest): the default attach path and the
# classic tracepoint, with -w, against tests/workloads/block.c's known
# blocked times and waker.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

# known PATH: microseconds in nap_thread, pipe_thread, lock_thread,
# inside their blocking calls only: a preemption elsewhere in the thread
# is off the CPU outside what block.c timed (as offcpu.sh's known())
known() {
	sed -n "s/^@$1 //p" "$res" | awk '/nap_thread/ && /nanosleep/ { n += $NF }
		/pipe_thread/ && /pipe_read/ { p += $NF }
		/lock_thread/ && /futex/ { l += $NF }
		END { print n + 0, p + 0, l + 0 }'
}

# waited RUN THREAD: what block.c timed of THREAD's waits (BLOCK_WAITED)
waited() { sed -n "s/^@waited-$1 $2 //p" "$res"; }

# TCG runs slowly: 10% + 20 ms
within() {
	if fcmp "$2 >= $3 * 0.9 - 20000 && $2 <= $3 * 1.1 + 20000"; then
		pass "$1: $2 us (want $3)"
	else
		fail "$1" "got $2 us, want $3 +- 10% + 20 ms"
	fi
}

for b in $(boards); do
	t="board/$b offcpu"
	board_section "$t" "$b" offcpu || continue
	for p in default tracepoint; do
		# a run that failed has no numbers to check: one FAIL, with why
		if ! grep -qx "@rc-$p 0" "$res"; then
			fail "$t $p: exits 0" "$(sed -n "s/^@err-$p //p" "$res" | grep -v capabilities | head -n 2 | tr '\n' '|')"
			continue
		fi
		pass "$t $p: exits 0"
		used=$(sed -n "s/^@err-$p offcpu: sched_switch: attached with //p" "$res")
		check "$t $p: attached ($used)" test -n "$used"
		waker=$(sed -n "s/^@$p //p" "$res" | grep pipe_thread | sed -n 's/.*;--;//p' | head -1)
		check "$t $p: -w names the pipe's waker, fill_pipe" \
			sh -c "echo '$waker' | grep -q '^try_to_wake_up;.*;fill_pipe;'"
		# what block.c timed (BLOCK_WAITED): a starved TCG vCPU wakes
		# late (4 x 250 ms naps took 1.8 s at host load 30)
		set -- $(known "$p") "$(waited $p nap_thread)" "$(waited $p pipe_thread)" "$(waited $p lock_thread)"
		check "$t $p: block.c timed its waits ($4 $5 $6 us)" [ -n "$4" -a -n "$5" -a -n "$6" ]
		within "$t $p ($used): nanosleep 4 x 250 ms" "$1" "${4:-1000000}"
		within "$t $p ($used): pipe read filled after 600 ms" "$2" "${5:-600000}"
		# musl's futex wait path has no frame pointers: its user stack
		# ends in musl, before lock_thread (issue 8 repairs that)
		if [ "$3" = 0 ] && sed -n "s/^@$p //p" "$res" |
				grep -q '^block;\[state S\];[^-]*;-;.*futex_wait'; then
			skip "$t $p: mutex held 800 ms" "the futex wait's user stack ends in musl (no frame pointers), before lock_thread"
		else
			within "$t $p ($used): mutex held 800 ms" "$3" "${6:-800000}"
		fi
	done
done
