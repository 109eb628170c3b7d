/* summary/summary_print.c: the report, laid out as Tarantool's parser prints it. */
#include "summary/summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/utf8.h"
#include "summary/summary_internal.h"

size_t summary_format_bytes(uint64_t bytes, int human_readable, char *out, size_t size)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
  int written;
  if (!human_readable) {
    written = snprintf(out, size, "%" PRIu64 "B", bytes);
  } else {
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024 && unit < 3) {
      value /= 1024;
      unit++;
    }
    if (floor(value) == value)
      written = snprintf(out, size, "%" PRIu64 "%s", (uint64_t)value, units[unit]);
    else
      written = snprintf(out, size, "%.2f%s", value, units[unit]);
  }
  return written < 0 ? 0 : (size_t)written;
}

/* qsort has no context argument: the comparators read it from here. */
struct sort_context {
  const struct summary *summary;
  const int64_t *heap_bytes;
};
static _Thread_local struct sort_context sort_context;

static int compare_entries(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  const struct summary_entry *ea = &sort_context.summary->entries[ia];
  const struct summary_entry *eb = &sort_context.summary->entries[ib];
  if (ea->events != eb->events)
    return ea->events > eb->events ? -1 : 1;
  return (ia > ib) - (ia < ib);  /* ties: first seen first */
}

static int compare_names(const void *a, const void *b)
{
  return summary_name_table_compare(&sort_context.summary->names, *(const uint32_t *)a,
                            *(const uint32_t *)b);
}

static int compare_heap_bytes(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  int64_t da = sort_context.heap_bytes[ia], db = sort_context.heap_bytes[ib];
  if (da != db)
    return da > db ? -1 : 1;
  return (ia > ib) - (ia < ib);
}

/* A name from the stream, which the process wrote: controls, bidi controls,
 * line separators and bytes that are not UTF-8 escaped for the terminal
 * (\x1b, \u202e, \x9b; format/utf8.h), the rest as it is. */
static void print_name(const struct summary *summary, uint32_t name, FILE *out)
{
  size_t length;
  const char *text = name_table_text(&summary->names, name, &length);
  utf8_put_terminal(out, text, length, UTF8_TERMINAL_TEXT);
}

/* The names in each entry's Overrides list: entry i's are
 * names[start[i] .. start[i + 1]), gathered from the primary table. */
struct overrides {
  size_t *start;
  uint32_t *names;
};

static int overrides_gather(const struct summary *summary, struct overrides *overrides)
{
  overrides->start = malloc((summary->entry_count + 1) * sizeof *overrides->start);
  overrides->names = malloc((summary->primaries.count + 1) * sizeof *overrides->names);
  size_t *filled = calloc(summary->entry_count + 1, sizeof *filled);
  if (!overrides->start || !overrides->names || !filled) {
    free(overrides->start);
    free(overrides->names);
    free(filled);
    return -1;
  }
  overrides->start[0] = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    overrides->start[i + 1] = overrides->start[i] + summary->entries[i].primary_count;
  for (size_t i = 0; i <= summary->primaries.mask; i++) {
    const struct summary_primary *record = &summary->primaries.slots[i];
    if (record->key == SUMMARY_PRIMARY_EMPTY_KEY)
      continue;
    size_t entry = (size_t)(record->key >> 32);
    overrides->names[overrides->start[entry] + filled[entry]++] =
        primary_table_name(&summary->primaries, record);
  }
  free(filled);
  return 0;
}

/* One section's entries, most events first, each with its Overrides list. */
static int print_entries(const struct summary *summary, const struct overrides *overrides,
                         int kind, int human_readable, FILE *out)
{
  size_t count = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    count += summary->entries[i].kind == kind;
  uint32_t *order = malloc((count ? count : 1) * sizeof *order);
  if (!order)
    return -1;
  count = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    if (summary->entries[i].kind == kind)
      order[count++] = (uint32_t)i;
  sort_context.summary = summary;
  qsort(order, count, sizeof *order, compare_entries);
  for (size_t i = 0; i < count; i++) {
    const struct summary_entry *entry = &summary->entries[order[i]];
    char alloc_text[64], free_text[64];
    summary_format_bytes(entry->alloc_bytes, human_readable, alloc_text, sizeof alloc_text);
    summary_format_bytes(entry->free_bytes, human_readable, free_text, sizeof free_text);
    print_name(summary, entry->name, out);
    fprintf(out, ": %" PRIu64 " events\t+%s\t-%s\n", entry->events, alloc_text, free_text);
    if (!entry->primary_count)
      continue;
    uint32_t *overridden = overrides->names + overrides->start[order[i]];
    size_t n = entry->primary_count;
    qsort(overridden, n, sizeof *overridden, compare_names);
    fputs("\tOverrides:\n", out);
    for (size_t j = 0; j < n; j++) {
      fputs("\t\t", out);
      print_name(summary, overridden[j], out);
      fputc('\n', out);
    }
    fputc('\n', out);
  }
  free(order);
  return 0;
}

/* HEAP SUMMARY: the parser's heap delta, keyed by name. */
static int print_heap_summary(const struct summary *summary, int human_readable, FILE *out)
{
  size_t names = name_table_count(&summary->names);
  int64_t *bytes = calloc(names ? names : 1, sizeof *bytes);
  uint64_t *allocs = calloc(names ? names : 1, sizeof *allocs);
  uint64_t *frees = calloc(names ? names : 1, sizeof *frees);
  uint32_t *order = malloc((names ? names : 1) * sizeof *order);
  if (!bytes || !allocs || !frees || !order) {
    free(bytes);
    free(allocs);
    free(frees);
    free(order);
    return -1;
  }
  for (size_t i = 0; i < summary->entry_count; i++) {
    const struct summary_entry *entry = &summary->entries[i];
    if (entry->kind == KIND_ALLOC && entry->alloc_bytes > 0) {
      bytes[entry->name] += (int64_t)entry->alloc_bytes;
      allocs[entry->name] += entry->events;
    }
  }
  /* Primary records belong to realloc and free entries only. */
  for (size_t i = 0; i <= summary->primaries.mask; i++) {
    const struct summary_primary *record = &summary->primaries.slots[i];
    if (record->key == SUMMARY_PRIMARY_EMPTY_KEY)
      continue;
    uint32_t name = primary_table_name(&summary->primaries, record);
    if (record->allocated > 0) {
      bytes[name] += (int64_t)record->allocated;
      allocs[name] += record->count;
    }
    if (record->freed > 0) {
      bytes[name] -= (int64_t)record->freed;
      frees[name] += record->count;
    }
  }
  size_t count = 0;
  for (size_t i = 0; i < names; i++)
    if (bytes[i] > 0)
      order[count++] = (uint32_t)i;
  sort_context.summary = summary;
  sort_context.heap_bytes = bytes;
  qsort(order, count, sizeof *order, compare_heap_bytes);
  fputs("HEAP SUMMARY:\n", out);
  for (size_t i = 0; i < count; i++) {
    char held[64];
    summary_format_bytes((uint64_t)bytes[order[i]], human_readable, held, sizeof held);
    print_name(summary, order[i], out);
    fprintf(out, " holds %s: %" PRIu64 " allocs, %" PRIu64 " frees\n", held, allocs[order[i]],
            frees[order[i]]);
  }
  fputc('\n', out);
  free(bytes);
  free(allocs);
  free(frees);
  free(order);
  return 0;
}

/* A line of a chunk's source, which the process chose: its controls escaped for the terminal
 * (an escape sequence or a carriage return in it would repaint what is shown) but for tabs
 * (indentation) and a carriage return at its end (a CRLF source), shown as they are. */
static void print_source_line(FILE *out, const char *line, size_t length)
{
  size_t end = length && line[length - 1] == '\r' ? length - 1 : length;
  for (size_t start = 0;;) {
    const char *tab = memchr(line + start, '\t', end - start);
    size_t stop = tab ? (size_t)(tab - line) : end;
    utf8_put_terminal(out, line + start, stop - start, UTF8_TERMINAL_TEXT);
    if (!tab)
      break;
    fputc('\t', out);
    start = stop + 1;
  }
  if (end < length)
    fputc('\r', out);
}

/* ALIASES: each chunk loaded from a string, its non-empty lines numbered. */
static void print_aliases(const struct summary *summary, FILE *out)
{
  size_t count = memprof_symtab_alias_count(summary->symtab);
  if (!count)
    return;
  fputs("ALIASES:\n", out);
  for (size_t i = 0; i < count; i++) {
    size_t length;
    const char *source = memprof_symtab_alias_source(summary->symtab, i, &length);
    fprintf(out, "function_alias_%zu:\n", i + 1);
    size_t number = 1;
    for (size_t start = 0; start < length;) {
      const char *newline = memchr(source + start, '\n', length - start);
      size_t end = newline ? (size_t)(newline - source) : length;
      if (end > start) {  /* empty lines are skipped and not numbered */
        fprintf(out, "%zu\t| ", number++);
        print_source_line(out, source + start, end - start);
        fputc('\n', out);
      }
      start = end + 1;
    }
    fputs("\n\n", out);
  }
}

int summary_print(const struct summary *summary, const struct summary_options *options,
                  FILE *out)
{
  static const char *const titles[KIND_COUNT] = {"ALLOCATIONS", "REALLOCATIONS", "DEALLOCATIONS"};
  if (!options->leak_only) {
    struct overrides overrides;
    if (overrides_gather(summary, &overrides))
      return -1;
    for (int kind = 0; kind < KIND_COUNT; kind++) {
      fprintf(out, "%s\n", titles[kind]);
      if (print_entries(summary, &overrides, kind, options->human_readable, out)) {
        free(overrides.start);
        free(overrides.names);
        return -1;
      }
      fputc('\n', out);
    }
    free(overrides.start);
    free(overrides.names);
  }
  if (print_heap_summary(summary, options->human_readable, out))
    return -1;
  print_aliases(summary, out);
  return ferror(out) ? -1 : 0;
}
