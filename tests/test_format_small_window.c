/* tests/test_format_small_window.c: the bad-input suite again with a 4 KiB reader window, so that refills, records split across refills and names longer than the window are exercised by small streams too. */
#define MEMPROF_READER_WINDOW 4096
#include "format/reader.c"
#include "format/reader_input.c"
#include "test_format_bad_input.c"
