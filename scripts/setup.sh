#!/bin/sh
# Install every build, test and benchmark dependency of stackbox from
# Debian's archive. Idempotent: a second run only checks and returns.
# It may add the arm64 architecture (for musl-dev:arm64) and deb-src
# entries (for the zlib, elfutils and libbpf sources the musl builds use);
# it lists what it will change, then changes it, without asking.
set -eu

[ "$(id -u)" = 0 ] || { echo "setup.sh: must run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

PKGS="make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool
 kconfig-frontends-nox musl-tools musl-dev gcc-aarch64-linux-gnu
 libc6-dev-arm64-cross musl-dev:arm64 dpkg-dev cpio xz-utils file
 qemu-system-x86 qemu-system-arm qemu-user-static
 linux-perf bpftrace libbpf-tools clang-format golang-go libxml2-utils stress-ng
 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 python3-pandas libcap2-bin
 librsvg2-bin lz4 zstd liblzma-dev liblzma-dev:arm64 debuginfod chromium systemtap-sdt-dev"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done

SRC=/etc/apt/sources.list.d/stackbox-src.sources
add_arch=
dpkg --print-foreign-architectures | grep -qx arm64 || add_arch=1
add_src=
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb-src' /etc/apt/sources.list; then
	add_src=1
fi

[ -z "$missing" ] && [ -z "$add_arch" ] && [ -z "$add_src" ] && exit 0

# Say what will change on this machine before changing it (no prompt:
# CI runs this without a terminal).
echo "setup.sh: changing this machine's package configuration:"
[ -z "$add_arch" ] || echo "  dpkg --add-architecture arm64 (for the :arm64 libraries below)"
if [ -n "$add_src" ]; then
	echo "  write $SRC: deb-src entries mirroring the deb entries in /etc/apt/sources.list.d/*.sources"
	[ ! -f /etc/apt/sources.list ] ||
		echo "  write ${SRC%.sources}.list: deb-src lines mirroring /etc/apt/sources.list"
fi
echo "  apt-get update"
[ -z "$missing" ] || echo "  apt-get install --no-install-recommends:$missing" | fold -s -w 78 | sed 's/ *$//; 2,$s/^/    /'

[ -z "$add_arch" ] || dpkg --add-architecture arm64
# deb-src entries mirror the machine's own deb entries (whatever mirror it uses).
if [ -n "$add_src" ]; then
	for f in /etc/apt/sources.list.d/*.sources; do
		if [ "$f" != "$SRC" ] && grep -q '^URIs:.*debian' "$f"; then
			sed 's/^Types: deb$/Types: deb-src/' "$f"
		fi
	done >"$SRC.tmp"
	mv "$SRC.tmp" "$SRC"
	if [ -f /etc/apt/sources.list ]; then
		sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' /etc/apt/sources.list \
			>"${SRC%.sources}.list"
	fi
fi
apt-get update -q
[ -z "$missing" ] || apt-get install -y -q --no-install-recommends $missing
