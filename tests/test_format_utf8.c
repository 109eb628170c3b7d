/* tests/test_format_utf8.c: text for a terminal: every control, bidi control, line separator and byte that is not UTF-8 escaped, everything printable kept; text as a name: the same cleaned without escapes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/utf8.h"
#include "tests/check_run.h"

/* text (length bytes) as utf8_put_terminal writes it, in a malloc'd string. */
static char *put(const char *text, size_t length, enum utf8_terminal_style style)
{
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  ck_assert_ptr_nonnull(f);
  utf8_put_terminal(f, text, length, style);
  ck_assert_int_eq(fclose(f), 0);
  return out;
}

/* Each way of writing text escapes it the same: the stream, the buffer and
 * one character at a time; and escaping the result again changes nothing. */
static void expect(const char *text, const char *expected)
{
  char *streamed = put(text, strlen(text), UTF8_TERMINAL_TEXT);
  ck_assert_msg(!strcmp(streamed, expected), "'%s': got '%s', expected '%s'", text, streamed,
                expected);
  char buffer[UTF8_TERMINAL_SIZE(64)];
  ck_assert_uint_le(strlen(text), 64);
  ck_assert_ptr_eq(utf8_terminal_text(buffer, sizeof buffer, text), buffer);
  ck_assert_str_eq(buffer, expected);
  char *again = put(streamed, strlen(streamed), UTF8_TERMINAL_TEXT);
  ck_assert_str_eq(again, streamed);
  free(again);
  free(streamed);
}

START_TEST(test_c0_controls_and_del_are_escaped_as_bytes)
{
  expect("\x1b[2J", "\\x1b[2J");
  expect("a\x01" "b", "a\\x01b");
  expect("\x1f", "\\x1f");
  expect("tab\there", "tab\\x09here");
  expect("new\nline\r", "new\\x0aline\\x0d");
  expect("bell\x07", "bell\\x07");
  expect("del\x7f", "del\\x7f");
  expect(" !~", " !~");  /* the printable edges of ASCII */
}
END_TEST

START_TEST(test_c1_controls_are_escaped_as_code_points)
{
  expect("\xc2\x9b" "31m", "\\u009b31m");  /* CSI */
  expect("\xc2\x80", "\\u0080");
  expect("\xc2\x85", "\\u0085");            /* NEL */
  expect("\xc2\x9f", "\\u009f");
  expect("\xc2\xa0", "\xc2\xa0");           /* NO-BREAK SPACE: printable */
}
END_TEST

START_TEST(test_bytes_that_are_not_utf8_are_escaped_one_by_one)
{
  expect("\x9b" "2J", "\\x9b2J");                      /* a raw CSI: a stray continuation byte */
  expect("\x80\xbf", "\\x80\\xbf");
  expect("cut \xe2\x80", "cut \\xe2\\x80");             /* a sequence cut at the end */
  expect("cut \xe2\x80" "x", "cut \\xe2\\x80x");        /* ... or by an ASCII byte */
  expect("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
  expect("\xc0\xaf", "\\xc0\\xaf");                     /* overlong '/' */
  expect("\xe0\x80\xaf", "\\xe0\\x80\\xaf");            /* overlong '/', three bytes */
  expect("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");   /* overlong '/', four bytes */
  expect("\xc1\xbf", "\\xc1\\xbf");
  expect("\xed\xa0\x80", "\\xed\\xa0\\x80");            /* a UTF-16 surrogate */
  expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");   /* past U+10FFFF */
  expect("\xf5\xff\xfe", "\\xf5\\xff\\xfe");
  expect("\xe2\x80\xe2\x80\xae", "\\xe2\\x80\\u202e");  /* a cut sequence, then a whole one */
  expect("\xef\xbf\xbd", "\xef\xbf\xbd");               /* U+FFFD itself is printable */
}
END_TEST

START_TEST(test_bidi_controls_and_line_separators_are_escaped)
{
  expect("\xd8\x9c", "\\u061c");                        /* ARABIC LETTER MARK */
  expect("\xe2\x80\x8e", "\\u200e");                    /* LRM */
  expect("\xe2\x80\x8f", "\\u200f");                    /* RLM */
  expect("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
         "\\u202a\\u202b\\u202c\\u202d\\u202e");        /* LRE RLE PDF LRO RLO */
  expect("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
         "\\u2066\\u2067\\u2068\\u2069");               /* LRI RLI FSI PDI */
  expect("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", "a\\u2028b\\u2029c");
  expect("@evil\xe2\x80\xae" "aul.lua:1", "@evil\\u202eaul.lua:1");
  /* Their neighbours are printable. */
  expect("\xe2\x80\x8d\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xd8\x9b",
         "\xe2\x80\x8d\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xd8\x9b");
  for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
    int listed = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
                 cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
    ck_assert_msg(utf8_terminal_unsafe(cp) == listed, "U+%04x", (unsigned)cp);
  }
}
END_TEST

START_TEST(test_printable_text_is_kept)
{
  expect("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
  expect("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9");
  expect("C:\\lua\\x41.lua", "C:\\lua\\x41.lua");  /* a backslash is kept in TEXT */
  expect("", "");
  char buffer[8] = "x";
  ck_assert_str_eq(utf8_terminal_text(buffer, sizeof buffer, NULL), "");
}
END_TEST

/* One byte of NUL is escaped too when the length says it is there. */
START_TEST(test_a_nul_within_the_length_is_escaped)
{
  char *out = put("a\0b", 3, UTF8_TERMINAL_TEXT);
  ck_assert_str_eq(out, "a\\x00b");
  free(out);
}
END_TEST

START_TEST(test_field_style_adds_the_index_escapes)
{
  const char text[] = "a\\b\tc\nd\x1b\xe2\x80\xae\x9b\xc3\xa9";
  char *out = put(text, sizeof text - 1, UTF8_TERMINAL_FIELD);
  ck_assert_str_eq(out, "a\\\\b\\tc\\nd\\x1b\\u202e\\x9b\xc3\xa9");
  free(out);
}
END_TEST

/* A buffer too small is cut before the first escape or character that does
 * not fit, never inside one, and always terminated. */
START_TEST(test_a_short_buffer_is_cut_between_whole_escapes)
{
  const char *text = "ab\xe2\x80\xae\xe4\xb8\xad";
  const char *const expected[] = {"", "a", "ab", "ab", "ab", "ab", "ab", "ab", "ab\\u202e",
                                  "ab\\u202e", "ab\\u202e", "ab\\u202e\xe4\xb8\xad"};
  for (size_t size = 1; size <= sizeof expected / sizeof expected[0]; size++) {
    char buffer[16];
    memset(buffer, 'z', sizeof buffer);
    utf8_terminal_text(buffer, size, text);
    ck_assert_msg(!strcmp(buffer, expected[size - 1]), "size %zu: '%s'", size, buffer);
  }
  char untouched = 'z';
  ck_assert_ptr_eq(utf8_terminal_text(&untouched, 0, text), &untouched);
  ck_assert_int_eq(untouched, 'z');
  /* UTF8_TERMINAL_SIZE is room enough for the worst case: every byte a raw one. */
  char worst[UTF8_TERMINAL_SIZE(4)];
  ck_assert_str_eq(utf8_terminal_text(worst, sizeof worst, "\xff\x9b\x80\x01"),
                   "\\xff\\x9b\\x80\\x01");
}
END_TEST

START_TEST(test_one_character_at_a_time)
{
  char out[UTF8_TERMINAL_CHAR_MAX];
  size_t used = 0;
  ck_assert_uint_eq(utf8_terminal_char(out, "\xe2\x80\xae" "x", 4, UTF8_TERMINAL_TEXT, &used), 6);
  ck_assert_uint_eq(used, 3);
  ck_assert(!memcmp(out, "\\u202e", 6));
  ck_assert_uint_eq(utf8_terminal_char(out, "\xe4\xb8\xad", 3, UTF8_TERMINAL_TEXT, &used), 3);
  ck_assert_uint_eq(used, 3);
  ck_assert(!memcmp(out, "\xe4\xb8\xad", 3));
  /* A sequence longer than the length given is cut: its first byte alone. */
  ck_assert_uint_eq(utf8_terminal_char(out, "\xe4\xb8\xad", 2, UTF8_TERMINAL_TEXT, &used), 4);
  ck_assert_uint_eq(used, 1);
  ck_assert(!memcmp(out, "\\xe4", 4));
}
END_TEST

/* As a name: bytes that are not UTF-8 become U+FFFD, controls, bidi controls
 * and the separator '_'; cut between characters; cleaning twice changes nothing. */
START_TEST(test_a_name_is_valid_utf8_without_controls_or_its_separator)
{
  const char text[] = "@a;b\x1b\xff\xc2\x9b\xe2\x80\xae\0\xe4\xb8\xad";
  const char *clean = "@a_b_\xef\xbf\xbd___\xe4\xb8\xad";
  char buffer[32], again[32];
  ck_assert_uint_eq(utf8_name_text(buffer, sizeof buffer, text, sizeof text - 1, ';'), 14);
  ck_assert_str_eq(buffer, clean);
  ck_assert_uint_eq(utf8_name_text(again, sizeof again, buffer, strlen(buffer), ';'), 14);
  ck_assert_str_eq(again, clean);
  ck_assert_uint_eq(utf8_name_text(NULL, 0, text, sizeof text - 1, ';'), 14);
  /* Without a separator ';' is kept; a short buffer is cut before the U+FFFD, then the 中. */
  utf8_name_text(buffer, sizeof buffer, "a;b", 3, 0);
  ck_assert_str_eq(buffer, "a;b");
  ck_assert_uint_eq(utf8_name_text(buffer, 4, "ab\xff", 3, 0), 5);
  ck_assert_str_eq(buffer, "ab");
  ck_assert_uint_eq(utf8_name_text(buffer, 5, "ab\xe4\xb8\xad" "c", 6, 0), 6);
  ck_assert_str_eq(buffer, "ab");
  size_t used;
  ck_assert_uint_eq(utf8_name_char(buffer, "\xc3\xa9", 2, ';', &used), 2);
  ck_assert_uint_eq(used, 2);
  ck_assert(!memcmp(buffer, "\xc3\xa9", 2));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_utf8");
  TCase *tc = tcase_create("terminal");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_c0_controls_and_del_are_escaped_as_bytes);
  tcase_add_test(tc, test_c1_controls_are_escaped_as_code_points);
  tcase_add_test(tc, test_bytes_that_are_not_utf8_are_escaped_one_by_one);
  tcase_add_test(tc, test_bidi_controls_and_line_separators_are_escaped);
  tcase_add_test(tc, test_printable_text_is_kept);
  tcase_add_test(tc, test_a_nul_within_the_length_is_escaped);
  tcase_add_test(tc, test_field_style_adds_the_index_escapes);
  tcase_add_test(tc, test_a_short_buffer_is_cut_between_whole_escapes);
  tcase_add_test(tc, test_one_character_at_a_time);
  tcase_add_test(tc, test_a_name_is_valid_utf8_without_controls_or_its_separator);
  suite_add_tcase(s, tc);
  return check_run(s);
}
