#!/bin/sh
# Generate what the applet sources declare, so adding applets/NAME.c edits
# no central list. Runs on the build host; never runs the target binary.
#   gen-applets.sh SRCTREE GENDIR
# writes SRCTREE/applets/Config.in (the //config: lines), GENDIR/usage.h
# (the //usage: lines as USAGE_name) and GENDIR/applets.h (IF_NAME(APPLET(name))).
# A file is rewritten only when its content changed.
set -eu
srctree=$1 gendir=$2
mkdir -p "$gendir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/Config.in" ; : >"$tmp/usage.h" ; : >"$tmp/applets.h"
echo "# Generated from the applet sources by scripts/gen-applets.sh: do not edit." >>"$tmp/Config.in"
echo "/* Generated from the applet sources by scripts/gen-applets.sh: do not edit. */" |
	tee -a "$tmp/usage.h" >>"$tmp/applets.h"

for src in "$srctree"/applets/*.c; do
	name=$(basename "$src" .c)
	sym=$(echo "$name" | tr 'a-z' 'A-Z')
	if ! grep -q "^//config:config $sym\$" "$src"; then
		echo "gen-applets.sh: $src: no '//config:config $sym' line" >&2
		exit 1
	fi
	if ! grep -q '^//usage:' "$src"; then
		echo "gen-applets.sh: $src: no //usage: lines" >&2
		exit 1
	fi
	{ echo; sed -n 's,^//config:,,p' "$src"; } >>"$tmp/Config.in"
	{
		printf '#define USAGE_%s \\\n' "$name"
		sed -n 's,^//usage:,,p' "$src" |
			sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n" \\/'
		echo
	} >>"$tmp/usage.h"
	echo "IF_$sym(APPLET($name))" >>"$tmp/applets.h"
done

# Atomic, for parallel builds of several O= directories.
update() { cmp -s "$1" "$2" || { cp "$1" "$2.$$" && mv "$2.$$" "$2"; }; }
update "$tmp/Config.in" "$srctree/applets/Config.in"
update "$tmp/usage.h" "$gendir/usage.h"
update "$tmp/applets.h" "$gendir/applets.h"
