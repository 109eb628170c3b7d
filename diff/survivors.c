/* diff/survivors.c: the survivors of marked boundaries: each site's blocks
 * given at a mark to a twin owner of its own, which then loses them only
 * as they are freed; its series is what survived. */
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

/* A twin's name: no site's name starts with a control character. */
static int survivors_twin(struct diff_aggregate *aggregate, const char *name, uint32_t *index)
{
  size_t length = strlen(name) + 1;
  char *twin = malloc(length + 1);
  if (!twin)
    return -1;
  twin[0] = '\x01';
  memcpy(twin + 1, name, length);
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
      if (r->twin[i] == SURVIVORS_NONE && survivors_twin(aggregate, site->name, &r->twin[i]) < 0)
        return -1;
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
  if (!made || !r.twin || !r.next || diff_site_table_init(&r.names) < 0)
    goto done;
  for (size_t i = 0; i < count; i++) {
    uint32_t index;
    r.twin[i] = SURVIVORS_NONE;
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
    const struct diff_aggregate_site *twin =
        r.twin[i] == SURVIVORS_NONE ? NULL : &aggregate.data[r.twin[i]];
    size_t first = sites[i].mark_count ? sites[i].marks[0] : boundaries;
    for (size_t k = 0; k < boundaries; k++)
      sites[i].bytes[k] = !twin || k <= first || k > sites[i].until || k >= aggregate.boundaries
                              ? DIFF_TREND_UNMEASURED
                              : twin->series_live_bytes[k];
  }
done:
  if (status == FORMAT_NO_MEMORY && err->status == FORMAT_OK) {
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  diff_site_table_release(&r.names);
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
                                  const struct diff_capture *info, size_t *marks, size_t *until)
{
  if (site->verdict == DIFF_VERDICT_SHRINKING || !site->live_bytes || site->count < 4)
    return 0;
  struct diff_trend trend;
  enum diff_verdict verdict;
  const uint64_t *work = info->boundary_count == site->count ? info->allocated : NULL;
  if (diff_trend_verdict_work(site->live_bytes, NULL, work, site->count, options, &verdict,
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
  size_t count = diff_trend_find_drops(site->live_bytes, site->count, &trend, drops);
  for (size_t i = 0; count != SIZE_MAX && i < count; i++)
    marks[i] = drops[i].high;
  if (count != SIZE_MAX && count)
    *until = drops[count - 1].low;
  free(drops);
  return count;
}

/* The rows (sites, or stack rows with by_stack) that floors could change,
 * measured in one reading and judged again. Rows that share a name (two
 * stacks whose labels read alike) are left to their lows. */
static enum format_status survivors_rows(struct diff_site *rows, size_t row_count, int by_stack,
                                         struct diff_source *capture, const struct diff_capture *info,
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
    size_t marked = survivors_candidate(row, options, info, marks, &until);
    if (marked == SIZE_MAX || marked == 0) {
      free(marks);
      if (marked == SIZE_MAX)
        goto done;
      continue;
    }
    wanted[count] = (struct diff_survivors_site){row->name, marks, marked, until, NULL};
    which[count++] = i;
    if (!(wanted[count - 1].bytes = malloc(n * sizeof(uint64_t))))
      goto done;
  }
  status = FORMAT_OK;
  if (count)
    status = diff_survivors_read(capture, info->sample_bytes, by_stack, wanted, count, n, err);
  struct diff_options judging = diff_result_judging_options(options, info);
  for (size_t j = 0; j < count && status == FORMAT_OK; j++) {
    struct diff_site *row = &rows[which[j]];
    free(row->floors);
    row->floors = wanted[j].bytes;
    wanted[j].bytes = NULL;
    if (diff_result_judge_site(row, &judging, info) < 0)
      status = FORMAT_NO_MEMORY;
  }
done:
  if (status == FORMAT_NO_MEMORY && err->status == FORMAT_OK) {
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  for (size_t j = 0; wanted && j < count; j++) {
    free((void *)wanted[j].marks);
    free(wanted[j].bytes);
  }
  if (seen_made)
    diff_site_table_release(&seen);
  free(wanted);
  free(which);
  return status;
}

enum format_status diff_survivors_judge(struct diff_result *result, struct diff_source *capture,
                                        const struct diff_capture *info,
                                        const struct diff_options *options, struct format_error *err)
{
  format_error_clear(err);
  if (options->floors_from_lows)
    return FORMAT_OK;
  int by_stack = options->by == DIFF_BY_STACK;
  enum format_status status = survivors_rows(result->sites, result->site_count, by_stack, capture, info,
                                             options, err);
  if (status == FORMAT_OK && !by_stack)
    status = survivors_rows(result->stacks, result->stack_count, 1, capture, info, options, err);
  return status;
}
