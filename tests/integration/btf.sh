#!/bin/sh
# Kernel types without /sys/kernel/btf/vmlinux (hidden in a mount
# namespace, as on a vendor kernel built without CONFIG_DEBUG_INFO_BTF):
# from --btf with the whole BTF, from --btf with the minimal one make
# btf-min writes, and built in (CONFIG_BTF_EMBED: btf/stackbox, the same
# objects linked with the minimal BTF of this kernel). Each gives offcpu
# its raw_tp path with exact times and iostack its descriptor kinds with
# exact bytes; a file that is not BTF is one clear error.
. "$SRCTREE/tests/lib.sh"
need_bpf "kernel BTF sources"
[ -r /sys/kernel/btf/vmlinux ] || { skip "kernel BTF sources" "this kernel has no BTF to hide"; exit 0; }
EMBEDDED=$TESTS_O/btf/stackbox
MIN=$TESTS_O/host-min.btf
cp /sys/kernel/btf/vmlinux "$T/vmlinux.btf"
: >"$T/empty"

# hidden BIN ARGS...: BIN with kernel BTF hidden, stdout and stderr in
# $T/out and $T/err
hidden() {
	bin=$1
	shift
	unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
		exec '$bin' \"\$@\"" sh "$@" >"$T/out" 2>"$T/err"
}

# nanosleep_us FILE: microseconds block.c's nap_thread slept (4 x 250 ms)
nanosleep_us() { awk '/nap_thread/ && /nanosleep/ { n += $NF } END { print n + 0 }' "$1"; }
# what nap_thread's naps took, as block.c timed them (see offcpu.sh)
export BLOCK_WAITED="$T/waited"
napped() { awk '$1 == "nap_thread" { print $2 }' "$T/waited" 2>/dev/null; }
# pipe_bytes FILE: bytes io.c's pipe_writer wrote, as [write pipe]
pipe_bytes() { awk 'index($0, ";[write pipe];") && /pipe_writer/ { s += $NF } END { print s + 0 }' "$1"; }
want_pipe=$(awk '$1 == "write-pipe" && $2 == ";pipe_writer;" { print $3 }' \
	"$SRCTREE/tests/workloads/io.want")

for src in file min embedded; do
	case $src in
	file) bin=$STACKBOX btf="--btf $T/vmlinux.btf" from="$T/vmlinux.btf" ;;
	min) bin=$STACKBOX btf="--btf $MIN" from="$MIN" ;;
	embedded) bin=$EMBEDDED btf= from="the minimal BTF built in (CONFIG_BTF_EMBED)" ;;
	esac
	if [ ! -x "$bin" ] || { [ $src = min ] && [ ! -f "$MIN" ]; }; then
		skip "BTF $src" "no $bin or $MIN (make check-build)"
		continue
	fi
	hidden "$bin" offcpu -v -f folded $btf -- "$WORKLOADS/block"
	check "BTF $src: offcpu exits 0" [ $? = 0 ]
	check "BTF $src: offcpu reads kernel types from $from" \
		grep -qx "offcpu: kernel types from $from" "$T/err"
	check "BTF $src: offcpu attaches with raw_tp (tp_btf needs the kernel's own)" \
		grep -qx 'offcpu: sched_switch: attached with raw_tp' "$T/err"
	us=$(nanosleep_us "$T/out") w=$(napped)
	# inside what block.c timed, + 2 ms, and 5 % + 5 ms of it: as
	# tests/integration/offcpu.sh, for a loaded machine
	check "BTF $src: offcpu nanosleep 4 x 250 ms is $us us (block.c: ${w:-?})" \
		fcmp "${w:-0} > 0 && $us >= ${w:-0} * 0.95 - 5000 && $us <= ${w:-0} + 2000"

	hidden "$bin" iostack -f folded $btf -- "$WORKLOADS/io" pipe "$T"
	check "BTF $src: iostack exits 0" [ $? = 0 ]
	check "BTF $src: iostack tells descriptor kinds (no warning)" \
		sh -c "! grep -q 'no kernel BTF' '$T/err'"
	got=$(pipe_bytes "$T/out")
	check "BTF $src: iostack [write pipe] pipe_writer $got bytes (want $want_pipe)" \
		[ "$got" = "$want_pipe" ]
done

# not BTF: one line naming the option, the file and what it must be
hidden "$STACKBOX" offcpu -d 1 --btf "$T/empty"
check "--btf with an empty file: exits 1" [ $? = 1 ]
check "--btf with an empty file: one line names it" \
	sh -c "[ \$(wc -l <'$T/err') = 1 ] && grep -q '^offcpu: --btf $T/empty: .*(a raw BTF file, or an ELF file with a .BTF section)\$' '$T/err'"
if [ -f "$MIN" ]; then
	check "the minimal BTF is small ($(wc -c <"$MIN") bytes < 16 KiB)" \
		[ "$(wc -c <"$MIN")" -lt 16384 ]
fi
