/* diff/allow.c: the allow-list: site patterns that may grow within a budget, each with its reason. */
#include "diff/allow.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/units.h"

#define ALLOW_MEGABYTE 1048576.0  /* "MB" in a budget is 2^20 bytes, as M in sizes */

void diff_allow_free(struct diff_allow *allow)
{
  if (!allow)
    return;
  for (size_t i = 0; i < allow->count; i++) {
    free(allow->rules[i].pattern);
    free(allow->rules[i].budget);
    free(allow->rules[i].comment);
  }
  free(allow->rules);
  free(allow->path);
  free(allow);
}

static char *allow_copy(const char *text, size_t length)
{
  char *copy = malloc(length + 1);
  if (copy) {
    memcpy(copy, text, length);
    copy[length] = '\0';
  }
  return copy;
}

/* A byte count as ljleak's sizes read it (4096, 4k, 8M, 1G, an optional B),
 * then "/boundary" or "/MB". */
static int allow_parse_budget(const char *text, double *bytes, int *per_megabyte)
{
  uint64_t value;
  size_t length = units_parse_size(text, &value);
  if (!length)
    return -1;
  if (!strcmp(text + length, "/boundary"))
    *per_megabyte = 0;
  else if (!strcmp(text + length, "/MB"))
    *per_megabyte = 1;
  else
    return -1;
  *bytes = (double)value;
  return 0;
}

static int allow_blank(char c)
{
  return c == ' ' || c == '\t';
}

/* One rule from a line (no newline): PATTERN BUDGET # WHY. The comment
 * starts at the first '#' that begins a word, so a pattern may hold '#'
 * inside a word, or "\#" (fnmatch reads it as '#'). */
static enum format_status allow_parse_line(const char *name, size_t number, const char *line,
                                           size_t length, struct diff_allow_rule *rule,
                                           struct format_error *err)
{
  size_t hash = length;
  for (size_t i = 0; i < length; i++)
    if (line[i] == '#' && (i == 0 || allow_blank(line[i - 1]))) {
      hash = i;
      break;
    }
  size_t start = 0, end = hash;
  while (start < end && allow_blank(line[start]))
    start++;
  while (end > start && allow_blank(line[end - 1]))
    end--;
  size_t budget_start = end;
  while (budget_start > start && !allow_blank(line[budget_start - 1]))
    budget_start--;
  size_t pattern_end = budget_start;
  while (pattern_end > start && allow_blank(line[pattern_end - 1]))
    pattern_end--;
  if (pattern_end == start)
    return format_error_set(err, FORMAT_USAGE,
                            "%s: line %zu: expected PATTERN BUDGET # WHY (for example "
                            "'@vendor/*.lua:* 4k/boundary # vendored parser cache')",
                            name, number);
  size_t comment_start = hash < length ? hash + 1 : length, comment_end = length;
  while (comment_start < comment_end && allow_blank(line[comment_start]))
    comment_start++;
  while (comment_end > comment_start && allow_blank(line[comment_end - 1]))
    comment_end--;
  if (comment_start == comment_end)
    return format_error_set(err, FORMAT_USAGE,
                            "%s: line %zu: the rule needs a comment saying why the growth is allowed "
                            "('# why')",
                            name, number);
  rule->line = number;
  rule->pattern = allow_copy(line + start, pattern_end - start);
  rule->budget = allow_copy(line + budget_start, end - budget_start);
  rule->comment = allow_copy(line + comment_start, comment_end - comment_start);
  if (!rule->pattern || !rule->budget || !rule->comment)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  if (allow_parse_budget(rule->budget, &rule->budget_bytes, &rule->per_megabyte) < 0)
    return format_error_set(err, FORMAT_USAGE,
                            "%s: line %zu: bad budget '%s' (bytes per boundary or per MB of work, "
                            "such as 4k/boundary or 1k/MB)",
                            name, number, rule->budget);
  return FORMAT_OK;
}

enum format_status diff_allow_parse(const char *name, const char *text, size_t length,
                                    struct diff_allow **out, struct format_error *err)
{
  *out = NULL;
  format_error_clear(err);
  struct diff_allow *allow = calloc(1, sizeof *allow);
  if (!allow || !(allow->path = allow_copy(name, strlen(name)))) {
    diff_allow_free(allow);
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  size_t capacity = 0, number = 0;
  enum format_status status = FORMAT_OK;
  for (size_t at = 0; at < length && status == FORMAT_OK;) {
    const char *newline = memchr(text + at, '\n', length - at);
    size_t line_length = newline ? (size_t)(newline - (text + at)) : length - at;
    const char *line = text + at;
    at += line_length + (newline != NULL);
    number++;
    if (line_length && line[line_length - 1] == '\r')
      line_length--;
    if (memchr(line, '\0', line_length)) {
      status = format_error_set(err, FORMAT_USAGE, "%s: line %zu: a NUL byte (not a text file?)",
                                name, number);
      break;
    }
    size_t first = 0;
    while (first < line_length && allow_blank(line[first]))
      first++;
    if (first == line_length || line[first] == '#')
      continue;  /* a blank line or a comment line */
    if (array_reserve((void **)&allow->rules, &capacity, allow->count + 1, sizeof *allow->rules) != 0) {
      status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
      break;
    }
    struct diff_allow_rule *rule = &allow->rules[allow->count++];
    memset(rule, 0, sizeof *rule);
    status = allow_parse_line(name, number, line, line_length, rule, err);
  }
  if (status != FORMAT_OK) {
    diff_allow_free(allow);
    return status;
  }
  *out = allow;
  return FORMAT_OK;
}

enum format_status diff_allow_load(const char *path, struct diff_allow **allow,
                                   struct format_error *err)
{
  *allow = NULL;
  FILE *in = fopen(path, "rb");
  if (!in)
    return format_error_set(err, FORMAT_USAGE, "%s: %s", path, strerror(errno));
  char *text = NULL;
  size_t length = 0, capacity = 0;
  int failed = 0;
  for (;;) {
    /* Reads of 4 KiB at least. */
    if (length == capacity && array_reserve((void **)&text, &capacity, length + 4096, 1) != 0) {
      failed = ENOMEM;
      break;
    }
    size_t n = fread(text + length, 1, capacity - length, in);
    length += n;
    if (n == 0) {
      if (ferror(in))
        failed = errno ? errno : EIO;
      break;
    }
  }
  fclose(in);
  enum format_status status;
  if (failed == ENOMEM)
    status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  else if (failed)
    status = format_error_set(err, FORMAT_USAGE, "%s: %s", path, strerror(failed));
  else
    status = diff_allow_parse(path, text ? text : "", length, allow, err);
  free(text);
  return status;
}

const struct diff_allow_rule *diff_allow_match(const struct diff_allow *allow, const char *name)
{
  for (size_t i = 0; allow && name && i < allow->count; i++)
    if (fnmatch(allow->rules[i].pattern, name, 0) == 0)
      return &allow->rules[i];
  return NULL;
}

static struct diff_allowance *allow_allowance(const struct diff_allow *allow,
                                              const struct diff_allow_rule *rule)
{
  struct diff_allowance *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  a->pattern = allow_copy(rule->pattern, strlen(rule->pattern));
  a->budget = allow_copy(rule->budget, strlen(rule->budget));
  a->comment = allow_copy(rule->comment, strlen(rule->comment));
  a->file = allow_copy(allow->path, strlen(allow->path));
  a->budget_bytes = rule->budget_bytes;
  a->per_megabyte = rule->per_megabyte;
  a->line = rule->line;
  if (!a->pattern || !a->budget || !a->comment || !a->file) {
    diff_allowance_free(a);
    return NULL;
  }
  return a;
}

/* The boundaries a site's growth was measured over, 0-based: the range,
 * else the series after the warm-up. Returns 0 when there is no span. */
static int allow_span(const struct diff_result *result, const struct diff_site *site,
                      size_t *from, size_t *to)
{
  if (result->mode == DIFF_MODE_RANGE) {
    *from = result->options.range_from - 1;
    *to = result->options.range_to - 1;
    return result->options.range_from >= 1 && *to > *from && *to < site->count;
  }
  *from = result->options.warmup;
  *to = site->count ? site->count - 1 : 0;
  return site->count >= 2 && *to > *from;
}

/* The site's growth in the budget's unit: bytes per boundary (its growth
 * per segment), or its rise over the span per MB allocated in the span. */
static double allow_growth(const struct diff_result *result, const struct diff_site *site,
                           const struct diff_allowance *allowance)
{
  if (!allowance->per_megabyte)
    return site->growth_bytes_per_segment;
  const uint64_t *allocated = result->capture.allocated;
  size_t from, to;
  if (!allow_span(result, site, &from, &to) || to >= result->capture.boundary_count)
    return 0;
  double rise = result->mode == DIFF_MODE_RANGE
                    ? (double)site->range_delta_bytes
                    : site->growth_bytes_per_segment * (double)(to - from);
  double work = allocated[to] > allocated[from] ? (double)(allocated[to] - allocated[from]) : 0;
  if (work == 0)
    return rise > 0 ? INFINITY : 0;  /* growth without work: past any budget */
  return rise / (work / ALLOW_MEGABYTE);
}

static int allow_may_grow(enum diff_verdict verdict)
{
  return verdict == DIFF_VERDICT_GROWING || verdict == DIFF_VERDICT_NEW ||
         verdict == DIFF_VERDICT_WORSE || verdict == DIFF_VERDICT_UNDECIDED;
}

/* The rule a row matches: by its name, or for a stack by its site's name
 * too, the last part of its name (the leaf; no label holds a ';'). A stack
 * without frames is named as its site, whose name may hold one. */
static const struct diff_allow_rule *allow_match_row(const struct diff_allow *allow,
                                                const struct diff_site *site)
{
  const struct diff_allow_rule *rule = diff_allow_match(allow, site->name);
  const char *leaf = site->is_stack && site->frame_count ? strrchr(site->name, ';') : NULL;
  return rule || !leaf ? rule : diff_allow_match(allow, leaf + 1);
}

static enum format_status allow_apply_rows(struct diff_result *result, struct diff_site *rows,
                                           size_t count, const struct diff_allow *allow,
                                           struct format_error *err)
{
  for (size_t i = 0; i < count; i++) {
    struct diff_site *site = &rows[i];
    if (allow) {
      const struct diff_allow_rule *rule = allow_match_row(allow, site);
      diff_allowance_free(site->allowance);
      site->allowance = NULL;
      if (rule && !(site->allowance = allow_allowance(allow, rule)))
        return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    }
    site->allowed = 0;
    struct diff_allowance *allowance = site->allowance;
    if (!allowance)
      continue;
    if (allowance->per_megabyte && !result->capture.allocated)
      return format_error_set(err, FORMAT_USAGE,
                              "%s: line %zu: budget '%s' is per MB of work, but the capture does not "
                              "record the bytes allocated at each boundary",
                              allowance->file ? allowance->file : "allow file", allowance->line,
                              allowance->budget ? allowance->budget : "?");
    allowance->growth = allow_growth(result, site, allowance);
    site->allowed = allow_may_grow(site->verdict) && allowance->growth <= allowance->budget_bytes;
  }
  return FORMAT_OK;
}

enum format_status diff_allow_apply(struct diff_result *result, const struct diff_allow *allow,
                                    struct format_error *err)
{
  for (size_t i = 0; allow && i < allow->count; i++)
    if (allow->rules[i].per_megabyte && !result->capture.allocated)
      return format_error_set(err, FORMAT_USAGE,
                              "%s: line %zu: budget '%s' is per MB of work, but the capture does not "
                              "record the bytes allocated at each boundary; give a budget per "
                              "boundary (such as 4k/boundary)",
                              allow->path, allow->rules[i].line, allow->rules[i].budget);
  enum format_status status = allow_apply_rows(result, result->sites, result->site_count, allow, err);
  if (status == FORMAT_OK)
    status = allow_apply_rows(result, result->stacks, result->stack_count, allow, err);
  return status;
}
