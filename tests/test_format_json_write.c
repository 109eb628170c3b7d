/* tests/test_format_json_write.c: the JSON writer's layout: objects one member a line, one-line records and arrays among them, signed members. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/json_write.h"

START_TEST(test_one_line_records_and_arrays_sit_among_lines)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  struct json_writer w = {.out = out, .first = 1};
  json_write_open(&w, '{');
  json_write_member_int(&w, "pid", -42);
  json_write_key(&w, "frames");
  json_write_open(&w, '[');
  for (int i = 0; i < 2; i++) {
    json_write_open_record(&w);
    json_write_member_string(&w, "name", i ? NULL : "a\"b");
    json_write_key(&w, "at");
    json_write_open_line(&w, '[');
    for (int k = 0; k <= i; k++) {
      json_write_item(&w);
      fprintf(out, "%d", k + 1);
    }
    json_write_close(&w, ']');
    json_write_key(&w, "none");
    json_write_open_line(&w, '[');
    json_write_close(&w, ']');
    json_write_close(&w, '}');
  }
  json_write_close(&w, ']');
  json_write_member_uint(&w, "after", 7);
  json_write_close(&w, '}');
  fclose(out);
  ck_assert_str_eq(text, "{\n"
                         "  \"pid\": -42,\n"
                         "  \"frames\": [\n"
                         "    {\"name\": \"a\\\"b\", \"at\": [1], \"none\": []},\n"
                         "    {\"name\": null, \"at\": [1, 2], \"none\": []}\n"
                         "  ],\n"
                         "  \"after\": 7\n"
                         "}");
  free(text);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_json_write");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, test_one_line_records_and_arrays_sit_among_lines);
  suite_add_tcase(s, tc);
  return check_run(s);
}
