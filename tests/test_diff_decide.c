/* tests/test_diff_decide.c: undecided sites, the outcome, the warm-up, base mode, deciding a saved result again. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "diff/diff.h"
#include "diff/result.h"
#include "diff/trend.h"
#include "tests/diff_fixture.h"
#include "tests/diff_result_fixture.h"

static char dir[512];

static void setup(void)
{
  fixture_directory(dir, sizeof dir, "decide");
}

static void teardown(void)
{
  fixture_remove(dir);
}

/* A capture in dir/name: line 30 keeps leak bytes more per segment for its
 * first fill segments (all of them when fill is 0), line 40 holds 5000. */
static void write_capture(char *path, size_t size, const char *name, int segments,
                          uint64_t leak, int fill)
{
  fixture_path(path, size, dir, name);
  char command[700];
  snprintf(command, sizeof command, "mkdir -p '%s'", path);
  ck_assert_int_eq(system(command), 0);
  for (int k = 1; k <= segments; k++) {
    struct fixture_segment s;
    char file[700];
    snprintf(file, sizeof file, "%s/seg-%04d.memprof", path, k);
    fixture_begin(&s, file);
    if (k == 1)
      fixture_alloc(&s, 40, 0x50000, 5000);
    if (!fill || k <= fill)
      fixture_alloc(&s, 30, 0x900000 + 0x100000 * (uint64_t)k, leak);
    fixture_end(&s, 0);
  }
}

static void run_trend(const char *path, const struct diff_options *options,
                      struct diff_result *result)
{
  struct format_error err;
  const char *paths[1] = {path};
  ck_assert_msg(diff_trend(paths, 1, options, result, &err) == FORMAT_OK, "%s", err.message);
}

static void run_base(const char *base, const char *candidate, struct diff_result *result)
{
  struct diff_options options;
  diff_options_default(&options);
  struct format_error err;
  const char *base_paths[1] = {base}, *paths[1] = {candidate};
  ck_assert_msg(diff_base(base_paths, 1, paths, 1, &options, result, &err) == FORMAT_OK, "%s",
                err.message);
}

/* ---- The engine ----------------------------------------------------------------- */

START_TEST(test_capture_of_4_boundaries_with_a_leak_is_inconclusive)
{
  char path[600];
  write_capture(path, sizeof path, "four", 4, 100000, 0);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  run_trend(path, &options, &result);
  ck_assert_uint_eq(result.flagged, 0);
  ck_assert_uint_eq(result.facts.tally.undecided, 1);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_str_eq(result.sites[0].name, "@t.lua:30");  /* the undecided site first */
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert(result.sites[0].growth_bytes_per_segment == 100000);
  ck_assert_int_eq(result.sites[1].verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(result.options.min_boundaries, 5);  /* recorded: what the p-value needs */
  diff_result_free(&result);
}
END_TEST

START_TEST(test_capture_of_5_boundaries_with_a_leak_is_flagged)
{
  char path[600];
  write_capture(path, sizeof path, "five", 5, 100000, 0);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  run_trend(path, &options, &result);
  ck_assert_uint_eq(result.flagged, 1);
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_FLAGGED);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_capture_of_one_boundary_or_none_is_inconclusive)
{
  char path[600];
  write_capture(path, sizeof path, "one", 1, 100000, 0);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  run_trend(path, &options, &result);
  ck_assert_uint_eq(result.capture.boundary_count, 1);
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(result.sites[1].verdict, DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&result);

  /* Only the segment being written when the process died: no boundary. */
  char none[600], file[700];
  fixture_path(none, sizeof none, dir, "none");
  snprintf(file, sizeof file, "mkdir -p '%s'", none);
  ck_assert_int_eq(system(file), 0);
  snprintf(file, sizeof file, "%s/seg-0001.memprof.part", none);
  struct fixture_segment s;
  fixture_begin(&s, file);
  fixture_alloc(&s, 30, 0x900000, 100000);
  fixture_end(&s, 1);
  run_trend(none, &options, &result);
  ck_assert_uint_eq(result.capture.boundary_count, 0);
  ck_assert_uint_eq(result.facts.boundaries, 0);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_warmup_leaves_the_fill_out_and_keeps_the_series_whole)
{
  char path[600];
  write_capture(path, sizeof path, "fill", 6, 100000, 3);  /* 100k, 200k, 300k, then flat */
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  run_trend(path, &options, &result);
  ck_assert_int_eq(fixture_site(&result, "@t.lua:30")->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&result);

  options.warmup = 2;
  run_trend(path, &options, &result);
  const struct diff_site *site = fixture_site(&result, "@t.lua:30");
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(site->count, 6);
  ck_assert_uint_eq(site->live_bytes[0], 100000);
  ck_assert(site->growth_bytes_per_segment == 0);
  ck_assert_uint_eq(result.options.warmup, 2);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_PASS);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_range_mode_refuses_a_warmup)
{
  char path[600];
  write_capture(path, sizeof path, "range", 6, 100000, 0);
  struct diff_options options;
  diff_options_default(&options);
  options.range_from = 1;
  options.range_to = 6;
  options.warmup = 1;
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {path};
  ck_assert_int_eq(diff_range(paths, 1, &options, &result, &err), FORMAT_USAGE);
  ck_assert_str_eq(err.message,
                   "--warmup and --from/--to cannot be combined: a range names its boundaries");
}
END_TEST

START_TEST(test_base_that_cannot_tell_makes_a_growing_candidate_undecided)
{
  char base[600], short_base[600], one_base[600], candidate[600], short_candidate[600];
  write_capture(base, sizeof base, "base", 10, 0, 0);               /* line 30 flat */
  write_capture(short_base, sizeof short_base, "short", 3, 100000, 0);  /* rising, 3 points */
  write_capture(one_base, sizeof one_base, "one", 1, 100000, 0);
  write_capture(candidate, sizeof candidate, "cand", 10, 100000, 0);
  write_capture(short_candidate, sizeof short_candidate, "cshort", 4, 100000, 0);
  struct diff_result result;

  /* The base rose too, but over 3 boundaries: new or old, nobody can tell. */
  run_base(short_base, candidate, &result);
  const struct diff_site *site = fixture_site(&result, "@t.lua:30");
  ck_assert_int_eq(site->base_verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&result);

  /* A base of one boundary tells nothing about any site. */
  run_base(one_base, candidate, &result);
  ck_assert_int_eq(fixture_site(&result, "@t.lua:30")->verdict, DIFF_VERDICT_UNDECIDED);
  diff_result_free(&result);

  /* A flat base: the candidate's growth is new. */
  run_base(base, candidate, &result);
  ck_assert_int_eq(fixture_site(&result, "@t.lua:30")->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_FLAGGED);
  diff_result_free(&result);

  /* An undecided candidate stays undecided: never new on 4 boundaries. */
  run_base(base, short_candidate, &result);
  site = fixture_site(&result, "@t.lua:30");
  ck_assert_int_eq(site->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site->base_verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(result.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&result);
}
END_TEST

/* ---- The outcome ---------------------------------------------------------------- */

/* The outcome of a result built by hand: its facts, found after its last change. */
static enum diff_outcome outcome_of(struct diff_result *r)
{
  diff_result_fill_facts(r);
  return r->facts.outcome;
}

START_TEST(test_flagged_wins_over_undecided_and_no_boundary_is_inconclusive)
{
  static const uint64_t rising[8] = {0, 1, 2, 3, 4, 5, 6, 7}, flat[8] = {5, 5, 5, 5, 5, 5, 5, 5};
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 8);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_PASS);  /* 8 boundaries, no site */
  fixture_add_site(&r, "@a.lua:1", DIFF_VERDICT_STEADY, flat, 8);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_PASS);
  struct diff_site *undecided = fixture_add_site(&r, "@a.lua:2", DIFF_VERDICT_UNDECIDED, rising, 8);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  undecided->allowed = 1;  /* within its allow-list budget: it decides nothing */
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_PASS);
  undecided->allowed = 0;
  fixture_add_site(&r, "@a.lua:3", DIFF_VERDICT_GROWING, rising, 8);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_FLAGGED);
  ck_assert_uint_eq(r.facts.tally.undecided, 1);
  r.mode = DIFF_MODE_BASE;  /* growing in both builds: no regression, and one undecided */
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&r);

  fixture_result(&r, DIFF_MODE_TREND, 0);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  fixture_add_site(&r, "@a.lua:1", DIFF_VERDICT_INSUFFICIENT, flat, 0);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  diff_result_free(&r);

  /* A saved result without capture metadata counts its series' boundaries. */
  fixture_result(&r, DIFF_MODE_TREND, 0);
  fixture_add_site(&r, "@a.lua:1", DIFF_VERDICT_STEADY, flat, 8);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_PASS);
  ck_assert_uint_eq(r.facts.boundaries, 8);
  diff_result_free(&r);
}
END_TEST

/* Why sites have no verdict, once for the result and once for each site:
 * the capture too short, the base too short, the base without a verdict,
 * no significant trend, too few boundaries to measure; and what to do. */
START_TEST(test_facts_say_why_sites_have_no_verdict_and_what_would_decide_them)
{
  static const uint64_t rising[8] = {0, 1000, 2000, 3000, 4000, 5000, 6000, 7000};
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 4);  /* 4 boundaries, a trend needs 5 at p 0.01 */
  struct diff_site *site = fixture_add_site(&r, "@a.lua:1", DIFF_VERDICT_UNDECIDED, rising, 4);
  site->trend_p_value = 1.0 / 24;
  fixture_add_site(&r, "@a.lua:2", DIFF_VERDICT_INSUFFICIENT, rising, 1);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_NO_VERDICT);
  ck_assert_uint_eq(r.facts.judged, 4);
  ck_assert_uint_eq(r.facts.needed, 5);
  ck_assert_uint_eq(r.facts.rose_undecided, 1);
  ck_assert_uint_eq(r.facts.insufficient, 1);
  ck_assert_uint_eq(r.facts.tally.undecided, 2);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_SHORT_CAPTURE);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_RUN_LONGER);
  ck_assert_int_eq(r.sites[0].facts.rose_undecided, 1);
  ck_assert_int_eq(r.sites[0].facts.cause, DIFF_UNDECIDED_SHORT_CAPTURE);
  ck_assert_int_eq(r.sites[1].facts.rose_undecided, 0);
  ck_assert_int_eq(r.sites[1].facts.cause, DIFF_UNDECIDED_UNMEASURED);
  r.options.max_p_value = 0;  /* a saved result without its p-value */
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_uint_eq(r.facts.needed, SIZE_MAX);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_NO_P_VALUE);
  r.options.max_p_value = 0.01;
  r.options.warmup = 3;  /* one boundary left: no change can be measured */
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_TOO_FEW_BOUNDARIES);
  diff_result_free(&r);

  /* Base mode: 8 boundaries in the candidate, 3 in the base. */
  fixture_result(&r, DIFF_MODE_BASE, 8);
  r.base.boundary_count = 3;
  site = fixture_add_site(&r, "@a.lua:1", DIFF_VERDICT_UNDECIDED, rising, 8);
  site->trend_p_value = 1.0 / 40320;
  site->base_verdict = DIFF_VERDICT_STEADY;
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_SHORT_BASE);
  ck_assert_int_eq(r.sites[0].facts.cause, DIFF_UNDECIDED_SHORT_BASE);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_LONGER_BASE);
  /* A base as long, without a verdict of its own: the base is to blame for
   * the site; for the result too, as the candidate's trend is significant. */
  r.base.boundary_count = 8;
  r.sites[0].base_verdict = DIFF_VERDICT_UNDECIDED;
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.sites[0].facts.cause, DIFF_UNDECIDED_BASE_NO_TREND);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_BASE_NO_TREND);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_LONGER_BASE);
  /* Not significant in the candidate: no trend, wherever it is missing. */
  r.sites[0].trend_p_value = 0.5;
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_NO_TREND);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_RUN_LONGER);
  r.sites[0].base_verdict = DIFF_VERDICT_STEADY;
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.sites[0].facts.cause, DIFF_UNDECIDED_NO_TREND);
  /* Decided: no cause, no remedy. */
  r.sites[0].verdict = DIFF_VERDICT_NEW;
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_FLAGGED);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_NOT);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_NONE);
  ck_assert_int_eq(r.facts.rose_cause, DIFF_UNDECIDED_NONE);
  ck_assert_int_eq(r.sites[0].facts.cause, DIFF_UNDECIDED_NONE);
  ck_assert_int_eq(r.sites[0].facts.flagged, 1);
  ck_assert_uint_eq(r.facts.tally.new_count, 1);
  diff_result_free(&r);

  fixture_result(&r, DIFF_MODE_TREND, 0);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_NO_BOUNDARY);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_RUN_LONGER);
  diff_result_free(&r);

  /* One boundary and no site (a capture cut right after its start): nothing was measured,
   * so no "nothing grows"; two boundaries without a site measured that nothing was made. */
  fixture_result(&r, DIFF_MODE_TREND, 1);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(r.facts.inconclusive, DIFF_INCONCLUSIVE_TOO_FEW_BOUNDARIES);
  ck_assert_int_eq(r.facts.remedy, DIFF_REMEDY_RUN_LONGER);
  diff_result_free(&r);
  fixture_result(&r, DIFF_MODE_TREND, 2);
  ck_assert_int_eq(outcome_of(&r), DIFF_OUTCOME_PASS);
  diff_result_free(&r);
}
END_TEST

/* The default options and a capture of n boundaries sampled every 512 KiB; returns its floor. */
static uint64_t sampled_at_512k(size_t n, struct diff_options *options, struct diff_capture *info)
{
  diff_options_default(options);
  *info = (struct diff_capture){0};
  info->sample_bytes = 512 * 1024;
  info->boundary_count = n;
  return diff_sampling_floor(info->sample_bytes, n, options);
}

/* A sampled capture: a few sampled blocks late in a steady run (a log refilled after a flush no
 * boundary saw: 0 ... 0, 512 KiB, 1 MiB, 1.5 MiB, 2 MiB at --sample 512k) rise by less than the
 * sampling floor (3 MiB on 14 boundaries),
 * the least growth the sampling lets a trend show, so they are not a leak: the sites are judged
 * with --min-growth raised to the floor. A leak above the floor is still growing. */
START_TEST(test_a_sampled_rise_below_the_floor_is_no_leak)
{
  enum { N = 14 };
  uint64_t late[N] = {0}, leak[N];
  for (size_t k = 0; k < 4; k++)
    late[N - 4 + k] = (k + 1) * 512 * 1024;
  struct diff_options options;
  struct diff_capture info;
  uint64_t floor = sampled_at_512k(N, &options, &info);
  ck_assert_uint_gt(floor, late[N - 1]);
  for (size_t k = 0; k < N; k++)
    leak[k] = (uint64_t)k * floor / 4;  /* 3.25 floors in all */
  struct diff_options judging = diff_result_judging_options(&options, &info);
  ck_assert_double_eq(judging.min_growth_bytes, (double)floor);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict(late, N, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);  /* what the rule alone says */
  ck_assert_int_eq(diff_trend_verdict(late, N, &judging, &verdict, &trend), 0);
  ck_assert_int_ne(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(diff_trend_verdict(leak, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* A full capture, and a floor below --min-growth, leave the options as they are. */
  info.sample_bytes = 0;
  ck_assert_double_eq(diff_result_judging_options(&options, &info).min_growth_bytes, options.min_growth_bytes);
  info.sample_bytes = 512 * 1024;
  options.min_growth_bytes = (double)floor * 2;
  ck_assert_double_eq(diff_result_judging_options(&options, &info).min_growth_bytes, (double)floor * 2);
}
END_TEST

/* flush_once_steady.lua at --sample 512k (its default length, 16 boundaries, a floor of
 * 3 MiB): the log is flushed once late in the run. A sampled series falls only where sampled
 * blocks were freed, so its falls are judged by --min-growth, and only its rises by the floor:
 * a flush of 2.3 MiB, below the floor, then a refill to 6.3 MiB is a fill and flush; a flush of
 * 6.7 MiB then a refill of 2.8 MiB, within the floor, is no growth after the flush. Both were
 * growing with the drops judged by the floor. A leak with a flush above it still grows. */
START_TEST(test_a_sampled_flush_is_judged_by_min_growth)
{
  enum { N = 16 };
  uint64_t small_flush[N] = {0, 0, 0, 0, 0, 0, 1190554, 1878041,
                             2402353, 2402353, 0, 524312, 1572938, 2097252, 5548235, 6596863};
  uint64_t short_refill[N] = {0, 0, 0, 0, 0, 0, 1190554, 1714866,
                              2402353, 2926665, 5023913, 6980135, 0, 666242, 1878045, 2926673};
  uint64_t leak[N];
  struct diff_options options;
  struct diff_capture info;
  uint64_t floor = sampled_at_512k(N, &options, &info);
  ck_assert_uint_eq(floor, 3 * 1024 * 1024);
  for (size_t k = 0; k < N; k++)  /* 2 MiB kept a flush on top of a 6 MiB buffer flushed once */
    leak[k] = (uint64_t)k * 2 * 1024 * 1024 + (k < 8 ? (uint64_t)k * 768 * 1024 : 0);
  struct diff_options judging = diff_result_judging_options(&options, &info);
  ck_assert_double_eq(judging.min_drop_bytes, options.min_growth_bytes);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict(small_flush, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  ck_assert_int_eq(diff_trend_verdict(short_refill, N, &judging, &verdict, &trend), 0);
  ck_assert_int_ne(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.settled, 1);
  ck_assert_int_eq(diff_trend_verdict(leak, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* Falls judged by the floor, as rises are: the small flush reads as growth, and the short
   * refill is not seen (here, without the work at each boundary, it is undecided). */
  judging.min_drop_bytes = 0;
  ck_assert_int_eq(diff_trend_verdict(small_flush, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(diff_trend_verdict(short_refill, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(trend.settled, 0);
}
END_TEST

/* A sampled flush that no boundary's live bytes show: the boundary after it came once the
 * log had partly refilled (3.2 MiB, then 2.0 MiB), but that segment freed every block live at
 * its start (survived 0). Its low within the segment is a drop, the log refills and the
 * series is filled and flushed: steady. Without the segment's frees it was growing (a real
 * capture of flush_once_steady at --sample 512k; another, whose boundary came once the log had
 * refilled to where it was, 2 MiB). A leak that frees 64 KiB a segment while
 * it keeps MiBs, and a table whose part is replaced by a bigger one (everything live at the
 * segment's start freed, the series rising) still grow. */
START_TEST(test_a_sampled_flush_seen_in_a_segments_frees_is_steady)
{
  enum { N = 16 };
  static const uint64_t live[N] = {0, 0, 0, 0, 0, 0, 0, 0, 829417, 1353729, 1878041, 3309951,
                                   2097254, 2621568, 3670194, 4194506};
  static const uint64_t survived[N] = {UINT64_MAX, 0, 0, 0, 0, 0, 0, 0, 0, 1353729, 1353729,
                                       1048624, 0, 2621568, 2621568, 4194506};
  uint64_t leak[N], leak_survived[N], table[N], table_survived[N];
  struct diff_options options;
  struct diff_capture info;
  sampled_at_512k(N, &options, &info);
  struct diff_options judging = diff_result_judging_options(&options, &info);
  for (size_t k = 0; k < N; k++) {
    leak[k] = (uint64_t)k * 1024 * 1024;
    leak_survived[k] = k ? leak[k - 1] - 64 * 1024 : UINT64_MAX;
    table[k] = (uint64_t)k * 512 * 1024;
    table_survived[k] = k % 2 ? 0 : table[k];  /* every other segment, the part replaced */
  }
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(live, NULL, survived, NULL, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  ck_assert_uint_eq(trend.drops, 1);
  struct diff_trend_drop drops[N];
  ck_assert_uint_eq(diff_trend_find_drops(live, survived, N, &trend, drops), 1);
  ck_assert_uint_eq(drops[0].high, 11);
  ck_assert_uint_eq(drops[0].low, 12);
  ck_assert_int_eq(diff_trend_verdict_work(live, NULL, NULL, NULL, N, &judging, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* Refilled to where it was by the boundary (2 MiB and 6 bytes), all it held freed between. */
  static const uint64_t level[13] = {0, 0, 0, 0, 0, 0, 1572936, 1572936, 1572936, 2097248, 2097248,
                                     2097254, 3450985};
  static const uint64_t level_survived[13] = {UINT64_MAX, 0, 0, 0, 0, 0, 524312, 1572936, 1572936,
                                              1572936, 2097248, 0, 2926671};
  struct diff_options short_judging;
  sampled_at_512k(13, &options, &info);
  short_judging = diff_result_judging_options(&options, &info);
  ck_assert_int_eq(diff_trend_verdict_work(level, NULL, level_survived, NULL, 13, &short_judging,
                                           &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(diff_trend_verdict_work(level, NULL, NULL, NULL, 13, &short_judging, &verdict,
                                           &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(diff_trend_verdict_work(leak, NULL, leak_survived, NULL, N, &judging, &verdict,
                                           &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(trend.drops, 0);
  ck_assert_int_eq(diff_trend_verdict_work(table, NULL, table_survived, NULL, N, &judging, &verdict,
                                           &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(trend.drops, 0);
}
END_TEST

/* A string kept and appended to (a full capture): each segment frees the one block live at its
 * start, replaced by a bigger copy, while the series rises; in the run's last segment it rose by
 * 20 bytes on 188 KB, less than a sampled refill's rounding (1/4096 of the level), and that
 * segment read as a flush refilled within it: filled and flushed, steady, exit 0. Not sampled,
 * only a segment that did not rise at all has a dip: growing. A full capture's buffer flushed and
 * refilled within a segment to exactly where it was still has its dip. */
START_TEST(test_a_string_appended_to_is_no_flush_however_little_it_grew)
{
  enum { N = 40 };
  uint64_t live[N], survived[N], level[N], level_survived[N];
  for (size_t k = 0; k < N; k++) {
    live[k] = 4096 + 4700 * (uint64_t)k;
    survived[k] = k ? 0 : UINT64_MAX;
    level[k] = k < 20 ? 8192 * (uint64_t)k : 8192 * 19;
    level_survived[k] = k ? (k == 30 ? 0 : level[k - 1]) : UINT64_MAX;
  }
  live[N - 1] = live[N - 2] + 20;
  struct diff_options options;
  diff_options_default(&options);
  options.min_growth_fraction = 0;
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(live, NULL, survived, NULL, N, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(trend.drops, 0);
  struct diff_trend_drop drops[N];
  ck_assert_uint_eq(diff_trend_find_drops(live, survived, N, &trend, drops), 0);
  /* A site that kept what it held until that segment: in a sampled capture, a refill that
   * rounding lifted by 20 bytes is a dip; in a full one it is none. */
  uint64_t kept[N];
  for (size_t k = 0; k < N; k++)
    kept[k] = k == 0 ? UINT64_MAX : k == N - 1 ? 0 : live[k - 1];
  double dip[N];
  diff_trend_dips(live, kept, N, 1, dip);
  ck_assert_double_eq(dip[N - 1], 0);
  diff_trend_dips(live, kept, N, 0, dip);
  ck_assert_double_eq(dip[N - 1], (double)live[N - 1]);
  /* One that replaces all it holds in every segment where it rises shows no flush in its frees,
   * sampled or not; a boundary that caught the old copy and the new in the middle of an append
   * (twice the level for one point, then a fall of half) is no flush either: growing (it was
   * steady, in 2 runs of 6 of testdata/append/log_leak.lua). */
  diff_trend_dips(live, survived, N, 1, dip);
  ck_assert_double_eq(dip[N - 1], (double)live[N - 1]);
  uint64_t twice[N];
  memcpy(twice, live, sizeof twice);
  twice[25] = 2 * live[25] - 4096;
  ck_assert_int_eq(diff_trend_verdict_work(twice, NULL, survived, NULL, N, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(trend.drops, 0);
  diff_trend_dips(level, level_survived, N, 0, dip);
  ck_assert_double_eq(dip[30], 0);
  ck_assert_double_eq(dip[31], (double)level[31]);
}
END_TEST

/* Sampled flushes that the boundaries show, refilled by less than the floor, or by less than
 * half the fall: what rose was let go, and what refilled is no growth the sampling can show,
 * nor a registry released at the end: steady (a capture exits 5 naming its floor). Real
 * captures at --sample 512k (floor 3 MiB) that were undecided, as released at the end: of
 * flush_once_steady, a flush of 4.7 MiB refilled by 1.5 MiB; of flush_few_steady, flushes of
 * 7.3 and 3.3 MiB refilled by 3.5 MiB. A registry let go at the end, never refilled, is
 * not steady. */
START_TEST(test_a_sampled_refill_after_a_flush_is_no_release)
{
  static const uint64_t below_floor[16] = {0, 0, 0, 524312, 524312, 1572936, 2239178, 2239178,
                                           2402353, 2926665, 2926665, 4882887, 0, 524314, 524314,
                                           2097256};
  static const uint64_t short_refill[22] = {0, 0, 0, 0, 0, 1082063, 2689828, 2689828, 3812138,
                                            3812138, 4499625, 0, 524312, 524312, 1048632, 2621584,
                                            8169849, 8169849, 524320, 3975321, 524314, 4262770};
  uint64_t released[16];
  for (size_t k = 0; k < 16; k++)
    released[k] = k < 14 ? (uint64_t)k * 512 * 1024 : 0;
  struct diff_options options;
  struct diff_capture info;
  sampled_at_512k(16, &options, &info);
  struct diff_options judging = diff_result_judging_options(&options, &info);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(below_floor, NULL, NULL, NULL, 16, &judging, &verdict,
                                           &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.settled, 1);
  ck_assert_int_eq(trend.released, 0);
  ck_assert_int_eq(diff_trend_verdict_work(released, NULL, NULL, NULL, 16, &judging, &verdict,
                                           &trend), 0);
  ck_assert_int_ne(verdict, DIFF_VERDICT_STEADY);  /* no refill: not settled */
  ck_assert_int_eq(trend.settled, 0);
  sampled_at_512k(22, &options, &info);
  judging = diff_result_judging_options(&options, &info);
  ck_assert_int_eq(diff_trend_verdict_work(short_refill, NULL, NULL, NULL, 22, &judging, &verdict,
                                           &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.released, 0);
}
END_TEST

/* service_steady.lua at 20000 requests (20 boundaries, under its documented minimum length),
 * VM: trace compiler: side traces compiled all through the short run, a rise the trend calls
 * growing (3 runs of 30 beside a CPU-bound neighbour). The JIT's memory is bounded by its
 * limits (a full trace cache is flushed): steady, as a site and as a stack row; a Lua site
 * that rises as much grows. */
START_TEST(test_the_jits_own_traces_are_bounded_not_growing)
{
  enum { N = 20 };
  uint64_t traces[N] = {0,     0,     2416,  2416,  2416,  2416,  2416,  3572,  13088, 13088,
                        16488, 16488, 16488, 16488, 16488, 16488, 20472, 20472, 24056, 24056};
  uint64_t work[N] = {0,        97005,    245957,   655861,   1666449,  2715897,  2715897,
                      3764877,  4814377,  4815085,  6019521,  7526157,  9407837,  11760285,
                      11760285, 14700973, 18380061, 18380721, 22978401, 27899181};
  struct diff_capture info;
  memset(&info, 0, sizeof info);
  info.boundary_count = N;
  info.allocated = work;
  uint64_t ramp[N];   /* a Lua site's leak over the same boundaries */
  for (size_t k = 0; k < N; k++)
    ramp[k] = 1300 * (uint64_t)k;
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(traces, NULL, NULL, work, N, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);  /* what the trend alone says */
  const char *names[] = {"VM: trace compiler", "ljleak run;@app.lua:61;cjson.encode;VM: trace compiler",
                         "VM: trace recorder", "@app.lua:61", "ljleak run;VM: trace compiler;@app.lua:3"};
  enum diff_verdict want[] = {DIFF_VERDICT_STEADY, DIFF_VERDICT_STEADY, DIFF_VERDICT_STEADY,
                              DIFF_VERDICT_GROWING, DIFF_VERDICT_GROWING};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    struct diff_site site;
    memset(&site, 0, sizeof site);
    site.name = (char *)names[i];
    site.live_bytes = diff_site_is_jit(names[i]) ? traces : ramp;
    site.count = N;
    ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
    ck_assert_msg(site.verdict == want[i], "%s: verdict %d", names[i], (int)site.verdict);
  }
  ck_assert(!diff_site_is_jit(NULL));
  ck_assert(!diff_site_is_jit("VM: trace compiler x"));
}
END_TEST

/* A site of a Lua line over count boundaries of live, not yet judged. */
static struct diff_site lua_site(const char *name, uint64_t *live, size_t count)
{
  struct diff_site site;
  memset(&site, 0, sizeof site);
  site.name = (char *)name;
  site.kind = DIFF_SITE_LUA;
  site.live_bytes = live;
  site.count = count;
  return site;
}

/* The facts of a trend result of one judged site, over the capture info. */
static struct diff_facts facts_of(struct diff_site *site, const struct diff_capture *info)
{
  struct diff_result result;
  memset(&result, 0, sizeof result);
  diff_options_default(&result.options);
  result.capture = *info;
  result.sites = site;
  result.site_count = 1;
  diff_result_fill_facts(&result);
  return result.facts;
}

/* A reply cache filled over 6 boundaries and held for 5 (cjson.encode's in service_steady.lua with
 * 12000 keys): a cache that filled, or a leak that paused. Judged by diff_result_judge_site,
 * undecided and held briefly, the result inconclusive; what decides it is more of the program's
 * work, not more boundaries of the same work. */
START_TEST(test_a_site_held_briefly_asks_for_more_work)
{
  uint64_t fill[22] = {0,       0,      0,      0,      0,      0,      0,      0,
                       0,       0,      60928,  150323, 312934, 312934, 510771, 779981,
                       1083187, 1242931, 1242931, 1242931, 1242931, 1242931};
  struct diff_capture info;
  memset(&info, 0, sizeof info);
  info.boundary_count = 22;
  struct diff_options options;
  diff_options_default(&options);
  struct diff_site site = lua_site("@cache.lua:12", fill, 22);
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site.held_briefly, 1);
  struct diff_facts facts = facts_of(&site, &info);
  ck_assert_int_eq(facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(facts.rose_cause, DIFF_UNDECIDED_HELD_BRIEFLY);
  ck_assert_int_eq(facts.remedy, DIFF_REMEDY_MORE_WORK);
  /* Held as long as it rose (three more boundaries of it): steady, as before. */
  uint64_t longer[25];
  memcpy(longer, fill, sizeof fill);
  for (size_t i = 22; i < 25; i++)
    longer[i] = fill[21];
  site = lua_site("@cache.lua:12", longer, 25);
  info.boundary_count = 25;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(site.held_briefly, 0);
}
END_TEST

/* A string kept and appended to, a new copy each cycle, captured by ljleak run: at the program's
 * own cycles the newest copy is young and left out, so those boundaries hold only a buffer that
 * doubles, flat in the later half; the forced boundaries (a full cycle each) hold the string,
 * rising all through. Judged on every boundary, steady (exit 0); judged on the forced ones, it
 * grows: undecided, saying why. The same series of the VM's work stays steady, and so does a
 * site whose forced boundaries do not rise. */
START_TEST(test_a_site_growing_only_at_the_forced_boundaries_is_undecided)
{
  enum { N = 40 };
  static const unsigned char forced[N] = {1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1,
                                          0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  uint64_t live[N], flat[N], work[N];
  for (size_t k = 0, f = 0; k < N; k++) {
    work[k] = 20000 * (uint64_t)k * k;
    live[k] = forced[k] ? 7000 * (uint64_t)++f : 65536;
    flat[k] = forced[k] ? 30000 : live[k];
  }
  struct diff_capture info;
  memset(&info, 0, sizeof info);
  info.boundary_count = N;
  info.allocated = work;
  struct diff_options options;
  diff_options_default(&options);
  struct diff_site site = lua_site("@log.lua:6", live, N);
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);  /* every boundary: what it was */
  info.forced = (unsigned char *)forced;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site.forced_growing, 1);
  struct diff_facts facts = facts_of(&site, &info);
  ck_assert_int_eq(facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(facts.rose_cause, DIFF_UNDECIDED_FORCED_GROWS);
  ck_assert_int_eq(facts.remedy, DIFF_REMEDY_FORCED_ONLY);
  site.kind = DIFF_SITE_INTERNAL;
  site.name = "VM: GC";
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);
  site.kind = DIFF_SITE_LUA;
  site.name = "@log.lua:6";
  site.live_bytes = flat;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(site.forced_growing, 0);
}
END_TEST

/* A string kept and appended to, with no forced boundary to judge it on: at each boundary of
 * the program's own cycles, the copy the boundary before counted is freed and the newest is
 * young (with the one the cycle could not yet free), and the concatenation's buffer is there
 * or shrunk. Live bytes rise and fall back to 0 every third boundary: filled and flushed,
 * steady, exit 0 (testdata/append/log_buffer.lua at 200000 requests). The falls are copies
 * replaced, and with young blocks counted the lows rise: undecided, saying why. A buffer
 * flushed for real (little young at its lows) stays steady, as does the VM's work. */
START_TEST(test_a_copy_young_at_every_boundary_is_undecided)
{
  enum { N = 96 };
  uint64_t live[N], young[N], flushed[N];
  for (size_t k = 0; k < N; k++) {
    uint64_t length = 4000 * (uint64_t)(k + 1), buffer = 4096;
    while (buffer < length)
      buffer *= 2;
    live[k] = k % 3 == 0 ? buffer + length : k % 3 == 1 ? buffer : 0;
    young[k] = k % 3 == 0 ? length / 8 : 2 * length;
    flushed[k] = k % 3 == 2 ? 1000 : young[k];
  }
  struct diff_capture info;
  memset(&info, 0, sizeof info);
  info.boundary_count = N;
  struct diff_options options;
  diff_options_default(&options);
  struct diff_site site = lua_site("@log.lua:16", live, N);
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);  /* without the young bytes: a flush */
  site.young = young;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site.young_growing, 1);
  ck_assert_int_eq(site.forced_growing, 0);
  struct diff_facts facts = facts_of(&site, &info);
  ck_assert_int_eq(facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(facts.rose_cause, DIFF_UNDECIDED_YOUNG_GROWS);
  ck_assert_int_eq(facts.remedy, DIFF_REMEDY_EVERY);
  /* A saved result has no young bytes: judged again, what it found stands. */
  site.young = NULL;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site.young_growing, 1);
  site.young_growing = 0;
  site.young = flushed;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(site.young_growing, 0);
  site.young = young;
  site.kind = DIFF_SITE_INTERNAL;
  site.name = "VM: string buffer";
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_STEADY);
}
END_TEST

/* A site that rose with a significant trend and was let go in the last quarter of the run is
 * undecided, and says so (it said "no significant trend" beside p = 2.8e-10), with what to do: a
 * boundary before the release. */
START_TEST(test_a_site_released_at_the_end_says_so)
{
  static const uint64_t kib[] = {0,    37,   147,  491,   1241,  1500,  2172,  2173,
                                 3197, 4065, 4065, 5146,  6817,  6817,  8161,  10329,
                                 13682, 13682, 16352, 20696, 23554, 23554, 15163, 8294};
  enum { N = sizeof kib / sizeof *kib };
  uint64_t live[N];
  for (size_t k = 0; k < N; k++)
    live[k] = kib[k] * 1024;
  struct diff_options options;
  diff_options_default(&options);
  struct diff_site site = lua_site("@big.lua:3", live, N);
  uint64_t work[N];  /* most of the run's work in its last boundaries, as in the capture */
  for (size_t k = 0; k < N; k++)
    work[k] = (uint64_t)k * k * k * 1000;
  struct diff_capture info;
  memset(&info, 0, sizeof info);
  info.boundary_count = N;
  info.allocated = work;
  ck_assert_int_eq(diff_result_judge_site(&site, &options, &info), 0);
  ck_assert_int_eq(site.verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(site.released_at_end, 1);
  struct diff_facts facts = facts_of(&site, &info);
  ck_assert_int_eq(facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(facts.rose_cause, DIFF_UNDECIDED_RELEASED);
  ck_assert_int_eq(site.facts.cause, DIFF_UNDECIDED_RELEASED);
  ck_assert_int_eq(facts.remedy, DIFF_REMEDY_BEFORE_RELEASE);
}
END_TEST

START_TEST(test_outcome_names_parse_back)
{
  enum diff_outcome outcome;
  ck_assert_str_eq(diff_outcome_name(DIFF_OUTCOME_PASS), "pass");
  ck_assert_str_eq(diff_outcome_name(DIFF_OUTCOME_FLAGGED), "flagged");
  ck_assert_str_eq(diff_outcome_name(DIFF_OUTCOME_INCONCLUSIVE), "inconclusive");
  ck_assert_str_eq(diff_outcome_name((enum diff_outcome)7), "unknown");
  ck_assert_int_eq(diff_outcome_parse("inconclusive", &outcome), 0);
  ck_assert_int_eq(outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_int_eq(diff_outcome_parse("undecided", &outcome), -1);
  enum diff_verdict verdict;
  ck_assert_int_eq(diff_verdict_parse("undecided", &verdict), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_UNDECIDED);
}
END_TEST

/* ---- Deciding a saved result again -------------------------------------------------- */

START_TEST(test_decide_again_with_a_warmup_changes_a_fill_then_flat_verdict)
{
  static const uint64_t fill[6] = {100000, 200000, 300000, 300000, 300000, 300000};
  static const uint64_t leak[6] = {0, 100000, 200000, 300000, 400000, 500000};
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_TREND, 6);
  fixture_add_site(&r, "@cache.lua:1", DIFF_VERDICT_STEADY, fill, 6);  /* as an old result said */
  fixture_add_site(&r, "@leak.lua:1", DIFF_VERDICT_STEADY, leak, 6);
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_str_eq(r.sites[0].name, "@leak.lua:1");  /* flagged first */
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@cache.lua:1")->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_uint_eq(r.flagged, 1);

  options.warmup = 2;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@cache.lua:1")->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(fixture_site(&r, "@leak.lua:1")->verdict, DIFF_VERDICT_UNDECIDED);  /* 4 left */
  ck_assert_uint_eq(r.options.warmup, 2);
  ck_assert_uint_eq(r.flagged, 0);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_uint_eq(fixture_site(&r, "@cache.lua:1")->count, 6);  /* the series stays whole */
  diff_result_free(&r);
}
END_TEST

/* A site that rose in one step while the program warmed up and then held
 * for n_min boundaries (the string table doubled once) is steady, and the
 * run passes; with a boundary fewer after the step, or a --min-boundaries
 * above its hold, the run cannot tell, and it is inconclusive (docs/diff.md,
 * "Rose, then held"). */
START_TEST(test_one_step_that_held_passes_a_late_one_is_inconclusive)
{
  static const uint64_t doubled[8] = {0, 8192, 8192, 16384, 16384, 16384, 16384, 16384};
  static const uint64_t flat[8] = {5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000};
  struct format_error err;
  for (size_t n = 8; n >= 7; n--) {
    struct diff_result r;
    fixture_result(&r, DIFF_MODE_TREND, n);
    fixture_add_site(&r, "VM: string table", DIFF_VERDICT_UNDECIDED, doubled, n);
    fixture_add_site(&r, "@app.lua:1", DIFF_VERDICT_STEADY, flat, n);
    struct diff_options options = r.options;
    ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
    const struct diff_site *table = fixture_site(&r, "VM: string table");
    ck_assert_int_eq(table->verdict, n == 8 ? DIFF_VERDICT_STEADY : DIFF_VERDICT_UNDECIDED);
    ck_assert_int_eq(r.facts.outcome, n == 8 ? DIFF_OUTCOME_PASS : DIFF_OUTCOME_INCONCLUSIVE);
    if (n == 8) {
      options.min_boundaries = 6;  /* the hold must be as long as what a trend needs */
      ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
      ck_assert_int_eq(fixture_site(&r, "VM: string table")->verdict, DIFF_VERDICT_UNDECIDED);
      ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_INCONCLUSIVE);
    }
    diff_result_free(&r);
  }
}
END_TEST

/* Floating garbage (docs/diff.md, "Floating garbage"): a capture whose
 * boundaries 0-4 and 18-19 ended full cycles the collector forced and 5-17
 * the program's own. Line 41 makes k KB at each own boundary k, freed two
 * boundaries later (dead strings found again before they were swept live
 * past the next own cycle), and the last at the full cycle of boundary 18:
 * its live bytes climb to 33 KB, and nothing of them lasts to a full
 * cycle: steady. Line 30 keeps 1000 bytes a boundary: growing, and as
 * high at the full cycles as at the own ones, so not read again. */
START_TEST(test_what_dies_by_the_next_full_cycle_is_no_leak)
{
  char path[600], file[700];
  fixture_path(path, sizeof path, dir, "floating");
  char command[700];
  snprintf(command, sizeof command, "mkdir -p '%s'", path);
  ck_assert_int_eq(system(command), 0);
  snprintf(file, sizeof file, "%s/seg-0001.memprof", path);
  struct fixture_segment s;
  fixture_begin(&s, file);
  char index[4096];
  size_t used = (size_t)snprintf(index, sizeof index, "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n");
  uint64_t events = 0;
  for (uint64_t k = 0; k < 20; k++) {
    int own = k >= 5 && k <= 17;
    fixture_alloc(&s, 30, 0x100000 + 0x1000 * k, 1000);
    events++;
    for (uint64_t born = 5; born <= 17; born++)
      if (born + 2 == k || (k == 18 && born == 17)) {
        fixture_free(&s, 41, 0x800000 + 0x1000 * born, 1000 * born);
        events++;
      }
    if (own) {
      fixture_alloc(&s, 41, 0x800000 + 0x1000 * k, 1000 * k);
      events++;
    }
    used += (size_t)snprintf(index + used, sizeof index - used,
                             "boundary\tseq=%u\tsegment=1\tevents=%u\tcause=%s\n", (unsigned)k + 1,
                             (unsigned)events, own ? "gc" : "volume");
  }
  fixture_end(&s, 0);
  snprintf(index + used, sizeof index - used, "segment\tseq=1\tfile=seg-0001.memprof\tevents=%u\tcomplete=1\n",
           (unsigned)events);
  snprintf(file, sizeof file, "%s/index", path);
  FILE *out = fopen(file, "w");
  ck_assert_ptr_nonnull(out);
  fputs(index, out);
  fclose(out);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  run_trend(path, &options, &r);
  const struct diff_site *floating = fixture_site(&r, "@t.lua:41"), *leak = fixture_site(&r, "@t.lua:30");
  ck_assert_uint_eq(floating->count, 20);
  ck_assert_uint_eq(floating->live_bytes[17], 33000);  /* 16 KB and 17 KB */
  ck_assert_uint_eq(floating->live_bytes[18], 0);
  ck_assert_ptr_nonnull(floating->kept);
  for (size_t k = 5; k <= 17; k++)
    ck_assert_uint_eq(floating->kept[k], 0);
  enum diff_verdict on_live;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(floating->live_bytes, NULL, NULL, NULL, 20, &options, &on_live, &trend), 0);
  ck_assert_int_eq(on_live, DIFF_VERDICT_GROWING);  /* without the rule */
  ck_assert_int_eq(floating->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(leak->verdict, DIFF_VERDICT_GROWING);
  ck_assert_ptr_null(leak->kept);  /* never lower at a full cycle: not read again */
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_FLAGGED);
  ck_assert_uint_eq(r.flagged, 1);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_decide_again_in_base_mode_follows_the_base_series)
{
  static const uint64_t rising[8] = {0, 1000, 2000, 3000, 4000, 5000, 6000, 7000};
  static const uint64_t half[8] = {0, 500, 1000, 1500, 2000, 2500, 3000, 3500};
  static const uint64_t flat[8] = {7000, 7000, 7000, 7000, 7000, 7000, 7000, 7000};
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_BASE, 8);
  r.base.boundary_count = 8;
  r.options.min_growth_bytes = 1000;
  struct diff_site *site = fixture_add_site(&r, "@same.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  site->base_live_bytes = fixture_series_copy(rising, 8);
  site->base_count = 8;
  site = fixture_add_site(&r, "@worse.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  site->base_live_bytes = fixture_series_copy(half, 8);
  site->base_count = 8;
  site = fixture_add_site(&r, "@flat.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  site->base_live_bytes = fixture_series_copy(flat, 8);
  site->base_count = 8;
  fixture_add_site(&r, "@absent.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  site = fixture_add_site(&r, "@short.lua:1", DIFF_VERDICT_STEADY, rising, 8);
  site->base_live_bytes = fixture_series_copy(rising, 3);  /* 3 points: undecided there */
  site->base_count = 3;
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@same.lua:1")->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@same.lua:1")->base_verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@worse.lua:1")->verdict, DIFF_VERDICT_WORSE);
  ck_assert(fixture_site(&r, "@worse.lua:1")->base_growth_bytes_per_segment == 500);
  ck_assert_int_eq(fixture_site(&r, "@flat.lua:1")->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(fixture_site(&r, "@absent.lua:1")->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(fixture_site(&r, "@absent.lua:1")->base_verdict, DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(fixture_site(&r, "@short.lua:1")->base_verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(fixture_site(&r, "@short.lua:1")->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_uint_eq(r.flagged, 3);
  ck_assert_int_eq(r.facts.outcome, DIFF_OUTCOME_FLAGGED);

  r.base.boundary_count = 1;  /* a base of one boundary: nothing is new for sure */
  options.warmup = 0;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@absent.lua:1")->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_uint_eq(r.flagged, 0);
  diff_result_free(&r);
}
END_TEST

/* A base shorter than the candidate, both by work: a slow leak that rises under --min-growth in
 * the base's 6 boundaries, beside a flat base, is new (it passed, exit 0, as "grows in both
 * alike": the difference was judged on the 6 alone); a steady candidate stays steady. */
START_TEST(test_aligned_by_work_with_a_shorter_base_flags_a_slow_new_leak)
{
  enum { N = 24, B = 6 };
  uint64_t slow[N], flat[N], wobble[N];
  for (int k = 0; k < N; k++) {
    slow[k] = 168 + 100 * (uint64_t)k;
    flat[k] = 168;
    wobble[k] = 5000 + (k % 2) * 64;
  }
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_BASE, N);
  r.base.boundary_count = B;
  r.options.min_growth_bytes = 1000;
  struct diff_capture *captures[2] = {&r.capture, &r.base};
  for (int c = 0; c < 2; c++) {
    size_t n = c ? B : N;
    captures[c]->forced = malloc(n);
    captures[c]->allocated = malloc(n * sizeof(uint64_t));
    ck_assert(captures[c]->forced && captures[c]->allocated);
    for (size_t k = 0; k < n; k++) {
      captures[c]->forced[k] = 1;
      captures[c]->allocated[k] = 262144 * (uint64_t)(k + 1);
    }
  }
  struct diff_site *site = fixture_add_site(&r, "@slow.lua:12", DIFF_VERDICT_STEADY, slow, N);
  site->base_live_bytes = fixture_series_copy(flat, B);
  site->base_count = B;
  site = fixture_add_site(&r, "@wobble.lua:3", DIFF_VERDICT_STEADY, wobble, N);
  site->base_live_bytes = fixture_series_copy(wobble, B);
  site->base_count = B;
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@slow.lua:12")->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(fixture_site(&r, "@wobble.lua:3")->verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(r.flagged, 1);
  diff_result_free(&r);
}
END_TEST

/* Both captures with boundaries by work: the candidate is judged on its
 * difference from the base, and a rising difference is new only where the
 * candidate grows on its own (a base that frees what the candidate holds
 * steady is no regression: the drifting phases of two sawtooths look so). */
START_TEST(test_aligned_by_work_flags_only_what_the_candidate_grows)
{
  enum { N = 12 };
  uint64_t rising[N], flat[N], jitter[N], falling[N];
  for (int k = 0; k < N; k++) {
    rising[k] = 1000 * (uint64_t)k;
    flat[k] = 2000;
    jitter[k] = 8000 + (k % 3) * 100;
    falling[k] = 8000 - 600 * (uint64_t)k;
  }
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_BASE, N);
  r.base.boundary_count = N;
  r.options.min_growth_bytes = 1000;
  struct diff_capture *captures[2] = {&r.capture, &r.base};
  for (int c = 0; c < 2; c++) {
    captures[c]->forced = malloc(N);
    captures[c]->allocated = malloc(N * sizeof(uint64_t));
    ck_assert(captures[c]->forced && captures[c]->allocated);
    for (int k = 0; k < N; k++) {
      captures[c]->forced[k] = 1;
      captures[c]->allocated[k] = 262144 * (uint64_t)(k + 1);
    }
  }
  struct diff_site *site = fixture_add_site(&r, "@leak.lua:1", DIFF_VERDICT_STEADY, rising, N);
  site->base_live_bytes = fixture_series_copy(flat, N);
  site->base_count = N;
  site = fixture_add_site(&r, "@held.lua:1", DIFF_VERDICT_STEADY, jitter, N);
  site->base_live_bytes = fixture_series_copy(falling, N);
  site->base_count = N;
  site = fixture_add_site(&r, "@alike.lua:1", DIFF_VERDICT_STEADY, rising, N);
  site->base_live_bytes = fixture_series_copy(rising, N);
  site->base_count = N;
  /* A leak in both builds, 10% faster in the candidate (the same leak run
   * twice): the difference rises steadily, but that is not worse; twice as
   * fast is. */
  uint64_t faster[N], twice[N];
  for (int k = 0; k < N; k++) {
    faster[k] = 1100 * (uint64_t)k;
    twice[k] = 2000 * (uint64_t)k;
  }
  site = fixture_add_site(&r, "@faster.lua:1", DIFF_VERDICT_STEADY, faster, N);
  site->base_live_bytes = fixture_series_copy(rising, N);
  site->base_count = N;
  site = fixture_add_site(&r, "@twice.lua:1", DIFF_VERDICT_STEADY, twice, N);
  site->base_live_bytes = fixture_series_copy(rising, N);
  site->base_count = N;
  /* Undecided on its own (p = 5/120, within five times 0.01), and the base
   * does the same: steady, not an inconclusive comparison. */
  static const uint64_t lean[5] = {100000, 300000, 200000, 400000, 500000};
  site = fixture_add_site(&r, "@lean.lua:1", DIFF_VERDICT_STEADY, lean, 5);
  site->base_live_bytes = fixture_series_copy(lean, 5);
  site->base_count = 5;
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(fixture_site(&r, "@leak.lua:1")->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(fixture_site(&r, "@held.lua:1")->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(fixture_site(&r, "@alike.lua:1")->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@lean.lua:1")->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(fixture_site(&r, "@faster.lua:1")->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(fixture_site(&r, "@twice.lua:1")->verdict, DIFF_VERDICT_WORSE);
  ck_assert_uint_eq(r.flagged, 2);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_decide_again_refuses_a_warmup_on_a_range_result)
{
  struct diff_result r;
  fixture_result(&r, DIFF_MODE_RANGE, 8);
  struct diff_options options = r.options;
  options.warmup = 1;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_USAGE);
  ck_assert_str_eq(err.message,
                   "--warmup does not apply to a range result: a range names its boundaries");
  diff_result_free(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_decide");
  TCase *engine = tcase_create("engine");
  tcase_add_checked_fixture(engine, setup, teardown);
  tcase_add_test(engine, test_capture_of_4_boundaries_with_a_leak_is_inconclusive);
  tcase_add_test(engine, test_capture_of_5_boundaries_with_a_leak_is_flagged);
  tcase_add_test(engine, test_what_dies_by_the_next_full_cycle_is_no_leak);
  tcase_add_test(engine, test_capture_of_one_boundary_or_none_is_inconclusive);
  tcase_add_test(engine, test_warmup_leaves_the_fill_out_and_keeps_the_series_whole);
  tcase_add_test(engine, test_range_mode_refuses_a_warmup);
  tcase_add_test(engine, test_base_that_cannot_tell_makes_a_growing_candidate_undecided);
  suite_add_tcase(s, engine);
  TCase *outcome = tcase_create("outcome");
  tcase_add_test(outcome, test_flagged_wins_over_undecided_and_no_boundary_is_inconclusive);
  tcase_add_test(outcome, test_facts_say_why_sites_have_no_verdict_and_what_would_decide_them);
  tcase_add_test(outcome, test_outcome_names_parse_back);
  suite_add_tcase(s, outcome);
  TCase *decide = tcase_create("decide");
  tcase_add_test(decide, test_decide_again_with_a_warmup_changes_a_fill_then_flat_verdict);
  tcase_add_test(decide, test_one_step_that_held_passes_a_late_one_is_inconclusive);
  tcase_add_test(decide, test_decide_again_in_base_mode_follows_the_base_series);
  tcase_add_test(decide, test_decide_again_refuses_a_warmup_on_a_range_result);
  tcase_add_test(decide, test_aligned_by_work_flags_only_what_the_candidate_grows);
  tcase_add_test(decide, test_aligned_by_work_with_a_shorter_base_flags_a_slow_new_leak);
  tcase_add_test(decide, test_a_sampled_rise_below_the_floor_is_no_leak);
  tcase_add_test(decide, test_a_sampled_flush_is_judged_by_min_growth);
  tcase_add_test(decide, test_a_sampled_flush_seen_in_a_segments_frees_is_steady);
  tcase_add_test(decide, test_a_string_appended_to_is_no_flush_however_little_it_grew);
  tcase_add_test(decide, test_a_site_growing_only_at_the_forced_boundaries_is_undecided);
  tcase_add_test(decide, test_a_copy_young_at_every_boundary_is_undecided);
  tcase_add_test(decide, test_a_site_released_at_the_end_says_so);
  tcase_add_test(decide, test_a_site_held_briefly_asks_for_more_work);
  tcase_add_test(decide, test_a_sampled_refill_after_a_flush_is_no_release);
  tcase_add_test(decide, test_the_jits_own_traces_are_bounded_not_growing);
  suite_add_tcase(s, decide);
  return check_run(s);
}
