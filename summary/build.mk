# summary/build.mk: the Tarantool-compatible summary (ljleak summary); needs only format.
summary_SRCS := summary/summary.c

# against Tarantool's saved outputs
TEST_SUITES += test_summary
test_summary_LIBS = summary format
E2E_TESTS += tests/e2e/summary.sh
