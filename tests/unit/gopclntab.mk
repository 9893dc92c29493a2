# Go binaries for the .gopclntab reader (common/sym/gopclntab.c, test_gopclntab)
# and oncpu's Go test: goburn as built, stripped (-ldflags='-s -w'),
# stripped and without section headers (found by scanning), and the same
# for arm64 and for a position-independent build (its table is in
# .data.rel.ro, a writable segment); go-facts.txt: "go FILE NAME ADDRESS" from `go tool nm` of the
# unstripped builds, and "inl FILE ADDRESS 0|1" for each instruction of
# main.goGamma from `go tool objdump`: 1 where its source line is in
# main.mix's body (the compiler inlined it there), 0 elsewhere (none
# for the PIE build, whose lines objdump does not read). Off-line: no modules, the standard library only, the
# build cache under the build directory. Without go nothing is built and
# the tests say SKIP.
GO ?= go
GO_W := $(TESTS_O)/workloads
GO_F := $(TESTS_O)/fixtures
GO_SRC := $(srctree)/tests/workloads/go/goburn.go
GO_ENV = GOCACHE=$(abspath $(TESTS_O))/go-cache GO111MODULE=off \
	GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=0
GO_BINS := $(foreach b,goburn goburn-arm64 goburn-pie,$(b) $(b)-stripped \
	$(b)-noshdr)
# what test_gopclntab looks up, and oncpu's test counts
GO_FACT_NAMES := main.goAlpha main.goBeta main.goGamma main.spin main.main \
	runtime.main runtime.mallocgc

ifneq ($(shell command -v $(GO) 2>/dev/null),)
UNIT_FIXTURES += $(addprefix $(GO_W)/,$(GO_BINS)) $(GO_F)/go-facts.txt
endif

go_build = $(GO_ENV) $(if $(findstring arm64,$@),GOARCH=arm64) $(GO) build \
	$(if $(findstring pie,$@),-buildmode=pie)

$(GO_W)/goburn $(GO_W)/goburn-arm64 $(GO_W)/goburn-pie: $(GO_SRC)
	$(Q)mkdir -p $(@D)
	$(call quiet,GO,$@)$(go_build) -o $@ $<

$(GO_W)/%-stripped: $(GO_SRC)
	$(Q)mkdir -p $(@D)
	$(call quiet,GO,$@)$(go_build) -ldflags='-s -w' -o $@ $<

# e_shoff (8 bytes at 40), e_shnum and e_shstrndx (2 + 2 at 60) zeroed:
# an ELF64 file with no section headers, as some packers leave it.
$(GO_W)/%-noshdr: $(GO_W)/%-stripped
	$(call quiet,GEN,$@)cp $< $@.tmp && \
		head -c 8 /dev/zero | dd of=$@.tmp bs=1 seek=40 conv=notrunc 2>/dev/null && \
		head -c 4 /dev/zero | dd of=$@.tmp bs=1 seek=60 conv=notrunc 2>/dev/null && \
		mv $@.tmp $@

$(GO_F)/go-facts.txt: $(GO_W)/goburn $(GO_W)/goburn-arm64 $(GO_W)/goburn-pie
	$(Q)mkdir -p $(@D)
	$(call quiet,GEN,$@)set -e; for f in $^; do \
		$(GO_ENV) $(GO) tool nm $$f | awk -v f=$$(basename $$f) \
			-v want=" $(GO_FACT_NAMES) " \
			'$$2 == "T" && index(want, " " $$3 " ") { print "go", f, $$3, $$1 }'; \
		$(GO_ENV) $(GO) tool objdump -s '^main\.goGamma$$' $$f | \
		awk -v f=$$(basename $$f) \
			-v from=$$(grep -n '^func mix(' $(GO_SRC) | cut -d: -f1) \
			-v to=$$(grep -n '^func goGamma(' $(GO_SRC) | cut -d: -f1) \
			'split($$1, at, ":") == 2 && at[2] > 0 && $$2 ~ /^0x/ { \
				print "inl", f, substr($$2, 3), \
					(at[2] + 0 > from && at[2] + 0 < to) }'; \
	done > $@.tmp && mv $@.tmp $@
