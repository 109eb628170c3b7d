/* merge/merge.c: the merge model: captures and per-site values in, exact figures out (merge_finish). */
#include "merge/merge.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "container/index_table.h"
#include "merge/merge_internal.h"

void merge_init(struct merge *merge)
{
  memset(merge, 0, sizeof *merge);
  merge->min_captures = 1;
}

static void merge_site_release(struct merge_site *site)
{
  free(site->name);
  free(site->values);
  free(site->label_growing);
  free(site->label_seen);
}

static void merge_groups_free(struct merge *merge)
{
  for (size_t i = 0; i < merge->group_count; i++) {
    free(merge->groups[i].key);
    free(merge->groups[i].value);
  }
  free(merge->groups);
  merge->groups = NULL;
  merge->group_count = 0;
}

void merge_free(struct merge *merge)
{
  for (size_t i = 0; i < merge->capture_count; i++) {
    diff_capture_free(&merge->captures[i].info);
    free(merge->captures[i].source);
    free(merge->captures[i].input);
  }
  free(merge->captures);
  for (size_t i = 0; i < merge->site_count; i++)
    merge_site_release(&merge->sites[i]);
  free(merge->sites);
  index_table_release(&merge->site_index);
  free(merge->kind_source);
  merge_groups_free(merge);
  merge_init(merge);
}

/* ---- Sites by id ------------------------------------------------------------ */

/* The sites, by id and name, for index_table_probe. */
struct merge_site_key {
  const struct merge *merge;
  const char *name;
  uint64_t id;
};

static int merge_site_equal(const void *context, uint32_t index)
{
  const struct merge_site_key *key = context;
  const struct merge_site *site = &key->merge->sites[index];
  return site->id == key->id && !strcmp(site->name, key->name);
}

/* The site named name (id its hash), made when new; NULL when out of memory.
 * Two names with one id (a collision of XXH3-64) stay two sites. */
struct merge_site *merge_site_get(struct merge *merge, const char *name, uint64_t id,
                                  enum diff_site_kind kind)
{
  if (!merge->site_index.slots && index_table_init(&merge->site_index) != 0)
    return NULL;
  struct merge_site_key key = {merge, name, id};
  uint32_t found = index_table_probe(&merge->site_index, id, merge_site_equal, &key)->index;
  if (found != INDEX_TABLE_NONE)
    return &merge->sites[found];
  if (array_reserve((void **)&merge->sites, &merge->site_capacity, merge->site_count + 1,
                    sizeof *merge->sites) != 0)
    return NULL;
  struct merge_site *site = &merge->sites[merge->site_count];
  memset(site, 0, sizeof *site);
  if (!(site->name = strdup(name)) || index_table_add(&merge->site_index, id) == INDEX_TABLE_NONE) {
    free(site->name);
    return NULL;
  }
  site->id = id;
  site->kind = kind;
  merge->site_count++;
  return site;
}

int merge_site_add_value(struct merge_site *site, const struct merge_value *value)
{
  if (array_reserve((void **)&site->values, &site->value_capacity, site->value_count + 1,
                    sizeof *site->values) != 0)
    return -1;
  site->values[site->value_count++] = *value;
  return 0;
}

/* ---- Adding ------------------------------------------------------------------ */

enum format_status merge_check_kind(struct merge *merge, enum diff_mode mode, enum diff_by by,
                                    const char *source, struct format_error *err)
{
  if (!merge->has_kind) {
    if (!(merge->kind_source = strdup(source)))
      return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    merge->has_kind = 1;
    merge->mode = mode;
    merge->by = by;
    return FORMAT_OK;
  }
  if (mode != merge->mode)
    return format_error_set(err, FORMAT_BAD_INPUT,
                            "%s: a %s result, but %s is a %s result: one merge holds results of one mode",
                            source, diff_mode_name(mode), merge->kind_source, diff_mode_name(merge->mode));
  if (by != merge->by)
    return format_error_set(err, FORMAT_BAD_INPUT,
                            "%s: rows by %s, but %s has rows by %s: one merge holds rows of one kind",
                            source, diff_by_name(by), merge->kind_source, diff_by_name(merge->by));
  return FORMAT_OK;
}

/* Copies what a merge keeps of a capture's metadata: no per-boundary arrays. */
int merge_copy_capture(struct diff_capture *to, const struct diff_capture *from)
{
  *to = (struct diff_capture){.pid = from->pid, .sample_bytes = from->sample_bytes,
                              .boundary_count = from->boundary_count, .start_time = from->start_time,
                              .stop_time = from->stop_time, .events = from->events,
                              .truncated = from->truncated};
#define COPY(field) (from->field && !(to->field = strdup(from->field)))
  if (COPY(path) || COPY(command) || COPY(host) || COPY(luajit_version) || COPY(exe) || COPY(stop_reason))
    return -1;
#undef COPY
  for (size_t i = 0; i < from->label_count; i++)
    if (diff_capture_add_label(to, from->labels[i].key, strlen(from->labels[i].key),
                               from->labels[i].value, strlen(from->labels[i].value)) != 0)
      return -1;
  return 0;
}

struct merge_capture *merge_capture_new(struct merge *merge)
{
  if (array_reserve((void **)&merge->captures, &merge->capture_capacity, merge->capture_count + 1,
                    sizeof *merge->captures) != 0)
    return NULL;
  struct merge_capture *capture = &merge->captures[merge->capture_count++];
  memset(capture, 0, sizeof *capture);
  return capture;
}

enum format_status merge_add_result(struct merge *merge, const struct diff_result *result,
                                    const char *source, struct format_error *err)
{
  enum format_status status = merge_check_kind(merge, result->mode, result->options.by, source, err);
  if (status != FORMAT_OK)
    return status;
  size_t index = merge->capture_count;
  struct merge_capture *capture = merge_capture_new(merge);
  if (!capture)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  const struct diff_capture *info = &result->capture;
  if (merge_copy_capture(&capture->info, info) != 0 || !(capture->source = strdup(source)) ||
      !(capture->input = strdup(source)))
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  capture->has_times = info->boundary_times != NULL && info->boundary_count > 0;
  capture->end_time = info->stop_time;
  if (!capture->end_time && capture->has_times)
    capture->end_time = info->boundary_times[info->boundary_count - 1];
  capture->outcome = result->facts.outcome;
  capture->site_count = result->site_count;
  capture->flagged = result->facts.tally.flagged;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *s = &result->sites[i];
    struct merge_site *site = merge_site_get(merge, s->name, s->id, s->kind);
    struct merge_value value = {
      .capture = index,
      .verdict = s->verdict,
      .flagged = s->facts.flagged,
      .undecided = s->facts.undecided,
      /* A growth a result leaves null (not a number) counts as none, as
       * the merge's own reader reads it: merging merges must agree. */
      .growth_bytes_per_boundary = isfinite(s->growth_bytes_per_segment) ? s->growth_bytes_per_segment : 0,
      .growth_bytes_per_second =
          capture->has_times && isfinite(s->growth_bytes_per_second) ? s->growth_bytes_per_second : 0,
      .live_bytes = s->count && s->live_bytes ? s->live_bytes[s->count - 1] : 0,
    };
    if (!site)
      return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    /* One value per site and capture: a result that lists a name twice is
     * not one the engine wrote. */
    if (site->value_count && site->values[site->value_count - 1].capture == index)
      return format_error_set(err, FORMAT_BAD_INPUT, "%s: the site \"%s\" is listed twice", source,
                              s->name);
    if (merge_site_add_value(site, &value) != 0)
      return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  return FORMAT_OK;
}

/* ---- Finishing ---------------------------------------------------------------- */

static int merge_text_order(const char *a, const char *b)
{
  return strcmp(a ? a : "", b ? b : "");
}

/* The order of captures: what they are, not where they were read from, so
 * that every grouping of inputs gives the same merge. */
static int merge_capture_order(const struct merge_capture *a, const struct merge_capture *b)
{
  int c;
  if (a->info.start_time != b->info.start_time)
    return a->info.start_time < b->info.start_time ? -1 : 1;
  if ((c = merge_text_order(a->info.host, b->info.host)))
    return c;
  if (a->info.pid != b->info.pid)
    return a->info.pid < b->info.pid ? -1 : 1;
  if ((c = merge_text_order(a->info.path, b->info.path)))
    return c;
  return merge_text_order(a->source, b->source);
}

static int merge_capture_compare(const void *a, const void *b)
{
  return merge_capture_order(a, b);
}

/* One capture is one process's from one start: its path is only how a diff was given it
 * (caps/web-1, ./caps/web-1/, its absolute path, a copy), not part of what it is. */
static int merge_same_capture(const struct merge_capture *a, const struct merge_capture *b)
{
  return a->info.start_time == b->info.start_time && a->info.pid == b->info.pid &&
         !merge_text_order(a->info.host, b->info.host);
}

static int merge_double_compare(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int merge_value_compare(const void *a, const void *b)
{
  size_t x = ((const struct merge_value *)a)->capture, y = ((const struct merge_value *)b)->capture;
  return (x > y) - (x < y);
}

/* The median of count values (sorted in place): the middle one, or the
 * mean of the middle two. */
static double merge_median(double *values, size_t count)
{
  if (!count)
    return 0;
  qsort(values, count, sizeof *values, merge_double_compare);
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* Most captures growing first, then most undecided, then fastest (median),
 * then most held, then by name: a total order, so any grouping sorts alike. */
static int merge_site_compare(const void *a, const void *b)
{
  const struct merge_site *x = a, *y = b;
  if (x->growing != y->growing)
    return x->growing > y->growing ? -1 : 1;
  if (x->undecided != y->undecided)
    return x->undecided > y->undecided ? -1 : 1;
  if (x->growth_median != y->growth_median)
    return x->growth_median > y->growth_median ? -1 : 1;
  if (x->live_sum != y->live_sum)
    return x->live_sum > y->live_sum ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int merge_group_compare(const void *a, const void *b)
{
  const struct merge_label_group *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : strcmp(x->value, y->value);
}

/* The label groups of the captures, sorted, each with its count. 0 or -1. */
static int merge_make_groups(struct merge *merge)
{
  merge_groups_free(merge);
  size_t capacity = 0;
  for (size_t i = 0; i < merge->capture_count; i++) {
    const struct diff_capture *info = &merge->captures[i].info;
    for (size_t l = 0; l < info->label_count; l++) {
      struct merge_label_group key = {info->labels[l].key, info->labels[l].value, 0};
      struct merge_label_group *found = NULL;
      /* Sorted as it is built: a binary search, then an insertion. */
      size_t low = 0, high = merge->group_count;
      while (low < high) {
        size_t mid = (low + high) / 2;
        int c = merge_group_compare(&key, &merge->groups[mid]);
        if (!c) {
          found = &merge->groups[mid];
          break;
        }
        if (c < 0)
          high = mid;
        else
          low = mid + 1;
      }
      if (found) {
        found->captures++;
        continue;
      }
      if (array_reserve((void **)&merge->groups, &capacity, merge->group_count + 1,
                        sizeof *merge->groups) != 0)
        return -1;
      memmove(&merge->groups[low + 1], &merge->groups[low],
              (merge->group_count - low) * sizeof *merge->groups);
      struct merge_label_group *group = &merge->groups[low];
      group->key = strdup(key.key);
      group->value = strdup(key.value);
      group->captures = 1;
      merge->group_count++;
      if (!group->key || !group->value)
        return -1;
    }
  }
  return 0;
}

size_t merge_group_find(const struct merge *merge, const char *key, const char *value)
{
  struct merge_label_group probe = {(char *)key, (char *)value, 0};
  const struct merge_label_group *found = bsearch(&probe, merge->groups, merge->group_count,
                                                  sizeof *merge->groups, merge_group_compare);
  return found ? (size_t)(found - merge->groups) : SIZE_MAX;
}

/* A site's figures from its values. scratch has room for value_count doubles. */
static int merge_site_figures(struct merge *merge, struct merge_site *site, double *scratch)
{
  if (site->value_count > 1)
    qsort(site->values, site->value_count, sizeof *site->values, merge_value_compare);
  site->seen = site->value_count;
  site->growing = site->undecided = site->steady = 0;
  site->live_sum = site->live_max = 0;
  site->growth_max = -INFINITY;
  site->growth_per_second_max = -INFINITY;
  size_t per_second = 0;
  for (size_t i = 0; i < site->value_count; i++) {
    const struct merge_value *v = &site->values[i];
    if (v->flagged)
      site->growing++;
    else if (v->undecided)
      site->undecided++;
    else
      site->steady++;
    /* Saturating: a sum past 2^64-1 bytes is no heap, only a hostile file. */
    site->live_sum = v->live_bytes > UINT64_MAX - site->live_sum ? UINT64_MAX
                                                                 : site->live_sum + v->live_bytes;
    if (v->live_bytes > site->live_max)
      site->live_max = v->live_bytes;
    scratch[i] = v->growth_bytes_per_boundary;
    if (v->growth_bytes_per_boundary > site->growth_max)
      site->growth_max = v->growth_bytes_per_boundary;
  }
  site->growth_median = merge_median(scratch, site->value_count);
  for (size_t i = 0; i < site->value_count; i++) {
    const struct merge_value *v = &site->values[i];
    if (!merge->captures[v->capture].has_times)
      continue;
    scratch[per_second++] = v->growth_bytes_per_second;
    if (v->growth_bytes_per_second > site->growth_per_second_max)
      site->growth_per_second_max = v->growth_bytes_per_second;
  }
  site->per_second_count = per_second;
  site->growth_per_second_median = merge_median(scratch, per_second);
  if (!site->value_count)
    site->growth_max = 0;
  if (!per_second)
    site->growth_per_second_max = 0;
  free(site->label_growing);
  free(site->label_seen);
  site->label_growing = site->label_seen = NULL;
  if (merge->group_count) {
    site->label_growing = calloc(merge->group_count, sizeof *site->label_growing);
    site->label_seen = calloc(merge->group_count, sizeof *site->label_seen);
    if (!site->label_growing || !site->label_seen)
      return -1;
    for (size_t i = 0; i < site->value_count; i++) {
      const struct merge_value *v = &site->values[i];
      const struct diff_capture *info = &merge->captures[v->capture].info;
      for (size_t l = 0; l < info->label_count; l++) {
        size_t g = merge_group_find(merge, info->labels[l].key, info->labels[l].value);
        site->label_seen[g]++;
        site->label_growing[g] += v->flagged != 0;
      }
    }
  }
  return 0;
}

/* Captures in their own order; the values follow them through rank (old index to new). 0, or
 * -1 when out of memory. */
static int merge_sort_captures(struct merge *merge)
{
  size_t count = merge->capture_count;
  size_t *rank = malloc((count ? count : 1) * sizeof *rank);
  struct merge_capture_tag {
    struct merge_capture capture;   /* first: merge_capture_compare sees a merge_capture */
    size_t old;
  } *tagged = malloc((count ? count : 1) * sizeof *tagged);
  if (!rank || !tagged) {
    free(rank);
    free(tagged);
    return -1;
  }
  for (size_t i = 0; i < count; i++) {
    tagged[i].capture = merge->captures[i];
    tagged[i].old = i;
  }
  if (count > 1)
    qsort(tagged, count, sizeof *tagged, merge_capture_compare);
  for (size_t i = 0; i < count; i++) {
    merge->captures[i] = tagged[i].capture;
    rank[tagged[i].old] = i;
  }
  free(tagged);
  for (size_t s = 0; s < merge->site_count; s++)
    for (size_t i = 0; i < merge->sites[s].value_count; i++)
      merge->sites[s].values[i].capture = rank[merge->sites[s].values[i].capture];
  free(rank);
  return 0;
}

enum format_status merge_finish(struct merge *merge, size_t min_captures, struct format_error *err)
{
  merge->min_captures = min_captures ? min_captures : 1;
  size_t count = merge->capture_count;
  if (merge_sort_captures(merge) != 0)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  for (size_t i = 1; i < count; i++) {
    const struct merge_capture *a = &merge->captures[i - 1], *b = &merge->captures[i];
    if (!merge_same_capture(a, b) || b->info.start_time == 0)
      continue;
    /* Named by the inputs read, and by the results they list when those
     * are other files (a merge lists its captures' results). */
    char where[1024] = "";
    if (strcmp(a->input, a->source) || strcmp(b->input, b->source))
      snprintf(where, sizeof where, " (listed in %s and %s)", a->input, b->input);
    return format_error_set(err, FORMAT_BAD_INPUT,
                            "%s and %s%s are results of the same capture (%s, pid %ld, started at %.3f): "
                            "merge each capture once",
                            a->source, b->source, where, b->info.host ? b->info.host : "no host",
                            b->info.pid, b->info.start_time);
  }

  if (merge_make_groups(merge) != 0)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  double *scratch = malloc((count ? count : 1) * sizeof *scratch);
  if (!scratch)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  merge->flagged = merge->growing_sites = merge->undecided_sites = 0;
  for (size_t s = 0; s < merge->site_count; s++) {
    struct merge_site *site = &merge->sites[s];
    if (merge_site_figures(merge, site, scratch) != 0) {
      free(scratch);
      return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    }
    merge->flagged += site->growing >= merge->min_captures;
    merge->growing_sites += site->growing > 0;
    merge->undecided_sites += merge_site_undecided(merge, site);
  }
  free(scratch);
  /* qsort's pointer must not be null, even for no sites. */
  if (merge->site_count > 1)
    qsort(merge->sites, merge->site_count, sizeof *merge->sites, merge_site_compare);
  /* The index numbers sites by their place: made again for the new order. */
  index_table_clear(&merge->site_index);
  for (size_t s = 0; s < merge->site_count; s++)
    if (index_table_add(&merge->site_index, merge->sites[s].id) == INDEX_TABLE_NONE)
      return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");

  merge->captures_flagged = merge->captures_inconclusive = 0;
  for (size_t i = 0; i < count; i++) {
    merge->captures_flagged += merge->captures[i].outcome == DIFF_OUTCOME_FLAGGED;
    merge->captures_inconclusive += merge->captures[i].outcome == DIFF_OUTCOME_INCONCLUSIVE;
  }
  merge->outcome = merge->flagged ? DIFF_OUTCOME_FLAGGED
                   : merge->captures_inconclusive || merge->undecided_sites ? DIFF_OUTCOME_INCONCLUSIVE
                                                                            : DIFF_OUTCOME_PASS;
  return FORMAT_OK;
}

const char *merge_inconclusive_why(const struct merge *merge, char *out, size_t size)
{
  size_t used = 0;
  if (size)
    out[0] = '\0';
  if (merge->captures_inconclusive)
    used = (size_t)snprintf(out, size, "%zu capture%s cannot tell", merge->captures_inconclusive,
                            merge->captures_inconclusive == 1 ? "" : "s");
  if (merge->undecided_sites && used < size)
    snprintf(out + used, size - used, "%s%zu site%s undecided short of %zu captures",
             used ? ", and " : "", merge->undecided_sites, merge->undecided_sites == 1 ? "" : "s",
             merge->min_captures);
  return out;
}

size_t merge_sites_not_steady(const struct merge *merge)
{
  size_t n = 0;
  while (n < merge->site_count && (merge->sites[n].growing || merge->sites[n].undecided))
    n++;
  return n;
}

/* Whether group a reads before group b under a site: the larger share of
 * growing captures first, then the groups' own order. */
static int merge_group_before(const struct merge *merge, const struct merge_site *site, size_t a,
                              size_t b)
{
  double x = (double)site->label_growing[a] / (double)merge->groups[a].captures;
  double y = (double)site->label_growing[b] / (double)merge->groups[b].captures;
  return x != y ? x > y : a < b;
}

size_t merge_site_by_label(const struct merge *merge, const struct merge_site *site,
                           const char *key, char *buffer, size_t size)
{
  size_t used = 0, shown = 0;
  if (size)
    buffer[0] = '\0';
  if (!site->label_growing)
    return 0;
  /* The groups of key, in the order they read best (an insertion sort: a key
   * has few values, and the output is cut at size anyway). */
  size_t *order = malloc(merge->group_count * sizeof *order);
  if (!order)
    return 0;
  for (size_t g = 0; g < merge->group_count; g++) {
    if (strcmp(merge->groups[g].key, key))
      continue;
    size_t at = shown++;
    while (at > 0 && merge_group_before(merge, site, g, order[at - 1])) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = g;
  }
  for (size_t i = 0; i < shown; i++) {
    const struct merge_label_group *group = &merge->groups[order[i]];
    size_t growing = site->label_growing[order[i]];
    char *at = buffer + (used < size ? used : size);
    size_t room = used < size ? size - used : 0;
    int n = i == 0 ? snprintf(at, room, "growing on %zu of %zu captures labelled %s=%s", growing,
                              group->captures, group->key, group->value)
                   : snprintf(at, room, ", on %zu of %zu of %s=%s", growing, group->captures,
                              group->key, group->value);
    if (n > 0)
      used += (size_t)n;
  }
  free(order);
  return used;
}
