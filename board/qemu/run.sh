#!/bin/sh
# run.sh ARCH TIMEOUT -- COMMAND...
# Boot a Debian kernel (BOARD_KERNEL: 5.10, 6.1 or 6.12; default 6.1, see
# get-kernel.sh) for ARCH (x86_64, arm64) under qemu (TCG)
# with a busybox initramfs holding out/musl-ARCH/stackbox (as
# /bin/stackbox) and out/musl-ARCH/workloads/* (as /workloads/*), run
# COMMAND (a shell command line; several words are joined by spaces) as
# root, and power off. Prints COMMAND's output (stdout and stderr) and
# exits with its status. A boot failure or a timeout (TIMEOUT seconds for
# the whole boot) prints the last 30 console lines and exits 125.
#
# Environment: OUT (default <repo>/out), BOARD_LOG=FILE keeps the whole
# console, BOARD_SMP (default 2) guest CPUs, BOARD_APPEND more kernel
# arguments, BOARD_DISK=IMAGE a raw disk image the guest sees as
# /dev/vda (virtio; its writes are discarded at power off),
# BOARD_FILES="SRC:DEST ..." more files into the guest's root (DEST
# relative to it, its directories made), BOARD_MODULES="ext4 ..." kernel modules to load at boot (with what they
# depend on; get-modules.sh takes them from the kernel's package),
# BOARD_TCG more -accel tcg options (thread=single: every vCPU in one
# host thread; see docs/boards.md on the x86_64 text_poke hang).
# The kernel comes from get-kernel.sh (cached), busybox from
# out/board/ARCH/busybox (made by `make board-prereqs`), else from
# get-busybox.sh.
#
# WHY TCG: KVM is present on the development machines but hangs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${here%/board/qemu}
OUT=${OUT:-$root/out}

usage() { echo "usage: $0 x86_64|arm64 TIMEOUT -- COMMAND..." >&2; exit 2; }
[ $# -ge 3 ] || usage
arch=$1
timeout=$2
shift 2
[ "$1" = -- ] || usage
shift
case $arch in
x86_64)
	qemu="qemu-system-x86_64 -M q35 -cpu max"
	disk_dev=virtio-blk-pci disk_mod=virtio_pci
	console=ttyS0
	# Under TCG the kernel distrusts the TSC and falls back to the HPET:
	# every clock_gettime() becomes a slow emulated syscall (and most
	# samples land there). Real machines read the TSC in the vDSO.
	# no_timer_check: a starved emulator misses the IO-APIC timer test
	# at boot, and 5.10 panics ("IO-APIC + timer doesn't work!").
	kargs="tsc=reliable no_timer_check" ;;
arm64)
	# pauth-impdef: the architected pointer-auth cipher (QARMA) is very
	# slow to emulate, and Debian's arm64 kernel signs every return.
	qemu="qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on"
	disk_dev=virtio-blk-device disk_mod=virtio_mmio
	console=ttyAMA0
	kargs= ;;
*) usage ;;
esac

kver=${BOARD_KERNEL:-6.1}
kernel=$("$here/get-kernel.sh" "$kver" "$arch") ||
	{ echo "run.sh: no $kver kernel for $arch" >&2; exit 125; }
busybox=$OUT/board/$arch/busybox
[ -e "$busybox" ] || busybox=$("$here/get-busybox.sh" "$arch")
stackbox=$OUT/musl-$arch/stackbox
[ -f "$stackbox" ] || echo "run.sh: no $stackbox, booting without it" >&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
token=sbx$$x$(date +%s)

# ---- initramfs ----
s=$tmp/root
mkdir -p "$s/bin" "$s/sbin" "$s/usr/bin" "$s/usr/sbin" "$s/proc" "$s/sys" \
	"$s/dev" "$s/tmp" "$s/root" "$s/etc" "$s/workloads"
cp "$busybox" "$s/bin/busybox"
[ ! -f "$stackbox" ] || cp "$stackbox" "$s/bin/stackbox"
for w in "$OUT/musl-$arch/workloads"/*; do
	[ ! -f "$w" ] || cp "$w" "$s/workloads/"
done
for f in ${BOARD_FILES:-}; do
	mkdir -p "$(dirname "$s/${f#*:}")"
	cp "${f%%:*}" "$s/${f#*:}" || { echo "run.sh: cannot copy ${f%%:*}" >&2; exit 2; }
done
# Modules, in the order to load them (/modules); a failure shows in the
# output, before the command's.
disk=
modules=${BOARD_MODULES:-}
if [ -n "${BOARD_DISK:-}" ]; then
	[ -f "$BOARD_DISK" ] || { echo "run.sh: no disk image $BOARD_DISK" >&2; exit 2; }
	disk="-drive file=$BOARD_DISK,if=none,id=sbdisk,format=raw,snapshot=on
		-device $disk_dev,drive=sbdisk"
	modules="$disk_mod virtio_blk $modules"
	: >"$s/disk"
fi
: >"$s/modules"
if [ -n "$modules" ]; then
	mkdir -p "$s/lib/modules"
	"$here/get-modules.sh" "$kver" "$arch" $modules >"$tmp/modules" ||
		{ echo "run.sh: cannot get the modules $modules" >&2; exit 125; }
	while read -r m; do
		cp "$m" "$s/lib/modules/"
		basename "$m" >>"$s/modules"
	done <"$tmp/modules"
fi
printf '%s\n' "$*" >"$s/cmd"
# /init: mounts what the profilers need, runs /cmd with its output in a
# file, then prints it between marker lines with the status. Printing
# after the command, with kernel console messages turned down, keeps
# kernel messages from landing inside the output.
cat >"$s/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# what udev makes on a full system; scripts read /dev/stdin
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
hostname board
echo "@@ $token init"
: >/tmp/out
for m in \$(cat /modules); do
	insmod /lib/modules/\$m >>/tmp/out 2>&1 || echo "run.sh: insmod \$m failed" >>/tmp/out
done
# the disk's node comes once its driver has probed it
i=0
while [ -e /disk ] && [ ! -b /dev/vda ] && [ \$i -lt 100 ]; do
	sleep 0.1
	i=\$((i + 1))
done
cd /root
sh /cmd >>/tmp/out 2>&1 </dev/null
rc=\$?
echo 1 >/proc/sys/kernel/printk
echo "@@ $token begin"
cat /tmp/out
echo "@@ $token end \$rc"
# Let the UART drain before the power goes (seen fine without; cheap).
sleep 0.2
# a reset ends qemu (-no-reboot) on every board, also after a suspend to
# RAM, from which q35 no longer powers off
reboot -f
EOF
chmod +x "$s/init"
(cd "$s" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$tmp/initrd"

# ---- boot ----
# -nic none: the guest needs no network, and q35 would spend a second in
# the NIC's boot ROM.
log=${BOARD_LOG:-$tmp/console}
start=$(date +%s)
rc=0
timeout -k 5 "$timeout" $qemu -accel "tcg${BOARD_TCG:+,$BOARD_TCG}" -smp "${BOARD_SMP:-2}" -m 512M \
	-nographic -no-reboot -nic none $disk -kernel "$kernel" -initrd "$tmp/initrd" \
	-append "console=$console panic=-1 quiet $kargs ${BOARD_APPEND:-}" \
	</dev/null >"$log" 2>&1 || rc=$?
tr -d '\r' <"$log" >"$tmp/clean"
echo "run.sh: $kver $arch boot+run took $(($(date +%s) - start))s" >&2

# The output is what lies between the begin and end markers; the end
# marker may follow output that did not end in a newline.
status=$(sed -n "s/.*@@ $token end \([0-9]*\)\$/\1/p" "$tmp/clean")
if [ -z "$status" ]; then
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="timed out after ${timeout}s"
	else
		why="no exit status from the guest (qemu exited $rc)"
	fi
	tail -n 30 "$tmp/clean" >&2
	echo "run.sh: $arch: $why" >&2
	exit 125
fi
awk -v b="@@ $token begin" -v e="@@ $token end " '
	$0 == b { on = 1; next }
	on && (i = index($0, e)) { printf "%s", substr($0, 1, i - 1); exit }
	on { print }' "$tmp/clean"
exit "$status"
