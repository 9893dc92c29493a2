#!/bin/sh
# stackbox check on this machine's kernel: its table against what the
# applets really do here (the plan's choices, -v), against the kernel's
# version and files; with kernel BTF hidden and with tracefs hidden (a
# private mount namespace each), and as nobody.
. "$SRCTREE/tests/lib.sh"
need_bpf "check integration"

# Columns of check --tsv's rows: way|notes APPLET HOOK FILE, feature
# NAME FILE (yes, no, needs-root), verdict FILE (ok, no, needs-root).
way() { awk -F'\t' -v a="$1" -v h="$2" '$1 == "attach" && $2 == a && $3 == h { print $4 }' "$3"; }
notes() { awk -F'\t' -v a="$1" -v h="$2" '$1 == "attach" && $2 == a && $3 == h { print $5 }' "$3"; }
feature() { awk -F'\t' -v f="$1" '$1 == "feature" && $2 == f { print $3 }' "$2"; }
verdict() { awk -F'\t' '$1 == "verdict" { print $2 }' "$1"; }
# applet NAME FILE [COLUMN]: its verdict row's answer (3), map bytes (4),
# why not (5)
applet() { awk -F'\t' -v a="$1" -v c="${3:-3}" '$1 == "applet" && $2 == a { print $c }' "$2"; }
binary() { awk -F'\t' -v f="$1" -v c="$2" '$1 == "binary" && $2 == f { print $c }' "$3"; }
kconfig() { awk -F'\t' -v o="$1" '$1 == "kconfig" && $2 == o { print $3 }' "$2"; }
# at_least MAJOR MINOR: is the running kernel that version or later?
at_least() {
	uname -r | awk -F. -v M="$1" -v m="$2" '{ exit !($1 > M || ($1 == M && $2 >= m)) }'
}
yes_if() { if "$@"; then echo yes; else echo no; fi; }
UNWIND_ROW="user stacks without frame pointers"
# walk_said ERRFILE: yes when an applet's -v took the table walk, no
# when it said what the kernel lacks for it
walk_said() {
	if grep -q 'unwind: the table walk: ' "$1"; then
		echo yes
	elif grep -q 'user stacks: frame pointers: this kernel lacks' "$1"; then
		echo no
	else
		echo '?'
	fi
}
applets=$("$STACKBOX" --list)
has() { echo "$applets" | grep -qx "$1"; }

# same_as_run LABEL TSV ARGS...: every "HOOK: attached with WAY" the
# applet's -v says in a 1 s run is the way check gave for HOOK (marked
# with the option that turns it on, if any).
same_as_run() {
	_label=$1 _tsv=$2 _mark=
	shift 2
	case "$*" in *--disk*) _mark=" (--disk)" ;; esac
	"$STACKBOX" "$@" -v -d 1 -f folded >/dev/null 2>"$T/run.err"
	_n=0
	while IFS= read -r _l; do
		_hook=${_l%%: attached with *} _got=${_l##*: attached with }
		_hook=${_hook#*: }
		_want=$(way "$1" "$_hook$_mark" "$_tsv")
		[ -n "$_want" ] || _want=$(way "$1" "$_hook (-w)" "$_tsv")
		check "$_label: $* attaches $_hook with $_got, as check said ($_want)" \
			[ "$_got" = "$_want" ]
		_n=$((_n + 1))
	done <<EOF
$(grep ': attached with ' "$T/run.err")
EOF
	check "$_label: $* attached hooks (-v)" [ "$_n" -gt 0 ]
}

# 1. as root, on this kernel as it is
"$STACKBOX" check >"$T/text"
check "check as root: exit status 0" [ $? = 0 ]
"$STACKBOX" check --tsv >"$T/tsv"
check "check as root: --tsv exit status 0" [ $? = 0 ]
check "check as root: says every configured applet can run" \
	[ "$(tail -n 1 "$T/text")" = "every configured applet can run here" ]
check "check as root: --tsv verdict ok" [ "$(verdict "$T/tsv")" = ok ]
for a in $applets; do
	case $a in report | check) continue ;; esac
	check "check: a row for $a" grep -q "^attach	$a	" "$T/tsv"
	check "check: a verdict row for $a, ok as the exit status says" \
		[ "$(applet $a "$T/tsv")" = ok ]
	# ok: every hook it attaches by default has a way (no option's hook)
	check "check: $a's verdict ok and none of its default hooks without a way" \
		[ -z "$(awk -F'\t' -v a=$a '$1 == "attach" && $2 == a && $3 !~ /\(/ && $4 == "none"' "$T/tsv")" ]
done
first_verdict=$(grep -n '^applet  *here' "$T/text" | cut -d: -f1)
first_attach=$(grep -n '^applet  *hook' "$T/text" | cut -d: -f1)
check "check: the verdicts ($first_verdict) come before the attach table ($first_attach)" \
	[ "${first_verdict:-2}" -lt "${first_attach:-1}" ]
check "check: --tsv's applet rows come before its attach rows" \
	[ "$(cut -f1 "$T/tsv" | uniq | head -n 2 | tr '\n' ' ')" = "applet attach " ]
btf=$(yes_if test -s /sys/kernel/btf/vmlinux)
check "check: kernel BTF $btf, as /sys/kernel/btf/vmlinux says" \
	[ "$(feature "kernel BTF" "$T/tsv")" = "$btf" ]
check "check: bpf_loop $(yes_if at_least 5 17) on $(uname -r) (5.17+)" \
	[ "$(feature bpf_loop "$T/tsv")" = "$(yes_if at_least 5 17)" ]
check "check: bpf_for_each_map_elem $(yes_if at_least 5 13) (5.13+)" \
	[ "$(feature bpf_for_each_map_elem "$T/tsv")" = "$(yes_if at_least 5 13)" ]
kprobes=$(yes_if test -e /sys/bus/event_source/devices/kprobe -o \
	-e /sys/kernel/tracing/kprobe_events -o -e /sys/kernel/debug/tracing/kprobe_events)
check "check: kprobes $kprobes, as the kprobe PMU and kprobe_events say" \
	[ "$(feature kprobes "$T/tsv")" = "$kprobes" ]
if has memstack; then
	check "check: uprobe_multi links $(yes_if at_least 6 6) (6.6+)" \
		[ "$(feature "uprobe_multi links" "$T/tsv")" = "$(yes_if at_least 6 6)" ]
	"$STACKBOX" memstack -v -d 1 -f folded >/dev/null 2>"$T/ms.err"
	multi=$(yes_if grep -q 'uprobes: uprobe_multi links' "$T/ms.err")
	check "check: memstack's uprobes as memstack -v says ($multi)" \
		[ "$(way memstack "allocator uprobes" "$T/tsv")" = \
		  "$([ "$multi" = yes ] && echo uprobe_multi || echo "perf uprobes")" ]
	sessions=no
	[ "$btf" = yes ] && [ "$multi" = yes ] && at_least 6 13 && sessions=yes
	check "check: uprobe sessions $sessions (6.13+, kernel BTF)" \
		[ "$(feature "uprobe sessions" "$T/tsv")" = "$sessions" ]
	"$STACKBOX" memstack -s 512k -v -d 1 -f folded >/dev/null 2>"$T/mss.err"
	said=$(yes_if grep -q -- '-s: uprobe sessions' "$T/mss.err")
	check "check: memstack -s's returns as memstack -v says ($said)" \
		[ "$(way memstack "allocator returns (-s)" "$T/tsv")" = \
		  "$([ "$said" = yes ] && echo session || echo uretprobe)" ]
fi
if has offcpu; then
	check "check: offcpu's sched_switch takes $([ "$btf" = yes ] && echo raw_tp || echo tracepoint)" \
		[ "$(way offcpu sched_switch "$T/tsv")" = \
		  "$([ "$btf" = yes ] && echo raw_tp || echo tracepoint)" ]
	same_as_run "check as root" "$T/tsv" offcpu
	[ "$btf" != yes ] ||
		check "check: offcpu's sched_switch says when it walks at switch-in" \
			sh -c "'$STACKBOX' check | grep -q '^offcpu .*sched_switch .*no switch-in: taken with -m, -M or -s;'"
	same_as_run "check as root" "$T/tsv" offcpu -w
	# the finish way's probe: none where there are no kprobes (fentry
	# cannot take Debian's finish_task_switch.isra.0 either)
	if [ "$(feature kprobes "$T/tsv")" = no ]; then
		check "check: offcpu's finish_task_switch: none, no kprobes here" \
			sh -c "[ '$(way offcpu "finish_task_switch (-m, -M or -s)" "$T/tsv")' = none ] &&
				echo '$(notes offcpu "finish_task_switch (-m, -M or -s)" "$T/tsv")' | grep -q 'no kprobe: no kprobes'"
	else
		check "check: offcpu's finish_task_switch: by fentry or kprobe" \
			sh -c "case '$(way offcpu "finish_task_switch (-m, -M or -s)" "$T/tsv")' in fentry|kprobe) ;; *) exit 1 ;; esac"
	fi
fi
if has rastack; then
	if at_least 6 10; then
		check "check: rastack's readahead takes its $([ "$btf" = yes ] && echo raw_tp || echo tracepoint) (6.10+)" \
			[ "$(way rastack readahead "$T/tsv")" = \
			  "$([ "$btf" = yes ] && echo raw_tp || echo tracepoint)" ]
	fi
	[ "$kprobes" = no ] &&
		check "check: rastack says kprobes are missing here" \
			grep -q "^attach	rastack	readahead	.*kprobe (no kprobes)" "$T/tsv"
	same_as_run "check as root" "$T/tsv" rastack
fi
if has iostack; then
	same_as_run "check as root" "$T/tsv" iostack
	same_as_run "check as root" "$T/tsv" iostack --disk
fi
if has oncpu; then
	"$STACKBOX" oncpu -v -d 1 -f folded >/dev/null 2>"$T/on.err"
	event=$(sed -n 's/.*sampling .* Hz with \(.*\)$/\1/p' "$T/on.err")
	check "check: oncpu samples with $event, as oncpu -v says" \
		[ "$(way oncpu "perf_event sampling" "$T/tsv")" = "$event" ]
fi

# 2. kernel BTF hidden: the BTF ways go, the tracepoint takes over, and
# the BTF row says how to provide it
: >"$T/empty"
unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	'$STACKBOX' check --tsv" >"$T/nobtf"
check "check without BTF: exit status 0 (every applet still runs)" [ $? = 0 ]
check "check without BTF: kernel BTF no" [ "$(feature "kernel BTF" "$T/nobtf")" = no ]
check "check without BTF: says how to provide BTF" \
	grep -q "^feature	kernel BTF	no	CONFIG_DEBUG_INFO_BTF=y.*--btf FILE	" "$T/nobtf"
if has offcpu; then
	check "check without BTF: offcpu's sched_switch takes the tracepoint" \
		[ "$(way offcpu sched_switch "$T/nobtf")" = tracepoint ]
	check "check without BTF: finish, switch-in, raw_tp and tp_btf lack kernel BTF" \
		[ "$(notes offcpu sched_switch "$T/nobtf")" = \
		  "no finish: no kernel BTF; no switch-in: no kernel BTF; no raw_tp: no kernel types (--btf FILE); no tp_btf: no kernel BTF" ]
	unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
		'$STACKBOX' offcpu -v -d 1 -f folded" >/dev/null 2>"$T/nobtf.err"
	check "check without BTF: offcpu really takes the tracepoint" \
		grep -q 'sched_switch: attached with tracepoint$' "$T/nobtf.err"
	# the walk for code without frame pointers: what offcpu -v says
	"$STACKBOX" offcpu -v -d 1 -f folded >/dev/null 2>"$T/off.err"
	for k in tsv nobtf; do
		err=$T/off.err
		[ $k = tsv ] || err=$T/nobtf.err
		said=$(walk_said "$err")
		check "check ($k): user stacks without frame pointers: $(feature "$UNWIND_ROW" "$T/$k"), as offcpu -v says ($said)" \
			[ "$(feature "$UNWIND_ROW" "$T/$k")" = "$said" ]
	done
	check "check: the table walk runs on $(uname -r) with its BTF (5.17+: bpf_loop)" \
		[ "$(feature "$UNWIND_ROW" "$T/tsv")" = "$(yes_if at_least 5 17)" ]
fi
for a in iostack memstack; do
	has $a && check "check without BTF: $a says kernel BTF is missing" \
		[ "$(way $a "kernel BTF" "$T/nobtf")" = no ]
done
if has memstack; then
	check "check without BTF: no uprobe sessions (their kfuncs need it)" \
		[ "$(feature "uprobe sessions" "$T/nobtf")" = no ]
	unshare -m sh -c "mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
		'$STACKBOX' memstack -s 512k -v -d 1 -f folded" >/dev/null 2>"$T/nobtf-ms.err"
	check "check without BTF: memstack -s runs (exit 0), with entry and return probes" \
		grep -q -- '-s: entry and return probes (no uprobe sessions' "$T/nobtf-ms.err"
fi
has rastack && check "check without BTF: rastack's fentry lacks kernel BTF" \
	grep -q "^attach	rastack	readahead	.*fentry (no kernel BTF)" "$T/nobtf"

# 3. no tracefs (nothing under /sys/kernel but BTF): rastack's raw
# tracepoints need kernel types, not tracefs; without BTF either, applets
# whose hooks have only tracepoints cannot run, and the exit status says so
unshare -m sh -c "mount --bind /sys/kernel/btf/vmlinux '$T/empty' &&
	mount -t tmpfs none /sys/kernel && mkdir /sys/kernel/btf &&
	: >/sys/kernel/btf/vmlinux &&
	mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	'$STACKBOX' check --tsv" >"$T/notracefs"
if has rastack && [ "$btf" = yes ] && at_least 6 10; then
	check "check without tracefs: rastack takes its raw tracepoints (kernel BTF)" \
		grep -q "^attach	rastack	page cache adds	raw_tp	not here: tracepoint (no tracepoint filemap:mm_filemap_add_to_page_cache)$" "$T/notracefs"
fi
unshare -m sh -c "mount -t tmpfs none /sys/kernel &&
	'$STACKBOX' check --tsv" >"$T/nosys"
status=$?
if has rastack && [ "$kprobes" = no ] && [ "$(feature fentry "$T/tsv")" = no ] &&
	[ "$(way rastack "page cache adds" "$T/nosys")" != raw_tp ]; then
	check "check without tracefs and BTF: exit status 1" [ $status = 1 ]
	check "check without tracefs and BTF: rastack cannot run, and why" \
		grep -q "^verdict	no	cannot run here: .*rastack (page cache adds: no way to attach is left)" "$T/nosys"
	check "check without tracefs and BTF: rastack's own verdict row says no, and why" \
		[ "$(applet rastack "$T/nosys") $(applet rastack "$T/nosys" 5)" = \
		  "no page cache adds: no way to attach is left" ]
	check "check without tracefs and BTF: what each way misses is named" \
		grep -q "^attach	rastack	page cache adds	none	no raw_tp: no kernel types (--btf FILE); no tracepoint: no tracepoint filemap:mm_filemap_add_to_page_cache$" "$T/nosys"
	unshare -m sh -c "mount -t tmpfs none /sys/kernel &&
		'$STACKBOX' rastack -d 1" >/dev/null 2>"$T/notracefs.err"
	check "check without tracefs and BTF: rastack really cannot run" \
		grep -q "cannot attach to page cache adds: none of its ways" "$T/notracefs.err"
else
	skip "check without tracefs and BTF" "rastack has fentry, kprobes or built-in kernel types (CONFIG_BTF_EMBED) here"
fi
has offcpu && check "check without tracefs: offcpu keeps raw_tp" \
	[ "$(way offcpu sched_switch "$T/notracefs")" = raw_tp ]

# 4. as nobody: what needs root says so, and the exit status is 1
mkdir "$T/bin" && cp "$STACKBOX" "$T/bin/stackbox" && chmod -R a+rX "$T"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$T/bin/stackbox" check >"$T/nobody" 2>"$T/nobody.err"
check "check as nobody: exit status 1" [ $? = 1 ]
check "check as nobody: the last line says why" \
	[ "$(tail -n 1 "$T/nobody")" = "no applet can run as this user: running BPF needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8): without it, no applet can load its programs" ]
check "check as nobody: the header says what ? means" \
	grep -q "without BPF privileges: what is marked ? needs root to tell" "$T/nobody"
check "check as nobody: bpf_loop needs root to tell" \
	grep -q "^bpf_loop  *needs root to tell: bpf_loop needs Linux 5.17+" "$T/nobody"
check "check as nobody: kernel BTF is still told" \
	grep -q "^kernel BTF  *$btf" "$T/nobody"
check "check as nobody: nothing on stderr" [ ! -s "$T/nobody.err" ]
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$T/bin/stackbox" check --tsv >"$T/nobody.tsv"
check "check as nobody: --tsv verdict no" [ "$(verdict "$T/nobody.tsv")" = no ]
has offcpu && check "check as nobody: offcpu's sched_switch still raw_tp (BTF is readable)" \
	[ "$(way offcpu sched_switch "$T/nobody.tsv")" = "$(way offcpu sched_switch "$T/tsv")" ]
if has rastack && [ "$btf" = yes ]; then
	check "check as nobody: rastack's raw tracepoints need only BTF (readable)" \
		[ "$(way rastack readahead "$T/nobody.tsv")" = "$(way rastack readahead "$T/tsv")" ]
elif has rastack; then
	check "check as nobody: rastack's tracepoints need root to tell" \
		[ "$(way rastack readahead "$T/nobody.tsv")" = "tracepoint?" ]
fi

# 5. root of a user namespace (a container's root): capabilities there,
# but the kernel loads no BPF for it
unshare -U -r "$T/bin/stackbox" check --tsv >"$T/userns"
check "check as a user namespace's root: exit status 1" [ $? = 1 ]
check "check as a user namespace's root: no BPF privileges" \
	[ "$(feature "running BPF" "$T/userns")" = no ]
check "check as a user namespace's root: bpf_loop needs root to tell" \
	[ "$(feature bpf_loop "$T/userns")" = needs-root ]

# 6. the maps' kernel memory each applet takes with its defaults: the
# figure the applet's own -v gives
if has oncpu; then
	want=$("$STACKBOX" oncpu -v -d 10ms -f folded 2>&1 >/dev/null |
		sed -n 's/.*memory: maps \([0-9.]*\) MiB.*/\1/p')
	got=$(awk -v b="$(applet oncpu "$T/tsv" 4)" 'BEGIN { printf "%.1f", b / 1048576 }')
	check "check: oncpu's maps $got MiB, as oncpu -v says ($want MiB)" \
		[ -n "$want" -a "$got" = "$want" ]
	check "check: the text says oncpu's maps in MiB" \
		grep -q "^oncpu  *runs  *$want MiB$" "$T/text"
fi
for a in $applets; do
	case $a in report | check) continue ;; esac
	check "check: $a's maps take some kernel memory ($(applet $a "$T/tsv" 4) bytes)" \
		[ "$(applet $a "$T/tsv" 4)" -gt 65536 ]
done

# 7. the binaries: frame pointers where the workload was built with
# them, not where it was not; no .symtab once stripped
cp "$WORKLOADS/burn" "$T/burn-stripped" && strip "$T/burn-stripped"
"$STACKBOX" check --tsv --binary "$WORKLOADS/burn" "$WORKLOADS/libcall-nofp" \
	"$T/burn-stripped" "$T/none" >"$T/bin.tsv"
check "check --binary: exit status 0 (binaries do not decide it)" [ $? = 0 ]
check "check --binary: burn (-fno-omit-frame-pointer) has frame pointers" \
	[ "$(binary "$WORKLOADS/burn" 3 "$T/bin.tsv")" = yes ]
check "check --binary: burn needs no more than --unwind fp" \
	[ "$(binary "$WORKLOADS/burn" 10 "$T/bin.tsv")" = fp ]
check "check --binary: burn has .symtab and .eh_frame" \
	[ "$(binary "$WORKLOADS/burn" 7 "$T/bin.tsv") $(binary "$WORKLOADS/burn" 5 "$T/bin.tsv")" = "symtab yes" ]
id=$(readelf -n "$WORKLOADS/burn" | sed -n 's/.*Build ID: *//p')
check "check --binary: burn's build-id is readelf's ($id)" \
	[ "$(binary "$WORKLOADS/burn" 9 "$T/bin.tsv")" = "$id" ]
check "check --binary: libcall-nofp (-fomit-frame-pointer) has none" \
	[ "$(binary "$WORKLOADS/libcall-nofp" 3 "$T/bin.tsv")" = no ]
check "check --binary: libcall-nofp needs --unwind eh_frame" \
	[ "$(binary "$WORKLOADS/libcall-nofp" 10 "$T/bin.tsv")" = eh_frame ]
check "check --binary: a stripped copy has no .symtab" \
	[ "$(binary "$T/burn-stripped" 7 "$T/bin.tsv")" != symtab ]
check "check --binary: a missing file says why" \
	[ "$(binary "$T/none" 3 "$T/bin.tsv")" = error ]
"$STACKBOX" check --binary "$WORKLOADS/libcall-nofp" >"$T/bin.text"
check "check --binary: the text says libcall-nofp has no frame pointers" \
	grep -q "^  frame pointers   no: 0 of [0-9]* functions set one up" "$T/bin.text"
"$STACKBOX" check --tsv >"$T/default-bin.tsv"
check "check: by default it looks at a C library" \
	grep -q "^binary	[^	]*/l[id][-b][^	]*	" "$T/default-bin.tsv"

# 8. the kernel config against board/kernel/stackbox.config
printf 'CONFIG_BPF=y\nCONFIG_BPF_SYSCALL=y\n# CONFIG_KPROBES is not set\nCONFIG_CGROUPS=m\n' >"$T/config"
"$STACKBOX" check --tsv --kernel-config "$T/config" >"$T/kc.tsv"
check "check --kernel-config: exit status 0 (the config does not decide it)" [ $? = 0 ]
check "check --kernel-config: CONFIG_BPF set" [ "$(kconfig CONFIG_BPF "$T/kc.tsv")" = set ]
check "check --kernel-config: =m counts as set" [ "$(kconfig CONFIG_CGROUPS "$T/kc.tsv")" = set ]
check "check --kernel-config: CONFIG_KPROBES missing, optional, with what it is for" \
	grep -q "^kconfig	CONFIG_KPROBES	missing	optional	rastack's fallback" "$T/kc.tsv"
check "check --kernel-config: CONFIG_UPROBES missing, required" \
	grep -q "^kconfig	CONFIG_UPROBES	missing	required	memstack" "$T/kc.tsv"
check "check --kernel-config: a row per option of the fragment" \
	[ "$(grep -c '^kconfig	' "$T/kc.tsv")" = "$(grep -c '^CONFIG_' "$SRCTREE/board/kernel/stackbox.config")" ]
gzip -c "$T/config" >"$T/config.gz"
"$STACKBOX" check --kernel-config "$T/config.gz" >"$T/kc.text"
check "check --kernel-config: a gzip'd config reads the same" \
	grep -q "^kernel config $T/config.gz: 2 of 9 required, 1 of 8 optional options of stackbox.config set$" "$T/kc.text"
check "check --kernel-config: the text names the missing option" \
	grep -q "^  missing CONFIG_KPROBES (optional): " "$T/kc.text"
"$STACKBOX" check --kernel-config "$T/none" >"$T/kc-none.text"
check "check --kernel-config: no such file, one line says so" \
	[ "$(grep -c "kernel config" "$T/kc-none.text")" = 1 ]
if [ -r /proc/config.gz ]; then
	n=$(zcat /proc/config.gz | grep -cE '^CONFIG_(KPROBES|KPROBE_EVENTS)=[ym]')
	check "check: by default /proc/config.gz: kprobes options set ($n) as it says" \
		[ "$(grep -c '^kconfig	CONFIG_KPROBE[_A-Z]*	set' "$T/tsv")" = "$n" ]
fi
