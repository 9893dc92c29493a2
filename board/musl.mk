# Static musl builds and the qemu board prerequisites (included by the top
# Makefile). Everything lands under $(srctree)/out/, whatever O= says:
#
#   musl-x86_64, musl-arm64   out/musl-ARCH/stackbox, static and stripped,
#                             against zlib/libelf/libbpf built for musl by
#                             scripts/musl-deps.sh (cached outside the tree)
#   musl-workloads-ARCH       out/musl-ARCH/workloads/NAME, every
#                             tests/workloads/NAME.c, static
#   board-ARCH                out/board/ARCH/busybox: a link into the
#                             cache, used by board/qemu/run.sh (the
#                             kernels: tests/boards.sh fetches them)
#   board-prereqs             all of the above, both arches (make check)

MUSL_ARCHES := x86_64 arm64
MUSL_OUT := $(srctree)/out
# The arm64 compiler must be one word for the Makefile's CC: Debian's
# musl-dev:arm64 ships this wrapper (aarch64-linux-gnu-gcc + musl specs).
MUSL_CC_x86_64 := musl-gcc
MUSL_CC_arm64 := aarch64-linux-musl-gcc
MUSL_STRIP_x86_64 := strip
MUSL_STRIP_arm64 := aarch64-linux-gnu-strip

.PHONY: board-prereqs $(foreach a,$(MUSL_ARCHES),musl-$(a) musl-workloads-$(a) board-$(a))

board-prereqs: $(foreach a,$(MUSL_ARCHES),musl-$(a) musl-workloads-$(a) board-$(a))

# The deps script is cached (a fraction of a second when nothing changed),
# so it runs every time and the sub-make decides what to rebuild.
# KCONFIG_CONFIG is passed so a KCONFIG_CONFIG from the environment cannot
# point the sub-make at the host .config.
$(foreach a,$(MUSL_ARCHES),musl-$(a)): musl-%:
	$(Q)deps=$$($(srctree)/scripts/musl-deps.sh $*) && \
	$(MAKE) --no-print-directory -f $(srctree)/Makefile O=$(MUSL_OUT)/musl-$* \
		KCONFIG_CONFIG=$(MUSL_OUT)/musl-$*/.config DEFCONFIG=$*_defconfig \
		CC=$(MUSL_CC_$*) STRIP=$(MUSL_STRIP_$*) ARCH=$* STATIC=1 DEPS=$$deps

# Workloads keep frame pointers (but chain, built as images build:
# tests/tests.mk) and symbols (not stripped): their named
# functions are the ground truth the board tests look for.
MUSL_WORKLOADS := $(patsubst $(srctree)/tests/workloads/%.c,%,$(wildcard $(srctree)/tests/workloads/*.c))
define musl_workload_rules
musl-workloads-$(1): $(patsubst %,$(MUSL_OUT)/musl-$(1)/workloads/%,$(MUSL_WORKLOADS) libcall-nofp)
$(MUSL_OUT)/musl-$(1)/workloads/libcall-nofp: $(srctree)/tests/workloads/libcall.c
	$(Q)mkdir -p $$(@D)
	$$(call quiet,CC,$$@)$(MUSL_CC_$(1)) -static $$(NOFP_CFLAGS) $$(WARN) -o $$@ $$<
$(MUSL_OUT)/musl-$(1)/workloads/chain: $(srctree)/tests/workloads/chain.c
	$(Q)mkdir -p $$(@D)
	$$(call quiet,CC,$$@)$(MUSL_CC_$(1)) -static $$(IMAGE_CFLAGS) $$(WARN) -o $$@ $$<
$(MUSL_OUT)/musl-$(1)/workloads/%: $(srctree)/tests/workloads/%.c
	$(Q)mkdir -p $$(@D)
	$$(call quiet,CC,$$@)$(MUSL_CC_$(1)) -static -O1 -fno-omit-frame-pointer \
		-fno-inline -pthread $$(WARN) -o $$@ $$<
endef
$(foreach a,$(MUSL_ARCHES),$(eval $(call musl_workload_rules,$(a))))

# The busybox link: made once (resolving it asks apt, which takes
# seconds); remove out/board to pick up a newer one.
$(foreach a,$(MUSL_ARCHES),board-$(a)): board-%: $(MUSL_OUT)/board/%/busybox ;
$(MUSL_OUT)/board/%/busybox:
	$(Q)mkdir -p $(@D)
	$(Q)b=$$($(srctree)/board/qemu/get-busybox.sh $*) && ln -sf "$$b" $@
