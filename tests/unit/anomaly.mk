# tests/unit/test_cluster.c: without REPORT in the configuration the core
# lacks the clustering under test: link it in.
ifneq ($(CONFIG_REPORT),y)
$(TESTS_O)/unit/test_cluster $(SAN_O)/unit/test_cluster: $(srctree)/common/report/cluster.c
endif

# report --anomalies at scale (tests/unit/anomaly_scale.sh): a long
# recording written through the tree's bin writer, and the child's
# getrusage. Not a test_* binary: the script runs it.
ANOMALY_STREAM := $(TESTS_O)/unit/anomaly_stream
$(ANOMALY_STREAM): $(srctree)/tests/unit/anomaly_stream.c $(UNIT_OBJS) | $(TESTS_O)/unit
	$(call quiet,CC,$@)$(CC) $(CFLAGS) -I$(srctree)/tests/unit -o $@ $^ $(LDFLAGS) $(LIBS)
ifneq ($(CONFIG_FORMAT_BIN),y)
$(ANOMALY_STREAM): $(srctree)/common/stream/format_bin.c
endif
UNIT_FIXTURES += $(ANOMALY_STREAM)
