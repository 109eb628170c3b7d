/* diff/compare.c: the modes of a diff (trend, boundary range, base against candidate) and deciding a saved result again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/aggregate.h"
#include "diff/holders.h"
#include "diff/suspects.h"
#include "diff/values.h"
#include "diff/survivors.h"
#include "diff/allow.h"
#include "diff/source.h"
#include "diff/diff.h"
#include "diff/result.h"
#include "diff/trend.h"

void diff_options_default(struct diff_options *options)
{
  memset(options, 0, sizeof *options);
  options->min_boundaries = 0;  /* what --p-value needs (diff_boundaries_needed) */
  options->max_p_value = 0.01;
  options->min_growth_bytes = 4096;
  options->min_growth_fraction = 0.10;
  options->worse_ratio = 2.0;
  options->jobs = 1;
}

/* Reads one capture into result->sites with trend verdicts; info gets its metadata. */
static enum format_status compare_read(const char *const *paths, size_t count,
                                       const struct diff_options *options,
                                       struct diff_result *result, struct diff_capture *info,
                                       struct format_error *err)
{
  struct diff_source capture;
  enum format_status status = diff_source_open(&capture, paths, count, err);
  if (status != FORMAT_OK)
    return status;
  if (options->forced_only && diff_source_keep_forced(&capture) < 0) {
    diff_source_release(&capture);
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  struct diff_aggregate aggregate;
  if (diff_aggregate_init(&aggregate, capture.info.sample_bytes) < 0) {
    diff_source_release(&capture);
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  struct diff_holders holders;
  memset(&holders, 0, sizeof holders);
  if (!options->no_holders && diff_holders_prepare(&holders, &capture) < 0)
    status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  else
    status = diff_aggregate_capture(&aggregate, &capture, options, err);
  if (status == FORMAT_OK && diff_result_build_sites(result, &aggregate, &capture, info, options) < 0)
    status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  if (status == FORMAT_OK)
    status = diff_survivors_judge(result, &capture, info, options, err);
  /* The capture's map is not needed beside the blocks kept at every snapshot's boundary: its
   * memory goes before the snapshots are read. */
  if (status == FORMAT_OK && !options->no_holders && diff_holders_all_kept(&holders, &aggregate))
    diff_live_map_release(&aggregate.live);
  /* The growing containers first: the container rule prefers them. Then the holders of each
   * growing site, and on the same reading of each snapshot its kinds and container, for the
   * leak suspects (diff/suspects.h). */
  if (status == FORMAT_OK && !options->no_holders && info == &result->capture &&
      result->mode == DIFF_MODE_TREND && diff_holders_containers(&holders, &capture, &aggregate, result, options, err) < 0)
    status = err->status != FORMAT_OK ? err->status
                                      : format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  holders.growing = result->containers;
  holders.growing_count = result->container_count;
  if (status == FORMAT_OK && !options->no_holders && diff_holders_find(&holders, &capture, &aggregate, result->sites,
                                             result->site_count, info, options, err) < 0)
    status = err->status != FORMAT_OK ? err->status
                                      : format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  /* --values: previews of what the growing sites keep, from the snapshots' values sidecars. */
  if (status == FORMAT_OK && options->values && info == &result->capture && diff_values_find(&capture, &aggregate, result, options) < 0)
    status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  diff_holders_release(&holders);
  diff_aggregate_release(&aggregate);
  diff_source_release(&capture);
  return status;
}

static void compare_start(struct diff_result *result, enum diff_mode mode,
                          const struct diff_options *options, struct format_error *err)
{
  memset(result, 0, sizeof *result);
  result->mode = mode;
  result->options = *options;
  /* The result records what decided it: the boundaries a trend needed; the
   * allow-list lives on in each site's allowance, not as a pointer here. */
  result->options.min_boundaries = diff_boundaries_needed(options);
  result->options.allow = NULL;
  format_error_clear(err);
}

static enum format_status compare_finish(struct diff_result *result,
                                         const struct diff_options *options,
                                         enum format_status status, struct format_error *err)
{
  if (status == FORMAT_OK && options->allow)
    status = diff_allow_apply(result, options->allow, err);
  if (status != FORMAT_OK) {
    diff_result_free(result);
    return status;
  }
  if (diff_result_finish(result) < 0) {
    diff_result_free(result);
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  return FORMAT_OK;
}

enum format_status diff_trend(const char *const *paths, size_t path_count,
                              const struct diff_options *options,
                              struct diff_result *result, struct format_error *err)
{
  compare_start(result, DIFF_MODE_TREND, options, err);
  enum format_status status = compare_read(paths, path_count, options, result, &result->capture, err);
  return compare_finish(result, options, status, err);
}

/* Range verdicts: growing when live bytes at `to` exceed those at `from` by
 * the growth threshold (the larger of min_growth_bytes and
 * min_growth_fraction of the larger end), shrinking symmetrically. */
static void compare_range_site(struct diff_site *site, const struct diff_options *options)
{
  size_t from = options->range_from - 1, to = options->range_to - 1;
  double a = (double)site->live_bytes[from], b = (double)site->live_bytes[to];
  site->range_delta_bytes = (int64_t)(site->live_bytes[to] - site->live_bytes[from]);
  site->growth_bytes_per_segment = (b - a) / (double)(to - from);
  double threshold = options->min_growth_bytes;
  double larger = a > b ? a : b;
  if (options->min_growth_fraction * larger > threshold)
    threshold = options->min_growth_fraction * larger;
  if (b - a >= threshold && b > a)
    site->verdict = DIFF_VERDICT_GROWING;
  else if (a - b >= threshold && a > b)
    site->verdict = DIFF_VERDICT_SHRINKING;
  else
    site->verdict = DIFF_VERDICT_STEADY;
}

enum format_status diff_range(const char *const *paths, size_t path_count,
                              const struct diff_options *options,
                              struct diff_result *result, struct format_error *err)
{
  compare_start(result, DIFF_MODE_RANGE, options, err);
  if (options->warmup)
    return format_error_set(err, FORMAT_USAGE,
                            "--warmup and --from/--to cannot be combined: a range names its boundaries");
  enum format_status status = compare_read(paths, path_count, options, result, &result->capture, err);
  if (status == FORMAT_OK) {
    size_t n = result->capture.boundary_count;
    if (options->range_from < 1 || options->range_to <= options->range_from ||
        options->range_to > n) {
      status = format_error_set(err, FORMAT_USAGE,
                                "--from %zu --to %zu: the capture has boundaries 1 to %zu, and --from must "
                                "be before --to",
                                options->range_from, options->range_to, n);
    }
  }
  for (size_t i = 0; status == FORMAT_OK && i < result->site_count; i++)
    compare_range_site(&result->sites[i], options);
  for (size_t i = 0; status == FORMAT_OK && i < result->stack_count; i++)
    compare_range_site(&result->stacks[i], options);
  return compare_finish(result, options, status, err);
}

static int compare_sites_by_name(const void *a, const void *b)
{
  return strcmp(((const struct diff_site *)a)->name, ((const struct diff_site *)b)->name);
}

/* A candidate site growing against its base (site->base_verdict and
 * base_live_bytes set; NULL when absent from the base):
 *   new: not growing in the base (steady, shrinking) or absent from it;
 *   worse: growing in both and at least worse_ratio times as fast;
 *   undecided: the base cannot tell whether it grew there too (undecided,
 *     or too few boundaries), so neither new nor a pass.
 * Any other candidate verdict stands: an undecided candidate stays undecided. */
static void compare_base_decide(struct diff_site *site, size_t base_judged,
                                const struct diff_options *options)
{
  if (site->verdict != DIFF_VERDICT_GROWING)
    return;
  if (base_judged < 2)
    site->verdict = DIFF_VERDICT_UNDECIDED;  /* no base to compare with */
  else if (!site->base_live_bytes)
    site->verdict = DIFF_VERDICT_NEW;
  else if (site->base_verdict == DIFF_VERDICT_UNDECIDED ||
           site->base_verdict == DIFF_VERDICT_INSUFFICIENT)
    site->verdict = DIFF_VERDICT_UNDECIDED;
  else if (site->base_verdict != DIFF_VERDICT_GROWING)
    site->verdict = DIFF_VERDICT_NEW;
  else if (site->growth_bytes_per_segment >=
           options->worse_ratio * site->base_growth_bytes_per_segment)
    site->verdict = DIFF_VERDICT_WORSE;
}

/* Whether both captures have only boundaries by work the collector forced
 * (--every, collector.boundary(): what --forced-only keeps), so that the
 * k-th boundary of each comes after about the same work. */
static int compare_aligned_by_work(const struct diff_result *result)
{
  const struct diff_capture *captures[2] = {&result->capture, &result->base};
  for (int c = 0; c < 2; c++) {
    const struct diff_capture *capture = captures[c];
    if (capture->boundary_count < 2 || !capture->forced || !capture->allocated)
      return 0;
    for (size_t i = 0; i < capture->boundary_count; i++)
      if (!capture->forced[i])
        return 0;
  }
  return 1;
}

/* Boundary by boundary, when both captures have boundaries by work: the
 * candidate is judged on its live bytes less the base's at the same
 * boundary, so that what the workload does alike in both builds (a buffer
 * flushed every 300 jobs, sampled at the same work) cancels, and only what
 * the candidate adds can grow. A growing difference is new (worse when the
 * base grows too, at worse_ratio times its slope) only when the candidate
 * also grows on its own: two
 * sawtooths whose phases drift apart by a few bytes of work per boundary
 * make a difference that rises for a while, and a site the candidate does
 * not grow is no regression. A candidate that grows no faster than its base
 * is not flagged; one undecided on its own (a trend it leans to but cannot
 * show) whose difference is judged steady is steady: the base does alike.
 * 0, or -1 when out of memory. */
static int compare_base_aligned(struct diff_site *site, size_t base_judged, const struct diff_options *options)
{
  size_t n = site->count;
  if (site->base_live_bytes && site->base_count < n)
    n = site->base_count;
  if (n < 2)
    return 0;
  /* A base shorter than the candidate: the difference is judged where both ran. Where the
   * candidate does not grow on its own in that stretch, the difference can show nothing (a
   * slow leak rose under --min-growth in a base's 5 boundaries, and passed as "grows in both
   * alike" beside a steady base): then the two verdicts decide, as without alignment. */
  if (n < site->count && site->verdict == DIFF_VERDICT_GROWING) {
    enum diff_verdict alone;
    struct diff_trend overlap;
    if (diff_trend_verdict(site->live_bytes, n, options, &alone, &overlap) < 0)
      return -1;
    if (alone != DIFF_VERDICT_GROWING) {
      compare_base_decide(site, base_judged, options);
      return 0;
    }
  }
  int64_t *difference = malloc(n * sizeof *difference);
  uint64_t *series = malloc(n * sizeof *series);
  if (!difference || !series) {
    free(difference);
    free(series);
    return -1;
  }
  int64_t low = 0;
  for (size_t k = 0; k < n; k++) {
    uint64_t base = site->base_live_bytes ? site->base_live_bytes[k] : 0;
    difference[k] = (int64_t)site->live_bytes[k] - (int64_t)base;
    if (k == 0 || difference[k] < low)
      low = difference[k];
  }
  for (size_t k = 0; k < n; k++)  /* the tests are blind to a shift */
    series[k] = (uint64_t)(difference[k] - low);
  free(difference);
  enum diff_verdict verdict;
  struct diff_trend trend;
  int status = diff_trend_verdict(series, n, options, &verdict, &trend);
  free(series);
  if (status < 0)
    return -1;
  /* A difference the test had the power to show and did not is no
   * regression, whatever it leans to: the lean rule is for a capture
   * judged alone, and a gate that judges every site of two builds at once
   * would be inconclusive on some sawtooth or other in most runs. */
  if (verdict == DIFF_VERDICT_UNDECIDED && trend.judged >= trend.needed &&
      trend.p_best <= options->max_p_value)
    verdict = DIFF_VERDICT_STEADY;
  /* Growing in both, worse only at worse_ratio times the base's slope, as
   * without alignment: a leak both builds have alike makes a difference
   * that rises by a few per cent of it, which the test shows at once. */
  if (verdict == DIFF_VERDICT_GROWING && site->verdict == DIFF_VERDICT_GROWING &&
      site->base_verdict != DIFF_VERDICT_GROWING)
    site->verdict = DIFF_VERDICT_NEW;
  else if (verdict == DIFF_VERDICT_GROWING && site->verdict == DIFF_VERDICT_GROWING &&
           site->growth_bytes_per_segment >=
               options->worse_ratio * site->base_growth_bytes_per_segment)
    site->verdict = DIFF_VERDICT_WORSE;
  else if (verdict == DIFF_VERDICT_GROWING && site->verdict == DIFF_VERDICT_GROWING)
    ;  /* grows in both, not worse_ratio times as fast: not flagged in base mode */
  else if (site->verdict == DIFF_VERDICT_GROWING && verdict != DIFF_VERDICT_UNDECIDED &&
           verdict != DIFF_VERDICT_INSUFFICIENT)
    site->verdict = DIFF_VERDICT_GROWING;  /* grows in both alike: not flagged in base mode */
  else if (site->verdict == DIFF_VERDICT_GROWING)
    site->verdict = DIFF_VERDICT_UNDECIDED;
  else if (site->verdict == DIFF_VERDICT_UNDECIDED &&
           (verdict == DIFF_VERDICT_STEADY || verdict == DIFF_VERDICT_SHRINKING))
    site->verdict = DIFF_VERDICT_STEADY;  /* whatever it leans to, the base does alike */
  return 0;
}

/* The base capture's boundaries after the warm-up. */
static size_t compare_base_judged(const struct diff_result *result, const struct diff_options *options)
{
  size_t n = result->base.boundary_count;
  return n > options->warmup ? n - options->warmup : 0;
}

/* A site's verdict against its base (base_verdict and base_live_bytes
 * set): by the difference boundary by boundary when both captures are
 * aligned by work, else by the two verdicts. 0, or -1 when out of memory. */
static int compare_base_verdict(const struct diff_result *result, struct diff_site *site,
                                const struct diff_options *options)
{
  if (compare_aligned_by_work(result))
    return compare_base_aligned(site, compare_base_judged(result, options), options);
  compare_base_decide(site, compare_base_judged(result, options), options);
  return 0;
}

static int compare_base_site(struct diff_site *site, const struct diff_site *base)
{
  site->base_verdict = base ? base->verdict : DIFF_VERDICT_INSUFFICIENT;
  if (base) {
    site->base_count = base->count;
    site->base_live_bytes = malloc((base->count ? base->count : 1) * sizeof(uint64_t));
    if (!site->base_live_bytes)
      return -1;
    if (base->count)
      memcpy(site->base_live_bytes, base->live_bytes, base->count * sizeof(uint64_t));
    site->base_growth_bytes_per_segment = base->growth_bytes_per_segment;
  }
  return 0;
}

static int compare_by_file_and_line(const void *a, const void *b)
{
  const struct diff_site *x = *(const struct diff_site *const *)a, *y = *(const struct diff_site *const *)b;
  int by_file = strcmp(x->source_file, y->source_file);
  return by_file ? by_file : (x->source_line > y->source_line) - (x->source_line < y->source_line);
}

/* The Lua line sites of rows (n of them) that used does not mark (all, when used is NULL) with
 * one of the two verdicts, by file and line, into list (room for n); how many. */
static size_t compare_line_sites(struct diff_site *rows, size_t n, const unsigned char *used,
                                 enum diff_verdict verdict, enum diff_verdict or_verdict,
                                 struct diff_site **list)
{
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    if ((!used || !used[i]) && rows[i].kind == DIFF_SITE_LUA && rows[i].source_file &&
        (rows[i].verdict == verdict || rows[i].verdict == or_verdict))
      list[count++] = &rows[i];
  qsort(list, count, sizeof *list, compare_by_file_and_line);
  return count;
}

/* New sites that may be the base's growing ones moved: where a file has as many new line sites
 * in the candidate as line sites that grew (or rose) in the base and are absent from the
 * candidate, they are paired in line order (an edit above a leak moves its line, often onto a
 * line the base had a site of its own at, and the base's site was in no report: the leak read
 * as new, and the evidence that it was not was hidden). Only said, never judged on: a leak
 * removed and another added in the same file pair alike. 0, or -1 out of memory. */
static int compare_base_moved(struct diff_site *rows, size_t count, struct diff_site *base_rows,
                              size_t base_count, unsigned char *used)
{
  struct diff_site **cand = malloc((count ? count : 1) * sizeof *cand);
  struct diff_site **base = malloc((base_count ? base_count : 1) * sizeof *base);
  int rc = cand && base ? 0 : -1;
  size_t nc = rc ? 0 : compare_line_sites(rows, count, NULL, DIFF_VERDICT_NEW, DIFF_VERDICT_NEW, cand);
  size_t nb = rc ? 0 : compare_line_sites(base_rows, base_count, used, DIFF_VERDICT_GROWING,
                                          DIFF_VERDICT_UNDECIDED, base);
  for (size_t i = 0, j = 0; rc == 0 && i < nc && j < nb;) {
    int order = strcmp(cand[i]->source_file, base[j]->source_file);
    size_t ei = i, ej = j;  /* the file's runs in each list */
    while (ei < nc && !strcmp(cand[ei]->source_file, cand[i]->source_file))
      ei++;
    while (ej < nb && !strcmp(base[ej]->source_file, base[j]->source_file))
      ej++;
    if (order == 0 && ei - i == ej - j)
      for (size_t k = 0; rc == 0 && k < ei - i; k++) {
        if (!(cand[i + k]->base_moved = strdup(base[j + k]->name)))
          rc = -1;
        used[base[j + k] - base_rows] = 1;  /* said beside the new site: not gone */
      }
    if (order <= 0)
      i = ei;
    if (order >= 0)
      j = ej;
  }
  free(cand);
  free(base);
  return rc;
}

static int compare_gone_by_growth(const void *a, const void *b)
{
  const struct diff_base_gone *x = a, *y = b;
  if (x->growth_bytes_per_segment != y->growth_bytes_per_segment)
    return x->growth_bytes_per_segment < y->growth_bytes_per_segment ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* The base's growing sites that the candidate lacks and that no new site was paired with
 * (used marks both), fastest first, into result->base_gone. 0, or -1 out of memory. */
static int compare_base_gone(struct diff_result *result, const struct diff_site *base_rows,
                             size_t base_count, const unsigned char *used)
{
  size_t n = 0;
  for (size_t i = 0; i < base_count; i++)
    n += !used[i] && base_rows[i].verdict == DIFF_VERDICT_GROWING;
  if (!n)
    return 0;
  if (!(result->base_gone = calloc(n, sizeof *result->base_gone)))
    return -1;
  for (size_t i = 0; i < base_count; i++) {
    if (used[i] || base_rows[i].verdict != DIFF_VERDICT_GROWING)
      continue;
    struct diff_base_gone *g = &result->base_gone[result->base_gone_count];
    if (!(g->name = strdup(base_rows[i].name)))
      return -1;
    g->growth_bytes_per_segment = base_rows[i].growth_bytes_per_segment;
    result->base_gone_count++;
  }
  qsort(result->base_gone, n, sizeof *result->base_gone, compare_gone_by_growth);
  return 0;
}

/* Each row (site, or stack) against the base's row of the same name:
 * base_rows are sorted by name here. */
static enum format_status compare_base_rows(struct diff_result *result, struct diff_site *rows,
                                            size_t count, struct diff_site *base_rows,
                                            size_t base_count, int moved, const struct diff_options *options,
                                            struct format_error *err)
{
  if (base_count)
    qsort(base_rows, base_count, sizeof *base_rows, compare_sites_by_name);
  /* the base's rows that have a row of the same name in the candidate */
  unsigned char *used = calloc(base_count ? base_count : 1, 1);
  int rc = used ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < count; i++) {
    struct diff_site *site = &rows[i];
    struct diff_site key = {.name = site->name};
    const struct diff_site *match =
        base_count ? bsearch(&key, base_rows, base_count, sizeof *base_rows, compare_sites_by_name)
                   : NULL;
    if (match)
      used[match - base_rows] = 1;
    if (compare_base_site(site, match) < 0 || compare_base_verdict(result, site, options) < 0)
      rc = -1;
  }
  if (rc == 0 && moved)
    rc = compare_base_moved(rows, count, base_rows, base_count, used);
  if (rc == 0 && moved)
    rc = compare_base_gone(result, base_rows, base_count, used);
  free(used);
  return rc == 0 ? FORMAT_OK : format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
}

enum format_status diff_base(const char *const *base_paths, size_t base_count,
                             const char *const *paths, size_t path_count,
                             const struct diff_options *options,
                             struct diff_result *result, struct format_error *err)
{
  compare_start(result, DIFF_MODE_BASE, options, err);
  struct diff_result base;
  memset(&base, 0, sizeof base);
  enum format_status status = compare_read(base_paths, base_count, options, &base, &result->base, err);
  if (status == FORMAT_OK)
    status = compare_read(paths, path_count, options, result, &result->capture, err);
  if (status == FORMAT_OK)
    status = compare_base_rows(result, result->sites, result->site_count, base.sites,
                               base.site_count, 1, options, err);
  if (status == FORMAT_OK)  /* by site, each stack against the base's same stack */
    status = compare_base_rows(result, result->stacks, result->stack_count, base.stacks,
                               base.stack_count, 0, options, err);
  diff_result_free(&base);
  return compare_finish(result, options, status, err);
}

/* The base verdict of a saved site from its base series, as the base's own
 * trend verdict was made. */
static int compare_judge_base(struct diff_site *site, const struct diff_options *options)
{
  if (!site->base_live_bytes) {
    site->base_verdict = DIFF_VERDICT_INSUFFICIENT;  /* absent from the base */
    return 0;
  }
  struct diff_site base = {.live_bytes = site->base_live_bytes, .count = site->base_count};
  if (diff_result_judge_site(&base, options, NULL) < 0)
    return -1;
  site->base_verdict = base.verdict;
  site->base_growth_bytes_per_segment = base.growth_bytes_per_segment;
  return 0;
}

enum format_status diff_decide(struct diff_result *result, const struct diff_options *options,
                               struct format_error *err)
{
  format_error_clear(err);
  if (result->mode == DIFF_MODE_RANGE && options->warmup)
    return format_error_set(err, FORMAT_USAGE, "%s",
                            "--warmup does not apply to a range result: a range names its "
                            "boundaries");
  struct diff_options decided = *options;
  decided.min_boundaries = diff_boundaries_needed(options);
  decided.allow = NULL;
  decided.progress = NULL;
  decided.warn = NULL;
  result->options = decided;
  if (result->mode != DIFF_MODE_RANGE) {
    struct diff_site *lists[2] = {result->sites, result->stacks};
    size_t counts[2] = {result->site_count, result->stack_count};
    struct diff_options judging = diff_result_judging_options(&decided, &result->capture);
    for (int l = 0; l < 2; l++)  /* the sites (or rows), then by site their stacks */
      for (size_t i = 0; i < counts[l]; i++) {
        struct diff_site *site = &lists[l][i];
        if (diff_result_judge_site(site, &judging, &result->capture) < 0 ||
            (result->mode == DIFF_MODE_BASE && (compare_judge_base(site, &decided) < 0 ||
                                                compare_base_verdict(result, site, &decided) < 0)))
          return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
      }
  }
  enum format_status status = diff_allow_apply(result, options->allow, err);
  if (status != FORMAT_OK)
    return status;
  if (diff_result_finish(result) < 0)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  return FORMAT_OK;
}
