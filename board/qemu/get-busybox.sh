#!/bin/sh
# get-busybox.sh ARCH: fetch Debian's busybox-static for ARCH into the cache
# and print the path of the (static) busybox binary. Cached. The guest's
# /init installs the applet links itself, so the host never has to run
# a target binary.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

a=$(debarch "${1:-}")
dir=$(fetch_deb "busybox-static:$a" ./bin/busybox)
echo "$dir/bin/busybox"
