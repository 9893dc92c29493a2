#!/bin/sh
# Board test, no boot: each board kernel's config (the /boot/config-* of
# its Debian package; tests/boards.sh links it as out/board/BOARD/config)
# against board/kernel/stackbox.config. A required option missing is a
# FAIL: an applet cannot run on that kernel. An optional one missing is
# a SKIP naming it, so that run.sh's summary lists what each kernel lacks
# (a feature lost or a fallback taken is no failure of stackbox).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib.sh"
OUT=${OUT:-$root/out}
frag=$root/board/kernel/stackbox.config

# class OPTION...: "required"/"optional" then the options of that class
options() {
	awk -v c="$1" '/^## / { on = ($2 == c); next } on && /^CONFIG_/ { sub(/=.*/, ""); print }' "$frag"
}

# The -nobtf boards boot the same kernels.
for b in $(boards); do
	board_nobtf "$b" && continue
	t="board/$b kconfig"
	cfg=$OUT/board/$b/config
	[ -f "$cfg" ] || { skip "$t" "no $cfg (make board-run fetches the kernel)"; continue; }
	n=0 lacks=
	for o in $(options required); do
		n=$((n + 1))
		grep -qE "^$o=[ym]" "$cfg" || lacks="$lacks $o"
	done
	if [ -z "$lacks" ]; then
		pass "$t: all $n required options"
	else
		fail "$t: required options" "lacks$lacks"
	fi
	n=0
	for o in $(options optional); do
		if grep -qE "^$o=[ym]" "$cfg"; then
			n=$((n + 1))
		else
			skip "$t: optional $o" "not set in $(basename "$(readlink -f "$cfg")") (board/kernel/stackbox.config says what is lost)"
		fi
	done
	pass "$t: $n of $(options optional | wc -l) optional options"
done
