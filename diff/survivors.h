/* diff/survivors.h: what survived a drop of the fill-and-flush rule, and what of an own cycle's blocks lived to a full one: at each boundary, the bytes of the blocks a site held at an earlier boundary that are still live, by a second reading of the capture. */
#ifndef LJLEAK_DIFF_SURVIVORS_H
#define LJLEAK_DIFF_SURVIVORS_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "diff/source.h"

/* A site whose blocks are marked at some boundaries. After a reading,
 * bytes[k] holds the bytes, at boundary k, of the blocks the site held at
 * its last mark before k (a block freed since counts no more, even if
 * another takes its address), DIFF_TREND_UNMEASURED up to its first mark.
 * The blocks marked at a mark include the survivors of the marks before. */
struct diff_survivors_site {
  const char *name;           /* the site, by its stable name */
  const size_t *marks;        /* boundary indices, rising */
  size_t mark_count;
  size_t until;               /* the last boundary whose bytes are wanted */
  uint64_t *bytes;            /* [boundaries]: filled (DIFF_TREND_UNMEASURED after until) */
  uint64_t *cohorts;          /* NULL, or [mark_count * boundaries]: each mark's cohort
                                 instead of bytes (not filled): at m * boundaries + k, the
                                 bytes at boundary k of the blocks the site held at mark m
                                 that it did not hold at the mark before (born since);
                                 DIFF_TREND_UNMEASURED up to mark m and after until */
};

/* Reads capture again (on one thread; diff_aggregate_capture_stepwise),
 * scaled by its sampling interval sample (0: none), and fills
 * sites[i].bytes for its boundaries count boundaries. by_stack: the names
 * are stack rows' (diff_result_stack_name), each a (site, stack) pair of
 * the capture's stack sidecars; else sites'. Returns FORMAT_OK or an error
 * with err filled. */
enum format_status diff_survivors_read(struct diff_source *capture, uint64_t sample, int by_stack,
                                       struct diff_survivors_site *sites, size_t count,
                                       size_t boundaries, struct format_error *err);

/* The rules that read the capture again (docs/diff.md): fill and flush
 * with measured floors, every site and stack row of result (capture's
 * first reading) that rose and fell back, steady by that rule on its lows
 * or not steady, judged again with its floors measured by
 * diff_survivors_read at the lows of its drops, marked at their highs
 * (none with options->floors_from_lows); then floating garbage, every site
 * still growing or undecided on boundaries some of which ended the
 * program's own cycles (and the stack rows of those it makes steady),
 * judged again with its kept series (diff_trend_kept_series) from its
 * cohorts at those boundaries. One reading for the sites, one more for the
 * stacks when a stack row needs it, per rule. info: the capture's (its
 * sampling interval, times and forced cycles). Returns FORMAT_OK or an error
 * in err. */
struct diff_result;
enum format_status diff_survivors_judge(struct diff_result *result, struct diff_source *capture,
                                        const struct diff_capture *info,
                                        const struct diff_options *options, struct format_error *err);

#endif
