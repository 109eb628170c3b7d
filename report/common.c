/* report/common.c: number formats, sparklines and what several renderers say about a result
 * (report/source.c reads the Lua sources for excerpts). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/capture_index.h"
#include "report/common.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

void report_format_bytes(char *buffer, size_t size, double bytes, int sign)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char *prefix = "";
  if (!isfinite(bytes)) {
    snprintf(buffer, size, "%s", isnan(bytes) ? "?" : bytes > 0 ? "+inf" : "-inf");
    return;
  }
  if (bytes < 0) {
    prefix = "-";
    bytes = -bytes;
  } else if (sign && bytes > 0) {
    prefix = "+";
  }
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < COUNT_OF(units)) {
    bytes /= 1024;
    unit++;
  }
  if (unit == 0) {
    /* Fractions of a byte happen in slopes and rates: keep one decimal. */
    if (bytes == floor(bytes) || bytes >= 100)
      snprintf(buffer, size, "%s%.0f B", prefix, bytes);
    else
      snprintf(buffer, size, "%s%.1f B", prefix, bytes);
  } else {
    snprintf(buffer, size, "%s%.1f %s", prefix, bytes, units[unit]);
  }
}

void report_put_bytes(FILE *out, double bytes, int sign)
{
  char text[48];
  report_format_bytes(text, sizeof text, bytes, sign);
  fputs(text, out);
}

int report_format_time(char *buffer, size_t size, double when, const char *pattern)
{
  if (!(when > 0 && when < 253402300800.0))  /* 10000-01-01: NaN fails too */
    return -1;
  time_t t = (time_t)when;
  struct tm tm;
  char text[64];
  if (!gmtime_r(&t, &tm) || !strftime(text, sizeof text, pattern, &tm))
    return -1;
  snprintf(buffer, size, "%s", text);
  return 0;
}

void report_format_duration(char *buffer, size_t size, double seconds)
{
  if (!isfinite(seconds) || seconds < 0)
    snprintf(buffer, size, "?");
  else if (seconds < 10)
    snprintf(buffer, size, "%.3fs", seconds);
  else if (seconds < 60)
    snprintf(buffer, size, "%.1fs", seconds);
  else if (seconds < 3600)
    snprintf(buffer, size, "%dm %02ds", (int)(seconds / 60), (int)fmod(seconds, 60));
  else if (seconds < 86400 * 1000.0)
    snprintf(buffer, size, "%dh %02dm", (int)(seconds / 3600), (int)fmod(seconds / 60, 60));
  else
    snprintf(buffer, size, "%.0fd", seconds / 86400);
}

void report_format_count(char *buffer, size_t size, uint64_t count)
{
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%" PRIu64, count);
  char grouped[32];
  size_t out = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      grouped[out++] = ',';
    grouped[out++] = digits[i];
  }
  grouped[out] = '\0';
  snprintf(buffer, size, "%s", grouped);
}

void report_format_p_value(char *buffer, size_t size, double p_value)
{
  if (!isfinite(p_value))
    snprintf(buffer, size, "?");
  else if (p_value >= 0.001 || p_value == 0)
    snprintf(buffer, size, "%.3f", p_value);
  else
    snprintf(buffer, size, "%.1e", p_value);
}

size_t report_sparkline(char *buffer, size_t size, const uint64_t *values, size_t count,
                        size_t width)
{
  static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
  size_t cells = count < width ? count : width;
  double levels[256];
  if (cells > COUNT_OF(levels))
    cells = COUNT_OF(levels);
  double low = 0, high = 0;
  for (size_t c = 0; c < cells; c++) {
    size_t from = c * count / cells, to = (c + 1) * count / cells;
    double sum = 0;
    for (size_t i = from; i < to; i++)
      sum += (double)values[i];
    levels[c] = sum / (double)(to - from);
    if (c == 0 || levels[c] < low)
      low = levels[c];
    if (c == 0 || levels[c] > high)
      high = levels[c];
  }
  size_t used = 0;
  if (size)
    buffer[0] = '\0';
  for (size_t c = 0; c < cells; c++) {
    int level = high > low ? (int)((levels[c] - low) * 7.0 / (high - low) + 0.5) : 0;
    if (used + 4 >= size)
      return c;
    memcpy(buffer + used, blocks[level], 3);
    used += 3;
    buffer[used] = '\0';
  }
  return cells;
}

double report_capture_span(const struct diff_capture *capture)
{
  if (!capture->boundary_times || capture->boundary_count == 0)
    return 0;
  double last = capture->boundary_times[capture->boundary_count - 1];
  double first = capture->start_time > 0 ? capture->start_time : capture->boundary_times[0];
  return last > first ? last - first : 0;
}

uint64_t report_last_live(const struct diff_site *site)
{
  return site->count && site->live_bytes ? site->live_bytes[site->count - 1] : 0;
}

uint64_t report_base_last_live(const struct diff_site *site)
{
  return site->base_count && site->base_live_bytes ? site->base_live_bytes[site->base_count - 1]
                                                   : 0;
}

uint64_t report_stack_at(const uint64_t *series, size_t count, size_t at)
{
  return series && at >= 1 && at <= count ? series[at - 1] : 0;
}

uint64_t report_live_at(const struct diff_site *site, size_t boundary)
{
  return report_stack_at(site->live_bytes, site->count, boundary);
}

void report_row_boundaries(const struct diff_result *result, const struct diff_site *site,
                           size_t *from, size_t *to)
{
  if (result->mode == DIFF_MODE_RANGE && result->options.range_from &&
      result->options.range_to) {
    *from = result->options.range_from;
    *to = result->options.range_to;
  } else {
    size_t warmup = result->options.warmup;
    *from = warmup < site->count ? warmup + 1 : 1;
    *to = site->count;
  }
}

/* " after a warm-up of 2" when there is one. */
static void report_warmup_words(const struct diff_result *r, char *buffer, size_t size)
{
  if (r->options.warmup)
    snprintf(buffer, size, " after a warm-up of %zu", r->options.warmup);
  else if (size)
    buffer[0] = '\0';
}

static const char *report_plural(size_t n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}

/* Why the rising undecided sites have no verdict (facts->rose_cause), in words. */
static void report_undecided_reason(const struct diff_result *r, char *buffer, size_t size)
{
  const struct diff_facts *facts = &r->facts;
  size_t undecided = facts->rose_undecided, judged = facts->judged, needed = facts->needed;
  size_t base_judged = facts->base_judged;
  char floor[48], p[32], after[64];
  report_format_bytes(floor, sizeof floor, r->options.min_growth_bytes, 0);
  snprintf(p, sizeof p, "%g", r->options.max_p_value);
  report_warmup_words(r, after, sizeof after);
  const char *sites = report_plural(undecided, "site", "sites");
  switch (facts->rose_cause) {
  case DIFF_UNDECIDED_NO_P_VALUE:  /* a saved result without its p-value */
    snprintf(buffer, size, "%zu %s rose by \u2265 %s but %zu %s%s cannot show a trend",
             undecided, sites, floor, judged, report_plural(judged, "boundary", "boundaries"),
             after);
    break;
  case DIFF_UNDECIDED_SHORT_CAPTURE:
    snprintf(buffer, size,
             "%zu %s rose by \u2265 %s but %zu %s%s cannot show a trend at p \u2264 %s; %zu "
             "are needed",
             undecided, sites, floor, judged, report_plural(judged, "boundary", "boundaries"),
             after, p, needed);
    break;
  case DIFF_UNDECIDED_SHORT_BASE:
    snprintf(buffer, size,
             "%zu %s %s in the candidate, but the base's %zu %s%s cannot show whether %s there "
             "too; %zu are needed",
             undecided, sites, report_plural(undecided, "grows", "grow"), base_judged,
             report_plural(base_judged, "boundary", "boundaries"), after,
             report_plural(undecided, "it grew", "they grew"), needed);
    break;
  case DIFF_UNDECIDED_BASE_NO_TREND:
    snprintf(buffer, size,
             "%zu %s %s in the candidate, but over its %zu boundaries%s the base shows no "
             "significant trend at p \u2264 %s for %s, so whether %s new cannot be told",
             undecided, sites, report_plural(undecided, "grows", "grow"), base_judged, after, p,
             report_plural(undecided, "it", "them"),
             report_plural(undecided, "it is", "they are"));
    break;
  case DIFF_UNDECIDED_RELEASED:
    snprintf(buffer, size,
             "%zu %s rose by \u2265 %s with a significant trend (p \u2264 %s), then %s let go in "
             "the last quarter of the run%s: whether %s on had the program run on cannot be told",
             undecided, sites, floor, p, report_plural(undecided, "was", "were"), after,
             report_plural(undecided, "it would have grown", "they would have grown"));
    break;
  case DIFF_UNDECIDED_FORCED_GROWS:
    snprintf(buffer, size,
             "%zu %s %s at the full cycles the collector forced, but not at the program's own, "
             "where %s newest blocks are young and left out (a string kept and appended to, a new "
             "copy each cycle): ljleak diff --forced-only judges the forced ones alone",
             undecided, sites, report_plural(undecided, "grows", "grow"),
             report_plural(undecided, "its", "their"));
    break;
  case DIFF_UNDECIDED_YOUNG_GROWS:
    snprintf(buffer, size,
             "%zu %s %s with the blocks born during each boundary's cycle counted, but not "
             "without them: %s newest %s young at every boundary and left out (a string kept "
             "and appended to, a new copy each cycle)",
             undecided, sites, report_plural(undecided, "grows", "grow"),
             report_plural(undecided, "its", "their"), report_plural(undecided, "copy is", "copies are"));
    break;
  case DIFF_UNDECIDED_HELD_BRIEFLY:
    snprintf(buffer, size,
             "%zu %s rose by \u2265 %s with a significant trend (p \u2264 %s), then held %s level "
             "to the end%s, for fewer boundaries than %s rose for: a cache that filled, or a leak "
             "that paused; a longer run tells",
             undecided, sites, floor, p, report_plural(undecided, "its", "their"), after,
             report_plural(undecided, "it", "they"));
    break;
  default:
    snprintf(buffer, size,
             "%zu %s rose by \u2265 %s, but over %zu boundaries%s %s no significant trend at "
             "p \u2264 %s%s",
             undecided, sites, floor, judged, after,
             report_plural(undecided, "it shows", "they show"), p,
             r->mode == DIFF_MODE_BASE ? " (in the candidate, or in the base)" : "");
  }
}

void report_outcome_reason(const struct diff_result *r, char *buffer, size_t size)
{
  const struct diff_facts *facts = &r->facts;
  if (!size)
    return;
  buffer[0] = '\0';
  size_t boundaries = facts->boundaries, judged = facts->judged;
  switch (facts->inconclusive) {
  case DIFF_INCONCLUSIVE_NOT:
    return;
  case DIFF_INCONCLUSIVE_NO_BOUNDARY:
    snprintf(buffer, size, "the capture has no boundary (no full GC cycle ended while it ran), "
                           "so nothing was measured");
    return;
  case DIFF_INCONCLUSIVE_TOO_FEW_BOUNDARIES: {
    int written = snprintf(buffer, size, "the capture has %zu %s%s%s; a change needs 2 to be "
                                         "measured",
                           boundaries, report_plural(boundaries, "boundary", "boundaries"),
                           r->options.warmup ? ", all of them warm-up" : "",
                           judged && r->options.warmup ? " but one" : "");
    if (facts->needed != SIZE_MAX && written > 0 && (size_t)written < size)
      snprintf(buffer + written, size - (size_t)written, ", and a trend %zu to reach p \u2264 %g",
               facts->needed, r->options.max_p_value);
    return;
  }
  case DIFF_INCONCLUSIVE_SAMPLING_FLOOR: {
    char interval[48], floor[64], min[48];
    report_format_bytes(interval, sizeof interval, (double)r->capture.sample_bytes, 0);
    report_sampling_floor(r, floor, sizeof floor);
    report_format_bytes(min, sizeof min, (double)r->options.min_growth_bytes, 0);
    /* base mode: a site may grow as in the base, which is no finding */
    const char *nothing = r->mode == DIFF_MODE_BASE ? "nothing new or worse" : "nothing grows";
    if (r->facts.sample_floor == UINT64_MAX)
      snprintf(buffer, size, "%s, but a capture sampled every %s could not have "
                             "shown any growth over its %zu boundaries",
               nothing, interval, judged);
    else
      snprintf(buffer, size, "%s, but a capture sampled every %s could not have seen "
                             "a growth below %s over its %zu boundaries (--min-growth is %s)",
               nothing, interval, floor, judged, min);
    return;
  }
  case DIFF_INCONCLUSIVE_NO_VERDICT:
    break;
  }
  size_t used = 0;
  if (facts->rose_undecided) {
    report_undecided_reason(r, buffer, size);
    used = strlen(buffer);
  }
  if (facts->insufficient && used < size)
    snprintf(buffer + used, size - used, "%s%zu %s too few boundaries to be measured",
             used ? "; " : "", facts->insufficient,
             report_plural(facts->insufficient, "site has", "sites have"));
  /* A sampled capture whose floor is above --min-growth could not have
   * passed either: say so beside the sites it could not decide. */
  used = strlen(buffer);
  if (r->capture.sample_bytes && facts->sample_floor != UINT64_MAX &&
      facts->sample_floor > r->options.min_growth_bytes && used < size) {
    char interval[48], floor[64];
    report_format_bytes(interval, sizeof interval, (double)r->capture.sample_bytes, 0);
    report_sampling_floor(r, floor, sizeof floor);
    snprintf(buffer + used, size - used, "%sa capture sampled every %s could not have seen a "
             "growth below %s", used ? "; and " : "", interval, floor);
  }
}

void report_sampling_floor(const struct diff_result *r, char *buffer, size_t size)
{
  if (r->facts.sample_floor == UINT64_MAX)
    snprintf(buffer, size, "none (too few boundaries for a trend)");
  else
    report_format_bytes(buffer, size, (double)r->facts.sample_floor, 0);
}

void report_evidence(const struct diff_result *r, char *buffer, size_t size)
{
  const struct diff_facts *facts = &r->facts;
  char coverage[160] = "", early[120] = "", sampled[256] = "";
  if (facts->coverage >= 0)
    snprintf(coverage, sizeof coverage,
             "boundaries cover %.0f%% of the %s work (the longest stretch without one: %.0f%%)",
             100 * facts->coverage, report_stop_warning(&r->capture) ? "captured" : "run's",
             100 * facts->longest_stretch);
  if (facts->ends_early)
    snprintf(early, sizeof early,
             "; the evidence ends early: what the last %.0f%% of the run did is not judged",
             100 * (1 - facts->coverage));
  if (facts->sample_floor) {
    char interval[48], floor[64];
    report_format_bytes(interval, sizeof interval, (double)r->capture.sample_bytes, 0);
    report_sampling_floor(r, floor, sizeof floor);
    snprintf(sampled, sizeof sampled, "%ssampled every %s: the smallest growth it could see: %s",
             coverage[0] ? "; " : "", interval, floor);
  }
  snprintf(buffer, size, "%s%s%s", coverage, early, sampled);
}

const char *report_stop_warning(const struct diff_capture *c)
{
  if (!c->stop_reason)
    return NULL;
  if (!strcmp(c->stop_reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_WRITE_ERROR)))
    return "the capture stopped early: the collector could not write (stop reason write-error), and "
           "the process ran on unrecorded; the verdicts judge only what came before the stop";
  if (!strcmp(c->stop_reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_MAX_TOTAL_BYTES)))  /* a safety limit, not the end the user chose */
    return "the capture stopped early at its --max-total-bytes limit, and the process ran on "
           "unrecorded; the verdicts judge only what came before the stop";
  /* Ends the user chose, but the process ran on all the same: the coverage is of what was
   * captured, not of the run (a --duration of a millisecond said 100% of the run's work). */
  if (!strcmp(c->stop_reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_DURATION)))
    return "the capture ended at its --duration, and the process ran on unrecorded; the verdicts "
           "judge only what came before the end";
  if (!strcmp(c->stop_reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_STOP)))
    return "the capture was stopped (ljleak control stop, or attach's end), and the process ran "
           "on unrecorded; the verdicts judge only what came before the stop";
  return NULL;
}

const char *report_outcome_advice(const struct diff_result *r)
{
  switch (r->facts.remedy) {
  case DIFF_REMEDY_LONGER_BASE:
    return "capture the base as long as the candidate: more boundaries with `ljleak run --every "
           "BYTES` (a boundary every BYTES allocated), or collector.boundary() after each batch "
           "in a test harness";
  case DIFF_REMEDY_FINER_SAMPLING:
    return "a smaller `ljleak run --sample` interval (or none) or a longer run lowers what the "
           "sampling cannot see; a larger --min-growth accepts it";
  case DIFF_REMEDY_FORCED_ONLY:
    return "judge the boundaries whose full cycles the collector forced alone: `ljleak diff "
           "--forced-only CAPTURE`; or capture with `ljleak run --force-gc` (a full cycle, the "
           "program paused, at every boundary)";
  case DIFF_REMEDY_EVERY:
    return "capture with `ljleak run --every BYTES`: a full cycle the collector forces, and a "
           "boundary with no young blocks, every BYTES allocated, where every block live is "
           "counted (--force-gc forces cycles only at the segments' ends)";
  case DIFF_REMEDY_BEFORE_RELEASE:
    return "take a boundary before the program lets go of what it holds (collector.boundary() "
           "in a harness, before its cleanup), or run longer, so that what it held is judged "
           "while it still held it";
  case DIFF_REMEDY_MORE_WORK:
    return "run the program on for more of its work (more requests, a longer test): what held "
           "as long as it rose is steady, what grows again is a leak (more boundaries over the "
           "same work, `--every`, do not tell)";
  case DIFF_REMEDY_RUN_LONGER:
    return "run longer for more boundaries: `ljleak run --every BYTES` makes a boundary every "
           "BYTES allocated, and a test harness can call collector.boundary() after each batch";
  default:
    return "";
  }
}

void report_allowance_rule(const struct diff_allowance *a, char *buffer, size_t size)
{
  if (!a) {
    snprintf(buffer, size, "an allow-list rule");
    return;
  }
  snprintf(buffer, size, "%s line %zu: %s", a->file ? a->file : "allow file", a->line,
           a->pattern ? a->pattern : "?");
}

void report_allowance_growth(const struct diff_site *site, char *buffer, size_t size)
{
  const struct diff_allowance *a = site->allowance;
  if (!a) {
    snprintf(buffer, size, "allowed");
    return;
  }
  char growth[48];
  report_format_bytes(growth, sizeof growth, a->growth, 1);
  snprintf(buffer, size, "%s per %s, %s %s", growth,
           a->per_megabyte ? "MB of work" : "boundary",
           a->growth <= a->budget_bytes ? "within" : "past",
           a->budget ? a->budget : "?");
}

void report_holder_summary(const struct diff_holder *holder, char *buffer, size_t size)
{
  char bytes[48], retained[48];
  report_format_bytes(bytes, sizeof bytes, (double)holder->bytes, 0);
  report_format_bytes(retained, sizeof retained, (double)holder->retained_bytes, 0);
  char objects[32];
  report_format_count(objects, sizeof objects, holder->objects);
  snprintf(buffer, size, "%s object%s, %s; the %s keeps %s alive", objects,
           holder->objects == 1 ? "" : "s", bytes, holder->holder_type ? holder->holder_type : "object",
           retained);
}

void report_container_growth(const struct diff_container *container, char *buffer, size_t size)
{
  char from[32], to[32], bytes_from[48], bytes_to[48];
  report_format_count(from, sizeof from, container->entries[0]);
  report_format_count(to, sizeof to, container->entries[1]);
  report_format_bytes(bytes_from, sizeof bytes_from, (double)container->bytes[0], 0);
  report_format_bytes(bytes_to, sizeof bytes_to, (double)container->bytes[1], 0);
  snprintf(buffer, size, "%s -> %s entries (%s -> %s)", from, to, bytes_from, bytes_to);
}

/* "3,000 tables (281.2 KiB)"; one object in the singular ("1 table"). */
static int objects_words(char *buffer, size_t size, const char *words, uint64_t count, uint64_t bytes)
{
  char objects[32], amount[48];
  report_format_count(objects, sizeof objects, count);
  report_format_bytes(amount, sizeof amount, (double)bytes, 0);
  if (count == 1 && strcmp(words, "userdata") && strcmp(words, "cdata"))
    return snprintf(buffer, size, "1 %.*s (%s)", (int)strlen(words) - 1, words, amount);
  return snprintf(buffer, size, "%s %s (%s)", objects, words, amount);
}

/* A kind's objects, then those the site made only parts of, by what the parts are: "80,000
 * tables (4.9 MiB), the slots of 80,000 tables (7.3 MiB)" (a line that makes a table per
 * record and grows each record's hash part). */
static void kind_words(char *buffer, size_t size, size_t kind, const struct diff_kind_count *count)
{
  const char *words = diff_kind_words(kind), *name = diff_kind_name(kind);
  uint64_t parts = count->parts < count->objects ? count->parts : count->objects;
  uint64_t part_bytes = count->part_bytes < count->bytes ? count->part_bytes : count->bytes;
  int used = 0;
  buffer[0] = '\0';
  if (parts < count->objects || !parts)
    used = objects_words(buffer, size, words, count->objects - parts, count->bytes - part_bytes);
  if (!parts || used < 0 || (size_t)used >= size)
    return;
  const char *of = !strcmp(name, "table") ? "the slots of " : !strcmp(name, "thread")
                   ? (parts == 1 ? "the stack of " : "the stacks of ") : "parts of ";
  int more = snprintf(buffer + used, size - (size_t)used, "%s%s", used ? ", " : "", of);
  if (more > 0 && (size_t)(used + more) < size)
    objects_words(buffer + used + more, size - (size_t)(used + more), words, parts, part_bytes);
}

void report_kinds_words(const struct diff_kind_count *kinds, char *buffer, size_t size)
{
  size_t order[DIFF_KIND_COUNT];
  size_t n = diff_kinds_order(kinds, order), used = 0;
  buffer[0] = '\0';
  for (size_t i = 0; i < n && used < size; i++) {
    char one[96];
    kind_words(one, sizeof one, order[i], &kinds[order[i]]);
    int w = snprintf(buffer + used, size - used, "%s%s", i ? ", " : "", one);
    used += w > 0 ? (size_t)w : 0;
  }
}

void report_suspect_site_words(const struct diff_suspect *suspect, const struct diff_site *site, int through_keys,
                               char *buffer, size_t size)
{
  char kinds[400], retained[48], share[48], keys[300] = "";
  report_kinds_words(site->kinds, kinds, sizeof kinds);
  report_format_bytes(retained, sizeof retained, (double)suspect->retained_bytes, 0);
  report_format_bytes(share, sizeof share, site->container ? (double)site->container->bytes : 0, 0);
  const char *slots = site->container ? diff_key_slots_name(site->container->key_slots) : NULL;
  if (through_keys && slots)
    snprintf(keys, sizeof keys, "; that %s (%s) keeps its entries while their %s live, and this suspect "
             "holds those", site->container->type, site->container->path, slots);
  else if (through_keys && site->container)
    snprintf(keys, sizeof keys, "; as values of the weak-keyed %s %s, they live as long as their keys, "
             "which this suspect holds", site->container->type, site->container->path);
  snprintf(buffer, size, "%sholds %s%s; the suspect retains %s, of which this site %s",
           site->verdict == DIFF_VERDICT_UNDECIDED ? "undecided on its own; " : "",
           kinds[0] ? kinds : "objects of unknown kinds", keys, retained, share);
}

const struct report_values_line report_values_lines[REPORT_VALUES_LINES] = {
  {DIFF_VALUE_STRING, "values (--values): "}, {DIFF_VALUE_KEY, "keys (--values): "}};

const char report_values_not_captured[] =
  "values: not captured; run with --values (ljleak run --values, or the values option) to see them";

void report_value_words(const struct diff_value *value, char *buffer, size_t size)
{
  if (!value->quoted) {
    snprintf(buffer, size, "%s", value->text);
    return;
  }
  if (value->shown >= value->length) {
    snprintf(buffer, size, "\"%s\"", value->text);
    return;
  }
  char more[48];
  report_format_count(more, sizeof more, value->length - value->shown);
  snprintf(buffer, size, "\"%s...\" (+%s byte%s)", value->text, more,
           value->length - value->shown == 1 ? "" : "s");
}

void report_suspect_values_words(const struct diff_result *result, const struct diff_suspect *suspect,
                                 enum diff_value_kind kind, char *buffer, size_t size)
{
  struct diff_suspect_value values[16];
  size_t count = diff_suspect_values(result, suspect, kind, values, 16);
  size_t used = 0;
  buffer[0] = '\0';
  for (size_t i = 0; i < count && used + 1 < size; i++) {
    char words[1024];
    report_value_words(values[i].value, words, sizeof words);
    int n = snprintf(buffer + used, size - used, "%s%s", i ? ", " : "", words);
    if (n < 0)
      break;
    used += (size_t)n < size - used ? (size_t)n : size - used - 1;
  }
}

void report_suspect_values_each(const struct diff_result *result, const struct diff_suspect *suspect, FILE *out,
                                void (*put)(FILE *out, const char *title, size_t k, const char *words))
{
  for (size_t i = 0; result->values == DIFF_VALUES_SHOWN && i < REPORT_VALUES_LINES; i++) {
    struct diff_suspect_value values[16];
    size_t count = diff_suspect_values(result, suspect, report_values_lines[i].kind, values, 16);
    for (size_t k = 0; k < count; k++) {
      char words[1024];
      report_value_words(values[k].value, words, sizeof words);
      put(out, report_values_lines[i].title, k, words);
    }
    if (count)
      put(out, report_values_lines[i].title, count, NULL);
  }
}

void report_suspect_sites_each(const struct diff_result *result, const struct diff_suspect *suspect,
                               FILE *out, const void *context,
                               void (*put)(FILE *out, const void *context,
                                           const struct report_suspect_site *line))
{
  for (size_t j = 0; j < suspect->site_count; j++) {
    struct report_suspect_site line = {j, &result->sites[suspect->sites[j]], NULL, "", NULL};
    char words[1024];
    if (suspect->cause[j] != SIZE_MAX) {
      line.vm_work_for = result->sites[suspect->cause[j]].name;
    } else {
      report_suspect_site_words(suspect, line.site, diff_suspect_through_keys(result, suspect, j), words,
                                sizeof words);
      line.words = words;
      if (!report_site_stacks(result, line.site, &line.stack, 1))
        line.stack = NULL;
    }
    put(out, context, &line);
  }
}

void report_put_container(FILE *out, const struct diff_container *container,
                          const struct report_container_marks *marks)
{
  char growth[160];
  report_container_growth(container, growth, sizeof growth);
  fputs(marks->open, out);
  marks->put(out, container->type ? container->type : "object");
  fputs(marks->made_at, out);
  marks->put(out, container->site ? container->site : "an unknown site");
  fputs(marks->held_by, out);
  marks->put(out, container->path);
  fputs(marks->growth, out);
  marks->put(out, growth);   /* digits and units: no escaper changes them */
  fputs(marks->close, out);
}

size_t report_alone_each(const struct diff_result *result, FILE *out, const void *context,
                         void (*put)(FILE *out, const void *context, size_t k, const struct diff_site *site,
                                     const char *kinds))
{
  size_t shown = 0;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (!site->facts.flagged || diff_suspects_of(result, i))
      continue;
    char kinds[400];
    report_kinds_words(site->kinds, kinds, sizeof kinds);
    put(out, context, shown++, site, kinds);
  }
  return shown;
}

void report_suspect_summary(const struct diff_result *result, const struct diff_suspect *suspect,
                            char *buffer, size_t size)
{
  char rate[48], rate_s[48], retained[48], kinds[400], entries[200] = "";
  report_format_bytes(rate, sizeof rate, suspect->growth_bytes_per_segment, 1);
  report_format_bytes(rate_s, sizeof rate_s, suspect->growth_bytes_per_second, 1);
  report_format_bytes(retained, sizeof retained, (double)suspect->retained_bytes, 0);
  report_kinds_words(suspect->kinds, kinds, sizeof kinds);
  if (suspect->container) {
    const struct diff_container *c = &result->containers[suspect->container - 1];
    char growth[160];
    report_container_growth(c, growth, sizeof growth);
    snprintf(entries, sizeof entries, "; grew %s between boundaries %" PRIu64 " and %" PRIu64, growth,
             c->boundaries[0], c->boundaries[1]);
  }
  char per_second[64] = "";
  if (suspect->growth_bytes_per_second != 0)
    snprintf(per_second, sizeof per_second, " (%s/s)", rate_s);
  snprintf(buffer, size, "%s per boundary%s; retains %s (snapshot at boundary %" PRIu64 "); holds %s%s",
           rate, per_second, retained, suspect->boundary, kinds[0] ? kinds : "objects of unknown kinds",
           entries);
}

void report_findings_words(const struct diff_result *result, char *buffer, size_t size)
{
  size_t suspects = result->suspect_count, alone = diff_suspects_alone(result);
  char others[64] = "";
  if (alone)
    snprintf(others, sizeof others, " and %zu other finding%s", alone, alone == 1 ? "" : "s");
  snprintf(buffer, size, "%zu leak suspect%s%s", suspects, suspects == 1 ? "" : "s", others);
}

const char report_retained_meaning[] =
    "retained: what would be freed if the container were let go (it and every object only it "
    "keeps alive)";

const char *report_not_grouped(const struct diff_result *result)
{
  return result->capture.snapshots
             ? "sites not grouped into leak suspects: the result names no container (the heap "
               "snapshot held none of their objects, or the result predates suspects)"
             : "no heap snapshot: sites not grouped into leak suspects";
}

const char report_no_snapshot_hint[] =
    "no heap snapshot in the capture (take them with `ljleak run --snapshots N` or "
    "collector.snapshot())";
