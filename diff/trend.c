/* diff/trend.c: growth verdicts: Mann-Kendall significance, Theil-Sen growth (the statistics in trend_stats.c), a later-half check, and undecided without power. */
#include "diff/trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int trend_has_ties(const double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (x[i] == x[j])
        return 1;
  return 0;
}

/* P(S >= s) under no trend and no ties: S = N - 2 * inversions, and the
 * inversion counts of a random permutation follow the Mahonian numbers,
 * built here one element at a time as probabilities. */
static double trend_exact_upper(size_t n, double s)
{
  size_t pairs = n * (n - 1) / 2;
  double *p = calloc(pairs + 1, sizeof *p), *next = calloc(pairs + 1, sizeof *next);
  if (!p || !next) {
    free(p);
    free(next);
    return -1;
  }
  p[0] = 1;
  size_t top = 0;
  for (size_t m = 2; m <= n; m++) {  /* the m-th element adds 0..m-1 inversions */
    size_t new_top = top + m - 1;
    double window = 0;
    for (size_t k = 0; k <= new_top; k++) {
      if (k <= top)
        window += p[k];
      if (k >= m && k - m <= top)
        window -= p[k - m];
      next[k] = window / (double)m;
    }
    memcpy(p, next, (new_top + 1) * sizeof *p);
    top = new_top;
  }
  /* S >= s  <=>  inversions <= (pairs - s) / 2 */
  double limit = ((double)pairs - s) / 2;
  double sum = 0;
  for (size_t k = 0; k <= pairs && (double)k <= limit + 1e-9; k++)
    sum += p[k];
  free(p);
  free(next);
  return sum > 1 ? 1 : sum;
}

/* The p-values of S for n points, exact when there are no ties and n is small. */
static void trend_p_values_of(size_t n, int ties, double s, double variance, double *p_up,
                              double *p_down)
{
  *p_up = *p_down = 1;
  if (n < 2 || variance <= 0)
    return;
  if (n <= DIFF_TREND_EXACT_MAX && !ties) {
    double up = trend_exact_upper(n, s);
    double down = trend_exact_upper(n, -s);  /* symmetric: P(S <= s) = P(S >= -s) */
    if (up >= 0 && down >= 0) {
      *p_up = up;
      *p_down = down;
      return;
    }
  }
  double sigma = sqrt(variance);
  *p_up = 0.5 * erfc(((s - 1) / sigma) / sqrt(2.0));
  *p_down = 0.5 * erfc((-(s + 1) / sigma) / sqrt(2.0));
  if (*p_up > 1)
    *p_up = 1;
  if (*p_down > 1)
    *p_down = 1;
}

void diff_trend_p_values(const double *x, size_t n, double s, double variance,
                    double *p_up, double *p_down)
{
  trend_p_values_of(n, n <= DIFF_TREND_EXACT_MAX && trend_has_ties(x, n), s, variance, p_up, p_down);
}

static int trend_compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* In rising order every pair that is not a tie counts +1, so S is the
 * number of pairs minus the tied ones; Var(S) does not depend on the order. */
int diff_trend_best_p_value(const double *x, size_t n, double *p_best)
{
  *p_best = 1;
  if (n < 2)
    return 0;
  double *sorted = malloc(n * sizeof *sorted);
  if (!sorted)
    return -1;
  memcpy(sorted, x, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, trend_compare_doubles);
  double dn = (double)n, tied_pairs = 0;
  double var = dn * (dn - 1) * (2 * dn + 5);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && sorted[j] == sorted[i])
      j++;
    double t = (double)(j - i);
    tied_pairs += t * (t - 1) / 2;
    var -= t * (t - 1) * (2 * t + 5);
    i = j;
  }
  free(sorted);
  double s = dn * (dn - 1) / 2 - tied_pairs, p_down;
  trend_p_values_of(n, tied_pairs > 0, s, var / 18, p_best, &p_down);
  return 0;
}

/* One step (docs/diff.md, "One step, then flat"): whether the rise of
 * the later part x[0..n) is a single step that the run then watched hold:
 * at least two boundaries follow its largest rise between two neighbouring
 * boundaries, and with that rise taken out (the values after it lowered by
 * it) the Theil-Sen slope times span no longer reaches half the threshold.
 * A table part or the string table that doubles once and then holds its
 * size rises in one step; a leak keeps rising around its largest step, by
 * many small steps or one a boundary. A step at the last boundaries shows
 * nothing of what follows it, nor does one followed by less work than it
 * took (work indexed as x, NULL: unknown), as boundaries bunched at the
 * end of a run (a snapshot's, the return's) are: the run did not watch it
 * hold. A series that falls back below the step by the threshold did not
 * hold it. Returns -1 when out of memory. */
static int trend_one_step(const double *x, const uint64_t *work, size_t n, double span, double threshold)
{
  if (n < 2)
    return 0;
  size_t at = 1;
  for (size_t i = 2; i < n; i++)
    if (x[i] - x[i - 1] > x[at] - x[at - 1])
      at = i;
  double step = x[at] - x[at - 1];
  if (step <= 0 || at + 2 >= n)
    return 0;
  if (work && work[n - 1] - work[at] < work[at] - work[at - 1])
    return 0;  /* boundaries close together at the end: less work after the step than it took */
  for (size_t i = at + 1; i < n; i++)
    if (x[i] < x[at] - threshold)
      return 0;  /* it fell back after the step: a tooth, not a step that held */
  double *rest = malloc(n * sizeof *rest), slope;
  if (!rest)
    return -1;
  for (size_t i = 0; i < n; i++)
    rest[i] = i < at ? x[i] : x[i] - step;
  int status = diff_trend_theil_sen(rest, n, &slope);
  free(rest);
  if (status < 0)
    return -1;
  return slope * span < threshold / 2;
}

/* Whether a hold x[hold..n), shorter than the climb from climb_from before it, may say the site
 * stopped: at least a third of the climb, in boundaries and, when the work is known, in work
 * (the last boundaries of a run often come together, with no work between them: a slow leak
 * looks flat over them), and twice the climb's longest pause (a rise of less than half the
 * threshold from its start: a burst leak pauses as long between its bursts). */
static int trend_hold_long_enough(const double *x, const uint64_t *work, size_t n, size_t hold,
                                  size_t climb_from, double threshold)
{
  size_t held = n - hold, climb = hold - climb_from, pause = 0;
  if (3 * held < climb)
    return 0;
  if (work && climb_from > 0 && 3 * (work[n - 1] - work[hold - 1]) < work[hold - 1] - work[climb_from - 1])
    return 0;
  for (size_t i = climb_from + 1, start = climb_from; i < hold; i++) {
    if (x[i] - x[start] >= threshold / 2)
      start = i;
    else if (i - start > pause)
      pause = i - start;
  }
  return held >= 2 * pause;
}

/* Held (docs/diff.md, "Rose, then held"): whether x rose to a level and
 * then held it: a table resized once, a cache warmed, the string table
 * doubled while the program warmed up. The level is the median of the last
 * `needed` boundaries; the hold is the boundaries after the last one below
 * the level by half the threshold (an outlier above it, a young block
 * caught at one boundary, does not end it). It takes:
 *   - a hold of at least `needed` boundaries (what the test needs to show a
 *     trend: had the site kept growing, the hold could have shown it), and
 *     at least as long as the climb (the boundaries from the first that
 *     left the start level by half the threshold to the hold): steps that
 *     repeat, or a ramp, have not held as long as they climbed;
 *   - no trend in the hold: its Theil-Sen slope times its steps below half
 *     the threshold, and its one-sided Mann-Kendall p-value above
 *     max_p_value;
 *   - nothing before the hold above the level by half the threshold: it
 *     rose to the level, it did not fall to it.
 * 1 when held; 2 when all of that holds but the hold is shorter than the
 * climb, and long enough by trend_hold_long_enough (a cache that filled, or
 * a leak that paused: the run ended before it could tell); 0 otherwise, -1
 * when out of memory. work: indexed as x, or NULL. */
static int trend_held(const double *x, const uint64_t *work, size_t n, size_t needed, double threshold,
                      double max_p_value)
{
  if (needed < 2 || n < needed + 1)
    return 0;
  double *last = malloc(needed * sizeof *last);
  if (!last)
    return -1;
  memcpy(last, x + (n - needed), needed * sizeof *last);
  qsort(last, needed, sizeof *last, trend_compare_doubles);
  double level = needed % 2 ? last[needed / 2] : (last[needed / 2 - 1] + last[needed / 2]) / 2;
  free(last);
  size_t hold = n;  /* the first boundary of the hold */
  while (hold > 0 && x[hold - 1] >= level - threshold / 2)
    hold--;
  size_t held = n - hold, climb_from = 0;
  if (hold == 0 || held < needed)
    return 0;  /* never below the level: no rise; or too few boundaries after the step */
  while (climb_from < hold && x[climb_from] < x[0] + threshold / 2)
    climb_from++;
  /* held for less time than it took to climb: a ramp, steps that repeat, or a pause */
  int brief = held < hold - climb_from;
  if (brief && !trend_hold_long_enough(x, work, n, hold, climb_from, threshold))
    return 0;
  for (size_t i = 0; i < hold; i++)
    if (x[i] > level + threshold / 2)
      return 0;  /* it fell to the level */
  double s, variance, p_up, p_down, slope;
  diff_trend_mann_kendall(x + hold, held, &s, &variance);
  diff_trend_p_values(x + hold, held, s, variance, &p_up, &p_down);
  if (diff_trend_theil_sen(x + hold, held, &slope) < 0)
    return -1;
  if (p_up <= max_p_value || slope * (double)(held - 1) >= threshold / 2)
    return 0;
  return brief ? 2 : 1;
}

/* Held, then released (docs/diff.md, "Rose, then held"): whether x held
 * by trend_held on the boundaries before a fall at its end: a cache or the
 * string table that the program emptied at its last request, or let go
 * before the main chunk returned. The release is the last boundaries, at
 * most a quarter of them (the window of trend_released_at_end), each below
 * the boundary before it began by more than half the threshold, and never
 * rising again by half the threshold (a refill is fill and flush's to
 * judge). The hold before it already showed the site stopped growing; what
 * it let go afterwards shows nothing more. Returns -1 when out of memory. */
static int trend_held_then_released(const double *x, const uint64_t *work, size_t n, size_t needed,
                                    double threshold, double max_p_value)
{
  double tail_max = -INFINITY;
  for (size_t end = n - 1; end > needed && 4 * (n - end) <= n; end--) {
    if (tail_max - x[end] >= threshold / 2)
      return 0;  /* it rose again after falling: not a release */
    if (x[end] > tail_max)
      tail_max = x[end];
    if (x[end - 1] - tail_max <= threshold / 2)
      continue;  /* x[end - 1] is no level it fell from */
    int held = trend_held(x, work, end, needed, threshold, max_p_value);
    if (held < 0 || held == 1)
      return held;
  }
  return 0;
}

/* Released at the end (docs/diff.md, "Fill and flush"): whether x rose
 * to its peak with a significant trend of at least the threshold and then,
 * in the last quarter of its boundaries, fell, more than halfway back and
 * by the threshold, without refilling: a
 * registry the program let go before it ended. What it would have done
 * had it run on cannot be told, so such a site is undecided, not steady.
 * Returns -1 when out of memory. */
static int trend_released_at_end(const double *x, size_t n, double threshold, double max_p_value)
{
  size_t peak = 0;
  for (size_t i = 1; i < n; i++)
    if (x[i] >= x[peak])
      peak = i;
  if (peak < 2 || peak + 1 >= n || 4 * (n - 1 - peak) > n)
    return 0;  /* a fall early in the run, flat since: the test had the time to see a trend */
  double base = x[0], low = x[peak + 1], last_high = low;
  for (size_t i = 0; i < peak; i++)
    if (x[i] < base)
      base = x[i];
  for (size_t i = peak + 1; i < n; i++)
    if (x[i] < low)
      low = x[i];
  for (size_t i = peak + 1; i < n; i++)
    if (x[i] > last_high)
      last_high = x[i];
  double fall = x[peak] - low;
  if (fall < threshold || fall <= (x[peak] - base) / 2 ||
      last_high - low >= (threshold > fall / 2 ? threshold : fall / 2))
    return 0;
  size_t m = peak + 1;
  double s, variance, p_up, p_down, slope;
  diff_trend_mann_kendall(x, m, &s, &variance);
  diff_trend_p_values(x, m, s, variance, &p_up, &p_down);
  if (diff_trend_theil_sen(x, m, &slope) < 0)
    return -1;
  return p_up <= max_p_value && slope * (double)(m - 1) >= threshold;
}

/* The verdict (docs/diff.md, "Verdicts"), on the series after the warm-up:
 *   - under 2 boundaries nothing is measured: insufficient;
 *   - "rose": the Theil-Sen slope times the steps reaches the threshold, the
 *     larger of min_growth_bytes and min_growth_fraction of the peak, so
 *     small drifts and big caches that wobble do not count;
 *   - under diff_boundaries_needed boundaries no series can reach
 *     max_p_value: a site that rose is undecided (never steady), one that
 *     did not is steady;
 *   - else growing needs Mann-Kendall significance, the rise, and
 *     persistence: the slope over the later half, times the steps, reaches
 *     half the threshold, so a cache that fills early and then stays flat
 *     (which Mann-Kendall alone can call significant) is not a leak, and
 *     does so without its largest single step, so a table that doubles
 *     once in the later half and holds its size is not one either; a
 *     series whose floors, read from its frees, rise at each of two drops
 *     or more and still at the last (a leak under the teeth) persists
 *     whatever its last teeth do;
 *   - a site that rose and fell back with a floor that does not rise (a
 *     buffer filled and flushed) is steady, whatever its trend; a fall
 *     within a segment is read from its frees too (dip, survived); with
 *     falls judged below the threshold (sampled), one that fell back and
 *     refilled within the threshold (settled) is neither growing nor
 *     undecided, nor released at the end;
 *   - a steady site that rose significantly to its peak and then fell
 *     back for good (released before the end) is undecided;
 *   - a site that rose without significance is undecided when even its
 *     values in rising order could not be significant (ties: a site at 0 for
 *     the first boundaries), else steady: the test could have seen a trend. */
int diff_trend_verdict(const uint64_t *series, size_t n, const struct diff_options *options,
                  enum diff_verdict *verdict, struct diff_trend *out)
{
  return diff_trend_verdict_floors(series, NULL, n, options, verdict, out);
}

int diff_trend_verdict_floors(const uint64_t *series, const uint64_t *floors, size_t n,
                              const struct diff_options *options, enum diff_verdict *verdict,
                              struct diff_trend *out)
{
  return diff_trend_verdict_work(series, floors, NULL, NULL, n, options, verdict, out);
}

/* The boundaries of the later half of x[0..n): those at or after half the
 * work from the first to the last (work indexed as x, NULL: half the
 * boundaries), at least 3. The program's own cycles come close together
 * while its heap is small and apart once it is large: half the boundaries
 * can lie in the first fifth of the run, and the later half of them then
 * says little about how the run ended. */
static size_t trend_late_count(const uint64_t *work, size_t n)
{
  size_t count = (n + 1) / 2 < 3 ? (n < 3 ? n : 3) : (n + 1) / 2;
  if (!work || n < 3 || work[n - 1] <= work[0])
    return count;
  uint64_t half = work[0] + (work[n - 1] - work[0]) / 2;
  count = 0;
  while (count < n && work[n - 1 - count] >= half)
    count++;
  return count < 3 ? 3 : count;
}

/* The verdict on x (n >= 2 boundaries, the last late_count of them the later half; dip, floors
 * and work indexed as x, or NULL): 0, or -1 when out of memory. */
static int trend_decide(double *x, const double *dip, const uint64_t *floors, const uint64_t *work,
                        size_t n, size_t late_count, const struct diff_options *options,
                        enum diff_verdict *verdict, struct diff_trend *out)
{
  int status = 0;
  double span = (double)(n - 1);
  double p = options->max_p_value;
  out->rose = out->slope > 0 && out->slope * span >= out->threshold;
  /* With falls judged below the threshold (sampled), a series that did not rise by it is
   * judged too: filled and flushed, or settled, it released nothing at the end. */
  int filled = 0;
  if (out->rose || out->drop_threshold < out->threshold)
    filled = diff_trend_fill_and_flush(x, dip, floors, n, out->drop_threshold, out->threshold,
                                       &out->drops, &out->settled, &out->floors_rising);
  out->flushed = out->rose && filled;
  if (out->rose && out->p_up <= p && out->late_slope * span >= out->threshold / 2) {
    int stepped = trend_one_step(x + (n - late_count), work ? work + (n - late_count) : NULL,
                                 late_count, span, out->threshold);
    if (stepped < 0)
      return -1;
    out->stepped = stepped;
  }
  int held = n >= out->needed && !out->flushed
                 ? trend_held(x, work, n, out->needed, out->threshold, p)
                 : 0;
  out->held_briefly = held == 2;
  if (held == 2)
    held = 0;
  if (held == 0 && n >= out->needed && !out->flushed)
    held = trend_held_then_released(x, work, n, out->needed, out->threshold, p);
  if (held < 0)
    return -1;
  out->held = held;
  if (out->flushed || out->held)
    *verdict = DIFF_VERDICT_STEADY;
  else if (n < out->needed)
    *verdict = out->rose ? DIFF_VERDICT_UNDECIDED : DIFF_VERDICT_STEADY;
  else if (out->p_up <= p && out->rose &&
           (out->floors_rising ||
            (out->late_slope * span >= out->threshold / 2 && !out->stepped && !out->settled)))
    /* it rose, then held to the end for fewer boundaries than it rose for: which of a cache
     * that filled or a leak that paused, a longer run tells (whatever floors rose before) */
    *verdict = out->held_briefly ? DIFF_VERDICT_UNDECIDED : DIFF_VERDICT_GROWING;
  else if (out->p_down <= p && -out->slope * span >= out->threshold)
    *verdict = DIFF_VERDICT_SHRINKING;
  else if (out->rose && out->p_up > p && !out->settled &&
           (status = diff_trend_best_p_value(x, n, &out->p_best)) == 0)
    *verdict = out->p_best > p || out->p_up <= DIFF_TREND_SUGGESTIVE * p ? DIFF_VERDICT_UNDECIDED
                                                                    : DIFF_VERDICT_STEADY;
  else
    *verdict = DIFF_VERDICT_STEADY;
  if (*verdict == DIFF_VERDICT_STEADY && !filled && !out->held && !out->settled && status == 0) {
    int released = trend_released_at_end(x, n, out->threshold, p);
    if (released < 0)
      status = -1;
    else if (released)
      *verdict = DIFF_VERDICT_UNDECIDED;
    out->released = released > 0;
  }
  return status;
}

int diff_trend_verdict_work(const uint64_t *series, const uint64_t *floors, const uint64_t *survived,
                            const uint64_t *work, size_t n, const struct diff_options *options,
                            enum diff_verdict *verdict, struct diff_trend *out)
{
  memset(out, 0, sizeof *out);
  *verdict = DIFF_VERDICT_INSUFFICIENT;
  size_t skip = options->warmup < n ? options->warmup : n;
  series += skip;
  if (floors)
    floors += skip;
  if (survived)
    survived += skip;
  if (work)
    work += skip;
  n -= skip;
  out->skipped = skip;
  out->sampled = options->sampled;
  out->judged = n;
  out->needed = diff_boundaries_needed(options);
  out->p_best = 1;
  double *x = calloc(n ? n : 1, sizeof *x);
  double *dip = survived ? malloc((n ? n : 1) * sizeof *dip) : NULL;
  if (!x || (survived && !dip)) {
    free(x);
    free(dip);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    x[i] = (double)series[i];
    if (x[i] > out->peak)
      out->peak = x[i];
  }
  diff_trend_mann_kendall(x, n, &out->s, &out->variance);
  diff_trend_p_values(x, n, out->s, out->variance, &out->p_up, &out->p_down);
  size_t late_count = trend_late_count(work, n);
  out->late = late_count;
  if (diff_trend_theil_sen(x, n, &out->slope) < 0 ||
      diff_trend_theil_sen(x + (n - late_count), late_count, &out->late_slope) < 0) {
    free(x);
    free(dip);
    return -1;
  }
  out->threshold = options->min_growth_bytes;
  if (options->min_growth_fraction * out->peak > out->threshold)
    out->threshold = options->min_growth_fraction * out->peak;
  out->drop_threshold = out->threshold;
  if (options->min_drop_bytes > 0 && options->min_drop_bytes < out->threshold)
    out->drop_threshold = options->min_drop_bytes > options->min_growth_fraction * out->peak
                              ? options->min_drop_bytes
                              : options->min_growth_fraction * out->peak;
  if (dip)
    diff_trend_dips(series, survived, n, options->sampled, dip);
  int status = n >= 2 ? trend_decide(x, dip, floors, work, n, late_count, options, verdict, out) : 0;
  free(x);
  free(dip);
  return status;
}

void diff_trend_kept_series(const uint64_t *live, const size_t *marks, size_t mark_count,
                            const uint64_t *cohorts, const unsigned char *forced, size_t n,
                            uint64_t *kept)
{
  size_t full = n ? n - 1 : 0;  /* the next boundary after k that ended a full cycle */
  for (size_t k = n; k-- > 0;) {
    kept[k] = live[k];
    /* A forced cycle was full: what it left live was reachable there. */
    if (forced && forced[k])
      full = k;
    if (!forced || forced[k] || k + 1 >= n || !cohorts)
      continue;
    uint64_t lasted = 0;
    for (size_t m = 0; m < mark_count && marks[m] <= k; m++) {
      uint64_t bytes = cohorts[m * n + full];
      if (bytes != DIFF_TREND_UNMEASURED)
        lasted += bytes;
    }
    if (lasted < live[k])
      kept[k] = lasted;
  }
}

/* Floating garbage (docs/diff.md): what the program's own cycles leave live
 * and a full cycle frees is no leak; a leak's blocks live through both. */
int diff_trend_verdict_kept(const uint64_t *series, const uint64_t *floors, const uint64_t *survived,
                            const uint64_t *kept, const uint64_t *work, size_t n,
                            const struct diff_options *options, enum diff_verdict *verdict,
                            struct diff_trend *out)
{
  if (diff_trend_verdict_work(series, floors, survived, work, n, options, verdict, out) < 0)
    return -1;
  if (!kept || (*verdict != DIFF_VERDICT_GROWING && *verdict != DIFF_VERDICT_UNDECIDED) || out->held_briefly)
    return 0;  /* a brief hold is no floating garbage: what lived on held as briefly */
  struct diff_trend lasting;
  enum diff_verdict kept_verdict;
  if (diff_trend_verdict_work(kept, NULL, NULL, work, n, options, &kept_verdict, &lasting) < 0)
    return -1;
  if (kept_verdict == DIFF_VERDICT_STEADY) {
    *verdict = DIFF_VERDICT_STEADY;
    out->floating = 1;
  }
  return 0;
}
