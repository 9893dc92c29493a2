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

$(TESTS_O)/unit/%: $(srctree)/tests/unit/%.c $(UNIT_OBJS) | $(TESTS_O)/unit
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -I$(srctree)/tests/unit -o $@ $^ $(LDFLAGS) $(LIBS)

# Workloads keep frame pointers so their named functions are ground truth.
$(TESTS_O)/workloads/%: $(srctree)/tests/workloads/%.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread $(WARN) -o $@ $<

$(TESTS_O)/workloads/libcall-nofp: $(srctree)/tests/workloads/libcall.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) $(NOFP_CFLAGS) $(WARN) -o $@ $<

$(TESTS_O)/workloads/chain: $(srctree)/tests/workloads/chain.c | $(TESTS_O)/workloads
	$(call quiet,CC,$@)$(CC) $(IMAGE_CFLAGS) $(WARN) -o $@ $<

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

check: check-build board-run
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
