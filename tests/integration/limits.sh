#!/bin/sh
# Ceilings: no rate, size or count a user can type may stall the device.
# Each is refused in one line naming it, before any BPF is loaded; the
# highest accepted sampling rate still ends a -d 1 run in time on a
# machine whose CPUs are both busy.
. "$SRCTREE/tests/lib.sh"
need_bpf "limits integration"

# refused NAME WANT ARGS...: exits 2 or 1 at once, with one line WANT
refused() {
	_name=$1 _want=$2
	shift 2
	"$STACKBOX" "$@" >"$T/out" 2>"$T/err"
	_rc=$?
	if [ "$_rc" != 0 ] && [ ! -s "$T/out" ] && grep -qF -- "$_want" "$T/err" &&
		[ "$(grep -vc '^Try ' "$T/err")" = 1 ]; then
		pass "$_name: rc $_rc, '$(head -1 "$T/err")'"
	else
		fail "$_name" "rc $_rc, stderr: $(head -3 "$T/err" | tr '\n' '|')"
	fi
}

refused "oncpu -F 10001: above the sampling ceiling" \
	"oncpu: -F 10001: must be between 1 and 10000" oncpu -F 10001 -d 1
refused "oncpu -F 100000 (the rate that stalled a VM)" \
	"oncpu: -F 100000: must be between 1 and 10000" oncpu -F 100000 -d 1
refused "oncpu -i 1ms: below the snapshot floor" \
	"oncpu: -i 1ms: must be 0 (one snapshot at the end) or at least 10ms" \
	oncpu -i 1ms -d 1
# 1e6 stacks of 1016 bytes: about 1 GiB of kernel memory
refused "offcpu --stacks 1000000: over the memory ceiling" \
	"offcpu: --stacks: " offcpu --stacks 1000000 -d 1
grep -q "MiB of kernel memory for map sb_stacks, .* over the ceiling of [0-9]* MiB" "$T/err"
check "offcpu --stacks: the refusal gives the map's memory and the ceiling" [ $? = 0 ]
refused "oncpu --rows 5000000: over the memory ceiling" \
	"oncpu: --rows: " oncpu --rows 5000000 -d 1
refused "offcpu --unwind-rows 16000000: over the memory ceiling" \
	"offcpu: --unwind-rows: " offcpu --unwind eh_frame --unwind-rows 16000000 -d 1
refused "oncpu --record-bytes 900M: over the memory ceiling" \
	"oncpu: --record-bytes: 900 MiB with the maps'" \
	oncpu -T signal -R 10s --record-bytes 900M -d 1
refused "memstack --max-allocs 60000000: over the memory ceiling" \
	"memstack: --max-allocs: " memstack --max-allocs 60000000 -d 1

# The ceiling check shows is the one the collectors apply.
"$STACKBOX" check --tsv >"$T/check" 2>&1
ceiling=$(awk -F'\t' '$1 == "limit" { sub(/ MiB/, "", $3); print $3 }' "$T/check")
mem_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 / 8 }' /proc/meminfo)
want=$((mem_mib < 256 ? mem_mib : 256))
check "check: memory ceiling ${ceiling:-?} MiB = min(RAM/8, 256) = $want MiB" \
	[ "${ceiling:-0}" -ge $((want - 1)) -a "${ceiling:-0}" -le "$want" ]
"$STACKBOX" offcpu -v -d 10ms >/dev/null 2>"$T/v"
check "offcpu -v: the maps' memory under the ceiling it names" \
	grep -qE "memory: maps [0-9.]+ MiB, ceiling $ceiling MiB" "$T/v"

# The highest accepted rate with both CPUs busy: -d 1 ends within 1 s
# of the same run at -F 99 beside it (BPF load and attach included; a
# fixed 2 s was 3.7 s at load 25, for the machine, not the rate), with
# the samples the rate promises.
if command -v stress-ng >/dev/null; then
	stress-ng --cpu 2 --timeout 20 >/dev/null 2>&1 &
	load=$!
	sleep 1
	start=$(date +%s%N)
	"$STACKBOX" oncpu -F 99 -d 1 -f folded >/dev/null 2>&1
	base=$((($(date +%s%N) - start) / 1000000))
	start=$(date +%s%N)
	"$STACKBOX" oncpu -F 10000 -d 1 -f folded >"$T/max" 2>"$T/max.err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	kill $load 2>/dev/null
	wait $load 2>/dev/null
	check "oncpu -F 10000 -d 1 on 2 busy CPUs: rc $rc, ended in $ms ms (-F 99: $base ms, + 1000 at most)" \
		[ "$rc" = 0 -a "$ms" -le $((base + 1000)) ]
	# 1 s at 10 kHz on each CPU: the hrtimer fires whatever the load
	n=$(awk '{ s += $NF } END { print s + 0 }' "$T/max")
	cpus=$(nproc)
	check "oncpu -F 10000 -d 1: $n samples on $cpus CPUs (>= 80 % of $((cpus * 10000)))" \
		[ "$n" -ge $((cpus * 8000)) ]
else
	skip "oncpu -F 10000 under load" "stress-ng is not installed (make setup)"
fi
