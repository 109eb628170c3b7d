# tests/: Check suites and end-to-end scripts of the whole project.
TEST_SUITES += test_uleb128
test_uleb128_LIBS = format
