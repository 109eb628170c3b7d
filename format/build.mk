# format/: the memprof codec.
STAGES += format
format_SRCS := format/uleb128.c format/reader.c format/writer.c format/symtab.c
# tests of format/reader.c
TEST_SUITES += test_format_reader
test_format_reader_LIBS = format
# tests of format/writer.c
TEST_SUITES += test_format_writer
test_format_writer_LIBS = format
# tests of format/symtab.c
TEST_SUITES += test_format_symtab
test_format_symtab_LIBS = format
# the reader on cut, corrupt and unusual input
TEST_SUITES += test_format_bad_input
test_format_bad_input_LIBS = format
# the same suite with the reader compiled in, with a 4 KiB window
TEST_SUITES += test_format_small_window
test_format_small_window_LIBS = format
# the batch event call against one record at a time
TEST_SUITES += test_format_batch
test_format_batch_LIBS = format
