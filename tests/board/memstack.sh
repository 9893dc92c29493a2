#!/bin/sh
# Board checker: memstack on every board (tests/boards.sh; the guest's
# memstack section of tests/board/guest), on the static musl workloads:
# exact bytes held per named function (uprobe_multi from 6.6, perf event
# uprobes before), the direct caller of malloc (leaf repair; --unwind
# eh_frame without frame pointers), mmap/brk, page faults, kernel
# memory and the allocation rate (--mode alloc, free not probed).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

# sum TAG PATTERN: folded values of the TAG lines matching PATTERN
sum() {
	sed -n "s/^@$1 //p" "$res" | awk -v p="$2" '$0 ~ p { s += $NF } END { print s + 0 }'
}
is() {
	got=$(sum "$2" "$3")
	if [ "$got" = "$4" ]; then pass "$1 ($got)"; else
		fail "$1" "got $got, want $4: $(grep "^@$2" "$res" | head -5 | tr '\n' '|' | cut -c1-500)"
	fi
}

for b in $(boards); do
	t="board/$b memstack"
	board_section "$t" "$b" memstack || continue
	page=$(sed -n 's/^@page //p' "$res")
	if kernel_before "$b" 6.6; then
		check "$t: perf event uprobes before 6.6 (-v)" grep -q '^@leak-err memstack: uprobes: a perf event per function' "$res"
	else
		check "$t: uprobe_multi links from 6.6 (-v)" grep -q '^@leak-err memstack: uprobes: uprobe_multi links' "$res"
	fi
	is "$t: leak_keep holds 500 x 100 bytes" leak ';leak_keep;malloc ' 50000
	is "$t: churn_free holds nothing" leak 'churn_free' 0
	is "$t: allocated in one thread, half freed in another" xt ';xfer_alloc;malloc ' 25000
	is "$t: realloc growth" re ';realloc_grow;realloc ' 50000
	is "$t: realloc shrink" re ';realloc_shrink;realloc ' 1000
	is "$t: realloc(NULL, 64)" re ';realloc_null;realloc ' 12800
	is "$t: posix_memalign" al ';posix_keep;posix_memalign ' 50000
	is "$t: aligned_alloc" al ';aligned_keep;aligned_alloc ' 32000
	is "$t: libcall alloc: outer_alloc;theta_keep;malloc" lc 'outer_alloc;theta_keep;malloc ' 20000
	! eh_frame_runs "$t" "$b" eh-err ||
		is "$t: --unwind eh_frame, no frame pointers: main..theta_keep;malloc" eh ';main;outer_alloc;theta_keep;malloc ' 20000
	# 10000 x 256 bytes at a sample every 2 KiB: about 1250 samples, a
	# relative standard deviation of 2.8 %: 15 % is over 5 of them. Few
	# mallocs: each is a uprobe hit, slow under TCG, and the error
	# depends on the sample count alone.
	set -- "$(sum s ';sample_keep;malloc ')"
	check "$t: -s 2k: sample_keep's 2.56 MB estimated within 15 % ($1)" \
		fcmp "$1 >= 0.85 * 2560000 && $1 <= 1.15 * 2560000"
	is "$t: --mode mmap: mmap_keep (16 pages)" mm ';mmap_keep;mmap ' $((16 * page))
	is "$t: --mode mmap: brk up 2 x 64 KiB, down 96 KiB" mm ';brk_grow;' 32768
	is "$t: --mode faults: 500 pages touched" pf ';touch_pages ' 500
	set -- "$(sum k ';io_write;.*;-;.*vfs_write')"
	check "$t: --mode kernel: io_write holds at least the 2 MiB it wrote ($1)" fcmp "$1 >= 2097152"
	is "$t: --mode alloc: realloc_grow allocated 200 x 1000" ar ';realloc_grow;realloc ' 200000
	is "$t: --mode alloc: base_alloc's 200 x 100, freed by realloc all the same" ar ';base_alloc;malloc ' 20000
	check "$t: --mode alloc: free not probed (-v)" \
		[ -n "$(grep '^@ar-err memstack: uprobes in .*: malloc' "$res")" -a -z "$(grep '^@ar-err memstack: uprobes in ' "$res" | grep -w free)" ]
	is "$t: --mode alloc -s 1: calloc_keep 200 x 400, exact" as1 ';calloc_keep;calloc ' 80000
done
