/* tests/test_summary.c: ljleak summary prints what Tarantool's luajit-parse-memprof prints. */
/* It reads stored streams (Tarantool's fixtures) and runs no LuaJIT: its
 * exact counts hold whichever LuaJIT ljleak is built for (Debian's or
 * OpenResty's, make check-other-luajit does not run it). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "summary/summary.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"

/* ---- Comparing reports -----------------------------------------------------
 * Tarantool's parser sorts with table.sort, which leaves lines with equal sort
 * keys in no particular order. A report is cut into units: an entry line of an
 * event section together with its Overrides block (key: its event count), a
 * HEAP SUMMARY line (key: its byte count), or any other line (no key, must
 * match exactly where it stands). Runs of units with the same key must hold
 * the same units in any order; everything else must match in order. */

struct unit {
  const char *text;   /* a slice of the report: whole lines, newlines included */
  size_t length;
  const char *key;    /* slice holding the sort key, or NULL */
  size_t key_length;
};

struct units {
  struct unit *items;
  size_t count;
};

/* The line starting at p; returns its end (at its newline or at the end). */
static const char *line_end(const char *p)
{
  const char *newline = strchr(p, '\n');
  return newline ? newline : p + strlen(p);
}

static const char *after_line(const char *end)
{
  return *end ? end + 1 : end;
}

static int starts_with(const char *p, const char *end, const char *prefix)
{
  size_t n = strlen(prefix);
  return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

static int line_is(const char *p, const char *end, const char *text)
{
  return (size_t)(end - p) == strlen(text) && !memcmp(p, text, strlen(text));
}

/* The count in "NAME: N events\t+A\t-F", or NULL if the line is not an entry. */
static const char *entry_key(const char *p, const char *end, size_t *length)
{
  const char *found = NULL;
  for (const char *q = p; q + 2 <= end; q++)
    if (q[0] == ':' && q[1] == ' ')
      found = q;  /* the last ": " is the one before the count */
  if (!found)
    return NULL;
  const char *digits = found + 2, *q = digits;
  while (q < end && *q >= '0' && *q <= '9')
    q++;
  if (q == digits || !starts_with(q, end, " events\t+"))
    return NULL;
  *length = (size_t)(q - digits);
  return digits;
}

/* The size in "NAME holds SIZE: A allocs, F frees", or NULL. */
static const char *holds_key(const char *p, const char *end, size_t *length)
{
  const char *found = NULL;
  for (const char *q = p; q + 7 <= end; q++)
    if (!memcmp(q, " holds ", 7))
      found = q + 7;
  if (!found)
    return NULL;
  const char *colon = memchr(found, ':', (size_t)(end - found));
  if (!colon)
    return NULL;
  *length = (size_t)(colon - found);
  return found;
}

static void units_add(struct units *units, const char *text, const char *stop, const char *key,
                      size_t key_length)
{
  units->items = realloc(units->items, (units->count + 1) * sizeof *units->items);
  ck_assert_ptr_nonnull(units->items);
  units->items[units->count++] =
      (struct unit){text, (size_t)(stop - text), key, key_length};
}

static struct units units_of(const char *report)
{
  enum { OTHER, EVENTS, HEAP } section = OTHER;
  struct units units = {NULL, 0};
  for (const char *p = report; *p;) {
    const char *end = line_end(p), *next = after_line(end);
    size_t key_length = 0;
    const char *key = NULL;
    if (line_is(p, end, "ALLOCATIONS") || line_is(p, end, "REALLOCATIONS") ||
        line_is(p, end, "DEALLOCATIONS"))
      section = EVENTS;
    else if (line_is(p, end, "HEAP SUMMARY:"))
      section = HEAP;
    else if (line_is(p, end, "ALIASES:"))
      section = OTHER;
    else if (section == EVENTS)
      key = entry_key(p, end, &key_length);
    else if (section == HEAP)
      key = holds_key(p, end, &key_length);
    if (key && section == EVENTS && starts_with(next, line_end(next), "\tOverrides:")) {
      next = after_line(line_end(next));
      while (starts_with(next, line_end(next), "\t\t"))
        next = after_line(line_end(next));
      if (line_is(next, line_end(next), ""))  /* the block's closing empty line */
        next = after_line(line_end(next));
    }
    units_add(&units, p, next, key, key_length);
    p = next;
  }
  return units;
}

static int same_slice(const char *a, size_t a_length, const char *b, size_t b_length)
{
  return a_length == b_length && !memcmp(a, b, a_length);
}

static int compare_units(const void *a, const void *b)
{
  const struct unit *ua = a, *ub = b;
  int order = memcmp(ua->text, ub->text, ua->length < ub->length ? ua->length : ub->length);
  return order ? order : (ua->length > ub->length) - (ua->length < ub->length);
}

/* NULL if the reports are equal up to the order of equal keys, else a
 * description of the first difference (in why). */
static const char *report_difference(const char *expected, const char *actual, char *why,
                                     size_t size)
{
  struct units want = units_of(expected), got = units_of(actual);
  const char *result = NULL;
  size_t i = 0;
  while (!result && i < want.count && i < got.count) {
    const struct unit *w = &want.items[i];
    size_t run = 1;
    if (w->key)
      while (i + run < want.count && want.items[i + run].key &&
             same_slice(want.items[i + run].key, want.items[i + run].key_length, w->key,
                        w->key_length))
        run++;
    if (i + run > got.count) {
      snprintf(why, size, "report ends early near expected %.*s", (int)w->length, w->text);
      result = why;
      break;
    }
    for (size_t j = i; j < i + run; j++) {
      const struct unit *g = &got.items[j];
      if (!w->key ? !!g->key : !g->key || !same_slice(g->key, g->key_length, w->key,
                                                       w->key_length)) {
        snprintf(why, size, "expected %.*s got %.*s", (int)want.items[j].length,
                 want.items[j].text, (int)g->length, g->text);
        result = why;
        break;
      }
    }
    if (result)
      break;
    qsort(want.items + i, run, sizeof *want.items, compare_units);
    qsort(got.items + i, run, sizeof *got.items, compare_units);
    for (size_t j = i; j < i + run; j++)
      if (!same_slice(want.items[j].text, want.items[j].length, got.items[j].text,
                      got.items[j].length)) {
        snprintf(why, size, "expected %.*s got %.*s", (int)want.items[j].length,
                 want.items[j].text, (int)got.items[j].length, got.items[j].text);
        result = why;
        break;
      }
    i += run;
  }
  if (!result && want.count != got.count) {
    snprintf(why, size, "expected %zu units, got %zu", want.count, got.count);
    result = why;
  }
  free(want.items);
  free(got.items);
  return result;
}

#define ck_assert_same_report(expected, actual)                                        \
  do {                                                                                 \
    char why_[2048];                                                                   \
    const char *difference_ = report_difference((expected), (actual), why_, sizeof why_); \
    ck_assert_msg(difference_ == NULL, "%s", difference_ ? difference_ : "");          \
  } while (0)

/* ---- Helpers ---------------------------------------------------------------- */

static char *read_text(const char *path)
{
  FILE *file = fopen(path, "rb");
  ck_assert_msg(file != NULL, "cannot open %s", path);
  char *text = NULL;
  size_t size = 0;
  FILE *copy = open_memstream(&text, &size);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, file)) > 0)
    fwrite(buffer, 1, n, copy);
  fclose(file);
  fclose(copy);
  return text;
}

static char *render(const struct summary *summary, int leak_only, int human_readable)
{
  struct summary_options options = {leak_only, human_readable};
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_int_eq(summary_print(summary, &options, out), 0);
  fclose(out);
  return text;
}

/* Reads paths in order into one summary; every stream must be complete. */
static struct summary *summarise(const char *const *paths, size_t count)
{
  struct summary *summary = summary_new();
  ck_assert_ptr_nonnull(summary);
  for (size_t i = 0; i < count; i++) {
    struct format_error err;
    enum format_status status = summary_read_file(summary, paths[i], &err);
    ck_assert_msg(status == FORMAT_END, "%s: status %d: %s", paths[i], (int)status, err.message);
  }
  return summary;
}

static void check_against_saved(const char *stream, const char *saved, int leak_only)
{
  struct summary *summary = summarise(&stream, 1);
  char *actual = render(summary, leak_only, 0);
  char *expected = read_text(saved);
  ck_assert_same_report(expected, actual);
  free(expected);
  free(actual);
  summary_free(summary);
}

/* ---- The comparison itself -------------------------------------------------- */

static const char sample_report[] =
    "ALLOCATIONS\n"
    "@a.lua:1: 5 events\t+10B\t-0B\n"
    "@a.lua:2: 3 events\t+10B\t-0B\n"
    "@a.lua:3: 3 events\t+20B\t-0B\n"
    "\n"
    "REALLOCATIONS\n"
    "\n"
    "DEALLOCATIONS\n"
    "INTERNAL: 2 events\t+0B\t-8B\n"
    "\tOverrides:\n"
    "\t\t@a.lua:1\n"
    "\n"
    "@b.lua:1: 2 events\t+0B\t-8B\n"
    "\n"
    "HEAP SUMMARY:\n"
    "@a.lua:1 holds 10B: 5 allocs, 0 frees\n"
    "@a.lua:2 holds 10B: 3 allocs, 0 frees\n"
    "\n";

START_TEST(test_comparison_accepts_reordered_equal_keys)
{
  const char *reordered =
      "ALLOCATIONS\n"
      "@a.lua:1: 5 events\t+10B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n"
      "@a.lua:2: 3 events\t+10B\t-0B\n"
      "\n"
      "REALLOCATIONS\n"
      "\n"
      "DEALLOCATIONS\n"
      "@b.lua:1: 2 events\t+0B\t-8B\n"
      "INTERNAL: 2 events\t+0B\t-8B\n"
      "\tOverrides:\n"
      "\t\t@a.lua:1\n"
      "\n"
      "\n"
      "HEAP SUMMARY:\n"
      "@a.lua:2 holds 10B: 3 allocs, 0 frees\n"
      "@a.lua:1 holds 10B: 5 allocs, 0 frees\n"
      "\n";
  ck_assert_same_report(sample_report, reordered);
}
END_TEST

/* Each of these differs from sample_report in one real way. */
START_TEST(test_comparison_rejects_real_differences)
{
  static const char *const wrong[] = {
      /* distinct keys out of order */
      "ALLOCATIONS\n@a.lua:2: 3 events\t+10B\t-0B\n@a.lua:1: 5 events\t+10B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n\nREALLOCATIONS\n\nDEALLOCATIONS\n"
      "INTERNAL: 2 events\t+0B\t-8B\n\tOverrides:\n\t\t@a.lua:1\n\n@b.lua:1: 2 events\t+0B\t-8B\n\n"
      "HEAP SUMMARY:\n@a.lua:1 holds 10B: 5 allocs, 0 frees\n@a.lua:2 holds 10B: 3 allocs, 0 frees\n\n",
      /* an Overrides block moved to another entry of the same count */
      "ALLOCATIONS\n@a.lua:1: 5 events\t+10B\t-0B\n@a.lua:2: 3 events\t+10B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n\nREALLOCATIONS\n\nDEALLOCATIONS\n"
      "INTERNAL: 2 events\t+0B\t-8B\n@b.lua:1: 2 events\t+0B\t-8B\n\tOverrides:\n\t\t@a.lua:1\n\n\n"
      "HEAP SUMMARY:\n@a.lua:1 holds 10B: 5 allocs, 0 frees\n@a.lua:2 holds 10B: 3 allocs, 0 frees\n\n",
      /* a byte count changed */
      "ALLOCATIONS\n@a.lua:1: 5 events\t+10B\t-0B\n@a.lua:2: 3 events\t+11B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n\nREALLOCATIONS\n\nDEALLOCATIONS\n"
      "INTERNAL: 2 events\t+0B\t-8B\n\tOverrides:\n\t\t@a.lua:1\n\n@b.lua:1: 2 events\t+0B\t-8B\n\n"
      "HEAP SUMMARY:\n@a.lua:1 holds 10B: 5 allocs, 0 frees\n@a.lua:2 holds 10B: 3 allocs, 0 frees\n\n",
      /* a heap line missing */
      "ALLOCATIONS\n@a.lua:1: 5 events\t+10B\t-0B\n@a.lua:2: 3 events\t+10B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n\nREALLOCATIONS\n\nDEALLOCATIONS\n"
      "INTERNAL: 2 events\t+0B\t-8B\n\tOverrides:\n\t\t@a.lua:1\n\n@b.lua:1: 2 events\t+0B\t-8B\n\n"
      "HEAP SUMMARY:\n@a.lua:1 holds 10B: 5 allocs, 0 frees\n\n",
      /* one empty line too many at the end */
      "ALLOCATIONS\n@a.lua:1: 5 events\t+10B\t-0B\n@a.lua:2: 3 events\t+10B\t-0B\n"
      "@a.lua:3: 3 events\t+20B\t-0B\n\nREALLOCATIONS\n\nDEALLOCATIONS\n"
      "INTERNAL: 2 events\t+0B\t-8B\n\tOverrides:\n\t\t@a.lua:1\n\n@b.lua:1: 2 events\t+0B\t-8B\n\n"
      "HEAP SUMMARY:\n@a.lua:1 holds 10B: 5 allocs, 0 frees\n@a.lua:2 holds 10B: 3 allocs, 0 frees\n\n\n",
  };
  ck_assert_same_report(sample_report, sample_report);
  for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
    char why[2048];
    ck_assert_msg(report_difference(sample_report, wrong[i], why, sizeof why) != NULL,
                  "variant %zu was accepted", i);
  }
}
END_TEST

/* ---- Tarantool's saved outputs -------------------------------------------- */

START_TEST(test_basic_jiton_default_matches_tarantool)
{
  check_against_saved(FIXTURES "basic-jiton.bin", FIXTURES "basic-jiton.parse-memprof.txt", 0);
}
END_TEST

START_TEST(test_basic_jiton_leak_only_matches_tarantool)
{
  check_against_saved(FIXTURES "basic-jiton.bin", FIXTURES "basic-jiton.leak-only.txt", 1);
}
END_TEST

START_TEST(test_basic_jitoff_default_matches_tarantool)
{
  check_against_saved(FIXTURES "basic-jitoff.bin", FIXTURES "basic-jitoff.parse-memprof.txt", 0);
}
END_TEST

START_TEST(test_basic_jitoff_leak_only_matches_tarantool)
{
  check_against_saved(FIXTURES "basic-jitoff.bin", FIXTURES "basic-jitoff.leak-only.txt", 1);
}
END_TEST

/* A loop test: _i is the segment number, 1 to 6. */
START_TEST(test_each_segment_leak_only_matches_tarantool)
{
  char stream[128], saved[128];
  snprintf(stream, sizeof stream, FIXTURES "segments/seg-%04d.bin", _i);
  snprintf(saved, sizeof saved, FIXTURES "segments/seg-%04d.leak-only.txt", _i);
  check_against_saved(stream, saved, 1);
}
END_TEST

/* The six segments read as one stream: blocks made in one segment and freed
 * in a later one are charged to their site, so the per-segment artefacts
 * vanish. The expected text is what Tarantool's parser logic prints when its
 * event tables and symbols are carried from one segment to the next. */
START_TEST(test_segments_read_together_form_one_stream)
{
  static const char *const paths[] = {
      FIXTURES "segments/seg-0001.bin", FIXTURES "segments/seg-0002.bin",
      FIXTURES "segments/seg-0003.bin", FIXTURES "segments/seg-0004.bin",
      FIXTURES "segments/seg-0005.bin", FIXTURES "segments/seg-0006.bin"};
  static const char expected[] =
      "HEAP SUMMARY:\n"
      "TRACE [2] started at @segments.lua:14 holds 534002B: 19073 allocs, 4762 frees\n"
      "@segments.lua:14 holds 68670B: 103 allocs, 12 frees\n"
      "TRACE [1] started at @segments.lua:22 holds 19199B: 6188 allocs, 5919 frees\n"
      "INTERNAL holds 7428B: 19 allocs, 11 frees\n"
      "@segments.lua:9 holds 4382B: 58 allocs, 1 frees\n"
      "@segments.lua:8 holds 64B: 58 allocs, 58 frees\n"
      "TRACE [3] started at @segments.lua:12 holds 32B: 429 allocs, 428 frees\n"
      "\n";
  struct summary *summary = summarise(paths, 6);
  char *actual = render(summary, 1, 0);
  ck_assert_same_report(expected, actual);
  free(actual);
  summary_free(summary);
}
END_TEST

/* The killed capture has no epilogue: Tarantool's parser prints nothing; we
 * summarise every complete event (the expected text is that parser's logic
 * stopped at the cut) and report where the stream ends. */
START_TEST(test_killed_capture_is_summarised_up_to_the_cut)
{
  static const char expected[] =
      "ALLOCATIONS\n"
      "TRACE [1] started at @killed.lua:5: 827040 events\t+36747021B\t-0B\n"
      "@killed.lua:7: 118 events\t+6421B\t-0B\n"
      "INTERNAL: 8 events\t+2868B\t-0B\n"
      "@killed.lua:3: 1 events\t+32B\t-0B\n"
      "\n"
      "REALLOCATIONS\n"
      "@killed.lua:7: 15 events\t+1048664B\t-524392B\n"
      "\tOverrides:\n"
      "\t\t@killed.lua:7\n"
      "\n"
      "TRACE [2] started at @killed.lua:7: 1 events\t+1048584B\t-524296B\n"
      "\tOverrides:\n"
      "\t\t@killed.lua:7\n"
      "\n"
      "INTERNAL: 1 events\t+512B\t-256B\n"
      "\tOverrides:\n"
      "\t\tINTERNAL\n"
      "\n"
      "\n"
      "DEALLOCATIONS\n"
      "INTERNAL: 235239 events\t+0B\t-5304832B\n"
      "\tOverrides:\n"
      "\t\t@killed.lua:7\n"
      "\t\tINTERNAL\n"
      "\t\tTRACE [1] started at @killed.lua:5\n"
      "\n"
      "TRACE [1] started at @killed.lua:5: 10 events\t+0B\t-2095104B\n"
      "\tOverrides:\n"
      "\t\t@killed.lua:7\n"
      "\t\tTRACE [1] started at @killed.lua:5\n"
      "\n"
      "@killed.lua:7: 1 events\t+0B\t-1024B\n"
      "\n"
      "HEAP SUMMARY:\n"
      "TRACE [1] started at @killed.lua:5 holds 29351582B: 827040 allocs, 235175 frees\n"
      "@killed.lua:7 holds 1051897B: 134 allocs, 72 frees\n"
      "INTERNAL holds 2544B: 9 allocs, 3 frees\n"
      "@killed.lua:3 holds 32B: 1 allocs, 0 frees\n"
      "\n";
  struct summary *summary = summary_new();
  struct format_error err;
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "killed-sigkill.bin.gz", &err),
                   FORMAT_CUT);
  ck_assert_ptr_nonnull(strstr(err.message, "killed-sigkill.bin.gz"));
  ck_assert_ptr_nonnull(strstr(err.message, "byte "));
  ck_assert_uint_eq(summary_event_count(summary), 1062434);
  char *actual = render(summary, 0, 0);
  ck_assert_same_report(expected, actual);
  free(actual);
  summary_free(summary);
}
END_TEST

START_TEST(test_unreadable_and_corrupt_inputs_are_errors)
{
  struct summary *summary = summary_new();
  struct format_error err;
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "no-such-file.bin", &err), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(err.message, "no-such-file.bin"));
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "README.md", &err), FORMAT_BAD_INPUT);
  ck_assert_ptr_nonnull(strstr(err.message, "README.md"));
  ck_assert_uint_eq(summary_event_count(summary), 0);
  summary_free(summary);
}
END_TEST

/* The front end picks its exit code from the status, not from the message. */
START_TEST(test_read_status_tells_input_errors_from_good_and_cut_streams)
{
  struct summary *summary = summary_new();
  struct format_error err;
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "no-such-file.bin", &err), FORMAT_IO);
  ck_assert_int_eq(format_status_is_input(err.status), 1);
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "basic-jiton.bin", &err), FORMAT_END);
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "README.md", &err), FORMAT_BAD_INPUT);
  ck_assert_int_eq(format_status_is_input(err.status), 1);
  ck_assert_int_eq(summary_read_file(summary, FIXTURES "killed-sigkill.bin.gz", &err),
                   FORMAT_CUT);
  ck_assert_int_eq(err.status, FORMAT_CUT);
  summary_free(summary);
}
END_TEST

/* ---- Semantics on hand-made events ---------------------------------------- */

static void add_lua_proto(struct summary *summary, uint64_t address, const char *chunk)
{
  struct memprof_symbol symbol = {MEMPROF_SYMBOL_LUA, address, 1, 0, chunk, strlen(chunk)};
  ck_assert_int_eq(summary_add_symbol(summary, &symbol), 0);
}

static void add_trace(struct summary *summary, uint64_t trace, uint64_t proto, uint64_t line)
{
  struct memprof_symbol symbol = {MEMPROF_SYMBOL_TRACE, proto, line, trace, NULL, 0};
  ck_assert_int_eq(summary_add_symbol(summary, &symbol), 0);
}

static void add_c_symbol(struct summary *summary, uint64_t address, const char *name)
{
  struct memprof_symbol symbol = {MEMPROF_SYMBOL_C, address, 0, 0, name, strlen(name)};
  ck_assert_int_eq(summary_add_symbol(summary, &symbol), 0);
}

/* source, location, line, then the kind's addresses and sizes */
static void add_event(struct summary *summary, enum memprof_event_kind kind,
                      enum memprof_source source, uint64_t location, uint64_t line,
                      uint64_t old_address, uint64_t old_size, uint64_t new_address,
                      uint64_t new_size)
{
  struct memprof_event event = {kind,        source,   location,    line,
                                old_address, old_size, new_address, new_size};
  ck_assert_int_eq(summary_add_event(summary, &event), 0);
}

static void check_report(const struct summary *summary, int leak_only, int human_readable,
                         const char *expected)
{
  char *actual = render(summary, leak_only, human_readable);
  ck_assert_str_eq(actual, expected);
  free(actual);
}

/* A realloc charges the new size to the site that made the old block (as the
 * parser does); a free of an address never allocated charges nobody. */
START_TEST(test_reallocs_and_frees_charge_the_allocating_site)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  add_lua_proto(summary, 0x200, "@b.lua");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 5, 0, 0, 0x1000, 100);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 5, 0, 0, 0x2000, 50);
  add_event(summary, MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_LUA, 0x200, 7, 0x1000, 100, 0x3000, 300);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x3000, 300, 0, 0);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x9999, 64, 0, 0);
  check_report(summary, 0, 0,
               "ALLOCATIONS\n"
               "@a.lua:5: 2 events\t+150B\t-0B\n"
               "\n"
               "REALLOCATIONS\n"
               "@b.lua:7: 1 events\t+300B\t-100B\n"
               "\tOverrides:\n"
               "\t\t@a.lua:5\n"
               "\n"
               "\n"
               "DEALLOCATIONS\n"
               "INTERNAL: 2 events\t+0B\t-364B\n"
               "\tOverrides:\n"
               "\t\t@b.lua:7\n"
               "\n"
               "\n"
               "HEAP SUMMARY:\n"
               "@a.lua:5 holds 350B: 3 allocs, 1 frees\n"
               "\n");
  ck_assert_uint_eq(summary_event_count(summary), 5);
  summary_free(summary);
}
END_TEST

/* Entries are keyed by location id, not by name: two C addresses under one
 * symbol print as two entries and two Overrides lines. */
START_TEST(test_two_ids_with_one_name_stay_apart)
{
  struct summary *summary = summary_new();
  add_c_symbol(summary, 0x5000, "malloc");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_C, 0x5010, 0, 0, 0, 0xa0, 16);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_C, 0x5010, 0, 0, 0, 0xb0, 16);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_C, 0x5020, 0, 0, 0, 0xc0, 32);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0xa0, 16, 0, 0);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0xc0, 32, 0, 0);
  check_report(summary, 0, 0,
               "ALLOCATIONS\n"
               "malloc:0x5000: 2 events\t+32B\t-0B\n"
               "malloc:0x5000: 1 events\t+32B\t-0B\n"
               "\n"
               "REALLOCATIONS\n"
               "\n"
               "DEALLOCATIONS\n"
               "INTERNAL: 2 events\t+0B\t-48B\n"
               "\tOverrides:\n"
               "\t\tmalloc:0x5000\n"
               "\t\tmalloc:0x5000\n"
               "\n"
               "\n"
               "HEAP SUMMARY:\n"
               "malloc:0x5000 holds 16B: 3 allocs, 2 frees\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* A reused trace number keeps the name it had when its entry was made, while
 * each block remembers the name its site had when it was made. */
START_TEST(test_reused_trace_number_keeps_first_name)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  add_lua_proto(summary, 0x200, "@b.lua");
  add_trace(summary, 1, 0x100, 5);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_TRACE, 1, 0, 0, 0, 0xa0, 10);
  add_trace(summary, 1, 0x200, 7);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_TRACE, 1, 0, 0, 0, 0xb0, 20);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0xb0, 20, 0, 0);
  check_report(summary, 0, 0,
               "ALLOCATIONS\n"
               "TRACE [1] started at @a.lua:5: 2 events\t+30B\t-0B\n"
               "\n"
               "REALLOCATIONS\n"
               "\n"
               "DEALLOCATIONS\n"
               "INTERNAL: 1 events\t+0B\t-20B\n"
               "\tOverrides:\n"
               "\t\tTRACE [1] started at @b.lua:7\n"
               "\n"
               "\n"
               "HEAP SUMMARY:\n"
               "TRACE [1] started at @a.lua:5 holds 30B: 2 allocs, 0 frees\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* Overrides are sorted as Lua sorts strings: byte order, a prefix first. */
START_TEST(test_overrides_are_sorted_in_byte_order)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  add_lua_proto(summary, 0x200, "@a.lua2");
  add_trace(summary, 11, 0x100, 1);
  add_trace(summary, 1, 0x100, 1);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 2, 0, 0, 0x10, 8);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 10, 0, 0, 0x20, 8);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x200, 1, 0, 0, 0x30, 8);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_TRACE, 1, 0, 0, 0, 0x40, 8);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_TRACE, 11, 0, 0, 0, 0x50, 8);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_INTERNAL, 0, 0, 0, 0, 0x60, 8);
  for (uint64_t address = 0x10; address <= 0x60; address += 0x10)
    add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, address, 8, 0, 0);
  char *actual = render(summary, 0, 0);
  ck_assert_ptr_nonnull(strstr(actual,
                               "INTERNAL: 6 events\t+0B\t-48B\n"
                               "\tOverrides:\n"
                               "\t\t@a.lua2:1\n"
                               "\t\t@a.lua:10\n"
                               "\t\t@a.lua:2\n"
                               "\t\tINTERNAL\n"
                               "\t\tTRACE [11] started at @a.lua:1\n"
                               "\t\tTRACE [1] started at @a.lua:1\n"
                               "\n"));
  free(actual);
  summary_free(summary);
}
END_TEST

/* Chunks loaded from strings print as function_alias_N, and ALIASES lists
 * their non-empty lines, numbered without the empty ones. */
START_TEST(test_aliases_list_non_empty_lines)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "local a = 1\n\nreturn a\n");
  add_lua_proto(summary, 0x200, "x\ny");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 3, 0, 0, 0x10, 8);
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "function_alias_1:3 holds 8B: 1 allocs, 0 frees\n"
               "\n"
               "ALIASES:\n"
               "function_alias_1:\n"
               "1\t| local a = 1\n"
               "2\t| return a\n"
               "\n"
               "\n"
               "function_alias_2:\n"
               "1\t| x\n"
               "2\t| y\n"
               "\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* A source is the process's own text: its escape sequences, bells and carriage returns
 * inside a line are escaped, not sent to the terminal; tabs and a CRLF line end stay. */
START_TEST(test_alias_sources_cannot_repaint_the_terminal)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "--[[ \x1b[2J\x1b]0;PWNED\x07\r fake\n\tx = 1\r\n\x1b[1;32mverdict: no leak ]]");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 3, 0, 0, 0x10, 8);
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "function_alias_1:3 holds 8B: 1 allocs, 0 frees\n"
               "\n"
               "ALIASES:\n"
               "function_alias_1:\n"
               "1\t| --[[ \\x1b[2J\\x1b]0;PWNED\\x07\\x0d fake\n"
               "2\t| \tx = 1\r\n"
               "3\t| \\x1b[1;32mverdict: no leak ]]\n"
               "\n"
               "\n");
  summary_free(summary);
}
END_TEST

START_TEST(test_human_readable_bytes_match_the_parser)
{
  static const struct {
    uint64_t bytes;
    const char *text;
  } cases[] = {
      {0, "0B"},
      {1023, "1023B"},
      {1024, "1KiB"},
      {1025, "1.00KiB"},
      {1536, "1.50KiB"},
      {1048575, "1024.00KiB"},
      {1048576, "1MiB"},
      {1572864, "1.50MiB"},
      {1073741824, "1GiB"},
      {1610612736, "1.50GiB"},
      {(uint64_t)1 << 40, "1024GiB"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[64];
    size_t length = summary_format_bytes(cases[i].bytes, 1, text, sizeof text);
    ck_assert_str_eq(text, cases[i].text);
    ck_assert_uint_eq(length, strlen(cases[i].text));
  }
  char plain[64];
  summary_format_bytes(1536, 0, plain, sizeof plain);
  ck_assert_str_eq(plain, "1536B");
}
END_TEST

START_TEST(test_human_readable_report_formats_every_byte_column)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 1, 0, 0, 0x10, 1536);
  add_event(summary, MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_LUA, 0x100, 2, 0x10, 1536, 0x20,
            2097152);
  check_report(summary, 0, 1,
               "ALLOCATIONS\n"
               "@a.lua:1: 1 events\t+1.50KiB\t-0B\n"
               "\n"
               "REALLOCATIONS\n"
               "@a.lua:2: 1 events\t+2MiB\t-1.50KiB\n"
               "\tOverrides:\n"
               "\t\t@a.lua:1\n"
               "\n"
               "\n"
               "DEALLOCATIONS\n"
               "\n"
               "HEAP SUMMARY:\n"
               "@a.lua:1 holds 2MiB: 2 allocs, 1 frees\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* Blocks of 2^40 bytes and more do not fit the heap map's packed size and are
 * kept aside; they must still be charged exactly, also when replaced. */
START_TEST(test_huge_blocks_keep_their_size)
{
  const uint64_t huge = (uint64_t)1 << 41;
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 1, 0, 0, 0x10, huge);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 2, 0, 0, 0x20, huge + 5);
  add_event(summary, MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_LUA, 0x100, 3, 0x10, huge, 0x30, 8);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x20, huge + 5, 0, 0);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 4, 0, 0, 0x40, 2 * huge);
  add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 4, 0, 0, 0x40, 16);
  add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x40, 16, 0, 0);
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "@a.lua:4 holds 4398046511104B: 2 allocs, 1 frees\n"
               "@a.lua:1 holds 8B: 2 allocs, 1 frees\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* Many live blocks: the heap map grows and still finds every one. */
START_TEST(test_many_live_blocks_are_all_found)
{
  struct summary *summary = summary_new();
  add_lua_proto(summary, 0x100, "@a.lua");
  for (uint64_t i = 0; i < 100000; i++)
    add_event(summary, MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 1 + i % 2, 0, 0,
              0x100000 + i * 48, 16);
  for (uint64_t i = 0; i < 100000; i += 2)  /* frees every block of line 1 */
    add_event(summary, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x100000 + i * 48, 16,
              0, 0);
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "@a.lua:2 holds 800000B: 50000 allocs, 0 frees\n"
               "\n");
  summary_free(summary);
}
END_TEST

/* ---- Several streams as one ------------------------------------------------ */

struct memory_sink {
  uint8_t *data;
  size_t size;
};

static int memory_sink_write(void *context, const uint8_t *data, size_t size)
{
  struct memory_sink *sink = context;
  sink->data = realloc(sink->data, sink->size + size);
  if (!sink->data)
    return -1;
  memcpy(sink->data + sink->size, data, size);
  sink->size += size;
  return 0;
}

/* A stream with the given prologue symbols and events. */
static struct memory_sink write_stream(const struct memprof_symbol *symbols, size_t symbol_count,
                                       const struct memprof_event *events, size_t event_count)
{
  struct memory_sink sink = {NULL, 0};
  uint8_t buffer[256];
  struct memprof_writer writer;
  memprof_writer_init(&writer, buffer, sizeof buffer, memory_sink_write, &sink);
  ck_assert_int_eq(memprof_writer_symtab_begin(&writer), 0);
  for (size_t i = 0; i < symbol_count; i++)
    ck_assert_int_eq(memprof_writer_symbol(&writer, &symbols[i]), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(&writer), 0);
  ck_assert_int_eq(memprof_writer_events_begin(&writer), 0);
  for (size_t i = 0; i < event_count; i++)
    ck_assert_int_eq(memprof_writer_event(&writer, &events[i]), 0);
  ck_assert_int_eq(memprof_writer_epilogue(&writer), 0);
  ck_assert_int_eq(memprof_writer_flush(&writer), 0);
  return sink;
}

static void read_stream(struct summary *summary, const struct memory_sink *stream,
                        const char *name)
{
  struct format_error err;
  struct memprof_reader *reader =
      memprof_reader_open_memory(stream->data, stream->size, name, &err);
  ck_assert_ptr_nonnull(reader);
  ck_assert_int_eq(summary_read(summary, reader, &err), FORMAT_END);
  memprof_reader_close(reader);
}

/* A block made in the first stream and freed in the second is charged to
 * its site; the first stream's symbols name the second stream's events. */
START_TEST(test_second_stream_continues_the_first)
{
  static const struct memprof_symbol first_symbols[] = {
      {MEMPROF_SYMBOL_LUA, 0x100, 1, 0, "@a.lua", 6}};
  static const struct memprof_event first_events[] = {
      {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 5, 0, 0, 0x1000, 100},
      {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 5, 0, 0, 0x2000, 40}};
  static const struct memprof_event second_events[] = {
      {MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, 0x1000, 100, 0, 0},
      {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x100, 6, 0, 0, 0x3000, 10}};
  struct memory_sink first = write_stream(first_symbols, 1, first_events, 2);
  struct memory_sink second = write_stream(NULL, 0, second_events, 2);

  struct summary *summary = summary_new();
  read_stream(summary, &first, "first.bin");
  read_stream(summary, &second, "second.bin");
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "@a.lua:5 holds 40B: 2 allocs, 1 frees\n"
               "@a.lua:6 holds 10B: 1 allocs, 0 frees\n"
               "\n");
  ck_assert_uint_eq(summary_event_count(summary), 4);
  summary_free(summary);

  /* Read alone, the second stream knows neither the block nor the symbol. */
  summary = summary_new();
  read_stream(summary, &second, "second.bin");
  check_report(summary, 1, 0,
               "HEAP SUMMARY:\n"
               "CFUNC 0x100 holds 10B: 1 allocs, 0 frees\n"
               "\n");
  summary_free(summary);
  free(first.data);
  free(second.data);
}
END_TEST

int main(void)
{
  Suite *suite = suite_create("summary");
  TCase *comparison = tcase_create("comparison");
  tcase_add_test(comparison, test_comparison_accepts_reordered_equal_keys);
  tcase_add_test(comparison, test_comparison_rejects_real_differences);
  suite_add_tcase(suite, comparison);

  TCase *fixtures = tcase_create("tarantool");
  tcase_set_timeout(fixtures, 120);
  tcase_add_test(fixtures, test_basic_jiton_default_matches_tarantool);
  tcase_add_test(fixtures, test_basic_jiton_leak_only_matches_tarantool);
  tcase_add_test(fixtures, test_basic_jitoff_default_matches_tarantool);
  tcase_add_test(fixtures, test_basic_jitoff_leak_only_matches_tarantool);
  tcase_add_loop_test(fixtures, test_each_segment_leak_only_matches_tarantool, 1, 7);
  tcase_add_test(fixtures, test_segments_read_together_form_one_stream);
  tcase_add_test(fixtures, test_killed_capture_is_summarised_up_to_the_cut);
  tcase_add_test(fixtures, test_unreadable_and_corrupt_inputs_are_errors);
  tcase_add_test(fixtures, test_read_status_tells_input_errors_from_good_and_cut_streams);
  suite_add_tcase(suite, fixtures);

  TCase *semantics = tcase_create("semantics");
  tcase_add_test(semantics, test_reallocs_and_frees_charge_the_allocating_site);
  tcase_add_test(semantics, test_two_ids_with_one_name_stay_apart);
  tcase_add_test(semantics, test_reused_trace_number_keeps_first_name);
  tcase_add_test(semantics, test_overrides_are_sorted_in_byte_order);
  tcase_add_test(semantics, test_aliases_list_non_empty_lines);
  tcase_add_test(semantics, test_alias_sources_cannot_repaint_the_terminal);
  tcase_add_test(semantics, test_human_readable_bytes_match_the_parser);
  tcase_add_test(semantics, test_human_readable_report_formats_every_byte_column);
  tcase_add_test(semantics, test_huge_blocks_keep_their_size);
  tcase_add_test(semantics, test_many_live_blocks_are_all_found);
  tcase_add_test(semantics, test_second_stream_continues_the_first);
  suite_add_tcase(suite, semantics);

  return check_run(suite);
}
