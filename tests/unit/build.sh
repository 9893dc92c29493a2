#!/bin/sh
# The build as Buildroot, Yocto and menuconfig users meet it: Kconfig
# accepted by kconfig-conf, .config -> header without kconfig, applets
# generated from their sources, tiny_defconfig, and a cross build.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRCTREE" || exit 1
unset KCONFIG_CONFIG O MAKEFLAGS MAKELEVEL # nested makes: their own O=, no jobserver of ours

# kconfig-conf must accept the Kconfig without a warning
if command -v kconfig-conf >/dev/null; then
	make -s applets/Config.in 2>/dev/null || scripts/gen-applets.sh . "$T/gen"
	KCONFIG_CONFIG=$T/kc kconfig-conf --olddefconfig Kconfig >"$T/kc.out" 2>&1
	check "kconfig-conf accepts Kconfig" [ $? = 0 ]
	check "kconfig-conf gives no warning" test -z "$(grep -i warn "$T/kc.out")"
	check "kconfig-conf's .config enables oncpu" grep -qx CONFIG_ONCPU=y "$T/kc"
else
	skip "kconfig-conf accepts Kconfig" "kconfig-conf not installed (kconfig-frontends-nox)"
fi

# .config -> autoconf.h without kconfig: missing symbols take defaults
printf 'CONFIG_ONCPU=y\n# CONFIG_FORMAT_FOLDED is not set\n' >"$T/partial"
scripts/config.sh header . "$T/partial" >"$T/autoconf.h"
check "config.sh: set symbol" grep -qx '#define ENABLE_ONCPU 1' "$T/autoconf.h"
check "config.sh: 'is not set' symbol" grep -qx '#define ENABLE_FORMAT_FOLDED 0' "$T/autoconf.h"
check "config.sh: missing symbol takes its default (y)" grep -qx '#define ENABLE_SYMBOLIZE 1' "$T/autoconf.h"
check "config.sh: IF_ macro of an off symbol is empty" grep -qx '#define IF_FORMAT_FOLDED(...)' "$T/autoconf.h"

# Adding an applet is adding a file: the generator finds it
mkdir -p "$T/src/applets"
for a in alpha beta; do
	A=$(echo $a | tr a-z A-Z)
	printf '//config:config %s\n//config:\tbool "%s"\n//usage:usage: %s "quoted"\n' \
		"$A" "$a" "$a" >"$T/src/applets/$a.c"
done
scripts/gen-applets.sh "$T/src" "$T/src/gen"
check "gen-applets: table lists both applets" [ "$(grep -c APPLET "$T/src/gen/applets.h")" = 2 ]
check "gen-applets: config entries from the sources" grep -q '^config BETA' "$T/src/applets/Config.in"
check "gen-applets: usage strings escaped" grep -qF '"usage: alpha \"quoted\"\n"' "$T/src/gen/usage.h"
printf '//usage:x\n' >"$T/src/applets/gamma.c"
scripts/gen-applets.sh "$T/src" "$T/src/gen" 2>"$T/gen.err"
check "gen-applets: an applet without its config entry is an error" [ $? != 0 ]
check "gen-applets: the error names the file" grep -q 'gamma.c: no .//config:config GAMMA. line' "$T/gen.err"

# tiny_defconfig: oncpu and text only, no code of what is off
if make -s O="$T/tiny" tiny_defconfig >/dev/null && make -s O="$T/tiny" >"$T/tiny.log" 2>&1; then
	check "tiny: only oncpu" [ "$("$T/tiny/stackbox" --list)" = oncpu ]
	check "tiny: no folded code" test -z "$(nm "$T/tiny/stackbox" | grep -w format_folded)"
	"$T/tiny/stackbox" oncpu -f folded >"$T/tiny.err" 2>&1
	check "tiny: -f folded is refused clearly" grep -q 'oncpu: -f folded: not in this build' "$T/tiny.err"
	check "tiny: build is warning-free" test -z "$(grep -i warning "$T/tiny.log")"
	readme_size tiny_defconfig "$T/tiny/stackbox" tiny_defconfig
else
	fail "tiny_defconfig builds" "$(tail -5 "$T/tiny.log")"
fi

# make install: the binary and one link per configured applet
if make -s O="$T/tiny" install DESTDIR="$T/root" BINDIR=/usr/bin >"$T/install.log" 2>&1; then
	check "install: the binary" [ -x "$T/root/usr/bin/stackbox" ]
	check "install: an oncpu link to it" [ "$(readlink "$T/root/usr/bin/oncpu")" = stackbox ]
else
	fail "make install DESTDIR=" "$(tail -3 "$T/install.log")"
fi
# ... and keeps a file of an applet's name that is not stackbox, saying so
mkdir -p "$T/root2/usr/bin" && echo mine >"$T/root2/usr/bin/oncpu"
make -s O="$T/tiny" install DESTDIR="$T/root2" BINDIR=/usr/bin >/dev/null 2>"$T/install2.err"
check "install: keeps a file named like an applet" [ "$(cat "$T/root2/usr/bin/oncpu")" = mine ]
check "install: says which file it kept" \
	grep -qx "install: kept $T/root2/usr/bin/oncpu: a file of that name exists" "$T/install2.err"

# make dist and the builds from its tarball: tests/unit/image.sh

# The generic cross path Buildroot and Yocto use: CROSS_COMPILE + ARCH
if command -v aarch64-linux-gnu-gcc >/dev/null && [ -e /usr/lib/aarch64-linux-gnu/libbpf.so ]; then
	if make O="$T/cross" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- V=1 >"$T/cross.log" 2>&1; then
		check "cross: arm64 binary" sh -c "file '$T/cross/stackbox' | grep -q 'ARM aarch64'"
		check "cross: BPF compiled for arm64" grep -q 'clang.*-target bpf .*-D__TARGET_ARCH_arm64 .*oncpu.bpf.c' "$T/cross.log"
		if command -v qemu-aarch64-static >/dev/null; then
			out=$(qemu-aarch64-static -L /usr/aarch64-linux-gnu "$T/cross/stackbox" --list 2>&1)
			check "cross: arm64 binary runs (qemu-user) and lists oncpu" sh -c "echo '$out' | grep -qx oncpu"
		fi
	else
		fail "cross: make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" "$(tail -5 "$T/cross.log")"
	fi
else
	skip "cross: generic CROSS_COMPILE build" "no aarch64-linux-gnu-gcc or libbpf-dev:arm64"
fi

# One style for the whole tree
if command -v clang-format >/dev/null && [ -e .git ]; then
	bad=$(for f in $(git ls-files '*.c' '*.h'); do
		clang-format "$f" | cmp -s "$f" - || echo "$f"; done)
	check "sources follow .clang-format (make format): ${bad:-all}" test -z "$bad"
else
	skip "sources follow .clang-format" "no clang-format or not a git checkout"
fi
