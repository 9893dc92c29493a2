# The build with a minimal BTF built in (CONFIG_BTF_EMBED), as a BSP
# would make it, here from this host's kernel BTF: the same objects as
# ./stackbox, linked with it (tests/integration/btf.sh).
HOST_BTF := $(wildcard /sys/kernel/btf/vmlinux)
ifneq ($(HOST_BTF),)
UNIT_FIXTURES += $(TESTS_O)/btf/stackbox $(TESTS_O)/host-min.btf
$(TESTS_O)/host-min.btf: $(HOST_BTF) $(O)/obj/bpf/btf-needs.o | $(TESTS_O)/unit
	$(call quiet,BTFGEN,$@)$(call btf_min,$<,$@)
# (named stackbox: the multicall binary knows itself by name)
$(TESTS_O)/btf/stackbox: $(filter-out %/btf-min.btf.o,$(OBJS)) $(TESTS_O)/host-min.btf.o
	$(Q)mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)
$(TESTS_O)/host-min.btf.o: $(TESTS_O)/host-min.btf.c
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -c -o $@ $<
endif
