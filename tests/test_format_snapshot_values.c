/* tests/test_format_snapshot_values.c: the values sidecar's writer and reader: the documented bytes, round trips of every string length mod 4, every cut, bad input with file and byte offset. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/snapshot_values.h"
#include "tests/bytes.h"
#include "tests/check_run.h"

static const struct snapshot_values_capture who = {4242, 1763745600125, 7, SNAPSHOT_VALUES_DEFAULT_SHOWN,
                                                   SNAPSHOT_VALUES_DEFAULT_KEYS};

/* The sample file: two strings (one longer than the cap), a table with five kinds of keys, the
 * end. The table's keys: "user:1", 42.5, true, a table, false. */
static struct bytes write_sample(int end)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t *buffer = malloc(2 * SNAPSHOT_VALUES_RECORD_MAX);
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, 2 * SNAPSHOT_VALUES_RECORD_MAX, bytes_sink, &out);
  ck_assert_int_eq(snapshot_values_writer_begin(&w, &who), 0);
  ck_assert_int_eq(snapshot_values_writer_string(&w, 0x2000, "secret", 6), 0);
  char long_text[100];
  for (int i = 0; i < 100; i++)
    long_text[i] = (char)('a' + i % 26);
  ck_assert_int_eq(snapshot_values_writer_string(&w, 0x1000, long_text, 100), 0);
  struct snapshot_values_key keys[5] = {
    {.kind = SNAPSHOT_VALUES_KEY_STRING, .text = "user:1", .length = 6},
    {.kind = SNAPSHOT_VALUES_KEY_NUMBER, .number = 42.5},
    {.kind = SNAPSHOT_VALUES_KEY_TRUE},
    {.kind = SNAPSHOT_VALUES_KEY_OBJECT, .type = 2},
    {.kind = SNAPSHOT_VALUES_KEY_FALSE},
  };
  ck_assert_int_eq(snapshot_values_writer_table(&w, 0x3000, 1000, keys, 5), 0);
  if (end)
    ck_assert_int_eq(snapshot_values_writer_end(&w), 0);
  else
    ck_assert_int_eq(bytes_sink(&out, w.out.buffer, w.out.used), 0);  /* what a killed writer left */
  free(buffer);
  return out;
}

START_TEST(test_writer_bytes_are_the_documented_format)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[SNAPSHOT_VALUES_RECORD_MAX];
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  struct snapshot_values_capture small = {5, 300, 2, 3, 1};
  ck_assert_int_eq(snapshot_values_writer_begin(&w, &small), 0);
  ck_assert_int_eq(snapshot_values_writer_string(&w, 0x10, "abcd", 4), 0);
  struct snapshot_values_key keys[2] = {{.kind = SNAPSHOT_VALUES_KEY_STRING, .text = "k", .length = 1},
                                        {.kind = SNAPSHOT_VALUES_KEY_TRUE}};
  ck_assert_int_eq(snapshot_values_writer_table(&w, 0x20, 2, keys, 2), 0);  /* one key kept */
  ck_assert_int_eq(snapshot_values_writer_end(&w), 0);
  const uint8_t expected[] = {
    'l', 'j', 'h', 'v', 1, 0, 0, 0,
    1, 5, 0xac, 0x02, 2, 3, 1,          /* CAPTURE: pid, start 300, boundary, shown, keys */
    2, 0x10, 4, 3, 'a', 'b', 'c',       /* STRING: address, length, shown, bytes */
    3, 0x20, 2, 1, 1, 1, 1, 'k',        /* TABLE: address, entries, keys: STRING length, shown */
    4, 1, 1,                            /* END: strings, tables */
  };
  ck_assert_uint_eq(out.size, sizeof expected);
  ck_assert_mem_eq(out.data, expected, sizeof expected);
  free(out.data);
}
END_TEST

START_TEST(test_round_trip_records)
{
  struct bytes out = write_sample(1);
  struct snapshot_values v;
  struct format_error e;
  ck_assert_int_eq(snapshot_values_read_memory(&v, out.data, out.size, "snap-0007.values", &e), FORMAT_OK);
  ck_assert_int_eq(v.complete, 1);
  ck_assert_uint_eq(v.capture.pid, 4242);
  ck_assert_uint_eq(v.capture.start_ms, 1763745600125);
  ck_assert_uint_eq(v.capture.boundary, 7);
  ck_assert_uint_eq(v.capture.shown, 48);
  ck_assert_uint_eq(v.capture.keys, 8);
  ck_assert_uint_eq(v.string_count, 2);
  ck_assert_uint_eq(v.strings[0].address, 0x1000);  /* sorted by address */
  ck_assert_uint_eq(v.strings[0].length, 100);
  ck_assert_uint_eq(v.strings[0].shown, 48);
  ck_assert_mem_eq(v.strings[0].text, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv", 48);
  const struct snapshot_values_string *s = snapshot_values_find_string(&v, 0x2000);
  ck_assert_ptr_nonnull(s);
  ck_assert_uint_eq(s->length, 6);
  ck_assert_uint_eq(s->shown, 6);
  ck_assert_mem_eq(s->text, "secret", 6);
  ck_assert_ptr_null(snapshot_values_find_string(&v, 0x3000));
  const struct snapshot_values_table *t = snapshot_values_find_table(&v, 0x3000);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->entries, 1000);
  ck_assert_uint_eq(t->key_count, 5);
  const struct snapshot_values_key *k = &v.keys[t->first_key];
  ck_assert_int_eq(k[0].kind, SNAPSHOT_VALUES_KEY_STRING);
  ck_assert_uint_eq(k[0].length, 6);
  ck_assert_mem_eq(k[0].text, "user:1", 6);
  ck_assert_int_eq(k[1].kind, SNAPSHOT_VALUES_KEY_NUMBER);
  ck_assert_double_eq(k[1].number, 42.5);
  ck_assert_int_eq(k[2].kind, SNAPSHOT_VALUES_KEY_TRUE);
  ck_assert_int_eq(k[3].kind, SNAPSHOT_VALUES_KEY_OBJECT);
  ck_assert_uint_eq(k[3].type, 2);
  ck_assert_int_eq(k[4].kind, SNAPSHOT_VALUES_KEY_FALSE);
  ck_assert_ptr_null(snapshot_values_find_table(&v, 0x1000));
  snapshot_values_free(&v);
  free(out.data);
}
END_TEST

/* Strings of every length from 0 to past the cap, so every length mod 4 (LuaJIT rounds a
 * string's block to 4 bytes) and every cut of the cap, with bytes of every value (NUL too). */
START_TEST(test_every_string_length_round_trips)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[SNAPSHOT_VALUES_RECORD_MAX];
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  ck_assert_int_eq(snapshot_values_writer_begin(&w, &who), 0);
  char text[300];
  for (int i = 0; i < 300; i++)
    text[i] = (char)(i * 7);
  for (uint64_t length = 0; length < 300; length++)
    ck_assert_int_eq(snapshot_values_writer_string(&w, 0x100000 + 16 * length, text, length), 0);
  ck_assert_int_eq(snapshot_values_writer_end(&w), 0);
  struct snapshot_values v;
  struct format_error e;
  ck_assert_int_eq(snapshot_values_read_memory(&v, out.data, out.size, "x.values", &e), FORMAT_OK);
  ck_assert_uint_eq(v.string_count, 300);
  for (uint64_t length = 0; length < 300; length++) {
    const struct snapshot_values_string *s = snapshot_values_find_string(&v, 0x100000 + 16 * length);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->length, length);
    ck_assert_uint_eq(s->shown, length < 48 ? length : 48);
    ck_assert_int_eq(memcmp(s->text, text, s->shown), 0);
  }
  snapshot_values_free(&v);
  free(out.data);
}
END_TEST

START_TEST(test_every_cut_keeps_every_complete_record)
{
  struct bytes out = write_sample(1);
  /* Where each record ends: the header with CAPTURE, two strings, the table, the end. */
  struct snapshot_values whole;
  struct format_error e;
  ck_assert_int_eq(snapshot_values_read_memory(&whole, out.data, out.size, "c.values", &e), FORMAT_OK);
  size_t capture_end = SNAPSHOT_VALUES_HEADER_BYTES + 1 + 2 + 6 + 1 + 1 + 1;  /* pid 4242: 2 bytes, start: 6 */
  /* In the file: CAPTURE, the string at 0x2000, the one at 0x1000, the table, END: a record ends
   * where the next starts. */
  const struct snapshot_values_string *first = snapshot_values_find_string(&whole, 0x2000);
  const struct snapshot_values_string *second = snapshot_values_find_string(&whole, 0x1000);
  ck_assert_uint_eq(first->offset, capture_end);
  size_t end_record = out.size - 3;
  for (size_t cut = 0; cut < out.size; cut++) {
    struct snapshot_values v;
    enum format_status status = snapshot_values_read_memory(&v, out.data, cut, "c.values", &e);
    if (cut < capture_end) {
      ck_assert_msg(status == FORMAT_BAD_INPUT, "cut %zu: %d", cut, status);
      ck_assert_ptr_null(v.strings);
    } else {
      ck_assert_msg(status == FORMAT_CUT, "cut %zu: %d %s", cut, status, e.message);
      ck_assert_int_eq(v.complete, 0);
      ck_assert_uint_le(e.offset, cut);
      /* Each record read whole or not at all. */
      ck_assert_uint_eq(v.string_count, (cut >= second->offset) + (cut >= whole.tables[0].offset));
      ck_assert_uint_eq(v.table_count, cut >= end_record);
      ck_assert_uint_eq(v.key_count, cut >= end_record ? 5 : 0);
    }
    snapshot_values_free(&v);
  }
  /* The same bytes without END (a killed writer): cut after the table. */
  struct bytes killed = write_sample(0);
  struct snapshot_values v;
  ck_assert_int_eq(snapshot_values_read_memory(&v, killed.data, killed.size, "k.values", &e), FORMAT_CUT);
  ck_assert_uint_eq(v.string_count, 2);
  ck_assert_uint_eq(v.table_count, 1);
  ck_assert_uint_eq(e.offset, killed.size);
  char expected[64];
  snprintf(expected, sizeof expected, "k.values: byte %zu: cut", killed.size);
  ck_assert_msg(!strncmp(e.message, expected, strlen(expected)), "%s", e.message);
  snapshot_values_free(&v);
  snapshot_values_free(&whole);
  free(killed.data);
  free(out.data);
}
END_TEST

/* One damaged byte of the sample, and what the reader says. */
static void expect_bad(const uint8_t *data, size_t size, enum format_status status,
                       const char *message)
{
  struct snapshot_values v;
  struct format_error e;
  ck_assert_int_eq(snapshot_values_read_memory(&v, data, size, "bad.values", &e), status);
  ck_assert_str_eq(e.message, message);
  ck_assert_ptr_null(v.strings);
  ck_assert_ptr_null(v.data);
  snapshot_values_free(&v);
}

START_TEST(test_bad_input_names_file_and_offset)
{
  struct bytes out = write_sample(1);
  uint8_t *copy = malloc(out.size + 1);
  memcpy(copy, out.data, out.size);
  copy[0] = 'X';
  expect_bad(copy, out.size, FORMAT_BAD_INPUT, "bad.values: byte 0: not a values sidecar (no \"ljhv\")");
  memcpy(copy, out.data, out.size);
  copy[4] = 9;
  expect_bad(copy, out.size, FORMAT_UNSUPPORTED,
             "bad.values: byte 4: values sidecar version 9; this ljleak reads version 1");
  memcpy(copy, out.data, out.size);
  copy[8] = 3;
  expect_bad(copy, out.size, FORMAT_BAD_INPUT, "bad.values: byte 8: the first record is not CAPTURE");
  /* The first STRING's tag, at 8 + 1 + 2 + 6 + 3 = 20: an unknown tag. */
  memcpy(copy, out.data, out.size);
  ck_assert_uint_eq(copy[20], SNAPSHOT_VALUES_TAG_STRING);
  copy[20] = 9;
  expect_bad(copy, out.size, FORMAT_BAD_INPUT, "bad.values: byte 20: an unknown record tag");
  /* Its shown count (after address 0x2000, 2 bytes, and length 6) above its length. */
  memcpy(copy, out.data, out.size);
  ck_assert_uint_eq(copy[24], 6);
  copy[24] = 7;
  expect_bad(copy, out.size, FORMAT_BAD_INPUT, "bad.values: byte 25: more bytes shown than the value has");
  /* A byte after END. */
  memcpy(copy, out.data, out.size);
  copy[out.size] = 0;
  char message[128];
  snprintf(message, sizeof message, "bad.values: byte %zu: bytes after the END record", out.size);
  expect_bad(copy, out.size + 1, FORMAT_BAD_INPUT, message);
  /* END's totals: three strings. */
  memcpy(copy, out.data, out.size);
  copy[out.size - 2] = 3;
  snprintf(message, sizeof message, "bad.values: byte %zu: the END record's totals disagree with the records",
           out.size - 3);
  expect_bad(copy, out.size, FORMAT_BAD_INPUT, message);
  free(copy);
  free(out.data);

  /* The same string twice. */
  struct bytes twice = {NULL, 0, 0};
  uint8_t buffer[SNAPSHOT_VALUES_RECORD_MAX];
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, sizeof buffer, bytes_sink, &twice);
  struct snapshot_values_capture small = {1, 1, 1, 48, 8};
  ck_assert_int_eq(snapshot_values_writer_begin(&w, &small), 0);
  ck_assert_int_eq(snapshot_values_writer_string(&w, 0x40, "a", 1), 0);
  ck_assert_int_eq(snapshot_values_writer_string(&w, 0x40, "b", 1), 0);
  ck_assert_int_eq(snapshot_values_writer_end(&w), 0);
  expect_bad(twice.data, twice.size, FORMAT_BAD_INPUT, "bad.values: byte 19: two strings at address 0x40");
  free(twice.data);

  /* A file: its path in the message; a missing one says so. */
  char path[] = "/tmp/ljleak-values-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, "ljhv\x01\0\0\0\x07", 9), 9);
  close(fd);
  struct snapshot_values v;
  struct format_error e;
  ck_assert_int_eq(snapshot_values_read_file(&v, path, INPUT_FILE_FOUND, &e), FORMAT_BAD_INPUT);
  snprintf(message, sizeof message, "%s: byte 8: the first record is not CAPTURE", path);
  ck_assert_str_eq(e.message, message);
  snapshot_values_free(&v);
  unlink(path);
  ck_assert_int_eq(snapshot_values_read_file(&v, path, INPUT_FILE_FOUND, &e), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(e.message, path));
  snapshot_values_free(&v);
}
END_TEST

START_TEST(test_a_small_buffer_is_refused)
{
  uint8_t buffer[64];
  struct bytes out = {NULL, 0, 0};
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  ck_assert_int_eq(snapshot_values_writer_begin(&w, &who), -1);
  ck_assert_uint_eq(out.size, 0);
}
END_TEST

static Suite *values_suite(void)
{
  Suite *s = suite_create("format_snapshot_values");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_writer_bytes_are_the_documented_format);
  tcase_add_test(tc, test_round_trip_records);
  tcase_add_test(tc, test_every_string_length_round_trips);
  tcase_add_test(tc, test_every_cut_keeps_every_complete_record);
  tcase_add_test(tc, test_bad_input_names_file_and_offset);
  tcase_add_test(tc, test_a_small_buffer_is_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return check_run(values_suite());
}
