#!/bin/sh
# Board checker: user stacks on every board (tests/boards.sh; the guest's
# unwind section of tests/board/guest), with the static musl libcall
# workloads: leaf repair (the named function that calls libc directly is
# the caller in offcpu and oncpu stacks; on arm64 the walk follows x29
# frame records and the call is a bl), and --unwind eh_frame through code
# built without frame pointers.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

# sum TAG PATTERN: values of the TAG lines matching PATTERN. The writer
# thread is left out: on arm64 musl's clone leaves x29 pointing into the
# parent, so a new thread's stack continues into outer_read's frames.
sum() {
	sed -n "s/^@$1 //p" "$res" | awk -v p="$2" '$0 ~ p && !/late_writer/ { s += $NF }
		END { print s + 0 }'
}

# took TAG: how long libcall's naps or read under TAG took, in us
took() { sed -n "s/^@$1-took //p" "$res"; }

# chain TAG RE_A RE_B: "A B ALL" over the main thread's lines (comm
# chain; the lock mode's holder thread has its own name)
chain() {
	sed -n "s/^@$1 //p" "$res" | awk -v a="$2" -v b="$3" 'index($0, "chain;") == 1 {
		all += $NF; if ($0 ~ a) x += $NF; else if ($0 ~ b) y += $NF }
		END { printf "%d %d %d\n", x, y, all }'
}

for b in $(boards); do
	t="board/$b user stacks"
	board_section "$t" "$b" unwind || continue
	# What is checked is who the caller is; times and sample counts
	# only show the run took place. Two boards at a time on a loaded
	# host starve a TCG vCPU: a 400 ms nap was seen blocked 466 ms, and
	# 2 s at 99 Hz gave 26 samples (198 on an idle host). Hence at least
	# 340 ms, at most what the naps took (LIBCALL_NAPPED) + 20 ms, and at
	# least 20 samples.
	# the named function's time, and any time where libc sits right
	# under outer_X (the caller lost): none
	set -- "$(sum nap 'outer_nap;zeta_nap;')" "$(sum nap 'outer_nap;(nanosleep|clock_nanosleep|sccp)')" "$(took nap)"
	check "$t: offcpu zeta_nap is nanosleep's caller ($1 us, want 400 ms, they took $3; $2 us without it)" \
		fcmp "$1 >= 340000 && $1 <= ${3:-0} + 20000 && $2 == 0"
	set -- "$(sum read 'outer_read;kappa_read;')" "$(sum read 'outer_read;(read|sccp)')" "$(took read)"
	# the writer's thread starts late on a loaded TCG host: the read's
	# time is at least the writer's 300 ms nap
	check "$t: offcpu kappa_read is read's caller ($1 us, want 300 ms or a little more, it took $3; $2 us without it)" \
		fcmp "$1 >= 250000 && $1 <= ${3:-0} + 20000 && $2 == 0"
	# of memset's samples under outer_spin (outer_spin's own calls of
	# clock_gettime are no lost caller)
	set -- "$(sum spin 'outer_spin;iota_spin;memset')" "$(sum spin 'outer_spin;(iota_spin;)?memset')"
	check "$t: oncpu iota_spin is memset's caller ($1 of $2 samples)" \
		fcmp "$2 >= 20 && $1 >= 0.9 * $2"
	# a guess is a named function with a user frame under it; mu_work
	# alone is a true leaf, a sample in its own code after nu_leaf
	# returns (2 of 4,748 samples natively; TCG takes interrupts where
	# translated blocks start, as at that return site)
	set -- "$(sum fp '(outer_burn|mu_work);[^-]')" "$(sum fp '')"
	check "$t: fp, no frame pointers: no caller guessed ($1 of $2 samples)" \
		fcmp "$2 >= 20 && $1 == 0"
	# the table walk -v names: a bounded loop before bpf_loop (5.17),
	# registers from the kernel stack's top without bpf_task_pt_regs
	walk=$(sed -n 's/^@chain-err .*the table walk: //p' "$res" | head -1)
	want='^bpf_loop; registers by bpf_task_pt_regs'
	! board_nobtf "$b" || want='^bpf_loop; registers from the top of the kernel stack'
	! kernel_before "$b" 5.17 || want='^a bounded loop .*; registers from the top of the kernel stack'
	check "$t: -v names the table walk: $walk" sh -c 'echo "$1" | grep -qE "$2"' - "$walk" "$want"
	# eh_frame: -O2 code without frame pointers, whole chain; the
	# frame-pointer walk of it guesses no caller. Counted over the
	# samples in the burn functions: the loop's clock_gettime is musl's
	# (no CFI), and under TCG (a syscall on arm64) it takes 10 %.
	set -- "$(sum eh ';main;outer_burn;mu_work;nu_leaf')" "$(sum eh '(mu_work|nu_leaf)')"
	check "$t: eh_frame, no frame pointers: main;outer_burn;mu_work;nu_leaf ($1 of $2 samples)" \
		fcmp "$2 >= 20 && $1 >= 0.9 * $2"
	check "$t: eh_frame ran (no fallback)" test -z "$(grep '^@eh-err .*lacks' "$res")"
	set -- "$(sum ehnap 'outer_nap;zeta_nap;')" "$(took ehnap)"
	check "$t: eh_frame through musl (no CFI): zeta_nap is nanosleep's caller ($1 us, they took $2)" \
		fcmp "$1 >= 340000 && $1 <= ${2:-0} + 20000"
	# musl has no CFI: x86_64 finds the leaf's caller by its return
	# site; on arm64 musl's non-leaf functions keep frame records
	set -- "$(sum ehnofp ';main;outer_nap;zeta_nap;')" "$(took ehnofp)"
	check "$t: eh_frame, musl without frame pointers: main..zeta_nap ($1 us, they took $2)" \
		fcmp "$1 >= 340000 && $1 <= ${2:-0} + 20000"
	# chain (-O2, no frame pointers, musl static) with the DEFAULT
	# options: the whole chain for >= 95 % of the main thread's samples
	# and sleeping time, split 5:3. TCG gives few samples on a loaded
	# host (26 of 198 seen): 0.15 is 3 binomial deviations at 100.
	set -- $(chain chainspin ';main;run;stage_a;work_a;spin_a(;| )' ';main;run;stage_b;work_b;spin_b(;| )')
	check "$t: default, -O2 chain: oncpu main..spin_a|spin_b in >= 95% ($(($1 + $2)) of $3 samples; $(sed -n 's/^@chain-err .*unwind: //p' "$res" | head -1))" \
		fcmp "$3 >= 20 && $1 + $2 >= 0.95 * $3"
	check "$t: default, -O2 chain: oncpu spin_a:spin_b $1:$2 within 0.15 of 5:3" \
		fcmp "$1 + $2 > 0 && ($1 / ($1 + $2) - 0.625)^2 <= 0.15^2"
	set -- $(chain chainnap ';main;run;idle_a;rest_a;nap_a;' ';main;run;idle_b;rest_b;nap_b;')
	check "$t: default, -O2 chain: offcpu main..nap_a|nap_b in >= 95% of sleep ($(($1 + $2)) of $3 us), 5:3 within 0.05 ($1:$2)" \
		fcmp "$3 > 0 && $1 + $2 >= 0.95 * $3 && ($1 / ($1 + $2 + 1) - 0.625)^2 <= 0.05^2"
	set -- $(chain chainlock ';main;run;lock_a;queue_a;wait_a;' ';main;run;lock_b;queue_b;wait_b;')
	check "$t: default, -O2 chain: offcpu mutex waits main..wait_a|wait_b in >= 95% of sleep ($(($1 + $2)) of $3 us)" \
		fcmp "$3 > 0 && $1 + $2 >= 0.95 * $3"
	# memstack: 200 x 5000 and 3000 bytes kept to the exit, seen at
	# malloc's entry (musl's, no CFI): exact bytes under the whole chain
	set -- $(chain chainalloc ';main;run;keep_a;store_a;alloc_a;malloc( |;)' ';main;run;keep_b;store_b;alloc_b;malloc( |;)')
	check "$t: default, -O2 chain: memstack main..alloc_a|alloc_b holds $1 and $2 bytes (want 1000000 and 600000, of $3)" \
		[ "$1" = 1000000 -a "$2" = 600000 ]
done
