# The unit tests and report again under ASan and UBSan (make check):
# the same sources, configuration and gen/ as ./stackbox, objects of
# their own in $(SAN_O). tests/run.sh runs each sanitized unit test
# after its plain one, and the tests' `sb_report` (tests/lib.sh) uses
# the sanitized binary, so every report test is a sanitizer run too.
# The BPF-loading tests keep the plain binary: ASan's shadow memory
# (terabytes of address space) and its slower paths would change what
# they measure, and libbpf itself is Debian's, not built here.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
SAN_OBJS := $(patsubst $(O)/obj/%,$(SAN_O)/obj/%,$(OBJS))
SAN_UNIT_OBJS := $(patsubst $(O)/obj/%,$(SAN_O)/obj/%,$(UNIT_OBJS))
SAN_UNIT_BINS := $(patsubst $(TESTS_O)/unit/%,$(SAN_O)/unit/%,$(UNIT_BINS))
UNIT_FIXTURES += $(SAN_O)/stackbox $(SAN_UNIT_BINS)

$(SAN_O)/obj/%.o: $(srctree)/%.c | $(GEN) $(SKELS)
	$(Q)mkdir -p $(@D)
	$(call quiet,CC-SAN,$@)$(CC) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<
$(SAN_O)/obj/common/main.o: $(O)/gen/version.h
$(SAN_O)/obj/gen/%.o: $(O)/obj/gen/%.o
	$(Q)mkdir -p $(@D) && cp $< $@
$(SAN_O)/stackbox: $(SAN_OBJS)
	$(call quiet,LD-SAN,$@)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)
# (the .mk files give a test the sources a configuration's core lacks
# for both builds: $(TESTS_O)/unit/test_X $(SAN_O)/unit/test_X: FILE.c)
$(SAN_O)/unit/%: $(srctree)/tests/unit/%.c
	$(Q)mkdir -p $(@D)
	$(call quiet,CC-SAN,$@)$(CC) $(CFLAGS) $(SAN_FLAGS) -I$(srctree)/tests/unit -I$(srctree)/applets \
		-o $@ $^ $(LDFLAGS) $(LIBS)
-include $(SAN_OBJS:.o=.d)
