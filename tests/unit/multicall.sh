#!/bin/sh
# The multicall binary as the first hour on a device meets it, no root
# or BPF needed: --install keeps what is there and links the collectors
# only (report and check with --all), a copy under any stackbox* name is
# stackbox, --version names the commit, and offcpu's -m/-M want a unit.
. "$SRCTREE/tests/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# --install -s over a file of an applet's name: kept, and said
mkdir -p "$T/bin" && echo "mine" >"$T/bin/report" && echo "ours" >"$T/bin/oncpu"
"$STACKBOX" --install -s "$T/bin" --all >"$T/out" 2>"$T/err"
check "--install over existing files exits 0" [ $? = 0 ]
check "--install keeps an existing report" [ "$(cat "$T/bin/report")" = mine ]
check "--install keeps an existing oncpu" [ "$(cat "$T/bin/oncpu")" = ours ]
check "--install says which it kept, one line each" [ "$(cat "$T/err")" = "\
stackbox: --install: kept $T/bin/oncpu: a file of that name exists
stackbox: --install: kept $T/bin/report: a file of that name exists" ]
check "--install links the others" [ -L "$T/bin/offcpu" -a -L "$T/bin/check" ]
"$STACKBOX" --install -s --all "$T/bin" 2>"$T/err2"
check "--install again: its own links are no news" \
	[ "$(grep -c kept "$T/err2")" = 2 -a "$(grep -c offcpu "$T/err2")" = 0 ]

# the default links: collectors only; --all adds report and check
all=$("$STACKBOX" --list | sort | tr '\n' ' ')
collectors=$("$STACKBOX" --list | grep -vx 'report\|check' | sort | tr '\n' ' ')
"$STACKBOX" --install -s "$T/def" 2>"$T/err3"
check "--install -s DIR: the collectors ($collectors), not report or check" \
	[ "$(ls "$T/def" | tr '\n' ' ')" = "$collectors" ]
check "--install -s DIR: says nothing" [ ! -s "$T/err3" ]
"$STACKBOX" --install "$T/all" --all
check "--install --all DIR (hard links): report and check too" \
	[ "$(ls "$T/all" | tr '\n' ' ')" = "$all" ]
check "--install --all: a hard link is the binary" [ "$T/all/report" -ef "$STACKBOX" ]
"$STACKBOX" --install -s >/dev/null 2>&1
check "--install without DIR is a usage error" [ $? = 2 ]

# any name starting with stackbox is stackbox; another name is not
for n in stackbox-musl stackbox.new; do
	cp "$STACKBOX" "$T/$n"
	out=$("$T/$n" --help 2>&1)
	check "$n --help exits 0" [ $? = 0 ]
	check "$n --help is stackbox's usage" \
		[ "$(echo "$out" | head -1)" = "usage: stackbox APPLET [ARGS]... | stackbox --list | stackbox --version" ]
	out=$("$T/$n" oncpu --help 2>&1)
	check "$n oncpu --help runs the applet (rc 0)" [ $? = 0 ]
	check "$n oncpu --help is oncpu's usage" [ "$(echo "$out" | head -1 | cut -c1-13)" = "usage: oncpu " ]
done
cp "$STACKBOX" "$T/musl-box"
"$T/musl-box" --help >"$T/e" 2>&1
check "another name still exits 127" [ $? = 127 ]
check "another name: one line" [ "$(cat "$T/e")" = "stackbox: applet not found: musl-box" ]

# --version: the version, the commit (from the build, not a run), applets
"$STACKBOX" --version >"$T/v"
check "--version exits 0" [ $? = 0 ]
check "--version lists this build's applets" \
	[ "$(sed -n 3p "$T/v")" = "applets: $("$STACKBOX" --list | tr '\n' ' ' | sed 's/ $//')" ]
if head=$(git -C "$SRCTREE" rev-parse --short HEAD 2>/dev/null); then
	# (built from this checkout: its id, -dirty while it has changes)
	check "--version's git id is HEAD's ($(sed -n 2p "$T/v"))" \
		grep -qE "^git ${head}(-dirty)?\$" "$T/v"
	check "--version's version is git describe's" \
		[ "$(sed -n 1p "$T/v")" = "stackbox $(sed -n 's/^git //p' "$T/v")" ]
else
	skip "--version's git id" "not a git checkout"
fi

# offcpu -m/-M: a bare number is refused in one line; -d keeps seconds
"$STACKBOX" offcpu -m 1000 >"$T/m" 2>&1
check "offcpu -m 1000 exits 2" [ $? = 2 ]
check "offcpu -m 1000: one line with the fix" \
	[ "$(cat "$T/m")" = "offcpu: -m 1000: needs a unit (-m 1ms, 500us, 2s)" ]
"$STACKBOX" offcpu --max=2.5 >"$T/M" 2>&1
check "offcpu --max=2.5: one line with the fix" \
	[ "$(cat "$T/M")" = "offcpu: -M 2.5: needs a unit (-M 1ms, 500us, 2s)" ]
# (the options before --help are parsed: a refused one exits 2 first)
"$STACKBOX" offcpu -m 1ms -M 2s -d 10 --help >/dev/null 2>&1
check "offcpu -m 1ms -M 2s -d 10 parse" [ $? = 0 ]
