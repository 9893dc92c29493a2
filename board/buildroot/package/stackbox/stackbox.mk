################################################################################
#
# stackbox
#
################################################################################

STACKBOX_VERSION = $(call qstrip,$(BR2_PACKAGE_STACKBOX_VERSION))
STACKBOX_SITE = $(call qstrip,$(BR2_PACKAGE_STACKBOX_SITE))
STACKBOX_LICENSE = GPL-2.0
# `make dist` writes stackbox.hash beside the tarball: it goes to
# $(STACKBOX_PKGDIR)/$(STACKBOX_VERSION)/stackbox.hash (README).
STACKBOX_DEPENDENCIES = host-pkgconf libbpf elfutils zlib xz

# As busybox.mk calls BusyBox's Makefile: the target compiler and its
# flags, ARCH as Buildroot names it (aarch64, x86_64). The tarball's BPF
# skeletons mean no clang; its config targets need no kconfig binary.
STACKBOX_MAKE_OPTS = \
	CC="$(TARGET_CC)" \
	CROSS_COMPILE="$(TARGET_CROSS)" \
	ARCH=$(BR2_ARCH) \
	CFLAGS="$(TARGET_CFLAGS)" \
	LDFLAGS="$(TARGET_LDFLAGS)" \
	PKG_CONFIG="$(PKG_CONFIG_HOST_BINARY)" \
	$(if $(BR2_PACKAGE_STACKBOX_STATIC),STATIC=1 DEPS=$(STAGING_DIR)/usr)

STACKBOX_KCONFIG_FILE = $(call qstrip,$(BR2_PACKAGE_STACKBOX_CONFIG))
STACKBOX_KCONFIG_FRAGMENT_FILES = $(call qstrip,$(BR2_PACKAGE_STACKBOX_CONFIG_FRAGMENT_FILES))
# menuconfig runs the host's kconfig-mconf (kconfig-frontends)
STACKBOX_KCONFIG_EDITORS = menuconfig
STACKBOX_KCONFIG_OPTS = $(STACKBOX_MAKE_OPTS)

# What the applets attach to. BTF (DEBUG_INFO_BTF) is not turned on here:
# it needs host pahole (BR2_LINUX_KERNEL_NEEDS_HOST_PAHOLE); the kernel
# fragment board/kernel/stackbox.config sets both.
define STACKBOX_LINUX_CONFIG_FIXUPS
	$(call KCONFIG_ENABLE_OPT,CONFIG_BPF)
	$(call KCONFIG_ENABLE_OPT,CONFIG_BPF_SYSCALL)
	$(call KCONFIG_ENABLE_OPT,CONFIG_BPF_JIT)
	$(call KCONFIG_ENABLE_OPT,CONFIG_BPF_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_PERF_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_KPROBES)
	$(call KCONFIG_ENABLE_OPT,CONFIG_KPROBE_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_UPROBES)
	$(call KCONFIG_ENABLE_OPT,CONFIG_UPROBE_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_FTRACE)
	$(call KCONFIG_ENABLE_OPT,CONFIG_FTRACE_SYSCALLS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_CGROUPS)
endef

define STACKBOX_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) $(STACKBOX_MAKE_OPTS) -C $(@D)
endef

define STACKBOX_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) $(STACKBOX_MAKE_OPTS) -C $(@D) \
		DESTDIR=$(TARGET_DIR) BINDIR=/usr/bin install
endef

$(eval $(kconfig-package))
