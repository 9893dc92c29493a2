#!/bin/sh
# musl-deps.sh ARCH: build zlib, libelf (elfutils), libbpf and liblzma (xz-utils) as static musl
# libraries for ARCH (x86_64 or arm64) from Debian's source packages, and
# install headers + .a files into $CACHE/deps/ARCH. Prints that prefix as
# the last line of stdout; progress goes to $CACHE/build/ARCH/build.log.
#
# WHY from source: Debian ships these libraries for glibc only; a static
# musl binary needs them built against musl. The sources come from the
# archive (apt-get source) so no foreign code enters the tree.
#
# Cached: the prefix carries a stamp naming this recipe and the Debian
# source versions; a run that finds a matching stamp does nothing.
set -eu

RECIPE=2	# bump when the recipe below changes, to rebuild every cache
OPT="-Os -ffunction-sections -fdata-sections"

arch=${1:-}
case $arch in
x86_64)
	cc=musl-gcc
	cross=
	host=
	uapi_arch=/usr/include/x86_64-linux-gnu	# asm/
	uapi=/usr/include ;;			# linux/, asm-generic/
arm64)
	# Debian's aarch64-linux-musl-gcc wrapper is exactly this; spelled
	# out so the recipe does not depend on the wrapper's presence.
	cc="aarch64-linux-gnu-gcc -specs /usr/lib/aarch64-linux-musl/musl-gcc.specs"
	cross=aarch64-linux-gnu-
	host=--host=aarch64-linux-gnu
	uapi_arch=/usr/aarch64-linux-gnu/include	# linux-libc-dev-arm64-cross
	uapi=/usr/aarch64-linux-gnu/include ;;
*)
	echo "usage: $0 x86_64|arm64" >&2
	exit 2 ;;
esac

CACHE=${STACKBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackbox}
prefix=$CACHE/deps/$arch
build=$CACHE/build/$arch
src=$CACHE/src
log=$build/build.log
jobs=$(nproc 2>/dev/null || echo 2)

# Newest source version apt knows for a package (what apt-get source takes).
srcver() {
	best=
	for v in $(apt-cache showsrc --only-source "$1" 2>/dev/null |
			sed -n 's/^Version: //p'); do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	echo "$best"
}

mkdir -p "$CACHE" "$src"
# One build per arch at a time (make -j may start both arches at once).
exec 9>"$CACHE/.lock-deps-$arch"
flock 9

zv=$(srcver zlib)
ev=$(srcver elfutils)
bv=$(srcver libbpf)
stamp="recipe=$RECIPE zlib=$zv elfutils=$ev libbpf=$bv"
if [ -z "$zv" ] || [ -z "$ev" ] || [ -z "$bv" ]; then
	# No deb-src lists: a finished prefix is still good; else we are stuck.
	if [ -f "$prefix/.stamp" ]; then
		echo "$prefix"
		exit 0
	fi
	echo "musl-deps: no Debian source for zlib/elfutils/libbpf (run scripts/setup.sh)" >&2
	exit 1
fi
# liblzma (xz-utils) has its own stamp: added after the others, it is
# built into a finished prefix without rebuilding them.
xv=$(srcver xz-utils)
xstamp="recipe=1 xz-utils=$xv"
if [ "$(cat "$prefix/.stamp" 2>/dev/null)" = "$stamp" ]; then
	if [ -z "$xv" ] || [ "$(cat "$prefix/.stamp-xz" 2>/dev/null)" = "$xstamp" ]; then
		echo "$prefix"
		exit 0
	fi
	only_xz=1
fi

if [ -z "${only_xz:-}" ]; then
	rm -rf "$build" "$prefix"
fi
rm -rf "$build"
mkdir -p "$build" "$prefix/include" "$prefix/lib"
: >"$log"

# step NAME COMMAND...: run with output to the log; on failure show its tail.
step() {
	name=$1
	shift
	echo "musl-deps[$arch]: $name" >&2
	echo "==== $name: $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "musl-deps[$arch]: FAILED at step '$name' (full log: $log)" >&2
		exit 1
	fi
}

# Sources are shared by both arches: download once, under a lock.
fetch() {
	exec 8>"$src/.lock"
	flock 8
	cd "$src"
	for p in "zlib=$zv" "elfutils=$ev" "libbpf=$bv" ${xv:+"xz-utils=$xv"}; do
		dsc=${p%%=*}_$(echo "${p#*=}" | sed 's/^[0-9]*://').dsc
		[ -f "$dsc" ] || apt-get -o APT::Sandbox::User=root source --download-only "$p" || return 1
	done
	exec 8>&-
}
unpack() {
	dsc=$src/${1}_$(echo "$2" | sed 's/^[0-9]*://').dsc
	dpkg-source -x "$dsc" "$build/$1"
}

# Kernel UAPI headers (linux/, asm/, asm-generic/): musl ships none, and
# both libbpf and stackbox include them. A copy in the prefix keeps glibc's
# own headers out of the musl include path (which -idirafter /usr/include
# would let in) and gives arm64 its own asm/.
uapi_headers() {
	cp -r "$uapi/linux" "$uapi/asm-generic" "$prefix/include/" &&
	cp -r "$uapi_arch/asm" "$prefix/include/"
}

zlib() {
	cd "$build/zlib"
	CC=$cc CFLAGS=$OPT AR=${cross}ar RANLIB=${cross}ranlib \
		./configure --static --prefix="$prefix" &&
	make -j"$jobs" libz.a &&
	cp libz.a "$prefix/lib/" &&
	cp zlib.h zconf.h "$prefix/include/"
}

# libelf needs none of argp/fts/obstack (only the elfutils tools do), so
# their library searches are answered "found in libc" and only libelf/ is
# built (lib/, libeu, needs argp; libelf.a uses nothing from it).
# Compression libraries other than zlib are off. -Wno-error: Debian disables
# -Werror in config/eu.am, but that patch only takes effect through an
# autoreconf, which we skip.
libelf() {
	cd "$build/elfutils"
	ac_cv_search_argp_parse="none required" \
	ac_cv_search_fts_close="none required" \
	ac_cv_search__obstack_free="none required" \
	./configure $host CC="$cc" CFLAGS="$OPT -Wno-error" \
		CPPFLAGS="-I$prefix/include" LDFLAGS="-L$prefix/lib" \
		--disable-nls --disable-debuginfod --disable-libdebuginfod \
		--disable-symbol-versioning --disable-textrelcheck \
		--with-zlib --without-bzlib --without-lzma --without-zstd &&
	make -C libelf -j"$jobs" libelf.a &&
	cp libelf/libelf.a "$prefix/lib/" &&
	cp libelf/libelf.h libelf/gelf.h libelf/nlist.h "$prefix/include/"
}

libbpf() {
	# OBJDIR must exist first: libbpf.pc is written there in parallel
	# with the rule that creates it.
	mkdir -p "$build/libbpf-obj" &&
	make -C "$build/libbpf/src" -j"$jobs" BUILD_STATIC_ONLY=1 \
		CC="$cc" AR="${cross}ar" CFLAGS="$OPT" \
		EXTRA_CFLAGS="-I$prefix/include" \
		OBJDIR="$build/libbpf-obj" PREFIX="$prefix" \
		LIBDIR="$prefix/lib" INCLUDEDIR="$prefix/include" install
}

# liblzma alone, the decoder only (.gnu_debugdata, Kconfig MINIDEBUGINFO):
# no tools, no encoders, no threads, size-optimised code paths.
liblzma() {
	cd "$build/xz-utils"
	./configure $host CC="$cc" CFLAGS="$OPT" --disable-shared \
		--enable-static --disable-nls --disable-threads --enable-small \
		--disable-encoders --enable-decoders=lzma1,lzma2,delta,x86,arm64 \
		--disable-match-finders --enable-checks=crc32,crc64,sha256 \
		--disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo \
		--disable-lzma-links --disable-scripts --disable-doc &&
	make -C src/liblzma -j"$jobs" &&
	cp src/liblzma/.libs/liblzma.a "$prefix/lib/" &&
	cp -r src/liblzma/api/lzma.h src/liblzma/api/lzma "$prefix/include/"
}

xz_only() {
	step fetch fetch
	step "unpack xz-utils" unpack xz-utils "$xv"
	step "build liblzma" liblzma
	echo "$xstamp" >"$prefix/.stamp-xz"
	find "$build" -mindepth 1 -maxdepth 1 ! -name build.log -exec rm -rf {} +
	echo "$prefix"
	exit 0
}

start=$(date +%s)
[ -z "${only_xz:-}" ] || xz_only
step fetch fetch
step "unpack zlib" unpack zlib "$zv"
step "unpack elfutils" unpack elfutils "$ev"
step "unpack libbpf" unpack libbpf "$bv"
step "uapi headers" uapi_headers
step "build zlib" zlib
step "build libelf" libelf
step "build libbpf" libbpf
if [ -n "$xv" ]; then
	step "unpack xz-utils" unpack xz-utils "$xv"
	step "build liblzma" liblzma
fi
for f in lib/libz.a lib/libelf.a lib/libbpf.a include/zlib.h include/gelf.h \
		include/libelf.h include/bpf/libbpf.h include/linux/bpf.h include/asm/types.h; do
	[ -f "$prefix/$f" ] || { echo "musl-deps[$arch]: missing $prefix/$f" >&2; exit 1; }
done
echo "$stamp" >"$prefix/.stamp"
[ -z "$xv" ] || echo "$xstamp" >"$prefix/.stamp-xz"
# The build trees (~50 MB per arch) are not needed again; the log stays.
find "$build" -mindepth 1 -maxdepth 1 ! -name build.log -exec rm -rf {} +
echo "musl-deps[$arch]: built in $(($(date +%s) - start))s" >&2
echo "$prefix"
