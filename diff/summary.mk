# diff/summary.mk: the Tarantool-compatible summary (ljleak summary); needs only format.
STAGES += summary
summary_SRCS := diff/summary.c
# tests of diff/summary.c against Tarantool's saved outputs
TEST_SUITES += test_summary
test_summary_LIBS = summary format
E2E_TESTS += tests/e2e/summary.sh
