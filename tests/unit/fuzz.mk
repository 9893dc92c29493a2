# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined), each
# tests/unit/fuzz_NAME.c with the sources it tests, seeded from
# tests/unit/fuzz/NAME/. make check runs each a few seconds
# (tests/unit/fuzz.sh); `make fuzz` runs every one, bin's too (bin.mk),
# for FUZZ_SECONDS each, keeping what it finds in obj/tests/fuzz/NAME/
# (and a crash or leak as obj/tests/fuzz/NAME-crash-..., not in the tree).
FUZZ_NAMES := elf ehframe ksyms maps opts perf_script gopclntab folded_read
FUZZ_TARGETS := $(patsubst %,$(TESTS_O)/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -I$(O)/gen \
	-I$(srctree)/common $(LAYER_INCLUDES) -I$(srctree)/bpf -I$(srctree)/tests/unit
FUZZ_LIB := $(srctree)/common/lib/lib.c
FUZZ_DEPS := $(O)/gen/autoconf.h $(O)/gen/usage.h \
	$(srctree)/tests/unit/fuzz_file.h

$(TESTS_O)/fuzz/fuzz_elf: $(srctree)/common/sym/elfsyms.c $(srctree)/common/sym/gopclntab.c \
	$(srctree)/common/sym/elfread.c $(srctree)/common/sym/debugfile.c $(srctree)/common/sym/gosyms.c \
	$(srctree)/common/core/elfzip.c $(srctree)/common/lib/u64map.c \
	$(srctree)/common/lib/rootfs.c
# .gnu_debugdata is read where the build reads it (Kconfig MINIDEBUGINFO)
FUZZ_LZMA := $(if $(CONFIG_MINIDEBUGINFO),-llzma)
FUZZ_MDI := $(if $(CONFIG_MINIDEBUGINFO),$(srctree)/common/sym/minidebuginfo.c)
$(TESTS_O)/fuzz/fuzz_elf $(TESTS_O)/fuzz/fuzz_maps: $(FUZZ_MDI)
$(TESTS_O)/fuzz/fuzz_ehframe: $(srctree)/common/sym/ehframe.c $(srctree)/common/lib/rootfs.c
$(TESTS_O)/fuzz/fuzz_ksyms: $(srctree)/common/sym/ksyms.c \
	$(srctree)/common/lib/u64map.c
$(TESTS_O)/fuzz/fuzz_maps: $(srctree)/common/sym/procsyms.c \
	$(srctree)/common/sym/elfsyms.c $(srctree)/common/sym/gopclntab.c \
	$(srctree)/common/sym/elfread.c $(srctree)/common/sym/debugfile.c $(srctree)/common/sym/gosyms.c $(srctree)/common/core/elfzip.c \
	$(srctree)/common/sym/callsite.c $(srctree)/common/lib/rootfs.c \
	$(srctree)/common/lib/u64map.c
$(TESTS_O)/fuzz/fuzz_opts: $(srctree)/common/lib/opts.c
$(TESTS_O)/fuzz/fuzz_gopclntab: $(srctree)/common/sym/gopclntab.c
FUZZ_LDFLAGS_opts := -Wl,--wrap=help_exit -Wl,--wrap=xmalloc
$(TESTS_O)/fuzz/fuzz_perf_script: $(srctree)/common/report/perf_script.c \
	$(srctree)/common/report/lines.c \
	$(srctree)/common/lib/u64map.c $(srctree)/common/lib/intern.c \
	$(srctree)/common/lib/pool.c
$(TESTS_O)/fuzz/fuzz_folded_read: $(srctree)/common/report/folded_read.c \
	$(srctree)/common/report/lines.c \
	$(srctree)/common/lib/u64map.c $(srctree)/common/lib/intern.c \
	$(srctree)/common/lib/pool.c

$(FUZZ_TARGETS): $(TESTS_O)/fuzz/fuzz_%: $(srctree)/tests/unit/fuzz_%.c \
		$(FUZZ_LIB) $(FUZZ_DEPS)
	$(Q)mkdir -p $(@D)
	$(call quiet,FUZZ,$@)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) \
		$(FUZZ_LDFLAGS_$*) -lelf -lz $(FUZZ_LZMA)

ifneq ($(shell command -v $(CLANG) 2>/dev/null),)
UNIT_FIXTURES += $(FUZZ_TARGETS)
endif

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS) $(FUZZ_BIN)
	$(Q)for n in $(FUZZ_NAMES) bin; do \
		mkdir -p $(TESTS_O)/fuzz/$$n && \
		seeds=$(srctree)/tests/unit/fuzz/$$n; \
		[ -d $$seeds ] || seeds=; \
		echo "== fuzz_$$n: $(FUZZ_SECONDS) s"; \
		$(TESTS_O)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) \
			-rss_limit_mb=1024 -print_final_stats=1 \
			-artifact_prefix=$(TESTS_O)/fuzz/$$n- \
			$(TESTS_O)/fuzz/$$n $$seeds 2>&1 | \
			grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY' \
			|| true; \
	done
