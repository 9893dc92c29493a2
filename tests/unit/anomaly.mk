# tests/unit/test_cluster.c: without REPORT in the configuration the core
# lacks the clustering under test: link it in.
ifneq ($(CONFIG_REPORT),y)
$(TESTS_O)/unit/test_cluster $(SAN_O)/unit/test_cluster: $(srctree)/common/report/cluster.c
endif
