/* diff/model.c: the result model's one home: its names, which sites fail a run, the facts of a result (its outcome and why), freeing a result. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/diff.h"
#include "diff/source.h"
#include "diff/trend.h"
#include "diff/suspects.h"
#include "format/utf8.h"

/* The names of every format and of the JSON schema; the enums index them. */
static const char *const verdict_names[] = {
    [DIFF_VERDICT_INSUFFICIENT] = "insufficient", [DIFF_VERDICT_STEADY] = "steady",
    [DIFF_VERDICT_SHRINKING] = "shrinking",       [DIFF_VERDICT_GROWING] = "growing",
    [DIFF_VERDICT_NEW] = "new",                   [DIFF_VERDICT_WORSE] = "worse",
    [DIFF_VERDICT_UNDECIDED] = "undecided"};
static const char *const outcome_names[] = {[DIFF_OUTCOME_PASS] = "pass",
                                            [DIFF_OUTCOME_FLAGGED] = "flagged",
                                            [DIFF_OUTCOME_INCONCLUSIVE] = "inconclusive"};
static const char *const mode_names[] = {
    [DIFF_MODE_TREND] = "trend", [DIFF_MODE_RANGE] = "range", [DIFF_MODE_BASE] = "base"};
static const char *const site_kind_names[] = {
    [DIFF_SITE_INTERNAL] = "internal", [DIFF_SITE_LUA] = "lua", [DIFF_SITE_TRACE] = "trace",
    [DIFF_SITE_C] = "c"};
static const char *const by_names[] = {[DIFF_BY_SITE] = "site", [DIFF_BY_STACK] = "stack"};
static const char *const frame_kind_names[] = {
    [STACKS_FRAME_LUA] = "lua", [STACKS_FRAME_C] = "c", [STACKS_FRAME_INTERNAL] = "internal",
    [STACKS_FRAME_COROUTINE] = "coroutine"};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *model_name(const char *const *names, size_t count, unsigned value)
{
  return value < count ? names[value] : "unknown";
}

static int model_lookup(const char *const *names, size_t count, const char *name)
{
  for (size_t i = 0; i < count; i++)
    if (!strcmp(names[i], name))
      return (int)i;
  return -1;
}

const char *diff_verdict_name(enum diff_verdict verdict)
{
  return model_name(verdict_names, COUNT_OF(verdict_names), (unsigned)verdict);
}

int diff_verdict_parse(const char *name, enum diff_verdict *verdict)
{
  int i = model_lookup(verdict_names, COUNT_OF(verdict_names), name);
  if (i < 0)
    return -1;
  *verdict = (enum diff_verdict)i;
  return 0;
}

const char *diff_outcome_name(enum diff_outcome outcome)
{
  return model_name(outcome_names, COUNT_OF(outcome_names), (unsigned)outcome);
}

int diff_outcome_parse(const char *name, enum diff_outcome *outcome)
{
  int i = model_lookup(outcome_names, COUNT_OF(outcome_names), name);
  if (i < 0)
    return -1;
  *outcome = (enum diff_outcome)i;
  return 0;
}

const char *diff_mode_name(enum diff_mode mode)
{
  return model_name(mode_names, COUNT_OF(mode_names), (unsigned)mode);
}

int diff_mode_parse(const char *name, enum diff_mode *mode)
{
  int i = model_lookup(mode_names, COUNT_OF(mode_names), name);
  if (i < 0)
    return -1;
  *mode = (enum diff_mode)i;
  return 0;
}

const char *diff_site_kind_name(enum diff_site_kind kind)
{
  return model_name(site_kind_names, COUNT_OF(site_kind_names), (unsigned)kind);
}

int diff_site_kind_parse(const char *name, enum diff_site_kind *kind)
{
  int i = model_lookup(site_kind_names, COUNT_OF(site_kind_names), name);
  if (i < 0)
    return -1;
  *kind = (enum diff_site_kind)i;
  return 0;
}

const char *diff_by_name(enum diff_by by)
{
  return model_name(by_names, COUNT_OF(by_names), (unsigned)by);
}

int diff_by_parse(const char *name, enum diff_by *by)
{
  int i = model_lookup(by_names, COUNT_OF(by_names), name);
  if (i < 0)
    return -1;
  *by = (enum diff_by)i;
  return 0;
}

const char *diff_frame_kind_name(enum stacks_frame_kind kind)
{
  return model_name(frame_kind_names, COUNT_OF(frame_kind_names), (unsigned)kind);
}

int diff_frame_kind_parse(const char *name, enum stacks_frame_kind *kind)
{
  int i = model_lookup(frame_kind_names, COUNT_OF(frame_kind_names), name);
  if (i < 0)
    return -1;
  *kind = (enum stacks_frame_kind)i;
  return 0;
}

size_t diff_frame_label(const struct diff_frame *frame, char *buffer, size_t size)
{
  char line[32] = "";
  if (frame->kind == STACKS_FRAME_LUA)
    snprintf(line, sizeof line, ":%llu", (unsigned long long)frame->line);
  const char *name = frame->name ? frame->name : "?";
  /* Folded stacks and a stack's name split on ';'. */
  size_t needed = utf8_name_text(buffer, size, name, strlen(name), ';');
  size_t written = size ? strlen(buffer) : 0, tail = strlen(line);
  if (size && written == needed) {  /* the name whole: as much of its line as fits (ASCII) */
    size_t n = tail < size - 1 - written ? tail : size - 1 - written;
    memcpy(buffer + written, line, n);
    buffer[written + n] = '\0';
  }
  return needed + tail;
}

int diff_site_flagged(enum diff_mode mode, const struct diff_site *site)
{
  if (site->allowed)
    return 0;  /* it grew within the budget of its allow-list rule */
  if (site->verdict == DIFF_VERDICT_NEW || site->verdict == DIFF_VERDICT_WORSE)
    return 1;
  /* In base mode a site that grows in both builds at a like rate is no regression. */
  return mode != DIFF_MODE_BASE && site->verdict == DIFF_VERDICT_GROWING;
}

int diff_site_is_jit(const char *name)
{
  const char *leaf = name ? strrchr(name, ';') : NULL;
  leaf = leaf ? leaf + 1 : name;
  return leaf && (!strcmp(leaf, "VM: trace compiler") || !strcmp(leaf, "VM: trace recorder"));
}

int diff_site_undecided(const struct diff_site *site)
{
  return !site->allowed && (site->verdict == DIFF_VERDICT_UNDECIDED ||
                            site->verdict == DIFF_VERDICT_INSUFFICIENT);
}

/* The one-sided Mann-Kendall p-value of a strictly rising series of n
 * points, computed as diff/trend.c computes it: exact (1/n!, divided in the
 * same order as its permutation counts) up to 50 points, else the normal
 * approximation with its continuity correction. */
static double model_rising_p_value(size_t n)
{
  if (n <= 50) {
    double p = 1;
    for (size_t m = 2; m <= n; m++)
      p = p / (double)m;
    return p;
  }
  double dn = (double)n, s = dn * (dn - 1) / 2;
  double sigma = sqrt(dn * (dn - 1) * (2 * dn + 5) / 18);
  return 0.5 * erfc(((s - 1) / sigma) / sqrt(2.0));
}

size_t diff_trend_boundaries_needed(double max_p_value)
{
  if (!(max_p_value > 0))
    return SIZE_MAX;
  /* The p-value falls below every positive double before 2000 points (the
   * normal tail underflows to 0 near 700). */
  for (size_t n = 2; n < 2000; n++)
    if (model_rising_p_value(n) <= max_p_value)
      return n;
  return SIZE_MAX;
}

size_t diff_boundaries_needed(const struct diff_options *options)
{
  size_t needed = diff_trend_boundaries_needed(options->max_p_value);
  return options->min_boundaries > needed ? options->min_boundaries : needed;
}

/* ---- The facts of a result ---------------------------------------------- */

/* The boundaries a result counts: its capture's, or its longest series when
 * a saved result does not say. */
static size_t model_boundaries(const struct diff_result *result)
{
  size_t boundaries = result->capture.boundary_count;
  for (size_t i = 0; i < result->site_count; i++)
    if (result->sites[i].count > boundaries)
      boundaries = result->sites[i].count;
  return boundaries;
}

/* Why a site without a verdict has none; the base is to blame when it is
 * too short or has no verdict of its own for the site. */
static enum diff_undecided_cause model_site_cause(const struct diff_result *result,
                                                  const struct diff_site *site)
{
  const struct diff_facts *facts = &result->facts;
  int base = result->mode == DIFF_MODE_BASE;
  if (!site->facts.undecided)
    return DIFF_UNDECIDED_NONE;
  if (site->verdict == DIFF_VERDICT_INSUFFICIENT)
    return DIFF_UNDECIDED_UNMEASURED;
  if (facts->needed == SIZE_MAX)
    return DIFF_UNDECIDED_NO_P_VALUE;
  if (facts->judged < facts->needed)
    return DIFF_UNDECIDED_SHORT_CAPTURE;
  if (base && facts->base_judged < facts->needed)
    return DIFF_UNDECIDED_SHORT_BASE;
  if (base && (site->base_verdict == DIFF_VERDICT_UNDECIDED ||
               site->base_verdict == DIFF_VERDICT_INSUFFICIENT))
    return DIFF_UNDECIDED_BASE_NO_TREND;
  if (site->forced_growing)
    return DIFF_UNDECIDED_FORCED_GROWS;
  if (site->released_at_end)
    return DIFF_UNDECIDED_RELEASED;
  if (site->young_growing)
    return DIFF_UNDECIDED_YOUNG_GROWS;
  if (site->held_briefly)
    return DIFF_UNDECIDED_HELD_BRIEFLY;
  return DIFF_UNDECIDED_NO_TREND;
}

static void model_fill_site(const struct diff_result *result, struct diff_site *site)
{
  struct diff_site_facts *facts = &site->facts;
  facts->flagged = diff_site_flagged(result->mode, site);
  facts->undecided = diff_site_undecided(site);
  /* An insufficient site was measured on under 2 boundaries and has no rise
   * to show: it is counted and listed apart, and when every site of a short
   * capture is insufficient a table of them all would say nothing. */
  facts->rose_undecided = facts->undecided && site->verdict == DIFF_VERDICT_UNDECIDED;
  facts->cause = model_site_cause(result, site);
}

/* Why the rising undecided sites have none. The base is to blame as a whole
 * when it is too short, or when every one of them grows significantly in
 * the candidate: then only the base stands between it and a verdict. */
static enum diff_undecided_cause model_rose_cause(const struct diff_result *result,
                                                  int all_for_the_base)
{
  const struct diff_facts *facts = &result->facts;
  if (!facts->rose_undecided)
    return DIFF_UNDECIDED_NONE;
  if (facts->needed == SIZE_MAX)
    return DIFF_UNDECIDED_NO_P_VALUE;
  if (facts->judged < facts->needed)
    return DIFF_UNDECIDED_SHORT_CAPTURE;
  if (result->mode == DIFF_MODE_BASE && facts->base_judged < facts->needed)
    return DIFF_UNDECIDED_SHORT_BASE;
  if (all_for_the_base)
    return DIFF_UNDECIDED_BASE_NO_TREND;
  if (facts->tally.forced_growing == facts->rose_undecided)
    return DIFF_UNDECIDED_FORCED_GROWS;
  if (facts->tally.released == facts->rose_undecided)
    return DIFF_UNDECIDED_RELEASED;
  if (facts->tally.young_growing == facts->rose_undecided)
    return DIFF_UNDECIDED_YOUNG_GROWS;
  if (facts->tally.held_briefly == facts->rose_undecided)
    return DIFF_UNDECIDED_HELD_BRIEFLY;
  return DIFF_UNDECIDED_NO_TREND;
}

/* diff_sampling_floor's bisection, for 2 <= n and at least the boundaries needed. */
static uint64_t model_sampling_floor(uint64_t sample, size_t n, const struct diff_options *options)
{
  struct diff_options judged = *options;
  judged.warmup = 0;
  judged.min_growth_bytes = 1;  /* what the sampling resolves, whatever --min-growth accepts */
  uint64_t *series = malloc(n * sizeof *series);
  if (!series)
    return UINT64_MAX;
  /* More blocks only make the staircase steeper and finer, so the fewest
   * that is called growing is found by bisection; n - 1 blocks (one a
   * boundary: a strictly rising series) always is, from n_min on. One
   * block in the middle of a long series can be: a floor of one interval. */
  size_t low = 0, high = n - 1;
  while (high - low > 1) {
    size_t blocks = low + (high - low) / 2;
    for (size_t k = 0; k < n; k++)  /* block j recorded at boundary (j - 1/2)(n - 1)/blocks */
      series[k] = sample * (uint64_t)(((double)k * (double)blocks) / (double)(n - 1) + 0.5);
    enum diff_verdict verdict;
    struct diff_trend trend;
    if (diff_trend_verdict(series, n, &judged, &verdict, &trend) != 0) {
      free(series);
      return UINT64_MAX;
    }
    if (verdict == DIFF_VERDICT_GROWING)
      high = blocks;
    else
      low = blocks;
  }
  free(series);
  return sample * (uint64_t)high;
}

/* The last floor found, per thread, with all it depends on: a diff asks for the same capture's
 * up to six times (its sites, each rule of the survivors, the comparison, the facts), and a
 * merge for each result's, each a bisection over trend tests (some 10 ms at 512 boundaries). */
struct floor_memo {
  int valid;
  uint64_t sample;
  size_t n, needed;
  double max_p_value, min_growth_fraction, min_drop_bytes;  /* the options the tests read */
  uint64_t floor;
};
static _Thread_local struct floor_memo floor_memo;

uint64_t diff_sampling_floor(uint64_t sample, size_t n, const struct diff_options *options)
{
  if (!sample)
    return 0;
  /* A diff judges at most DIFF_SOURCE_MAX_BOUNDARIES points (source.c thins the rest), and
   * model_sampling_floor's tests are quadratic in them: a result read back may claim any count. */
  if (n > DIFF_SOURCE_MAX_BOUNDARIES)
    n = DIFF_SOURCE_MAX_BOUNDARIES;
  size_t needed = diff_boundaries_needed(options);
  if (n < 2 || n < needed)
    return UINT64_MAX;
  struct floor_memo key = {1, sample, n, needed, options->max_p_value,
                           options->min_growth_fraction, options->min_drop_bytes, 0};
  struct floor_memo *m = &floor_memo;
  if (m->valid && m->sample == key.sample && m->n == key.n && m->needed == key.needed &&
      m->max_p_value == key.max_p_value && m->min_growth_fraction == key.min_growth_fraction &&
      m->min_drop_bytes == key.min_drop_bytes)
    return m->floor;
  key.floor = model_sampling_floor(sample, n, options);
  if (key.floor != UINT64_MAX)  /* out of memory is not kept */
    *m = key;
  return key.floor;
}

/* How much of the run the counted boundaries cover, by work. */
static void model_fill_coverage(const struct diff_result *result, struct diff_facts *facts)
{
  const struct diff_capture *capture = &result->capture;
  facts->coverage = facts->longest_stretch = -1;
  size_t n = capture->boundary_count;
  if (!capture->allocated || !n || !capture->run_allocated)
    return;
  double run = (double)capture->run_allocated, last = 0, longest = 0;
  for (size_t i = 0; i < n; i++) {
    double at = (double)capture->allocated[i];
    if (at - last > longest)
      longest = at - last;
    last = at;
  }
  if (run - last > longest)
    longest = run - last;
  facts->coverage = last >= run ? 1 : last / run;
  facts->longest_stretch = longest >= run ? 1 : longest / run;
  facts->ends_early = facts->coverage < DIFF_COVERAGE_EARLY;
}

/* The outcome, why it is inconclusive, and what would decide it. */
static void model_fill_outcome(struct diff_facts *facts, const struct diff_options *options,
                               int base, int all_for_the_base)
{
  int blind = facts->sample_floor > options->min_growth_bytes;
  if (facts->tally.flagged)
    facts->outcome = DIFF_OUTCOME_FLAGGED;
  else if (facts->judged < 2 || facts->tally.undecided || blind)
    facts->outcome = DIFF_OUTCOME_INCONCLUSIVE;  /* under 2 boundaries judged, no site among them
                                                  * (a capture cut at its start): "nothing grows"
                                                  * would be a guess */
  else
    facts->outcome = DIFF_OUTCOME_PASS;
  if (facts->outcome != DIFF_OUTCOME_INCONCLUSIVE)
    return;
  facts->inconclusive = !facts->boundaries       ? DIFF_INCONCLUSIVE_NO_BOUNDARY
                        : facts->judged < 2      ? DIFF_INCONCLUSIVE_TOO_FEW_BOUNDARIES
                        : facts->tally.undecided ? DIFF_INCONCLUSIVE_NO_VERDICT
                                                 : DIFF_INCONCLUSIVE_SAMPLING_FLOOR;
  if (facts->inconclusive == DIFF_INCONCLUSIVE_SAMPLING_FLOOR) {
    facts->remedy = DIFF_REMEDY_FINER_SAMPLING;
    return;
  }
  if (facts->inconclusive == DIFF_INCONCLUSIVE_NO_VERDICT && facts->tally.forced_growing == facts->tally.undecided) {
    facts->remedy = DIFF_REMEDY_FORCED_ONLY;
    return;
  }
  if (facts->inconclusive == DIFF_INCONCLUSIVE_NO_VERDICT && facts->tally.released == facts->tally.undecided &&
      facts->judged >= facts->needed) {
    facts->remedy = DIFF_REMEDY_BEFORE_RELEASE;
    return;
  }
  if (facts->inconclusive == DIFF_INCONCLUSIVE_NO_VERDICT && facts->tally.young_growing == facts->tally.undecided) {
    facts->remedy = DIFF_REMEDY_EVERY;
    return;
  }
  if (facts->inconclusive == DIFF_INCONCLUSIVE_NO_VERDICT && facts->tally.held_briefly == facts->tally.undecided) {
    facts->remedy = DIFF_REMEDY_MORE_WORK;
    return;
  }
  int base_short = facts->base_judged < facts->needed;
  facts->remedy = base && facts->judged >= facts->needed && (base_short || all_for_the_base)
                      ? DIFF_REMEDY_LONGER_BASE
                      : DIFF_REMEDY_RUN_LONGER;
}

void diff_result_fill_facts(struct diff_result *result)
{
  struct diff_facts *facts = &result->facts;
  size_t warmup = result->options.warmup;
  int base = result->mode == DIFF_MODE_BASE;
  memset(facts, 0, sizeof *facts);
  facts->boundaries = model_boundaries(result);
  facts->judged = facts->boundaries > warmup ? facts->boundaries - warmup : 0;
  facts->base_judged = result->base.boundary_count > warmup ? result->base.boundary_count - warmup
                                                            : 0;
  facts->needed = diff_boundaries_needed(&result->options);

  struct diff_tally *tally = &facts->tally;
  size_t for_the_base = 0;  /* rising undecided sites significant in the candidate */
  for (size_t i = 0; i < result->site_count; i++) {
    struct diff_site *site = &result->sites[i];
    model_fill_site(result, site);
    tally->undecided += (size_t)site->facts.undecided;
    tally->forced_growing += (size_t)(site->facts.undecided && site->forced_growing);
    tally->released += (size_t)(site->facts.undecided && site->released_at_end);
    tally->young_growing += (size_t)(site->facts.undecided && site->young_growing);
    tally->held_briefly += (size_t)(site->facts.undecided && site->held_briefly);
    facts->insufficient +=
        (size_t)(site->facts.undecided && site->verdict == DIFF_VERDICT_INSUFFICIENT);
    facts->rose_undecided += (size_t)site->facts.rose_undecided;
    for_the_base += (size_t)(base && site->facts.rose_undecided &&
                             site->trend_p_value <= result->options.max_p_value);
    if (!site->facts.flagged)
      continue;
    tally->flagged++;
    tally->new_count += site->verdict == DIFF_VERDICT_NEW;
    tally->worse_count += site->verdict == DIFF_VERDICT_WORSE;
    tally->growth_bytes_per_segment += site->growth_bytes_per_segment;
    tally->growth_bytes_per_second += site->growth_bytes_per_second;
    tally->range_delta_bytes += site->range_delta_bytes;
  }
  for (size_t i = 0; i < result->stack_count; i++)
    model_fill_site(result, &result->stacks[i]);
  int all_for_the_base = facts->rose_undecided && for_the_base == facts->rose_undecided;
  facts->rose_cause = model_rose_cause(result, all_for_the_base);
  model_fill_coverage(result, facts);
  if (result->mode != DIFF_MODE_RANGE)
    facts->sample_floor =
        diff_sampling_floor(result->capture.sample_bytes, facts->judged, &result->options);
  model_fill_outcome(facts, &result->options, base, all_for_the_base);
  facts->filled = 1;
}

void diff_allowance_free(struct diff_allowance *allowance)
{
  if (!allowance)
    return;
  free(allowance->pattern);
  free(allowance->budget);
  free(allowance->comment);
  free(allowance->file);
  free(allowance);
}

int diff_capture_add_label(struct diff_capture *capture, const char *key, size_t key_length,
                           const char *value, size_t value_length)
{
  if (array_resize((void **)&capture->labels, capture->label_count + 1, sizeof *capture->labels) != 0)
    return -1;
  struct diff_label *label = &capture->labels[capture->label_count];
  label->key = strndup(key, key_length);
  label->value = strndup(value, value_length);
  if (!label->key || !label->value) {
    free(label->key);
    free(label->value);
    return -1;
  }
  capture->label_count++;
  return 0;
}

const char *diff_capture_label(const struct diff_capture *capture, const char *key)
{
  for (size_t i = 0; i < capture->label_count; i++)
    if (!strcmp(capture->labels[i].key, key))
      return capture->labels[i].value;
  return NULL;
}

void diff_capture_free(struct diff_capture *capture)
{
  for (size_t i = 0; i < capture->label_count; i++) {
    free(capture->labels[i].key);
    free(capture->labels[i].value);
  }
  free(capture->labels);
  free(capture->exe);
  free(capture->stop_reason);
  free(capture->path);
  free(capture->command);
  free(capture->host);
  free(capture->luajit_version);
  free(capture->boundary_times);
  free(capture->gc_cycles);
  free(capture->heap_bytes);
  free(capture->allocated);
  free(capture->forced);
  memset(capture, 0, sizeof *capture);
}

void diff_site_release(struct diff_site *site)
{
  free(site->name);
  free(site->source_file);
  free(site->library);
  free(site->live_bytes);
  free(site->live_blocks);
  free(site->floors);
  free(site->survived);
  free(site->young);
  free(site->kept);
  free(site->alloc_bytes);
  free(site->free_bytes);
  free(site->base_live_bytes);
  free(site->base_moved);
  diff_allowance_free(site->allowance);
  for (size_t i = 0; i < site->frame_count && site->frames; i++)
    free(site->frames[i].name);
  free(site->frames);
  for (size_t i = 0; i < site->holder_count && site->holders; i++) {
    free(site->holders[i].path);
    free(site->holders[i].holder_type);
  }
  free(site->holders);
  for (size_t i = 0; i < site->value_count && site->values; i++)
    free(site->values[i].text);
  free(site->values);
  if (site->container) {
    free(site->container->type);
    free(site->container->path);
    free(site->container->site);
    free(site->container);
  }
}

void diff_result_by_stack(struct diff_result *result)
{
  if (result->options.by == DIFF_BY_STACK)
    return;
  result->options.by = DIFF_BY_STACK;
  if (result->stack_count) {
    for (size_t i = 0; i < result->site_count; i++)
      diff_site_release(&result->sites[i]);
    free(result->sites);
    result->sites = result->stacks;
    result->site_count = result->stack_count;
    result->stacks = NULL;
    result->stack_count = 0;
  } else {
    for (size_t i = 0; i < result->site_count; i++) {
      result->sites[i].is_stack = 1;
      result->sites[i].site_id = result->sites[i].id;
    }
  }
  diff_result_fill_facts(result);
  result->flagged = result->facts.tally.flagged;
  diff_suspects_free(result);  /* stacks have no holders: not grouped */
}

void diff_result_free(struct diff_result *result)
{
  if (!result)
    return;
  for (size_t i = 0; i < result->site_count && result->sites; i++)
    diff_site_release(&result->sites[i]);
  free(result->sites);
  for (size_t i = 0; i < result->stack_count && result->stacks; i++)
    diff_site_release(&result->stacks[i]);
  free(result->stacks);
  for (size_t i = 0; i < result->container_count && result->containers; i++) {
    free(result->containers[i].type);
    free(result->containers[i].site);
    free(result->containers[i].path);
  }
  free(result->containers);
  for (size_t i = 0; i < result->base_gone_count && result->base_gone; i++)
    free(result->base_gone[i].name);
  free(result->base_gone);
  diff_suspects_free(result);
  diff_capture_free(&result->capture);
  diff_capture_free(&result->base);
  memset(result, 0, sizeof *result);
}
