# The image-built workload (tests/workloads/image): chain built as images
# build programs (-O2, no frame pointers), glibc dynamic and musl static,
# then packaged by package.sh: stripped with .gnu_debugdata, stripped
# bare, and the debug files by build-id.
IMAGE_O := $(TESTS_O)/workloads/image
IMAGE_CFLAGS := -O2 -fomit-frame-pointer $(WARN)
WORKLOADS += $(IMAGE_O)/.packaged

$(IMAGE_O)/chain: $(srctree)/tests/workloads/image/chain.c
	$(Q)mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(IMAGE_CFLAGS) -o $@ $<

# musl-gcc links with the host's ld, which writes a build-id
$(IMAGE_O)/chain-musl: $(srctree)/tests/workloads/image/chain.c
	$(Q)mkdir -p $(@D)
	$(call quiet,CC,$@)if command -v musl-gcc >/dev/null; then \
		musl-gcc -static -Wl,--build-id $(IMAGE_CFLAGS) -o $@ $<; \
	else rm -f $@; echo "musl-gcc not installed: no $@" >&2; fi

$(IMAGE_O)/.packaged: $(IMAGE_O)/chain $(IMAGE_O)/chain-musl \
		$(srctree)/tests/workloads/image/package.sh
	$(call quiet,GEN,$@)rm -rf $(IMAGE_O)/debug; \
	for b in $(IMAGE_O)/chain $(IMAGE_O)/chain-musl; do \
		[ ! -f $$b ] || sh $(srctree)/tests/workloads/image/package.sh \
			$$b $(IMAGE_O) || exit 1; done; touch $@
