#!/bin/sh
# The sizes README.md states against the builds they describe, within
# the tolerance it states (tests/lib.sh readme_size). make check builds
# the static musl binaries before the tests (board-prereqs), so this
# takes only a strip of each; check-unit alone uses what out/ holds and
# says SKIP for what is missing or older than the sources. make
# readme-sizes builds all four and runs this (TINY: the tiny build).
. "$SRCTREE/tests/lib.sh"
cd "$SRCTREE" || exit 1

readme_size out/musl-x86_64/stackbox "${OUT:-$SRCTREE/out}/musl-x86_64/stackbox" x86_64_defconfig
if command -v aarch64-linux-gnu-strip >/dev/null; then
	readme_size out/musl-arm64/stackbox "${OUT:-$SRCTREE/out}/musl-arm64/stackbox" \
		arm64_defconfig aarch64-linux-gnu-strip
else
	skip "README size of out/musl-arm64/stackbox" "no aarch64-linux-gnu-strip (make setup installs it)"
fi
if [ "$(uname -m)" = x86_64 ]; then
	readme_size ./stackbox "$STACKBOX" x86_64_defconfig
else
	skip "README size of ./stackbox" "the README's figure is for an x86_64 host, this is $(uname -m)"
fi
# tiny_defconfig: tests/unit/build.sh builds it and checks its size
[ -z "${TINY:-}" ] || readme_size tiny_defconfig "$TINY" tiny_defconfig
