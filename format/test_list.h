/* format/test_list.h: the test list of a suite run under ljleak busted (DIR/tests): each test, its busted outcome and its capture. */
#ifndef LJLEAK_FORMAT_TEST_LIST_H
#define LJLEAK_FORMAT_TEST_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/error.h"

/* The file's name in the suite's directory, beside the tests' captures. */
#define TEST_LIST_FILE "tests"
/* A busted message is cut to this many bytes (never inside a UTF-8 character). */
#define TEST_LIST_MESSAGE_MAX 2048

/* One `test` line (docs/busted.md, "The test list"). Text is NULL when absent. */
struct test_list_test {
  uint64_t seq;               /* 1, 2, ...: the test's place in the run */
  char *capture;              /* its capture directory's name in the suite's directory; NULL:
                                 none (a pending test, or capture_error) */
  char *file;                 /* the spec file */
  uint64_t line;              /* the line of its `it` */
  char *describe;             /* the describe blocks around it, outermost first, joined by spaces */
  char *name;                 /* the test's own name */
  char *status;               /* busted's: success, failure, error, pending */
  char *message;              /* busted's message for a failure or an error, cut */
  uint64_t warmup;            /* warm-up runs (the first is the one busted reports) */
  uint64_t runs;              /* measured runs after them */
  uint64_t failed_run;        /* the first silent run that failed where the first did not; 0: none */
  char *capture_error;        /* why the capture could not start */
};

struct test_list {
  struct test_list_test *tests;
  size_t count;
};

/* The writer: "ljleak-tests\tversion=1\n", then one line per test, values
 * escaped as the capture index escapes them (\\, \t, \n). 0, or -1 on a
 * write error. */
int test_list_write_header(FILE *out);
int test_list_write_test(FILE *out, const struct test_list_test *test);

/* Reads size bytes of text (a NUL after them; changed in place) named name
 * in messages. Unknown line kinds and keys are skipped; a cut last line is
 * dropped. Anything else wrong is an error at its byte (FORMAT_BAD_INPUT,
 * "NAME: byte N: what"). 0, or -1 with error set (FORMAT_NO_MEMORY when out
 * of memory). */
int test_list_parse(char *text, size_t size, const char *name, struct test_list *list,
                    struct format_error *error);

/* Reads the file at path whole and parses it: a file found in a capture directory, so only a
 * regular file, not a link (format/input_file.h). 0, or -1 with error set. */
int test_list_read(const char *path, struct test_list *list, struct format_error *error);

void test_list_free(struct test_list *list);

#endif
