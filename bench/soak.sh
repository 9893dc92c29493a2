#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Soak: every collector applet system-wide at -i 1 for SOAK on a busy
# machine (stress-ng: process churn, context switches, allocation, disk
# I/O and readahead, niced so the rest of the machine keeps its share).
# RSS, open fds, entries of the applet's BPF hash maps and what it said
# it lost are taken at the start (after WARM), the middle and the end.
#
#   make soak            or: sh bench/soak.sh      (root, repository root)
#
# Checks, per applet: RSS (its floor over 10 s) grows by at most 1 MB
# from start to end, the number of open fds does not grow (fds are
# shown as OTHER/FILES: FILES are ELF files of live processes held for
# their symbols, which follow what runs on the machine; OTHER, BPF
# objects, pipes, the output and the rest, must not grow), and nothing
# is lost without being counted: a hash map found full must come with
# lost or dropped counts (-v's "snapshot N lost ..." lines), and the
# applet exits 0. sym_kB is what the applet holds of the symbol tables
# of live processes it sampled (-v -v): RSS follows it up and down with
# what runs on the machine, so the growth besides it is shown too.
#
# Knobs (environment): SOAK (30m; 300, 5m, 1h), APPLETS (oncpu offcpu
# memstack iostack rastack), SERIAL=1 runs the applets one after another
# (SOAK each) instead of all at once, WARM (seconds before the first
# figures: SOAK/10, at most 60), DIR (stress-ng's files: a block-backed
# file system for readahead, /var/tmp), KEEP=1 keeps the scratch dir.
set -eu
. "$(dirname "$0")/lib.sh"

secs() {
	case $1 in
	*h) echo $((${1%h} * 3600)) ;;
	*m) echo $((${1%m} * 60)) ;;
	*s) echo "${1%s}" ;;
	*) echo "$1" ;;
	esac
}

SOAK_S=$(secs "${SOAK:-30m}")
APPLETS=${APPLETS:-oncpu offcpu memstack iostack rastack}
SERIAL=${SERIAL:-0}
WARM=${WARM:-$((SOAK_S / 10 < 60 ? SOAK_S / 10 : 60))}
DIR=${DIR:-/var/tmp}
[ "$SOAK_S" -ge 20 ] 2>/dev/null || die "SOAK=${SOAK:-}: at least 20 s"
command -v stress-ng >/dev/null || die "no stress-ng (make setup)"
command -v bpftool >/dev/null || die "no bpftool (make setup)"

bench_start soak
WORK=$(mktemp -d "$DIR/stackbox-soak.XXXXXX")
cc -O2 -Wall -o "$T/mapcount" bench/mapcount.c -lbpf
trap 'rm -rf "$WORK"; cleanup' EXIT

# The load: one worker of each kind, at the lowest priority.
busy_start() {
	nice -n 19 stress-ng --temp-path "$WORK" --timeout "$(($1 + 30))" \
		--fork 1 --exec 1 --switch 1 --malloc 1 --malloc-bytes 64M \
		--hdd 1 --hdd-bytes 64M --readahead 1 --readahead-bytes 64M \
		--quiet >"$T/stress.log" 2>&1 &
	BUSY=$!
	LIVE="$LIVE $BUSY"
}

busy_stop() {
	kill -INT "$BUSY" 2>/dev/null || :
	wait "$BUSY" 2>/dev/null || :
}

# map_entries PID: "ENTRIES FULL" over the hash-like maps PID holds (hash,
# percpu hash, stack trace, lru hash, lru percpu hash), each counted once
# by walking its keys (bench/mapcount.c); FULL names the maps at
# max_entries.
map_entries() {
	for f in /proc/"$1"/fdinfo/*; do
		awk '$1 == "map_type:" { t = $2 } $1 == "map_id:" { id = $2 }
			$1 == "max_entries:" { m = $2 }
			END { if (id != "" && (t == 1 || t == 5 || t == 7 ||
					       t == 9 || t == 10)) print id, m }' \
			"$f" 2>/dev/null || :
	done | sort -u >"$T/maps"
	"$T/mapcount" $(cut -d' ' -f1 "$T/maps") | join "$T/maps" - |
		awk '{ n += $3; if ($3 >= $2) full = full (full ? "," : "") $1 }
		END { printf "%d %s\n", n, (full ? full : "-") }'
}

# symbols_held APPLET: kB of symbol tables the applet keeps for the
# processes it sampled that still live (its -v -v "keeps" lines), the
# least of the last 10 snapshots as RSS's floor is: they follow what
# runs on the machine, not a leak, and move RSS with them.
symbols_held() {
	awk '/ keeps: symbols of / { kb = $0; sub(/.*files \(/, "", kb)
		sub(/ kB.*/, "", kb); last[n++ % 10] = kb + 0 }
		END { for (i = 0; i < n && i < 10; i++)
			if (i == 0 || last[i] < lo) lo = last[i]
		print lo + 0 }' "$T/$1.err"
}

# lost_so_far APPLET: stacks, events and process events the applet said
# it lost (its -v lines), summed.
lost_so_far() {
	awk '/snapshot [0-9]+ lost / {
			sub(/.*snapshot [0-9]+ lost /, "")
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) n += $i
		} END { print n + 0 }' "$T/$1.err"
}

# figures APPLET WHEN: one line of figures, kept in $T/APPLET.fig.
figures() {
	pid=$(cat "$T/$1.pid")
	kill -0 "$pid" 2>/dev/null || {
		echo "$1 $2 exited" >>"$T/$1.fig"
		return
	}
	# RSS swings within each interval (a new process's symbol tables are
	# read, used and freed at the snapshot): what stays is the floor,
	# the least of 10 readings a second apart; the peak is shown too
	rss=$(for i in 1 2 3 4 5 6 7 8 9 10; do
		awk '$1 == "VmRSS:" { print $2 }' /proc/"$pid"/status
		sleep 1
	done | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { print lo "/" hi }')
	# regular files are the ELF files of live processes, kept for their
	# symbols until those exit: they follow the machine, not a leak
	fds=$(find /proc/"$pid"/fd -mindepth 1 -printf '%l\n' 2>/dev/null |
		awk '/^\// && !/^\/dev\// { f++; next } { o++ }
			END { printf "%d/%d\n", o, f }')
	set -- "$1" "$2" "$rss" "$fds" $(map_entries "$pid") "$(lost_so_far "$1")" \
		"$(symbols_held "$1")"
	echo "$*" >>"$T/$1.fig"
}

start_applet() {
	"$SB" "$1" -i 1 -f folded -o "$T/$1.folded" --rotate 4M,1 -v -v \
		>/dev/null 2>"$T/$1.err" &
	echo $! >"$T/$1.pid"
	LIVE="$LIVE $!"
}

# wait_ready APPLET: its first snapshot is written (60 s at most).
wait_ready() {
	n=0
	until [ -s "$T/$1.folded" ]; do
		n=$((n + 1))
		if [ $n -gt 600 ] || ! kill -0 "$(cat "$T/$1.pid")" 2>/dev/null; then
			echo "$1 did not start:"
			tail -3 "$T/$1.err"
			return 1
		fi
		sleep 0.1
	done
}

stop_applet() {
	pid=$(cat "$T/$1.pid")
	kill -INT "$pid" 2>/dev/null || :
	st=0
	wait "$pid" || st=$?
	echo "$st" >"$T/$1.status"
}

# soak APPLET...: the applets at once, SOAK_S seconds under load.
soak() {
	busy_start "$SOAK_S"
	for a in "$@"; do start_applet "$a"; done
	for a in "$@"; do wait_ready "$a" || :; done
	sleep "$WARM"
	for a in "$@"; do figures "$a" start; done
	sleep $(((SOAK_S - WARM) / 2))
	for a in "$@"; do figures "$a" middle; done
	sleep $(((SOAK_S - WARM) - (SOAK_S - WARM) / 2))
	for a in "$@"; do figures "$a" end; done
	for a in "$@"; do stop_applet "$a"; done
	busy_stop
	LIVE=""
}

echo "soak: $APPLETS, ${SOAK_S} s $([ "$SERIAL" = 1 ] && echo each, one after another || echo all at once), -i 1, system-wide"
echo "load: stress-ng (nice 19) fork, exec, switch, malloc, hdd, readahead; 1 worker each in $WORK"
echo "$(nproc) CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
if [ "$SERIAL" = 1 ]; then
	for a in $APPLETS; do soak "$a"; done
else
	soak $APPLETS
fi

echo
printf '%-9s %-6s %13s %9s %11s %-10s %8s %7s\n' applet when rss_kB:lo/hi fds map_entries full_maps lost sym_kB
fail=0
for a in $APPLETS; do
	while read -r name when rss fds ent full lost sym; do
		printf '%-9s %-6s %13s %9s %11s %-10s %8s %7s\n' "$name" "$when" \
			"$rss" "${fds:-}" "${ent:-}" "${full:-}" "${lost:-}" "${sym:-}"
	done <"$T/$a.fig"
	verdict=$(awk -v st="$(cat "$T/$a.status")" '
		$2 == "start" { r0 = $3 + 0; split($4, a, "/"); f0 = a[1]; s0 = $8 }
		$2 == "end" { r1 = $3 + 0; split($4, a, "/"); f1 = a[1]; lost = $7
			s1 = $8 }
		$3 == "exited" { bad = bad " exited before the " $2 }
		$6 != "-" && $6 != "" { full = full " " $2 ":" $6 }
		END {
			if (st != 0) bad = bad " exit status " st
			if (r1 == "") { print "FAIL" bad; exit }
			g = r1 - r0
			if (g > 1024) bad = bad " RSS grew " g " kB"
			if (f1 > f0) bad = bad " fds " f0 " -> " f1
			if (full != "" && lost == 0)
				bad = bad " maps full (" full " ) with nothing counted lost"
			printf "%s rss %+d kB (%+d kB besides symbols), fds %+d, lost %d%s\n", \
				bad == "" ? "PASS" : "FAIL", g, g - (s1 - s0), \
				f1 - f0, lost, bad
		}' "$T/$a.fig")
	echo "  $a: $verdict"
	case $verdict in FAIL*) fail=1 ;; esac
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit $fail
