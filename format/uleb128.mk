# tests of format/uleb128.c
TEST_SUITES += test_uleb128
test_uleb128_LIBS = format
