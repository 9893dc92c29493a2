# The bin stream's unit test and fuzz target (tests/unit/test_bin.c,
# tests/unit/fuzz_bin.c). Without FORMAT_BIN or REPORT in the
# configuration the core lacks the code under test: link it in.
ifneq ($(CONFIG_FORMAT_BIN),y)
$(TESTS_O)/unit/test_bin $(SAN_O)/unit/test_bin: $(srctree)/common/stream/format_bin.c
endif
# (the reader is in the core with either: report, the recorder's dump)
ifeq ($(CONFIG_FORMAT_BIN)$(CONFIG_REPORT),)
$(TESTS_O)/unit/test_bin $(SAN_O)/unit/test_bin: $(srctree)/common/stream/bin_read.c \
		$(srctree)/common/stream/bin_parity.c $(srctree)/common/stream/bin_dict.c
endif

# libFuzzer (clang): a short run in make check (tests/unit/fuzz.sh), a
# long one with `make fuzz-bin FUZZ_SECONDS=600`.
FUZZ_BIN := $(TESTS_O)/fuzz/fuzz_bin
FUZZ_SECONDS ?= 300
$(FUZZ_BIN): $(srctree)/tests/unit/fuzz_bin.c $(srctree)/common/stream/bin_read.c \
		$(srctree)/common/stream/bin_parity.c $(srctree)/common/stream/bin_dict.c \
		$(srctree)/common/lib/u64map.c \
		$(srctree)/common/lib/lib.c $(O)/gen/autoconf.h $(O)/gen/usage.h
	$(Q)mkdir -p $(@D)
	$(call quiet,FUZZ,$@)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -D_GNU_SOURCE -I$(O)/gen \
		-I$(srctree)/common $(LAYER_INCLUDES) -I$(srctree)/bpf -o $@ $(filter %.c,$^) -lz
# test_bin itself under ASan and UBSan: the damage rounds (random
# edits, issue 18's targets) must not crash or overrun (fuzz.sh runs it)
TEST_BIN_ASAN := $(TESTS_O)/fuzz/test_bin_asan
$(TEST_BIN_ASAN): $(srctree)/tests/unit/test_bin.c $(srctree)/tests/unit/bin_dump.h \
		$(srctree)/common/stream/format_bin.c $(srctree)/common/stream/bin_read.c \
		$(srctree)/common/stream/bin_parity.c $(srctree)/common/stream/bin_dict.c \
		$(srctree)/common/lib/u64map.c $(srctree)/common/lib/lib.c \
		$(O)/gen/autoconf.h $(O)/gen/usage.h
	$(Q)mkdir -p $(@D)
	$(call quiet,ASAN,$@)$(CLANG) -g -O1 -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined -D_GNU_SOURCE -I$(O)/gen \
		-I$(srctree)/common $(LAYER_INCLUDES) -I$(srctree)/bpf -I$(srctree)/tests/unit \
		-o $@ $(filter %.c,$^) -lz
ifneq ($(shell command -v $(CLANG) 2>/dev/null),)
UNIT_FIXTURES += $(FUZZ_BIN) $(TEST_BIN_ASAN)
endif
.PHONY: fuzz-bin
fuzz-bin: $(FUZZ_BIN)
	mkdir -p $(TESTS_O)/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) $(TESTS_O)/fuzz/corpus \
		$(srctree)/tests/unit/fuzz/bin
