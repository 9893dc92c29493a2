# Fixtures of tests/unit/test_syms.c: ELF files whose functions are known
# by name and address (sym-facts.txt, written by nm and readelf at build
# time), in the forms symbolisation meets on a device: non-PIE, PIE,
# shared library, stripped with a debug file found by .gnu_debuglink or by
# build-id, stripped to .dynsym, truncated, and not ELF at all.

SYMS_F := $(TESTS_O)/fixtures
SYMS_SRC := $(srctree)/tests/unit/fixtures
SYMS_NM ?= $(CROSS_COMPILE)nm
SYMS_READELF ?= $(CROSS_COMPILE)readelf
SYMS_OBJCOPY ?= $(CROSS_COMPILE)objcopy
# -g for the debug files; no inlining, so every named function exists.
SYMS_CFLAGS := -O1 -g -fno-inline -Wl,--build-id $(WARN)
SYMS_LINK := -L$(SYMS_F) -lsymfix -Wl,-rpath,'$$ORIGIN'

UNIT_FIXTURES += $(addprefix $(SYMS_F)/,libsymfix.so sym-pie sym-nopie \
	sym-facts.txt sym-debug.stamp sym-trunc-head sym-trunc-half sym-garbage)

$(SYMS_F)/libsymfix.so: $(SYMS_SRC)/symfix_lib.c \
		$(SYMS_SRC)/symfix_lib.map
	$(Q)mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(SYMS_CFLAGS) -shared -fPIC -o $@ $< \
		-Wl,--version-script=$(SYMS_SRC)/symfix_lib.map

$(SYMS_F)/sym-pie: $(SYMS_SRC)/symfix.c $(SYMS_F)/libsymfix.so
	$(call quiet,CC,$@)$(CC) $(SYMS_CFLAGS) -fPIE -pie -o $@ $< $(SYMS_LINK)

# Its functions exported (.dynsym), then stripped: .dynsym is all it has,
# unsized fixture_asm included (test_syms: names only what sizes cover).
UNIT_FIXTURES += $(SYMS_F)/sym-dynsym
$(SYMS_F)/sym-dynsym: $(SYMS_SRC)/symfix.c $(SYMS_F)/libsymfix.so
	$(call quiet,CC,$@)$(CC) $(SYMS_CFLAGS) -fPIE -pie -rdynamic -o $@.full \
		$< $(SYMS_LINK) && $(STRIP) -s -o $@ $@.full && rm -f $@.full

$(SYMS_F)/sym-nopie: $(SYMS_SRC)/symfix.c $(SYMS_F)/libsymfix.so
	$(call quiet,CC,$@)$(CC) $(SYMS_CFLAGS) -fno-pie -no-pie -o $@ $< \
		$(SYMS_LINK)

# "sym FILE NAME ADDRESS SIZE" for each fixture_* function (size 0 when
# nm prints none; NAME without its @VERSION), "buildid FILE HEX" for each
# file.
$(SYMS_F)/sym-facts.txt: $(SYMS_F)/sym-nopie $(SYMS_F)/sym-pie \
		$(SYMS_F)/libsymfix.so
	$(call quiet,GEN,$@)set -e; for f in $^; do \
		b=$$(basename $$f); \
		$(SYMS_NM) -S --defined-only $$f | awk -v f=$$b \
			'$$NF ~ /^fixture_/ { n = $$NF; sub(/@.*/, "", n); \
			  print "sym", f, n, $$1, (NF == 4 ? $$2 : 0) }'; \
		$(SYMS_READELF) -n $$f | \
			sed -n "s/^[[:space:]]*Build ID: */buildid $$b /p"; \
	done > $@.tmp && mv $@.tmp $@

$(SYMS_F)/sym-debug.stamp: $(SYMS_SRC)/symfix-debug.sh $(SYMS_F)/sym-pie \
		$(SYMS_F)/libsymfix.so $(srctree)/tests/workloads/image/package.sh
	$(call quiet,GEN,$@)OBJCOPY=$(SYMS_OBJCOPY) STRIP=$(STRIP) \
		PACKAGE=$(srctree)/tests/workloads/image/package.sh \
		READELF=$(SYMS_READELF) sh $< $(SYMS_F) && touch $@

# Cut short: inside the headers, and in the middle.
$(SYMS_F)/sym-trunc-head: $(SYMS_F)/sym-pie
	$(call quiet,GEN,$@)head -c 1000 $< > $@
$(SYMS_F)/sym-trunc-half: $(SYMS_F)/sym-pie
	$(call quiet,GEN,$@)head -c $$(($$(wc -c < $<) / 2)) $< > $@
$(SYMS_F)/sym-garbage:
	$(Q)mkdir -p $(@D)
	$(call quiet,GEN,$@)yes 'not an ELF file' | head -c 8192 > $@

# Without CONFIG_SYMBOLIZE the core does not hold the code under test:
# link it into the test itself, so the test still runs.
ifneq ($(CONFIG_SYMBOLIZE),y)
$(TESTS_O)/unit/test_syms $(SAN_O)/unit/test_syms: \
	$(addprefix $(srctree)/common/sym/,ksyms.c elfsyms.c elfread.c \
	gopclntab.c procsyms.c debugfile.c gosyms.c)
endif
