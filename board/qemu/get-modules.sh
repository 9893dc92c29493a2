#!/bin/sh
# get-modules.sh ARCH MODULE...: the kernel modules a board boot needs,
# taken from the cached package of the kernel get-kernel.sh fetches, with
# the modules they depend on. Prints their paths, one a line, in the
# order to load them; modules built into that kernel are left out.
# Names are module names (virtio_blk, ext4, crc32c_generic). Cached.
#
# WHY: the Debian kernels build most block drivers and file systems as
# modules (arm64: virtio_blk, ext4), and the busybox initramfs has no
# modprobe data; a module's own .modinfo names what it depends on.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 x86_64|arm64 MODULE..." >&2; exit 2; }
arch=$1
shift
a=$(debarch "$arch")
pkg=$(kernel_pkg "$arch")
dir=$(fetch_deb "$pkg:$a" ./boot)
deb=$(ls "$CACHE/debs/${pkg}_"*"_$a.deb" 2>/dev/null | tail -n 1)
[ -n "$deb" ] || { echo "get-modules: no .deb of $pkg in $CACHE/debs" >&2; exit 1; }
mods=$dir.modules
mkdir -p "$mods"
(
	flock 9
	[ -f "$mods/.list" ] && exit 0
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$mods" --wildcards \
		'./lib/modules/*/modules.builtin'
	dpkg-deb -c "$deb" | awk '$6 ~ /\.ko$/ { print $6 }' >"$mods/.list.tmp"
	mv "$mods/.list.tmp" "$mods/.list"
) 9>"$mods/.lock"

# file NAME: the module's path inside the package; "" when built in.
file() {
	pattern="/$(echo "$1" | sed 's/[-_]/[-_]/g')\.ko\$"
	if grep -q "$pattern" "$mods"/lib/modules/*/modules.builtin; then
		return 0
	fi
	grep -m 1 "$pattern" "$mods/.list" ||
		{ echo "get-modules: no module $1 in $pkg" >&2; return 1; }
}

# deps NAME: what it depends on (its .modinfo: "depends=jbd2,mbcache").
deps() {
	f=$(file "$1") || return 1
	[ -z "$f" ] || tr '\0' '\n' <"$mods/$f" | sed -n 's/^depends=//p' | tr ',' ' '
}

# Extract what is missing, a level of dependencies at a time: each pass
# decompresses the whole package once. A name twice would fail tar's
# second match ("Not found in archive"): each file is named once.
level="$*"
while [ -n "$level" ]; do
	missing=
	for m in $level; do
		f=$(file "$m")
		case "$missing " in *" $f "*) continue ;; esac
		[ -z "$f" ] || [ -f "$mods/$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		(flock 9; dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$mods" $missing) \
			9>"$mods/.lock"
	fi
	next=
	for m in $level; do
		next="$next $(deps "$m")"
	done
	level=$(echo $next)
done

# Dependencies first, each module once.
seen=" "
add() {
	local m
	case $seen in *" $1 "*) return 0 ;; esac
	seen="$seen$1 "
	for m in $(deps "$1"); do
		add "$m"
	done
	f=$(file "$1")
	[ -z "$f" ] || echo "$mods/${f#./}"
}

for m in "$@"; do
	add "$m"
done
