/* tests/test_format_error.c: the one error type (format/error.h): its messages, their cut at the buffer's end, and its statuses. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/error.h"

START_TEST(test_bad_input_names_the_file_and_its_byte)
{
  struct format_error e;
  format_error_clear(&e);
  e.system_error = EIO;  /* left as it was */
  enum format_status got = format_error_at(&e, FORMAT_UNSUPPORTED, "cap/snap-0003.heap", 4,
                                           "heap snapshot version %u; this ljleak reads version %d", 9u, 1);
  ck_assert_int_eq(got, FORMAT_UNSUPPORTED);
  ck_assert_int_eq(e.status, got);
  ck_assert_int_eq(e.system_error, EIO);
  ck_assert_uint_eq(e.offset, 4);
  ck_assert_str_eq(e.message, "cap/snap-0003.heap: byte 4: heap snapshot version 9; this ljleak reads version 1");
  /* An offset past 4 GiB is printed whole. */
  format_error_at(&e, FORMAT_BAD_INPUT, "seg-0001.memprof", UINT64_C(5000000000), "%s", "bad event");
  ck_assert_str_eq(e.message, "seg-0001.memprof: byte 5000000000: bad event");
}
END_TEST

START_TEST(test_set_keeps_the_offset_and_the_errno)
{
  struct format_error e;
  format_error_clear(&e);
  e.offset = 99;
  e.system_error = ENOENT;
  ck_assert_int_eq(format_error_set(&e, FORMAT_IO, "%s: cannot open: %s", "seg-0001.memprof", "gone"), FORMAT_IO);
  ck_assert_str_eq(e.message, "seg-0001.memprof: cannot open: gone");
  ck_assert_uint_eq(e.offset, 99);
  ck_assert_int_eq(e.system_error, ENOENT);
  format_error_clear(&e);
  ck_assert_int_eq(e.status, FORMAT_OK);
  ck_assert_uint_eq(e.offset, 0);
  ck_assert_int_eq(e.system_error, 0);
  ck_assert_str_eq(e.message, "");
}
END_TEST

/* A caller adds to what a reader said: the message may be an argument of its own setting. */
START_TEST(test_a_message_may_be_built_from_itself)
{
  struct format_error e;
  format_error_clear(&e);
  format_error_set(&e, FORMAT_BAD_INPUT, "event %d is past the end", 12);
  format_error_at(&e, FORMAT_BAD_INPUT, "cap/index", 40, "boundary line: %s", e.message);
  ck_assert_str_eq(e.message, "cap/index: byte 40: boundary line: event 12 is past the end");
  format_error_set(&e, FORMAT_CUT, "%s; no holders from it", e.message);
  ck_assert_str_eq(e.message, "cap/index: byte 40: boundary line: event 12 is past the end; no holders from it");
  ck_assert_int_eq(e.status, FORMAT_CUT);
}
END_TEST

/* A text longer than the buffer is cut at its last byte, NUL-terminated, and nothing past it
 * is written (the bytes after the struct's message are a guard ASan and the test both watch). */
START_TEST(test_a_long_message_is_cut_at_the_buffer_end)
{
  struct {
    struct format_error e;
    char guard[64];
  } box;
  memset(box.guard, 'G', sizeof box.guard);
  char long_text[3 * FORMAT_ERROR_MESSAGE_SIZE];
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  format_error_set(&box.e, FORMAT_BAD_INPUT, "%s", long_text);
  ck_assert_uint_eq(strlen(box.e.message), FORMAT_ERROR_MESSAGE_SIZE - 1);
  ck_assert_int_eq(box.e.message[FORMAT_ERROR_MESSAGE_SIZE - 2], 'x');

  /* A name longer than the buffer: its prefix is cut and the text is left out. */
  format_error_at(&box.e, FORMAT_BAD_INPUT, long_text, 7, "what is wrong");
  ck_assert_uint_eq(strlen(box.e.message), FORMAT_ERROR_MESSAGE_SIZE - 1);
  ck_assert_ptr_null(strstr(box.e.message, "what"));
  ck_assert_uint_eq(box.e.offset, 7);

  /* A name that leaves room for part of the text: the text is cut, not the prefix. */
  long_text[FORMAT_ERROR_MESSAGE_SIZE - 30] = '\0';
  format_error_at(&box.e, FORMAT_BAD_INPUT, long_text, 5, "a text that goes on past the end");
  ck_assert_uint_eq(strlen(box.e.message), FORMAT_ERROR_MESSAGE_SIZE - 1);
  ck_assert_ptr_nonnull(strstr(box.e.message, ": byte 5: a text that "));
  for (size_t i = 0; i < sizeof box.guard; i++)
    ck_assert_int_eq(box.guard[i], 'G');
}
END_TEST

START_TEST(test_input_statuses_are_the_inputs_fault)
{
  ck_assert_int_eq(format_status_is_input(FORMAT_CUT), 1);
  ck_assert_int_eq(format_status_is_input(FORMAT_BAD_INPUT), 1);
  ck_assert_int_eq(format_status_is_input(FORMAT_UNSUPPORTED), 1);
  ck_assert_int_eq(format_status_is_input(FORMAT_IO), 1);
  ck_assert_int_eq(format_status_is_input(FORMAT_OK), 0);
  ck_assert_int_eq(format_status_is_input(FORMAT_END), 0);
  ck_assert_int_eq(format_status_is_input(FORMAT_NO_MEMORY), 0);
  ck_assert_int_eq(format_status_is_input(FORMAT_UNWRITABLE), 0);
  ck_assert_int_eq(format_status_is_input(FORMAT_USAGE), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_error");
  TCase *tc = tcase_create("error");
  tcase_add_test(tc, test_bad_input_names_the_file_and_its_byte);
  tcase_add_test(tc, test_set_keeps_the_offset_and_the_errno);
  tcase_add_test(tc, test_a_message_may_be_built_from_itself);
  tcase_add_test(tc, test_a_long_message_is_cut_at_the_buffer_end);
  tcase_add_test(tc, test_input_statuses_are_the_inputs_fault);
  suite_add_tcase(s, tc);
  return check_run(s);
}
