# format/: the memprof codec.
STAGES += format
format_SRCS := format/uleb128.c format/reader.c
# tests of format/reader.c
TEST_SUITES += test_format_reader
test_format_reader_LIBS = format
