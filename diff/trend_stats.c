/* diff/trend_stats.c: the statistics under the growth verdicts: Mann-Kendall's S and its variance by sorting, Theil-Sen's slope over the pairs that are not flat. */
#include "diff/trend.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int trend_sign(double d)
{
  return (d > 0) - (d < 0);
}

/* Mann-Kendall's S and tie-corrected variance pair by pair: the reference for what
 * diff_trend_mann_kendall finds by sorting, used where sorting cannot (NaN, which has no order;
 * no memory). */
static void trend_mann_kendall_pairs(const double *x, size_t n, double *s, double *variance)
{
  double sum = 0;
  for (size_t i = 0; i + 1 < n; i++)
    for (size_t j = i + 1; j < n; j++)
      sum += trend_sign(x[j] - x[i]);
  /* Tie correction: each group of t equal values removes t(t-1)(2t+5). */
  double dn = (double)n;
  double var = dn * (dn - 1) * (2 * dn + 5);
  char *counted = calloc(n ? n : 1, 1);
  for (size_t i = 0; i < n && counted; i++) {
    if (counted[i])
      continue;
    double t = 0;
    for (size_t j = i; j < n; j++)
      if (x[j] == x[i]) {
        counted[j] = 1;
        t++;
      }
    var -= t * (t - 1) * (2 * t + 5);
  }
  free(counted);
  *s = sum;
  *variance = var / 18;
}

/* Sorts v[0..n) (scratch holds n) by merging, and returns the sum over i < j of
 * sign(v[j] - v[i]) in v's order before: each later value of a merge gains one for every
 * earlier value below it and loses one for every one above it. */
static double trend_sign_sum(double *v, double *scratch, size_t n)
{
  if (n < 2)
    return 0;
  size_t half = n / 2, below = 0, not_above = 0;
  double sum = trend_sign_sum(v, scratch, half) + trend_sign_sum(v + half, scratch, n - half);
  for (size_t j = half; j < n; j++) {
    while (below < half && v[below] < v[j])
      below++;
    while (not_above < half && v[not_above] <= v[j])
      not_above++;
    sum += (double)below - (double)(half - not_above);
  }
  size_t a = 0, b = half, k = 0;
  while (a < half && b < n)
    scratch[k++] = v[b] < v[a] ? v[b++] : v[a++];
  while (a < half)
    scratch[k++] = v[a++];
  while (b < n)
    scratch[k++] = v[b++];
  memcpy(v, scratch, n * sizeof *v);
  return sum;
}

/* The largest n whose sums are whole numbers below 2^53 (n^3 and the pairs): exact in any
 * order, so the sorted reckoning equals the pairs'. */
#define TREND_SORTED_MAX 131072

/* S by sorting, O(n log n): a service's thousands of sites over hundreds of boundaries each
 * (a long sampled capture) took seconds pair by pair. The same S and variance as
 * trend_mann_kendall_pairs, to the bit: both are sums of whole numbers. */
void diff_trend_mann_kendall(const double *x, size_t n, double *s, double *variance)
{
  int sortable = n >= 2 && n <= TREND_SORTED_MAX;
  for (size_t i = 0; i < n && sortable; i++)
    sortable = x[i] == x[i];
  double *v = sortable ? malloc((n ? 2 * n : 1) * sizeof *v) : NULL;
  if (!v) {
    trend_mann_kendall_pairs(x, n, s, variance);
    return;
  }
  memcpy(v, x, n * sizeof *v);
  double sum = trend_sign_sum(v, v + n, n), dn = (double)n;
  double var = dn * (dn - 1) * (2 * dn + 5);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && v[j] == v[i]; j++)
      ;
    double t = (double)(j - i);
    var -= t * (t - 1) * (2 * t + 5);
  }
  free(v);
  *s = sum;
  *variance = var / 18;
}

/* The k-th smallest of values[0..count) (Hoare's selection; reorders values). */
static double trend_select(double *values, size_t count, size_t k)
{
  size_t left = 0, right = count - 1;
  while (left < right) {
    double pivot = values[left + (right - left) / 2];
    size_t i = left, j = right;
    while (i <= j) {
      while (values[i] < pivot)
        i++;
      while (values[j] > pivot)
        j--;
      if (i <= j) {
        double t = values[i];
        values[i] = values[j];
        values[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      right = j;
    else if (k >= i)
      left = i;
    else
      return values[k];
  }
  return values[k];
}

/* The k-th smallest of the count slopes: the negative ones at the front (zeros_at of them),
 * then zeros of slope 0, not stored, then the positive ones to the end (reorders them). */
static double trend_slope_at(double *slopes, size_t count, size_t zeros_at, size_t zeros, size_t k)
{
  if (k < zeros_at)
    return trend_select(slopes, zeros_at, k);
  if (k < zeros_at + zeros)
    return 0;
  return trend_select(slopes + zeros_at + zeros, count - zeros_at - zeros, k - zeros_at - zeros);
}

/* The median of the slopes: the middle one, or the mean of the two middle ones. */
static double trend_median_of(double *slopes, size_t count, size_t zeros_at, size_t zeros)
{
  double high = trend_slope_at(slopes, count, zeros_at, zeros, count / 2);
  if (count % 2)
    return high;
  return (trend_slope_at(slopes, count, zeros_at, zeros, count / 2 - 1) + high) / 2;
}

/* The median of every pair's slope, each stored, the lower middle of an even count the largest
 * value the selection of the upper one left below it. */
static double trend_median_every(const double *x, const size_t *at, size_t points, double *slopes,
                                 size_t count)
{
  size_t k = 0;
  for (size_t a = 0; a + 1 < points; a++)
    for (size_t b = a + 1; b < points; b++)
      slopes[k++] = (x[at[b]] - x[at[a]]) / (double)(at[b] - at[a]);
  double high = trend_select(slopes, count, count / 2);
  if (count % 2)
    return high;
  double low = slopes[0];
  for (size_t i = 1; i < count / 2; i++)
    if (slopes[i] > low)
      low = slopes[i];
  return (low + high) / 2;
}

/* Stores the slope of the thinned points i < j, negative ones from the front, positive ones
 * from the back; a pair of equal values (slope 0) is counted by what is not stored. 1 when
 * the pair has no place there (a value that is not a number, a rise too small to have a
 * slope, -0): every slope must then be kept. */
static inline int trend_pair(const double *x, const size_t *at, size_t i, size_t j, double *slopes,
                             size_t *front, size_t *back)
{
  double rise = x[at[j]] - x[at[i]];
  if (rise == 0 && !signbit(rise))
    return 0;
  double s = rise / (double)(at[j] - at[i]);
  if (s < 0)
    slopes[(*front)++] = s;
  else if (s > 0)
    slopes[--*back] = s;
  else
    return 1;
  return 0;
}

/* The value more than half of the thinned points have (a sampled site's series is mostly
 * one value, often 0): the count of the points of other values, put in other[] in order;
 * SIZE_MAX when no value has half of them, or a value is not finite or is -0 (whose pairs
 * must each be looked at). */
static size_t trend_common(const double *x, const size_t *at, size_t points, size_t *other)
{
  double common = x[at[0]];
  size_t votes = 0, others = 0;
  for (size_t a = 0; a < points; a++) {
    double v = x[at[a]];
    if (!isfinite(v) || (v == 0 && signbit(v)))
      return SIZE_MAX;
    if (!votes)
      common = v, votes = 1;
    else
      votes += v == common ? 1 : (size_t)-1;
  }
  for (size_t a = 0; a < points; a++)
    if (x[at[a]] != common)
      other[others++] = a;
  return others < points / 2 ? others : SIZE_MAX;
}

int diff_trend_theil_sen(const double *x, size_t n, double *slope)
{
  *slope = 0;
  if (n < 2)
    return 0;
  /* A long series is thinned to DIFF_TREND_THEIL_SEN_POINTS evenly spaced
   * boundaries (keeping their true distances), so time and memory stay
   * bounded: the pairs grow with the square of the points. */
  size_t points = n > DIFF_TREND_THEIL_SEN_POINTS ? DIFF_TREND_THEIL_SEN_POINTS : n;
  size_t count = points * (points - 1) / 2, front = 0, back = count;
  double *slopes = malloc(count * sizeof *slopes);
  size_t *at = malloc(2 * points * sizeof *at);
  unsigned char *is_other = calloc(points, 1);
  if (!slopes || !at || !is_other) {
    free(slopes), free(at), free(is_other);
    return -1;
  }
  size_t *other = at + points;
  for (size_t a = 0; a < points; a++)
    at[a] = a * (n - 1) / (points - 1);
  /* The selections run over the slopes that are not 0 only. When most points share one
   * value, only the pairs with a point of another value are looked at: the rest are 0. */
  int every = 0;
  size_t others = trend_common(x, at, points, other);
  if (others != SIZE_MAX) {
    for (size_t k = 0; k < others; k++)
      is_other[other[k]] = 1;
    for (size_t k = 0; k < others && !every; k++)
      for (size_t b = 0, p = other[k]; b < points && !every; b++)
        if (b != p && !(is_other[b] && b < p))
          every = trend_pair(x, at, b < p ? b : p, b < p ? p : b, slopes, &front, &back);
  } else {
    for (size_t a = 0; a + 1 < points && !every; a++)
      for (size_t b = a + 1; b < points && !every; b++)
        every = trend_pair(x, at, a, b, slopes, &front, &back);
  }
  if (every)
    *slope = trend_median_every(x, at, points, slopes, count);
  else
    *slope = trend_median_of(slopes, count, front, back - front);
  free(slopes);
  free(at);
  free(is_other);
  return 0;
}
