/* diff/survivors.c: the survivors of marked boundaries: each site's blocks
 * given at a mark to a twin owner of its own (in cohorts: a new twin at each
 * mark), which then loses them only as they are freed; its series is what
 * survived. */
#include "diff/survivors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/aggregate.h"
#include "diff/result.h"
#include "diff/trend.h"

#define SURVIVORS_NONE UINT32_MAX

struct survivors_reading {
  struct diff_survivors_site *sites;
  size_t count;
  int by_stack;                  /* sites are stack rows, named as diff_result_stack_name */
  struct diff_site_table names;  /* the sites' names: index i is sites[i] */
  uint32_t *twin;                /* [count]: its twin owner, SURVIVORS_NONE before its first mark */
  uint32_t **cohort;             /* [count]: NULL, or for a site with cohorts the twin of each
                                    of its marks [mark_count] */
  size_t *next;                  /* [count]: its next mark */
  uint32_t *site_of;             /* [owners_known]: the owner's index in sites, or SURVIVORS_NONE */
  size_t owners_known;
  uint32_t *to;                  /* [owners_known]: scratch for diff_aggregate_move_blocks */
};

/* site_of for the owners made since the last call: by the owner's site
 * name, or with by_stack its stack row's name. */
static int survivors_owners(struct survivors_reading *r, const struct diff_aggregate *aggregate)
{
  size_t owners = aggregate->owners.count;
  if (owners <= r->owners_known)
    return 0;
  if (array_resize((void **)&r->site_of, owners, sizeof *r->site_of) != 0 ||
      array_resize((void **)&r->to, owners, sizeof *r->to) != 0)
    return -1;
  for (size_t o = r->owners_known; o < owners; o++) {
    const char *name = aggregate->sites.names[aggregate->owners.sites[o]];
    char *stack_name = NULL;
    if (r->by_stack && name[0] != '\x01') {
      stack_name = diff_result_stack_name(&aggregate->stacks.entries[aggregate->owners.stacks[o]], name);
      if (!stack_name)
        return -1;
      name = stack_name;
    }
    r->site_of[o] = diff_site_table_find(&r->names, name, strlen(name));
    free(stack_name);
  }
  r->owners_known = owners;
  return 0;
}

static int survivors_compare(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* A twin's name: no site's name starts with a control character; a
 * cohort's twin (mark m, SIZE_MAX for none) adds its mark after another. */
static int survivors_twin(struct diff_aggregate *aggregate, const char *name, size_t m, uint32_t *index)
{
  size_t length = strlen(name) + 1, room = length + 32;
  char *twin = malloc(room);
  if (!twin)
    return -1;
  twin[0] = '\x01';
  memcpy(twin + 1, name, length);
  if (m != SIZE_MAX)
    length += (size_t)snprintf(twin + length, room - length, "\x02%zu", m);
  int status = diff_aggregate_owner_named(aggregate, twin, length, DIFF_SITE_INTERNAL, index);
  free(twin);
  return status;
}

/* At boundary b: the sites marked there give their blocks (and their
 * twin's) to their twin. */
static int survivors_hook(struct diff_aggregate *aggregate, size_t b, void *context)
{
  struct survivors_reading *r = context;
  int any = 0;
  for (size_t i = 0; i < r->count; i++) {
    struct diff_survivors_site *site = &r->sites[i];
    while (r->next[i] < site->mark_count && site->marks[r->next[i]] < b)
      r->next[i]++;  /* a mark at a boundary the reading did not reach */
    if (r->next[i] < site->mark_count && site->marks[r->next[i]] == b) {
      if (r->cohort[i]) {  /* each mark a new twin: the blocks born since the mark before */
        if (survivors_twin(aggregate, site->name, r->next[i], &r->twin[i]) < 0)
          return -1;
        r->cohort[i][r->next[i]] = r->twin[i];
      } else if (r->twin[i] == SURVIVORS_NONE &&
                 survivors_twin(aggregate, site->name, SIZE_MAX, &r->twin[i]) < 0) {
        return -1;
      }
      any = 1;
    }
  }
  if (!any)
    return 0;
  if (survivors_owners(r, aggregate) < 0)
    return -1;
  for (size_t o = 0; o < r->owners_known; o++) {
    uint32_t i = r->site_of[o];
    r->to[o] = DIFF_AGGREGATE_STAY;
    if (i != DIFF_SITE_TABLE_NONE && r->next[i] < r->sites[i].mark_count &&
        r->sites[i].marks[r->next[i]] == b && o != r->twin[i])
      r->to[o] = r->twin[i];
  }
  diff_aggregate_move_blocks(aggregate, r->to);
  for (size_t i = 0; i < r->count; i++)
    if (r->next[i] < r->sites[i].mark_count && r->sites[i].marks[r->next[i]] == b)
      r->next[i]++;
  return 0;
}

/* A twin's series into bytes (boundaries values): what it held after its
 * mark first and up to until, DIFF_TREND_UNMEASURED elsewhere. */
static void survivors_series(const struct diff_aggregate *aggregate, uint32_t twin, size_t first,
                             size_t until, size_t boundaries, uint64_t *bytes)
{
  const struct diff_aggregate_site *data = twin == SURVIVORS_NONE ? NULL : &aggregate->data[twin];
  for (size_t k = 0; k < boundaries; k++)
    bytes[k] = !data || k <= first || k > until || k >= aggregate->boundaries
                   ? DIFF_TREND_UNMEASURED
                   : data->series_live_bytes[k];
}

enum format_status diff_survivors_read(struct diff_source *capture, uint64_t sample, int by_stack,
                                       struct diff_survivors_site *sites, size_t count,
                                       size_t boundaries, struct format_error *err)
{
  format_error_clear(err);
  struct survivors_reading r;
  memset(&r, 0, sizeof r);
  r.sites = sites;
  r.count = count;
  r.by_stack = by_stack;
  struct diff_aggregate aggregate;
  size_t *stops = NULL;
  enum format_status status = FORMAT_NO_MEMORY;
  int made = diff_aggregate_init(&aggregate, sample) == 0;
  r.twin = malloc((count ? count : 1) * sizeof *r.twin);
  r.next = calloc(count ? count : 1, sizeof *r.next);
  r.cohort = calloc(count ? count : 1, sizeof *r.cohort);
  if (!made || !r.twin || !r.next || !r.cohort || diff_site_table_init(&r.names) < 0)
    goto done;
  for (size_t i = 0; i < count; i++) {
    uint32_t index;
    r.twin[i] = SURVIVORS_NONE;
    if (sites[i].cohorts && !(r.cohort[i] = malloc((sites[i].mark_count ? sites[i].mark_count : 1) *
                                                   sizeof *r.cohort[i])))
      goto done;
    for (size_t m = 0; r.cohort[i] && m < sites[i].mark_count; m++)
      r.cohort[i][m] = SURVIVORS_NONE;
    if (diff_site_table_intern(&r.names, sites[i].name, strlen(sites[i].name), DIFF_SITE_INTERNAL,
                               &index) < 0)
      goto done;
  }
  /* The reading stops at every mark, and reads no further than wanted. */
  size_t mark_total = 0, until = 0;
  for (size_t i = 0; i < count; i++) {
    mark_total += sites[i].mark_count;
    if (sites[i].until > until)
      until = sites[i].until;
  }
  stops = malloc((mark_total ? mark_total : 1) * sizeof *stops);
  if (!stops)
    goto done;
  size_t stop_count = 0;
  for (size_t i = 0; i < count; i++)
    for (size_t m = 0; m < sites[i].mark_count; m++)
      stops[stop_count++] = sites[i].marks[m];
  qsort(stops, stop_count, sizeof *stops, survivors_compare);
  size_t unique = 0;
  for (size_t i = 0; i < stop_count; i++)
    if (!unique || stops[unique - 1] != stops[i])
      stops[unique++] = stops[i];
  struct diff_aggregate_stops plan = {stops, unique, until};
  status = diff_aggregate_capture_stepwise(&aggregate, capture, by_stack, &plan, survivors_hook, &r, err);
  if (status != FORMAT_OK)
    goto done;
  for (size_t i = 0; i < count; i++) {
    if (!r.cohort[i]) {
      size_t first = sites[i].mark_count ? sites[i].marks[0] : boundaries;
      survivors_series(&aggregate, r.twin[i], first, sites[i].until, boundaries, sites[i].bytes);
      continue;
    }
    for (size_t m = 0; m < sites[i].mark_count; m++)
      survivors_series(&aggregate, r.cohort[i][m], sites[i].marks[m], sites[i].until, boundaries,
                       sites[i].cohorts + m * boundaries);
  }
done:
  if (status == FORMAT_NO_MEMORY && err->status == FORMAT_OK) {
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  diff_site_table_release(&r.names);
  for (size_t i = 0; r.cohort && i < count; i++)
    free(r.cohort[i]);
  free(r.cohort);
  free(r.twin);
  free(r.next);
  free(r.site_of);
  free(r.to);
  free(stops);
  if (made)
    diff_aggregate_release(&aggregate);
  return status;
}

/* A site whose verdict the floors could change: one that rose and fell
 * back, steady by the fill-and-flush rule on one low, or not steady. Its
 * marks (its drops' highs) go to marks, its last drop's low to until;
 * returns their count, 0 for no
 * candidate, SIZE_MAX when out of memory. */
static size_t survivors_candidate(const struct diff_site *site, const struct diff_options *options,
                                  const struct diff_capture *info, const struct diff_result *sites,
                                  size_t *marks, size_t *until)
{
  (void)sites;
  if (site->verdict == DIFF_VERDICT_SHRINKING || !site->live_bytes || site->count < 4)
    return 0;
  struct diff_trend trend;
  enum diff_verdict verdict;
  const uint64_t *work = info->boundary_count == site->count ? info->allocated : NULL;
  if (diff_trend_verdict_work(site->live_bytes, NULL, site->survived, work, site->count, options, &verdict,
                              &trend) < 0)
    return SIZE_MAX;
  /* Steady by the rule on its lows, only a single drop is taken again: its
   * low alone cannot show a floor that rises; lows of two drops or more
   * that do not rise keep floors, which are no higher, from rising much. */
  if (!trend.rose || trend.drops == 0 ||
      (verdict == DIFF_VERDICT_STEADY && !(trend.flushed && trend.drops == 1)))
    return 0;
  struct diff_trend_drop *drops = malloc(site->count * sizeof *drops);
  if (!drops)
    return SIZE_MAX;
  size_t count = diff_trend_find_drops(site->live_bytes, site->survived, site->count, &trend, drops);
  for (size_t i = 0; count != SIZE_MAX && i < count; i++)
    marks[i] = drops[i].high;
  if (count != SIZE_MAX && count)
    *until = drops[count - 1].low;
  free(drops);
  return count;
}

/* Whether the site of result whose id is id is steady by the floating-garbage rule. */
static int survivors_site_floating(const struct diff_result *result, uint64_t id)
{
  for (size_t i = 0; i < result->site_count; i++)
    if (result->sites[i].id == id)
      return result->sites[i].kept && result->sites[i].verdict == DIFF_VERDICT_STEADY;
  return 0;
}

/* Whether a full cycle (a forced boundary, from `from` on) found x lower
 * than it was at one of the program's own boundaries before, by half the
 * growth threshold: what an own cycle left live and a full one freed. A
 * rise that the full cycles show as well is no floating garbage. */
static int survivors_fell_at_a_full_cycle(const uint64_t *x, const unsigned char *forced, size_t from,
                                          size_t n, const struct diff_options *options)
{
  uint64_t peak = 0, own_high = 0;
  for (size_t k = from; k < n; k++)
    peak = x[k] > peak ? x[k] : peak;
  double threshold = options->min_growth_bytes;
  if (options->min_growth_fraction * (double)peak > threshold)
    threshold = options->min_growth_fraction * (double)peak;
  int own = 0;
  for (size_t k = from; k < n; k++) {
    if (!forced[k]) {
      own_high = x[k] > own_high ? x[k] : own_high;
      own = 1;
    } else if (own && (double)x[k] + threshold / 2 < (double)own_high) {
      return 1;
    }
  }
  return 0;
}

/* A site whose verdict the kept series could change (docs/diff.md,
 * "Floating garbage"): growing or undecided, on boundaries some of which
 * (judged, not the last) ended one of the program's own cycles, and lower
 * at a full cycle after one of them (survivors_fell_at_a_full_cycle); a
 * stack row (sites: the result whose sites were judged so) only when its
 * site became steady by the rule: a site still growing is flagged whatever
 * its rows. Its marks are those boundaries, each a cohort; until is the
 * last boundary. Returns their count, 0 for no candidate. */
static size_t survivors_kept_candidate(const struct diff_site *site, const struct diff_options *options,
                                       const struct diff_capture *info, const struct diff_result *sites,
                                       size_t *marks, size_t *until)
{
  size_t n = site->count;
  if ((site->verdict != DIFF_VERDICT_GROWING && site->verdict != DIFF_VERDICT_UNDECIDED) ||
      !site->live_bytes || !info->forced || info->boundary_count != n || n < 2 ||
      (sites && !survivors_site_floating(sites, site->site_id)) ||
      !survivors_fell_at_a_full_cycle(site->live_bytes, info->forced, options->warmup, n, options))
    return 0;
  size_t count = 0;
  for (size_t k = options->warmup; k + 1 < n; k++)
    if (!info->forced[k])
      marks[count++] = k;
  *until = n - 1;
  return count;
}

/* A measured row's floors: the survivors at its drops' lows. */
static int survivors_take_floors(struct diff_site *row, const struct diff_survivors_site *measured,
                                 uint64_t *bytes, const struct diff_capture *info)
{
  (void)measured;
  (void)info;
  free(row->floors);
  row->floors = bytes;
  return 0;
}

/* A measured row's kept series, from the cohorts of its marks. */
static int survivors_take_kept(struct diff_site *row, const struct diff_survivors_site *measured,
                               uint64_t *cohorts, const struct diff_capture *info)
{
  free(row->kept);
  row->kept = malloc(row->count * sizeof *row->kept);
  if (row->kept)
    diff_trend_kept_series(row->live_bytes, measured->marks, measured->mark_count, cohorts,
                           info->forced, row->count, row->kept);
  free(cohorts);
  return row->kept ? 0 : -1;
}

/* What a second reading measures for a rule: which rows, at which marks,
 * and what the rows take from it before they are judged again. */
struct survivors_rule {
  size_t (*candidate)(const struct diff_site *site, const struct diff_options *options,
                      const struct diff_capture *info, const struct diff_result *sites,
                      size_t *marks, size_t *until);
  int (*take)(struct diff_site *row, const struct diff_survivors_site *measured, uint64_t *series,
              const struct diff_capture *info);
  int cohorts;  /* take gets each mark's cohort (diff_survivors_site.cohorts), not bytes */
};

static const struct survivors_rule survivors_floors = {survivors_candidate, survivors_take_floors, 0};
static const struct survivors_rule survivors_kept = {survivors_kept_candidate, survivors_take_kept, 1};

/* The rows (sites, or stack rows with by_stack) that rule's measure could
 * change, measured in one reading and judged again. Rows that share a name
 * (two stacks whose labels read alike) are left as they are. */
static enum format_status survivors_rows(const struct survivors_rule *rule, struct diff_site *rows,
                                         size_t row_count, const struct diff_result *sites,
                                         int by_stack, struct diff_source *capture,
                                         const struct diff_capture *info,
                                         const struct diff_options *options, struct format_error *err)
{
  size_t n = row_count ? rows[0].count : 0;
  struct diff_survivors_site *wanted = calloc(row_count ? row_count : 1, sizeof *wanted);
  size_t *which = malloc((row_count ? row_count : 1) * sizeof *which);
  struct diff_site_table seen;
  int seen_made = diff_site_table_init(&seen) == 0;
  size_t count = 0;
  enum format_status status = FORMAT_NO_MEMORY;
  if (!wanted || !which || !seen_made)
    goto done;
  for (size_t i = 0; i < row_count; i++) {
    struct diff_site *row = &rows[i];
    uint32_t index;
    size_t before = seen.count;
    if (diff_site_table_intern(&seen, row->name, strlen(row->name), row->kind, &index) < 0)
      goto done;
    if (seen.count == before || row->count != n)
      continue;
    size_t *marks = malloc((n ? n : 1) * sizeof *marks);
    if (!marks)
      goto done;
    size_t until = 0;
    size_t marked = rule->candidate(row, options, info, sites, marks, &until);
    if (marked == SIZE_MAX || marked == 0) {
      free(marks);
      if (marked == SIZE_MAX)
        goto done;
      continue;
    }
    struct diff_survivors_site *site = &wanted[count];
    *site = (struct diff_survivors_site){row->name, marks, marked, until, NULL, NULL};
    which[count++] = i;
    if (rule->cohorts ? !(site->cohorts = malloc(marked * n * sizeof(uint64_t)))
                      : !(site->bytes = malloc(n * sizeof(uint64_t))))
      goto done;
  }
  status = FORMAT_OK;
  if (count)
    status = diff_survivors_read(capture, info->sample_bytes, by_stack, wanted, count, n, err);
  struct diff_options judging = diff_result_judging_options(options, info);
  for (size_t j = 0; j < count && status == FORMAT_OK; j++) {
    struct diff_site *row = &rows[which[j]];
    uint64_t *series = rule->cohorts ? wanted[j].cohorts : wanted[j].bytes;
    wanted[j].bytes = wanted[j].cohorts = NULL;
    if (rule->take(row, &wanted[j], series, info) < 0 || diff_result_judge_site(row, &judging, info) < 0)
      status = FORMAT_NO_MEMORY;
  }
done:
  if (status == FORMAT_NO_MEMORY && err->status == FORMAT_OK) {
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  for (size_t j = 0; wanted && j < count; j++) {
    free((void *)wanted[j].marks);
    free(wanted[j].bytes);
    free(wanted[j].cohorts);
  }
  if (seen_made)
    diff_site_table_release(&seen);
  free(wanted);
  free(which);
  return status;
}

/* rule's reading for the sites, then (unless the rows are stacks) for the stacks. */
static enum format_status survivors_apply(const struct survivors_rule *rule,
                                          struct diff_result *result, struct diff_source *capture,
                                          const struct diff_capture *info,
                                          const struct diff_options *options, struct format_error *err)
{
  int by_stack = options->by == DIFF_BY_STACK;
  enum format_status status = survivors_rows(rule, result->sites, result->site_count, NULL, by_stack,
                                             capture, info, options, err);
  if (status == FORMAT_OK && !by_stack)
    status = survivors_rows(rule, result->stacks, result->stack_count, result, 1, capture, info,
                            options, err);
  return status;
}

enum format_status diff_survivors_judge(struct diff_result *result, struct diff_source *capture,
                                        const struct diff_capture *info,
                                        const struct diff_options *options, struct format_error *err)
{
  format_error_clear(err);
  enum format_status status = FORMAT_OK;
  if (!options->floors_from_lows)
    status = survivors_apply(&survivors_floors, result, capture, info, options, err);
  if (status == FORMAT_OK)
    status = survivors_apply(&survivors_kept, result, capture, info, options, err);
  return status;
}
