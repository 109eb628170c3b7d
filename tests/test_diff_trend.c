/* tests/test_diff_trend.c: Mann-Kendall, Theil-Sen and the growth verdicts on known series. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "tests/check_run.h"
#include "diff/diff.h"
#include "diff/trend.h"

START_TEST(test_mann_kendall_s_and_variance_without_ties)
{
  double x[] = {1, 2, 3, 4, 5};
  double s, variance;
  trend_mann_kendall(x, 5, &s, &variance);
  ck_assert(s == 10);
  ck_assert_double_eq_tol(variance, 300.0 / 18, 1e-12);  /* 5*4*15/18 */
  double y[] = {5, 3, 4, 1, 2};  /* pairs: 2 up, 8 down */
  trend_mann_kendall(y, 5, &s, &variance);
  ck_assert(s == -6);
}
END_TEST

START_TEST(test_mann_kendall_tie_correction)
{
  double x[] = {1, 1, 2};  /* S = 0 + 1 + 1; one tie group of 2: (66 - 18) / 18 */
  double s, variance;
  trend_mann_kendall(x, 3, &s, &variance);
  ck_assert(s == 2);
  ck_assert_double_eq_tol(variance, 48.0 / 18, 1e-12);
  double flat[] = {7, 7, 7, 7};
  trend_mann_kendall(flat, 4, &s, &variance);
  ck_assert(s == 0);
  ck_assert_double_eq_tol(variance, 0, 1e-12);
}
END_TEST

START_TEST(test_exact_p_values_for_small_monotone_series)
{
  double x5[] = {1, 2, 3, 4, 5}, x6[] = {10, 20, 30, 40, 50, 60};
  double s, variance, up, down;
  trend_mann_kendall(x5, 5, &s, &variance);
  trend_p_values(x5, 5, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 1.0 / 120, 1e-12);  /* one permutation in 5! */
  ck_assert_double_eq_tol(down, 1.0, 1e-12);
  trend_mann_kendall(x6, 6, &s, &variance);
  trend_p_values(x6, 6, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 1.0 / 720, 1e-12);
  /* one swap: S = 13, 1 + 5 permutations (0 or 1 inversions) of 720 */
  double swapped[] = {10, 30, 20, 40, 50, 60};
  trend_mann_kendall(swapped, 6, &s, &variance);
  ck_assert(s == 13);
  trend_p_values(swapped, 6, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 6.0 / 720, 1e-12);
}
END_TEST

START_TEST(test_normal_approximation_with_ties)
{
  double x[] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8};  /* S = 44, one tie of 2 */
  double s, variance, up, down;
  trend_mann_kendall(x, 10, &s, &variance);
  ck_assert(s == 44);
  ck_assert_double_eq_tol(variance, (10 * 9 * 25 - 2 * 1 * 9) / 18.0, 1e-9);
  trend_p_values(x, 10, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 0.5 * erfc((43 / sqrt(variance)) / sqrt(2.0)), 1e-15);
}
END_TEST

START_TEST(test_theil_sen_slopes)
{
  double line[] = {0, 2, 4, 6};
  double outlier[] = {1, 2, 100, 4, 5};  /* slopes: -96 -47.5 1 1 1 1 1 1 49.5 98 */
  double even[] = {0, 1, 4};             /* slopes 1, 2, 3: median 2 */
  double slope;
  ck_assert_int_eq(trend_theil_sen(line, 4, &slope), 0);
  ck_assert(slope == 2);
  ck_assert_int_eq(trend_theil_sen(outlier, 5, &slope), 0);
  ck_assert(slope == 1);
  ck_assert_int_eq(trend_theil_sen(even, 3, &slope), 0);
  ck_assert(slope == 2);
  ck_assert_int_eq(trend_theil_sen(line, 1, &slope), 0);
  ck_assert(slope == 0);
}
END_TEST

START_TEST(test_theil_sen_on_long_series_uses_evenly_spaced_boundaries)
{
  enum { N = 5000 };
  double *x = malloc(N * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < N; i++)
    x[i] = 3.0 * (double)i + (i % 2 ? 1000 : 0);  /* slope 3 under a zigzag of 1000 */
  double slope;
  ck_assert_int_eq(trend_theil_sen(x, N, &slope), 0);
  ck_assert_double_eq_tol(slope, 3, 0.6);
  for (size_t i = 0; i < N; i++)
    x[i] = 7.0 * (double)i;
  ck_assert_int_eq(trend_theil_sen(x, N, &slope), 0);
  ck_assert(slope == 7);
  free(x);
}
END_TEST

static enum diff_verdict verdict_of(const uint64_t *series, size_t n, struct trend *trend)
{
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  ck_assert_int_eq(trend_verdict(series, n, &options, &verdict, trend), 0);
  return verdict;
}

/* A deterministic wobble in [-amplitude, amplitude]. */
static uint64_t wobble(size_t i, uint64_t base, uint64_t amplitude)
{
  static const int pattern[] = {3, -5, 1, 4, -2, -4, 5, 0, -3, 2, -1, 4, -5, 2};
  return (uint64_t)((int64_t)base + pattern[i % 14] * (int64_t)amplitude / 5);
}

START_TEST(test_steady_leak_is_growing)
{
  uint64_t series[12];
  for (size_t i = 0; i < 12; i++)
    series[i] = 100000 + 20000 * i + wobble(i, 0, 0);
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 12, &trend), DIFF_VERDICT_GROWING);
  ck_assert(trend.slope == 20000);
  ck_assert(trend.s == 66);
}
END_TEST

START_TEST(test_slow_leak_amid_churn_is_growing_with_8_boundaries)
{
  /* One retained 700-byte record per 1000 requests, 10000 requests per
   * segment: +7000 bytes per boundary, over a churn residue of ~50 KiB that
   * wobbles by up to 3000 bytes. */
  uint64_t series[8];
  for (size_t i = 0; i < 8; i++)
    series[i] = wobble(i, 50000, 3000) + 7000 * i;
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 8, &trend), DIFF_VERDICT_GROWING);
}
END_TEST

START_TEST(test_cache_that_fills_then_stays_flat_is_steady)
{
  uint64_t series[13] = {100000, 200000, 300000};
  for (size_t i = 3; i < 13; i++)
    series[i] = wobble(i, 300000, 500);
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 13, &trend), DIFF_VERDICT_STEADY);
  uint64_t exact[13] = {100000, 200000, 300000, 300000, 300000, 300000, 300000,
                        300000, 300000, 300000, 300000, 300000, 300000};
  ck_assert_int_eq(verdict_of(exact, 13, &trend), DIFF_VERDICT_STEADY);
  ck_assert(trend.s == 23);
  /* filled over six boundaries, then a creep of one byte per boundary */
  uint64_t creep[13];
  for (size_t i = 0; i < 13; i++)
    creep[i] = i < 6 ? 50000 * (i + 1) : 300000 + i;
  ck_assert_int_eq(verdict_of(creep, 13, &trend), DIFF_VERDICT_STEADY);
  ck_assert(trend.s == 78);
  ck_assert(trend.p_up < 1e-9);  /* Mann-Kendall alone would call it growing */
  ck_assert(trend.slope * 12 >= trend.threshold);  /* and big enough */
  ck_assert(trend.late_slope == 1);  /* but the later half hardly moves */
}
END_TEST

START_TEST(test_sawtooth_buffer_is_steady)
{
  uint64_t series[16];
  for (size_t i = 0; i < 16; i++)
    series[i] = 10000 + 30000 * (i % 4);  /* filled over 4 segments, then flushed */
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 16, &trend), DIFF_VERDICT_STEADY);
}
END_TEST

START_TEST(test_churn_is_steady)
{
  uint64_t series[20];
  for (size_t i = 0; i < 20; i++)
    series[i] = wobble(i * 3, 2000000, 200000);
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 20, &trend), DIFF_VERDICT_STEADY);
}
END_TEST

START_TEST(test_small_growth_is_steady_however_regular)
{
  uint64_t series[10];
  for (size_t i = 0; i < 10; i++)
    series[i] = 1000000 + 1000 * i;  /* 9000 bytes on a 1 MB site: under 10% of the peak */
  struct trend trend;
  ck_assert_int_eq(verdict_of(series, 10, &trend), DIFF_VERDICT_STEADY);
  ck_assert(trend.threshold == 100900);
}
END_TEST

START_TEST(test_shrinking_and_insufficient)
{
  uint64_t down[8] = {80000, 70000, 60000, 50000, 40000, 30000, 20000, 10000};
  uint64_t short_series[3] = {1000, 100000, 1000000};
  struct trend trend;
  ck_assert_int_eq(verdict_of(down, 8, &trend), DIFF_VERDICT_SHRINKING);
  ck_assert_int_eq(verdict_of(short_series, 3, &trend), DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(verdict_of(short_series, 0, &trend), DIFF_VERDICT_INSUFFICIENT);
}
END_TEST

START_TEST(test_verdict_names)
{
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_GROWING), "growing");
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_INSUFFICIENT), "insufficient");
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_WORSE), "worse");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_trend");
  TCase *tc = tcase_create("trend");
  tcase_add_test(tc, test_mann_kendall_s_and_variance_without_ties);
  tcase_add_test(tc, test_mann_kendall_tie_correction);
  tcase_add_test(tc, test_exact_p_values_for_small_monotone_series);
  tcase_add_test(tc, test_normal_approximation_with_ties);
  tcase_add_test(tc, test_theil_sen_slopes);
  tcase_add_test(tc, test_theil_sen_on_long_series_uses_evenly_spaced_boundaries);
  tcase_add_test(tc, test_steady_leak_is_growing);
  tcase_add_test(tc, test_slow_leak_amid_churn_is_growing_with_8_boundaries);
  tcase_add_test(tc, test_cache_that_fills_then_stays_flat_is_steady);
  tcase_add_test(tc, test_sawtooth_buffer_is_steady);
  tcase_add_test(tc, test_churn_is_steady);
  tcase_add_test(tc, test_small_growth_is_steady_however_regular);
  tcase_add_test(tc, test_shrinking_and_insufficient);
  tcase_add_test(tc, test_verdict_names);
  suite_add_tcase(s, tc);
  return check_run(s);
}
