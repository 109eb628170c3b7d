/* diff/trend_drops.c: the drops of a series: fill and flush, and the rise after the last drop. */
#include "diff/trend.h"

#include <stdint.h>
#include <stdlib.h>

/* The drops of x (docs/diff.md, "Fill and flush"): a drop is a fall of
 * more than half the rise since the last low (since the least value before
 * it, for the first), and of at least the threshold: it falls back past
 * halfway to the level it rose from. Its high is the largest value before
 * the fall; its low the least value before the series climbs again by half
 * the drop's height and the threshold (a refill). dip (NULL: x) holds the
 * least value within the segment that ends at each boundary, at most x
 * there: it comes before x in the segment, so a fall to it and a refill to
 * x are seen in one segment (a log flushed and partly refilled before the
 * boundary came). Fills drops (room for n) and returns their count;
 * *refilled says whether some drop refilled (a registry released at the
 * end of a run stays low: no flush). */
static size_t trend_drops(const double *x, const double *dip, size_t n, double threshold,
                          struct diff_trend_drop *drops, int *refilled, double *first_base)
{
  size_t count = 0, high_at = 0, low_at = 0;
  int falling = 0;
  *refilled = 0;
  *first_base = n ? x[0] : 0;
  if (n == 0)
    return 0;
  double base = x[0], high = x[0], low = 0;
  for (size_t i = 1; i < n; i++) {
    double least = dip ? dip[i] : x[i];
    if (!falling) {
      if (least < base && !count) {
        base = high = least;  /* still the level the first rise starts from */
        high_at = i;
      } else if (high - least >= threshold && high - least > (high - base) / 2) {
        falling = 1;
        low = least;
        low_at = i;
      }
    } else if (least < low) {
      low = least;
      low_at = i;
    }
    if (!falling) {
      if (x[i] > high) {
        high = x[i];
        high_at = i;
      }
    } else if (x[i] - low >= threshold && x[i] - low >= (high - low) / 2) {
      if (!count)
        *first_base = base;
      drops[count++] = (struct diff_trend_drop){high_at, low_at};
      *refilled = 1;
      falling = 0;
      base = low;
      high = x[i];
      high_at = i;
    }
  }
  if (falling) {
    if (!count)
      *first_base = base;
    drops[count++] = (struct diff_trend_drop){high_at, low_at};
  }
  return count;
}

/* Fill and flush (docs/diff.md, "Fill and flush"): whether x falls back
 * and refills, as a buffer that is filled and flushed does, with a floor
 * that does not rise. It takes a drop followed by a refill and floors that
 * rise by less than the threshold (their Theil-Sen slope times their
 * steps), which a leak under the teeth does by what it keeps each cycle.
 * A drop's floor is what survived it: floors[low], the bytes at its low of
 * the blocks live at its high, when measured (a second reading, diff/
 * survivors.h); the floors then start from the level the first rise
 * started from, so that one drop shows whether what it left rose. Without
 * a measure a drop's low stands for its floor, which it is plus what
 * refilled by the time the boundary came: one low alone cannot show a
 * floor that rises, and a low taken mid-refill is no floor when the series
 * later falls below it again (the least low from there on stands for it).
 * floors is NULL or indexed as x, DIFF_TREND_UNMEASURED where not measured;
 * dip NULL or indexed as x, the least value within each segment (a drop's
 * low is its dip, trend_drops).
 * Drops are falls of at least drop, rises of floors the threshold (with
 * sampling, falls are frees the sampling saw and rises are judged by its
 * floor). *drop_count gets the drops seen; *settled whether, with floors
 * that do not rise, the last drop fell to within the threshold of the
 * level the first rise started from and the series then refills by drop
 * but by less than the threshold from its least value: what rose before
 * the drop was let go, and a rise after it within the threshold is no
 * growth. */
int diff_trend_fill_and_flush(const double *x, const double *dip, const uint64_t *floors, size_t n,
                              double drop, double threshold, size_t *drop_count, int *settled,
                              int *rising)
{
  *drop_count = 0;
  *settled = 0;
  *rising = 0;
  if (n < 4)
    return 0;
  struct diff_trend_drop *drops = malloc(n * sizeof *drops);
  double *lows = malloc((n + 1) * sizeof *lows);
  if (!drops || !lows) {
    free(drops);
    free(lows);
    return 0;
  }
  int refilled;
  double base;
  const double *least_of = dip ? dip : x;
  size_t count = trend_drops(x, dip, n, drop, drops, &refilled, &base);
  *drop_count = count;
  int measured = count > 0;
  for (size_t i = 0; i < count; i++)
    measured &= floors && floors[drops[i].low] != DIFF_TREND_UNMEASURED;
  size_t points = count;
  if (measured && count && !refilled) {
    /* The floor measured, the drop needs no refill past halfway to stand
     * for a flush: a rise again by the threshold after its low will do (a
     * registry released at the end stays low). */
    size_t at = drops[count - 1].low;
    for (size_t i = dip ? at : at + 1; i < n; i++)  /* with dips, x[at] came after its low */
      refilled |= x[i] - least_of[at] >= drop;
  }
  if (measured) {
    lows[0] = base;
    for (size_t i = 0; i < count; i++)
      lows[i + 1] = (double)floors[drops[i].low];
    points = count + 1;
  } else {
    for (size_t i = 0; i < count; i++)
      lows[i] = least_of[drops[i].low];
    /* A leak keeps what it held, which raises every later low, and so the
     * least low from there on too. */
    for (size_t i = count - (count > 0); i-- > 0;)
      if (lows[i + 1] < lows[i])
        lows[i] = lows[i + 1];
  }
  /* Floors that rise at every drop, by the threshold in all and by half of it
   * at the last: a leak under the teeth, kept through each flush and still
   * kept at the end. Only floors read from frees (measured, or dips) count:
   * a low read from live bytes alone may be a refill under way. */
  if ((measured || dip) && count >= 2) {
    int climbs = lows[points - 1] - lows[0] >= threshold &&
                 lows[points - 1] - lows[points - 2] >= threshold / 2;
    for (size_t i = 1; climbs && i < points; i++)
      climbs = lows[i] > lows[i - 1];
    *rising = climbs;
  }
  double slope = 0;
  int flat = points == 1 || (points >= 2 && diff_trend_theil_sen(lows, points, &slope) == 0 &&
                             slope * (double)(points - 1) < threshold);
  if (count && flat) {
    /* A leak keeps what it held: its low stays above where it started. A
     * refill by drop, not by threshold, is a flush refilled within what
     * the threshold can tell from noise (a registry released at the end
     * does not refill). Where drop is the threshold no rise is both. */
    double least = least_of[drops[count - 1].low], rise = 0;
    *settled = least - base < threshold;
    for (size_t i = drops[count - 1].low; i < n; i++) {
      least = least_of[i] < least ? least_of[i] : least;
      rise = x[i] - least > rise ? x[i] - least : rise;
    }
    *settled &= rise >= drop && rise < threshold;
  }
  free(drops);
  free(lows);
  return refilled && flat;
}

/* Whether a site replaces what it holds in most segments where it rose: in at least 3/4 of
 * them (and 4 at least), less than half of what lived at the segment's start lived to its end.
 * A string kept and appended to is a new copy at each append; its frees then say nothing of a
 * flush, and a boundary that caught two copies at once (the old one and the new, in the middle
 * of the concatenation) is followed by a segment that fell and freed all it held. A buffer
 * filled and flushed keeps what it held between its flushes. */
static int trend_replaces(const uint64_t *series, const uint64_t *survived, size_t n)
{
  size_t rose = 0, replaced = 0;
  for (size_t i = 1; i < n; i++) {
    if (series[i] <= series[i - 1] || survived[i] == UINT64_MAX)
      continue;
    rose++;
    replaced += survived[i] < series[i - 1] / 2;
  }
  return rose >= 4 && replaced * 4 >= rose * 3;
}

void diff_trend_dips(const uint64_t *series, const uint64_t *survived, size_t n, int sampled, double *dip)
{
  int replaces = trend_replaces(series, survived, n);
  for (size_t i = 0; i < n; i++) {
    if (replaces) {
      dip[i] = (double)series[i];
      continue;
    }
    uint64_t slack = i > 0 && sampled ? series[i - 1] / DIFF_TREND_DIP_LEVEL : 0;
    int rose = i > 0 && series[i] > series[i - 1] && series[i] - series[i - 1] > slack;
    dip[i] = (double)(i > 0 && !rose && survived[i] < series[i] ? survived[i] : series[i]);
  }
}

size_t diff_trend_find_drops(const uint64_t *series, const uint64_t *survived, size_t n,
                             const struct diff_trend *trend, struct diff_trend_drop *drops)
{
  size_t skip = trend->skipped, judged = n - skip;
  double *x = malloc((judged ? judged : 1) * sizeof *x);
  double *dip = survived ? malloc((judged ? judged : 1) * sizeof *dip) : NULL;
  if (!x || (survived && !dip)) {
    free(x);
    free(dip);
    return SIZE_MAX;
  }
  for (size_t i = 0; i < judged; i++)
    x[i] = (double)series[skip + i];
  if (dip)
    diff_trend_dips(series + skip, survived + skip, judged, trend->sampled, dip);
  int refilled;
  double base;
  size_t count = trend_drops(x, dip, judged, trend->drop_threshold, drops, &refilled, &base);
  free(x);
  free(dip);
  for (size_t i = 0; i < count; i++) {
    drops[i].high += skip;
    drops[i].low += skip;
  }
  return count;
}
