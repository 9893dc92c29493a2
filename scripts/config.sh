#!/bin/sh
# .config handling without a kconfig binary (Buildroot and Yocto builds
# have none): scripts/kconf.awk reads Kconfig and resolves every symbol.
#   config.sh defaults SRCTREE                full .config from Kconfig defaults
#   config.sh header SRCTREE CONFIG           autoconf.h on stdout
#   config.sh enabled SRCTREE CONFIG          names of the applets configured in
#   config.sh make SRCTREE CONFIG             the resolved symbols, for make
#   config.sh olddefconfig SRCTREE CONFIG     CONFIG made whole: new symbols
#                                             take their default
#   config.sh oldconfig SRCTREE CONFIG        the same, asking on stdin for
#                                             each new symbol (empty: default)
#   config.sh defconfig SRCTREE DEFCONFIG CONFIG  CONFIG made whole from DEFCONFIG
#   config.sh savedefconfig SRCTREE CONFIG OUT  what differs from the defaults
#   config.sh merge SRCTREE CONFIG FRAGMENT...  later lines win, per symbol,
#                                             as merge_config.sh -m does
# Symbols missing from CONFIG take their Kconfig default, so an old
# .config still builds. The files written are the ones Debian's
# kconfig-conf writes; CONFIG is rewritten only when it changes, the
# previous one kept as CONFIG.old.
set -eu

cmd=$1 srctree=$2
shift 2

kconf() {
	c=$1 config=$2 out=${3:-}
	interactive=0
	[ -t 0 ] && interactive=1
	awk -v cmd="$c" -v srctree="$srctree" -v config="$config" -v out="$out" \
		-v applets="$(echo "$srctree"/applets/*.c)" -v interactive=$interactive \
		-f "$(dirname "$0")/kconf.awk"
}

# Replace CONFIG by NEW when they differ, keeping CONFIG.old.
update() {
	if cmp -s "$2" "$1"; then
		rm -f "$2"
	else
		[ ! -f "$1" ] || cp "$1" "$1.old"
		mv "$2" "$1"
	fi
}

case $cmd in
defaults)
	kconf defaults ""
	;;
header | make | enabled)
	kconf "$cmd" "$1"
	;;
olddefconfig | oldconfig)
	[ -f "$1" ] || : >"$1"
	kconf "$cmd" "$1" "$1.tmp" || { rm -f "$1.tmp"; exit 1; }
	update "$1" "$1.tmp"
	;;
defconfig)
	kconf olddefconfig "$1" "$2.tmp" || { rm -f "$2.tmp"; exit 1; }
	update "$2" "$2.tmp"
	;;
savedefconfig)
	kconf savedefconfig "$1" "$2.tmp" || { rm -f "$2.tmp"; exit 1; }
	mv "$2.tmp" "$2"
	;;
merge)
	config=$1
	shift
	for f in "$config" "$@"; do
		[ -r "$f" ] || { echo "config.sh: cannot read $f" >&2; exit 1; }
	done
	awk '
	function sym(line) {
		if (match(line, /^CONFIG_[A-Za-z0-9_]+=/)) return substr(line, 1, RLENGTH - 1)
		if (match(line, /^# CONFIG_[A-Za-z0-9_]+ is not set$/)) return substr(line, 3, RLENGTH - 13)
		return ""
	}
	{ s = sym($0) }
	FILENAME == ARGV[1] { n++; line[n] = $0; if (s != "") at[s] = n; next }
	s == "" { next }
	s in at { line[at[s]] = $0; next }
	{ n++; line[n] = $0; at[s] = n }
	END { for (i = 1; i <= n; i++) print line[i] }' "$config" "$@" >"$config.tmp"
	update "$config" "$config.tmp"
	;;
*)
	echo "config.sh: unknown command '$cmd'" >&2
	exit 2
	;;
esac
