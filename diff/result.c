/* diff/result.c: result sites from an aggregate, and their order. */
#include "diff/result.h"
#include "diff/suspects.h"

#include <stdlib.h>
#include <string.h>

#include "diff/trend.h"

/* "@app.lua:42" and "TRACE started at @app.lua:40" name a file and a line. */
static int result_site_source(struct diff_site *site)
{
  const char *chunk = site->name;
  if (site->kind == DIFF_SITE_TRACE && !strncmp(chunk, "TRACE started at ", 17))
    chunk += 17;
  else if (site->kind != DIFF_SITE_LUA)
    return 0;
  const char *colon = strrchr(chunk, ':');
  if (chunk[0] != '@' || !colon || colon == chunk + 1)
    return 0;
  size_t length = (size_t)(colon - chunk - 1);
  site->source_file = malloc(length + 1);
  if (!site->source_file)
    return -1;
  memcpy(site->source_file, chunk + 1, length);
  site->source_file[length] = '\0';
  site->source_line = strtoull(colon + 1, NULL, 10);
  return 0;
}

/* A C site's library, from the index's c_function line of its name (the
 * last one: every line of a name gives the same). */
static int result_site_library(struct diff_site *site, const struct diff_source *capture)
{
  if (site->kind != DIFF_SITE_C)
    return 0;
  for (size_t i = capture->c_function_count; i-- > 0;) {
    const struct diff_source_c_function *function = &capture->c_functions[i];
    if (strcmp(function->name, site->name) != 0 || !*function->library)
      continue;
    site->library = strdup(function->library);
    return site->library ? 0 : -1;
  }
  return 0;
}

/* From the index's boundary lines (the first `boundaries`: the ones past the
 * end of a .part are dropped): times, GC cycles, heap sizes and work done
 * when every line gives them, and which cycles were forced. */
static int result_boundary_lines(const struct diff_source *capture, struct diff_capture *info,
                                 size_t boundaries)
{
  info->boundary_count = boundaries;
  if (!boundaries)
    return 0;
  unsigned keys = ~0u;
  int timed = 1;
  for (size_t i = 0; i < boundaries; i++) {
    keys &= capture->boundaries[i].keys;
    timed &= capture->boundaries[i].time > 0;
  }
  if (timed && (keys & CAPTURE_INDEX_BOUNDARY_HAS_TIME) &&
      !(info->boundary_times = malloc(boundaries * sizeof *info->boundary_times)))
    return -1;
  if (((keys & CAPTURE_INDEX_BOUNDARY_HAS_GC_CYCLES) &&
       !(info->gc_cycles = malloc(boundaries * sizeof *info->gc_cycles))) ||
      ((keys & CAPTURE_INDEX_BOUNDARY_HAS_HEAP_BYTES) &&
       !(info->heap_bytes = malloc(boundaries * sizeof *info->heap_bytes))) ||
      ((keys & CAPTURE_INDEX_BOUNDARY_HAS_ALLOCATED) &&
       !(info->allocated = malloc(boundaries * sizeof *info->allocated))) ||
      !(info->forced = malloc(boundaries * sizeof *info->forced)))
    return -1;
  for (size_t i = 0; i < boundaries; i++) {
    const struct diff_source_boundary *line = &capture->boundaries[i];
    if (info->boundary_times)
      info->boundary_times[i] = line->time;
    if (info->gc_cycles)
      info->gc_cycles[i] = line->gc_cycles;
    if (info->heap_bytes)
      info->heap_bytes[i] = line->heap_bytes;
    if (info->allocated)
      info->allocated[i] = line->allocated;
    info->forced[i] = (unsigned char)line->forced;
  }
  return 0;
}

/* Boundary times, GC cycles and heap sizes when the index gives them for every segment. */
static int result_boundaries(const struct diff_source *capture, struct diff_capture *info,
                             size_t boundaries)
{
  if (capture->boundary_count)
    return result_boundary_lines(capture, info, boundaries);
  info->boundary_count = boundaries;
  int timed = boundaries > 0, listed = boundaries > 0;
  for (size_t i = 0; i < boundaries && i < capture->count; i++) {
    timed &= capture->segments[i].end_time > 0;
    listed &= capture->segments[i].listed;
  }
  if (timed) {
    if (!(info->boundary_times = malloc(boundaries * sizeof *info->boundary_times)))
      return -1;
    for (size_t i = 0; i < boundaries; i++)
      info->boundary_times[i] = capture->segments[i].end_time;
  }
  if (listed) {
    info->gc_cycles = malloc(boundaries * sizeof *info->gc_cycles);
    info->heap_bytes = malloc(boundaries * sizeof *info->heap_bytes);
    if (!info->gc_cycles || !info->heap_bytes)
      return -1;
    for (size_t i = 0; i < boundaries; i++) {
      info->gc_cycles[i] = capture->segments[i].gc_cycles;
      info->heap_bytes[i] = capture->segments[i].heap_bytes;
    }
  }
  return 0;
}

int diff_result_take_series(struct diff_site *site, struct diff_aggregate_site *owner, size_t n)
{
  if (owner) {
    site->live_bytes = owner->series_live_bytes;
    site->live_blocks = owner->series_live_blocks;
    site->alloc_bytes = owner->series_alloc_bytes;
    site->free_bytes = owner->series_free_bytes;
    site->survived = owner->series_survived_bytes;
    site->young = owner->series_young_bytes;
    owner->series_live_bytes = owner->series_live_blocks = owner->series_alloc_bytes = NULL;
    owner->series_free_bytes = owner->series_survived_bytes = owner->series_young_bytes = NULL;
    if (site->live_bytes && site->live_blocks && site->alloc_bytes && site->free_bytes && site->survived &&
        site->young)
      return 0;
  }
  uint64_t **series[] = {&site->live_bytes, &site->live_blocks, &site->alloc_bytes, &site->free_bytes,
                         &site->survived, &site->young};
  for (size_t k = 0; k < sizeof series / sizeof *series; k++)
    if (!*series[k] && !(*series[k] = calloc(n ? n : 1, sizeof **series[k])))
      return -1;
  return 0;
}

int diff_result_build_sites(struct diff_result *result, struct diff_aggregate *aggregate,
                       struct diff_source *capture, struct diff_capture *info,
                       const struct diff_options *options)
{
  *info = capture->info;
  memset(&capture->info, 0, sizeof capture->info);
  size_t n = aggregate->boundaries;
  if (result_boundaries(capture, info, n) < 0)
    return -1;
  size_t count = aggregate->sites.count;
  struct diff_options judging = diff_result_judging_options(options, info);
  int stacks = diff_result_stacks_made(aggregate, &judging);
  /* Each site's one owner, or NONE: none or several. */
  uint32_t *only = malloc((count ? count : 1) * sizeof *only);
  result->sites = calloc(count ? count : 1, sizeof *result->sites);
  if (!only || !result->sites) {
    free(only);
    return -1;
  }
  for (size_t i = 0; i < count; i++)
    only[i] = DIFF_SITE_TABLE_NONE;
  for (size_t o = 0; o < aggregate->owners.count && !stacks; o++) {
    uint32_t i = aggregate->owners.sites[o];
    only[i] = only[i] == DIFF_SITE_TABLE_NONE ? (uint32_t)o : DIFF_SITE_TABLE_NONE - 1;
  }
  for (size_t i = 0; i < count; i++) {
    struct diff_site *site = &result->sites[i];
    result->site_count = i + 1;
    site->id = aggregate->sites.ids[i];
    site->kind = aggregate->sites.kinds[i];
    site->count = n;
    site->name = malloc(aggregate->sites.lengths[i] + 1);
    uint32_t o = only[i] < aggregate->owners.count ? only[i] : DIFF_SITE_TABLE_NONE;
    if (!site->name || diff_result_take_series(site, o == DIFF_SITE_TABLE_NONE ? NULL : &aggregate->data[o], n) < 0) {
      free(only);
      return -1;
    }
    if (o != DIFF_SITE_TABLE_NONE) {
      site->allocs = aggregate->data[o].allocs;
      site->frees = aggregate->data[o].frees;
    }
    memcpy(site->name, aggregate->sites.names[i], aggregate->sites.lengths[i] + 1);
    if (result_site_source(site) < 0 || result_site_library(site, capture) < 0) {
      free(only);
      return -1;
    }
  }
  /* A site's series is the sum of its owners' (one owner a site without stacks). */
  for (size_t o = 0; o < aggregate->owners.count; o++) {
    const struct diff_aggregate_site *data = &aggregate->data[o];
    uint32_t i = aggregate->owners.sites[o];
    if (only[i] == o)
      continue;  /* taken */
    struct diff_site *site = &result->sites[i];
    site->allocs += data->allocs;
    site->frees += data->frees;
    for (size_t k = 0; k < n; k++) {
      site->live_bytes[k] += data->series_live_bytes[k];
      site->live_blocks[k] += data->series_live_blocks[k];
      site->alloc_bytes[k] += data->series_alloc_bytes[k];
      site->free_bytes[k] += data->series_free_bytes[k];
      site->young[k] += data->series_young_bytes[k];
      site->survived[k] = data->series_survived_bytes[k] == DIFF_AGGREGATE_UNKNOWN ||
                                  site->survived[k] == DIFF_AGGREGATE_UNKNOWN
                              ? DIFF_AGGREGATE_UNKNOWN
                              : site->survived[k] + data->series_survived_bytes[k];
    }
  }
  free(only);
  for (size_t i = 0; i < count; i++)
    if (diff_result_judge_site(&result->sites[i], &judging, info) < 0)
      return -1;
  return diff_result_stacks_build(result, aggregate, &judging, info);
}

double diff_result_seconds_per_boundary(const struct diff_capture *info)
{
  size_t n = info->boundary_count;
  if (!info->boundary_times || n < 2)
    return 0;
  return (info->boundary_times[n - 1] - info->boundary_times[0]) / (double)(n - 1);
}

struct diff_options diff_result_judging_options(const struct diff_options *options,
                                                const struct diff_capture *info)
{
  struct diff_options judging = *options;
  if (!info || !info->sample_bytes)
    return judging;
  judging.sampled = 1;
  size_t n = info->boundary_count, judged = n > options->warmup ? n - options->warmup : 0;
  uint64_t floor = diff_sampling_floor(info->sample_bytes, judged, options);
  if (floor != UINT64_MAX && (double)floor > judging.min_growth_bytes)
  {
    judging.min_drop_bytes = judging.min_growth_bytes;
    judging.min_growth_bytes = (double)floor;
  }
  return judging;
}

/* Whether a site of the program's lines judged steady grows on the boundaries whose full
 * cycles the collector forced (after the warm-up, enough of them for a trend, and not all):
 * there every live block was reachable. At the program's own cycles a block born during the cycle is young and left out,
 * so a string kept and appended to, a new copy each cycle, is never counted there and reads
 * flat (docs/diff.md, "Young blocks"). 1, 0, or -1 when out of memory. */
static int result_forced_growing(const struct diff_site *site, const struct diff_options *options,
                                 const struct diff_capture *info)
{
  /* A line of the program's own; the VM's work (a string buffer that doubles and is shrunk at
   * each cycle) has falls between the forced boundaries that only their segments' frees show. */
  if (!info || !info->forced || info->boundary_count != site->count || !site->live_bytes ||
      (site->kind != DIFF_SITE_LUA && site->kind != DIFF_SITE_TRACE))
    return 0;
  size_t m = 0;
  for (size_t k = options->warmup; k < site->count; k++)
    m += info->forced[k] != 0;
  if (m == site->count - (options->warmup < site->count ? options->warmup : site->count) ||
      m < diff_boundaries_needed(options))
    return 0;
  uint64_t *series = malloc(m * sizeof *series), *work = info->allocated ? malloc(m * sizeof *work) : NULL;
  if (!series || (info->allocated && !work)) {
    free(series), free(work);
    return -1;
  }
  m = 0;
  for (size_t k = options->warmup; k < site->count; k++)
    if (info->forced[k]) {
      series[m] = site->live_bytes[k];
      if (work)
        work[m] = info->allocated[k];
      m++;
    }
  struct diff_options forced = *options;
  forced.warmup = 0;
  enum diff_verdict verdict;
  struct diff_trend trend;
  int status = diff_trend_verdict_work(series, NULL, NULL, work, m, &forced, &verdict, &trend);
  free(series), free(work);
  return status < 0 ? -1 : verdict == DIFF_VERDICT_GROWING;
}

/* Whether the drops that made a site steady as filled and flushed were copies replaced: at the
 * low of 3/4 of them or more, the young blocks make up half the fall. A buffer flushed frees
 * what it held; a string kept and appended to is a new, longer copy, made during the cycle and
 * so young there, while the copy the boundary before counted is freed. 1, 0, or -1. */
static int result_drops_replaced(const struct diff_site *site, const struct diff_trend *trend)
{
  struct diff_trend_drop *drops = malloc((site->count ? site->count : 1) * sizeof *drops);
  if (!drops)
    return -1;
  size_t count = diff_trend_find_drops(site->live_bytes, site->survived, site->count, trend, drops);
  if (count == SIZE_MAX) {
    free(drops);
    return -1;
  }
  size_t replaced = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t high = site->live_bytes[drops[i].high], low = site->live_bytes[drops[i].low];
    replaced += high > low && site->young[drops[i].low] >= (high - low) / 2;
  }
  free(drops);
  return count && replaced * 4 >= count * 3;
}

/* The least of live and young bytes in each window of count / 32 boundaries (2 at least),
 * leaving out those whose full cycles the collector forced: at the volume rule's, a copy made
 * while the forced cycle waited for a trace to exit is in neither. Into all; returns how many,
 * and in *warmup how many of them lie in the first warmup windows (a window of forced
 * boundaries alone is none). */
static size_t result_young_lows(const struct diff_site *site, const struct diff_capture *info,
                                size_t width, uint64_t *all, size_t *warmup)
{
  size_t warmup_windows = *warmup;
  size_t points = (site->count + width - 1) / width, kept = 0;
  const unsigned char *forced = info && info->boundary_count == site->count ? info->forced : NULL;
  for (size_t k = 0; k < points; k++)
    all[k] = UINT64_MAX;
  for (size_t k = 0; k < site->count; k++) {
    uint64_t bytes = site->live_bytes[k] + site->young[k];
    if ((!forced || !forced[k]) && bytes < all[k / width])
      all[k / width] = bytes;
  }
  *warmup = 0;
  for (size_t k = 0; k < points; k++) {
    if (all[k] == UINT64_MAX)
      continue;
    *warmup += k < warmup_windows;
    all[kept++] = all[k];
  }
  return kept;
}

/* Whether a site of the program's lines, judged steady as filled and flushed, grows once its
 * young blocks are counted (docs/diff.md, "Young at every boundary"): its drops were copies
 * replaced (result_drops_replaced), and the lows of live and young bytes, window by window
 * (result_young_lows), are judged growing. A string kept and appended to, a new copy made
 * during every cycle, is young at each boundary and freed before the next, so its live bytes
 * fall to what else its line holds and the rules read a flush. Young blocks can be garbage the
 * cycle could not see, so this makes a site undecided, never growing. 1, 0, or -1. */
static int result_young_growing(const struct diff_site *site, const struct diff_options *options,
                                const struct diff_capture *info, const struct diff_trend *trend)
{
  if (!site->young || !site->live_bytes || !trend->flushed ||
      (site->kind != DIFF_SITE_LUA && site->kind != DIFF_SITE_TRACE))
    return 0;
  int replaced = result_drops_replaced(site, trend);
  if (replaced <= 0)
    return replaced;
  size_t width = site->count / 32 > 2 ? site->count / 32 : 2;
  uint64_t *all = malloc(((site->count + width - 1) / width + 1) * sizeof *all);
  if (!all)
    return -1;
  struct diff_options windows = *options;
  windows.warmup = (options->warmup + width - 1) / width;
  size_t points = result_young_lows(site, info, width, all, &windows.warmup);
  enum diff_verdict verdict;
  struct diff_trend lows;
  int status = diff_trend_verdict_work(all, NULL, NULL, NULL, points, &windows, &verdict, &lows);
  free(all);
  return status < 0 ? -1 : verdict == DIFF_VERDICT_GROWING;
}

int diff_result_judge_site(struct diff_site *site, const struct diff_options *options,
                           const struct diff_capture *info)
{
  struct diff_trend trend;
  double interval = info ? diff_result_seconds_per_boundary(info) : 0;
  /* The work at each boundary, when it is the site's own boundaries' */
  const uint64_t *work = info && info->boundary_count == site->count ? info->allocated : NULL;
  if (diff_trend_verdict_kept(site->live_bytes, site->floors, site->survived, site->kept, work,
                              site->live_bytes ? site->count : 0, options, &site->verdict,
                              &trend) < 0)
    return -1;
  if (diff_site_is_jit(site->name) &&
      (site->verdict == DIFF_VERDICT_GROWING || site->verdict == DIFF_VERDICT_UNDECIDED))
    site->verdict = DIFF_VERDICT_STEADY;  /* the JIT warming up: bounded by its limits */
  site->released_at_end = site->verdict == DIFF_VERDICT_UNDECIDED && trend.released;
  site->held_briefly = site->verdict == DIFF_VERDICT_UNDECIDED && trend.held_briefly;
  site->forced_growing = 0;
  if (site->verdict == DIFF_VERDICT_STEADY && !diff_site_is_jit(site->name)) {
    int forced = result_forced_growing(site, options, info);
    if (forced < 0)
      return -1;
    site->forced_growing = forced;
    if (forced)
      site->verdict = DIFF_VERDICT_UNDECIDED;
  }
  /* A saved result has no young series: what it found stands. */
  int young = site->young ? 0 : site->young_growing;
  if (site->verdict == DIFF_VERDICT_STEADY && !diff_site_is_jit(site->name) && site->young) {
    young = result_young_growing(site, options, info, &trend);
    if (young < 0)
      return -1;
  }
  site->young_growing = young && site->verdict == DIFF_VERDICT_STEADY;
  if (site->young_growing)
    site->verdict = DIFF_VERDICT_UNDECIDED;
  site->growth_bytes_per_segment = trend.slope;
  site->growth_bytes_per_second = interval > 0 ? trend.slope / interval : 0;
  site->trend_statistic = trend.s;
  site->trend_p_value = trend.p_up;
  return 0;
}

static uint64_t result_last_live(const struct diff_site *site)
{
  return site->count ? site->live_bytes[site->count - 1] : 0;
}

/* Flagged sites first, then the undecided ones (what to look at), then the rest. */
static int result_rank(enum diff_mode mode, const struct diff_site *site)
{
  return diff_site_flagged(mode, site) ? 2 : diff_site_undecided(site) ? 1 : 0;
}

static int result_compare_sites(const void *a, const void *b, void *context)
{
  const struct diff_site *x = a, *y = b;
  enum diff_mode result_sort_mode = *(const enum diff_mode *)context;
  int fx = result_rank(result_sort_mode, x), fy = result_rank(result_sort_mode, y);
  if (fx != fy)
    return fy - fx;
  if (result_sort_mode == DIFF_MODE_RANGE) {
    if (x->range_delta_bytes != y->range_delta_bytes)
      return x->range_delta_bytes < y->range_delta_bytes ? 1 : -1;
  } else if (fx) {
    if (x->growth_bytes_per_segment != y->growth_bytes_per_segment)
      return x->growth_bytes_per_segment < y->growth_bytes_per_segment ? 1 : -1;
  }
  uint64_t lx = result_last_live(x), ly = result_last_live(y);
  if (lx != ly)
    return lx < ly ? 1 : -1;
  return strcmp(x->name, y->name);
}

int diff_result_finish(struct diff_result *result)
{
  if (result->site_count)
    qsort_r(result->sites, result->site_count, sizeof *result->sites, result_compare_sites,
            &result->mode);
  if (result->stack_count)
    qsort_r(result->stacks, result->stack_count, sizeof *result->stacks, result_compare_sites,
            &result->mode);
  diff_result_fill_facts(result);  /* after the sort: the tally sums in the sites' order */
  result->flagged = result->facts.tally.flagged;
  return diff_suspects_find(result);  /* after the facts: the flagged sites are grouped */
}
