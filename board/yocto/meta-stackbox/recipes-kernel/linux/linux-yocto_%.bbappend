# What stackbox's applets need from the kernel (board/kernel/stackbox.config)
FILESEXTRAPATHS:prepend := "${THISDIR}/files:"
SRC_URI += "file://stackbox.cfg"
# DEBUG_INFO_BTF needs pahole on the build host
do_kernel_configme[depends] += "pahole-native:do_populate_sysroot"
