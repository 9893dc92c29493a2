# make check: unit tests (no root), integration tests (root, real BPF) and
# board tests (qemu). Every check prints PASS/FAIL/SKIP; tests/run.sh
# counts them and ends with "N passed, N failed, N skipped".

TESTS_O := $(O)/obj/tests
UNIT_SRCS := $(wildcard $(srctree)/tests/unit/test_*.c)
UNIT_BINS := $(patsubst $(srctree)/tests/unit/%.c,$(TESTS_O)/unit/%,$(UNIT_SRCS))
# Every core object but main, so tests link what the applets link.
UNIT_OBJS := $(filter-out $(O)/obj/common/main.o $(O)/obj/applets/%,$(OBJS))
WORKLOAD_SRCS := $(wildcard $(srctree)/tests/workloads/*.c)
WORKLOADS := $(patsubst $(srctree)/tests/workloads/%.c,$(TESTS_O)/workloads/%,$(WORKLOAD_SRCS))
# libcall again as -O2 code usually is: no frame pointers (user stacks)
WORKLOADS += $(TESTS_O)/workloads/libcall-nofp
# preloaded into stackbox: the wall clock set mid-run (faults.sh)
WORKLOADS += $(TESTS_O)/workloads/clockshift.so
# a frame-pointer program whose -O2 library the loader maps after exec,
# and an audit library that makes the loader wait before it does
WORKLOADS += $(TESTS_O)/workloads/napfp $(TESTS_O)/workloads/slowload.so
NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -fno-inline -pthread
# chain is built as images build: -O2, no frame pointers (said, not left
# to the compiler's defaults, which some distributions changed), inlining
# left to the compiler (chain.c's functions say noinline), unstripped.
IMAGE_CFLAGS := -O2 -fomit-frame-pointer -pthread
# Fixtures the unit tests need (ELF files to symbolise, ...).
UNIT_FIXTURES :=
# The sanitized build of the unit tests and report (unit/sanitize.mk).
SAN_O := $(TESTS_O)/san
-include $(srctree)/tests/unit/*.mk

# A unit test links the objects of its layer and of those below it,
# named in its first lines ("// layer: sym"): a test of a lower layer
# cannot lean on a higher one.
layers_upto = $(if $(filter $(1),$(firstword $(2))),$(1),$(if $(2),$(firstword $(2)) $(call layers_upto,$(1),$(wordlist 2,99,$(2)))))
unit_layer = $(shell sed -n '1,3s|^// layer: ||p' $(srctree)/tests/unit/$(1).c)
# $(call unit_objs,TEST,OBJDIR,OBJS)
unit_objs = $(filter $(patsubst %,$(2)/obj/common/%/%,$(call layers_upto,$(call unit_layer,$(1)),$(LAYERS))) \
	$(if $(filter report,$(call unit_layer,$(1))),%/gen/html_assets.o),$(3))
$(foreach t,$(notdir $(UNIT_BINS)),$(eval $(TESTS_O)/unit/$(t): $(call unit_objs,$(t),$(O),$(UNIT_OBJS))) \
	$(eval $(SAN_O)/unit/$(t): $(call unit_objs,$(t),$(SAN_O),$(SAN_UNIT_OBJS))))

$(TESTS_O)/unit/%: $(srctree)/tests/unit/%.c | $(TESTS_O)/unit
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -I$(srctree)/tests/unit -I$(srctree)/applets -o $@ $^ $(LDFLAGS) $(LIBS)

# Workloads keep frame pointers so their named functions are ground truth.
$(TESTS_O)/workloads/%: $(srctree)/tests/workloads/%.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread $(WARN) -o $@ $<

$(TESTS_O)/workloads/libcall-nofp: $(srctree)/tests/workloads/libcall.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) $(NOFP_CFLAGS) $(WARN) -o $@ $<

$(TESTS_O)/workloads/chain: $(srctree)/tests/workloads/chain.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) $(IMAGE_CFLAGS) $(WARN) -o $@ $<

$(TESTS_O)/workloads/clockshift.so: $(srctree)/tests/workloads/lib/clockshift.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) -O2 -shared -fPIC $(WARN) -o $@ $< -ldl

$(TESTS_O)/workloads/libnap.so: $(srctree)/tests/workloads/lib/nap.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) $(NOFP_CFLAGS) -shared -fPIC $(WARN) -o $@ $<

$(TESTS_O)/workloads/slowload.so: $(srctree)/tests/workloads/lib/slowload.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) -O2 -fno-omit-frame-pointer -shared -fPIC -nostdlib $(WARN) -o $@ $<

$(TESTS_O)/workloads/napfp: $(srctree)/tests/workloads/lib/napfp.c $(TESTS_O)/workloads/libnap.so
	$(call quiet,CC,$@)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline $(WARN) -o $@ $< \
		-L$(TESTS_O)/workloads -lnap -Wl,-rpath,'$$ORIGIN'

$(TESTS_O)/unit $(TESTS_O)/workloads:
	$(Q)mkdir -p $@

.PHONY: check-build check-unit check-integration check-board board-run check-stress
check-build: $(O)/stackbox $(UNIT_BINS) $(UNIT_FIXTURES) $(WORKLOADS)

# Board tests check what board-run left in out/board: it boots every
# board once (tests/boards.sh; BOARDS, BOARD_JOBS), before the checkers.
# A board that does not boot is a FAIL of its checkers, not of make.
board-run: board-prereqs $(O)/obj/bpf/btf-needs.o
	$(Q)OUT=$(srctree)/out BTF_NEEDS=$(abspath $(O)/obj/bpf/btf-needs.o) \
		$(srctree)/tests/boards.sh || true

# The builds first, as many at a time as there are cores, though the
# README's `make check` gives no -j: one at a time they took 7 of the
# clone's 44 minutes (the musl builds of both arches among them).
check:
	+$(Q)$(MAKE) -j$(shell nproc) check-build board-prereqs $(O)/obj/bpf/btf-needs.o
	+$(Q)$(MAKE) board-run
	$(Q)STACKBOX=$(abspath $(O)/stackbox) TESTS_O=$(abspath $(TESTS_O)) \
		OUT=$(srctree)/out $(srctree)/tests/run.sh

check-unit check-integration: check-build
	$(Q)STACKBOX=$(abspath $(O)/stackbox) TESTS_O=$(abspath $(TESTS_O)) \
		OUT=$(srctree)/out $(srctree)/tests/run.sh $(@:check-%=%)
check-board: board-run
	$(Q)STACKBOX=$(abspath $(O)/stackbox) TESTS_O=$(abspath $(TESTS_O)) \
		OUT=$(srctree)/out $(srctree)/tests/run.sh board

# The timing-sensitive integration tests ROUNDS times (20) under
# stress-ng --cpu 2, and each check's failures (tests/stress.sh).
check-stress: check-build
	$(Q)STACKBOX=$(abspath $(O)/stackbox) TESTS_O=$(abspath $(TESTS_O)) \
		OUT=$(srctree)/out $(srctree)/tests/stress.sh $(STRESS_TESTS)
