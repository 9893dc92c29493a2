#!/bin/sh
# User stacks that are right (leaf repair): a named function that calls
# libc directly is the caller in the stack, for glibc-dynamic and
# musl-static programs, in every applet that captures user stacks.
# Ground truth: tests/workloads/libcall.c, main -> outer_X -> NAMED -> libc.
# What is checked is where the time goes; its amount only within a
# loaded machine's sleep overshoot (offcpu.sh checks the amounts).
. "$SRCTREE/tests/lib.sh"
need_bpf "user stacks integration"

# spin and burn count their 2 s in CPU time (libcall.c): ~400 samples at
# 199 Hz on any load, so 60 is far from reach (wall-clock seconds gave
# ~45 at load 18 on 2 CPUs); 0.9 is a share of where stacks end, which
# load does not move
export LIBCALL_CPU=1

# sum_us FILE PATTERN: folded values of the lines matching PATTERN
sum_us() { awk -v p="$2" '$0 ~ p { s += $NF } END { print s + 0 }' "$1"; }

# A named function may only appear right under its own outer function:
# anything else is a frame made up by the unwinder.
invented() {
	grep -oE '[a-z_]+;(zeta_nap|kappa_read|iota_spin|theta_keep|sigma_write);' "$1" |
		grep -vE '^(outer_nap;zeta_nap|late_writer;zeta_nap|outer_read;kappa_read|outer_spin;iota_spin|outer_alloc;theta_keep|outer_write;sigma_write);$'
}

# Margins of the nap checks (4 x 100 ms): the low bound, 380 ms, holds on
# any load, since nanosleep never returns early and S time runs from the
# switch-out to the switch-in. The high bound is what the workload timed
# around its naps (LIBCALL_NAPPED), which holds every switch-out to
# switch-in and the run-queue wait after each wake-up, plus 2 ms for the
# clock reads: a fixed 500 ms failed 2 loaded runs in 200 (549, 523 ms).
# nap_within US: offcpu's US for the last nap run, inside those bounds
nap_within() {
	fcmp "$1 >= 380000 && $1 <= $(cat "$T/napped" 2>/dev/null || echo 0) + 2000"
}
# read_within US WITHOUT: the pipe read (300 ms) inside its bounds, and
# no time where its caller was lost (WITHOUT). The writer writes 300 ms
# after the reader took the time right before its read, so the read
# blocks 300 ms less the few us from that clock read to the block:
# 285 ms holds at any load. The high bound is what the reader timed
# around its read (LIBCALL_NAPPED) plus 2 ms, as for the naps.
read_within() {
	fcmp "$1 >= 285000 && $1 <= $(cat "$T/napped" 2>/dev/null || echo 0) + 2000 && $2 == 0"
}
export LIBCALL_NAPPED="$T/napped"

# blocked LABEL WORKLOAD: offcpu, nanosleep and a pipe read
blocked() {
	"$STACKBOX" offcpu -f folded -- "$2" nap 4 100 >"$T/nap" 2>"$T/err"
	# the named function's time, and any time where libc sits right
	# under outer_X (the caller lost): none
	set -- "$1" "$2" "$(sum_us "$T/nap" 'outer_nap;zeta_nap;')" \
		"$(sum_us "$T/nap" 'outer_nap;(nanosleep|clock_nanosleep|sccp)')"
	if nap_within "$3" && [ "$4" = 0 ]; then
		pass "offcpu $1: zeta_nap is nanosleep's caller ($3 us of $(cat "$T/napped") napped; $4 us without it)"
	else
		fail "offcpu $1: zeta_nap is nanosleep's caller" "$3 us of $(cat "$T/napped") napped; $4 us without it: $(sed 's/;-;.*;/;-;..;/' "$T/nap" | tr '\n' '|')"
	fi
	"$STACKBOX" offcpu -f folded -- "$2" read 300 >"$T/read" 2>"$T/err"
	set -- "$1" "$2" "$(sum_us "$T/read" 'outer_read;kappa_read;')" \
		"$(sum_us "$T/read" 'outer_read;(read|__read|sccp)')"
	check "offcpu $1: kappa_read is read's caller ($3 us, want 300 ms; $4 us without it)" \
		read_within "$3" "$4"
	check "offcpu $1: no invented frames" test -z "$(invented "$T/nap")$(invented "$T/read")"
}

# oncpu LABEL WORKLOAD: samples inside memset, called by iota_spin
oncpu() {
	"$STACKBOX" oncpu -F 199 -f folded -- "$2" spin 2 >"$T/spin" 2>"$T/err"
	set -- "$1" "$2" "$(sum_us "$T/spin" 'outer_spin;iota_spin;')" "$(sum_us "$T/spin" 'outer_spin;')"
	check "oncpu $1: iota_spin is memset's caller ($3 of $4 samples)" \
		fcmp "$4 >= 60 && $3 >= 0.9 * $4"
	check "oncpu $1: no invented frames" test -z "$(invented "$T/spin")"
}

blocked glibc "$WORKLOADS/libcall"
oncpu glibc "$WORKLOADS/libcall"
if musl_workload libcall "user stacks musl-static"; then
	blocked musl-static "$MUSL_W"
	oncpu musl-static "$MUSL_W"
fi

# Without frame pointers the frame-pointer walk (--unwind fp: the
# default picks the tables here) cannot know the callers: it must not
# make one up (the leaf stays libc's, no named function appears).
"$STACKBOX" offcpu --unwind fp -f folded -- "$WORKLOADS/libcall-nofp" nap 4 100 >"$T/nofp" 2>"$T/err"
check "offcpu no frame pointers: nothing invented" test -z "$(invented "$T/nofp")"
# (as a caller: preempted in zeta_nap's own code, at load 20, it is the
# leaf, from the pc: "[state R];zeta_nap;-;asm_sysvec_apic_timer_interrupt")
check "offcpu no frame pointers: zeta_nap not guessed as a caller" test -z "$(grep 'zeta_nap;[^-]' "$T/nofp")"

# --unwind eh_frame: code without frame pointers unwinds whole, through
# glibc (which has .eh_frame) and the program's own code.
# (the nap checks' margins: nap_within above)
"$STACKBOX" offcpu --unwind eh_frame -f folded -- "$WORKLOADS/libcall-nofp" nap 4 100 >"$T/eh.nap" 2>"$T/err"
set -- "$(sum_us "$T/eh.nap" '_start;__libc_start_main;__libc_start_call_main;main;outer_nap;zeta_nap;nanosleep;clock_nanosleep;')"
check "eh_frame, no frame pointers: offcpu main..zeta_nap;nanosleep;clock_nanosleep ($1 us of $(cat "$T/napped") napped)" \
	nap_within "$1"
"$STACKBOX" offcpu --unwind eh_frame -f folded -- "$WORKLOADS/libcall-nofp" read 300 >"$T/eh.read" 2>"$T/err"
set -- "$(sum_us "$T/eh.read" ';main;outer_read;kappa_read;read;')"
check "eh_frame, no frame pointers: offcpu main..kappa_read;read ($1 us, want 300 ms)" \
	read_within "$1" 0
check "eh_frame, no frame pointers: offcpu nothing invented" test -z "$(invented "$T/eh.nap")$(invented "$T/eh.read")"

# burn WORKLOAD UNWIND: share of samples with the whole chain to nu_leaf
burn_share() {
	"$STACKBOX" oncpu -F 199 --unwind "$2" -f folded -- "$1" burn 2 >"$T/burn" 2>"$T/err"
	awk '/;main;outer_burn;mu_work;nu_leaf( |;-;)/ { a += $NF } / / { t += $NF }
	     END { printf "%d %d\n", a, t }' "$T/burn"
}
set -- $(burn_share "$WORKLOADS/libcall-nofp" eh_frame)
check "eh_frame, no frame pointers: oncpu main;outer_burn;mu_work;nu_leaf ($1 of $2 samples)" \
	fcmp "$2 >= 60 && $1 >= 0.9 * $2"
if musl_workload libcall-nofp "eh_frame, musl-static without frame pointers"; then
	# musl has no CFI: the leaf's caller is found by its return site
	"$STACKBOX" offcpu --unwind eh_frame -f folded -- "$MUSL_W" nap 4 100 >"$T/eh.mnap" 2>"$T/err"
	set -- "$(sum_us "$T/eh.mnap" ';main;outer_nap;zeta_nap;')"
	check "eh_frame, musl-static without frame pointers: offcpu main..zeta_nap ($1 us of $(cat "$T/napped") napped)" \
		nap_within "$1"
	check "eh_frame, musl-static without frame pointers: nothing invented" test -z "$(invented "$T/eh.mnap")"
	set -- $(burn_share "$MUSL_W" eh_frame)
	check "eh_frame, musl-static without frame pointers: oncpu whole chain ($1 of $2 samples)" \
		fcmp "$2 >= 60 && $1 >= 0.9 * $2"
fi
# the frame-pointer walk of the same code: the leaf, and nothing made up
set -- $(burn_share "$WORKLOADS/libcall-nofp" fp)
check "fp, no frame pointers: no caller guessed ($1 of $2 samples with the chain)" \
	fcmp "$2 >= 60 && $1 == 0"
check "fp, no frame pointers: stacks end where the walk leaves the code" \
	test -z "$(grep -E '\[0x[0-9a-f]+\]' "$T/burn")"

# The tables are bounded: a budget libc does not fit says so, and the
# stacks still come (frame pointers where the table is missing).
"$STACKBOX" offcpu --unwind eh_frame --unwind-rows 1024 -f text -- "$WORKLOADS/libcall" nap 2 100 >"$T/small" 2>"$T/err"
check "eh_frame --unwind-rows 1024: the header counts files without room" \
	grep -qE 'user stacks: eh_frame tables of [0-9]+ files, [0-9]+ of 1024 rows .*, [1-9][0-9]* without room' "$T/small"
check "eh_frame --unwind-rows 1024: zeta_nap still found (frame pointers, leaf repair)" grep -q zeta_nap "$T/small"

# Without kernel BTF, and none built in (CONFIG_BTF_EMBED) or given
# (--btf), nothing says where the user's registers are: one line says
# so, frame pointers are used, and the run goes on. (With types from
# either, the boards without BTF walk the tables: tests/board/unwind.sh.)
: >"$T/empty"
unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	exec '$STACKBOX' offcpu --unwind eh_frame -f folded -- '$WORKLOADS/libcall' nap 2 100" >"$T/nobtf" 2>"$T/nobtf.err"
check "eh_frame without BTF: says so in one line" \
	grep -qx "offcpu: --unwind eh_frame: this kernel lacks kernel types for task_struct.stack (kernel BTF, --btf FILE or CONFIG_BTF_EMBED) to find the user's registers: user stacks by frame pointers" "$T/nobtf.err"
check "eh_frame without BTF: frame pointers and leaf repair still give zeta_nap" grep -q 'outer_nap;zeta_nap;' "$T/nobtf"

# --unwind auto on a frame-pointer program whose -O2 library the loader
# maps after the exec (napfp, lib/nap.c): read at the exec, the program
# and the loader say "frame pointers"; a later look (core/looks.h) finds
# the library and gives it the tables, and its symbols too, though it
# exits before the snapshot. Its child, forked before that look and
# given its mappings, takes them again after it. A library path of 3000
# missing directories keeps the loader ~40 ms from mapping it, so the
# read at the exec comes first. The looks follow the loader every 20 ms
# while it maps, so every nap after the first few must have the
# library's frames: 500 of 1000 ms at any load (900 here, stress-ng too);
# without the looks, none. System-wide (a CMD's children are not CMD),
# under a name of its own.
cp "$WORKLOADS/napfp" "$T/napfp$$"
cp "$WORKLOADS/libnap.so" "$T/"

# napfp_profiled NAME WHAT VAR=VALUE... -- ARGS: napfp ARGS (with the
# environment given) under a system-wide offcpu, into $T/NAME; then the
# microseconds napped through the library and in all under napfp_run,
# and how long the program timed them (napped). False when offcpu did
# not attach. (np_: check's own variables are global.)
napfp_profiled() {
	np_name=$1 np_what=$2
	shift 2
	np_env=
	while [ "$1" != -- ]; do np_env="$np_env $1"; shift; done
	shift
	"$STACKBOX" offcpu -v -f folded -o "$T/$np_name" 2>"$T/$np_name.err" &
	prof=$!
	if ! wait_for 60 attached "$T/$np_name.err"; then
		kill -INT $prof 2>/dev/null
		fail "$np_what: attached" "$(tail -3 "$T/$np_name.err")"
		return 1
	fi
	env $np_env NAPFP_NAPPED="$T/$np_name.took" \
		sh -c "sleep 0.2; exec '$T/napfp$$' $*"
	check "$np_what: napfp exits 0" [ $? = 0 ]
	kill -INT $prof
	wait $prof
	napped="$(sum_us "$T/$np_name" "^napfp$$;.*;main;napfp_run;nap_outer;nap_inner;nanosleep;") $(sum_us "$T/$np_name" "^napfp$$;.*;main;napfp_run;") $(cat "$T/$np_name.took" 2>/dev/null || echo 0)"
}

LLP=$(seq -f "$T/none/d%g" 1 3000 | tr '\n' ':')
what="auto, -O2 library mapped after the exec"
if napfp_profiled napfp "$what" LD_LIBRARY_PATH="$LLP" -- 10 100 fork; then
	set -- $napped \
		"$(sum_us "$T/napfp" "^napfp$$;.*;napfp_child;napfp_run;nap_outer;nap_inner;nanosleep;")" \
		"$(sum_us "$T/napfp" "^napfp$$;.*;napfp_child;")"
	check "$what: its frames in $1 of $2 us napped under napfp_run (the program timed $3)" \
		fcmp "$1 >= 500000 && $2 >= 990000 && $2 <= $3 + 2000"
	check "$what: in a fork copied before the look, $4 of $5 us" \
		fcmp "$4 >= 500000 && $5 >= 990000"
	check "$what: every frame of napfp named" \
		test -z "$(grep "^napfp$$;" "$T/napfp" | grep -E '\[0x[0-9a-f]+\]')"
fi

# The same program, its loader made to wait 800 ms before it maps
# libnap.so (slowload.so, an LD_AUDIT library): longer than the looks
# after the exec go on (about 420 ms after the last change), as a loader
# on slow flash or a loaded board may. Only BPF's word that a process
# walked by frame pointers maps a file's code after a quiet while
# (SB_EV_CODE_MAPPED) brings another look; without it no nap has the
# library's frames. The naps after the first few must have them.
what="auto, a loader slower than the looks"
if napfp_profiled slow "$what" LD_AUDIT="$WORKLOADS/slowload.so" -- 10 100; then
	set -- $napped
	check "$what: the library's frames in $1 of $2 us napped under napfp_run (the program timed $3)" \
		fcmp "$1 >= 500000 && $2 >= 990000 && $2 <= $3 + 2000"
fi
