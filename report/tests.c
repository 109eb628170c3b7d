/* report/tests.c: the per-test result of ljleak busted in text, JSON, JUnit XML and HTML: one verdict per busted test, the run's report under each leaking one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/tests.h"
#include "format/json_write.h"
#include "report/report.h"

/* A test's own result rendered as a run's would be, into a string (malloc'd), or NULL. */
static char *tests_render_result(const struct diff_test *t, enum report_format format,
                                 const struct report_options *options)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  if (!out)
    return NULL;
  struct format_error error;
  struct report_options o = *options;
  o.color = 0;
  enum format_status rendered = report_render(&t->result, format, &o, out, &error);
  if (fclose(out) != 0 || rendered != FORMAT_OK) {
    free(text);
    return NULL;
  }
  return text;
}

static void tests_growth(char *buffer, size_t size, double bytes)
{
  report_format_bytes(buffer, size, bytes, 1);
}

static const char *tests_headline_outcome(const struct diff_tests *tests)
{
  return tests->outcome == DIFF_OUTCOME_FLAGGED ? "a test leaks"
       : tests->outcome == DIFF_OUTCOME_INCONCLUSIVE ? "inconclusive" : "no test leaks";
}

static void tests_text_line(FILE *out, const struct diff_test *t)
{
  char growth[32];
  fputs("  ", out);
  report_put_terminal(out, t->full_name);
  if (t->file && *t->file) {
    fputs("  (", out);
    report_put_terminal(out, t->file);
    fprintf(out, ":%llu)", (unsigned long long)t->line);
  } else {
    fputs("  (no test file: busted's error outside a test)", out);
  }
  if (t->allowed) {
    fputs("  allowed by budget ", out);
    report_put_terminal(out, t->budget->pattern);
  }
  fputs("\n    ", out);
  if (t->verdict == DIFF_TEST_LEAKING || (t->verdict == DIFF_TEST_UNDECIDED && t->site)) {
    tests_growth(growth, sizeof growth, t->growth_per_run);
    fprintf(out, "%s per run: ", growth);
  }
  report_put_terminal(out, t->reason);
  fputc('\n', out);
}

static void tests_text_list(FILE *out, const struct diff_tests *tests, enum diff_test_verdict verdict,
                            const char *title)
{
  size_t n = 0;
  for (size_t i = 0; i < tests->count; i++)
    n += tests->tests[i].verdict == verdict;
  if (!n)
    return;
  fprintf(out, "\n%s (%zu):\n", title, n);
  for (size_t i = 0; i < tests->count; i++)
    if (tests->tests[i].verdict == verdict)
      tests_text_line(out, &tests->tests[i]);
}

static void tests_text(FILE *out, const struct diff_tests *tests, const struct report_options *options)
{
  fprintf(out, "ljleak busted: %s: %zu of %zu tests leaking, %zu undecided, %zu steady, %zu skipped",
          tests_headline_outcome(tests), tests->leaking, tests->count, tests->undecided, tests->steady,
          tests->skipped);
  if (tests->allowed)
    fprintf(out, " (%zu within their budget)", tests->allowed);
  fputc('\n', out);
  if (tests->failed)
    fprintf(out, "busted: %zu test%s failed on %s own\n", tests->failed, tests->failed == 1 ? "" : "s",
            tests->failed == 1 ? "its" : "their");
  fputs("captures  ", out);
  report_put_terminal(out, tests->directory);
  fputs(" (one per test)\n", out);
  tests_text_list(out, tests, DIFF_TEST_LEAKING, "leaking");
  tests_text_list(out, tests, DIFF_TEST_UNDECIDED, "undecided");
  tests_text_list(out, tests, DIFF_TEST_STEADY, "steady");
  tests_text_list(out, tests, DIFF_TEST_SKIPPED, "skipped");
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    if (t->verdict != DIFF_TEST_LEAKING || !t->has_result)
      continue;
    fputs("\n== ", out);
    report_put_terminal(out, t->full_name);
    fputs(": its runs as a run\n", out);
    char *text = tests_render_result(t, REPORT_FORMAT_TEXT, options);
    if (text)
      fputs(text, out);
    free(text);
  }
}

static void tests_json(FILE *out, const struct diff_tests *tests, const struct report_options *options)
{
  struct json_writer w = {.out = out, .first = 1};
  json_write_open(&w, '{');
  json_write_member_string(&w, "ljleak_busted", "1");
  json_write_member_string(&w, "directory", tests->directory);
  json_write_member_string(&w, "outcome", diff_outcome_name(tests->outcome));
  json_write_member_uint(&w, "tests_total", tests->count);
  json_write_member_uint(&w, "leaking", tests->leaking);
  json_write_member_uint(&w, "undecided", tests->undecided);
  json_write_member_uint(&w, "steady", tests->steady);
  json_write_member_uint(&w, "skipped", tests->skipped);
  json_write_member_uint(&w, "allowed", tests->allowed);
  json_write_member_uint(&w, "failed", tests->failed);
  json_write_key(&w, "tests");
  json_write_open(&w, '[');
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    json_write_item(&w);
    json_write_open(&w, '{');
    json_write_member_string(&w, "name", t->name);
    json_write_member_string(&w, "describe", t->describe);
    json_write_member_string(&w, "full_name", t->full_name);
    json_write_member_string(&w, "file", t->file);
    json_write_member_uint(&w, "line", t->line);
    json_write_member_string(&w, "status", t->status);
    json_write_member_string(&w, "message", t->message);
    json_write_member_string(&w, "verdict", diff_test_verdict_name(t->verdict));
    json_write_member_string(&w, "reason", t->reason);
    json_write_member_double(&w, "growth_bytes_per_run", t->growth_per_run);
    json_write_member_string(&w, "site", t->site);
    json_write_member_string(&w, "holder", t->holder);
    json_write_member_bool(&w, "allowed", t->allowed);
    json_write_member_bool(&w, "jit_only", t->jit_only);
    json_write_member_uint(&w, "warmup_runs", t->warmup);
    json_write_member_uint(&w, "measured_runs", t->runs);
    if (t->budget) {
      json_write_key(&w, "budget");
      json_write_open(&w, '{');
      json_write_member_string(&w, "pattern", t->budget->pattern);
      json_write_member_double(&w, "bytes_per_run", t->budget->bytes_per_run);
      json_write_close(&w, '}');
    }
    if (t->has_result) {
      /* The test's own result, as ljleak diff --format json writes a run's. */
      char *json = tests_render_result(t, REPORT_FORMAT_JSON, options);
      json_write_key(&w, "result");
      if (json) {
        size_t n = strlen(json);
        while (n > 0 && json[n - 1] == '\n')
          n--;
        fwrite(json, 1, n, out);
      } else {
        fputs("null", out);
      }
      free(json);
    }
    json_write_close(&w, '}');
  }
  json_write_close(&w, ']');
  json_write_close(&w, '}');
  fputc('\n', out);
}

/* JUnit: one testcase per busted test (classname its describe path, name its
 * name). busted's own failure or error comes first; else a leak is a
 * failure, an undecided test an error, a pending one skipped. */
static void tests_junit(FILE *out, const struct diff_tests *tests, const struct report_options *options)
{
  size_t failures = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    if (!strcmp(t->status, "failure") || (t->verdict == DIFF_TEST_LEAKING && !t->allowed && strcmp(t->status, "error")))
      failures++;
    else if (!strcmp(t->status, "error") || (t->verdict == DIFF_TEST_UNDECIDED && !t->allowed))
      errors++;
    else if (t->verdict == DIFF_TEST_SKIPPED)
      skipped++;
  }
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
  fprintf(out, "<testsuites name=\"ljleak busted\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
          tests->count, failures, errors, skipped);
  fprintf(out, "  <testsuite name=\"ljleak busted\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
          tests->count, failures, errors, skipped);
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    char growth[32];
    tests_growth(growth, sizeof growth, t->growth_per_run);
    fputs("    <testcase classname=\"", out);
    report_put_xml(out, *t->describe ? t->describe : t->file);
    fputs("\" name=\"", out);
    report_put_xml(out, t->name);
    fputs("\" file=\"", out);
    report_put_xml(out, t->file);
    fprintf(out, "\" line=\"%llu\">\n", (unsigned long long)t->line);
    int busted_failed = !strcmp(t->status, "failure") || !strcmp(t->status, "error");
    if (busted_failed) {
      fprintf(out, "      <%s type=\"%s\" message=\"", !strcmp(t->status, "error") ? "error" : "failure", t->status);
      report_put_xml(out, t->message ? t->message : t->status);
      fputs("\">", out);
      report_put_xml(out, t->message ? t->message : "");
      if (t->verdict == DIFF_TEST_LEAKING) {
        fprintf(out, "\nljleak: leaking, %s per run: ", growth);
        report_put_xml(out, t->reason);
      }
      fprintf(out, "</%s>\n", !strcmp(t->status, "error") ? "error" : "failure");
    } else if (t->verdict == DIFF_TEST_LEAKING && !t->allowed) {
      fprintf(out, "      <failure type=\"leaking\" message=\"leaks %s per run: ", growth);
      report_put_xml(out, t->reason);
      fputs("\">", out);
      char *text = t->has_result ? tests_render_result(t, REPORT_FORMAT_TEXT, options) : NULL;
      report_put_xml(out, text ? text : t->reason);
      free(text);
      fputs("</failure>\n", out);
    } else if (t->verdict == DIFF_TEST_UNDECIDED && !t->allowed) {
      fputs("      <error type=\"undecided\" message=\"", out);
      report_put_xml(out, t->reason);
      fputs("\"/>\n", out);
    } else if (t->verdict == DIFF_TEST_SKIPPED) {
      fputs("      <skipped message=\"", out);
      report_put_xml(out, t->reason);
      fputs("\"/>\n", out);
    }
    fputs("      <system-out>ljleak: ", out);
    report_put_xml(out, diff_test_verdict_name(t->verdict));
    if (t->allowed) {
      fputs(", within the budget of ", out);
      report_put_xml(out, t->budget->pattern);
    }
    fputs(": ", out);
    report_put_xml(out, t->reason);
    fputs("</system-out>\n    </testcase>\n", out);
  }
  fputs("  </testsuite>\n</testsuites>\n", out);
}

static void tests_html(FILE *out, const struct diff_tests *tests, const struct report_options *options)
{
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>ljleak busted</title>\n<style>\n"
        "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n"
        "table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\n"
        ".leaking{color:#b00020;font-weight:bold}.undecided{color:#a15c00}.steady{color:#2e7d32}.skipped{color:#777}\n"
        "pre{background:#f6f6f6;padding:1em;overflow:auto}\n</style></head><body>\n", out);
  fputs("<h1>ljleak busted: ", out);
  report_put_html(out, tests_headline_outcome(tests));
  fprintf(out, "</h1>\n<p>%zu of %zu tests leaking, %zu undecided, %zu steady, %zu skipped; "
          "%zu failed in busted. Captures: <code>", tests->leaking, tests->count, tests->undecided,
          tests->steady, tests->skipped, tests->failed);
  report_put_html(out, tests->directory);
  fputs("</code> (one per test).</p>\n<table><tr><th>test</th><th>where</th><th>busted</th>"
        "<th>verdict</th><th>why</th></tr>\n", out);
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    const char *verdict = diff_test_verdict_name(t->verdict);
    fputs("<tr><td>", out);
    report_put_html(out, t->full_name);
    fputs("</td><td>", out);
    if (t->file && *t->file) {
      report_put_html(out, t->file);
      fprintf(out, ":%llu</td><td>", (unsigned long long)t->line);
    } else {
      fputs("outside a test</td><td>", out);
    }
    report_put_html(out, t->status);
    fprintf(out, "</td><td class=\"%s\">%s%s</td><td>", verdict, verdict, t->allowed ? " (within budget)" : "");
    if (t->verdict == DIFF_TEST_LEAKING) {
      char growth[32];
      tests_growth(growth, sizeof growth, t->growth_per_run);
      fprintf(out, "%s per run: ", growth);
    }
    report_put_html(out, t->reason);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    if (!t->has_result)
      continue;
    fputs("<h2>", out);
    report_put_html(out, t->full_name);
    fputs("</h2>\n<pre>", out);
    char *text = tests_render_result(t, REPORT_FORMAT_TEXT, options);
    report_put_html(out, text ? text : "(could not render)");
    free(text);
    fputs("</pre>\n", out);
  }
  fputs("</body></html>\n", out);
}

enum format_status report_tests_render(const struct diff_tests *tests, enum report_format format,
                                       const struct report_options *options, FILE *out,
                                       struct format_error *error)
{
  format_error_clear(error);
  switch (format) {
  case REPORT_FORMAT_TEXT:
    tests_text(out, tests, options);
    break;
  case REPORT_FORMAT_JSON:
    tests_json(out, tests, options);
    break;
  case REPORT_FORMAT_JUNIT:
    tests_junit(out, tests, options);
    break;
  case REPORT_FORMAT_HTML:
    tests_html(out, tests, options);
    break;
  default:
    return format_error_set(error, FORMAT_USAGE, "ljleak busted writes text, json, junit or html");
  }
  if (ferror(out))
    return format_error_set(error, FORMAT_IO, "write error");
  return FORMAT_OK;
}
