#!/bin/sh
# report reads folded stacks without perf or root: folded in, folded out
# byte for byte (stacks and counts), the comm split off only where it
# fits one, the kernel's ";-;" kept, --base of folded files, bad lines
# counted in one line.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FX=$SRCTREE/tests/unit/fixtures

for c in script unindented nosym vmlinux; do
	sb_report -f folded "$FX/perf-$c.folded" >"$T/$c" 2>"$T/$c.err"
	check "folded in, folded out: perf-$c.folded byte for byte, nothing said ($(head -1 "$T/$c.err"))" \
		sh -c "cmp -s '$T/$c' '$FX/perf-$c.folded' && [ ! -s '$T/$c.err' ]"
done
# flamegraph.pl's own shape: a first frame longer than a comm, no ";-;",
# a frame with spaces, no newline at the end, lines in any order
printf '%s\n%s\n%s' 'a_first_frame_longer_than_a_comm;child 7' \
	'java;Ljava/lang/Thread:::run;a frame with  spaces 5' \
	'java;Ljava/lang/Thread:::run;a frame with  spaces 2' >"$T/fg"
sb_report -f folded "$T/fg" >"$T/fg.out" 2>"$T/fg.err"
printf '%s\n%s\n' 'a_first_frame_longer_than_a_comm;child 7' \
	'java;Ljava/lang/Thread:::run;a frame with  spaces 7' >"$T/fg.want"
check "folded without our comm or kernel split: the same stacks back, equal ones summed ($(head -1 "$T/fg.err"))" \
	sh -c "cmp -s '$T/fg.out' '$T/fg.want' && [ ! -s '$T/fg.err' ]"
sb_report "$FX/perf-vmlinux.folded" >"$T/text"
check "folded: the kernel's frames after ';-;' are the kernel's in text (after --), 3000 samples" \
	sh -c "grep -q 'total: 3000 samples in 3 stacks' '$T/text' && grep -A6 'cat pid 0' '$T/text' | grep -q -- '--'"

# --base of a folded file: burn_one_third 1000 -> 3000 samples is red
sed 's/burn_one_third;spin_until 1000/burn_one_third;spin_until 3000/' \
	"$FX/perf-script.folded" >"$T/new"
sb_report -f svg --base "$FX/perf-script.folded" -o "$T/d.svg" "$T/new"
check "--base a folded file: differential of 9,000 against 7,000, burn_one_third grew (+19.05%) in red" \
	sh -c "grep -q '9,000 samples against 7,000 (differential)' '$T/d.svg' &&
		grep -q '<title>burn_one_third (3000 samples, 33.33%; base 1000, +19.05%)</title><rect [^>]*fill=\"rgb(255,0,0)\"' '$T/d.svg'"

# a bad line: counted in one line, the rest read
{ cat "$FX/perf-script.folded"; echo 'no count here'; } >"$T/bad"
sb_report -f folded "$T/bad" >"$T/bad.out" 2>"$T/bad.err"
check "folded with a bad line: one line says so ($(cat "$T/bad.err")), the rest read" \
	sh -c "[ \$(wc -l <'$T/bad.err') = 1 ] && grep -q '1 lines are not folded stacks .* line 5' '$T/bad.err' &&
		cmp -s '$T/bad.out' '$FX/perf-script.folded'"
