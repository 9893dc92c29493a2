# stackcount's --filter compiler and format-file reader
# (tests/unit/test_stackcount_filter.c): an applet's helper, built in.
$(TESTS_O)/unit/test_stackcount_filter $(SAN_O)/unit/test_stackcount_filter: \
	$(srctree)/applets/stackcount/stackcount_filter.c
