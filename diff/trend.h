/* diff/trend.h: trend tests on a series: Mann-Kendall, Theil-Sen, and the verdict rule (docs/diff.md). */
#ifndef LJLEAK_DIFF_TREND_H
#define LJLEAK_DIFF_TREND_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"

/* A site that rose by the threshold with a one-sided p-value above
 * --p-value but at most this many times it is undecided, not steady: the
 * data lean towards a trend that they cannot show (a registry that grew for
 * the whole of a short run and was released at its last boundary). */
#define DIFF_TREND_SUGGESTIVE 5.0

struct diff_trend {
  double s;                   /* Mann-Kendall S */
  double variance;            /* Var(S), tie-corrected */
  double p_up;                /* one-sided p-value of an upward trend */
  double p_down;              /* one-sided p-value of a downward trend */
  double slope;               /* Theil-Sen slope over the whole series, per boundary */
  double late_slope;          /* Theil-Sen slope over the later half (of the work, when known) */
  size_t late;                /* the boundaries of the later half */
  double threshold;           /* growth that matters for this series */
  double drop_threshold;      /* a fall that matters (the threshold unless sampled) */
  int sampled;                /* options->sampled: a dip may come with a rise of its rounding */
  int settled;                /* after its last drop, on floors that do not rise, it rose by
                                 less than the threshold: what rose before was let go; steady
                                 (falls judged below the threshold, as sampled: it may not
                                 have risen by the threshold at all) */
  double peak;                /* largest value */
  size_t judged;              /* boundaries judged: the series after the warm-up */
  size_t needed;              /* boundaries a trend is judged on (diff_boundaries_needed) */
  int rose;                   /* slope times the judged steps reaches the threshold */
  int flushed;                /* it rose, fell back after its peak and refilled, and its
                                 floor (the lows after its drops) does not rise: steady */
  int floors_rising;          /* two drops or more whose floors, read from frees, rose at
                                 each and still at the last: with a significant rise,
                                 growing, however its teeth fall at the end */
  size_t drops;               /* the drops the fill-and-flush rule saw (counted when it rose,
                                 or its falls are judged below the threshold) */
  size_t skipped;             /* the warm-up boundaries left out */
  int stepped;                /* significant, but its later half rose in one step and was
                                 flat around it: steady */
  int held;                   /* it rose to a level and held it (no trend after its last
                                 step) for at least as many boundaries as a trend needs and
                                 as its climb took: steady (a table resized once, a cache
                                 warmed) */
  int released;               /* it rose significantly to its peak and then fell back for
                                 good before the end: undecided, not steady */
  int held_briefly;           /* it rose to a level and held it to the end as `held` says,
                                 but for fewer boundaries than it climbed: a cache that
                                 filled, or a leak that paused; undecided where it would be
                                 growing */
  double p_best;              /* p_up of the same values in rising order: the best the
                                 test could give them (computed only when it matters) */
  int floating;               /* growing or undecided on its live bytes, steady on what of
                                 them lived to the next boundary (its kept series): floating
                                 garbage at the program's own cycles, steady */
};

/* Mann-Kendall S and its tie-corrected variance, by sorting (O(n log n)): the same numbers,
 * to the bit, as the sum over every pair. */
void diff_trend_mann_kendall(const double *x, size_t n, double *s, double *variance);

/* One-sided p-values of S: exact (permutation distribution) when there are
 * no ties and n <= DIFF_TREND_EXACT_MAX, else the normal approximation with a
 * continuity correction. */
#define DIFF_TREND_EXACT_MAX 50
void diff_trend_p_values(const double *x, size_t n, double s, double variance,
                    double *p_up, double *p_down);

/* Median of the pairwise slopes (x[j] - x[i]) / (j - i); 0 for n < 2. Over
 * DIFF_TREND_THEIL_SEN_POINTS boundaries, the pairs of that many evenly spaced
 * boundaries. The flat pairs of a series mostly of one value are counted, not looked at.
 * Returns -1 when out of memory. */
#define DIFF_TREND_THEIL_SEN_POINTS 400
int diff_trend_theil_sen(const double *x, size_t n, double *slope);

/* The p_up that the values of x would have in rising order: ties stay
 * ties, so this is the most significant result the test can give them.
 * Returns -1 when out of memory. */
int diff_trend_best_p_value(const double *x, size_t n, double *p_best);

/* The verdict for a series of live bytes under options, with the first
 * options->warmup boundaries left out; fills *out (statistics of the judged
 * part). Returns -1 when out of memory. */
int diff_trend_verdict(const uint64_t *series, size_t n, const struct diff_options *options,
                  enum diff_verdict *verdict, struct diff_trend *out);

/* A floor not measured (see diff_trend_verdict_floors). */
#define DIFF_TREND_UNMEASURED UINT64_MAX

/* diff_trend_verdict with the floors of the fill-and-flush rule measured:
 * floors (NULL, or indexed as series) holds at a drop's low the bytes live
 * there of the blocks live at its high (diff/survivors.h), or
 * DIFF_TREND_UNMEASURED. Without a measure the low stands for the floor. */
int diff_trend_verdict_floors(const uint64_t *series, const uint64_t *floors, size_t n,
                              const struct diff_options *options, enum diff_verdict *verdict,
                              struct diff_trend *out);

/* diff_trend_verdict_floors on boundaries whose work is known: work (NULL,
 * or indexed as series) holds the bytes allocated since the capture started
 * at each boundary. The persistence rule then takes the later half of the
 * judged work, not of the judged boundaries (docs/diff.md, "The decision
 * procedure"). survived (NULL, or indexed as series: diff_site.survived)
 * holds at each boundary at least what of the bytes live at the boundary
 * before still lives: the fill-and-flush rule reads a fall within a segment
 * from it (diff_trend_dips). */
int diff_trend_verdict_work(const uint64_t *series, const uint64_t *floors, const uint64_t *survived,
                            const uint64_t *work, size_t n, const struct diff_options *options,
                            enum diff_verdict *verdict, struct diff_trend *out);

/* The kept series (docs/diff.md, "Floating garbage"): at a boundary k
 * that ended one of the program's own cycles (forced[k] 0), not the last,
 * the bytes of the blocks live at k that were still live at the next
 * boundary that ended a full cycle (forced), or at the last boundary when
 * none comes; elsewhere the live bytes. The blocks are read in cohorts
 * (diff/survivors.h), one per mark, marks[0..mark_count) rising: at
 * m * n + f, cohorts gives the bytes at boundary f of the blocks live at
 * marks[m] that were born since the mark before; the blocks live at k are
 * those of the cohorts marked up to k, so every such boundary k must be
 * marked. A kept value is never above the live one (a block young at k
 * counts in its cohort). forced NULL: every boundary keeps its live bytes.
 * Fills kept (indexed as live). */
void diff_trend_kept_series(const uint64_t *live, const size_t *marks, size_t mark_count,
                            const uint64_t *cohorts, const unsigned char *forced, size_t n,
                            uint64_t *kept);

/* diff_trend_verdict_work, then the floating-garbage rule: a series growing
 * or undecided whose kept series (NULL: none, indexed as series) is steady
 * by the same rules is steady, with out->floating set (out's statistics
 * stay those of series). Returns -1 when out of memory. */
int diff_trend_verdict_kept(const uint64_t *series, const uint64_t *floors, const uint64_t *survived,
                            const uint64_t *kept, const uint64_t *work, size_t n,
                            const struct diff_options *options, enum diff_verdict *verdict,
                            struct diff_trend *out);

/* A drop of the fill-and-flush rule: the boundary of its high and of its low. */
struct diff_trend_drop {
  size_t high, low;
};

/* The drops the fill-and-flush rule sees in series (n values; survived
 * NULL or as for diff_trend_verdict_work), judged as trend says (the trend
 * diff_trend_verdict filled for it), into drops (room for n), as indices
 * into series. Returns their count, SIZE_MAX when out of memory. */
size_t diff_trend_find_drops(const uint64_t *series, const uint64_t *survived, size_t n,
                             const struct diff_trend *trend, struct diff_trend_drop *drops);

/* The least value of series within the segment that ends at each boundary,
 * as its frees show it: where the series did not rise over the segment (when
 * sampled, by more than 1/DIFF_TREND_DIP_LEVEL of its level: a sampled refill
 * to as many blocks differs by their sizes' rounding; else by nothing), the
 * lower of series and survived there (survived UINT64_MAX where not known);
 * elsewhere series. A block replaced by a bigger one (a table's part resized,
 * a string kept and appended to) frees all that lived at the segment's start
 * while the series rises by what it grew: no fall, however little it grew (a
 * string appended to by 20 bytes in the run's last segment, on 188 KB, was a
 * flush and its leak steady). No dip at all for a site that, in 3/4 of the segments where it
 * rose, kept less than half of what lived at their start: it replaces what it holds (a string
 * appended to, a new copy each time), so its frees show no flush. Fills dip[0..n). */
#define DIFF_TREND_DIP_LEVEL 4096
void diff_trend_dips(const uint64_t *series, const uint64_t *survived, size_t n, int sampled, double *dip);

/* Fill and flush (docs/diff.md): whether x[0..n) falls back (by drop)
 * and refills with a floor that does not rise by threshold; dip (NULL: x)
 * the least value within each segment (diff_trend_dips), floors NULL or
 * indexed as x. *drop_count gets the drops seen, *settled whether, floors
 * flat, it rose by less than threshold after the last drop, *rising whether
 * floors read from frees rose at every drop of two or more, by threshold in
 * all and by half of it at the last (a leak under the teeth). */
int diff_trend_fill_and_flush(const double *x, const double *dip, const uint64_t *floors, size_t n,
                              double drop, double threshold, size_t *drop_count, int *settled,
                              int *rising);

#endif
