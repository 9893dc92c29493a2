#!/bin/sh
# Board checker: no kernel BTF at all, on the -nobtf boards (vendor
# kernels built without pahole; tests/board/guest hides
# /sys/kernel/btf, its "nobtf" section runs each applet without --btf).
# oncpu, offcpu (raw_tp or tracepoint) and memstack need no BTF and must
# work; any other applet either works or stops at once with one line
# saying BTF is missing and how to give it (--btf FILE). The other
# sections of these boards run every applet with --btf and the saved
# BTF, and the other checkers hold them to the same numbers.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}

tag() { sed -n "s/^@$1 //p" "$res"; }

for b in $(boards); do
	board_nobtf "$b" || continue
	t="board/$b no BTF"
	# the other sections ran with --btf and the minimal BTF boards.sh
	# made from this kernel (what CONFIG_BTF_EMBED builds in)
	if board_section "$t" "$b" info; then
		size=$(tag btf-file)
		check "$t: the other sections had the minimal BTF (${size:-no} bytes < 16 KiB)" \
			[ "${size:-99999}" -lt 16384 ]
	fi
	board_section "$t" "$b" nobtf || continue
	for a in oncpu offcpu offcpu-tp memstack; do
		rc=$(tag "rc-$a") lines=$(tag "lines-$a")
		if [ "$rc" = 0 ] && [ "${lines:-0}" -gt 0 ]; then
			pass "$t: $a works without BTF ($lines lines)"
		else
			fail "$t: $a works without BTF" "status '$rc', $lines lines: $(tag "err-$a" | head -n 2 | tr '\n' '|')"
		fi
	done
	for a in iostack rastack; do
		rc=$(tag "rc-$a") lines=$(tag "lines-$a") err=$(tag "err-$a" | head -n 3)
		if [ -z "$rc" ]; then
			fail "$t: $a ran" "no status (no disk for rastack?)"
		elif [ "$rc" = 0 ]; then
			check "$t: $a works without BTF ($lines lines)" [ "${lines:-0}" -gt 0 ]
		else
			# one line, naming BTF and the option that gives it
			if [ "$(tag "err-$a" | grep -c .)" = 1 ] && tag "err-$a" | grep -q BTF &&
					tag "err-$a" | grep -q -- --btf; then
				pass "$t: $a stops (status $rc) in one line: $err"
			else
				fail "$t: $a stops in one line naming BTF and --btf" \
					"status $rc: $(echo "$err" | head -n 3 | tr '\n' '|')"
			fi
		fi
	done
done
