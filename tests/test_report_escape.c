/* tests/test_report_escape.c: each output format's one escaper (report/escape.c) on a hostile name, byte for byte; ljleak busted's text and the HTML page's stack lists use them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "diff/diff.h"
#include "diff/tests.h"
#include "report/report.h"

/* Markup, quotes, Markdown punctuation, a mention, ESC, a bidi override (U+202E), a C1 control
 * (U+009B), a byte that is not UTF-8 (0x9b), a tab and é. */
static const char hostile[] = "<a href='x'>&\"`|*_@1#2\x1b[2J\xe2\x80\xae\xc2\x9b\x9b\t\xc3\xa9";

enum escaper { HTML, XML, TERMINAL, MD_TEXT, MD_CELL, MD_CODE, MD_CODE_CELL };

static char *escaped(enum escaper escaper, const char *text)
{
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  ck_assert_ptr_nonnull(out);
  switch (escaper) {
  case HTML: report_put_html(out, text); break;
  case XML: report_put_xml(out, text); break;
  case TERMINAL: report_put_terminal(out, text); break;
  case MD_TEXT: report_put_markdown(out, text, REPORT_MARKDOWN_TEXT); break;
  case MD_CELL: report_put_markdown(out, text, REPORT_MARKDOWN_CELL); break;
  case MD_CODE: report_put_markdown(out, text, REPORT_MARKDOWN_CODE); break;
  case MD_CODE_CELL: report_put_markdown(out, text, REPORT_MARKDOWN_CODE_CELL); break;
  }
  fclose(out);
  return buffer;
}

#define ASSERT_ESCAPED(escaper, text, expected)                                  \
  do {                                                                           \
    char *got = escaped((escaper), (text));                                      \
    ck_assert_msg(strcmp(got, (expected)) == 0, "got \"%s\"", got);              \
    free(got);                                                                   \
  } while (0)

START_TEST(test_each_format_escapes_a_hostile_name_its_own_way)
{
  ASSERT_ESCAPED(HTML, hostile,
                 "&lt;a href=&#39;x&#39;&gt;&amp;&quot;`|*_@1#2\xef\xbf\xbd[2J\xe2\x80\xae"
                 "\xef\xbf\xbd\xef\xbf\xbd\t\xc3\xa9");
  ASSERT_ESCAPED(XML, hostile,
                 "&lt;a href=&apos;x&apos;&gt;&amp;&quot;`|*_@1#2\xef\xbf\xbd[2J\xe2\x80\xae"
                 "\xc2\x9b\xef\xbf\xbd&#9;\xc3\xa9");
  ASSERT_ESCAPED(TERMINAL, hostile,
                 "<a href='x'>&\"`|*_@1#2\\x1b[2J\\u202e\\u009b\\x9b\\x09\xc3\xa9");
  ASSERT_ESCAPED(MD_TEXT, hostile,
                 "&lt;a href='x'&gt;&amp;\"\\`\\|\\*\\_@1#2\\x1b\\[2J\\u202e\\u009b\\x9b \xc3\xa9");
  ASSERT_ESCAPED(MD_CELL, hostile,
                 "&#60;a href='x'&#62;&#38;\"&#96;&#124;&#42;&#95;&#64;1&#35;2&#91;2J\xef\xbf\xbd\xc3\xa9");
  ASSERT_ESCAPED(MD_CODE, hostile,
                 "``<a href='x'>&\"`|*_@1#2\\x1b[2J\\u202e\\u009b\\x9b\\x09\xc3\xa9``");
  ASSERT_ESCAPED(MD_CODE_CELL, hostile,
                 "``<a href='x'>&\"`\\|*_@1#2\\x1b[2J\\u202e\\u009b\\x9b\\x09\xc3\xa9``");
}
END_TEST

START_TEST(test_markdown_code_spans_fence_past_the_longest_backtick_run)
{
  /* A backslash before a '|' in a cell: the table would read "\\|" as an escaped backslash and
   * a cell's end, so the name is written as a cell of entities. */
  ASSERT_ESCAPED(MD_CODE_CELL, "@evil\\|c\\`d| e", "&#64;evil&#92;&#124;c&#92;&#96;d&#124; e");
  ASSERT_ESCAPED(MD_CODE_CELL, "a|b\\", "`a\\|b\\`");
  ASSERT_ESCAPED(MD_CODE, "a``b", "```a``b```");
  ASSERT_ESCAPED(MD_CODE, " a ", "`  a  `");
  ASSERT_ESCAPED(MD_CODE, "   ", "`   `");   /* only spaces: a code span keeps them */
  ASSERT_ESCAPED(MD_CODE, "", "");
  ASSERT_ESCAPED(MD_TEXT, NULL, "");
  ASSERT_ESCAPED(HTML, NULL, "");
  ASSERT_ESCAPED(TERMINAL, NULL, "");
}
END_TEST

/* ljleak busted's text shows every name from the suite and the capture as a terminal may be
 * shown it: the test's name and file, its budget's pattern, the captures' directory. */
START_TEST(test_busted_text_escapes_every_name_from_the_suite)
{
  struct diff_test_budget budget;
  memset(&budget, 0, sizeof budget);
  budget.pattern = (char *)"cache\x1b[2J*";
  struct diff_test test;
  memset(&test, 0, sizeof test);
  test.name = (char *)"fills";
  test.describe = (char *)"cache";
  test.full_name = (char *)"cache fills\xe2\x80\xae";
  test.file = (char *)"spec/\x1b]0;x\x07_spec.lua";
  test.line = 12;
  test.status = (char *)"success";
  test.verdict = DIFF_TEST_STEADY;
  test.reason = (char *)"steady";
  test.budget = &budget;
  test.allowed = 1;
  struct diff_tests tests;
  memset(&tests, 0, sizeof tests);
  tests.directory = (char *)"caps\x1b[31m";
  tests.count = 1;
  tests.tests = &test;
  tests.steady = 1;
  tests.outcome = DIFF_OUTCOME_PASS;
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_int_eq(report_tests_render(&tests, REPORT_FORMAT_TEXT, NULL, out, &error), 0);
  fclose(out);
  ck_assert_msg(!strchr(text, '\x1b') && !strchr(text, '\x07'), "%s", text);
  ck_assert_msg(strstr(text, "captures  caps\\x1b[31m (one per test)\n"), "%s", text);
  ck_assert_msg(strstr(text, "  cache fills\\u202e  (spec/\\x1b]0;x\\x07_spec.lua:12)  allowed by budget "
                             "cache\\x1b[2J*\n"),
                "%s", text);
  free(text);
  /* busted's error outside any test file: no "(:0)", but what it is. */
  test.file = (char *)"";
  test.line = 0;
  test.allowed = 0;
  text = NULL;
  out = open_memstream(&text, &size);
  ck_assert_int_eq(report_tests_render(&tests, REPORT_FORMAT_TEXT, NULL, out, &error), 0);
  fclose(out);
  ck_assert_msg(strstr(text, "  cache fills\\u202e  (no test file: busted's error outside a test)\n"), "%s", text);
  free(text);
  text = NULL;
  out = open_memstream(&text, &size);
  ck_assert_int_eq(report_tests_render(&tests, REPORT_FORMAT_HTML, NULL, out, &error), 0);
  fclose(out);
  ck_assert_msg(strstr(text, "<td>outside a test</td>") && !strstr(text, ":0</td>"), "%s", text);
  free(text);
}
END_TEST

/* The HTML page's stacks of the flagged sites escape a name as the rest of the page does: a
 * quote as &#39;, a control as U+FFFD (testdata/report/stacks.json, its site renamed). */
START_TEST(test_html_stack_lists_escape_as_the_rest_of_the_page)
{
  FILE *in = fopen("testdata/report/stacks.json", "rb");
  ck_assert_ptr_nonnull(in);
  static char json[1 << 16];
  size_t length = fread(json, 1, sizeof json - 1, in);
  fclose(in);
  json[length] = '\0';
  char renamed[sizeof json + 1024];
  size_t used = 0;
  for (const char *p = json; *p;) {  /* @t.lua:10 becomes @t'x<ESC>.lua:10 */
    if (!strncmp(p, "@t.lua:10", 9)) {
      used += (size_t)snprintf(renamed + used, sizeof renamed - used, "@t'x\\u001b.lua:10");
      p += 9;
    } else {
      renamed[used++] = *p++;
    }
  }
  renamed[used] = '\0';
  struct diff_result result;
  struct format_error error;
  char *html = NULL;
  ck_assert_msg(diff_result_read_json_text("stacks.json", renamed, used, &result, &error) == 0,
                "%s", error.message);
  size_t size = 0;
  FILE *out = open_memstream(&html, &size);
  ck_assert_int_eq(report_render(&result, REPORT_FORMAT_HTML, NULL, out, &error), 0);
  fclose(out);
  ck_assert_msg(strstr(html, "<h3><code>@t&#39;x\xef\xbf\xbd.lua:10</code></h3>"), "no stack list heading");
  ck_assert_msg(strstr(html, ": <code>@t.lua:40;@t.lua:21;@t&#39;x\xef\xbf\xbd.lua:10</code></li>"),
                "no escaped stack");
  ck_assert_ptr_null(strchr(html, '\x1b'));
  free(html);
  diff_result_free(&result);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("report_escape");
  TCase *tc = tcase_create("escape");
  tcase_add_test(tc, test_each_format_escapes_a_hostile_name_its_own_way);
  tcase_add_test(tc, test_markdown_code_spans_fence_past_the_longest_backtick_run);
  tcase_add_test(tc, test_busted_text_escapes_every_name_from_the_suite);
  tcase_add_test(tc, test_html_stack_lists_escape_as_the_rest_of_the_page);
  suite_add_tcase(s, tc);
  return check_run(s);
}
