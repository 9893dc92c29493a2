#!/bin/sh
# package.sh BINARY OUTDIR: BINARY as an image ships it, the two ways:
#   OUTDIR/minidebuginfo/NAME  stripped, function symbols in .gnu_debugdata
#                              (xz), as Yocto's minidebuginfo distro
#                              feature makes it
#   OUTDIR/stripped/NAME       stripped of all symbols, and its debug file
#                              OUTDIR/debug/.build-id/xx/rest.debug
#                              (debuginfod and --debug-dir serve these)
# The MiniDebugInfo steps are those of Yocto's inject_minidebuginfo,
# written here from its description: keep the debug file, list the
# function symbols .dynsym does not already have, keep only those in a
# copy with no debug sections, xz it into .gnu_debugdata of the stripped
# binary. OBJCOPY, NM, STRIP: cross tools (default: the host's).
set -eu
bin=$1 out=$2
OBJCOPY=${OBJCOPY:-objcopy} NM=${NM:-nm} STRIP=${STRIP:-strip}
name=$(basename "$bin")
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$out/minidebuginfo" "$out/stripped" "$out/debug"

$OBJCOPY --only-keep-debug "$bin" "$t/debug"
# functions (T, t) minus the ones .dynsym exports
$NM -D "$bin" --format=posix --defined-only 2>/dev/null | awk '{print $1}' |
	sort -u >"$t/dynsyms"
$NM "$bin" --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' |
	sort -u >"$t/funcsyms"
comm -13 "$t/dynsyms" "$t/funcsyms" >"$t/keep"
# the symbols kept, no debug sections, no code (-S strips debug info and
# every symbol not kept; --only-keep-debug already emptied the code)
$OBJCOPY -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$t/keep" "$t/debug" "$t/mini"
xz -f --keep "$t/mini"
$STRIP --strip-all -o "$t/stripped" "$bin"
$OBJCOPY --add-section .gnu_debugdata="$t/mini.xz" "$t/stripped" \
	"$out/minidebuginfo/$name"
cp "$t/stripped" "$out/stripped/$name"

id=$(readelf -n "$bin" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || { echo "package.sh: $bin has no build-id" >&2; exit 1; }
mkdir -p "$out/debug/.build-id/$(echo "$id" | cut -c1-2)"
cp "$t/debug" "$out/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
