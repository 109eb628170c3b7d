/* tests/test_report_outcome.c: every format says INCONCLUSIVE and why, shows undecided and allowed sites, marks the warm-up. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "tests/report_golden.h"
#include "report/report.h"

/* Run with LJLEAK_UPDATE_GOLDEN=1 to rewrite testdata/report/ after a deliberate change. */

/* ---- An inconclusive result: the 4 boundaries -------------------------------- */

static double times[4] = {1763745610.5, 1763745620.5, 1763745630.5, 1763745640.5};
static uint64_t leak_live[4] = {5200000, 10900000, 22800000, 47600000};
static uint64_t vendor_live[4] = {20000, 40000, 60000, 80000};
static uint64_t lru_live[4] = {65536, 65536, 66000, 65536};
static uint64_t internal_live[4] = {40960, 40000, 40960, 40960};

static struct diff_allowance vendor_rule = {
    .pattern = (char *)"@vendor/*.lua:*", .budget = (char *)"32k/boundary",
    .budget_bytes = 32768, .comment = (char *)"the vendored parser caches one schema per tenant",
    .file = (char *)"ci/allow.txt", .line = 2, .growth = 20000};

static struct diff_site sites[4];

static struct diff_result undecided_result(void)
{
  struct diff_result r;
  memset(&r, 0, sizeof r);
  memset(sites, 0, sizeof sites);
  sites[0] = (struct diff_site){
      .name = (char *)"@app.lua:41", .id = 41, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"app.lua", .source_line = 41, .verdict = DIFF_VERDICT_UNDECIDED,
      .count = 4, .live_bytes = leak_live, .allocs = 4200, .frees = 0,
      .growth_bytes_per_segment = 14133333.333333334, .growth_bytes_per_second = 1413333.3333333335,
      .trend_statistic = 6, .trend_p_value = 1.0 / 24};
  sites[1] = (struct diff_site){
      .name = (char *)"@vendor/json.lua:12", .id = 12, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"vendor/json.lua", .source_line = 12,
      .verdict = DIFF_VERDICT_UNDECIDED, .count = 4, .live_bytes = vendor_live, .allocs = 40,
      .growth_bytes_per_segment = 20000, .growth_bytes_per_second = 2000, .trend_statistic = 6,
      .trend_p_value = 1.0 / 24, .allowance = &vendor_rule, .allowed = 1};
  sites[2] = (struct diff_site){
      .name = (char *)"@app.lua:11", .id = 11, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"app.lua", .source_line = 11, .verdict = DIFF_VERDICT_STEADY,
      .count = 4, .live_bytes = lru_live, .allocs = 900, .frees = 880, .trend_statistic = 1,
      .trend_p_value = 0.375};
  sites[3] = (struct diff_site){
      .name = (char *)"INTERNAL", .id = 2, .kind = DIFF_SITE_INTERNAL,
      .verdict = DIFF_VERDICT_STEADY, .count = 4, .live_bytes = internal_live, .allocs = 30,
      .frees = 29, .trend_statistic = 1, .trend_p_value = 0.5};
  r.mode = DIFF_MODE_TREND;
  r.options = (struct diff_options){.min_boundaries = 5, .max_p_value = 0.01,
                                    .min_growth_bytes = 4096, .min_growth_fraction = 0.1,
                                    .worse_ratio = 2, .jobs = 1};
  r.capture.path = (char *)"captures/pr-1234";
  r.capture.command = (char *)"luajit app.lua --requests 4000";
  r.capture.boundary_count = 4;
  r.capture.boundary_times = times;
  r.capture.start_time = 1763745600.5;
  r.capture.events = 98765;
  r.site_count = 4;
  r.sites = sites;
  return r;
}

/* ---- Helpers ---------------------------------------------------------------------- */

/* Renders a result, its facts found after its last change (built by hand). */
static char *render(struct diff_result *r, enum report_format format)
{
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  struct report_options options = {0, NULL, 0, 0};
  diff_result_fill_facts(r);
  ck_assert_msg(report_render(r, format, &options, out, &error) == 0, "%s", error.message);
  fclose(out);
  return text;
}


static void read_json_text(const char *json, struct diff_result *back)
{
  struct format_error error;
  ck_assert_msg(diff_result_read_json_text("t.json", json, strlen(json), back, &error) == 0,
                "%s", error.message);
}

static size_t count(const char *text, const char *what)
{
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, what)); p++)
    n++;
  return n;
}

/* ---- Tests ---------------------------------------------------------------------------- */

START_TEST(test_text_leads_with_inconclusive_the_reason_and_what_to_do)
{
  struct diff_result r = undecided_result();
  char *text = render(&r, REPORT_FORMAT_TEXT);
  check_golden(text, "undecided.txt");
  static const char first[] =
      "ljleak: INCONCLUSIVE: 1 site rose by \u2265 4.0 KiB but 4 boundaries cannot show a trend "
      "at p \u2264 0.01; 5 are needed\n"
      "        what to do: run longer for more boundaries: `ljleak run --every BYTES` makes a "
      "boundary every BYTES allocated, and a test harness can call collector.boundary() after "
      "each batch\n";
  ck_assert_msg(strncmp(text, first, strlen(first)) == 0, "%s", text);
  ck_assert_ptr_nonnull(strstr(text, "the vendored parser caches one schema per tenant"));
  free(text);
}
END_TEST

START_TEST(test_markdown_and_html_lead_with_inconclusive)
{
  struct diff_result r = undecided_result();
  char *md = render(&r, REPORT_FORMAT_MARKDOWN);
  check_golden(md, "undecided.md");
  ck_assert(strncmp(md, "### ljleak: INCONCLUSIVE\n", 25) == 0);
  free(md);
  char *html = render(&r, REPORT_FORMAT_HTML);
  ck_assert_ptr_nonnull(strstr(html, "<title>ljleak report: INCONCLUSIVE</title>"));
  const char *header = strstr(html, "<header class=\"verdict unsure\">\n<h1>INCONCLUSIVE</h1>\n"
                                    "<p>1 site rose by \u2265 4.0 KiB but 4 boundaries cannot "
                                    "show a trend at p \u2264 0.01; 5 are needed.</p>\n"
                                    "<p>What to do: run longer for more boundaries: <code>ljleak "
                                    "run --every BYTES</code> makes a boundary");
  ck_assert_ptr_nonnull(header);
  ck_assert_ptr_null(strstr(html, "<main>\n<header class=\"verdict good\""));
  ck_assert_ptr_nonnull(strstr(html, "<span class=\"badge undecided\">undecided</span>"
                                     "<span class=\"badge allowed\">allowed</span>"));
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"allow\">allowed: +19.5 KiB per boundary, within "
                                     "32k/boundary (ci/allow.txt line 2: @vendor/*.lua:*): the "
                                     "vendored parser caches one schema per tenant</p>"));
  free(html);
}
END_TEST

START_TEST(test_junit_has_an_error_per_undecided_site_and_notes_allowed_ones)
{
  struct diff_result r = undecided_result();
  char *xml = render(&r, REPORT_FORMAT_JUNIT);
  check_golden(xml, "undecided.junit.xml");
  ck_assert_uint_eq(count(xml, "<error "), 1);
  ck_assert_uint_eq(count(xml, "<failure "), 0);
  ck_assert_ptr_nonnull(strstr(xml, "failures=\"0\" errors=\"1\""));
  ck_assert_ptr_nonnull(strstr(xml, "<error type=\"undecided\" message=\"undecided: +13.5 MiB "
                                    "per boundary (+1.3 MiB/s), p=0.042, live 5.0 MiB -&gt; "
                                    "45.4 MiB; 4 boundaries cannot show a trend at p \u2264 "
                                    "0.01 (5 are needed)\">"));
  ck_assert_ptr_nonnull(strstr(xml, "<system-out>allowed: +19.5 KiB per boundary, within "
                                    "32k/boundary (ci/allow.txt line 2: @vendor/*.lua:*): the "
                                    "vendored parser caches one schema per tenant</system-out>"));
  free(xml);
}
END_TEST

START_TEST(test_json_carries_the_outcome_and_reads_back_the_same)
{
  struct diff_result r = undecided_result();
  char *json = render(&r, REPORT_FORMAT_JSON);
  check_golden(json, "undecided.json");
  ck_assert_ptr_nonnull(strstr(json, "\"flagged\": 0,\n  \"outcome\": \"inconclusive\",\n"
                                     "  \"undecided\": 1,\n  \"outcome_reason\": \"1 site rose "
                                     "by \u2265 4.0 KiB but 4 boundaries cannot show a trend at "
                                     "p \u2264 0.01; 5 are needed\",\n"));
  ck_assert_ptr_nonnull(strstr(json, "\"allowed\": true,\n      \"allow\": {\n"
                                     "        \"pattern\": \"@vendor/*.lua:*\",\n"
                                     "        \"budget\": \"32k/boundary\",\n"
                                     "        \"budget_bytes\": 32768,\n"
                                     "        \"per\": \"boundary\",\n"));
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_int_eq(back.facts.filled, 1);  /* found when read, not saved */
  ck_assert_int_eq(back.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(back.facts.rose_cause, DIFF_UNDECIDED_SHORT_CAPTURE);
  ck_assert_int_eq(back.sites[0].facts.rose_undecided, 1);
  ck_assert_int_eq(back.sites[0].verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(back.sites[1].allowed, 1);
  ck_assert_str_eq(back.sites[1].allowance->comment,
                   "the vendored parser caches one schema per tenant");
  ck_assert_uint_eq(back.sites[1].allowance->line, 2);
  ck_assert(back.sites[1].allowance->growth == 20000);
  ck_assert_ptr_null(back.sites[0].allowance);
  static const enum report_format formats[] = {REPORT_FORMAT_TEXT, REPORT_FORMAT_HTML,
                                               REPORT_FORMAT_JSON, REPORT_FORMAT_JUNIT,
                                               REPORT_FORMAT_MARKDOWN};
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    char *direct = render(&r, formats[f]), *again = render(&back, formats[f]);
    ck_assert_msg(strcmp(direct, again) == 0, "format %zu differs", f);
    free(direct);
    free(again);
  }
  diff_result_free(&back);
  free(json);
}
END_TEST

START_TEST(test_old_json_without_the_new_members_still_reads)
{
  /* Written before outcome, warmup and allow existed: the outcome comes
   * from the verdicts (pass here), and nothing is allowed. */
  struct diff_result back;
  read_json_text("{\"ljleak_result\":1,\"mode\":\"trend\",\"options\":{\"min_boundaries\":4,"
                 "\"max_p_value\":0.01},\"capture\":{\"boundary_count\":3},\"flagged\":0,"
                 "\"sites\":[{\"name\":\"@a.lua:1\",\"verdict\":\"steady\",\"series\":[1,2,3],"
                 "\"growth_bytes_per_segment\":1}]}",
                 &back);
  ck_assert_uint_eq(back.options.warmup, 0);
  ck_assert_int_eq(back.sites[0].allowed, 0);
  ck_assert_ptr_null(back.sites[0].allowance);
  ck_assert_int_eq(back.facts.outcome, DIFF_OUTCOME_PASS);
  diff_result_free(&back);
  /* A saved result of one boundary: inconclusive. */
  read_json_text("{\"ljleak_result\":1,\"mode\":\"trend\",\"options\":{\"max_p_value\":0.01},"
                 "\"capture\":{\"boundary_count\":1},"
                 "\"sites\":[{\"name\":\"@a.lua:1\",\"verdict\":\"insufficient\",\"series\":[1],"
                 "\"growth_bytes_per_segment\":0}]}",
                 &back);
  ck_assert_int_eq(back.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  static const char first[] = "ljleak: INCONCLUSIVE: the capture has 1 boundary; a change needs "
                              "2 to be measured, and a trend 5 to reach p \u2264 0.01\n";
  char *text = render(&back, REPORT_FORMAT_TEXT);
  ck_assert_msg(strncmp(text, first, strlen(first)) == 0, "%s", text);
  free(text);
  diff_result_free(&back);
  /* Without its p-value, the reason says only what it knows. */
  read_json_text("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"@a.lua:1\","
                 "\"verdict\":\"insufficient\",\"series\":[1],\"growth_bytes_per_segment\":0}]}",
                 &back);
  static const char known[] = "ljleak: INCONCLUSIVE: the capture has 1 boundary; a change needs "
                              "2 to be measured\n";
  text = render(&back, REPORT_FORMAT_TEXT);
  ck_assert_msg(strncmp(text, known, strlen(known)) == 0, "%s", text);
  free(text);
  diff_result_free(&back);
}
END_TEST

START_TEST(test_json_reader_checks_the_new_members)
{
  struct diff_result back;
  struct format_error error;
  static const char bad_outcome[] =
      "{\"ljleak_result\":1,\"mode\":\"trend\",\"outcome\":\"maybe\",\"sites\":[]}";
  ck_assert_int_eq(diff_result_read_json_text("t.json", bad_outcome, strlen(bad_outcome), &back,
                                              &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "t.json: byte 44: outcome must be one of \"pass\", \"flagged\", "
                          "\"inconclusive\"");
  static const char bad_per[] =
      "{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\",\"verdict\":\"steady\","
      "\"series\":[1],\"growth_bytes_per_segment\":0,\"allow\":{\"per\":\"day\"}}]}";
  ck_assert_int_eq(diff_result_read_json_text("t.json", bad_per, strlen(bad_per), &back, &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "t.json: byte 131: per must be \"boundary\" or \"MB\"");
  ck_assert_ptr_null(back.sites);
}
END_TEST

START_TEST(test_warmup_is_recorded_and_marked_in_every_format)
{
  static uint64_t fill[8] = {100000, 200000, 300000, 300000, 300000, 300000, 300000, 300000};
  struct diff_site site = {.name = (char *)"@cache.lua:3", .verdict = DIFF_VERDICT_STEADY,
                           .count = 8, .live_bytes = fill, .trend_p_value = 1};
  struct diff_result r;
  memset(&r, 0, sizeof r);
  r.mode = DIFF_MODE_TREND;
  r.options.max_p_value = 0.01;
  r.options.warmup = 3;
  r.capture.boundary_count = 8;
  r.site_count = 1;
  r.sites = &site;
  char *text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(text, "8 boundaries (the first 3 warm-up, left out of the verdicts)"));
  free(text);
  char *json = render(&r, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(json, "\"warmup\": 3\n"));
  free(json);
  char *xml = render(&r, REPORT_FORMAT_JUNIT);
  ck_assert_ptr_nonnull(strstr(xml, "<property name=\"warmup\" value=\"3\"/>"));
  free(xml);
  char *md = render(&r, REPORT_FORMAT_MARKDOWN);
  ck_assert_ptr_nonnull(strstr(md, "1 sites over 8 boundaries, the first 3 warm-up."));
  free(md);
  char *html = render(&r, REPORT_FORMAT_HTML);
  ck_assert_ptr_nonnull(strstr(html, "<dt>warm-up</dt><dd>the first 3 boundaries, left out of "
                                     "the verdicts</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "fill-opacity=\"0.08\"/>\n<text x=\""));
  ck_assert_ptr_nonnull(strstr(html, "<span>boundaries 1 to 3: warm-up, left out of the "
                                     "verdicts</span>"));
  ck_assert_ptr_nonnull(strstr(html, "stroke=\"#d0d7de\" stroke-width=\"1.5\" "
                                     "stroke-dasharray=\"2 2\" points=\""));
  free(html);
}
END_TEST

/* A sampled capture of 8 boundaries where nothing grows: its floor (one
 * 512 KiB interval or more) is above --min-growth, so it is inconclusive,
 * never a pass; every format says so, with what its boundaries cover. */
static uint64_t steady_live[8] = {4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096};
static uint64_t sampled_allocated[8] = {0, 1000000, 2000000, 3000000,
                                        4000000, 5000000, 6000000, 6500000};

START_TEST(test_a_sampling_floor_above_min_growth_is_inconclusive_in_every_format)
{
  struct diff_result r = undecided_result();
  r.site_count = 1;
  sites[0] = sites[2];
  sites[0].count = 8;
  sites[0].live_bytes = steady_live;
  r.capture.boundary_count = 8;
  r.capture.boundary_times = NULL;
  r.capture.sample_bytes = 524288;
  r.capture.allocated = sampled_allocated;
  r.capture.run_allocated = 10000000;
  char *text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_SAMPLING_FLOOR);
  ck_assert_uint_eq(r.facts.sample_floor % 524288, 0);
  ck_assert_uint_ge(r.facts.sample_floor, 524288);
  ck_assert_double_eq_tol(r.facts.coverage, 0.65, 1e-12);
  ck_assert_double_eq_tol(r.facts.longest_stretch, 0.35, 1e-12);
  ck_assert_int_eq(r.facts.ends_early, 1);
  ck_assert_msg(strstr(text, "ljleak: INCONCLUSIVE: nothing grows, but a capture sampled every "
                             "512.0 KiB could not have seen a growth below ") == text,
                "%s", text);
  ck_assert_ptr_nonnull(strstr(text, "a smaller `ljleak run --sample` interval"));
  ck_assert_ptr_nonnull(strstr(text, "boundaries cover 65% of the run's work (the longest "
                                     "stretch without one: 35%); the evidence ends early"));
  free(text);
  static const enum report_format others[] = {REPORT_FORMAT_MARKDOWN, REPORT_FORMAT_HTML,
                                              REPORT_FORMAT_JUNIT};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    text = render(&r, others[i]);
    ck_assert_msg(strstr(text, "the smallest growth it could see: ") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "boundaries cover 65% of the run") != NULL, "%s", text);
    free(text);
  }
  /* JUnit: no site is in error, so one test case says why the run cannot tell (exit 5 with
   * a green suite was the JUnit of it). */
  text = render(&r, REPORT_FORMAT_JUNIT);
  ck_assert_ptr_nonnull(strstr(text, "tests=\"2\" failures=\"0\" errors=\"1\""));
  ck_assert_msg(strstr(text, "<testcase name=\"ljleak verdict\" classname=\"ljleak.trend\">\n"
                             "      <error type=\"inconclusive\" message=\"nothing grows, but a capture "
                             "sampled every 512.0 KiB could not have seen a growth below ") != NULL,
                "%s", text);
  free(text);
  text = render(&r, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(text, "\"coverage\": 0.65"));
  ck_assert_ptr_nonnull(strstr(text, "\"run_allocated\": 10000000"));
  struct diff_result back;
  read_json_text(text, &back);
  ck_assert_int_eq(back.facts.inconclusive, DIFF_INCONCLUSIVE_SAMPLING_FLOOR);
  ck_assert_uint_eq(back.facts.sample_floor, r.facts.sample_floor);
  ck_assert_double_eq_tol(back.facts.coverage, 0.65, 1e-12);
  diff_result_free(&back);
  free(text);
  /* A --min-growth at the floor accepts what the sampling cannot see: a pass. */
  r.options.min_growth_bytes = r.facts.sample_floor;
  text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_PASS);
  free(text);
  text = render(&r, REPORT_FORMAT_JUNIT);
  ck_assert_ptr_null(strstr(text, "ljleak verdict"));
  ck_assert_ptr_nonnull(strstr(text, "tests=\"1\" failures=\"0\" errors=\"0\""));
  free(text);
  /* Base mode: a site may grow there as in the base, no finding; "nothing grows" beside it
   * was untrue. */
  r.options.min_growth_bytes = 4096;
  r.mode = DIFF_MODE_BASE;
  r.base = r.capture;
  sites[0].base_verdict = DIFF_VERDICT_STEADY;
  sites[0].base_count = 8;
  sites[0].base_live_bytes = steady_live;
  text = render(&r, REPORT_FORMAT_TEXT);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_SAMPLING_FLOOR);
  ck_assert_msg(strstr(text, "ljleak: INCONCLUSIVE: nothing new or worse, but a capture sampled every ") == text,
                "%s", text);
  free(text);
}
END_TEST

START_TEST(test_base_mode_reason_says_which_capture_cannot_tell)
{
  static uint64_t rising[8] = {0, 10000, 20000, 30000, 40000, 50000, 60000, 70000};
  static uint64_t noisy[8] = {0, 30000, 5000, 40000, 2000, 45000, 1000, 50000};
  struct diff_site site = {.name = (char *)"@app.lua:35", .verdict = DIFF_VERDICT_UNDECIDED,
                           .count = 8, .live_bytes = rising, .trend_p_value = 2.5e-5,
                           .base_verdict = DIFF_VERDICT_UNDECIDED, .base_count = 8,
                           .base_live_bytes = noisy, .growth_bytes_per_segment = 10000};
  struct diff_result r;
  memset(&r, 0, sizeof r);
  r.mode = DIFF_MODE_BASE;
  r.options = (struct diff_options){.max_p_value = 0.01, .min_growth_bytes = 4096};
  r.capture.boundary_count = 8;
  r.base.boundary_count = 8;
  r.site_count = 1;
  r.sites = &site;
  char *text = render(&r, REPORT_FORMAT_TEXT);
  static const char base_cannot_tell[] =
      "ljleak: INCONCLUSIVE: 1 site grows in the candidate, but over its 8 boundaries the base "
      "shows no significant trend at p \u2264 0.01 for it, so whether it is new cannot be told\n"
      "        what to do: capture the base as long as the candidate";
  ck_assert_msg(strncmp(text, base_cannot_tell, strlen(base_cannot_tell)) == 0, "%s", text);
  free(text);
  /* The candidate's own rise is no trend: the reason says so. */
  site.trend_p_value = 0.2;
  text = render(&r, REPORT_FORMAT_TEXT);
  static const char no_trend[] =
      "ljleak: INCONCLUSIVE: 1 site rose by \u2265 4.0 KiB, but over 8 boundaries it shows no "
      "significant trend at p \u2264 0.01 (in the candidate, or in the base)\n"
      "        what to do: run longer";
  ck_assert_msg(strncmp(text, no_trend, strlen(no_trend)) == 0, "%s", text);
  free(text);
  /* A base too short to show anything. */
  r.base.boundary_count = 3;
  site.base_count = 3;
  text = render(&r, REPORT_FORMAT_TEXT);
  static const char short_base[] =
      "ljleak: INCONCLUSIVE: 1 site grows in the candidate, but the base's 3 boundaries cannot "
      "show whether it grew there too; 5 are needed\n";
  ck_assert_msg(strncmp(text, short_base, strlen(short_base)) == 0, "%s", text);
  free(text);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("report_outcome");
  TCase *tc = tcase_create("outcome");
  tcase_add_test(tc, test_text_leads_with_inconclusive_the_reason_and_what_to_do);
  tcase_add_test(tc, test_markdown_and_html_lead_with_inconclusive);
  tcase_add_test(tc, test_junit_has_an_error_per_undecided_site_and_notes_allowed_ones);
  tcase_add_test(tc, test_json_carries_the_outcome_and_reads_back_the_same);
  tcase_add_test(tc, test_old_json_without_the_new_members_still_reads);
  tcase_add_test(tc, test_json_reader_checks_the_new_members);
  tcase_add_test(tc, test_warmup_is_recorded_and_marked_in_every_format);
  tcase_add_test(tc, test_base_mode_reason_says_which_capture_cannot_tell);
  tcase_add_test(tc, test_a_sampling_floor_above_min_growth_is_inconclusive_in_every_format);
  suite_add_tcase(s, tc);
  return check_run(s);
}
