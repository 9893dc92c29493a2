#!/bin/sh
# Board test: the static musl stackbox, x86_64 and arm64, booted under qemu
# (TCG) in Debian 12's 6.1 kernel (board/qemu/run.sh). Checks the binary is
# static and stripped, that it really ran in the booted kernel (uname), that
# BPF is there (BTF), and that oncpu gives burn_two_thirds 2/3 of the samples.
# Prerequisites come from `make board-prereqs`; what is missing is a SKIP.
# The guest's output and console stay in out/board/ARCH/ for post-mortems.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
[ -n "$OUT" ] || OUT=$root/out
# One boot per arch takes ~10 s on 2 cores; the margin is for a loaded host.
TIMEOUT=${BOARD_TIMEOUT:-240}

# Everything one boot has to tell, as tagged lines; oncpu's folded output
# sits between @oncpu and @oncpu-rc, its stderr is tagged.
GUEST='echo "@uname-r $(uname -r)"
echo "@uname-m $(uname -m)"
[ -e /sys/kernel/btf/vmlinux ] && echo "@btf yes"
stackbox --list 2>&1 | sed "s/^/@list /"
echo @oncpu
stackbox oncpu -d 6 -f folded -F 199 -- /workloads/burn 4 2>/tmp/err
echo "@oncpu-rc $?"
sed "s/^/@oncpu-stderr /" /tmp/err
exit 0'

tag() { sed -n "s/^@$1 //p" "$res"; }

for arch in x86_64 arm64; do
	t="board/$arch"
	bin=$OUT/musl-$arch/stackbox
	m=$arch
	[ "$arch" != arm64 ] || m=aarch64
	board_boot "$t" "$arch" "$GUEST" "$OUT/musl-$arch/workloads/burn" || continue
	pass "$t boots and runs"
	# Static: no program interpreter, no shared libraries. Stripped: no
	# .symtab (the stripped head-unit case is what we ship).
	check "$t stackbox is static" \
		sh -c "! readelf -lW '$bin' | grep -q INTERP && ! readelf -dW '$bin' | grep -q NEEDED"
	check "$t stackbox is stripped" sh -c "! readelf -SW '$bin' | grep -q '\.symtab'"
	r=$(tag uname-r)
	case $r in
	6.1.*) pass "$t runs in the 6.1 kernel ($r)" ;;
	*) fail "$t runs in the 6.1 kernel" "uname -r is '$r'" ;;
	esac
	check "$t uname -m is $m" [ "$(tag uname-m)" = "$m" ]
	check "$t has BTF (/sys/kernel/btf/vmlinux)" [ "$(tag btf)" = yes ]
	check "$t stackbox --list names oncpu" sh -c "sed -n 's/^@list //p' '$res' | grep -qx oncpu"

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
	if [ "$total" -gt 100 ]; then
		pass "$t oncpu takes > 100 samples ($total)"
	else
		fail "$t oncpu takes > 100 samples" "$total samples; stderr: $(tag oncpu-stderr | head -n 3 | tr '\n' ' ')"
	fi
	# 0.12: the share's spread at ~600 samples under TCG, with room.
	if [ "$burners" -gt 0 ] && fcmp "$share >= 0.547 && $share <= 0.787"; then
		pass "$t oncpu burn_two_thirds share $share is 2/3 +- 0.12"
	else
		fail "$t oncpu burn_two_thirds share is 2/3 +- 0.12" "share $share of $burners samples"
	fi
done
