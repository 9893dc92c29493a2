#!/bin/sh
# get-busybox.sh ARCH: fetch Debian 12's busybox-static for ARCH into the
# cache and print the path of the (static) busybox binary. Cached; one
# busybox serves every board kernel. The guest's /init installs the
# applet links itself, so the host never has to run a target binary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

a=$(debarch "${1:-}")
apt_update bookworm || true
for v in $(versions bookworm "busybox-static:$a"); do
	dir=$(fetch_deb bookworm "busybox-static:$a" "$v" ./bin/busybox) || continue
	echo "$dir/bin/busybox"
	exit 0
done
# offline: the newest one unpacked before
dir=$(ls -d "$CACHE/debs/busybox-static_"*"_$a/.done" 2>/dev/null | sort -V | tail -n 1)
[ -n "$dir" ] || { echo "get-busybox: no busybox-static for $a (offline, none cached)" >&2; exit 1; }
echo "$(dirname "$dir")/bin/busybox"
