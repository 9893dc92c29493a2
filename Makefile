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

# Image builders call us as they call BusyBox: Buildroot passes CC and
# CROSS_COMPILE, Yocto a CC with its flags inside (--sysroot, -march) and
# ARCH=$(TARGET_ARCH). A CC given on the command line or in the
# environment is used as it is.
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
STRIP ?= $(CROSS_COMPILE)strip
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
# Target architecture, from the compiler unless given; the kernel's
# names (arm64, x86) and the toolchains' (aarch64, x86_64) both work.
ARCH ?= $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
override ARCH := $(patsubst aarch64,arm64,$(patsubst x86,x86_64,$(strip $(ARCH))))
ifeq ($(filter x86_64 arm64,$(ARCH)),)
$(error ARCH=$(ARCH): stackbox builds for x86_64 (or x86) and arm64 (or aarch64))
endif
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
LIBS += -lm
# .gnu_debugdata is xz (Kconfig MINIDEBUGINFO)
LIBS += $(if $(CONFIG_MINIDEBUGINFO),$(if $(DEPS),$(DEPS)/lib/liblzma.a,-llzma))
HOSTCC ?= cc
BPF_INCLUDES += -I/usr/include/$(shell $(HOSTCC) -dumpmachine 2>/dev/null)

# common/'s layers, lowest first: each uses only itself and those before
# it (HACKING.md; tests/unit/layers.sh checks it). Above them, common/
# holds main.c and applet.h, the multicall's top, and applets/.
LAYERS := lib kernel sym stream trigger core report
LAYER_INCLUDES := $(patsubst %,-I$(srctree)/common/%,$(LAYERS))

WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
OPT ?= $(if $(STATIC),-Os -ffunction-sections -fdata-sections,-O2 -g)
# CFLAGS and LDFLAGS from the command line or the environment (the image
# builders' target flags) are kept and ours added.
override CFLAGS += $(WARN) $(OPT) -std=gnu11 -D_GNU_SOURCE -I$(O)/gen -I$(srctree)/common $(LAYER_INCLUDES) \
	-I$(srctree)/bpf $(LIB_CFLAGS) $(EXTRA_CFLAGS)
override LDFLAGS += $(if $(STATIC),-static -Wl$(comma)--gc-sections) $(EXTRA_LDFLAGS)
comma := ,
# -mcpu=v3: atomic xchg/cmpxchg (offcpu), programs gate their use at run time.
# Every Kconfig symbol used here must be in BPF_OPTIONS (dist).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall \
	-I$(srctree)/bpf $(BPF_INCLUDES) \
	$(if $(CONFIG_UNWIND_EH_FRAME),-DSB_WITH_UNWIND)

# ---- what the configuration selects ----
APPLETS := $(if $(wildcard $(KCONFIG_CONFIG)),$(shell $(srctree)/scripts/config.sh enabled $(srctree) $(KCONFIG_CONFIG)))
BPF_APPLETS := $(foreach a,$(APPLETS),$(if $(wildcard $(srctree)/bpf/$(a).bpf.c),$(a)))
core-y := main
# lib: no stackbox knowledge; every layer may use it
core-y += lib/lib lib/opts lib/u64map lib/pool lib/sink lib/rootfs lib/nspid lib/cgroup
core-y += lib/anomaly # one series' detector: report and the device
core-y += lib/intern # distinct byte strings by index: pprof's tables
# kernel: what the running kernel has, and BPF maps
core-y += kernel/kernel kernel/kbtf kernel/kfeatures kernel/privs
core-y += kernel/mapwalk kernel/mapmake kernel/mapmem kernel/code_changes
core-y += kernel/bpf_quiesce # the drain waits out programs on the closing map
core-$(CONFIG_UNWIND_EH_FRAME) += kernel/unwind_walk # bpf_loop or bounded; where the registers are
core-$(CONFIG_CHECK) += kernel/kconfig # the running kernel's config against ours
# uprobes on user functions: memstack and stackcount
UPROBES := $(if $(CONFIG_MEMSTACK)$(CONFIG_STACKCOUNT),y)
core-$(UPROBES) += kernel/kuprobe
# sym: stacks and the names of their frames
core-y += sym/stacks sym/frames
core-$(CONFIG_SYMBOLIZE) += sym/ksyms sym/kernel_names sym/elfsyms sym/gopclntab sym/procsyms sym/callsite
core-$(CONFIG_UNWIND_EH_FRAME) += sym/ehframe sym/unwind_choice
# (uprobes on user functions find them in ELF symbols)
core-$(UPROBES) += $(if $(CONFIG_SYMBOLIZE),,sym/elfsyms sym/gopclntab sym/procsyms sym/callsite)
# elfsyms' helpers: separate debug files, Go's table as symbols
core-$(if $(CONFIG_SYMBOLIZE)$(UPROBES),y) += sym/elfread sym/debugfile sym/gosyms
core-$(CONFIG_MINIDEBUGINFO) += sym/minidebuginfo
# stream: the snapshot model, its formats and the bin stream both ways
core-y += stream/snapshot stream/output stream/recorder
core-$(CONFIG_FORMAT_TEXT) += stream/format_text
core-$(CONFIG_FORMAT_FOLDED) += stream/format_folded
# folded rows: the folded format, and report's flame graph, HTML and --hotcold
core-$(if $(CONFIG_FORMAT_FOLDED)$(CONFIG_REPORT),y) += stream/folded_rows
core-$(CONFIG_FORMAT_BIN) += stream/format_bin
# reading bin: report, and the flight recorder's dump as text or folded
core-y += $(if $(CONFIG_FORMAT_BIN)$(CONFIG_REPORT),stream/bin_read stream/bin_parity stream/bin_replay stream/bin_dict)
core-$(CONFIG_SYMBOLIZE) += $(if $(CONFIG_FORMAT_BIN)$(CONFIG_REPORT),stream/bin_ksyms)
# trigger: -T and the device's anomaly watch (docs/triggers.md)
core-y += trigger/trigger trigger/trigger_change trigger/trigger_psi trigger/trigger_load
core-y += trigger/trigger_event trigger/trigger_anomaly trigger/anomaly_watch
# core: the collector's lifecycle every applet runs
core-y += core/collect core/cli core/plan core/drain core/child core/entry
core-y += core/capture core/percpu core/libbpf_log core/elfzip
core-y += core/tables_due # unwind tables built after the events at hand
core-$(CONFIG_UNWIND_EH_FRAME) += core/unwind core/looks
core-$(UPROBES) += core/uprobe
# report: host only, what report needs and a recording device does not
core-$(CONFIG_REPORT) += report/pprof report/flame report/push
core-$(CONFIG_REPORT) += report/http report/debuginfod # plain HTTP; debug files by build-id
core-$(CONFIG_REPORT) += report/anomalies report/cluster report/hotcold
core-$(CONFIG_REPORT) += report/anomalies_write report/anomalies_series
core-$(CONFIG_REPORT) += report/lines report/perf_script report/text_read report/out_file
core-$(CONFIG_REPORT) += report/folded_read report/html
# An applet's helpers beside it (applets/NAME/): memstack's modes without
# uprobes (mmap, faults, kernel); stackcount's events, filters and USDT.
applet-helpers-$(CONFIG_MEMSTACK) += memstack/memstack_hooks
applet-helpers-$(CONFIG_STACKCOUNT) += stackcount/stackcount_events stackcount/stackcount_filter stackcount/stackcount_usdt
LEGACY_OBJS := $(if $(CONFIG_BPF_LEGACY),$(patsubst %,$(O)/obj/gen/%.legacy.o,$(BPF_APPLETS)))
OBJS := $(patsubst %,$(O)/obj/common/%.o,$(core-y)) \
	$(patsubst %,$(O)/obj/applets/%.o,$(APPLETS) $(applet-helpers-y)) $(LEGACY_OBJS) \
	$(if $(patsubst "%",%,$(CONFIG_BTF_EMBED)),$(O)/obj/gen/btf-min.btf.o)
# report -f html's script and style, from their own sources
OBJS += $(if $(CONFIG_REPORT),$(O)/obj/gen/html_assets.o)
HTML_ASSETS := $(srctree)/common/report/html/page.js $(srctree)/common/report/html/page.css
$(O)/gen/html_assets.c: $(HTML_ASSETS) $(srctree)/scripts/embed-text.sh | $(O)/gen
	$(call quiet,GEN,$@)sh $(srctree)/scripts/embed-text.sh html_page_js $(word 1,$(HTML_ASSETS)) \
		html_page_css $(word 2,$(HTML_ASSETS)) > $@.tmp && mv $@.tmp $@
SKELS := $(patsubst %,$(O)/gen/%.skel.h,$(BPF_APPLETS))
GEN := $(O)/gen/autoconf.h $(O)/gen/usage.h $(O)/gen/applets.h

.DEFAULT_GOAL := all
.PHONY: all clean distclean help size check install uninstall defconfig \
	menuconfig oldconfig olddefconfig savedefconfig setup run format FORCE
.SECONDARY:

all: $(O)/stackbox

$(O)/stackbox: $(OBJS)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)
	$(if $(STATIC),$(Q)$(STRIP) $@)

# Generated headers are order-only: they must exist before the first
# compile, and -MMD's .d files then name the ones each object includes,
# so a changed .bpf.c rebuilds its applet alone.
$(O)/obj/%.o: $(srctree)/%.c | $(GEN) $(SKELS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<
$(O)/obj/gen/%.o: $(O)/gen/%.c | $(O)/obj/gen
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -c -o $@ $<

# A release tarball (make dist) carries skeletons in skel/ARCH/VARIANT/,
# one VARIANT per combination of the Kconfig symbols BPF_CFLAGS read
# (BPF_OPTIONS; "base" when all are off), so Buildroot and Yocto build
# any .config without clang and bpftool.
BPF_OPTIONS := UNWIND_EH_FRAME
space := $(subst ,, )
SKEL_VARIANT := $(or $(subst $(space),+,$(strip $(foreach o,$(BPF_OPTIONS),$(if $(CONFIG_$(o)),$(o))))),base)
SKEL_DIR := $(srctree)/skel/$(ARCH)/$(SKEL_VARIANT)
ifneq ($(wildcard $(srctree)/skel),)
$(O)/gen/%.skel.h: $(SKEL_DIR)/%.skel.h $(O)/gen/config.mk | $(O)/gen
	$(call quiet,CP,$@)cp $< $@
$(O)/gen/%.legacy.c: $(SKEL_DIR)/%.legacy.c $(O)/gen/config.mk | $(O)/gen
	$(call quiet,CP,$@)cp $< $@
$(SKEL_DIR)/%.skel.h:
	@echo "$@: not in this tarball: BPF for ARCH=$(ARCH) with$(foreach o,$(BPF_OPTIONS), CONFIG_$(o)=$(or $(CONFIG_$(o)),n)) needs clang and bpftool (build from git)" >&2; exit 1
else
# The object is embedded in the binary: drop its DWARF. .BTF (maps) and
# .BTF.ext (func info, which callbacks such as bpf_for_each_map_elem's
# and global functions need) stay; .BTF.ext's relocations go, which
# libbpf skips (it relocates only sections of code): a sixth of the
# objects' compressed bytes.
BPF_STRIP = $(LLVM_STRIP) -g --remove-section=.rel.BTF.ext
$(O)/obj/bpf/%.bpf.o: $(srctree)/bpf/%.bpf.c $(wildcard $(srctree)/bpf/*.h) $(O)/gen/config.mk | $(O)/obj/bpf
	$(call quiet,BPF,$@)$(CLANG) $(BPF_CFLAGS) -c -o $@ $< && \
		$(BPF_STRIP) $@

$(O)/gen/%.skel.h: $(O)/obj/bpf/%.bpf.o $(srctree)/scripts/skel-zip.sh | $(O)/gen
	$(call quiet,GEN,$@)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && \
		sh $(srctree)/scripts/skel-zip.sh $< < $@.tmp > $@.zip && \
		mv $@.zip $@ && rm $@.tmp

# The same programs for kernels before 5.13 (CONFIG_BPF_LEGACY): no
# callbacks, no atomic fetch operations, no eh_frame unwinder, which
# 5.10's loader refuses even in code that never runs. Opened through
# the skeleton above (libbpf binds maps and programs by name), so only
# the object's bytes are embedded, a function of their own
# (sb_legacy_elf_NAME, in gen/NAME.legacy.c).
$(O)/obj/bpf/%.legacy.bpf.o: $(srctree)/bpf/%.bpf.c $(wildcard $(srctree)/bpf/*.h) $(O)/gen/config.mk | $(O)/obj/bpf
	$(call quiet,BPF,$@)$(CLANG) $(BPF_CFLAGS) -DSB_LEGACY -c -o $@ $< && \
		$(BPF_STRIP) $@
$(O)/gen/%.legacy.c: $(O)/obj/bpf/%.legacy.bpf.o $(srctree)/scripts/skel-zip.sh | $(O)/gen
	$(call quiet,GEN,$@)sh $(srctree)/scripts/skel-zip.sh --bytes sb_legacy_elf_$* $< > $@.tmp && mv $@.tmp $@
endif
# ---- kernels without BTF: a minimal BTF of the types stackbox reads ----
# bpf/btf-needs.c lists them as CO-RE relocations, so bpftool keeps
# exactly those of a kernel's BTF. CONFIG_BTF_EMBED builds the result
# in; `make btf-min BTF=FILE` writes it to $(O)/stackbox.btf (--btf).
BTF_EMBED := $(patsubst "%",%,$(CONFIG_BTF_EMBED))
$(O)/obj/bpf/btf-needs.o: $(srctree)/bpf/btf-needs.c | $(O)/obj/bpf
	$(call quiet,BPF,$@)$(CLANG) $(BPF_CFLAGS) -c -o $@ $<
# $(call btf_min,KERNEL-BTF,OUT)
btf_min = $(BPFTOOL) gen min_core_btf $(1) $(2) $(O)/obj/bpf/btf-needs.o
$(O)/gen/btf-min.btf: $(BTF_EMBED) $(O)/obj/bpf/btf-needs.o $(O)/gen/config.mk | $(O)/gen
	$(call quiet,BTFGEN,$@)$(call btf_min,$(BTF_EMBED),$@)
# A minimal BTF as C, built in: kbtf() finds sb_btf_embedded.
$(O)/%.btf.c: $(O)/%.btf
	$(call quiet,GEN,$@){ echo '/* $(notdir $<): generated, do not edit */'; \
		echo 'const unsigned char sb_btf_embedded[] = {'; \
		od -An -v -tx1 $< | awk '{ o = ""; for (i = 1; i <= NF; i++) o = o "0x" $$i ","; print o }'; \
		echo '};'; echo 'const unsigned sb_btf_embedded_size = sizeof(sb_btf_embedded);'; } >$@
.PHONY: btf-min
btf-min: $(O)/obj/bpf/btf-needs.o
	$(Q)test -n "$(BTF)" || { echo "make btf-min BTF=FILE: the kernel's vmlinux or BTF file" >&2; exit 1; }
	$(call quiet,BTFGEN,$(O)/stackbox.btf)$(call btf_min,$(BTF),$(O)/stackbox.btf)

ALL_SKELS := $(patsubst $(srctree)/bpf/%.bpf.c,$(O)/gen/%.skel.h,$(wildcard $(srctree)/bpf/*.bpf.c))
ALL_SKELS += $(if $(CONFIG_BPF_LEGACY),$(patsubst $(srctree)/bpf/%.bpf.c,$(O)/gen/%.legacy.c,$(wildcard $(srctree)/bpf/*.bpf.c)))
.PHONY: skeletons skel-install dist
skeletons: $(ALL_SKELS)
# make dist's sub-makes: this configuration's skeletons into the tarball
skel-install: $(ALL_SKELS)
	$(Q)mkdir -p $(SKEL_OUT)/$(ARCH)/$(SKEL_VARIANT) && cp $^ $(SKEL_OUT)/$(ARCH)/$(SKEL_VARIANT)/

# ---- release tarball: the committed tree plus skeletons for each arch ----
# and each combination of BPF_OPTIONS: arch's defconfig with the options
# set one way or the other (2^n builds; one option today). VERSION in it
# holds the version and the commit, for --version (scripts/gen-version.sh).
DIST_ARCHES := x86_64 arm64
VERSION ?= $(shell git -C $(srctree) describe --always --dirty 2>/dev/null || echo 0)
DIST := stackbox-$(VERSION)
dist:
	$(Q)rm -rf $(O)/dist && mkdir -p $(O)/dist/$(DIST)
	$(Q)git -C $(srctree) archive HEAD | tar -x -C $(O)/dist/$(DIST)
	$(Q)echo "$(VERSION) $$(git -C $(srctree) rev-parse --short HEAD)" >$(O)/dist/$(DIST)/VERSION
	$(Q)for a in $(DIST_ARCHES); do i=0; \
	while [ $$i -lt $$((1 << $(words $(BPF_OPTIONS)))) ]; do \
		b=$(abspath $(O))/dist/build-$$a-$$i; mkdir -p $$b; j=0; \
		for o in $(BPF_OPTIONS); do \
			if [ $$(((i >> j) & 1)) = 1 ]; then echo "CONFIG_$$o=y"; \
			else echo "# CONFIG_$$o is not set"; fi; j=$$((j + 1)); \
		done >$$b/variant; \
		cp $(srctree)/configs/$${a}_defconfig $$b/.config && \
		$(CONFIG_SH) merge $(srctree) $$b/.config $$b/variant && \
		$(CONFIG_SH) olddefconfig $(srctree) $$b/.config && \
		$(MAKE) --no-print-directory -f $(srctree)/Makefile O=$$b ARCH=$$a \
			KCONFIG_CONFIG=$$b/.config SKEL_OUT=$(abspath $(O))/dist/$(DIST)/skel \
			skel-install || exit 1; \
		i=$$((i + 1)); \
	done; done
	$(Q)tar -C $(O)/dist -czf $(O)/$(DIST).tar.gz $(DIST) && rm -rf $(O)/dist
	$(Q)cd $(O) && sha256sum $(DIST).tar.gz | sed 's/^/sha256  /' >stackbox.hash
	@echo "  DIST     $(O)/$(DIST).tar.gz"

$(O)/obj/bpf $(O)/obj/gen $(O)/gen:
	$(Q)mkdir -p $@

-include $(OBJS:.o=.d)

# ---- configuration ----
# The header needs no kconfig binary; the interactive targets use
# Debian's kconfig-frontends.
CONFIG_SH := $(srctree)/scripts/config.sh
$(KCONFIG_CONFIG):
	$(Q)mkdir -p $(dir $@)
	$(Q)if [ -f $(srctree)/configs/$(DEFCONFIG) ]; then \
		$(CONFIG_SH) defconfig $(srctree) $(srctree)/configs/$(DEFCONFIG) $@; \
	else $(srctree)/scripts/config.sh defaults $(srctree) > $@; fi
	@echo "  CONFIG   $@ from configs/$(DEFCONFIG)"

$(O)/gen/config.mk: $(KCONFIG_CONFIG) $(srctree)/Kconfig $(wildcard $(srctree)/applets/*.c) | $(O)/gen
	$(Q)$(srctree)/scripts/config.sh make $(srctree) $< > $@.tmp && mv $@.tmp $@

$(O)/gen/autoconf.h: $(KCONFIG_CONFIG) $(srctree)/Kconfig $(srctree)/applets/Config.in | $(O)/gen
	$(call quiet,GEN,$@)$(srctree)/scripts/config.sh header $(srctree) $< > $@.tmp && mv $@.tmp $@

$(O)/gen/usage.h $(O)/gen/applets.h $(srctree)/applets/Config.in: $(wildcard $(srctree)/applets/*.c) | $(O)/gen
	$(Q)$(srctree)/scripts/gen-applets.sh $(srctree) $(O)/gen

# The kernel config fragment, built in for stackbox check (a device has
# no source tree); needed by kconfig.c alone.
$(O)/gen/kconfig_frag.h: $(srctree)/board/kernel/stackbox.config $(srctree)/scripts/gen-kconfig.sh | $(O)/gen
	$(call quiet,GEN,$@)$(srctree)/scripts/gen-kconfig.sh $< $@
$(O)/obj/common/kernel/kconfig.o: $(O)/gen/kconfig_frag.h

# --version's header: asked of git at every make, rewritten only when it
# changed, and needed by main.c alone (not in GEN), so a commit costs one
# compile. VERSION=... on the command line names the version.
$(O)/gen/version.h: FORCE | $(O)/gen
	$(Q)$(srctree)/scripts/gen-version.sh $(srctree) $@ \
		$(if $(filter command line,$(origin VERSION)),'$(VERSION)')
$(O)/obj/common/main.o: $(O)/gen/version.h

# Only menuconfig needs a kconfig binary (Debian's kconfig-frontends);
# the others are scripts/config.sh, as Buildroot and Yocto have no
# kconfig-conf. The files they write are kconfig-conf's.
KCONF_ENV := cd $(srctree) && KCONFIG_CONFIG=$(abspath $(KCONFIG_CONFIG))
defconfig: $(DEFCONFIG)
%_defconfig: FORCE
	$(Q)test -f $(srctree)/configs/$@ || { echo "no configs/$@" >&2; exit 1; }
	$(Q)mkdir -p $(dir $(KCONFIG_CONFIG))
	$(Q)$(CONFIG_SH) defconfig $(srctree) $(srctree)/configs/$@ $(KCONFIG_CONFIG)
	@echo "  CONFIG   $(KCONFIG_CONFIG) from configs/$@"
menuconfig: $(srctree)/applets/Config.in
	$(Q)$(KCONF_ENV) kconfig-mconf Kconfig
olddefconfig: $(KCONFIG_CONFIG)
	$(Q)$(CONFIG_SH) olddefconfig $(srctree) $(KCONFIG_CONFIG)
# Asks on stdin for each symbol the .config lacks: yes '' | make oldconfig
oldconfig: $(KCONFIG_CONFIG)
	$(Q)$(CONFIG_SH) oldconfig $(srctree) $(KCONFIG_CONFIG)
savedefconfig: $(KCONFIG_CONFIG)
	$(Q)$(CONFIG_SH) savedefconfig $(srctree) $(KCONFIG_CONFIG) $(O)/defconfig
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

# The sizes README.md states (integrators size flash from them) against
# fresh builds: the static musl binaries, this host's dynamic one and
# tiny_defconfig, stripped; fails naming the README line that is more
# than README_SIZE_TOL percent (2) off. make check runs the same test
# (tests/unit/readme_sizes.sh) on the builds it has made anyway.
.PHONY: readme-sizes
readme-sizes: musl-x86_64 musl-arm64 $(O)/stackbox
	$(Q)$(MAKE) --no-print-directory -f $(srctree)/Makefile O=$(abspath $(O))/obj/tiny \
		KCONFIG_CONFIG=$(abspath $(O))/obj/tiny/.config tiny_defconfig >/dev/null
	$(Q)$(MAKE) --no-print-directory -f $(srctree)/Makefile O=$(abspath $(O))/obj/tiny \
		KCONFIG_CONFIG=$(abspath $(O))/obj/tiny/.config >/dev/null
	$(Q)SRCTREE=$(srctree) STACKBOX=$(abspath $(O)/stackbox) OUT=$(srctree)/out \
		TINY=$(abspath $(O))/obj/tiny/stackbox sh $(srctree)/tests/unit/readme_sizes.sh \
		>$(O)/obj/readme-sizes.log; s=$$?; cat $(O)/obj/readme-sizes.log; \
		[ $$s = 0 ] && ! grep -q "^FAIL" $(O)/obj/readme-sizes.log

# install: the binary and one link per configured collector applet,
# symlinks or with LINKS=hard hard links; LINKS=none leaves them to the
# packager (Yocto's update-alternatives), which reads $(O)/stackbox.links,
# one path a line, as oe-core's busybox recipe reads busybox.links. The
# list comes from the .config: the target binary is never run. report and
# check are names other programs use: linked only with LINK_ALL=1, as
# `stackbox --install --all` does; else they run as `stackbox report`.
# A file of an applet's name that is not stackbox is kept, and said.
# uninstall removes the binary, the links to it of every applet the tree
# has (so a .config changed since install is no matter), and BINDIR when
# that leaves it empty; nothing else.
DESTDIR ?=
BINDIR ?= /usr/bin
LINKS ?= sym
INSTALL_DIR := $(DESTDIR)$(BINDIR)
# The collectors are the applets with BPF programs.
LINK_APPLETS = $(if $(filter 1,$(LINK_ALL)),$(APPLETS),$(BPF_APPLETS))
ALL_APPLETS := $(patsubst $(srctree)/applets/%.c,%,$(wildcard $(srctree)/applets/*.c))
install: $(O)/stackbox
	$(Q)case "$(LINKS)" in sym|hard|none) ;; \
	*) echo "LINKS=$(LINKS): sym, hard or none" >&2; exit 1 ;; esac
	$(Q)for a in $(LINK_APPLETS); do echo $(BINDIR)/$$a; done >$(O)/stackbox.links
	$(call quiet,INSTALL,$(INSTALL_DIR)/stackbox)mkdir -p $(INSTALL_DIR) && \
		cp $(O)/stackbox $(INSTALL_DIR)/stackbox.tmp && \
		chmod 0755 $(INSTALL_DIR)/stackbox.tmp && \
		cd $(INSTALL_DIR) && links=$$($(call own_links,$(LINK_APPLETS))) && \
		mv -f stackbox.tmp stackbox && for a in $$links; do \
		case "$(LINKS)" in \
		sym) ln -sfn stackbox $$a ;; \
		hard) ln -f stackbox $$a ;; \
	esac || exit 1; done
# $(call own_links,NAMES): those free or already links to the stackbox
# being replaced (hard links too, so asked before it goes); the others
# are said and kept.
own_links = for a in $(1); do \
	if [ "$(LINKS)" = none ] || ! { [ -e $$a ] || [ -L $$a ]; } || \
		[ $$a -ef stackbox ]; then echo $$a; \
	else echo "install: kept $(INSTALL_DIR)/$$a: a file of that name exists" >&2; fi; \
	done
uninstall:
	$(Q)cd $(INSTALL_DIR) 2>/dev/null || exit 0; \
	for a in $(ALL_APPLETS); do \
		if [ -L $$a ]; then [ "$$(readlink $$a)" != stackbox ] || rm -f $$a; \
		elif [ -f $$a ] && [ stackbox -ef $$a ]; then rm -f $$a; fi; \
	done; rm -f stackbox
	$(Q)d=$(INSTALL_DIR); while [ "$$d" != "$(or $(DESTDIR),/)" ] && [ "$$d" != / ] && \
		rmdir "$$d" 2>/dev/null; do d=$$(dirname "$$d"); done

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
	@echo '  readme-sizes      build them and check the sizes README.md states (2 %)'
	@echo '  install           DESTDIR, BINDIR: binary and one link per collector applet'
	@echo '                    (LINKS=sym, hard or none; $$(O)/stackbox.links lists them;'
	@echo '                    LINK_ALL=1: report and check too); existing files are kept'
	@echo '  uninstall         what install made, nothing else'
	@echo '  dist              release tarball with skeletons: builds without clang'
	@echo 'Configuration (.config, or $$KCONFIG_CONFIG):'
	@echo '  defconfig, NAME_defconfig (configs/), oldconfig, olddefconfig, savedefconfig:'
	@echo '                    need no kconfig binary; menuconfig needs kconfig-mconf'
	@echo 'Checks:'
	@echo '  format            reformat the C sources (.clang-format)'
	@echo '  check             unit, integration (root) and board (qemu) tests'
	@echo '  board-run, check-board  boot the qemu boards (BOARDS=, BOARD_JOBS=2),'
	@echo '                    then check them (docs/boards.md)'
	@echo '  check-stress      offcpu, unwind, rastack, memstack tests ROUNDS=20 times'
	@echo '                    under stress-ng --cpu 2: failures per check'
	@echo 'Variables: O=DIR  V=1  ARCH=  CC=  CROSS_COMPILE=  CFLAGS=  LDFLAGS='
	@echo '  PKG_CONFIG=  STATIC=1  DEPS=prefix  DESTDIR=  BINDIR=  LINKS=  LINK_ALL=1'
	@echo '  VERSION= (what stackbox --version and make dist call the version)'
