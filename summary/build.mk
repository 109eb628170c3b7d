# summary/build.mk: the Tarantool-compatible summary (ljleak summary); needs only format.
# summary.h is its interface; summary_internal.h and the parts' headers are its own.
summary_SRCS := summary/summary.c summary/summary_read.c summary/summary_print.c \
  summary/site.c summary/name_table.c summary/primary_table.c \
  summary/heap_map.c

# against Tarantool's saved outputs
TEST_SUITES += test_summary
test_summary_LIBS = summary format container
# the heap map against a plain reference
TEST_SUITES += test_summary_heap_map
test_summary_heap_map_LIBS = summary format container
E2E_TESTS += tests/e2e/summary.sh
