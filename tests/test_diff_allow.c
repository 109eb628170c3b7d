/* tests/test_diff_allow.c: the allow-list: its rules, matching sites and stacks, budgets per boundary and per MB. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "diff/allow.h"
#include "diff/diff.h"
#include "tests/diff_result_fixture.h"

static struct diff_allow *parse(const char *text)
{
  struct diff_allow *allow;
  struct format_error err;
  ck_assert_msg(diff_allow_parse("ci/allow.txt", text, strlen(text), &allow, &err) == FORMAT_OK, "%s",
                err.message);
  return allow;
}

/* length 0: the text's strlen (a NUL inside needs its length given). */
static void expect_error(const char *text, size_t length, const char *message)
{
  struct diff_allow *allow = (struct diff_allow *)1;
  if (!length)
    length = strlen(text);
  struct format_error err;
  ck_assert_int_eq(diff_allow_parse("ci/allow.txt", text, length, &allow, &err), FORMAT_USAGE);
  ck_assert_str_eq(err.message, message);
  ck_assert_ptr_null(allow);
}

START_TEST(test_rules_are_read_with_their_patterns_budgets_and_reasons)
{
  struct diff_allow *allow = parse(
      "# sites that may grow\n"
      "\n"
      "@vendor/*.lua:*   4k/boundary   # vendored JSON parser caches decoded schemas\n"
      "TRACE started at @vendor/*.lua:*  1k/MB # the same, compiled\r\n"
      "\tINTERNAL 4096/boundary #interned strings\n"
      "@a#b.lua:1 2MB/boundary # a '#' inside a word is the name's\n"
      "   # an indented comment line\n"
      "string.rep 0/boundary # never may it grow");
  ck_assert_uint_eq(allow->count, 5);
  const struct diff_allow_rule *r = allow->rules;
  ck_assert_str_eq(r[0].pattern, "@vendor/*.lua:*");
  ck_assert_str_eq(r[0].budget, "4k/boundary");
  ck_assert(r[0].budget_bytes == 4096);
  ck_assert_int_eq(r[0].per_megabyte, 0);
  ck_assert_str_eq(r[0].comment, "vendored JSON parser caches decoded schemas");
  ck_assert_uint_eq(r[0].line, 3);
  ck_assert_str_eq(r[1].pattern, "TRACE started at @vendor/*.lua:*");
  ck_assert(r[1].budget_bytes == 1024);
  ck_assert_int_eq(r[1].per_megabyte, 1);
  ck_assert_str_eq(r[1].comment, "the same, compiled");
  ck_assert_str_eq(r[2].pattern, "INTERNAL");
  ck_assert_str_eq(r[2].comment, "interned strings");
  ck_assert_str_eq(r[3].pattern, "@a#b.lua:1");
  ck_assert(r[3].budget_bytes == 2097152);
  ck_assert_uint_eq(r[3].line, 6);
  ck_assert(r[4].budget_bytes == 0);
  ck_assert_uint_eq(r[4].line, 8);
  diff_allow_free(allow);
  allow = parse("");  /* an empty list is a list */
  ck_assert_uint_eq(allow->count, 0);
  diff_allow_free(allow);
}
END_TEST

START_TEST(test_malformed_lines_name_the_file_and_the_line)
{
  static const char what[] =
      " (bytes per boundary or per MB of work, such as 4k/boundary or 1k/MB)";
  char expected[300];
  expect_error("# ok\nINTERNAL # no budget\n", 0,
               "ci/allow.txt: line 2: expected PATTERN BUDGET # WHY (for example "
               "'@vendor/*.lua:* 4k/boundary # vendored parser cache')");
  expect_error("INTERNAL 4k/boundary\n", 0,
               "ci/allow.txt: line 1: the rule needs a comment saying why the growth is "
               "allowed ('# why')");
  expect_error("INTERNAL 4k/boundary #   \n", 0,
               "ci/allow.txt: line 1: the rule needs a comment saying why the growth is "
               "allowed ('# why')");
  snprintf(expected, sizeof expected, "ci/allow.txt: line 3: bad budget '4x/boundary'%s", what);
  expect_error("\n\nINTERNAL 4x/boundary # why\n", 0, expected);
  snprintf(expected, sizeof expected, "ci/allow.txt: line 1: bad budget '4k/segment'%s", what);
  expect_error("INTERNAL 4k/segment # why", 0, expected);
  snprintf(expected, sizeof expected, "ci/allow.txt: line 1: bad budget '4k'%s", what);
  expect_error("INTERNAL 4k # why", 0, expected);
  snprintf(expected, sizeof expected, "ci/allow.txt: line 1: bad budget '-4k/MB'%s", what);
  expect_error("INTERNAL -4k/MB # why", 0, expected);
  snprintf(expected, sizeof expected, "ci/allow.txt: line 1: bad budget '99999999999G/MB'%s",
           what);
  expect_error("INTERNAL 99999999999G/MB # why", 0, expected);
  expect_error("INTERNAL 4k/MB # w\0hy\n", 22,
               "ci/allow.txt: line 1: a NUL byte (not a text file?)");
}
END_TEST

START_TEST(test_a_missing_allow_file_is_a_usage_error_naming_it)
{
  struct diff_allow *allow;
  struct format_error err;
  ck_assert_int_eq(diff_allow_load("no/such/allow.txt", &allow, &err), FORMAT_USAGE);
  ck_assert_str_eq(err.message, "no/such/allow.txt: No such file or directory");
  ck_assert_ptr_null(allow);
  char path[] = "/tmp/ljleak-allow-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *out = fdopen(fd, "w");
  fputs("INTERNAL 1k/boundary # interned strings\n", out);
  fclose(out);
  ck_assert_int_eq(diff_allow_load(path, &allow, &err), FORMAT_OK);
  ck_assert_uint_eq(allow->count, 1);
  ck_assert_str_eq(allow->path, path);
  diff_allow_free(allow);
  remove(path);
}
END_TEST

START_TEST(test_the_first_matching_rule_wins_and_star_crosses_slashes)
{
  struct diff_allow *allow = parse("@vendor/*.lua:* 4k/boundary # vendored\n"
                                   "@vendor/json.lua:12 1k/boundary # never reached\n"
                                   "\\#weird 1k/boundary # an escaped hash\n");
  ck_assert_uint_eq(diff_allow_match(allow, "@vendor/json.lua:12")->line, 1);
  ck_assert_uint_eq(diff_allow_match(allow, "@vendor/deep/dir/x.lua:3")->line, 1);
  ck_assert_ptr_null(diff_allow_match(allow, "@app.lua:12"));
  ck_assert_ptr_null(diff_allow_match(allow, "@vendor/x.luac:1"));
  ck_assert_uint_eq(diff_allow_match(allow, "#weird")->line, 3);
  diff_allow_free(allow);
}
END_TEST

/* A trend result of 8 boundaries: @app.lua:1 grows by 1000 bytes a boundary. */
static void growing_result(struct diff_result *r)
{
  static const uint64_t rising[8] = {0, 1000, 2000, 3000, 4000, 5000, 6000, 7000};
  static const uint64_t flat[8] = {900, 900, 900, 900, 900, 900, 900, 900};
  fixture_result(r, DIFF_MODE_TREND, 8);
  r->options.min_growth_bytes = 1000;
  fixture_add_site(r, "@app.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  fixture_add_site(r, "@app.lua:2", DIFF_VERDICT_STEADY, flat, 8);
}

static enum format_status decide_with(struct diff_result *r, const char *rules,
                                      struct format_error *err)
{
  struct diff_allow *allow = rules ? parse(rules) : NULL;
  struct diff_options options = r->options;
  options.allow = allow;
  enum format_status status = diff_decide(r, &options, err);
  diff_allow_free(allow);
  return status;
}

START_TEST(test_growth_within_a_per_boundary_budget_is_allowed)
{
  struct diff_result r;
  struct format_error err;
  growing_result(&r);
  ck_assert_int_eq(decide_with(&r, "@app.lua:* 1k/boundary # a bounded cache\n", &err), FORMAT_OK);
  const struct diff_site *site = fixture_site(&r, "@app.lua:1");
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(site->allowed, 1);
  ck_assert_str_eq(site->allowance->pattern, "@app.lua:*");
  ck_assert_str_eq(site->allowance->budget, "1k/boundary");
  ck_assert_str_eq(site->allowance->comment, "a bounded cache");
  ck_assert_str_eq(site->allowance->file, "ci/allow.txt");
  ck_assert_uint_eq(site->allowance->line, 1);
  ck_assert(site->allowance->growth == 1000);
  /* The flat site matched too, but did not grow: nothing to allow. */
  ck_assert_ptr_nonnull(fixture_site(&r, "@app.lua:2")->allowance);
  ck_assert_int_eq(fixture_site(&r, "@app.lua:2")->allowed, 0);
  ck_assert_uint_eq(r.flagged, 0);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_PASS);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_growth_past_its_budget_still_fails)
{
  struct diff_result r;
  struct format_error err;
  growing_result(&r);
  ck_assert_int_eq(decide_with(&r, "@app.lua:1 999/boundary # a bounded cache\n", &err), FORMAT_OK);
  const struct diff_site *site = fixture_site(&r, "@app.lua:1");
  ck_assert_int_eq(site->allowed, 0);
  ck_assert_ptr_nonnull(site->allowance);
  ck_assert_uint_eq(r.flagged, 1);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_FLAGGED);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_per_megabyte_budgets_divide_the_growth_by_the_work_done)
{
  /* 1000 bytes more per boundary, while 2 MiB is allocated per boundary:
   * 500 bytes per MB of work. */
  static const uint64_t allocated[8] = {0, 2097152, 4194304, 6291456, 8388608, 10485760,
                                        12582912, 14680064};
  struct diff_result r;
  struct format_error err;
  growing_result(&r);
  r.capture.allocated = fixture_series_copy(allocated, 8);
  ck_assert_int_eq(decide_with(&r, "@app.lua:1 500/MB # grows with traffic\n", &err), FORMAT_OK);
  const struct diff_site *site = fixture_site(&r, "@app.lua:1");
  ck_assert(site->allowance->growth == 500);
  ck_assert_int_eq(site->allowance->per_megabyte, 1);
  ck_assert_int_eq(site->allowed, 1);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_PASS);
  ck_assert_int_eq(decide_with(&r, "@app.lua:1 499/MB # grows with traffic\n", &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@app.lua:1")->allowed, 0);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_FLAGGED);

  /* With a warm-up of 4, the work is counted from boundary 5 on. */
  r.capture.allocated[7] = 8388608 + 1048576;  /* 1 MiB in the last 3 boundaries */
  struct diff_allow *allow = parse("@app.lua:1 1k/MB # grows with traffic\n");
  struct diff_options options = r.options;
  options.warmup = 4;
  options.allow = allow;
  options.min_boundaries = 0;
  options.max_p_value = 0.5;  /* 4 judged boundaries can show a trend at 0.5 */
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  site = fixture_site(&r, "@app.lua:1");
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_GROWING);
  ck_assert(site->allowance->growth == 3000);
  ck_assert_int_eq(site->allowed, 0);
  diff_allow_free(allow);

  /* Growth without any work done is past every budget. */
  memset(r.capture.allocated, 0, 8 * sizeof *r.capture.allocated);
  ck_assert_int_eq(decide_with(&r, "@app.lua:1 1G/MB # anything\n", &err), FORMAT_OK);
  ck_assert(isinf(fixture_site(&r, "@app.lua:1")->allowance->growth));
  ck_assert_int_eq(fixture_site(&r, "@app.lua:1")->allowed, 0);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_a_per_megabyte_budget_without_the_work_done_is_an_error)
{
  struct diff_result r;
  struct format_error err;
  growing_result(&r);
  ck_assert_int_eq(decide_with(&r, "# per boundary first\n@x.lua:1 1k/boundary # x\n"
                                   "@app.lua:1 1k/MB # grows with traffic\n",
                               &err),
                   FORMAT_USAGE);
  ck_assert_str_eq(err.message,
                   "ci/allow.txt: line 3: budget '1k/MB' is per MB of work, but the capture does "
                   "not record the bytes allocated at each boundary; give a budget per boundary "
                   "(such as 4k/boundary)");
  diff_result_free(&r);
}
END_TEST

START_TEST(test_an_undecided_site_within_its_budget_lets_the_run_pass)
{
  static const uint64_t rising[4] = {0, 1000, 2000, 3000};
  struct diff_result r;
  struct format_error err;
  fixture_result(&r, DIFF_MODE_TREND, 4);
  r.options.min_growth_bytes = 1000;
  fixture_add_site(&r, "INTERNAL", DIFF_VERDICT_STEADY, rising, 4);
  ck_assert_int_eq(decide_with(&r, NULL, &err), FORMAT_OK);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(decide_with(&r, "INTERNAL 1k/boundary # interned strings\n", &err), FORMAT_OK);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(r.sites[0].allowed, 1);
  ck_assert_uint_eq(r.facts.tally.undecided, 0);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_PASS);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_deciding_again_without_a_list_judges_the_saved_rules_again)
{
  struct diff_result r;
  struct format_error err;
  growing_result(&r);
  ck_assert_int_eq(decide_with(&r, "@app.lua:1 1500/boundary # a bounded cache\n", &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@app.lua:1")->allowed, 1);
  /* The series now grows faster after boundary 4: with a warm-up of 4 the
   * rule the site carries is judged again on the faster part. */
  struct diff_site *site = &r.sites[0];
  for (size_t i = 0; i < r.site_count; i++)
    if (!strcmp(r.sites[i].name, "@app.lua:1"))
      site = &r.sites[i];
  for (size_t i = 4; i < 8; i++)
    site->live_bytes[i] = 3000 + 2000 * (i - 3);
  struct diff_options options = r.options;
  options.warmup = 4;
  options.min_boundaries = 0;  /* the result recorded the 5 that p 0.01 needed */
  options.max_p_value = 0.05;  /* 4 boundaries can reach 0.05 */
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  site = (struct diff_site *)fixture_site(&r, "@app.lua:1");
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_GROWING);
  ck_assert(site->allowance->growth == 2000);
  ck_assert_str_eq(site->allowance->comment, "a bounded cache");
  ck_assert_int_eq(site->allowed, 0);
  ck_assert_uint_eq(r.flagged, 1);
  diff_result_free(&r);
}
END_TEST

/* By stack, a row with frames matches its leaf's rule too (no label holds a
 * ';'); a row without frames is named as its site, whose chunk name may hold
 * one: only its whole name matches, never another site's rule. */
START_TEST(test_a_stack_without_frames_matches_by_its_whole_name_only)
{
  static const uint64_t rising[8] = {0, 1000, 2000, 3000, 4000, 5000, 6000, 7000};
  struct diff_result r;
  struct format_error err;
  fixture_result(&r, DIFF_MODE_TREND, 8);
  r.options.min_growth_bytes = 1000;
  fixture_add_site(&r, "@evil.lua;@trusted.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  fixture_add_site(&r, "@t.lua:4;@trusted.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  diff_result_by_stack(&r);
  r.sites[1].frame_count = 1;  /* a leaf frame; its name matters not here */
  r.sites[1].frames = calloc(1, sizeof *r.sites[1].frames);
  r.sites[1].frames[0] = (struct diff_frame){STACKS_FRAME_LUA, strdup("@trusted.lua"), 0, 1};
  ck_assert_int_eq(decide_with(&r, "@trusted.lua:1 1k/boundary # the trusted cache\n", &err), FORMAT_OK);
  const struct diff_site *forged = fixture_site(&r, "@evil.lua;@trusted.lua:1");
  ck_assert_ptr_null(forged->allowance);
  ck_assert_int_eq(forged->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@t.lua:4;@trusted.lua:1")->allowed, 1);
  ck_assert_uint_eq(r.flagged, 1);
  diff_result_free(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_allow");
  TCase *file = tcase_create("file");
  tcase_add_test(file, test_rules_are_read_with_their_patterns_budgets_and_reasons);
  tcase_add_test(file, test_malformed_lines_name_the_file_and_the_line);
  tcase_add_test(file, test_a_missing_allow_file_is_a_usage_error_naming_it);
  tcase_add_test(file, test_the_first_matching_rule_wins_and_star_crosses_slashes);
  suite_add_tcase(s, file);
  TCase *budget = tcase_create("budget");
  tcase_add_test(budget, test_growth_within_a_per_boundary_budget_is_allowed);
  tcase_add_test(budget, test_growth_past_its_budget_still_fails);
  tcase_add_test(budget, test_per_megabyte_budgets_divide_the_growth_by_the_work_done);
  tcase_add_test(budget, test_a_per_megabyte_budget_without_the_work_done_is_an_error);
  tcase_add_test(budget, test_an_undecided_site_within_its_budget_lets_the_run_pass);
  tcase_add_test(budget, test_deciding_again_without_a_list_judges_the_saved_rules_again);
  tcase_add_test(budget, test_a_stack_without_frames_matches_by_its_whole_name_only);
  suite_add_tcase(s, budget);
  return check_run(s);
}
