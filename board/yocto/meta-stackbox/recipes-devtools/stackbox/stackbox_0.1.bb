SUMMARY = "eBPF stack profilers for embedded Linux in one multicall binary"
DESCRIPTION = "oncpu, offcpu, memstack, iostack, rastack and report: \
each counts one metric per call stack, BusyBox-style applets of one binary."
SECTION = "devel"
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://common/main.c;beginline=1;endline=1;md5=50d2ba0afecd20f74c12a4bdbcfcfe61"

# The release tarball from `make dist VERSION=${PV}`: it carries the BPF
# skeletons, so no clang or bpftool is needed. Put it in files/ beside
# this recipe. .cfg files in SRC_URI are merged over the arch's defconfig.
SRC_URI = "file://stackbox-${PV}.tar.gz \
           file://stackbox.cfg \
"
S = "${UNPACKDIR}/stackbox-${PV}"
B = "${S}"

DEPENDS = "libbpf elfutils zlib xz"

inherit cml1 pkgconfig update-alternatives

# As oe-core's busybox recipe calls BusyBox's Makefile: CC with its flags
# inside, ARCH as Yocto names it (aarch64, x86_64). CFLAGS and LDFLAGS
# come from the environment and are kept.
EXTRA_OEMAKE = "CC='${CC}' ARCH=${TARGET_ARCH} CROSS_COMPILE=${TARGET_PREFIX} V=1"

do_configure () {
	oe_runmake defconfig
	${S}/scripts/config.sh merge ${S} .config ${@" ".join(find_cfgs(d))}
	cml1_do_configure
}

# base_do_compile runs oe_runmake.

# The applet links are update-alternatives', from the list install writes.
do_install () {
	oe_runmake install DESTDIR=${D} BINDIR=${bindir} LINKS=none
	install -d ${D}${sysconfdir}
	install -m 0644 ${B}/stackbox.links ${D}${sysconfdir}/stackbox.links
}

FILES:${PN} += "${sysconfdir}/stackbox.links"

ALTERNATIVE_PRIORITY = "50"

python do_package:prepend () {
    # One alternative per applet the .config built, as busybox.inc does
    # with busybox.links
    pn = d.getVar('PN')
    target = d.expand('${bindir}/stackbox')
    with open(d.expand('${D}${sysconfdir}/stackbox.links')) as f:
        for line in f:
            link = line.strip()
            if not link:
                continue
            name = os.path.basename(link)
            d.appendVar('ALTERNATIVE:%s' % pn, ' ' + name)
            d.setVarFlag('ALTERNATIVE_LINK_NAME', name, link)
            d.setVarFlag('ALTERNATIVE_TARGET', name, target)
}
