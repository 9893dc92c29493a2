#!/bin/sh
# get-modules.sh KERNEL ARCH MODULE...: the kernel modules a board boot
# needs, taken from the package of the board kernel KERNEL (get-kernel.sh),
# with the modules they depend on. Prints their paths, one a line, in the
# order to load them; modules built into that kernel are left out. Names
# are module names (virtio_blk, ext4, crc32c_generic). Cached.
#
# WHY: the Debian kernels build most block drivers and file systems as
# modules (arm64: virtio_blk, ext4), and the busybox initramfs has no
# modprobe data; a module's own .modinfo names what it depends on.
# get-kernel.sh unpacks the usual ones (lib.sh's KMOD_PATHS); any other
# costs a pass over the whole package.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 5.10|6.1|6.12 x86_64|arm64 MODULE..." >&2; exit 2; }
dir=$(kernel_dir "$1" "$2")
shift 2
deb=$dir.deb
[ -f "$deb" ] || deb=
pkg=$(basename "$dir")

# A package unpacked by an older get-kernel.sh lacks modules.builtin.
if [ -n "$deb" ] && ! ls "$dir"/lib/modules/*/modules.builtin \
		"$dir"/usr/lib/modules/*/modules.builtin >/dev/null 2>&1; then
	(flock 9; dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$dir" --wildcards '*/modules.builtin') 9>"$dir.lock"
fi

# glob NAME: a pattern matching NAME's file, whichever of - and _ it uses.
glob() { echo "$1" | sed 's/[-_]/[-_]/g'; }

# file NAME: the module's uncompressed .ko in the cache, "" when built
# in; unpacked from the package when missing. Debian 13 compresses
# modules (.ko.xz); busybox's insmod and the .modinfo reader want them
# plain.
file() {
	g=$(glob "$1")
	if grep -qs "/$g\.ko" "$dir"/lib/modules/*/modules.builtin "$dir"/usr/lib/modules/*/modules.builtin; then
		return 0
	fi
	f=$(find "$dir" -name "$g.ko*" ! -name '*.ko.plain' | head -n 1)
	if [ -z "$f" ] && [ -n "$deb" ]; then
		(flock 9; dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$dir" --wildcards "*/$g.ko*" 2>/dev/null) 9>"$dir.lock" || true
		f=$(find "$dir" -name "$g.ko*" ! -name '*.ko.plain' | head -n 1)
	fi
	[ -n "$f" ] || { echo "get-modules: no module $1 in $pkg" >&2; return 1; }
	case $f in
	*.ko) echo "$f" ;;
	*)
		p=${f%.ko*}.ko.plain
		if [ ! -f "$p" ]; then
			case $f in
			*.xz) xz -dc "$f" ;;
			*.zst) zstd -qdc "$f" ;;
			*.gz) gzip -dc "$f" ;;
			esac >"$p.tmp" && mv "$p.tmp" "$p"
		fi
		echo "$p" ;;
	esac
}

# deps NAME: what it depends on (its .modinfo: "depends=jbd2,mbcache").
deps() {
	f=$(file "$1") || return 1
	[ -z "$f" ] || tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | tr ',' ' '
}

# Dependencies first, each module once.
seen=" "
add() {
	case $seen in *" $1 "*) return 0 ;; esac
	seen="$seen$1 "
	for _m in $(deps "$1"); do
		add "$_m"
	done
	f=$(file "$1")
	[ -z "$f" ] || echo "$f"
}

for m in "$@"; do
	add "$m"
done
