/* diff/result.h: turning an aggregate into result sites and ordering them. */
#ifndef LJLEAK_DIFF_RESULT_H
#define LJLEAK_DIFF_RESULT_H

#include "diff/aggregate.h"
#include "diff/capture.h"
#include "diff/diff.h"

/* Fills result->sites from aggregate, one per site, with trend verdicts
 * under options and series copied. capture->info moves into *info with the
 * boundary metadata added. Returns -1 when out of memory. */
int result_build_sites(struct diff_result *result, const struct aggregate *aggregate,
                       struct capture *capture, struct diff_capture *info,
                       const struct diff_options *options);

/* Sorts the sites (flagged first by growth, then by live bytes at the last
 * boundary; range mode by delta) and sets result->flagged
 * (diff_result_flagged_count). */
void result_sort(struct diff_result *result);

#endif
