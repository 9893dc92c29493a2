#!/bin/sh
# .config handling without a kconfig binary (Buildroot and Yocto builds
# have none):
#   config.sh defaults SRCTREE            full .config from Kconfig defaults
#   config.sh header SRCTREE CONFIG       autoconf.h on stdout
#   config.sh enabled SRCTREE CONFIG      names of the applets configured in
#   config.sh make SRCTREE CONFIG         the resolved symbols, for make
# Symbols missing from CONFIG take their Kconfig default, so an old
# .config still builds. Only unconditional defaults are understood.
set -eu

cmd=$1 srctree=$2

# Print "TYPE SYMBOL DEFAULT" for every symbol of Kconfig and the files it
# sources (relative to srctree).
symbols() {
	files=$srctree/Kconfig
	all=
	while [ -n "$files" ]; do
		set -- $files
		f=$1; shift; files=$*
		all="$all $f"
		[ "$f" = "$srctree/applets/Config.in" ] && continue
		for s in $(sed -n 's/^[[:space:]]*source[[:space:]]*"\(.*\)"/\1/p' "$f"); do
			files="$files $srctree/$s"
		done
	done
	# applets/Config.in is generated from the applet sources: read those,
	# so this works before the first build generated it.
	applets=$(mktemp)
	sed -n 's,^//config:,,p' "$srctree"/applets/*.c >"$applets"
	all=$(echo "$all" | sed "s,$srctree/applets/Config.in,$applets,")
	awk '
	function flush() { if (sym != "") print type, sym, (def == "" ? "-" : def); sym = "" }
	/^[[:space:]]*(config|menuconfig)[[:space:]]/ { flush(); sym = $2; type = ""; def = ""; next }
	/^[[:space:]]*(menu|endmenu|choice|endchoice|comment|if|endif|source|mainmenu)([[:space:]]|$)/ { flush(); next }
	sym != "" && /^[[:space:]]*(bool|tristate|int|hex|string)([[:space:]]|$)/ { type = $1 }
	sym != "" && /^[[:space:]]*def_bool[[:space:]]/ { type = "bool"; if (def == "") def = $2 }
	sym != "" && /^[[:space:]]*default[[:space:]]/ && !/[[:space:]]if[[:space:]]/ {
		if (def == "") { sub(/^[[:space:]]*default[[:space:]]+/, ""); def = $0 }
	}
	END { flush() }' $all
	rm -f "$applets"
}

# The value of CONFIG_SYM in the config file: y, a number, a quoted string,
# "n" when "is not set", or nothing when absent.
values() {
	sed -n -e 's/^CONFIG_\([A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' \
		-e 's/^# CONFIG_\([A-Za-z0-9_]*\) is not set/\1 n/p' "$1"
}

resolved() {
	{ values "$1" | sed 's/^/V /'; symbols | sed 's/^/S /'; } | awk '
	$1 == "V" { v = $0; sub(/^V [^ ]* /, "", v); val[$2] = v; next }
	{ t = $2; s = $3; d = $0; sub(/^S [^ ]* [^ ]* /, "", d)
	  if (s in val) d = val[s]; else if (d == "-") d = (t == "bool" ? "n" : "")
	  print t, s, d }'
}

case $cmd in
defaults)
	symbols | while read -r type sym def; do
		case $type:$def in
		bool:y) echo "CONFIG_$sym=y" ;;
		bool:*) echo "# CONFIG_$sym is not set" ;;
		*:-) echo "CONFIG_$sym=" ;;
		*) echo "CONFIG_$sym=$def" ;;
		esac
	done
	;;
header)
	echo "/* Generated from $3 by scripts/config.sh: do not edit. */"
	resolved "$3" | while read -r type sym val; do
		if [ "$type" = bool ]; then
			if [ "$val" = y ]; then
				echo "#define CONFIG_$sym 1"
				echo "#define ENABLE_$sym 1"
				echo "#define IF_$sym(...) __VA_ARGS__"
				echo "#define IF_NOT_$sym(...)"
			else
				echo "#define ENABLE_$sym 0"
				echo "#define IF_$sym(...)"
				echo "#define IF_NOT_$sym(...) __VA_ARGS__"
			fi
		elif [ -n "$val" ]; then
			echo "#define CONFIG_$sym $val"
		fi
	done
	;;
make)
	echo "# Generated from $3 by scripts/config.sh: do not edit."
	resolved "$3" | awk '$1 != "bool" || $3 == "y" { print "CONFIG_" $2 "=" $3 }'
	;;
enabled)
	resolved "$3" | awk '$1 == "bool" && $3 == "y" { print $2 }' |
		while read -r sym; do
			name=$(echo "$sym" | tr 'A-Z' 'a-z')
			[ -f "$srctree/applets/$name.c" ] && echo "$name"
		done
	;;
*)
	echo "config.sh: unknown command '$cmd'" >&2
	exit 2
	;;
esac
