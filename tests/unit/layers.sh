#!/bin/sh
# The layers of common/ (HACKING.md), kept so: each layer's objects use
# only symbols of their own layer, of the layers before it in the
# Makefile's LAYERS, or from outside the tree; includes point the same
# way; no two files call each other, directly or around a circle; every
# header compiles alone.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
O=$(cd "$TESTS_O/../.." && pwd)
layers=$(sed -n 's/^LAYERS := //p' "$SRCTREE/Makefile")
check "layers: the Makefile names them" [ -n "$layers" ]

# rank FILE: 0 lib, 1 kernel, ... by LAYERS; above them all, main.c,
# applet.h and applets/; "" for what is not ours.
rank() {
	case $1 in
	*/common/main.* | */common/applet.h | */applets/*) echo 99; return ;;
	esac
	r=0
	for l in $layers; do
		case $1 in */common/$l/*) echo $r; return ;; esac
		r=$((r + 1))
	done
}

# ---- symbols: nm of every object the build made ----
objs=$(find "$O/obj/common" "$O/obj/applets" -name '*.o' 2>/dev/null | sort)
if [ -z "$objs" ]; then
	skip "layers: symbols" "no objects under $O/obj (make first)"
else
	for o in $objs; do
		rel=${o#"$O"/obj/}
		echo "$rel $(rank "/$rel")" >>"$T/ranks"
		nm --defined-only "$o" | awk -v f="$rel" '$2 ~ /^[TDRBV]$/ { print $3, f, $2 }' >>"$T/defs"
		nm -u "$o" | awk -v f="$rel" '{ print $2, f }' >>"$T/uses"
	done
	# uses: SYMBOL USER; defs: SYMBOL DEFINER TYPE -> USER DEFINER SYMBOL TYPE
	awk 'NR == FNR { def[$1] = $2; type[$1] = $3; next }
	     ($1 in def) && def[$1] != $2 { print $2, def[$1], $1, type[$1] }' \
		"$T/defs" "$T/uses" >"$T/edges"
	awk 'NR == FNR { r[$1] = $2; next }
	     r[$1] < r[$2] { print $1 " uses " $3 " of " $2 }' \
		"$T/ranks" "$T/edges" >"$T/up"
	check "layers: no object calls a layer above its own ($(wc -l <"$T/edges") uses between files)" \
		test ! -s "$T/up"
	sed 's/^/    /' "$T/up"
	# calls only (functions): a file pair both ways, or a longer circle
	awk '$4 == "T" { print $1, $2 }' "$T/edges" | sort -u >"$T/calls"
	tsort "$T/calls" >/dev/null 2>"$T/loop"
	check "layers: no call circle between files ($(wc -l <"$T/calls") caller-callee pairs)" \
		test ! -s "$T/loop"
	sed 's/^/    /' "$T/loop"
fi

# ---- includes: a file includes headers of its layer or below ----
cd "$SRCTREE" || exit 1
for f in $(git ls-files 'common/*.[ch]' 'applets/*.[ch]'); do
	rf=$(rank "/$f")
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		hp=
		for d in "$(dirname "$f")" common $(for l in $layers; do echo common/$l; done); do
			[ -f "$d/$h" ] && { hp=$d/$h; break; }
		done
		[ -n "$hp" ] || continue # generated, or bpf/
		rh=$(rank "/$hp")
		[ "$rh" -le "$rf" ] || echo "$f includes $hp"
	done
done >"$T/inc_up"
check "layers: no file includes a header of a layer above" test ! -s "$T/inc_up"
sed 's/^/    /' "$T/inc_up"

# ---- every header compiles alone ----
incs="-I$O/gen -Icommon $(for l in $layers; do printf -- '-Icommon/%s ' "$l"; done) -Ibpf"
incs="$incs $(pkg-config --cflags libbpf 2>/dev/null)"
if [ ! -f "$O/gen/autoconf.h" ]; then
	skip "layers: headers compile alone" "no $O/gen/autoconf.h (make first)"
else
	n=0
	for h in $(git ls-files 'common/*.h' 'applets/*.h'); do
		n=$((n + 1))
		# shellcheck disable=SC2086
		printf '#include "%s"\n' "${h##*/}" |
			${CC:-cc} -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
				-fsyntax-only $incs -I"$(dirname "$h")" -x c - \
				>"$T/h.err" 2>&1 || { echo "$h:"; head -3 "$T/h.err"; }
	done >"$T/headers"
	check "layers: each of $n headers compiles alone" test ! -s "$T/headers"
	sed 's/^/    /' "$T/headers"
fi
