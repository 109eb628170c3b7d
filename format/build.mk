# format/: the memprof codec.
STAGES += format
format_SRCS := format/uleb128.c format/reader.c format/writer.c
# tests of format/reader.c
TEST_SUITES += test_format_reader
test_format_reader_LIBS = format
# tests of format/writer.c
TEST_SUITES += test_format_writer
test_format_writer_LIBS = format
