/* diff/result.h: turning an aggregate into result sites and ordering them. */
#ifndef LJLEAK_DIFF_RESULT_H
#define LJLEAK_DIFF_RESULT_H

#include "diff/aggregate.h"
#include "diff/source.h"
#include "diff/diff.h"

/* Fills result->sites from aggregate, one per site, with trend verdicts
 * under options and series summed from its owners'. The owners' series are taken:
 * by the stacks (diff_result_stacks_build), or, without stacks, by the site of
 * each (a copy of them all was half the diff's memory on a capture of many
 * sites). capture->info moves into *info with the boundary metadata added.
 * Returns -1 when out of memory. */
int diff_result_build_sites(struct diff_result *result, struct diff_aggregate *aggregate,
                       struct diff_source *capture, struct diff_capture *info,
                       const struct diff_options *options);

/* A row's series of n boundaries: owner's, taken (NULL there after), or zeros where it has
 * none or owner is NULL (a site of several owners sums theirs into them). -1 when out of
 * memory. */
int diff_result_take_series(struct diff_site *site, struct diff_aggregate_site *owner, size_t n);

/* ---- Stacks (diff/result_stacks.c) ----------------------------------------- */

/* A stack row's name (malloc'd; NULL when out of memory): the frames'
 * labels root first, then the site's name cleaned as a label is unless the
 * leaf's label is it; a stack without frames is named as its site. */
char *diff_result_stack_name(const struct diff_stack_entry *entry, const char *site_name);

/* Whether diff_result_stacks_build makes stacks (or rows) of aggregate's owners under options:
 * by stack, or when the capture had stacks. */
int diff_result_stacks_made(const struct diff_aggregate *aggregate, const struct diff_options *options);

/* Fills result->stacks from the aggregate's (site, stack) owners when the
 * capture had stacks (none otherwise), judged as sites are, each taking its
 * owner's series (NULL there after: a copy of them all was a third of the
 * diff's memory on a capture of many sites); by stack (options->by), the owners
 * become the rows instead: result->sites is replaced by them, stacks or not.
 * Returns -1 when out of memory. */
int diff_result_stacks_build(struct diff_result *result, struct diff_aggregate *aggregate,
                        const struct diff_options *options, const struct diff_capture *info);

/* Seconds per boundary over the capture (first boundary to last); 0 when
 * the index gave no times. */
double diff_result_seconds_per_boundary(const struct diff_capture *info);

/* The options a capture's sites are judged under: options, but for a sampled capture a growth
 * below its sampling floor (diff_sampling_floor of its boundaries after the warm-up) does not
 * count: min_growth_bytes is raised to the floor, the least growth the sampling lets a trend
 * show (docs/diff.md, "Sampling"). A few sampled blocks late in a steady run are no leak; the
 * outcome still says the capture is blind below the floor. info NULL: options as they are. */
struct diff_options diff_result_judging_options(const struct diff_options *options,
                                                const struct diff_capture *info);

/* Gives site its trend verdict and growth from its series under options
 * (the warm-up left out), on the boundaries of info (its times and work;
 * NULL: none known). Returns -1 when out of memory. */
int diff_result_judge_site(struct diff_site *site, const struct diff_options *options,
                           const struct diff_capture *info);

/* The last step of making a result: sorts the sites, and likewise the
 * stacks (flagged first by growth, then undecided by growth, then by live
 * bytes at the last boundary; range mode by delta), then fills the facts
 * (diff_result_fill_facts), sets result->flagged from them and groups the
 * flagged sites into leak suspects (diff_suspects_find). 0, or -1 when out
 * of memory. */
int diff_result_finish(struct diff_result *result);

#endif
