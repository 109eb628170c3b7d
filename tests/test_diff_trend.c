/* tests/test_diff_trend.c: Mann-Kendall, Theil-Sen and the growth verdicts on known series. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/check_run.h"
#include "diff/diff.h"
#include "diff/source.h"
#include "diff/trend.h"

START_TEST(test_mann_kendall_s_and_variance_without_ties)
{
  double x[] = {1, 2, 3, 4, 5};
  double s, variance;
  diff_trend_mann_kendall(x, 5, &s, &variance);
  ck_assert(s == 10);
  ck_assert_double_eq_tol(variance, 300.0 / 18, 1e-12);  /* 5*4*15/18 */
  double y[] = {5, 3, 4, 1, 2};  /* pairs: 2 up, 8 down */
  diff_trend_mann_kendall(y, 5, &s, &variance);
  ck_assert(s == -6);
}
END_TEST

START_TEST(test_mann_kendall_tie_correction)
{
  double x[] = {1, 1, 2};  /* S = 0 + 1 + 1; one tie group of 2: (66 - 18) / 18 */
  double s, variance;
  diff_trend_mann_kendall(x, 3, &s, &variance);
  ck_assert(s == 2);
  ck_assert_double_eq_tol(variance, 48.0 / 18, 1e-12);
  double flat[] = {7, 7, 7, 7};
  diff_trend_mann_kendall(flat, 4, &s, &variance);
  ck_assert(s == 0);
  ck_assert_double_eq_tol(variance, 0, 1e-12);
}
END_TEST

START_TEST(test_exact_p_values_for_small_monotone_series)
{
  double x5[] = {1, 2, 3, 4, 5}, x6[] = {10, 20, 30, 40, 50, 60};
  double s, variance, up, down;
  diff_trend_mann_kendall(x5, 5, &s, &variance);
  diff_trend_p_values(x5, 5, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 1.0 / 120, 1e-12);  /* one permutation in 5! */
  ck_assert_double_eq_tol(down, 1.0, 1e-12);
  diff_trend_mann_kendall(x6, 6, &s, &variance);
  diff_trend_p_values(x6, 6, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 1.0 / 720, 1e-12);
  /* one swap: S = 13, 1 + 5 permutations (0 or 1 inversions) of 720 */
  double swapped[] = {10, 30, 20, 40, 50, 60};
  diff_trend_mann_kendall(swapped, 6, &s, &variance);
  ck_assert(s == 13);
  diff_trend_p_values(swapped, 6, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 6.0 / 720, 1e-12);
}
END_TEST

START_TEST(test_normal_approximation_with_ties)
{
  double x[] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8};  /* S = 44, one tie of 2 */
  double s, variance, up, down;
  diff_trend_mann_kendall(x, 10, &s, &variance);
  ck_assert(s == 44);
  ck_assert_double_eq_tol(variance, (10 * 9 * 25 - 2 * 1 * 9) / 18.0, 1e-9);
  diff_trend_p_values(x, 10, s, variance, &up, &down);
  ck_assert_double_eq_tol(up, 0.5 * erfc((43 / sqrt(variance)) / sqrt(2.0)), 1e-15);
}
END_TEST

START_TEST(test_theil_sen_slopes)
{
  double line[] = {0, 2, 4, 6};
  double outlier[] = {1, 2, 100, 4, 5};  /* slopes: -96 -47.5 1 1 1 1 1 1 49.5 98 */
  double even[] = {0, 1, 4};             /* slopes 1, 2, 3: median 2 */
  double slope;
  ck_assert_int_eq(diff_trend_theil_sen(line, 4, &slope), 0);
  ck_assert(slope == 2);
  ck_assert_int_eq(diff_trend_theil_sen(outlier, 5, &slope), 0);
  ck_assert(slope == 1);
  ck_assert_int_eq(diff_trend_theil_sen(even, 3, &slope), 0);
  ck_assert(slope == 2);
  ck_assert_int_eq(diff_trend_theil_sen(line, 1, &slope), 0);
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
  ck_assert_int_eq(diff_trend_theil_sen(x, N, &slope), 0);
  ck_assert_double_eq_tol(slope, 3, 0.6);
  for (size_t i = 0; i < N; i++)
    x[i] = 7.0 * (double)i;
  ck_assert_int_eq(diff_trend_theil_sen(x, N, &slope), 0);
  ck_assert(slope == 7);
  free(x);
}
END_TEST

/* The textbook reckonings, pair by pair, that the sorted ones must equal to the bit. */
static void reference_mann_kendall(const double *x, size_t n, double *s, double *variance)
{
  double sum = 0, dn = (double)n, var = dn * (dn - 1) * (2 * dn + 5);
  for (size_t i = 0; i < n; i++) {
    double t = 0;
    int first = 1;
    for (size_t j = 0; j < n; j++) {
      if (j > i)
        sum += (x[j] > x[i]) - (x[j] < x[i]);
      if (x[j] == x[i]) {
        t++;
        first = first && j >= i;
      }
    }
    if (first)  /* each group once, at its first member */
      var -= t * (t - 1) * (2 * t + 5);
  }
  *s = sum;
  *variance = var / 18;
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double reference_theil_sen(const double *x, size_t n)
{
  size_t points = n > DIFF_TREND_THEIL_SEN_POINTS ? DIFF_TREND_THEIL_SEN_POINTS : n, k = 0;
  size_t count = points * (points - 1) / 2;
  double *slopes = malloc(count * sizeof *slopes);
  ck_assert_ptr_nonnull(slopes);
  for (size_t a = 0; a + 1 < points; a++)
    for (size_t b = a + 1; b < points; b++) {
      size_t i = a * (n - 1) / (points - 1), j = b * (n - 1) / (points - 1);
      slopes[k++] = (x[j] - x[i]) / (double)(j - i);
    }
  qsort(slopes, count, sizeof *slopes, compare_doubles);
  double median = count % 2 ? slopes[count / 2] : (slopes[count / 2 - 1] + slopes[count / 2]) / 2;
  free(slopes);
  return median;
}

static uint64_t shape_random(uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* Series of many shapes: flat, flat but for a few points (fewer and more than half), a step,
 * stairs, few values in any order, a rise, any doubles, a sawtooth, both zeros. */
static void shape_fill(double *x, size_t n, int shape, uint64_t *rng)
{
  for (size_t i = 0; i < n; i++) {
    uint64_t r = shape_random(rng);
    switch (shape) {
    case 0: x[i] = 0; break;
    case 1: x[i] = 12345; break;
    case 2: x[i] = r % 40 == 0 ? (double)(r >> 40) : 0; break;
    case 3: x[i] = r % 5 < 2 ? (double)(r % 7) * 64 : 4096; break;
    case 4: x[i] = r % 5 < 3 ? (double)(r % 7) * 64 : 4096; break;
    case 5: x[i] = i < n / 2 ? 0 : 1000; break;
    case 6: x[i] = (double)(i / 3) * 48; break;
    case 7: x[i] = (double)(r % 4) * 16; break;
    case 8: x[i] = (double)i * 24 + (double)(r % 100); break;
    case 9: x[i] = (double)(int64_t)(r >> 11) / 3.0 - 1e15; break;
    case 10: x[i] = (double)(i % 10) * 1e6; break;
    default: x[i] = r % 3 == 0 ? -0.0 : r % 3 == 1 ? 0.0 : (double)(r % 5); break;
    }
  }
}

START_TEST(test_sorted_reckonings_equal_the_pairs)
{
  static const size_t lengths[] = {2, 3, 4, 5, 17, 64, 251, 400, 401, 512, 1000};
  double *x = malloc(1000 * sizeof *x);
  ck_assert_ptr_nonnull(x);
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (int shape = 0; shape <= 11; shape++)
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
      for (int round = 0; round < 3; round++) {
        size_t n = lengths[l];
        shape_fill(x, n, shape, &rng);
        double s, variance, want_s, want_variance, slope;
        diff_trend_mann_kendall(x, n, &s, &variance);
        reference_mann_kendall(x, n, &want_s, &want_variance);
        ck_assert_msg(s == want_s && variance == want_variance,
                      "shape %d, n %zu: S %g, variance %g; pair by pair %g, %g", shape, n, s,
                      variance, want_s, want_variance);
        ck_assert_int_eq(diff_trend_theil_sen(x, n, &slope), 0);
        double want = reference_theil_sen(x, n);
        ck_assert_msg(slope == want && (shape == 11 || signbit(slope) == signbit(want)),
                      "shape %d, n %zu: slope %.17g, every pair's median %.17g", shape, n, slope, want);
      }
  free(x);
}
END_TEST

static enum diff_verdict verdict_of(const uint64_t *series, size_t n, struct diff_trend *trend)
{
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  ck_assert_int_eq(diff_trend_verdict(series, n, &options, &verdict, trend), 0);
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
  struct diff_trend trend;
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
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 8, &trend), DIFF_VERDICT_GROWING);
}
END_TEST

START_TEST(test_cache_that_fills_then_stays_flat_is_steady)
{
  uint64_t series[13] = {100000, 200000, 300000};
  for (size_t i = 3; i < 13; i++)
    series[i] = wobble(i, 300000, 500);
  struct diff_trend trend;
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
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 16, &trend), DIFF_VERDICT_STEADY);
}
END_TEST

START_TEST(test_churn_is_steady)
{
  uint64_t series[20];
  for (size_t i = 0; i < 20; i++)
    series[i] = wobble(i * 3, 2000000, 200000);
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 20, &trend), DIFF_VERDICT_STEADY);
}
END_TEST

START_TEST(test_small_growth_is_steady_however_regular)
{
  uint64_t series[10];
  for (size_t i = 0; i < 10; i++)
    series[i] = 1000000 + 1000 * i;  /* 9000 bytes on a 1 MB site: under 10% of the peak */
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 10, &trend), DIFF_VERDICT_STEADY);
  ck_assert(trend.threshold == 100900);
}
END_TEST

START_TEST(test_shrinking_and_insufficient_below_2_boundaries)
{
  uint64_t down[8] = {80000, 70000, 60000, 50000, 40000, 30000, 20000, 10000};
  uint64_t short_series[3] = {1000, 100000, 1000000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(down, 8, &trend), DIFF_VERDICT_SHRINKING);
  ck_assert_int_eq(verdict_of(short_series, 1, &trend), DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(verdict_of(short_series, 0, &trend), DIFF_VERDICT_INSUFFICIENT);
}
END_TEST

/* ---- No verdict without evidence ------------------------------------------------ */

START_TEST(test_issue_series_of_4_boundaries_is_undecided_never_steady)
{
  /* A leak with no frees: 5.2, 10.9, 22.8, 47.6 MB. With 4 points the
   * smallest one-sided p is 1/24 > 0.01: no trend can be shown. */
  uint64_t series[4] = {5200000, 10900000, 22800000, 47600000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 4, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_double_eq_tol(trend.p_up, 1.0 / 24, 1e-15);
  ck_assert_uint_eq(trend.judged, 4);
  ck_assert_uint_eq(trend.needed, 5);
  ck_assert_int_eq(trend.rose, 1);
  uint64_t three[3] = {1000, 100000, 1000000}, two[2] = {0, 8192};
  ck_assert_int_eq(verdict_of(three, 3, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(verdict_of(two, 2, &trend), DIFF_VERDICT_UNDECIDED);
}
END_TEST

START_TEST(test_strictly_rising_5_boundaries_is_growing)
{
  uint64_t series[5] = {5200000, 10900000, 22800000, 47600000, 99000000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 5, &trend), DIFF_VERDICT_GROWING);
  ck_assert_double_eq_tol(trend.p_up, 1.0 / 120, 1e-15);
}
END_TEST

START_TEST(test_flat_site_with_few_boundaries_is_steady)
{
  uint64_t flat[3] = {65536, 65536, 65536}, wobbling[4] = {65536, 66000, 65000, 65600};
  uint64_t falling[4] = {900000, 700000, 500000, 300000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(flat, 3, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.rose, 0);
  ck_assert_int_eq(verdict_of(wobbling, 4, &trend), DIFF_VERDICT_STEADY);
  /* A fall cannot be a leak, and 4 points cannot show it significant either. */
  ck_assert_int_eq(verdict_of(falling, 4, &trend), DIFF_VERDICT_STEADY);
}
END_TEST

START_TEST(test_ties_that_leave_the_test_no_power_are_undecided)
{
  /* Born at the third boundary: the two zeros are a tie, and even in this
   * (rising) order the normal approximation gives p = 0.048 > 0.01. */
  uint64_t late[5] = {0, 0, 0, 100000, 200000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(late, 5, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert(trend.p_best > 0.01);
  ck_assert_double_eq_tol(trend.p_best, trend.p_up, 1e-15);
  /* The same values with more boundaries: the test has room, the leak shows. */
  uint64_t longer[8] = {0, 0, 0, 100000, 200000, 300000, 400000, 500000};
  ck_assert_int_eq(verdict_of(longer, 8, &trend), DIFF_VERDICT_GROWING);
}
END_TEST

START_TEST(test_rise_the_test_could_have_shown_but_did_not_is_steady)
{
  /* Six points, four inversions: p = 98/720, far above 0.01, but in rising
   * order the same values give 1/720: the test had the power, and found no
   * trend. */
  uint64_t series[6] = {300000, 100000, 200000, 500000, 600000, 400000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 6, &trend), DIFF_VERDICT_STEADY);
  ck_assert_double_eq_tol(trend.p_up, 98.0 / 720, 1e-15);
  ck_assert_double_eq_tol(trend.p_best, 1.0 / 720, 1e-15);
}
END_TEST

START_TEST(test_rise_that_leans_towards_a_trend_is_undecided)
{
  /* Five points, one inversion: p = 5/120, above 0.01 but within five times
   * it, while in rising order the values give 1/120: the data lean towards
   * a trend they cannot show, so undecided, not steady. */
  uint64_t series[5] = {100000, 300000, 200000, 400000, 500000};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(series, 5, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_double_eq_tol(trend.p_up, 5.0 / 120, 1e-15);
  ck_assert_double_eq_tol(trend.p_best, 1.0 / 120, 1e-15);
  /* A registry that grew for a whole short run and was released at its
   * last boundary (exit_freed_leak.lua, 20000 requests). */
  uint64_t released[8] = {0, 6444, 29196, 62460, 122788, 152164, 231636, 0};
  ck_assert_int_eq(verdict_of(released, 8, &trend), DIFF_VERDICT_UNDECIDED);
}
END_TEST

/* Whether the verdict calls series a fill and flush. */
static int trend_flushes(const uint64_t *series, size_t n)
{
  struct diff_trend trend;
  verdict_of(series, n, &trend);
  return trend.flushed;
}

START_TEST(test_fill_and_flush_is_steady_unless_its_floor_rises)
{
  struct diff_trend trend;
  /* The string table following a log that fills and is flushed
   * (▁▁▁▂▃▅█▁██▁): it falls back after its peak and refills, its lows
   * stay at the start's level. */
  uint64_t flushed[11] = {100, 120, 130, 20000, 40000, 70000, 100000, 200, 98000, 99000, 300};
  ck_assert_int_eq(verdict_of(flushed, 11, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  /* One flush, refilled to a new high by the last boundary. */
  uint64_t once[9] = {0, 1000, 60000, 200000, 400000, 700000, 1000, 600000, 1200000};
  ck_assert_int_eq(verdict_of(once, 9, &trend), DIFF_VERDICT_STEADY);
  /* The same teeth on a floor that rises by 60 KB a flush: a leak under the
   * sawtooth. */
  uint64_t leaking[12] = {0,      50000,  100000, 60000,  110000, 160000,
                          120000, 170000, 220000, 180000, 230000, 280000};
  ck_assert_int_eq(trend_flushes(leaking, 12), 0);
  ck_assert_int_eq(verdict_of(leaking, 12, &trend), DIFF_VERDICT_GROWING);
  /* A registry released at the end stays low: no refill, no flush. */
  uint64_t released[8] = {0, 6444, 29196, 62460, 122788, 152164, 231636, 0};
  ck_assert_int_eq(verdict_of(released, 8, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.flushed, 0);
  /* The same with the main chunk's return boundary after it: p = 0.197 on
   * the whole series, but it rose significantly until it was let go. */
  uint64_t returned[9] = {0, 6444, 29196, 62460, 122788, 152164, 231636, 0, 0};
  ck_assert_int_eq(verdict_of(returned, 9, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.released, 1);
}
END_TEST

START_TEST(test_floor_is_the_least_low_from_there_on)
{
  /* A cache's hash part (string_cache_steady.lua, 600000 requests), replaced
   * by a new table when full: a boundary falls somewhere in each refill, so
   * its lows are 0, 384 KiB, 1.5 MiB (half refilled) and 0 at the end. The
   * lows alone rise (Theil-Sen: 576 KiB over three steps); the floor, the
   * least low from each on, stays at 0. */
  uint64_t cache[20] = {0,       0,      0,       196608,  393216,  786432,  786432,
                        1572864, 1572864, 3145728, 98304,   0,       1572864, 3145728,
                        393216,  3145728, 1572864, 1572864, 3145728, 0};
  struct diff_trend trend;
  ck_assert_int_eq(verdict_of(cache, 20, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  ck_assert(trend.p_up <= 0.01);  /* the trend test alone would flag it */
}
END_TEST

/* The verdict with floors measured (U: not measured). */
#define U DIFF_TREND_UNMEASURED
static enum diff_verdict verdict_with_floors(const uint64_t *series, const uint64_t *floors, size_t n,
                                             struct diff_trend *trend)
{
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  ck_assert_int_eq(diff_trend_verdict_floors(series, floors, n, &options, &verdict, trend), 0);
  return verdict;
}

/* flush_leak.lua, 640000 requests (a CI run): three teeth whose floors,
 * read from the frees at each flush, rise with the entries kept (7.2, 15.0,
 * 23.1 MB), while the last teeth leave the later half's slope negative.
 * Steady before the rule (p = 7e-22), and the leak passed with exit 0. */
static const uint64_t teeth_live[30] = {
    0,        15876,    81644,    263516,   750716,   1310444,  2177596,  2177644,
    2621916,  3655356,  3655404,  4883836,  5245436,  7174876,  7174924,  9593756,
    10487836, 14331996, 14332044, 19143540, 21070924, 28755776, 28755828, 14055432,
    23974788, 36900972, 36901024, 26284004, 45673828, 33865492};
static const uint64_t teeth_survived[30] = {
    UINT64_MAX, 0,        32244,    132044,   390284,   1125164,  1310444,  2177644,
    2177644,    2621964,  3655404,  3655404,  4883884,  5245484,  7174924,  7174924,
    9593804,    10487884, 14332044, 14332044, 19143592, 21070924, 28755828, 7188920,
    14055484,   23974840, 36901024, 15040296, 26284052, 23108792};
static const uint64_t teeth_work[30] = {
    0,        78408,    229156,   601632,   1506092,  1825580,  2874672,  2874784,
    3927128,  4978716,  4978828,  6225268,  7787132,  9734608,  9734720,  12171672,
    15443984, 19306180, 19306292, 24135912, 30800000, 38502940, 38503052, 48130116,
    60164680, 75206060, 75206172, 94399936, 118002236, 130762392};

START_TEST(test_floors_that_rise_at_every_flush_grow_whatever_the_last_teeth_do)
{
  struct diff_options options;
  diff_options_default(&options);
  struct diff_trend trend;
  enum diff_verdict verdict;
  ck_assert_int_eq(diff_trend_verdict_work(teeth_live, NULL, teeth_survived, teeth_work, 30,
                                           &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.floors_rising, 1);
  ck_assert_uint_eq(trend.drops, 3);
  ck_assert(trend.late_slope < 0);  /* the persistence test alone would pass it */
  /* The same teeth flushed to a floor that holds (what each flush leaves
   * is the same): steady, filled and flushed. */
  uint64_t held[30];
  memcpy(held, teeth_survived, sizeof held);
  held[23] = held[27] = held[29] = 7188920;
  ck_assert_int_eq(diff_trend_verdict_work(teeth_live, NULL, held, teeth_work, 30, &options,
                                           &verdict, &trend), 0);
  ck_assert_int_eq(trend.floors_rising, 0);
  ck_assert_int_ne(verdict, DIFF_VERDICT_GROWING);
  /* Floors that rose and then held at the last flush: no longer rising. */
  held[23] = 7188920, held[27] = held[29] = 15040296;
  ck_assert_int_eq(diff_trend_verdict_work(teeth_live, NULL, held, teeth_work, 30, &options,
                                           &verdict, &trend), 0);
  ck_assert_int_eq(trend.floors_rising, 0);
  /* Without the frees read, lows from live bytes alone may be refills under
   * way: the rule does not apply. */
  ck_assert_int_eq(diff_trend_verdict_work(teeth_live, NULL, NULL, teeth_work, 30, &options,
                                           &verdict, &trend), 0);
  ck_assert_int_eq(trend.floors_rising, 0);
  /* Measured floors (the second reading) that rise at each flush: growing. */
  uint64_t floors[30];
  for (size_t i = 0; i < 30; i++)
    floors[i] = DIFF_TREND_UNMEASURED;
  floors[23] = 7188920, floors[27] = 15040296, floors[29] = 23108792;
  ck_assert_int_eq(diff_trend_verdict_work(teeth_live, floors, teeth_survived, teeth_work, 30,
                                           &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.floors_rising, 1);
}
END_TEST

START_TEST(test_measured_floors_decide_fill_and_flush)
{
  struct diff_trend trend;
  /* flush_few_steady.lua, 40000 requests, a heap snapshot in the middle:
   * three teeth whose lows (274, 614, 673 KB) are caught mid-refill and
   * rise by more than the threshold: growing on its lows alone. */
  uint64_t few[15] = {0,       18436,   92356,  270236,  822980,  1375988, 273624, 273672,
                      538672,  1587512, 1683240, 614168, 1645432, 2031352, 672776};
  ck_assert_int_eq(verdict_of(few, 15, &trend), DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(trend.drops, 3);
  /* What survived each flush, measured at its low, is nothing: steady. */
  uint64_t nothing[15] = {U, U, U, U, U, U, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  ck_assert_int_eq(verdict_with_floors(few, nothing, 15, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  /* The same teeth with a quarter of every entry kept (flush_leak.lua):
   * the floors rise with what was kept, and the trend decides. */
  uint64_t kept[15] = {U, U, U, U, U, U, 300000, U, U, U, U, 700000, U, U, 1000000};
  ck_assert_int_eq(verdict_with_floors(few, kept, 15, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.flushed, 0);
  /* One flush: on its low alone it is steady, whatever survived it... */
  uint64_t once[9] = {0, 1000, 60000, 200000, 400000, 700000, 1000, 600000, 1200000};
  ck_assert_int_eq(verdict_of(once, 9, &trend), DIFF_VERDICT_STEADY);
  /* ...measured, what survived it is compared with where the rise began. */
  uint64_t once_kept[9] = {U, U, U, U, U, U, 500000, U, U};
  ck_assert_int_eq(trend_flushes(once, 9), 1);
  verdict_with_floors(once, once_kept, 9, &trend);
  ck_assert_int_eq(trend.flushed, 0);
  uint64_t once_none[9] = {U, U, U, U, U, U, 0, U, U};
  ck_assert_int_eq(verdict_with_floors(once, once_none, 9, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  /* flush_once_steady.lua, 40000 requests: refilled by less than half its
   * drop by the end; with nothing surviving the flush that is a refill. */
  uint64_t short_refill[9] = {0, 10884, 48764, 169428, 393476, 721628, 1413716, 449688, 899080};
  uint64_t short_none[9] = {U, U, U, U, U, U, U, 0, U};
  ck_assert_int_eq(verdict_with_floors(short_refill, short_none, 9, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.flushed, 1);
  /* A registry released at the end is no flush, measured or not. */
  uint64_t released[8] = {0, 6444, 29196, 62460, 122788, 152164, 231636, 0};
  uint64_t released_none[8] = {U, U, U, U, U, U, U, 0};
  ck_assert_int_eq(verdict_with_floors(released, released_none, 8, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.flushed, 0);
  /* Drops are found where the rule sees them, as indices of the series. */
  struct diff_trend_drop drops[15];
  verdict_of(few, 15, &trend);
  ck_assert_uint_eq(diff_trend_find_drops(few, NULL, 15, &trend, drops), 3);
  ck_assert_uint_eq(drops[0].high, 5);
  ck_assert_uint_eq(drops[0].low, 6);
  ck_assert_uint_eq(drops[1].high, 10);
  ck_assert_uint_eq(drops[1].low, 11);
  ck_assert_uint_eq(drops[2].high, 13);
  ck_assert_uint_eq(drops[2].low, 14);
}
END_TEST
#undef U

START_TEST(test_one_step_then_flat_is_steady_a_staircase_is_growing)
{
  struct diff_trend trend;
  /* The string table doubling with a filling cache, then once more, at
   * the 17th of 20 boundaries, to 1 MiB, where it stays: significant, and
   * its later half rises, but in one step. */
  uint64_t table[20] = {0,      11132,  36180,  68948,  134484, 265556, 527700,
                        527700, 527700, 527700, 527700, 527700, 527700, 527700,
                        527700, 527700, 1051988, 1051988, 1051988, 1051988};
  ck_assert_int_eq(verdict_of(table, 20, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.stepped, 1);
  ck_assert(trend.p_up <= 0.01);
  ck_assert(trend.late_slope * 19 >= trend.threshold / 2);  /* persistence alone: growing */
  /* A slow leak that shows as a staircase: 8 KiB every third boundary. */
  uint64_t stairs[30];
  for (size_t i = 0; i < 30; i++)
    stairs[i] = 100000 + 8192 * (i / 3);
  ck_assert_int_eq(verdict_of(stairs, 30, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.stepped, 0);
  /* A steady leak with one large jump in its later half keeps growing
   * around it. */
  uint64_t jump[12];
  for (size_t i = 0; i < 12; i++)
    jump[i] = 100000 + 20000 * i + (i >= 9 ? 200000 : 0);
  ck_assert_int_eq(verdict_of(jump, 12, &trend), DIFF_VERDICT_GROWING);
  /* A leaking table that doubles again at the last boundary
   * (testdata/tarantool-memprof): the run saw nothing after the step. */
  uint64_t doubling[6] = {9643, 18255, 34849, 35269, 35584, 68670};
  ck_assert_int_eq(verdict_of(doubling, 6, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.stepped, 0);
  /* A step that the series then falls back from is a tooth, not a step
   * that held (flush_leak.lua at 20000 requests: its leak under the teeth). */
  uint64_t tooth[11] = {0, 15876, 81644, 263196, 749916, 591252, 611044, 645172, 1414244, 785124, 1039892};
  ck_assert_int_eq(verdict_of(tooth, 11, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.stepped, 0);
}
END_TEST

/* Rose, then held (docs/diff.md): a level reached in one step, or a few
 * early on, and held without a trend for at least n_min boundaries and as
 * long as the climb took, is steady; steps that repeat, a ramp, or a step
 * with too few boundaries after it are not; one held for fewer boundaries
 * than it climbed, but for n_min and twice its pauses, is undecided. */
START_TEST(test_rose_then_held_is_steady_steps_that_repeat_are_not)
{
  struct diff_trend trend;
  /* The issue's series: the string table doubled once while the program
   * warmed up (8, then 16 KiB), then held for 5 boundaries. Before the
   * rule: p = 0.0102, within five times 0.01, undecided. */
  uint64_t doubled[8] = {0, 8192, 8192, 16384, 16384, 16384, 16384, 16384};
  ck_assert_int_eq(verdict_of(doubled, 8, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 1);
  ck_assert(trend.rose);
  ck_assert(trend.p_up > 0.01 && trend.p_up <= 0.05);
  /* The same step with 4 boundaries after it: too few to see it hold. */
  ck_assert_int_eq(verdict_of(doubled, 7, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held, 0);
  /* service_steady.lua at 50000 requests: its access-log ring full at the
   * 9th boundary, then flat but for young blocks caught at two boundaries
   * near the end (which the released-at-end rule read as a registry let
   * go: undecided). */
  uint64_t ring[26] = {0,     0,     0,     0,     0,     0,     0,     614,   15360,
                       15360, 15360, 15360, 15360, 15360, 15360, 15360, 15360, 15360,
                       14131, 15360, 15360, 14131, 44646, 50688, 15360, 15360};
  ck_assert_int_eq(verdict_of(ring, 26, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 1);
  /* A cache that fills over 8 boundaries after a start of 10 and holds for
   * 8 (cjson.encode in service_steady.lua with a 12000-key cache): growing
   * before the rule (p = 1.4e-8, its later half rises). */
  uint64_t fill[26] = {0,       0,       0,       0,       0,       0,       0,
                       0,       0,       0,       60928,   150323,  312934,  312934,
                       510771,  779981,  1083187, 1242931, 1242931, 1242931, 1242931,
                       1242931, 1242931, 1242931, 1242931, 1242931};
  ck_assert_int_eq(verdict_of(fill, 26, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 1);
  /* ... held for less time than it climbed (5 boundaries after 6 of climb): not held, and not
   * growing either (it was): a cache that filled, or a leak that paused, which a longer run
   * tells. Undecided, held briefly. */
  ck_assert_int_eq(verdict_of(fill, 22, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held, 0);
  ck_assert_int_eq(trend.held_briefly, 1);
  /* With 4 boundaries of hold, fewer than a trend needs, it grows as before. */
  ck_assert_int_eq(verdict_of(fill, 21, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held_briefly, 0);
  /* Steps that repeat (a burst leak: 50 KB every fourth boundary), the run
   * ending 3 boundaries after the last: growing. */
  uint64_t bursts[24];
  for (size_t i = 0; i < 24; i++)
    bursts[i] = 50000 * ((i + 1) / 4);
  ck_assert_int_eq(verdict_of(bursts, 24, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held, 0);
  /* ... and ending 5 boundaries after its last burst, n_min and longer
   * than the 4 between bursts, but not as long as the climb, nor twice its
   * pauses of 3: growing, not held briefly. */
  for (size_t i = 22; i < 24; i++)
    bursts[i] = bursts[21];
  ck_assert_int_eq(verdict_of(bursts, 24, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held, 0);
  ck_assert_int_eq(trend.held_briefly, 0);
  /* A leaking table that doubles every third boundary: each step held for
   * as long as the ones before, growing. */
  uint64_t doubling[24];
  for (size_t i = 0; i < 24; i++)
    doubling[i] = (uint64_t)32768 << (i / 3);
  ck_assert_int_eq(verdict_of(doubling, 24, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held, 0);
  /* A slow ramp amid churn whose last 6 boundaries wobble within half the
   * threshold: it climbed for the whole run, growing. */
  uint64_t ramp[40];
  for (size_t i = 0; i < 40; i++)
    ramp[i] = wobble(i, 200000 + 1500 * i, 3000);
  ck_assert_int_eq(verdict_of(ramp, 40, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held, 0);
  /* A registry released at the end falls to its last level: not held. */
  uint64_t released[9] = {0, 6000, 29000, 62000, 123000, 152000, 232000, 0, 0};
  ck_assert_int_eq(verdict_of(released, 9, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held, 0);
}
END_TEST

/* Held, then released: a site that rose, held as the rule above asks on
 * the boundaries before a fall at the end, and then fell for good, is
 * steady; a fall with too short a hold before it, a rise again after the
 * fall, or a fall before the last quarter are judged as before. */
START_TEST(test_held_then_released_at_the_end_is_steady)
{
  struct diff_trend trend;
  /* string_cache_steady.lua at 50000 requests: the string table doubled
   * to 256 KiB while the cache filled, held for 5 boundaries, and was
   * halved when the last request cleared the cache (undecided in 20 runs
   * of 20 before: p = 0.020, released at the end). */
  uint64_t strings[11] = {0, 8192, 32768, 65536, 131072, 262144,
                          262144, 262144, 262144, 262144, 0};
  ck_assert_int_eq(verdict_of(strings, 11, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 1);
  ck_assert_int_eq(trend.released, 0);
  /* ... its cache line, two falls at the end (one halfway). */
  uint64_t cache[12] = {0, 0, 0, 196608, 393216, 393216, 393216,
                        393216, 393216, 393216, 200000, 0};
  ck_assert_int_eq(verdict_of(cache, 12, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 1);
  /* Held for 4 boundaries only before the fall: undecided, as before. */
  uint64_t short_hold[10] = {0, 8192, 32768, 65536, 131072, 262144, 262144, 262144, 262144, 0};
  ck_assert_int_eq(verdict_of(short_hold, 10, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held, 0);
  /* A registry that grew to the end and was released: still undecided. */
  uint64_t registry[9] = {0, 6000, 29000, 62000, 123000, 152000, 232000, 232000, 0};
  ck_assert_int_eq(verdict_of(registry, 9, &trend), DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held, 0);
  /* A fall at the end followed by a rise again: no release (a refill is
   * fill and flush's to judge). */
  uint64_t refill[12] = {0, 8192, 32768, 65536, 131072, 262144,
                         262144, 262144, 262144, 262144, 0, 300000};
  verdict_of(refill, 12, &trend);
  ck_assert_int_eq(trend.held, 0);
  /* A burst leak whose run ends with a fall: its hold before the fall is
   * shorter than its climb, growing or undecided, never steady. */
  uint64_t bursts[25];
  for (size_t i = 0; i < 24; i++)
    bursts[i] = 50000 * ((i + 1) / 4);
  bursts[24] = 0;
  ck_assert_int_ne(verdict_of(bursts, 25, &trend), DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.held, 0);
}
END_TEST

/* The later half by work: the program's own cycles come close together
 * while its heap is small, so the later half of the boundaries can start a
 * fifth of the way into the run. The persistence rule takes the later half
 * of the work when the boundaries' work is known. */
/* Held briefly needs the hold to be a third of the climb, in boundaries and, when the work is
 * known, in work: a run's last boundaries often come together with no work between them, and
 * a leak looks flat over them. A fill of 11 steps held for 5 boundaries is undecided when the
 * hold took work like the climb, and growing when it took almost none; a ramp of 35 boundaries
 * flat for its last 5 is growing. */
START_TEST(test_a_brief_hold_takes_a_third_of_the_climb_in_work_too)
{
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  struct diff_trend trend;
  uint64_t fill[17], even[17], idle[17];
  for (size_t i = 0; i < 17; i++) {
    fill[i] = i < 2 ? 0 : 100000 * (uint64_t)((i < 12 ? i : 12) - 1);
    even[i] = 1000000 * (uint64_t)i;
    idle[i] = i <= 12 ? even[i] : even[12] + 10 * (uint64_t)(i - 12);
  }
  ck_assert_int_eq(diff_trend_verdict_work(fill, NULL, NULL, even, 17, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(trend.held_briefly, 1);
  ck_assert_int_eq(diff_trend_verdict_work(fill, NULL, NULL, idle, 17, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held_briefly, 0);
  uint64_t ramp[40];
  for (size_t i = 0; i < 40; i++)
    ramp[i] = 20000 * (uint64_t)(i < 35 ? i : 35);
  ck_assert_int_eq(verdict_of(ramp, 40, &trend), DIFF_VERDICT_GROWING);
  ck_assert_int_eq(trend.held_briefly, 0);
}
END_TEST

START_TEST(test_later_half_is_that_of_the_work_when_known)
{
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  struct diff_trend trend;
  /* service_steady.lua at 50000 requests, VM: trace compiler (flagged in 4
   * runs of 20): side traces compiled ever more rarely, the last at 37.9 of
   * 64.8 MB of work, then held for 7 boundaries. */
  uint64_t traces[28] = {0,     0,     2458,  2458,  2458,  2458,  2458,  3584,  13107, 13107,
                         16486, 16486, 16486, 16486, 16486, 16486, 20480, 20480, 24064, 24064,
                         24064, 27648, 27648, 27648, 27648, 27648, 27648, 27648};
  uint64_t work[28] = {0,        96885,    246409,   656265,   1667101,  2716217,  2716217,
                       3765081,  4817537,  4818621,  6025089,  7534601,  9400000,  11800000,
                       11800000, 14700000, 18400000, 18400000, 23000000, 29800000, 30300000,
                       37900000, 37900000, 44200000, 51100000, 57400000, 63700000, 64800000};
  ck_assert_int_eq(diff_trend_verdict(traces, 28, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);  /* by boundaries: the last 14 from 11.8 MB */
  ck_assert_uint_eq(trend.late, 14);
  ck_assert_int_eq(diff_trend_verdict_work(traces, NULL, NULL, work, 28, &options, &verdict, &trend), 0);
  ck_assert_uint_eq(trend.late, 7);  /* from 37.9 MB on, past half of 64.8 */
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  /* A leak as steady in work grows in the later half of the work however
   * the boundaries lie: growing. */
  uint64_t leak[28];
  for (size_t i = 0; i < 28; i++)
    leak[i] = work[i] / 2000;
  ck_assert_int_eq(diff_trend_verdict_work(leak, NULL, NULL, work, 28, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* Bursts every 8 MB of work: growing. */
  uint64_t bursts[28];
  for (size_t i = 0; i < 28; i++)
    bursts[i] = 50000 * (work[i] / 8000000);
  ck_assert_int_eq(diff_trend_verdict_work(bursts, NULL, NULL, work, 28, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* The later half is at least 3 boundaries. */
  uint64_t late_work[6] = {0, 1, 2, 3, 4, 1000};
  uint64_t rising[6] = {0, 10000, 20000, 30000, 40000, 50000};
  ck_assert_int_eq(diff_trend_verdict_work(rising, NULL, NULL, late_work, 6, &options, &verdict, &trend), 0);
  ck_assert_uint_eq(trend.late, 3);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  /* jit_leak.lua at 20000 requests: its last boundaries (a snapshot's, a last cycle, the
   * return's) bunch at the end of the work, so the later half is 4 boundaries, one step and
   * then flat over 1.4% of the run: no hold the run watched, growing. The same step followed by
   * as much work as it took is one step, then flat: steady. */
  uint64_t bunched[9] = {0, 9856, 37856, 88592, 170128, 286272, 373296, 373296, 373296};
  uint64_t bunched_work[9] = {0, 98211, 265679, 524123, 865407, 1646679, 1739799, 1764375, 1764375};
  ck_assert_int_eq(diff_trend_verdict_work(bunched, NULL, NULL, bunched_work, 9, &options, &verdict, &trend), 0);
  ck_assert_uint_eq(trend.late, 4);
  ck_assert_int_eq(trend.stepped, 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  uint64_t held_work[9] = {0, 98211, 265679, 524123, 865407, 1646679, 1739799, 1833000, 1926000};
  ck_assert_int_eq(diff_trend_verdict_work(bunched, NULL, NULL, held_work, 9, &options, &verdict, &trend), 0);
  ck_assert_int_eq(trend.stepped, 1);
  ck_assert_int_ne(verdict, DIFF_VERDICT_GROWING);
}
END_TEST

START_TEST(test_sampling_floor_follows_interval_boundaries_and_p_value)
{
  struct diff_options options;
  diff_options_default(&options);
  ck_assert_uint_eq(diff_sampling_floor(0, 40, &options), 0);
  ck_assert_uint_eq(diff_sampling_floor(524288, 4, &options), UINT64_MAX);  /* under n_min */
  uint64_t coarse = diff_sampling_floor(524288, 40, &options);
  uint64_t fine = diff_sampling_floor(65536, 40, &options);
  ck_assert_uint_eq(coarse % 524288, 0);
  ck_assert_uint_eq(coarse / 524288, fine / 65536);  /* the same count of blocks */
  ck_assert_uint_gt(coarse, options.min_growth_bytes);
  /* A stricter p-value needs more blocks (or as many). */
  options.max_p_value = 0.0001;
  ck_assert_uint_ge(diff_sampling_floor(524288, 40, &options), coarse);
}
END_TEST

/* A result read back may claim any number of boundaries; a diff judges at most
 * DIFF_SOURCE_MAX_BOUNDARIES points, and the floor of more is theirs (the test is quadratic in
 * the points: uncapped, a million would take hours). */
START_TEST(test_sampling_floor_of_more_boundaries_than_a_diff_judges)
{
  struct diff_options options;
  diff_options_default(&options);
  uint64_t most = diff_sampling_floor(524288, DIFF_SOURCE_MAX_BOUNDARIES, &options);
  ck_assert_uint_ne(most, UINT64_MAX);
  ck_assert_uint_gt(most, options.min_growth_bytes);
  ck_assert_uint_eq(diff_sampling_floor(524288, 1000000, &options), most);
  ck_assert_uint_eq(diff_sampling_floor(524288, SIZE_MAX, &options), most);
  /* Needing more boundaries than a diff judges, none is ever enough. */
  options.min_boundaries = DIFF_SOURCE_MAX_BOUNDARIES + 1;
  ck_assert_uint_eq(diff_sampling_floor(524288, 1000000, &options), UINT64_MAX);
}
END_TEST

/* One call of diff_sampling_floor, made on a thread of its own (nothing asked before it). */
struct floor_call {
  uint64_t sample;
  size_t n;
  struct diff_options options;
  uint64_t floor;
};

static void *floor_fresh(void *arg)
{
  struct floor_call *c = arg;
  c->floor = diff_sampling_floor(c->sample, c->n, &c->options);
  return NULL;
}

/* The floor kept from the last call is given only for the same question: asked in turns with
 * one whose every argument and option but one is the same (each change alone moves the floor),
 * each call gives what a thread that asked nothing before finds. */
START_TEST(test_sampling_floor_asked_in_turns_is_each_one_s_own)
{
  enum { VARIANTS = 5 };
  struct floor_call base = {524288, 6, {0}, 0}, variants[VARIANTS];
  diff_options_default(&base.options);
  for (size_t i = 0; i < VARIANTS; i++)
    variants[i] = base;
  variants[0].sample = 65536;
  variants[1].n = 7;
  variants[2].options.max_p_value = 0.05;
  variants[3].options.min_growth_fraction = 0.9;
  variants[4].options.min_boundaries = 7;
  pthread_t thread;
  ck_assert_int_eq(pthread_create(&thread, NULL, floor_fresh, &base), 0);
  ck_assert_int_eq(pthread_join(thread, NULL), 0);
  for (size_t i = 0; i < VARIANTS; i++) {
    ck_assert_int_eq(pthread_create(&thread, NULL, floor_fresh, &variants[i]), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_msg(variants[i].floor != base.floor, "variant %zu: the base's floor %" PRIu64, i, base.floor);
  }
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < VARIANTS; i++) {
      ck_assert_uint_eq(diff_sampling_floor(base.sample, base.n, &base.options), base.floor);
      const struct floor_call *v = &variants[i];
      ck_assert_uint_eq(diff_sampling_floor(v->sample, v->n, &v->options), v->floor);
      ck_assert_uint_eq(diff_sampling_floor(v->sample, v->n, &v->options), v->floor);
    }
}
END_TEST

START_TEST(test_boundaries_needed_follow_the_p_value)
{
  ck_assert_uint_eq(diff_trend_boundaries_needed(0.01), 5);
  ck_assert_uint_eq(diff_trend_boundaries_needed(0.05), 4);
  ck_assert_uint_eq(diff_trend_boundaries_needed(1.0 / 24), 4);
  ck_assert_uint_eq(diff_trend_boundaries_needed(0.0001), 8);
  ck_assert_uint_eq(diff_trend_boundaries_needed(0.5), 2);
  ck_assert_uint_eq(diff_trend_boundaries_needed(1), 2);
  ck_assert_uint_eq(diff_trend_boundaries_needed(0), SIZE_MAX);
  ck_assert_uint_eq(diff_trend_boundaries_needed(NAN), SIZE_MAX);
  /* The count agrees with the test itself, exact and approximate alike: a
   * rising series of needed points reaches p, one point fewer does not. */
  static const double ps[] = {0.5, 0.2, 0.05, 0.01, 1e-3, 1e-6, 1e-12, 1e-30, 1e-64, 1e-70,
                              1e-100, 1e-200, 1e-300};
  double x[2000];
  for (size_t i = 0; i < 2000; i++)
    x[i] = (double)i;
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
    size_t n = diff_trend_boundaries_needed(ps[k]);
    double s, variance, up, down, up_fewer = 1;
    if (n < 2 || n >= 2000)
      ck_abort_msg("p %g: %zu boundaries needed", ps[k], n);
    diff_trend_mann_kendall(x, n, &s, &variance);
    diff_trend_p_values(x, n, s, variance, &up, &down);
    if (n > 2) {
      diff_trend_mann_kendall(x, n - 1, &s, &variance);
      diff_trend_p_values(x, n - 1, s, variance, &up_fewer, &down);
    }
    if (!(up <= ps[k]) || !(up_fewer > ps[k]))
      ck_abort_msg("p %g: %zu points give %g, %zu give %g", ps[k], n, up, n - 1, up_fewer);
  }
}
END_TEST

START_TEST(test_min_boundaries_only_raises_what_the_p_value_needs)
{
  struct diff_options options;
  diff_options_default(&options);
  ck_assert_uint_eq(options.min_boundaries, 0);
  ck_assert_uint_eq(diff_boundaries_needed(&options), 5);
  options.min_boundaries = 3;  /* lower: the p-value's 5 stand */
  ck_assert_uint_eq(diff_boundaries_needed(&options), 5);
  options.min_boundaries = 8;
  ck_assert_uint_eq(diff_boundaries_needed(&options), 8);
  uint64_t rising[6] = {100000, 200000, 300000, 400000, 500000, 600000};
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict(rising, 6, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_UNDECIDED);  /* significant, but 6 < 8 */
  options.min_boundaries = 6;
  ck_assert_int_eq(diff_trend_verdict(rising, 6, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
}
END_TEST

START_TEST(test_warmup_leaves_a_filling_cache_out_of_the_verdict)
{
  /* A cache fills over 3 boundaries, then holds: in a run of 6 boundaries
   * it rose, and the flat end is a tie of 4 that leaves the test no power
   * (p = 0.036 even in this rising order). */
  uint64_t series[8] = {100000, 200000, 300000, 300000, 300000, 300000, 300000, 300000};
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict(series, 6, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_uint_eq(trend.judged, 6);
  ck_assert(trend.p_best > 0.01);
  options.warmup = 2;  /* the fill left out: what is judged is flat */
  ck_assert_int_eq(diff_trend_verdict(series, 6, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(trend.judged, 4);
  ck_assert(trend.slope == 0);
  ck_assert_int_eq(trend.rose, 0);
  /* Over 8 boundaries without a warm-up, the flat part outweighs the fill:
   * 15 of the 28 pairwise slopes are 0, so the median slope is 0: steady. */
  options.warmup = 0;
  ck_assert_int_eq(diff_trend_verdict(series, 8, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(trend.rose, 0);
  options.warmup = 3;
  /* A leak after its warm-up is still a leak. */
  uint64_t leak[8] = {0, 500000, 500000, 600000, 700000, 800000, 900000, 1000000};
  ck_assert_int_eq(diff_trend_verdict(leak, 8, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert(trend.slope == 100000);
  /* A warm-up as long as the series leaves nothing to judge. */
  options.warmup = 8;
  ck_assert_int_eq(diff_trend_verdict(series, 8, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_INSUFFICIENT);
  ck_assert_uint_eq(trend.judged, 0);
}
END_TEST

/* Floating garbage (docs/diff.md, "Floating garbage"): service_steady.lua's
 * line 41 (lpeg.match) at 160000 requests, 40 boundaries. The collector
 * forced the cycles of boundaries 0, 5-18, 20, 22, 38 and 39; the rest are
 * the program's own incremental cycles, whose ends leave some 600 dead
 * strings and tables live (interned strings found again before they were
 * swept); the full cycles at 38 and 39 free them. On its live bytes the
 * site is growing (p 4.4e-7); of the blocks live at each own boundary,
 * those still live at the next full cycle are the 380 bytes that every
 * forced boundary shows: steady. A leak at the same boundaries keeps all
 * it made: its kept series is its live one. */
static const unsigned char floating_forced[40] = {1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                  1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
static const uint64_t floating_live[40] = {
    0,     0,     0,     0,     0,     0,     0,     608,   380,   608,   380,   608,   380,   608,
    472,   604,   608,   608,   608,   504,   608,   504,   380,   22140, 23112, 22608, 21452, 20156,
    18672, 17808, 17412, 17952, 18780, 19896, 21228, 21692, 22688, 23040, 380,   380};
/* Its work: bytes allocated by each boundary (the later half is that of the work). */
static const uint64_t floating_work[40] = {
    0,         96941,     246249,    655493,    1666689,   2719457,   2719457,   3768577,
    4820201,   4821285,   6027821,   7538021,   9424197,   11782901,  14730037,  15015093,
    18772233,  23468657,  23468657,  30252885,  30779457,  38591109,  39116657,  48151413,
    55268369,  62401753,  69533877,  76663537,  83792381,  90919877,  98048101,  105174049,
    112299501, 119427121, 126556517, 133688033, 140818653, 147952281, 155381437, 155381437};

/* The cohorts of the own boundaries of floating_forced (marks), n = 40:
 * the first holds the 380 bytes that last, the others die by boundary 38
 * (or, with leak, each keeps what the site made since the mark before). */
static size_t floating_cohorts(const uint64_t *live, int leak, size_t *marks, uint64_t *cohorts)
{
  size_t count = 0, n = 40;
  for (size_t k = 0; k + 1 < n; k++)
    if (!floating_forced[k])
      marks[count++] = k;
  for (size_t m = 0; m < count; m++)
    for (size_t f = 0; f < n; f++) {
      uint64_t born = live[marks[m]] - (m ? live[marks[m - 1]] : 0);
      cohorts[m * n + f] = f <= marks[m] ? DIFF_TREND_UNMEASURED : leak ? born : m == 0 ? 380 : 0;
    }
  return count;
}

START_TEST(test_floating_garbage_at_own_cycles_is_steady_a_leak_there_is_not)
{
  size_t marks[40];
  uint64_t *cohorts = malloc(40 * 40 * sizeof *cohorts), kept[40];
  ck_assert_ptr_nonnull(cohorts);
  size_t count = floating_cohorts(floating_live, 0, marks, cohorts);
  diff_trend_kept_series(floating_live, marks, count, cohorts, floating_forced, 40, kept);
  for (size_t k = 0; k < 40; k++)  /* forced: the live bytes; own, after the first: 380 */
    ck_assert_uint_eq(kept[k], floating_forced[k] || k == 0 || floating_live[k] < 380 ? floating_live[k] : 380);
  struct diff_options options;
  diff_options_default(&options);
  enum diff_verdict verdict;
  struct diff_trend trend;
  ck_assert_int_eq(diff_trend_verdict_work(floating_live, NULL, NULL, floating_work, 40, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);  /* without the rule */
  ck_assert_int_eq(diff_trend_verdict_kept(floating_live, NULL, NULL, kept, floating_work, 40, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  ck_assert(trend.floating);
  ck_assert_double_eq_tol(trend.p_up, 4.4e-7, 1e-7);  /* the statistics stay those of the live bytes */
  /* No forced boundary: nothing is known to be floating. */
  diff_trend_kept_series(floating_live, marks, count, cohorts, NULL, 40, kept);
  ck_assert_int_eq(diff_trend_verdict_kept(floating_live, NULL, NULL, kept, floating_work, 40, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert(!trend.floating);
  /* A leak at the same boundaries: 1 KiB more each, all of it kept. */
  uint64_t leak[40];
  for (size_t k = 0; k < 40; k++)
    leak[k] = 1024 * (uint64_t)k;
  count = floating_cohorts(leak, 1, marks, cohorts);
  diff_trend_kept_series(leak, marks, count, cohorts, floating_forced, 40, kept);
  for (size_t k = 0; k < 40; k++)
    ck_assert_uint_eq(kept[k], leak[k]);
  ck_assert_int_eq(diff_trend_verdict_kept(leak, NULL, NULL, kept, floating_work, 40, &options, &verdict, &trend), 0);
  ck_assert_int_eq(verdict, DIFF_VERDICT_GROWING);
  ck_assert(!trend.floating);
  free(cohorts);
}
END_TEST

/* A registry that lasts past the next own cycle but not to the next full
 * one is floating by the rule: the blocks live at own boundary 1 that are
 * live at forced boundary 3 are those of its first cohort (born by 1) and
 * not the second's; a boundary with no full one after it is judged at the
 * last boundary. */
START_TEST(test_kept_series_counts_the_cohorts_up_to_the_boundary_at_the_next_full_cycle)
{
  static const uint64_t live[6] = {100, 300, 600, 500, 900, 1000};
  static const unsigned char forced[6] = {1, 0, 0, 1, 0, 0};
  static const size_t marks[3] = {1, 2, 4};
  uint64_t cohorts[3 * 6] = {
      DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED, 250, 200, 150, 150,  /* born by 1, at 1: 300 */
      DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED, 100, 100, 50,
      DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED, DIFF_TREND_UNMEASURED,
      DIFF_TREND_UNMEASURED, 700};
  uint64_t kept[6];
  diff_trend_kept_series(live, marks, 3, cohorts, forced, 6, kept);
  ck_assert_uint_eq(kept[0], 100);  /* forced */
  ck_assert_uint_eq(kept[1], 200);  /* cohort 0 at boundary 3 */
  ck_assert_uint_eq(kept[2], 300);  /* cohorts 0 and 1 at boundary 3 */
  ck_assert_uint_eq(kept[3], 500);  /* forced */
  ck_assert_uint_eq(kept[4], 900);  /* no full cycle after it: at the last, 150 + 50 + 700 */
  ck_assert_uint_eq(kept[5], 1000); /* the last boundary keeps its live bytes */
}
END_TEST

START_TEST(test_verdict_names)
{
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_GROWING), "growing");
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_INSUFFICIENT), "insufficient");
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_WORSE), "worse");
  ck_assert_str_eq(diff_verdict_name(DIFF_VERDICT_UNDECIDED), "undecided");
  ck_assert_int_eq(DIFF_VERDICT_UNDECIDED, 6);  /* after every older value: saved numbers keep */
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
  tcase_add_test(tc, test_sorted_reckonings_equal_the_pairs);
  tcase_add_test(tc, test_steady_leak_is_growing);
  tcase_add_test(tc, test_slow_leak_amid_churn_is_growing_with_8_boundaries);
  tcase_add_test(tc, test_cache_that_fills_then_stays_flat_is_steady);
  tcase_add_test(tc, test_sawtooth_buffer_is_steady);
  tcase_add_test(tc, test_churn_is_steady);
  tcase_add_test(tc, test_small_growth_is_steady_however_regular);
  tcase_add_test(tc, test_shrinking_and_insufficient_below_2_boundaries);
  tcase_add_test(tc, test_verdict_names);
  tcase_add_test(tc, test_issue_series_of_4_boundaries_is_undecided_never_steady);
  tcase_add_test(tc, test_strictly_rising_5_boundaries_is_growing);
  tcase_add_test(tc, test_flat_site_with_few_boundaries_is_steady);
  tcase_add_test(tc, test_ties_that_leave_the_test_no_power_are_undecided);
  tcase_add_test(tc, test_rise_the_test_could_have_shown_but_did_not_is_steady);
  tcase_add_test(tc, test_rise_that_leans_towards_a_trend_is_undecided);
  tcase_add_test(tc, test_fill_and_flush_is_steady_unless_its_floor_rises);
  tcase_add_test(tc, test_floor_is_the_least_low_from_there_on);
  tcase_add_test(tc, test_floors_that_rise_at_every_flush_grow_whatever_the_last_teeth_do);
  tcase_add_test(tc, test_measured_floors_decide_fill_and_flush);
  tcase_add_test(tc, test_one_step_then_flat_is_steady_a_staircase_is_growing);
  tcase_add_test(tc, test_rose_then_held_is_steady_steps_that_repeat_are_not);
  tcase_add_test(tc, test_held_then_released_at_the_end_is_steady);
  tcase_add_test(tc, test_a_brief_hold_takes_a_third_of_the_climb_in_work_too);
  tcase_add_test(tc, test_later_half_is_that_of_the_work_when_known);
  tcase_add_test(tc, test_sampling_floor_follows_interval_boundaries_and_p_value);
  tcase_add_test(tc, test_sampling_floor_of_more_boundaries_than_a_diff_judges);
  tcase_add_test(tc, test_sampling_floor_asked_in_turns_is_each_one_s_own);
  tcase_add_test(tc, test_boundaries_needed_follow_the_p_value);
  tcase_add_test(tc, test_min_boundaries_only_raises_what_the_p_value_needs);
  tcase_add_test(tc, test_warmup_leaves_a_filling_cache_out_of_the_verdict);
  tcase_add_test(tc, test_floating_garbage_at_own_cycles_is_steady_a_leak_there_is_not);
  tcase_add_test(tc, test_kept_series_counts_the_cohorts_up_to_the_boundary_at_the_next_full_cycle);
  suite_add_tcase(s, tc);
  return check_run(s);
}
