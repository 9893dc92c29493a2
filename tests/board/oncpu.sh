#!/bin/sh
# Board checker: oncpu on every board (tests/boards.sh boots them; the
# guest runs tests/board/guest). Checks the static musl binary is static
# and stripped, that it really ran in the board's kernel (uname), that the
# kernel's BTF is there (or hidden, on a -nobtf board, and saved for
# --btf), and that oncpu gives burn_two_thirds 2/3 of the samples.
# A board not booted is a SKIP; the guest's sections stay in
# out/board/BOARD/ for post-mortems.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
[ -n "$OUT" ] || OUT=$root/out

tag() { sed -n "s/^@$1 //p" "$res"; }

for b in $(boards); do
	t="board/$b"
	arch=$(board_arch "$b") k=$(board_kernel "$b")
	bin=$OUT/musl-$arch/stackbox
	m=$arch
	[ "$arch" != arm64 ] || m=aarch64
	board_section "$t" "$b" info || continue
	pass "$t boots and runs"
	# Static: no program interpreter, no shared libraries. Stripped: no
	# .symtab (the stripped head-unit case is what we ship).
	check "$t stackbox is static" \
		sh -c "! readelf -lW '$bin' | grep -q INTERP && ! readelf -dW '$bin' | grep -q NEEDED"
	check "$t stackbox is stripped" sh -c "! readelf -SW '$bin' | grep -q '\.symtab'"
	r=$(tag uname-r)
	case $r in
	"$k".*) pass "$t runs in the $k kernel ($r)" ;;
	*) fail "$t runs in the $k kernel" "uname -r is '$r'" ;;
	esac
	check "$t uname -m is $m" [ "$(tag uname-m)" = "$m" ]
	if board_nobtf "$b"; then
		check "$t: BTF hidden, a copy of $(tag btf-file) bytes for --btf" \
			sh -c "[ -z '$(tag btf)' ] && [ '$(tag btf-file)' -gt 0 ]"
	else
		check "$t has BTF (/sys/kernel/btf/vmlinux)" [ "$(tag btf)" = yes ]
	fi
	check "$t stackbox --list names oncpu" sh -c "sed -n 's/^@list //p' '$res' | grep -qx oncpu"

	board_section "$t oncpu" "$b" oncpu || continue

	orc=$(tag oncpu-rc)
	if [ "$orc" = 0 ]; then
		pass "$t oncpu exits 0"
	else
		fail "$t oncpu exits 0" "status '$orc'; stderr: $(tag oncpu-stderr | head -n 3 | tr '\n' ' ')"
	fi
	# total samples, and the burn_two_thirds share of the burners' samples
	set -- $(awk '/^@oncpu$/ { on = 1; next } /^@oncpu-rc / { on = 0 }
		on && NF > 1 { n = $NF; t += n
			if (/burn_two_thirds/) a += n; else if (/burn_one_third/) b += n }
		END { printf "%d %.3f %d\n", t, (a + b) ? a / (a + b) : 0, a + b }' "$res")
	total=$1 share=$2 burners=$3
	# 4 s at 199 Hz is ~800 samples; a loaded host left a TCG vCPU 13 %
	# of that (tests/board/unwind.sh), ~100. 50 is still 2 x the 25
	# samples at which 0.12 below is 4 standard errors of the share.
	if [ "$total" -ge 50 ]; then
		pass "$t oncpu takes >= 50 samples ($total)"
	else
		fail "$t oncpu takes >= 50 samples" "$total samples; stderr: $(tag oncpu-stderr | head -n 3 | tr '\n' ' ')"
	fi
	# 0.12: the share's spread at ~600 samples under TCG, with room (4
	# standard errors down to 25 samples).
	if [ "$burners" -gt 0 ] && fcmp "$share >= 0.547 && $share <= 0.787"; then
		pass "$t oncpu burn_two_thirds share $share is 2/3 +- 0.12"
	else
		fail "$t oncpu burn_two_thirds share is 2/3 +- 0.12" "share $share of $burners samples"
	fi
done
