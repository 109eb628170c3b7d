/* tests/test_format_test_list.c: the test list of ljleak busted (format/test_list.c): every field written and read back, cut files, bad input at its byte. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/test_list.h"
#include "tests/check_run.h"

/* What test_list_write_* write, in memory (open_memstream), NUL-terminated. */
struct written {
  char *text;
  size_t size;
};

static FILE *begin(struct written *w)
{
  FILE *out = open_memstream(&w->text, &w->size);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(test_list_write_header(out), 0);
  return out;
}

static void end(FILE *out)
{
  ck_assert_int_eq(fclose(out), 0);
}

static void parse_ok(char *text, size_t size, struct test_list *list)
{
  struct format_error error;
  ck_assert_msg(test_list_parse(text, size, "tests", list, &error) == 0, "%s", error.message);
  ck_assert_int_eq(error.status, FORMAT_OK);
}

static void parse_fails(const char *input, const char *expected)
{
  size_t size = strlen(input);
  char *text = malloc(size + 1);
  ck_assert_ptr_nonnull(text);
  memcpy(text, input, size + 1);
  struct test_list list;
  struct format_error error;
  ck_assert_int_eq(test_list_parse(text, size, "DIR/tests", &list, &error), -1);
  ck_assert_str_eq(error.message, expected);
  ck_assert_int_eq(error.status, FORMAT_BAD_INPUT);
  ck_assert_uint_eq(list.count, 0);
  ck_assert_ptr_null(list.tests);
  free(text);
}

static void assert_text(const char *got, const char *expected)
{
  if (!expected)
    ck_assert_ptr_null(got);
  else {
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, expected);
  }
}

static void assert_same(const struct test_list_test *got, const struct test_list_test *t)
{
  ck_assert_uint_eq(got->seq, t->seq);
  assert_text(got->capture, t->capture);
  assert_text(got->file, t->file);
  ck_assert_uint_eq(got->line, t->line);
  assert_text(got->describe, t->describe);
  assert_text(got->name, t->name);
  assert_text(got->status, t->status);
  assert_text(got->message, t->message);
  ck_assert_uint_eq(got->warmup, t->warmup);
  ck_assert_uint_eq(got->runs, t->runs);
  ck_assert_uint_eq(got->failed_run, t->failed_run);
  assert_text(got->capture_error, t->capture_error);
}

START_TEST(test_every_field_reads_back_as_written_whatever_its_bytes)
{
  /* A describe path of 40 blocks, each with a tab, a backslash and a newline. */
  static char describe[4096];
  size_t used = 0;
  for (int i = 0; i < 40; i++)
    used += (size_t)snprintf(describe + used, sizeof describe - used, "%sblock\t%d \\n\\\n", i ? " " : "", i);
  struct test_list_test tests[3] = {
    {1, (char *)"0001", (char *)"spec/a b_spec.lua", 29, describe,
     (char *)"name\twith\ttabs\nand\nnewlines \\t\\ and \xff\xfe\x80 bytes \xc3\xa9",
     (char *)"failure", (char *)"spec/a_spec.lua:31: Expected objects\nto be equal.\\", 2, 4, 3, NULL},
    {2, NULL, (char *)"spec/b_spec.lua", 7, (char *)"", (char *)"pending one", (char *)"pending", NULL,
     0, 0, 0, NULL},
    {18446744073709551615ull, NULL, NULL, 0, NULL, (char *)"\\", (char *)"success", NULL,
     1000000, 18446744073709551615ull, 0, (char *)"mkdir\t0003: \\ no space\n"},
  };
  struct written w;
  FILE *out = begin(&w);
  for (size_t i = 0; i < 3; i++)
    ck_assert_int_eq(test_list_write_test(out, &tests[i]), 0);
  end(out);
  /* One line per test: the escapes leave no raw newline in a value. */
  size_t lines = 0;
  for (size_t i = 0; i < w.size; i++)
    lines += w.text[i] == '\n';
  ck_assert_uint_eq(lines, 4);
  struct test_list list;
  parse_ok(w.text, w.size, &list);
  ck_assert_uint_eq(list.count, 3);
  for (size_t i = 0; i < 3; i++)
    assert_same(&list.tests[i], &tests[i]);
  test_list_free(&list);
  ck_assert_uint_eq(list.count, 0);
  free(w.text);
}
END_TEST

START_TEST(test_the_line_is_the_documented_one)
{
  struct test_list_test t = {1, (char *)"0001", (char *)"spec/accounts_spec.lua", 29, (char *)"accounts login",
                             (char *)"remembers every login", (char *)"success", NULL, 2, 4, 0, NULL};
  struct written w;
  FILE *out = begin(&w);
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
  end(out);
  ck_assert_str_eq(w.text, "ljleak-tests\tversion=1\n"
                           "test\tseq=1\tcapture=0001\tfile=spec/accounts_spec.lua\tline=29"
                           "\tdescribe=accounts login\tname=remembers every login\tstatus=success"
                           "\twarmup=2\truns=4\n");
  free(w.text);
}
END_TEST

START_TEST(test_a_message_is_cut_at_its_limit_never_inside_a_character)
{
  /* 2047 bytes of 'a', then a 2-byte character across the limit: cut before it. */
  char message[TEST_LIST_MESSAGE_MAX + 16];
  memset(message, 'a', TEST_LIST_MESSAGE_MAX - 1);
  memcpy(message + TEST_LIST_MESSAGE_MAX - 1, "\xc3\xa9tail", 7);
  struct test_list_test t = {5, NULL, NULL, 0, NULL, (char *)"fails", (char *)"error", message, 0, 0, 0,
                             NULL};
  struct written w;
  FILE *out = begin(&w);
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
  end(out);
  struct test_list list;
  parse_ok(w.text, w.size, &list);
  ck_assert_uint_eq(strlen(list.tests[0].message), TEST_LIST_MESSAGE_MAX - 1);
  ck_assert_int_eq(memcmp(list.tests[0].message, message, TEST_LIST_MESSAGE_MAX - 1), 0);
  test_list_free(&list);
  free(w.text);

  /* An ASCII message is cut at exactly the limit. */
  memset(message, 'b', sizeof message - 1);
  message[sizeof message - 1] = '\0';
  out = begin(&w);
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
  end(out);
  parse_ok(w.text, w.size, &list);
  ck_assert_uint_eq(strlen(list.tests[0].message), TEST_LIST_MESSAGE_MAX);
  test_list_free(&list);
  free(w.text);
}
END_TEST

START_TEST(test_a_cut_file_keeps_its_complete_lines)
{
  struct test_list_test tests[3] = {
    {1, (char *)"0001", (char *)"s.lua", 1, (char *)"d", (char *)"one", (char *)"success", NULL, 2, 4, 0, NULL},
    {2, (char *)"0002", (char *)"s.lua", 2, (char *)"d", (char *)"two\tt", (char *)"success", NULL, 2, 4, 0, NULL},
    {3, (char *)"0003", (char *)"s.lua", 3, (char *)"d", (char *)"three", (char *)"failure", (char *)"m", 2, 4, 0,
     NULL},
  };
  struct written w;
  FILE *out = begin(&w);
  size_t ends[4];
  ends[0] = 23;  /* the header's newline, and after it */
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(test_list_write_test(out, &tests[i]), 0);
    fflush(out);
    ends[i + 1] = w.size;
  }
  end(out);
  /* Every prefix: the lines it holds whole, none of the cut one. */
  for (size_t size = 0; size <= w.size; size++) {
    char *copy = malloc(size + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, w.text, size);
    copy[size] = '\0';
    struct test_list list;
    parse_ok(copy, size, &list);
    size_t whole = 0;
    while (whole < 3 && ends[whole + 1] <= size)
      whole++;
    ck_assert_msg(list.count == whole, "%zu bytes: %zu tests, not %zu", size, list.count, whole);
    for (size_t i = 0; i < whole; i++)
      assert_same(&list.tests[i], &tests[i]);
    test_list_free(&list);
    free(copy);
  }
  free(w.text);
}
END_TEST

START_TEST(test_unknown_lines_and_keys_of_a_later_version_are_skipped)
{
  char text[] = "ljleak-tests\tversion=2\tmore=1\n"
                "suite\tname=x\n"
                "test\tseq=4\tname=n\tstatus=success\tcolour=blue\t\tline=3\n";
  struct test_list list;
  parse_ok(text, sizeof text - 1, &list);
  ck_assert_uint_eq(list.count, 1);
  ck_assert_uint_eq(list.tests[0].seq, 4);
  ck_assert_uint_eq(list.tests[0].line, 3);
  ck_assert_ptr_null(list.tests[0].capture);
  ck_assert_ptr_null(list.tests[0].describe);
  test_list_free(&list);
}
END_TEST

START_TEST(test_bad_input_is_refused_with_the_file_and_its_byte)
{
  parse_fails("tests\tversion=1\n", "DIR/tests: byte 0: not a test list (no ljleak-tests line first)");
  /* the header is 23 bytes, "test\t" 5 more: a first field at byte 28 */
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname\n",
              "DIR/tests: byte 34: test line: a field without '='");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=-1\tname=n\tstatus=success\n",
              "DIR/tests: byte 28: test line: seq is not a whole number");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tline=18446744073709551616\tname=n\tstatus=success\n",
              "DIR/tests: byte 34: test line: line is not a whole number");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname=a\tname=b\tstatus=success\n",
              "DIR/tests: byte 41: test line: name given twice");
  /* the escape's backslash: byte 28 + "seq=1\tname=ab" */
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname=ab\\x\tstatus=success\n",
              "DIR/tests: byte 41: test line: name has an unknown escape");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname=ab\\\tstatus=success\n",
              "DIR/tests: byte 41: test line: name has an unknown escape");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname=n\n", "DIR/tests: byte 23: test line: without status");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tstatus=success\n", "DIR/tests: byte 23: test line: without name");
  parse_fails("ljleak-tests\tversion=1\ntest\tname=n\tstatus=success\n", "DIR/tests: byte 23: test line: without seq");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tcapture=../x\tname=n\tstatus=success\n",
              "DIR/tests: byte 23: test line: capture is no name in the suite's directory");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tcapture=..\tname=n\tstatus=success\n",
              "DIR/tests: byte 23: test line: capture is no name in the suite's directory");
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tcapture=\tname=n\tstatus=success\n",
              "DIR/tests: byte 23: test line: capture is no name in the suite's directory");
  /* an error on the second test line, after a good one: nothing is kept */
  parse_fails("ljleak-tests\tversion=1\ntest\tseq=1\tname=n\tstatus=success\ntest\tseq=2\tline=x\tname=n\tstatus=success\n",
              "DIR/tests: byte 67: test line: line is not a whole number");

  /* A NUL byte anywhere. */
  char text[] = "ljleak-tests\tversion=1\ntest\tseq=1\tname=a\0b\tstatus=success\n";
  struct test_list list;
  struct format_error error;
  ck_assert_int_eq(test_list_parse(text, sizeof text - 1, "DIR/tests", &list, &error), -1);
  ck_assert_str_eq(error.message, "DIR/tests: byte 40: a NUL byte");
  ck_assert_int_eq(error.status, FORMAT_BAD_INPUT);
  ck_assert_uint_eq(error.offset, 40);
  ck_assert_uint_eq(list.count, 0);
}
END_TEST

START_TEST(test_an_empty_file_lists_no_test)
{
  char text[] = "";
  struct test_list list;
  parse_ok(text, 0, &list);
  ck_assert_uint_eq(list.count, 0);
  test_list_free(&list);
}
END_TEST

START_TEST(test_reading_a_file_names_it_in_errors)
{
  const char *tmp = getenv("TMPDIR");
  char template[600];
  snprintf(template, sizeof template, "%s/ljleak-test-list-XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
  int fd = mkstemp(template);
  ck_assert_int_ge(fd, 0);
  FILE *out = fdopen(fd, "w");
  ck_assert_ptr_nonnull(out);
  fputs("ljleak-tests\tversion=1\ntest\tseq=1\tname=n\tstatus=success\ntest\tseq=2\tname=m\tstat", out);
  fclose(out);
  struct test_list list;
  struct format_error error;
  ck_assert_int_eq(test_list_read(template, &list, &error), 0);
  ck_assert_uint_eq(list.count, 1);  /* the cut last line dropped */
  ck_assert_str_eq(list.tests[0].name, "n");
  test_list_free(&list);

  out = fopen(template, "w");
  ck_assert_ptr_nonnull(out);
  fputs("ljleak-tests\tversion=1\ntest\tseq=1\tname=n\tstatus=success\twarmup=two\n", out);
  fclose(out);
  ck_assert_int_eq(test_list_read(template, &list, &error), -1);
  char expected[700];
  snprintf(expected, sizeof expected, "%s: byte 56: test line: warmup is not a whole number", template);
  ck_assert_str_eq(error.message, expected);
  ck_assert_uint_eq(list.count, 0);
  unlink(template);

  ck_assert_int_eq(test_list_read(template, &list, &error), -1);
  ck_assert_msg(!strncmp(error.message, template, strlen(template)), "%s", error.message);
  ck_assert_int_eq(error.status, FORMAT_IO);
  ck_assert_uint_eq(list.count, 0);
}
END_TEST

static Suite *test_list_suite(void)
{
  Suite *suite = suite_create("format_test_list");
  TCase *tc = tcase_create("test_list");
  tcase_add_test(tc, test_every_field_reads_back_as_written_whatever_its_bytes);
  tcase_add_test(tc, test_the_line_is_the_documented_one);
  tcase_add_test(tc, test_a_message_is_cut_at_its_limit_never_inside_a_character);
  tcase_add_test(tc, test_a_cut_file_keeps_its_complete_lines);
  tcase_add_test(tc, test_unknown_lines_and_keys_of_a_later_version_are_skipped);
  tcase_add_test(tc, test_bad_input_is_refused_with_the_file_and_its_byte);
  tcase_add_test(tc, test_an_empty_file_lists_no_test);
  tcase_add_test(tc, test_reading_a_file_names_it_in_errors);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(void)
{
  return check_run(test_list_suite());
}
