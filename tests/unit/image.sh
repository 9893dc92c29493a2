#!/bin/sh
# Into the image: the Makefile called the way Buildroot's kconfig-package
# and Yocto's cml1 call BusyBox's, from make dist's tarball, with clang,
# bpftool and the kconfig tools off PATH; install and uninstall; the
# Buildroot external tree and the Yocto layer checked without Buildroot
# or bitbake (neither is a Debian package).
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRCTREE" || exit 1
unset KCONFIG_CONFIG O CC CFLAGS LDFLAGS ARCH CROSS_COMPILE PKG_CONFIG MAKEFLAGS
BR=board/buildroot
META=board/yocto/meta-stackbox
RECIPE=$(echo $META/recipes-devtools/stackbox/stackbox_*.bb)

# ---- scripts/config.sh against Debian's kconfig-conf, byte for byte ----
# A Kconfig with what kconf.awk claims to understand, and ours.
K=$T/k
mkdir -p "$K/applets" "$K/sub"
cat >"$K/Kconfig" <<'EOF'
mainmenu "test configuration"
menu "A"
source "applets/Config.in"
config X
	bool "x"
	default y
	help
	  Help text.

	  config in help text is not an entry
config Y
	bool "y"
	depends on X && !Z
config Z
	bool
	default y if W = "hello"
config W
	string "w"
	default "hello"
endmenu
menu "B"
	depends on Y
config N
	int "n"
	default 7
comment "a comment"
	depends on X
endmenu
if X
config Q
	bool "q"
	default X || N = 7
config H
	hex "h"
	default 0x10
endif
source "sub/K"
EOF
printf 'config S\n\tdef_bool !Q\n' >"$K/sub/K"
printf '//config:config FOO\n//config:\tbool "foo"\n//usage:foo\n' >"$K/applets/foo.c"
scripts/gen-applets.sh "$K" "$K/gen"
if command -v kconfig-conf >/dev/null; then
	n=0 bad=
	for c in '' 'CONFIG_W="x y"' 'CONFIG_W="x"\n# CONFIG_Q is not set\nCONFIG_N=3' \
		'# CONFIG_X is not set\nCONFIG_Y=y' 'CONFIG_Y=y\nCONFIG_N=9\nCONFIG_H=0x20\nCONFIG_FOO=y\nCONFIG_GONE=y'; do
		n=$((n + 1))
		for how in olddefconfig oldconfig savedefconfig; do
			printf "$c\n" >"$K/a"
			cp "$K/a" "$K/b"
			case $how in
			savedefconfig)
				scripts/config.sh olddefconfig "$K" "$K/a" 2>/dev/null
				scripts/config.sh savedefconfig "$K" "$K/a" "$K/sa"
				(cd "$K" && KCONFIG_CONFIG=b kconfig-conf --olddefconfig Kconfig &&
					KCONFIG_CONFIG=b kconfig-conf --savedefconfig=sb Kconfig) >/dev/null
				cmp -s "$K/sa" "$K/sb" || bad="$bad $how#$n" ;;
			*)
				yes '' | scripts/config.sh $how "$K" "$K/a" >/dev/null 2>&1
				(cd "$K" && yes '' | KCONFIG_CONFIG=b kconfig-conf --$how Kconfig) >/dev/null
				cmp -s "$K/a" "$K/b" || bad="$bad $how#$n" ;;
			esac
		done
	done
	check "config.sh writes what kconfig-conf writes (depends, if, default if, int, hex, string): ${bad:-all}" test -z "$bad"
	bad=
	for d in configs/*_defconfig; do
		cp "$d" "$T/a"
		cp "$d" "$T/b"
		scripts/config.sh olddefconfig . "$T/a" 2>/dev/null
		scripts/config.sh savedefconfig . "$T/a" "$T/sa"
		KCONFIG_CONFIG=$T/b kconfig-conf --olddefconfig Kconfig >/dev/null 2>&1
		KCONFIG_CONFIG=$T/b kconfig-conf --savedefconfig="$T/sb" Kconfig
		cmp -s "$T/a" "$T/b" && cmp -s "$T/sa" "$T/sb" || bad="$bad $d"
	done
	check "config.sh: every configs/ defconfig as kconfig-conf makes it: ${bad:-all}" test -z "$bad"
else
	skip "config.sh against kconfig-conf" "kconfig-conf not installed (kconfig-frontends-nox)"
fi
printf 'CONFIG_ONCPU=y\nCONFIG_NOSUCH=y\nCONFIG_REPORT=m\n' >"$T/bad"
scripts/config.sh olddefconfig . "$T/bad" 2>"$T/bad.err"
check "config.sh: an unknown symbol is named and dropped" grep -q 'bad:2: unknown symbol CONFIG_NOSUCH, dropped' "$T/bad.err"
check "config.sh: a bad value is named and dropped" grep -q 'bad:3: CONFIG_REPORT=m: not a bool, dropped' "$T/bad.err"
printf 'config A\n\tbool "a"\n\tselect B\n' >"$K/sub/K"
scripts/config.sh olddefconfig "$K" "$T/sel" 2>"$T/sel.err"
check "config.sh: what it does not understand stops with file and line" \
	grep -q 'sub/K:3: .select. is not understood' "$T/sel.err"

# ---- the Buildroot external tree, without Buildroot ----
check "buildroot: external.desc names STACKBOX" grep -qx 'name: STACKBOX' $BR/external.desc
check "buildroot: external.mk includes the package" sh -c "grep -q 'package/\*/\*.mk' $BR/external.mk && test -f $BR/package/stackbox/stackbox.mk"
check "buildroot: Config.in sources the package's" sh -c "grep -q 'BR2_EXTERNAL_STACKBOX_PATH/package/stackbox/Config.in' $BR/Config.in && test -f $BR/package/stackbox/Config.in"
mk=$BR/package/stackbox/stackbox.mk
# Names generic-package and kconfig-package read (package/pkg-generic.mk,
# package/pkg-kconfig.mk), and ours.
known=" VERSION SITE SOURCE LICENSE LICENSE_FILES DEPENDENCIES KCONFIG_FILE \
 KCONFIG_FRAGMENT_FILES KCONFIG_OPTS KCONFIG_EDITORS KCONFIG_FIXUP_CMDS \
 BUILD_CMDS INSTALL_TARGET_CMDS LINUX_CONFIG_FIXUPS MAKE_OPTS "
unknown=
for v in $(sed -n -e 's/^\(STACKBOX_[A-Z_]*\) *[+:?]*=.*/\1/p' -e 's/^define \(STACKBOX_[A-Z_]*\).*/\1/p' $mk); do
	case "$known" in *" ${v#STACKBOX_} "*) ;; *) unknown="$unknown $v" ;; esac
done
check "buildroot: stackbox.mk sets only names the infrastructure reads: ${unknown:-yes}" test -z "$unknown"
missing=
for v in KCONFIG_FILE KCONFIG_FRAGMENT_FILES KCONFIG_OPTS KCONFIG_EDITORS \
	BUILD_CMDS INSTALL_TARGET_CMDS LINUX_CONFIG_FIXUPS DEPENDENCIES; do
	grep -Eq "^(define )?STACKBOX_$v\b" $mk || missing="$missing $v"
done
check "buildroot: stackbox.mk sets the kconfig-package variables: ${missing:-all}" test -z "$missing"
check "buildroot: depends on libbpf, elfutils, zlib, xz" grep -Eq "^STACKBOX_DEPENDENCIES = .*libbpf elfutils zlib xz" $mk
check "buildroot: passes TARGET_CC and TARGET_CROSS" sh -c "grep -q 'CC=\"\$(TARGET_CC)\"' $mk && grep -q 'CROSS_COMPILE=\"\$(TARGET_CROSS)\"' $mk"
check "buildroot: on the kconfig-package infrastructure" grep -qx '$(eval $(kconfig-package))' $mk
check "buildroot: LINUX_CONFIG_FIXUPS do not turn BTF on silently" sh -c \
	"sed -n '/^define STACKBOX_LINUX_CONFIG_FIXUPS/,/^endef/p' $mk | grep -q KCONFIG_ENABLE_OPT,CONFIG_BPF_SYSCALL &&
	! sed -n '/^define STACKBOX_LINUX_CONFIG_FIXUPS/,/^endef/p' $mk | grep -q DEBUG_INFO_BTF"
undefined=
for v in $(grep -o 'BR2_PACKAGE_STACKBOX[A-Z_]*' $mk | sort -u); do
	grep -q "^config $v\$" $BR/package/stackbox/Config.in || undefined="$undefined $v"
done
check "buildroot: every BR2_ option stackbox.mk reads is in Config.in: ${undefined:-yes}" test -z "$undefined"
for d in $BR/configs/stackbox_aarch64_defconfig $BR/configs/stackbox_x86_64_defconfig; do
	frag=$(sed -n 's/^BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES="\(.*\)"/\1/p' "$d" | sed "s,\$(BR2_EXTERNAL_STACKBOX_PATH),$BR,")
	check "buildroot: $(basename $d) enables stackbox and names an existing kernel fragment" \
		sh -c "grep -qx BR2_PACKAGE_STACKBOX=y $d && test -n '$frag' && test -f '$frag'"
done
cfgdef=$(sed -n '/^config BR2_PACKAGE_STACKBOX_CONFIG$/,/^config/s/^\tdefault "\(.*\)"/\1/p' $BR/package/stackbox/Config.in | sed "s,\$(BR2_EXTERNAL_STACKBOX_PATH),$BR,")
check "buildroot: the default stackbox config file exists" test -f "$cfgdef"
# Config.in through Debian's kconfig parser, Buildroot's symbols stubbed
if command -v kconfig-conf >/dev/null; then
	mkdir -p "$T/brk"
	{
		for s in aarch64 x86_64 arm TOOLCHAIN_HAS_SYNC_4 USE_WCHAR STATIC_LIBS \
			SHARED_STATIC_LIBS TOOLCHAIN_HAS_THREADS TOOLCHAIN_HEADERS_AT_LEAST_4_13 \
			PACKAGE_LIBBPF PACKAGE_ELFUTILS PACKAGE_ZLIB PACKAGE_XZ; do
			printf 'config BR2_%s\n\tbool "%s"\n' $s $s
		done
		echo "source \"$SRCTREE/$BR/package/stackbox/Config.in\""
	} >"$T/brk/Kconfig"
	br_conf() { # OPTIONS...: the resolved .config
		printf '%s\n' "$@" >"$T/brk/.config"
		# Buildroot's symbols carry their BR2_ in their names: no prefix
		(cd "$T/brk" && CONFIG_= KCONFIG_CONFIG=.config kconfig-conf --olddefconfig Kconfig) >"$T/brk/out" 2>&1
	}
	toolchain='BR2_TOOLCHAIN_HAS_SYNC_4=y BR2_USE_WCHAR=y BR2_TOOLCHAIN_HAS_THREADS=y BR2_TOOLCHAIN_HEADERS_AT_LEAST_4_13=y'
	br_conf BR2_aarch64=y $toolchain BR2_PACKAGE_STACKBOX=y
	check "buildroot: kconfig-conf parses Config.in without a warning" sh -c "! grep -qi warn '$T/brk/out'"
	check "buildroot: aarch64 with libbpf's toolchain gets stackbox, libbpf, elfutils, zlib, xz" sh -c \
		"grep -qx BR2_PACKAGE_STACKBOX=y $T/brk/.config && grep -qx BR2_PACKAGE_LIBBPF=y $T/brk/.config && grep -qx BR2_PACKAGE_ELFUTILS=y $T/brk/.config && grep -qx BR2_PACKAGE_ZLIB=y $T/brk/.config && grep -qx BR2_PACKAGE_XZ=y $T/brk/.config"
	check "buildroot: the version, site, config file and fragments options" sh -c \
		"grep -q '^BR2_PACKAGE_STACKBOX_VERSION=' $T/brk/.config && grep -q '^BR2_PACKAGE_STACKBOX_SITE=' $T/brk/.config && grep -q '^BR2_PACKAGE_STACKBOX_CONFIG=' $T/brk/.config && grep -q '^BR2_PACKAGE_STACKBOX_CONFIG_FRAGMENT_FILES=' $T/brk/.config"
	check "buildroot: no static option without static libraries" sh -c "! grep -q 'BR2_PACKAGE_STACKBOX_STATIC' $T/brk/.config"
	br_conf BR2_aarch64=y $toolchain BR2_SHARED_STATIC_LIBS=y BR2_PACKAGE_STACKBOX=y
	check "buildroot: a static option with shared and static libraries" grep -q 'BR2_PACKAGE_STACKBOX_STATIC is not set' "$T/brk/.config"
	br_conf BR2_arm=y $toolchain BR2_PACKAGE_STACKBOX=y
	check "buildroot: no stackbox on 32-bit arm" sh -c "! grep -q '^BR2_PACKAGE_STACKBOX=y' $T/brk/.config"
	br_conf BR2_x86_64=y BR2_TOOLCHAIN_HAS_SYNC_4=y BR2_PACKAGE_STACKBOX=y
	check "buildroot: without wchar or threads, no stackbox but the comment saying why" sh -c \
		"! grep -q '^BR2_PACKAGE_STACKBOX=y' $T/brk/.config && grep -q 'stackbox needs a toolchain w/ wchar' $T/brk/.config"
else
	skip "buildroot: Config.in through kconfig-conf" "kconfig-conf not installed"
fi

# ---- the Yocto layer, without bitbake ----
check "yocto: layer.conf with series compatibility and meta-oe" sh -c \
	"grep -q '^LAYERSERIES_COMPAT_stackbox = \"[a-z ]*\"' $META/conf/layer.conf && grep -q '^LAYERDEPENDS_stackbox = .*openembedded-layer' $META/conf/layer.conf"
check "yocto: README and a licence file" test -f $META/README -a -f $META/COPYING.MIT
check "yocto: recipe inherits cml1, pkgconfig, update-alternatives" \
	grep -qx 'inherit cml1 pkgconfig update-alternatives' "$RECIPE"
check "yocto: recipe depends on libbpf, elfutils, zlib, xz" grep -qx 'DEPENDS = "libbpf elfutils zlib xz"' "$RECIPE"
check "yocto: recipe passes ARCH=TARGET_ARCH and CC with its flags" \
	grep -q "^EXTRA_OEMAKE = \"CC='\${CC}' ARCH=\${TARGET_ARCH}" "$RECIPE"
check "yocto: recipe merges the .cfg fragments and runs cml1's oldconfig" sh -c \
	"grep -q 'find_cfgs(d)' '$RECIPE' && grep -q '^	cml1_do_configure' '$RECIPE'"
check "yocto: links through update-alternatives from stackbox.links" sh -c \
	"grep -q 'LINKS=none' '$RECIPE' && grep -q 'ALTERNATIVE_LINK_NAME' '$RECIPE' && grep -q 'stackbox.links' '$RECIPE'"
missing=
for f in $(sed -n 's/.*file:\/\/\([^ ;"]*\).*/\1/p' "$RECIPE" $META/recipes-kernel/linux/*.bbappend | grep -v 'stackbox-\${PV}.tar.gz\|common/main.c'); do
	[ -f "$(dirname "$RECIPE")/files/$f" ] || [ -f $META/recipes-kernel/linux/files/$f ] || missing="$missing $f"
done
check "yocto: every file:// the recipes name is in the layer: ${missing:-yes}" test -z "$missing"
check "yocto: the kernel fragment is board/kernel's" cmp -s board/kernel/stackbox.config $META/recipes-kernel/linux/files/stackbox.cfg
lic=$(sed -n 's/.*file:\/\/\([^;]*\);beginline=\([0-9]*\);endline=\([0-9]*\);md5=\([0-9a-f]*\).*/\1 \2 \3 \4/p' "$RECIPE")
set -- $lic
check "yocto: LIC_FILES_CHKSUM matches $1" [ "$(sed -n "$2,$3p" "$1" | md5sum | cut -d' ' -f1)" = "$4" ]

# ---- the tarball, built as the image builders build it ----
if ! [ -e .git ] || ! command -v clang >/dev/null || ! command -v bpftool >/dev/null; then
	skip "image builds from make dist" "not a git checkout, or no clang/bpftool to make the tarball"
	exit 0
fi
if ! make -s O="$T/d" -j2 dist >"$T/dist.log" 2>&1; then
	fail "make dist" "$(tail -3 "$T/dist.log")"
	exit 0
fi
tarball=$(echo "$T"/d/stackbox-*.tar.gz)
check "dist: stackbox.hash for Buildroot" sh -c "cd '$T/d' && sed 's/^sha256  //' stackbox.hash | sha256sum -c --quiet"
variants=$(tar -tzf "$tarball" | sed -n 's,^[^/]*/skel/\([^/]*/[^/]*\)/oncpu.skel.h$,\1,p' | sort | tr '\n' ' ')
check "dist: skeletons per arch, with and without eh_frame unwinding: $variants" \
	[ "$variants" = "arm64/UNWIND_EH_FRAME arm64/base x86_64/UNWIND_EH_FRAME x86_64/base " ]

# PATH: every tool of the machine but clang, bpftool, llvm and kconfig
mkdir -p "$T/bin"
for dir in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for t in "$dir"/*; do
		n=${t##*/}
		case $n in clang* | bpftool* | llvm-* | kconfig-*) continue ;; esac
		[ -x "$t" ] && [ ! -e "$T/bin/$n" ] && ln -s "$t" "$T/bin/$n"
	done
done
NOPATH=$T/bin
check "no clang, bpftool or kconfig-conf on the builds' PATH" \
	env PATH="$NOPATH" sh -c '! command -v clang && ! command -v bpftool && ! command -v kconfig-conf && ! command -v kconfig-mconf'

# unpack NAME: the tarball into $T/NAME/src
unpack() {
	mkdir -p "$T/$1" && tar -xzf "$tarball" -C "$T/$1" && mv "$T/$1"/stackbox-* "$T/$1/src"
}
# tmake NAME ARG...: make in NAME's tree with the restricted PATH
tmake() {
	_n=$1
	shift
	(cd "$T/$_n/src" && env PATH="$NOPATH" make "$@")
}
# configure NAME FRAGMENT MAKE-ARGS...: as the kconfig infrastructures do:
# fragment merge, olddefconfig, yes '' | oldconfig (no prompt, nothing
# changes), savedefconfig. .config is in place (Buildroot's KCONFIG_FILE,
# Yocto's defconfig).
configure() {
	_n=$1 _frag=$2
	shift 2
	_s=$T/$_n/src
	printf "$_frag\n" >"$T/$_n/frag"
	env PATH="$NOPATH" "$_s/scripts/config.sh" merge "$_s" "$_s/.config" "$T/$_n/frag"
	# Buildroot's test for olddefconfig (package/pkg-kconfig.mk)
	tmake "$_n" -pn config "$@" 2>/dev/null | sed 's/^\([_0-9a-zA-Z]*config\):.*/\1/ p; d' >"$T/$_n/targets"
	check "$_n: make -pn lists olddefconfig and savedefconfig" sh -c \
		"grep -qx olddefconfig '$T/$_n/targets' && grep -qx savedefconfig '$T/$_n/targets'"
	tmake "$_n" -s "$@" olddefconfig >"$T/$_n/olddef.log" 2>&1
	check "$_n: make olddefconfig" [ $? = 0 ]
	cp "$_s/.config" "$T/$_n/config.1"
	yes '' | tmake "$_n" -s "$@" oldconfig >"$T/$_n/old.log" 2>&1
	check "$_n: yes '' | make oldconfig" [ $? = 0 ]
	check "$_n: oldconfig asks nothing after olddefconfig" sh -c "! grep -q NEW '$T/$_n/old.log'"
	check "$_n: oldconfig changes nothing" cmp -s "$_s/.config" "$T/$_n/config.1"
	tmake "$_n" -s "$@" savedefconfig >/dev/null 2>&1
	"$_s/scripts/config.sh" defconfig "$_s" "$_s/defconfig" "$T/$_n/config.2"
	check "$_n: savedefconfig writes ./defconfig, which gives the .config back" \
		cmp -s "$T/$_n/config.2" "$_s/.config"
}
# built NAME MAKE-ARGS...: the build, warning-free
built() {
	_n=$1
	shift
	tmake "$_n" -j2 "$@" >"$T/$_n/build.log" 2>&1
	if [ $? != 0 ]; then
		fail "$_n: builds from the tarball without clang" "$(tail -3 "$T/$_n/build.log" | tr '\n' '|')"
		return 1
	fi
	pass "$_n: builds from the tarball without clang"
	check "$_n: build is warning-free" sh -c "! grep -qi warning: '$T/$_n/build.log'"
}
# same_skel NAME ARCH VARIANT: the tarball's skeletons for this .config were used
same_skel() {
	check "$1: skeletons from skel/$2/$3" cmp -s "$T/$1/src/gen/oncpu.skel.h" "$T/$1/src/skel/$2/$3/oncpu.skel.h"
}
# links_ok ROOT LINKTYPE APPLET...: exactly these applets link to stackbox
links_ok() {
	_r=$1/usr/bin _how=$2
	shift 2
	_got=$(cd "$_r" && for f in *; do
		[ "$f" = stackbox ] && continue
		case $_how in
		sym) [ "$(readlink "$f")" = stackbox ] && echo "$f" ;;
		hard) [ stackbox -ef "$f" ] && [ ! -L "$f" ] && echo "$f" ;;
		esac
	done | tr '\n' ' ')
	[ "$_got" = "$* " ] || { echo "links: $_got, want: $* " >&2; return 1; }
}
qemu_list() {
	qemu-aarch64-static -L /usr/aarch64-linux-gnu "$1" --list 2>&1 | tr '\n' ' '
}
snapshot() { (cd "$1" && find . -printf '%p %y %m %s %l\n' | sort) >"$2"; }

# Buildroot's way: busybox.mk's options, arm64, Debian's cross gcc and
# arm64 libraries in place of a Buildroot sysroot.
if command -v aarch64-linux-gnu-gcc >/dev/null && [ -e /usr/lib/aarch64-linux-gnu/libbpf.so ] &&
	command -v qemu-aarch64-static >/dev/null; then
	unpack br
	cp "$SRCTREE/$BR/package/stackbox/stackbox.config" "$T/br/src/.config"
	set -- CC=aarch64-linux-gnu-gcc CROSS_COMPILE=aarch64-linux-gnu- ARCH=aarch64 \
		"CFLAGS=-D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -g0 -D_FORTIFY_SOURCE=1" \
		LDFLAGS= PKG_CONFIG=pkg-config HOSTCC=gcc
	export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig
	configure br '# CONFIG_MEMSTACK is not set\n# CONFIG_UNWIND_EH_FRAME is not set' "$@"
	if built br "$@"; then
		same_skel br arm64 base
		tmake br -s "$@" DESTDIR="$T/br/root" BINDIR=/usr/bin install >"$T/br/install.log" 2>&1
		check "br: make install DESTDIR=" [ $? = 0 ]
		check "br: an ARM aarch64 binary" sh -c "file -L '$T/br/root/usr/bin/stackbox' | grep -q 'ARM aarch64'"
		check "br: symlinks for the configured collectors, not memstack, report or check" \
			links_ok "$T/br/root" sym iostack offcpu oncpu rastack stackcount
		check "br: stackbox --list under qemu-aarch64" \
			[ "$(qemu_list "$T/br/root/usr/bin/stackbox")" = "check iostack offcpu oncpu rastack report stackcount " ]
		tmake br -s "$@" DESTDIR="$T/br/root" BINDIR=/usr/bin uninstall >/dev/null 2>&1
		check "br: uninstall leaves nothing of what install made" [ -z "$(ls -A "$T/br/root")" ]
	fi
	unset PKG_CONFIG_LIBDIR

	# Yocto's way: cml1 (defconfig, .cfg merge, unset flags, yes '' |
	# oldconfig), CC with flags inside and CFLAGS/LDFLAGS in the
	# environment, ARCH=TARGET_ARCH, install with LINKS=none and the
	# links left to update-alternatives.
	unpack yo
	set -- ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu- V=1
	export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig
	export CC="aarch64-linux-gnu-gcc -march=armv8-a --sysroot=/"
	tmake yo -s "$@" defconfig >/dev/null
	configure yo 'CONFIG_UNWIND_EH_FRAME=y\n# CONFIG_REPORT is not set' "$@"
	export CFLAGS="-O2 -pipe -g" LDFLAGS="-Wl,-O1 -Wl,--hash-style=gnu -Wl,--as-needed"
	if built yo "$@"; then
		same_skel yo arm64 UNWIND_EH_FRAME
		check "yo: CC's flags and the environment's CFLAGS reach the compiler" \
			grep -q -- '-march=armv8-a --sysroot=/ -O2 -pipe -g .*-c -o [./]*obj/common/main.o' "$T/yo/build.log"
		tmake yo -s "$@" DESTDIR="$T/yo/image" BINDIR=/usr/bin LINKS=none install >/dev/null 2>&1
		check "yo: make install LINKS=none" [ $? = 0 ]
		check "yo: an ARM aarch64 binary" sh -c "file -L '$T/yo/image/usr/bin/stackbox' | grep -q 'ARM aarch64'"
		check "yo: no links, stackbox.links lists the configured collectors" sh -c \
			"[ \"\$(ls '$T/yo/image/usr/bin')\" = stackbox ] && [ \"\$(cat '$T/yo/src/stackbox.links' | tr '\n' ' ')\" = '/usr/bin/iostack /usr/bin/memstack /usr/bin/offcpu /usr/bin/oncpu /usr/bin/rastack /usr/bin/stackcount ' ]"
		check "yo: stackbox --list under qemu-aarch64" \
			[ "$(qemu_list "$T/yo/image/usr/bin/stackbox")" = "check iostack memstack offcpu oncpu rastack stackcount " ]
	fi
	unset CC CFLAGS LDFLAGS PKG_CONFIG_LIBDIR
else
	skip "Buildroot's and Yocto's arm64 builds" "no aarch64-linux-gnu-gcc, libbpf-dev:arm64 or qemu-aarch64-static (scripts/setup.sh)"
fi

# Natively, hard links, into a root that has files of its own
unpack nat
cp "$T/nat/src/configs/$(uname -m | sed 's/aarch64/arm64/')_defconfig" "$T/nat/src/.config"
configure nat '# CONFIG_RASTACK is not set'
if built nat; then
	mkdir -p "$T/nat/root/usr/bin" "$T/nat/root/etc"
	echo keep >"$T/nat/root/usr/bin/keep"
	ln -s /usr/bin/true "$T/nat/root/usr/bin/rastack"
	echo conf >"$T/nat/root/etc/conf"
	snapshot "$T/nat/root" "$T/nat/before"
	tmake nat -s DESTDIR="$T/nat/root" BINDIR=/usr/bin LINKS=hard install >/dev/null 2>&1
	check "nat: hard links for the configured collectors" \
		links_ok "$T/nat/root" hard iostack memstack offcpu oncpu stackcount
	check "nat: stackbox --list" [ "$("$T/nat/root/usr/bin/stackbox" --list | tr '\n' ' ')" = "check iostack memstack offcpu oncpu report stackcount " ]
	check "nat: --version names the commit the tarball was made from (VERSION)" \
		[ "$("$T/nat/root/usr/bin/stackbox" --version | sed -n 2p)" = "git $(git -C "$SRCTREE" rev-parse --short HEAD)" ]
	tmake nat -s DESTDIR="$T/nat/root" BINDIR=/usr/bin uninstall >/dev/null 2>&1
	snapshot "$T/nat/root" "$T/nat/after"
	check "nat: uninstall removes what install made and nothing else (rastack not ours)" \
		cmp -s "$T/nat/before" "$T/nat/after"
	tmake nat -s DESTDIR="$T/nat/root2" BINDIR=/usr/bin LINK_ALL=1 install >/dev/null 2>&1
	check "nat: LINK_ALL=1 links report and check too" \
		links_ok "$T/nat/root2" sym check iostack memstack offcpu oncpu report stackcount
	ln -s elsewhere "$T/nat/root2/usr/bin/rastack"
	tmake nat -s DESTDIR="$T/nat/root2" BINDIR=/usr/bin uninstall >/dev/null 2>&1
	check "nat: uninstall keeps a link that is not to stackbox" \
		[ "$(cd "$T/nat/root2" && find . | sort | tr '\n' ' ')" = ". ./usr ./usr/bin ./usr/bin/rastack " ]
fi
