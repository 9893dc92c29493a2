# stackbox: one multicall binary of eBPF stack profilers.
# `make help` lists the targets. Out-of-tree: make O=DIR. Verbose: V=1.

srctree := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
O ?= .
override O := $(patsubst %/,%,$(O))
KCONFIG_CONFIG ?= $(O)/.config

ifneq ($(V),1)
Q := @
quiet = @printf '  %-8s %s\n' $(1) $(2);
endif

CC := $(CROSS_COMPILE)$(if $(filter default,$(origin CC)),gcc,$(CC))
STRIP ?= $(CROSS_COMPILE)strip
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
# Target architecture, from the compiler unless given.
ARCH ?= $(patsubst aarch64,arm64,$(firstword $(subst -, ,$(shell $(CC) -dumpmachine))))
BPF_ARCH := $(patsubst x86_64,x86,$(ARCH))
DEFCONFIG ?= $(ARCH)_defconfig

# Configuration targets write .config: they must not create it first.
# make reads the resolved symbols, so one missing from an older .config
# takes its Kconfig default here as in autoconf.h.
ifeq ($(filter %config,$(MAKECMDGOALS)),)
-include $(O)/gen/config.mk
endif

# Libraries: the system's libbpf by default; a static build (STATIC=1)
# names its own with DEPS=prefix (see board/musl.mk).
ifdef DEPS
LIB_CFLAGS := -I$(DEPS)/include
LIBS := $(DEPS)/lib/libbpf.a $(DEPS)/lib/libelf.a $(DEPS)/lib/libz.a
BPF_INCLUDES := -I$(DEPS)/include
else
LIB_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf 2>/dev/null)
LIBS := $(or $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null),-lbpf) -lelf -lz
endif
# The BPF side needs the kernel UAPI headers; asm/ is the same for the
# architectures we build, so the host's multiarch directory serves all.
HOSTCC ?= cc
BPF_INCLUDES += -I/usr/include/$(shell $(HOSTCC) -dumpmachine 2>/dev/null)

WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
OPT ?= $(if $(STATIC),-Os -ffunction-sections -fdata-sections,-O2 -g)
CFLAGS += $(WARN) $(OPT) -std=gnu11 -D_GNU_SOURCE -I$(O)/gen -I$(srctree)/common \
	-I$(srctree)/bpf $(LIB_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += $(if $(STATIC),-static -Wl$(comma)--gc-sections) $(EXTRA_LDFLAGS)
comma := ,
# -mcpu=v3: atomic xchg/cmpxchg (offcpu), programs gate their use at run time
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall \
	-I$(srctree)/bpf $(BPF_INCLUDES) \
	$(if $(CONFIG_UNWIND_EH_FRAME),-DSB_WITH_UNWIND)

# ---- what the configuration selects ----
APPLETS := $(if $(wildcard $(KCONFIG_CONFIG)),$(shell $(srctree)/scripts/config.sh enabled $(srctree) $(KCONFIG_CONFIG)))
BPF_APPLETS := $(foreach a,$(APPLETS),$(if $(wildcard $(srctree)/bpf/$(a).bpf.c),$(a)))
core-y := main lib opts
core-y += collect entry stacks output cgroup kbtf sink elfzip rootfs privs
core-$(CONFIG_FORMAT_TEXT) += format_text
core-$(CONFIG_FORMAT_FOLDED) += format_folded
core-$(CONFIG_FORMAT_BIN) += format_bin
# Host-only: what report needs and a recording device does not.
core-$(CONFIG_REPORT) += report/bin_read report/pprof report/flame report/push
core-$(CONFIG_SYMBOLIZE) += ksyms elfsyms procsyms callsite
core-$(CONFIG_UNWIND_EH_FRAME) += ehframe unwind
OBJS := $(patsubst %,$(O)/obj/common/%.o,$(core-y)) \
	$(patsubst %,$(O)/obj/applets/%.o,$(APPLETS))
SKELS := $(patsubst %,$(O)/gen/%.skel.h,$(BPF_APPLETS))
GEN := $(O)/gen/autoconf.h $(O)/gen/usage.h $(O)/gen/applets.h

.DEFAULT_GOAL := all
.PHONY: all clean distclean help size check install defconfig menuconfig \
	olddefconfig savedefconfig setup run format FORCE
.SECONDARY:

all: $(O)/stackbox

$(O)/stackbox: $(OBJS)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)
	$(if $(STATIC),$(Q)$(STRIP) $@)

$(O)/obj/%.o: $(srctree)/%.c $(GEN) $(SKELS) | $(O)/obj/common/report $(O)/obj/applets
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# A release tarball (make dist) carries skeletons per arch in skel/ARCH/,
# so Buildroot and Yocto build without clang and bpftool.
ifneq ($(wildcard $(srctree)/skel/$(ARCH)/*.skel.h),)
$(O)/gen/%.skel.h: $(srctree)/skel/$(ARCH)/%.skel.h | $(O)/gen
	$(call quiet,CP,$@)cp $< $@
else
# The object is embedded in the binary: drop its DWARF. .BTF (maps) and
# .BTF.ext (func info, which callbacks such as bpf_for_each_map_elem's
# need) stay.
$(O)/obj/bpf/%.bpf.o: $(srctree)/bpf/%.bpf.c $(wildcard $(srctree)/bpf/*.h) $(O)/gen/config.mk | $(O)/obj/bpf
	$(call quiet,BPF,$@)$(CLANG) $(BPF_CFLAGS) -c -o $@ $< && \
		$(LLVM_STRIP) -g $@

$(O)/gen/%.skel.h: $(O)/obj/bpf/%.bpf.o $(srctree)/scripts/skel-zip.sh | $(O)/gen
	$(call quiet,GEN,$@)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && \
		sh $(srctree)/scripts/skel-zip.sh $< < $@.tmp > $@.zip && \
		mv $@.zip $@ && rm $@.tmp
endif
ALL_SKELS := $(patsubst $(srctree)/bpf/%.bpf.c,$(O)/gen/%.skel.h,$(wildcard $(srctree)/bpf/*.bpf.c))
.PHONY: skeletons dist
skeletons: $(ALL_SKELS)

# ---- release tarball: the committed tree plus skeletons for each arch ----
DIST_ARCHES := x86_64 arm64
VERSION ?= $(shell git -C $(srctree) describe --always --dirty 2>/dev/null || echo 0)
DIST := stackbox-$(VERSION)
dist:
	$(Q)rm -rf $(O)/dist && mkdir -p $(O)/dist/$(DIST)
	$(Q)git -C $(srctree) archive HEAD | tar -x -C $(O)/dist/$(DIST)
	$(Q)for a in $(DIST_ARCHES); do \
		$(MAKE) --no-print-directory -f $(srctree)/Makefile \
			O=$(abspath $(O))/dist/build-$$a ARCH=$$a skeletons && \
		mkdir -p $(O)/dist/$(DIST)/skel/$$a && \
		cp $(O)/dist/build-$$a/gen/*.skel.h $(O)/dist/$(DIST)/skel/$$a/ || exit 1; \
	done
	$(Q)tar -C $(O)/dist -czf $(O)/$(DIST).tar.gz $(DIST) && rm -rf $(O)/dist
	@echo "  DIST     $(O)/$(DIST).tar.gz"

$(O)/obj/common/report $(O)/obj/applets $(O)/obj/bpf $(O)/gen:
	$(Q)mkdir -p $@

-include $(OBJS:.o=.d)

# ---- configuration ----
# The header needs no kconfig binary; the interactive targets use
# Debian's kconfig-frontends.
$(KCONFIG_CONFIG):
	$(Q)mkdir -p $(dir $@)
	$(Q)if [ -f $(srctree)/configs/$(DEFCONFIG) ]; then \
		cp $(srctree)/configs/$(DEFCONFIG) $@; \
	else $(srctree)/scripts/config.sh defaults $(srctree) > $@; fi
	@echo "  CONFIG   $@ from configs/$(DEFCONFIG)"

$(O)/gen/config.mk: $(KCONFIG_CONFIG) $(srctree)/Kconfig $(wildcard $(srctree)/applets/*.c) | $(O)/gen
	$(Q)$(srctree)/scripts/config.sh make $(srctree) $< > $@.tmp && mv $@.tmp $@

$(O)/gen/autoconf.h: $(KCONFIG_CONFIG) $(srctree)/Kconfig $(srctree)/applets/Config.in | $(O)/gen
	$(call quiet,GEN,$@)$(srctree)/scripts/config.sh header $(srctree) $< > $@.tmp && mv $@.tmp $@

$(O)/gen/usage.h $(O)/gen/applets.h $(srctree)/applets/Config.in: $(wildcard $(srctree)/applets/*.c) | $(O)/gen
	$(Q)$(srctree)/scripts/gen-applets.sh $(srctree) $(O)/gen

KCONF_ENV := cd $(srctree) && KCONFIG_CONFIG=$(abspath $(KCONFIG_CONFIG))
defconfig: $(DEFCONFIG)
%_defconfig: $(srctree)/applets/Config.in FORCE
	$(Q)test -f $(srctree)/configs/$@ || { echo "no configs/$@" >&2; exit 1; }
	$(Q)mkdir -p $(dir $(KCONFIG_CONFIG))
	$(Q)if command -v kconfig-conf >/dev/null; then \
		$(KCONF_ENV) kconfig-conf --defconfig=configs/$@ Kconfig >/dev/null; \
	else cp $(srctree)/configs/$@ $(KCONFIG_CONFIG); fi
	@echo "  CONFIG   $(KCONFIG_CONFIG) from configs/$@"
menuconfig: $(srctree)/applets/Config.in
	$(Q)$(KCONF_ENV) kconfig-mconf Kconfig
olddefconfig: $(srctree)/applets/Config.in
	$(Q)$(KCONF_ENV) kconfig-conf --olddefconfig Kconfig
savedefconfig: $(srctree)/applets/Config.in
	$(Q)$(KCONF_ENV) kconfig-conf --savedefconfig=$(abspath $(O))/defconfig Kconfig
	@echo "  SAVED    $(O)/defconfig"

# ---- static musl builds and boards ----
-include $(srctree)/board/musl.mk

# ---- the README's two commands: make setup && make run|check ----
# What setup installs is needed by everything after it.
ifneq ($(filter setup,$(MAKECMDGOALS)),)
.NOTPARALLEL:
endif
setup:
	$(Q)$(srctree)/scripts/setup.sh

# A CPU profile of the whole machine: 10 seconds, the 10 biggest stacks.
run: $(O)/stackbox
	$(O)/stackbox oncpu -d 10 --top 10

# ---- checks, size, install ----
include $(srctree)/tests/tests.mk

# Every applet system-wide at -i 1 on a busy machine (bench/soak.sh):
# SOAK=30m by default, SERIAL=1 one applet after another.
.PHONY: soak
soak:
	cd $(srctree) && $(if $(SOAK),SOAK=$(SOAK)) sh bench/soak.sh

size:
	@for b in $(O)/stackbox out/musl-*/stackbox; do \
		[ -f $$b ] || continue; \
		s=$$(mktemp); $(STRIP) -o $$s $$b 2>/dev/null || cp $$b $$s; \
		printf '%-28s %8d bytes stripped\n' $$b $$(stat -c %s $$s); rm -f $$s; \
	done

DESTDIR ?=
BINDIR ?= /usr/bin
install: $(O)/stackbox
	install -D -m 0755 $(O)/stackbox $(DESTDIR)$(BINDIR)/stackbox
	for a in $(APPLETS); do ln -sf stackbox $(DESTDIR)$(BINDIR)/$$a; done

# One style for the tree (.clang-format); tests/unit/build.sh checks it.
format:
	cd $(srctree) && clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(O)/obj $(O)/gen $(O)/stackbox

distclean: clean
	rm -rf $(KCONFIG_CONFIG) $(KCONFIG_CONFIG).old $(srctree)/applets/Config.in out

help:
	@echo 'Setup and the main job:'
	@echo '  setup             install build/test dependencies (Debian, root)'
	@echo '  run               build, then profile the machine for 10 s'
	@echo 'Build:'
	@echo '  all (default)     ./stackbox for this machine, system libbpf'
	@echo '  musl-x86_64       out/musl-x86_64/stackbox, static, stripped'
	@echo '  musl-arm64        out/musl-arm64/stackbox, static, stripped'
	@echo '  size              stripped size of each built binary'
	@echo '  install           DESTDIR, BINDIR: binary and one link per applet'
	@echo '  dist              release tarball with skeletons: builds without clang'
	@echo 'Configuration (.config, or $$KCONFIG_CONFIG):'
	@echo '  defconfig, NAME_defconfig (configs/), menuconfig, olddefconfig, savedefconfig'
	@echo 'Checks:'
	@echo '  format            reformat the C sources (.clang-format)'
	@echo '  check             unit, integration (root) and board (qemu) tests'
	@echo 'Variables: O=DIR  V=1  ARCH=  CROSS_COMPILE=  STATIC=1  DEPS=prefix'
