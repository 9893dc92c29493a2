#!/bin/sh
# boards.sh [BOARD...]: boot each board once and keep its output for the
# checkers (tests/board/*.sh). A board is KERNEL-ARCH[-nobtf]: a Debian
# kernel (5.10, 6.1, 6.12; board/qemu/get-kernel.sh) on x86_64 or arm64,
# -nobtf with the kernel's BTF hidden. Default: BOARDS, else all of
# tests/lib.sh's board_list. Each boot runs tests/board/guest with an
# empty ext4 disk and leaves in out/board/BOARD/:
#   guest.out   the guest's sections (missing when the boot failed)
#   run.err     board/qemu/run.sh's messages (the boot time, a failure)
#   console     the whole serial console, for post-mortems
#   config      the kernel's config (tests/board/kconfig.sh)
# BOARD_JOBS boards boot at a time (default: one more than the cores).
# A board's TCG thread keeps a core busy only part of the time: its
# guest sleeps in trigger, suspend and the block workloads. Two boards
# on 2 cores used 122 % of CPU, three 173 %, and the ten took 713 s
# instead of about 960. Exits 1 when a board did not boot.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${here%/tests}
. "$here/lib.sh"
OUT=${OUT:-$root/out}
export OUT

# A board runs every applet's scenario in 2 to 5 minutes under TCG,
# three boards at a time on 2 cores (132-275 s measured). 900 s is over
# 3 times the slowest; a board hung
# (TCG on an overloaded host can starve the guest's timers) costs no more.
export BOARD_TIMEOUT=${BOARD_TIMEOUT:-900}
# A kernel stuck for a minute (a soft lockup, twice watchdog_thresh, or
# an RCU stall) panics, and the board stops at once instead of at the
# timeout; loglevel=5 puts the stuck stacks on the console. 60 s is far
# above any stall an overloaded host gives a TCG vCPU.
# One host thread per board (its vCPUs take turns): two boards fill the
# two cores as well as multi-threaded TCG does (485 s against 577 s for
# the ten), and it avoids a hang seen with it on x86_64 (docs/boards.md).
# BOARD_TCG= (empty) gives a thread per vCPU back.
export BOARD_TCG=${BOARD_TCG-thread=single}
stuck="watchdog_thresh=30 softlockup_panic=1 rcupdate.rcu_cpu_stall_timeout=60"
export BOARD_APPEND="${BOARD_APPEND:-loglevel=5 $stuck sysctl.kernel.panic_on_rcu_stall=1}"

# one BOARD: boot it (run by xargs, a process per board)
one() {
	b=$1
	IFS=- read -r kver arch nobtf <<EOF
$b
EOF
	d=$OUT/board/$b
	mkdir -p "$d"
	rm -f "$d/guest.out" "$d/run.err" "$d/console" "$d/min.btf"
	if k=$("$root/board/qemu/get-kernel.sh" "$kver" "$arch" 2>"$d/run.err"); then
		ln -sf "$(dirname "$k")/$(basename "$k" | sed 's/^vmlinuz/config/')" "$d/config"
	fi
	guest="NOBTF=$([ "$nobtf" = nobtf ] && echo 1)
BOARD_SKIP='${BOARD_SKIP:-}'
$(cat "$here/board/guest")"
	# -nobtf: the minimal BTF of this kernel, made as a BSP build makes
	# it (from the kernel's BTF, here taken out of its boot image)
	files=
	if [ "$nobtf" = nobtf ] && [ -n "${k:-}" ] && [ -f "${BTF_NEEDS:-}" ] &&
		python3 "$root/board/qemu/kernel-btf.py" "$k" "$d/kernel.btf" 2>>"$d/run.err" &&
		bpftool gen min_core_btf "$d/kernel.btf" "$d/min.btf" "$BTF_NEEDS" 2>>"$d/run.err"; then
		files="$d/min.btf:min.btf"
	fi
	disk=$OUT/board/disk.ext4
	[ -f "$disk" ] || disk=
	start=$(date +%s)
	if BOARD_KERNEL=$kver BOARD_LOG=$d/console BOARD_DISK=$disk BOARD_FILES=$files \
			BOARD_MODULES=${disk:+"ext4 crc32c_generic"} \
			"$root/board/qemu/run.sh" "$arch" "$BOARD_TIMEOUT" -- "$guest" \
			>"$d/guest.tmp" 2>>"$d/run.err"; then
		mv "$d/guest.tmp" "$d/guest.out"
		echo "board $b: ran in $(($(date +%s) - start)) s"
	else
		rc=$?
		echo "board $b: run.sh exited $rc after $(($(date +%s) - start)) s:" \
			"$(tail -n 1 "$d/run.err")"
		return 1
	fi
}

if [ "${1:-}" = --one ]; then
	one "$2"
	exit
fi

boards=${*:-${BOARDS:-$(board_list)}}
mkdir -p "$OUT/board"
# The disk rastack reads: an empty ext4 file system, made once (qemu's
# snapshot=on keeps every boot from changing it).
if [ ! -f "$OUT/board/disk.ext4" ]; then
	if PATH=$PATH:/sbin:/usr/sbin command -v mkfs.ext4 >/dev/null; then
		truncate -s 128M "$OUT/board/disk.tmp" &&
			PATH=$PATH:/sbin:/usr/sbin mkfs.ext4 -q -F "$OUT/board/disk.tmp" &&
			mv "$OUT/board/disk.tmp" "$OUT/board/disk.ext4"
	else
		echo "boards.sh: no mkfs.ext4 (e2fsprogs): boards boot without a disk" >&2
	fi
fi
jobs=${BOARD_JOBS:-$(($(nproc) + 1))}
start=$(date +%s)
printf '%s\n' $boards | xargs -P "$jobs" -n 1 sh "$0" --one
rc=$?
echo "boards: $(echo $boards | wc -w) booted in $(($(date +%s) - start)) s, $jobs at a time"
[ "$rc" = 0 ]
