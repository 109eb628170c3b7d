/* tests/test_diff_tests.c: ljleak busted's verdict per test (diff/tests.c): each test's own capture judged on its runs, budgets, the JIT's sites, the tally. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff/diff.h"
#include "diff/tests.h"
#include "format/test_list.h"
#include "tests/check_run.h"
#include "tests/diff_fixture.h"
#include "tests/diff_result_fixture.h"

static char dir[512];

static void setup(void)
{
  fixture_directory(dir, sizeof dir, "diff-tests");
}

static void teardown(void)
{
  fixture_remove(dir);
}

/* What a test does in each of its runs. */
enum test_kind {
  KIND_LEAK,      /* keeps 8 KiB more at @t.lua:10 with every run */
  KIND_STEADY,    /* allocates 8 KiB at @t.lua:20 and frees it, every run */
  KIND_CACHE,     /* keeps 64 KiB at @t.lua:30 in its first run only (a cache warmed once) */
  KIND_STEP       /* keeps 64 KiB at @t.lua:40 in its fourth run only: a rise without a trend */
};

/* A capture DIR/name of a test run warmup + runs times: one segment, a
 * boundary (a forced cycle, as busted.lua asks for) after each run. */
static void write_capture(const char *name, enum test_kind kind, unsigned total_runs)
{
  char capture[600], path[700];
  fixture_path(capture, sizeof capture, dir, name);
  ck_assert_int_eq(mkdir(capture, 0700), 0);
  struct fixture_segment s;
  fixture_begin(&s, fixture_path(path, sizeof path, capture, "seg-0001.memprof"));
  char index[4096];
  size_t used = (size_t)snprintf(index, sizeof index, "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n");
  uint64_t events = 0, address = 0x10000;
  for (unsigned run = 1; run <= total_runs; run++) {
    fixture_alloc(&s, 50, address, 256);  /* every test's own garbage, freed in its run */
    fixture_free(&s, 50, address, 256);
    events += 2;
    address += 0x1000;
    if (kind == KIND_LEAK || kind == KIND_STEADY) {
      fixture_alloc(&s, kind == KIND_LEAK ? 10 : 20, address, 8192);
      events++;
      if (kind == KIND_STEADY) {
        fixture_free(&s, 20, address, 8192);
        events++;
      }
      address += 0x1000;
    } else if ((kind == KIND_CACHE && run == 1) || (kind == KIND_STEP && run == 4)) {
      fixture_alloc(&s, kind == KIND_CACHE ? 30 : 40, address, 65536);
      events++;
      address += 0x1000;
    }
    used += (size_t)snprintf(index + used, sizeof index - used,
                             "boundary\tseq=%u\tsegment=1\tevents=%llu\tcause=call\n", run,
                             (unsigned long long)events);
  }
  fixture_end(&s, 0);
  snprintf(index + used, sizeof index - used,
           "segment\tseq=1\tfile=seg-0001.memprof\tevents=%llu\tcomplete=1\n", (unsigned long long)events);
  FILE *out = fopen(fixture_path(path, sizeof path, capture, "index"), "w");
  ck_assert_ptr_nonnull(out);
  fputs(index, out);
  fclose(out);
}

static FILE *begin_list(void)
{
  char path[600];
  FILE *out = fopen(fixture_path(path, sizeof path, dir, TEST_LIST_FILE), "w");
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(test_list_write_header(out), 0);
  return out;
}

/* A test line; its capture (when capture is not NULL) written as kind with 2:4 runs. */
static void add_test(FILE *out, uint64_t seq, const char *capture, enum test_kind kind, const char *describe,
                     const char *name, const char *status)
{
  struct test_list_test t;
  memset(&t, 0, sizeof t);
  t.seq = seq;
  t.capture = (char *)capture;
  t.file = (char *)"spec/a_spec.lua";
  t.line = 10 * seq;
  t.describe = (char *)describe;
  t.name = (char *)name;
  t.status = (char *)status;
  t.warmup = capture ? 2 : 0;
  t.runs = capture ? 4 : 0;
  if (capture)
    write_capture(capture, kind, 6);
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
}

static void judge_ok(struct diff_tests *tests, const struct diff_test_budget *budgets, size_t budget_count)
{
  struct diff_options options;
  diff_options_default(&options);
  struct format_error err;
  enum format_status status = diff_tests_judge(dir, &options, budgets, budget_count, tests, &err);
  ck_assert_msg(status == FORMAT_OK, "%s", err.message);
}

static const struct diff_test *find_test(const struct diff_tests *tests, const char *full_name)
{
  for (size_t i = 0; i < tests->count; i++)
    if (!strcmp(tests->tests[i].full_name, full_name))
      return &tests->tests[i];
  ck_abort_msg("no test %s", full_name);
  return NULL;
}

START_TEST(test_a_test_that_keeps_more_with_every_run_leaks_at_its_site)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_LEAK, "accounts login", "remembers every login", "success");
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_uint_eq(tests.count, 1);
  const struct diff_test *t = find_test(&tests, "accounts login remembers every login");
  ck_assert_int_eq(t->verdict, DIFF_TEST_LEAKING);
  ck_assert_str_eq(t->site, "@t.lua:10");
  ck_assert(t->growth_per_run == 8192.0);
  ck_assert_ptr_null(t->holder);  /* no heap snapshot in the capture */
  ck_assert_str_eq(t->reason, "keeps more at @t.lua:10 with every run");
  ck_assert_int_eq(t->has_result, 1);
  ck_assert_uint_eq(t->result.capture.boundary_count, 6);
  ck_assert_str_eq(t->file, "spec/a_spec.lua");
  ck_assert_uint_eq(t->line, 10);
  ck_assert_uint_eq(tests.leaking, 1);
  ck_assert_uint_eq(tests.steady, 0);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_FLAGGED);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_a_steady_test_and_a_cache_warmed_once_are_steady)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_STEADY, "accounts", "parses a token", "success");
  add_test(out, 2, "0002", KIND_CACHE, "accounts countries", "builds the country table", "success");
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_uint_eq(tests.count, 2);
  for (size_t i = 0; i < 2; i++) {
    const struct diff_test *t = &tests.tests[i];
    ck_assert_int_eq(t->verdict, DIFF_TEST_STEADY);
    ck_assert_str_eq(t->reason, "nothing it keeps grows with its runs");
    ck_assert_ptr_null(t->site);
    ck_assert_int_eq(t->has_result, 0);
    ck_assert_int_eq(t->jit_only, 0);
  }
  ck_assert_str_eq(tests.tests[1].full_name, "accounts countries builds the country table");
  ck_assert_uint_eq(tests.steady, 2);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_PASS);
  diff_tests_free(&tests);
}
END_TEST

/* busted's pending() in a test's body, after part of it ran every run: what ran is judged. A leak
 * is a leak; else the test is skipped, as pending. */
START_TEST(test_a_test_pending_in_its_body_is_judged_on_what_ran)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_LEAK, "later", "leaks, then pending", "pending");
  add_test(out, 2, "0002", KIND_STEP, "later", "rises once, then pending", "pending");
  add_test(out, 3, "0003", KIND_STEADY, "later", "pending at once", "pending");
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_int_eq(tests.tests[0].verdict, DIFF_TEST_LEAKING);
  ck_assert_str_eq(tests.tests[0].site, "@t.lua:10");
  for (size_t i = 1; i < 3; i++) {
    ck_assert_int_eq(tests.tests[i].verdict, DIFF_TEST_SKIPPED);
    ck_assert_str_eq(tests.tests[i].reason, "pending in its body: nothing it ran leaks");
    ck_assert_ptr_null(tests.tests[i].site);
    ck_assert_int_eq(tests.tests[i].has_result, 0);
  }
  ck_assert_uint_eq(tests.leaking, 1);
  ck_assert_uint_eq(tests.skipped, 2);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_FLAGGED);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_pending_and_unstarted_tests_are_skipped_a_capture_error_is_undecided)
{
  FILE *out = begin_list();
  add_test(out, 1, NULL, KIND_STEADY, "audit", "rotates the trail", "pending");
  add_test(out, 2, NULL, KIND_STEADY, "", "never started", "success");
  struct test_list_test t;
  memset(&t, 0, sizeof t);
  t.seq = 3;
  t.name = (char *)"could not capture";
  t.status = (char *)"success";
  t.capture_error = (char *)"mkdir: No space left on device";
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_uint_eq(tests.count, 3);
  ck_assert_int_eq(tests.tests[0].verdict, DIFF_TEST_SKIPPED);
  ck_assert_str_eq(tests.tests[0].reason, "pending: never run");
  ck_assert_int_eq(tests.tests[1].verdict, DIFF_TEST_SKIPPED);
  ck_assert_str_eq(tests.tests[1].reason, "not run");
  ck_assert_str_eq(tests.tests[1].full_name, "never started");  /* no describe: the name alone */
  ck_assert_int_eq(tests.tests[2].verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(tests.tests[2].reason, "no capture: mkdir: No space left on device");
  ck_assert_uint_eq(tests.skipped, 2);
  ck_assert_uint_eq(tests.undecided, 1);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_only_skipped_tests_measure_nothing_so_the_run_is_inconclusive)
{
  FILE *out = begin_list();
  add_test(out, 1, NULL, KIND_STEADY, "audit", "rotates the trail", "pending");
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_uint_eq(tests.skipped, 1);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_a_rise_without_a_trend_is_undecided_with_its_site_and_reason)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_STEP, "sessions", "expires once", "success");
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  const struct diff_test *t = &tests.tests[0];
  ck_assert_int_eq(t->verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(t->site, "@t.lua:40");
  ck_assert_str_eq(t->reason, "@t.lua:40 rose, but its runs cannot show a trend; more runs decide it (--repeat)");
  ck_assert_int_eq(t->has_result, 1);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_a_capture_that_does_not_read_leaves_its_test_undecided)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_LEAK, "a", "leaks", "success");
  struct test_list_test t;
  memset(&t, 0, sizeof t);
  t.seq = 2;
  t.capture = (char *)"0002";  /* no such directory */
  t.name = (char *)"lost its capture";
  t.status = (char *)"success";
  t.warmup = 2;
  t.runs = 4;
  ck_assert_int_eq(test_list_write_test(out, &t), 0);
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, NULL, 0);
  ck_assert_int_eq(tests.tests[0].verdict, DIFF_TEST_LEAKING);
  ck_assert_int_eq(tests.tests[1].verdict, DIFF_TEST_UNDECIDED);
  ck_assert_msg(!strncmp(tests.tests[1].reason, "its capture does not read: ", 27), "%s", tests.tests[1].reason);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_FLAGGED);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_a_budget_for_a_name_pattern_lets_its_leak_pass_and_no_other)
{
  FILE *out = begin_list();
  add_test(out, 1, "0001", KIND_LEAK, "accounts audit", "keeps an audit trail", "success");
  add_test(out, 2, "0002", KIND_LEAK, "accounts login", "remembers every login", "success");
  fclose(out);
  struct diff_test_budget budgets[] = {
    {(char *)"accounts audit *", 8192},   /* the first that matches counts */
    {(char *)"accounts *", 1e9},
  };
  struct diff_tests tests;
  judge_ok(&tests, budgets, 1);
  ck_assert_int_eq(tests.tests[0].verdict, DIFF_TEST_LEAKING);
  ck_assert_ptr_eq(tests.tests[0].budget, &budgets[0]);
  ck_assert_int_eq(tests.tests[0].allowed, 1);
  ck_assert_ptr_null(tests.tests[1].budget);
  ck_assert_int_eq(tests.tests[1].allowed, 0);
  ck_assert_uint_eq(tests.leaking, 2);
  ck_assert_uint_eq(tests.allowed, 1);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_FLAGGED);  /* the login leak is not allowed */
  diff_tests_free(&tests);

  /* Within budget, both: the run passes. Beyond it (8191 < 8192 per run): it fails. */
  budgets[0].pattern = (char *)"accounts *";
  judge_ok(&tests, budgets, 1);
  ck_assert_uint_eq(tests.allowed, 2);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_PASS);
  diff_tests_free(&tests);
  budgets[0].bytes_per_run = 8191;
  judge_ok(&tests, budgets, 1);
  ck_assert_uint_eq(tests.allowed, 0);
  ck_assert_ptr_eq(tests.tests[0].budget, &budgets[0]);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_FLAGGED);
  diff_tests_free(&tests);
}
END_TEST

START_TEST(test_a_budget_never_touches_a_steady_test)
{
  struct diff_test t;
  memset(&t, 0, sizeof t);
  t.full_name = (char *)"cache warms";
  t.verdict = DIFF_TEST_STEADY;
  struct diff_test_budget budget = {(char *)"*", 1e9};
  diff_test_apply_budget(&t, &budget, 1);
  ck_assert_ptr_eq(t.budget, &budget);
  ck_assert_int_eq(t.allowed, 0);
}
END_TEST

/* An undecided test without a site that rose (its capture unread, a silent run
 * that failed, too few boundaries) has no bytes per run to hold to a budget:
 * it stays undecided, and the run inconclusive. */
START_TEST(test_a_budget_never_allows_an_undecided_test_without_a_growth)
{
  struct diff_test t;
  memset(&t, 0, sizeof t);
  t.full_name = (char *)"lost its capture";
  t.verdict = DIFF_TEST_UNDECIDED;
  struct diff_test_budget budget = {(char *)"*", 1e9};
  diff_test_apply_budget(&t, &budget, 1);
  ck_assert_ptr_eq(t.budget, &budget);
  ck_assert_int_eq(t.allowed, 0);
  t.site = (char *)"@src/cache.lua:7";  /* rose without a trend: its growth is measured */
  t.growth_per_run = 2048;
  diff_test_apply_budget(&t, &budget, 1);
  ck_assert_int_eq(t.allowed, 1);

  FILE *out = begin_list();
  struct test_list_test e;
  memset(&e, 0, sizeof e);
  e.seq = 1;
  e.capture = (char *)"0001";  /* no such directory */
  e.name = (char *)"lost its capture";
  e.status = (char *)"success";
  e.warmup = 2;
  e.runs = 4;
  ck_assert_int_eq(test_list_write_test(out, &e), 0);
  fclose(out);
  struct diff_tests tests;
  judge_ok(&tests, &budget, 1);
  ck_assert_int_eq(tests.tests[0].verdict, DIFF_TEST_UNDECIDED);
  ck_assert_int_eq(tests.tests[0].allowed, 0);
  ck_assert_uint_eq(tests.allowed, 0);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_tests_free(&tests);
}
END_TEST

static void add_flagged(struct diff_result *r, const char *name, double growth, int flagged)
{
  static const uint64_t series[6] = {0, 1, 2, 3, 4, 5};
  struct diff_site *s = fixture_add_site(r, name, flagged ? DIFF_VERDICT_GROWING : DIFF_VERDICT_UNDECIDED,
                                         series, 6);
  s->facts.flagged = flagged;
  s->facts.rose_undecided = !flagged;
  s->growth_bytes_per_segment = growth;
}

START_TEST(test_the_jits_trace_sites_rising_never_make_a_test_leak)
{
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 6);
  add_flagged(&r, "VM: trace compiler", 3000, 1);
  add_flagged(&r, "VM: trace recorder", 500, 0);
  r.facts.outcome = DIFF_OUTCOME_FLAGGED;
  r.facts.judged = r.facts.needed = 5;
  struct diff_test t;
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_STEADY);
  ck_assert_int_eq(t.jit_only, 1);
  ck_assert(t.growth_per_run == 0);
  ck_assert_ptr_null(t.site);
  ck_assert_str_eq(t.reason, "nothing it keeps grows with its runs "
                             "(the JIT compiled traces in its runs: bounded, not charged)");
  free(t.reason);

  /* Beside a site of the test's own that grows, the JIT's are not counted in its growth. */
  add_flagged(&r, "@spec/a_spec.lua:64", 16384, 1);
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_LEAKING);
  ck_assert_str_eq(t.site, "@spec/a_spec.lua:64");
  ck_assert(t.growth_per_run == 16384);
  ck_assert_int_eq(t.jit_only, 0);
  free(t.reason);
  free(t.site);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_undecided_reasons_say_why)
{
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 3);
  add_flagged(&r, "@src/cache.lua:7", 2048, 0);
  r.facts.outcome = DIFF_OUTCOME_INCONCLUSIVE;
  r.facts.judged = 2;
  r.facts.needed = 5;
  struct diff_test t;
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(t.reason, "@src/cache.lua:7 rose, but its runs cannot show a trend (too few runs); "
                             "more runs decide it (--repeat)");
  ck_assert(t.growth_per_run == 2048);
  free(t.reason);
  free(t.site);

  /* A silent run that failed where the first passed: its runs are not alike. */
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 3), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(t.reason, "run 3 failed where the first passed: its runs are not alike");
  ck_assert_ptr_null(t.site);
  free(t.reason);
  diff_result_free(&r);

  /* Nothing rose, but too few boundaries to judge anything. */
  fixture_result(&r, DIFF_MODE_TREND, 2);
  r.facts.outcome = DIFF_OUTCOME_INCONCLUSIVE;
  r.facts.judged = 1;
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(t.reason, "only 1 boundaries measured: nothing could be judged");
  free(t.reason);
  diff_result_free(&r);
}
END_TEST

/* A bounded cache filled in the measured runs (200 entries a run, 1000 at most): +24 KB a run,
 * then +396 B in the last. The trend test calls it growing (p = 1/120); the test is undecided,
 * and a test that kept as much in its last run as before leaks. */
START_TEST(test_a_site_that_levels_off_in_the_last_run_leaves_its_test_undecided)
{
  static const uint64_t filled[6] = {23604, 47604, 71604, 95604, 119604, 120000};
  static const uint64_t leaked[6] = {23604, 47604, 71604, 95604, 119604, 143000};
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 6);
  r.options.warmup = 1;
  struct diff_site *s = fixture_add_site(&r, "@spec/lru_spec.lua:14", DIFF_VERDICT_GROWING, filled, 6);
  s->facts.flagged = 1;
  s->growth_bytes_per_segment = 23000;
  r.facts.outcome = DIFF_OUTCOME_FLAGGED;
  r.facts.judged = r.facts.needed = 5;
  struct diff_test t;
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_UNDECIDED);
  ck_assert_str_eq(t.site, "@spec/lru_spec.lua:14");
  ck_assert_str_eq(t.reason, "@spec/lru_spec.lua:14 rose with every run, but kept under a quarter as much "
                             "in the last: a bound reached (a cache full)? more runs decide it (--repeat)");
  free(t.reason);
  free(t.site);
  memcpy(r.sites[0].live_bytes, leaked, sizeof leaked);
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(diff_test_decide(&t, &r, 0), 0);
  ck_assert_int_eq(t.verdict, DIFF_TEST_LEAKING);
  free(t.reason);
  free(t.site);
  free(t.holder);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_busted_failures_are_counted_beside_the_verdicts)
{
  struct diff_test list[3];
  memset(list, 0, sizeof list);
  list[0].status = (char *)"failure";
  list[0].verdict = DIFF_TEST_STEADY;
  list[1].status = (char *)"error";
  list[1].verdict = DIFF_TEST_STEADY;
  list[2].status = (char *)"success";
  list[2].verdict = DIFF_TEST_STEADY;
  struct diff_tests tests;
  memset(&tests, 0, sizeof tests);
  tests.tests = list;
  tests.count = 3;
  diff_tests_tally(&tests);
  ck_assert_uint_eq(tests.failed, 2);
  ck_assert_uint_eq(tests.steady, 3);
  ck_assert_int_eq(tests.outcome, DIFF_OUTCOME_PASS);  /* the exit status adds busted's failures */
  ck_assert_str_eq(diff_test_verdict_name(DIFF_TEST_LEAKING), "leaking");
  ck_assert_str_eq(diff_test_verdict_name(DIFF_TEST_UNDECIDED), "undecided");
}
END_TEST

START_TEST(test_a_test_list_that_does_not_read_is_an_input_error_naming_it)
{
  char path[600];
  FILE *out = fopen(fixture_path(path, sizeof path, dir, TEST_LIST_FILE), "w");
  ck_assert_ptr_nonnull(out);
  fputs("ljleak-tests\tversion=1\ntest\tseq=x\n", out);
  fclose(out);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_tests tests;
  struct format_error err;
  ck_assert_int_eq(diff_tests_judge(dir, &options, NULL, 0, &tests, &err), FORMAT_BAD_INPUT);
  char expected[700];
  snprintf(expected, sizeof expected, "%s: byte 28: test line: seq is not a whole number", path);
  ck_assert_str_eq(err.message, expected);
  ck_assert_uint_eq(tests.count, 0);
  ck_assert_ptr_null(tests.tests);
}
END_TEST

static Suite *tests_suite(void)
{
  Suite *suite = suite_create("diff_tests");
  TCase *tc = tcase_create("judge");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_a_test_that_keeps_more_with_every_run_leaks_at_its_site);
  tcase_add_test(tc, test_a_steady_test_and_a_cache_warmed_once_are_steady);
  tcase_add_test(tc, test_pending_and_unstarted_tests_are_skipped_a_capture_error_is_undecided);
  tcase_add_test(tc, test_a_test_pending_in_its_body_is_judged_on_what_ran);
  tcase_add_test(tc, test_only_skipped_tests_measure_nothing_so_the_run_is_inconclusive);
  tcase_add_test(tc, test_a_rise_without_a_trend_is_undecided_with_its_site_and_reason);
  tcase_add_test(tc, test_a_capture_that_does_not_read_leaves_its_test_undecided);
  tcase_add_test(tc, test_a_budget_for_a_name_pattern_lets_its_leak_pass_and_no_other);
  tcase_add_test(tc, test_a_test_list_that_does_not_read_is_an_input_error_naming_it);
  tcase_add_test(tc, test_a_budget_never_allows_an_undecided_test_without_a_growth);  /* writes a list */
  suite_add_tcase(suite, tc);
  tc = tcase_create("decide");
  tcase_add_test(tc, test_a_budget_never_touches_a_steady_test);
  tcase_add_test(tc, test_the_jits_trace_sites_rising_never_make_a_test_leak);
  tcase_add_test(tc, test_undecided_reasons_say_why);
  tcase_add_test(tc, test_a_site_that_levels_off_in_the_last_run_leaves_its_test_undecided);
  tcase_add_test(tc, test_busted_failures_are_counted_beside_the_verdicts);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(void)
{
  return check_run(tests_suite());
}
