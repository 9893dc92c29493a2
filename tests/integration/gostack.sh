#!/bin/sh
# Go stacks through Go's own table (.gopclntab): goburn's goAlpha does
# twice goBeta's work, unstripped and stripped (-ldflags='-s -w'), so
# oncpu must give 2:1 in both, with every frame of the stripped build
# named. goGamma spends two thirds of its work in mix, which the
# compiler inlines into it: the inline tree must give a main.mix frame
# below main.goGamma, 2:1 against goGamma's own samples, in both builds,
# and both builds the same stacks. report resolves a recording of the
# stripped build the same way.
# The Go builds come from tests/unit/gopclntab.mk when go exists.
. "$SRCTREE/tests/lib.sh"
need_bpf "Go stacks"
if [ ! -x "$WORKLOADS/goburn-stripped" ]; then
	skip "Go stacks" "no $WORKLOADS/goburn-stripped (go was not found at build time)"
	exit 0
fi

# share FILE: goAlpha samples / (those + goBeta samples), and the total
share() {
	awk '/;main\.goAlpha;/ { a += $NF } /;main\.goBeta;/ { b += $NF }
	     END { if (a + b) printf "%.3f %d\n", a / (a + b), a + b; else print "0 0" }' "$1"
}

# 2:1 is a share of 2/3. -F 999 for 4 s gives 4000 samples, or 800 when
# a loaded machine leaves goburn a fifth of a CPU, and 300 at a
# fourteenth (>= 200 required); the
# share's standard error is then at most sqrt(2/3 x 1/3 / 300) = 0.027,
# and 0.08 is three of them (a share of 0.587 to 0.747, a ratio of 1.42
# to 2.95). The work is counted in loop iterations, not time, so load
# slows both functions alike and leaves the ratio alone (measured here:
# 1.9 to 2.05:1).
ratio() {
	label=$1 f=$2
	set -- $(share "$f")
	if fcmp "$1 > 0.587 && $1 < 0.747 && $2 >= 200"; then
		pass "$label: goAlpha share $1 of $2 samples is 2/3 +- 0.08 ($(awk "BEGIN { printf \"%.2f\", $1 / (1 - $1) }"):1)"
	else
		fail "$label: goAlpha share" "got $1 of $2 samples, want 0.667 +- 0.08 and >= 200 samples: $(grep main\\. "$f" | head -c 600 | tr '\n' '|')"
	fi
}

# inline_share FILE: samples in main.mix below main.goGamma / all of
# goGamma's, and that total
inline_share() {
	awk '/;main\.main;main\.goGamma;main\.mix[ ;]/ { m += $NF }
	     /;main\.main;main\.goGamma[ ;]/ { g += $NF }
	     END { if (g) printf "%.3f %d\n", m / g, g; else print "0 0" }' "$1"
}

# 2:1 within goGamma, +-15 % on the ratio while that is three standard
# errors: the share's is sqrt(2/9 / n), the ratio's nine times that
# (d(p / (1 - p)) = dp / (1 - p)^2), so n >= 1840 samples (2000 on an
# idle machine); on a loaded one, three standard errors, whichever is
# wider.
inline_ratio() {
	label=$1 f=$2
	set -- $(inline_share "$f")
	r=$(awk "BEGIN { printf \"%.2f\", $1 < 1 ? $1 / (1 - $1) : 99 }")
	tol=$(awk "BEGIN { t = 27 * sqrt(2 / 9 / ($2 ? $2 : 1)) / 2; printf \"%.2f\", (t > 0.15 ? t : 0.15) }")
	if fcmp "$r >= 2 * (1 - $tol) && $r <= 2 * (1 + $tol) && $2 >= 200"; then
		pass "$label: main.mix inlined into goGamma, $r:1 of its own loop over $2 samples (2:1 +- $(awk "BEGIN { print $tol * 100 }") %)"
	else
		fail "$label: main.mix inlined into goGamma" "got $r:1 over $2 samples, want 2:1 +- $(awk "BEGIN { print $tol * 100 }") % and >= 200 samples: $(grep main\\.goGamma "$f" | head -c 600 | tr '\n' '|')"
	fi
}

# stacks FILE: the Go stacks (from runtime.main, user frames only) that
# have 2 % of the samples or more, one a line, sorted
stacks() {
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/;-;.*/, "", s)
	       if (!sub(/.*;runtime\.main;/, "runtime.main;", s)) next
	       v[s] += n; t += n }
	     END { for (s in v) if (v[s] >= 0.02 * t) print s }' "$1" | sort
}

for b in goburn goburn-stripped; do
	STACKBOX_BIN_TEE=$T/$b.bin "$STACKBOX" oncpu -F 999 -f folded -- "$WORKLOADS/$b" 4 >"$T/$b" 2>"$T/$b.err"
	ratio "oncpu $b" "$T/$b"
	check "oncpu $b: runtime.main;main.main;main.goAlpha;main.spin" \
		grep -q ';runtime\.main;main\.main;main\.goAlpha;main\.spin ' "$T/$b"
	inline_ratio "oncpu $b" "$T/$b"
	stacks "$T/$b" >"$T/$b.stacks"
done
check "oncpu: the stripped build gives the unstripped one's stacks ($(tr '\n' '|' <"$T/goburn.stacks"))" \
	cmp -s "$T/goburn.stacks" "$T/goburn-stripped.stacks"
check "oncpu: four Go stacks of 2 % or more ($(wc -l <"$T/goburn.stacks"))" \
	[ "$(wc -l <"$T/goburn.stacks")" = 4 ]
# The stripped build's own frames: no raw addresses (a frame that names
# no function is "[goburn-stripped+0x..]"; the [vdso]'s time functions
# are not Go's to name).
raw=$(grep -c '\[goburn-stripped+0x' "$T/goburn-stripped")
check "oncpu goburn-stripped: every frame in it named ($raw lines with raw addresses)" [ "$raw" = 0 ]

sb_report -f folded "$T/goburn-stripped.bin" >"$T/rep" 2>"$T/rep.err"
ratio "report of goburn-stripped's recording" "$T/rep"
inline_ratio "report of goburn-stripped's recording" "$T/rep"
check "report of goburn-stripped's recording: names from .gopclntab" \
	grep -q ';main\.main;main\.goBeta;main\.spin ' "$T/rep"

# pprof: main.mix a Line inlined into main.goGamma's Location (pprof
# marks it "(inline)"), with the samples folded gives each as the leaf
"$STACKBOX" report -f pprof -o "$T/rep.pb.gz" "$T/goburn-stripped.bin" 2>"$T/pprof.err"
if command -v go >/dev/null; then
	flat() {
		GOCACHE=$T/go-cache go tool pprof -sample_index=0 -top -nodefraction=0 \
			-nodecount=100000 "$T/rep.pb.gz" 2>/dev/null |
			awk -v f="$1" 'substr($0, length($0) - length(f) + 1) == f { print $1; exit }'
	}
	set -- "$(flat 'main.mix (inline)')" "$(flat ' main.goGamma')" \
		$(awk '/;main\.goGamma;main\.mix [0-9]+$/ { m += $NF } /;main\.goGamma [0-9]+$/ { g += $NF }
		       END { print m + 0, g + 0 }' "$T/rep")
	check "pprof: main.mix (inline) $1 and main.goGamma $2 samples as leaves, as folded ($3, $4)" \
		[ "$1" = "$3" -a "$2" = "$4" -a "${3:-0}" -gt 0 ]
	GOCACHE=$T/go-cache go tool pprof -raw "$T/rep.pb.gz" >"$T/raw" 2>/dev/null
	check "pprof: a Location with main.mix's Line, then main.goGamma's" \
		awk '/ main\.mix :/ { mix = NR } / main\.goGamma :/ && NR == mix + 1 && !/0x/ { ok = 1 } END { exit !ok }' "$T/raw"
else
	skip "pprof of goburn-stripped" "no go to read it"
fi
