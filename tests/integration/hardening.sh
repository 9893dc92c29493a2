#!/bin/sh
# Privileges and hostile files against the real binary:
#   - a container (a new mount namespace whose root is a directory built
#     here, by pivot_root) runs a stripped program; its debug files are
#     symlinks to host files outside its root: no frame may resolve from
#     them and they are not read (their atime is watched). The same
#     container with its debug file inside resolves, so the lookup works;
#   - -o FILE in a sticky world-writable directory: a planted symlink and
#     a planted file of another user are refused in one line, unwritten;
#   - the capability set after attach (/proc/PID/status CapEff);
#   - without CAP_BPF/CAP_PERFMON, and as nobody: one line says so.
. "$SRCTREE/tests/lib.sh"
need_bpf "hardening integration"
BURN=$WORKLOADS/burn

# ---- a container whose debug files point out of it ----

# container NAME HOW: $T/NAME/root with burn stripped (build-id and
# debuglink kept), its libraries copied; HOW is "inside" (the debug
# file, its functions renamed INSIDE_*, in the root) or "outside" (the
# debug file, renamed OUTSIDE_*, in $T/NAME/host; the root holds only
# symlinks to it: absolute by build-id, relative by debuglink).
container() {
	r=$T/$1/root
	mkdir -p "$r/bin" "$T/$1/host"
	for lib in $(ldd "$BURN" | awk '$(NF - 1) ~ /^\// { print $(NF - 1) } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$r$(dirname "$lib")"
		cp "$lib" "$r$lib"
	done
	upper=$(echo "$2" | tr a-z A-Z)
	objcopy --only-keep-debug "$BURN" "$T/$1/burn.debug"
	objcopy --redefine-sym burn_two_thirds=${upper}_two_thirds \
		--redefine-sym burn_one_third=${upper}_one_third \
		"$T/$1/burn.debug" "$T/$1/host/$1.debug"
	objcopy --strip-all --add-gnu-debuglink="$T/$1/host/$1.debug" \
		"$BURN" "$r/bin/burn"
	id=$(readelf -n "$r/bin/burn" | sed -n 's/^ *Build ID: *//p')
	bid=$r/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$bid"
	if [ "$2" = inside ]; then
		mv "$T/$1/host/$1.debug" "$bid/$(echo "$id" | cut -c3-).debug"
	else
		ln -s "$T/$1/host/$1.debug" "$bid/$(echo "$id" | cut -c3-).debug"
		ln -s "../../../../../../../../../../..$T/$1/host/$1.debug" \
			"$r/bin/$1.debug"
		touch -a -d 2000-01-01 "$T/$1/host/$1.debug"
	fi
}

# in_container NAME SECONDS: burn, pid in $CPID, in its own mount
# namespace with root $T/NAME/root (pivot_root: its maps name paths
# inside it, as a container's do).
in_container() {
	r=$T/$1/root
	mkdir -p "$r/.old"
	unshare -m sh -c "mount --bind '$r' '$r' && cd '$r' &&
		pivot_root . .old && exec /bin/burn $2 1" &
	CPID=$!
	# until it is burn, in its root (a loaded machine may take a while)
	wait_for 60 sh -c "[ \"\$(readlink /proc/$CPID/exe 2>/dev/null)\" = /bin/burn ]"
}

# (burn outlives the BPF load and -d 4 on any load, and is killed then)
container_profile() {
	in_container "$1" 60
	"$STACKBOX" oncpu -p "$CPID" -d 4 -f folded -o "$T/$1.folded" \
		2>"$T/$1.err"
	echo $? >"$T/$1.rc"
	kill "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
}

if ! command -v unshare >/dev/null || ! command -v objcopy >/dev/null; then
	skip "container" "no unshare or objcopy"
else
	container in inside
	container out outside
	container_profile in
	container_profile out
	check "container: profiled" test "$(cat "$T/in.rc")$(cat "$T/out.rc")" = 00
	if grep -q "INSIDE_two_thirds" "$T/in.folded"; then
		pass "container: debug file inside its root resolves"
	else
		fail "container: debug file inside its root resolves" \
			"$(head -c 300 "$T/in.folded") $(head -c 300 "$T/in.err")"
	fi
	if grep -q OUTSIDE "$T/out.folded"; then
		fail "container: no frame from a file outside its root" \
			"$(grep OUTSIDE "$T/out.folded" | head -2)"
	else
		check "container: no frame from a file outside its root" \
			grep -q "burn" "$T/out.folded"
	fi
	atime=$(stat -c %X "$T/out/host/out.debug")
	check "container: the outside file was not read (atime $atime)" \
		test "$atime" -lt 1000000000
fi

# ---- -o in a sticky world-writable directory ----

S=$T/sticky
mkdir -m 1777 "$S"
echo keep >"$T/victim"
ln -s "$T/victim" "$S/link"
"$STACKBOX" oncpu -d 1 -o "$S/link" >"$T/o.out" 2>"$T/o.err"
rc=$?
check "-o planted symlink: refused" test "$rc" != 0
check "-o planted symlink: one line" test "$(wc -l <"$T/o.err")" = 1
check "-o planted symlink: says why" grep -q "symlink" "$T/o.err"
check "-o planted symlink: target untouched" test "$(cat "$T/victim")" = keep
echo theirs >"$S/theirs"
chown 65534 "$S/theirs"
"$STACKBOX" oncpu -d 1 -o "$S/theirs" 2>"$T/o2.err"
check "-o another user's file: refused" test $? != 0
check "-o another user's file: untouched" test "$(cat "$S/theirs")" = theirs
echo mine >"$S/mine"
"$STACKBOX" oncpu -d 1 -f folded -o "$S/mine" 2>"$T/o3.err"
check "-o own file named: written" test $? = 0 -a "$(head -c 4 "$S/mine")" != mine
"$STACKBOX" oncpu -d 1 -o "$S/new" 2>"$T/o4.err"
check "-o new file: created" test $? = 0 -a -s "$S/new"

# ---- capabilities after attach ----

# cap_names HEX: the names of the bits set, as privs.c names them
cap_names() {
	v=$(printf '%d' "0x$1")
	out=
	for b in 1:dac_override 2:dac_read_search 19:sys_ptrace 21:sys_admin \
		24:sys_resource 34:syslog 38:perfmon 39:bpf 40:checkpoint_restore; do
		[ $(((v >> ${b%%:*}) & 1)) = 1 ] && out="$out${out:+,}${b#*:}"
	done
	echo "${out:-none}"
}

# (read while it runs on any load: -d 6 counts from the attach, after
# the line waited for, and the wait ends 0.1 s after the line)
caps_after_attach() {
	"$STACKBOX" "$1" -v -d 6 -o /dev/null 2>"$T/$1.caps.err" &
	p=$!
	n=0
	until grep -q "capabilities kept" "$T/$1.caps.err" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 300 ] && kill -0 $p 2>/dev/null || break
		sleep 0.1
	done
	eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/$p/status 2>/dev/null)
	prm=$(awk '$1 == "CapPrm:" { print $2 }' /proc/$p/status 2>/dev/null)
	kill -INT $p 2>/dev/null
	wait $p
	said=$(sed -n 's/.*capabilities kept after attach: //p' "$T/$1.caps.err")
	check "$1 capabilities after attach: $(cap_names "${eff:-0}") (want $2)" \
		test "$(cap_names "${eff:-0}")" = "$2" -a "$eff" = "$prm"
	check "$1 -v names the kept set" test "$said" = "$2"
}

# oncpu opens a CPU's perf event again when the CPU is back from offline
caps_after_attach oncpu dac_read_search,sys_ptrace,syslog,perfmon,bpf,checkpoint_restore
caps_after_attach offcpu dac_read_search,sys_ptrace,syslog,checkpoint_restore
# memstack attaches uprobes to processes as they start: BPF stays, and
# sys_admin, which perf event uprobes need
caps_after_attach memstack \
	dac_read_search,sys_ptrace,sys_admin,syslog,perfmon,bpf,checkpoint_restore

# ---- without the capabilities ----

if command -v capsh >/dev/null; then
	capsh --drop=cap_bpf,cap_perfmon,cap_sys_admin -- -c \
		"'$STACKBOX' oncpu -d 1 -o /dev/null" >"$T/nocap.out" 2>"$T/nocap.err"
	rc=$?
	check "without CAP_BPF/CAP_PERFMON: fails" test $rc != 0
	check "without CAP_BPF/CAP_PERFMON: one line" test "$(wc -l <"$T/nocap.err")" = 1
	check "without CAP_BPF/CAP_PERFMON: names them" \
		grep -q "CAP_BPF and CAP_PERFMON" "$T/nocap.err"
else
	skip "without CAP_BPF/CAP_PERFMON" "no capsh"
fi
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$STACKBOX" oncpu -d 1 -o /dev/null >"$T/nobody.out" 2>"$T/nobody.err"
	rc=$?
	check "as nobody: fails in one line naming the capabilities" \
		test $rc != 0 -a "$(wc -l <"$T/nobody.err")" = 1
	check "as nobody: names them" grep -q "CAP_BPF and CAP_PERFMON" "$T/nobody.err"
else
	skip "as nobody" "no setpriv"
fi
