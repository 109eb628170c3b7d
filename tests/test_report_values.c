/* tests/test_report_values.c: --values in the reports: values shown only when the result was asked for them, cut and escaped in words, the JSON's per-suspect values read back onto their sites, bad values refused at their byte, and a capture without values said so. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/suspects.h"
#include "report/common.h"
#include "report/report.h"
#include "tests/check_run.h"
#include "tests/diff_result_fixture.h"

static char *dup_text(const char *text)
{
  char *copy = strdup(text);
  ck_assert_ptr_nonnull(copy);
  return copy;
}

static void add_value(struct diff_site *site, enum diff_value_kind kind, const char *text, int quoted,
                      uint64_t length, uint64_t shown)
{
  struct diff_value *grown = realloc(site->values, (site->value_count + 1) * sizeof *grown);
  ck_assert_ptr_nonnull(grown);
  site->values = grown;
  site->values[site->value_count++] = (struct diff_value){kind, dup_text(text), quoted, length, shown};
}

/* One growing site held by _G.sessions, with two strings and three keys, in a result whose
 * values are in state. */
static void sessions_result(struct diff_result *r, enum diff_values_state state)
{
  static const uint64_t series[] = {0, 1000, 2000, 3000, 4000, 5000, 6000, 7000};
  fixture_result(r, DIFF_MODE_TREND, 8);
  r->capture.snapshots = 1;
  struct diff_site *site = fixture_add_site(r, "@tokens.lua:14", DIFF_VERDICT_GROWING, series, 8);
  site->kind = DIFF_SITE_LUA;
  site->growth_bytes_per_segment = 1000;
  site->trend_p_value = 1e-9;
  site->holders_boundary = 8;
  site->kinds[SNAPSHOT_STRING - 1] = (struct diff_kind_count){70, 7000, 0, 0};
  site->container = calloc(1, sizeof *site->container);
  ck_assert_ptr_nonnull(site->container);
  *site->container = (struct diff_site_container){
      .address = 0x1000, .type = dup_text("table"), .path = dup_text("_G.sessions"), .named = 1,
      .retained_bytes = 9000, .objects = 70, .bytes = 7000, .boundary = 8};
  site->container->kinds[SNAPSHOT_STRING - 1] = site->kinds[SNAPSHOT_STRING - 1];
  add_value(site, DIFF_VALUE_STRING, "tok-1-\\x1b[31m-zzzz", 1, 58, 18);
  add_value(site, DIFF_VALUE_STRING, "short", 1, 5, 5);
  add_value(site, DIFF_VALUE_KEY, "tok-1", 1, 5, 5);
  add_value(site, DIFF_VALUE_KEY, "42", 0, 0, 0);
  add_value(site, DIFF_VALUE_KEY, "[table]", 0, 0, 0);
  r->values = state;
  diff_result_fill_facts(r);
  ck_assert_int_eq(diff_suspects_find(r), 0);
  ck_assert_uint_eq(r->suspect_count, 1);
}

static char *render(struct diff_result *r, enum report_format format)
{
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  struct report_options options = {0, NULL, 0, 0};
  ck_assert_msg(report_render(r, format, &options, out, &error) == 0, "%s", error.message);
  fclose(out);
  return text;
}

START_TEST(test_words_say_a_cut_value_and_a_whole_one)
{
  char words[128];
  struct diff_value cut = {DIFF_VALUE_STRING, "user:1234:tok", 1, 65, 13};
  report_value_words(&cut, words, sizeof words);
  ck_assert_str_eq(words, "\"user:1234:tok...\" (+52 bytes)");
  struct diff_value one_more = {DIFF_VALUE_STRING, "ab", 1, 3, 2};
  report_value_words(&one_more, words, sizeof words);
  ck_assert_str_eq(words, "\"ab...\" (+1 byte)");
  struct diff_value whole = {DIFF_VALUE_KEY, "user:1", 1, 6, 6};
  report_value_words(&whole, words, sizeof words);
  ck_assert_str_eq(words, "\"user:1\"");
  struct diff_value number = {DIFF_VALUE_KEY, "1.5", 0, 0, 0};
  report_value_words(&number, words, sizeof words);
  ck_assert_str_eq(words, "1.5");
}
END_TEST

START_TEST(test_no_format_shows_values_unless_asked)
{
  /* The sites hold values, but the result was not asked for them: nothing of them shows. */
  struct diff_result r;
  sessions_result(&r, DIFF_VALUES_OFF);
  enum report_format formats[] = {REPORT_FORMAT_TEXT, REPORT_FORMAT_JSON, REPORT_FORMAT_MARKDOWN,
                                  REPORT_FORMAT_HTML, REPORT_FORMAT_JUNIT};
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    char *text = render(&r, formats[i]);
    ck_assert_msg(!strstr(text, "tok-1") && !strstr(text, "(--values)") && !strstr(text, "\"values\""),
                  "format %zu", i);
    free(text);
  }
  diff_result_free(&r);
}
END_TEST

START_TEST(test_text_shows_strings_then_keys_marked_as_values)
{
  struct diff_result r;
  sessions_result(&r, DIFF_VALUES_SHOWN);
  char *text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(text, "\n     values (--values): \"tok-1-\\x1b[31m-zzzz...\" (+40 bytes), \"short\"\n"
                                     "     keys (--values): \"tok-1\", 42, [table]\n"));
  free(text);
  char *md = render(&r, REPORT_FORMAT_MARKDOWN);
  ck_assert_ptr_nonnull(strstr(md, "   * keys (--values): `\"tok-1\"`, `42`, `[table]`\n"));
  free(md);
  char *html = render(&r, REPORT_FORMAT_HTML);
  ck_assert_ptr_nonnull(strstr(html, "<li class=\"values\">keys (--values): <code>&quot;tok-1&quot;</code>, "
                                     "<code>42</code>, <code>[table]</code></li>"));
  free(html);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_json_values_read_back_onto_their_sites)
{
  struct diff_result r, back;
  sessions_result(&r, DIFF_VALUES_SHOWN);
  char *json = render(&r, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(json, "\"values\": \"shown\""));
  ck_assert_ptr_nonnull(strstr(json, "{\"kind\": \"string\", \"site\": \"@tokens.lua:14\", \"text\": "
                                     "\"tok-1-\\\\x1b[31m-zzzz\", \"length\": 58, \"shown\": 18}"));
  ck_assert_ptr_nonnull(strstr(json, "{\"kind\": \"key\", \"site\": \"@tokens.lua:14\", \"text\": \"42\"}"));
  struct format_error error;
  ck_assert_msg(diff_result_read_json_text("t.json", json, strlen(json), &back, &error) == 0, "%s", error.message);
  ck_assert_int_eq(back.values, DIFF_VALUES_SHOWN);
  ck_assert_uint_eq(back.sites[0].value_count, 5);
  for (size_t i = 0; i < 5; i++) {
    const struct diff_value *a = &r.sites[0].values[i], *b = &back.sites[0].values[i];
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_str_eq(a->text, b->text);
    ck_assert_int_eq(a->quoted, b->quoted);
    ck_assert_uint_eq(a->length, b->length);
    ck_assert_uint_eq(a->shown, b->shown);
  }
  char *again = render(&back, REPORT_FORMAT_JSON);
  ck_assert_str_eq(again, json);
  free(again);
  free(json);
  diff_result_free(&back);
  diff_result_free(&r);
}
END_TEST

/* A saved result's value with raw controls (written by anything) is escaped as the engine does. */
START_TEST(test_reader_escapes_raw_controls)
{
  struct diff_result r, back;
  sessions_result(&r, DIFF_VALUES_SHOWN);
  char *json = render(&r, REPORT_FORMAT_JSON);
  char *at = strstr(json, "\"text\": \"short\"");
  ck_assert_ptr_nonnull(at);
  char *fixed = malloc(strlen(json) + 16);
  ck_assert_ptr_nonnull(fixed);
  size_t head = (size_t)(at - json) + 9;
  memcpy(fixed, json, head);
  strcpy(fixed + head, "\\u001b\\u0007\", \"length\": 5, \"shown\": 5}");  /* "short" as ESC BEL */
  char *rest = strstr(at, "}");
  strcat(fixed, rest + 1);
  struct format_error error;
  ck_assert_msg(diff_result_read_json_text("t.json", fixed, strlen(fixed), &back, &error) == 0, "%s", error.message);
  ck_assert_str_eq(back.sites[0].values[1].text, "\\x1b\\x07");
  free(fixed);
  free(json);
  diff_result_free(&back);
  diff_result_free(&r);
}
END_TEST

static void expect_values_error(const char *bad, const char *good, const char *expected_tail)
{
  struct diff_result r, back;
  sessions_result(&r, DIFF_VALUES_SHOWN);
  char *json = render(&r, REPORT_FORMAT_JSON);
  char *at = strstr(json, good);
  ck_assert_ptr_nonnull(at);
  size_t head = (size_t)(at - json);
  char *broken = malloc(strlen(json) + strlen(bad) + 1);
  ck_assert_ptr_nonnull(broken);
  memcpy(broken, json, head);
  strcpy(broken + head, bad);
  strcat(broken, at + strlen(good));
  struct format_error error;
  ck_assert_int_eq(diff_result_read_json_text("t.json", broken, strlen(broken), &back, &error), FORMAT_BAD_INPUT);
  ck_assert_msg(!strncmp(error.message, "t.json: byte ", 13) && strstr(error.message, expected_tail), "%s", error.message);
  free(broken);
  free(json);
  diff_result_free(&r);
}

START_TEST(test_reader_refuses_bad_values_at_their_byte)
{
  expect_values_error("\"kind\": \"secret\"", "\"kind\": \"key\"", "a value's kind must be \"string\" or \"key\"");
  expect_values_error("\"site\": \"@nowhere.lua:1\"", "\"site\": \"@tokens.lua:14\"",
                      "a value's site is none of the result's sites");
  expect_values_error("\"length\": 58, \"shown\": 59", "\"length\": 58, \"shown\": 18", "a value's shown is more than its length");
  expect_values_error("\"values\": \"maybe\"", "\"values\": \"shown\"", "values must be \"shown\" or \"not captured\"");
}
END_TEST

START_TEST(test_a_capture_without_values_is_said_so)
{
  struct diff_result r;
  sessions_result(&r, DIFF_VALUES_NOT_CAPTURED);
  char *text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(text, "\n          values: not captured; run with --values"));
  ck_assert_ptr_null(strstr(text, "tok-1"));
  free(text);
  char *json = render(&r, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(json, "\"values\": \"not captured\""));
  ck_assert_ptr_null(strstr(json, "tok-1"));
  free(json);
  diff_result_free(&r);
}
END_TEST

static Suite *values_suite(void)
{
  Suite *s = suite_create("report_values");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_words_say_a_cut_value_and_a_whole_one);
  tcase_add_test(tc, test_no_format_shows_values_unless_asked);
  tcase_add_test(tc, test_text_shows_strings_then_keys_marked_as_values);
  tcase_add_test(tc, test_json_values_read_back_onto_their_sites);
  tcase_add_test(tc, test_reader_escapes_raw_controls);
  tcase_add_test(tc, test_reader_refuses_bad_values_at_their_byte);
  tcase_add_test(tc, test_a_capture_without_values_is_said_so);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return check_run(values_suite());
}
