/* tests/test_diff_stacks.c: growth by call stack: (site, stack) series across segments, stacks matched by content, --by stack, base mode by stack, captures without sidecars, chunk names that forge frames. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff/allow.h"
#include "diff/diff.h"
#include "format/stacks.h"
#include "tests/check_run.h"
#include "tests/diff_fixture.h"

/* One helper (@t.lua:10, defined at 9) called from two places: a leaking
 * caller (@t.lua:21, in a function defined at 20) whose blocks are kept, and
 * a steady caller (@t.lua:31, defined at 30) that frees its last block. */
#define LEAK_CALLER 1
#define STEADY_CALLER 2

struct sidecar {
  FILE *file;
  struct stacks_writer writer;
  uint8_t buffer[4096];
  uint32_t stack_of[3];       /* caller -> the sidecar's id */
};

static void sidecar_open(struct sidecar *s, const char *path)
{
  s->file = fopen(path, "wb");
  ck_assert_ptr_nonnull(s->file);
  stacks_writer_init(&s->writer, s->buffer, sizeof s->buffer, fixture_sink, s->file);
  ck_assert_int_eq(stacks_writer_header(&s->writer), 0);
}

static void sidecar_begin(struct sidecar *s, const char *path, int swapped)
{
  sidecar_open(s, path);
  uint32_t chunk = stacks_writer_string(&s->writer, "@t.lua", 6);
  struct stacks_wire_frame leak[] = {{STACKS_FRAME_LUA, chunk, 9, 10},
                                     {STACKS_FRAME_LUA, chunk, 20, 21},
                                     {STACKS_FRAME_LUA, chunk, 0, 40}};
  struct stacks_wire_frame steady[] = {{STACKS_FRAME_LUA, chunk, 9, 10},
                                       {STACKS_FRAME_LUA, chunk, 30, 31},
                                       {STACKS_FRAME_LUA, chunk, 0, 41}};
  /* The ids differ from segment to segment: stacks match by content. */
  if (swapped) {
    s->stack_of[STEADY_CALLER] = stacks_writer_stack(&s->writer, steady, 3, 0);
    s->stack_of[LEAK_CALLER] = stacks_writer_stack(&s->writer, leak, 3, 0);
  } else {
    s->stack_of[LEAK_CALLER] = stacks_writer_stack(&s->writer, leak, 3, 0);
    s->stack_of[STEADY_CALLER] = stacks_writer_stack(&s->writer, steady, 3, 0);
  }
}

static void sidecar_end(struct sidecar *s)
{
  ck_assert_int_eq(stacks_writer_end(&s->writer), 0);
  ck_assert_int_eq(stacks_writer_flush(&s->writer), 0);
  fclose(s->file);
}

/* Segment k (1-based) of a capture: the leaking caller keeps one block of
 * 8 KiB (when leak), the steady caller replaces its block. With sidecars,
 * each allocation's stack is in seg-k.stacks. */
static void write_segment(const char *dir, int k, int leak, int sidecars)
{
  char path[600];
  snprintf(path, sizeof path, "%s/seg-%04d.memprof", dir, k);
  struct fixture_segment seg;
  struct sidecar side;
  fixture_begin(&seg, path);
  if (sidecars) {
    snprintf(path, sizeof path, "%s/seg-%04d.stacks", dir, k);
    sidecar_begin(&side, path, k % 2 == 0);
  }
  uint64_t event = 0;
  if (leak) {
    fixture_alloc(&seg, 10, 0x100000 + (uint64_t)k * 0x1000, 8192);
    if (sidecars)
      ck_assert_int_eq(stacks_writer_event(&side.writer, event, side.stack_of[LEAK_CALLER]), 0);
    event++;
  }
  fixture_alloc(&seg, 10, 0x200000 + (uint64_t)k * 0x1000, 8192);
  if (sidecars)
    ck_assert_int_eq(stacks_writer_event(&side.writer, event, side.stack_of[STEADY_CALLER]), 0);
  event++;
  if (k > 1)
    fixture_free(&seg, 10, 0x200000 + (uint64_t)(k - 1) * 0x1000, 8192);
  fixture_end(&seg, 0);
  if (sidecars)
    sidecar_end(&side);
}

static void write_capture(char *dir, size_t size, const char *name, int segments, int leak,
                          int sidecars)
{
  fixture_directory(dir, size, name);
  for (int k = 1; k <= segments; k++)
    write_segment(dir, k, leak, sidecars);
}

static const struct diff_site *find_named(const struct diff_site *sites, size_t count,
                                          const char *name)
{
  for (size_t i = 0; i < count; i++)
    if (!strcmp(sites[i].name, name))
      return &sites[i];
  return NULL;
}

static void check_series(const struct diff_site *s, const uint64_t *expected, size_t count)
{
  ck_assert_uint_eq(s->count, count);
  for (size_t i = 0; i < count; i++)
    if (s->live_bytes[i] != expected[i])
      ck_abort_msg("%s: boundary %zu: %llu live bytes, expected %llu", s->name, i + 1,
                   (unsigned long long)s->live_bytes[i], (unsigned long long)expected[i]);
}

#define LEAK_STACK "@t.lua:40;@t.lua:21;@t.lua:10"
#define STEADY_STACK "@t.lua:41;@t.lua:31;@t.lua:10"

START_TEST(test_one_site_two_stacks_names_the_leaking_caller)
{
  char dir[512];
  write_capture(dir, sizeof dir, "stacks", 6, 1, 1);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_str_eq(r.sites[0].name, "@t.lua:10");
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  static const uint64_t site_series[] = {16384, 24576, 32768, 40960, 49152, 57344};
  check_series(&r.sites[0], site_series, 6);
  /* Two stacks, though their ids swap from segment to segment; the leaking one first. */
  ck_assert_uint_eq(r.stack_count, 2);
  ck_assert_str_eq(r.stacks[0].name, LEAK_STACK);
  ck_assert_int_eq(r.stacks[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_str_eq(r.stacks[1].name, STEADY_STACK);
  ck_assert_int_eq(r.stacks[1].verdict, DIFF_VERDICT_STEADY);
  static const uint64_t leak_series[] = {8192, 16384, 24576, 32768, 40960, 49152};
  static const uint64_t steady_series[] = {8192, 8192, 8192, 8192, 8192, 8192};
  check_series(&r.stacks[0], leak_series, 6);
  check_series(&r.stacks[1], steady_series, 6);
  ck_assert_uint_eq(r.stacks[0].site_id, r.sites[0].id);
  ck_assert_uint_eq(r.stacks[1].site_id, r.sites[0].id);
  ck_assert_int_eq(r.stacks[0].is_stack, 1);
  ck_assert_uint_eq(r.stacks[0].frame_count, 3);
  ck_assert_str_eq(r.stacks[0].frames[0].name, "@t.lua");
  ck_assert_uint_eq(r.stacks[0].frames[0].defined, 9);
  ck_assert_uint_eq(r.stacks[0].frames[0].line, 10);
  ck_assert_uint_eq(r.stacks[0].frames[1].defined, 20);
  ck_assert_uint_eq(r.stacks[0].frames[1].line, 21);
  ck_assert_int_eq(r.stacks[0].frames[2].kind, STACKS_FRAME_LUA);
  ck_assert_uint_eq(r.stacks[0].allocs, 6);
  ck_assert_uint_eq(r.stacks[1].allocs, 6);
  ck_assert_uint_eq(r.stacks[1].frees, 5);
  ck_assert_str_eq(r.stacks[0].source_file, "t.lua");
  ck_assert_uint_eq(r.stacks[0].source_line, 10);
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

START_TEST(test_by_stack_rows_are_stacks_with_their_verdicts)
{
  char dir[512];
  write_capture(dir, sizeof dir, "stacks-by", 6, 1, 1);
  struct diff_options options;
  diff_options_default(&options);
  options.by = DIFF_BY_STACK;
  options.jobs = 3;  /* segments read on workers, their aggregates reused */
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 2);
  ck_assert_uint_eq(r.stack_count, 0);
  ck_assert_uint_eq(r.flagged, 1);
  ck_assert_str_eq(r.sites[0].name, LEAK_STACK);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_str_eq(r.sites[1].name, STEADY_STACK);
  ck_assert_int_eq(r.sites[1].verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(r.options.by, DIFF_BY_STACK);
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

START_TEST(test_capture_without_sidecars_has_no_stacks)
{
  char dir[512];
  write_capture(dir, sizeof dir, "nostacks", 6, 1, 0);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_uint_eq(r.stack_count, 0);
  ck_assert_ptr_null(r.stacks);
  static const uint64_t site_series[] = {16384, 24576, 32768, 40960, 49152, 57344};
  check_series(&r.sites[0], site_series, 6);
  ck_assert_int_eq(r.sites[0].is_stack, 0);
  diff_result_free(&r);
  /* By stack, each site is one stack without frames, named as the site. */
  options.by = DIFF_BY_STACK;
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_str_eq(r.sites[0].name, "@t.lua:10");
  ck_assert_uint_eq(r.sites[0].frame_count, 0);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  check_series(&r.sites[0], site_series, 6);
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

START_TEST(test_base_by_stack_flags_the_new_leaking_stack)
{
  char base[512], candidate[512];
  write_capture(base, sizeof base, "stacks-base", 6, 0, 1);
  write_capture(candidate, sizeof candidate, "stacks-cand", 6, 1, 1);
  struct diff_options options;
  diff_options_default(&options);
  options.by = DIFF_BY_STACK;
  struct diff_result r;
  struct format_error err;
  const char *base_paths[] = {base}, *paths[] = {candidate};
  ck_assert_int_eq(diff_base(base_paths, 1, paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 2);
  ck_assert_uint_eq(r.flagged, 1);
  const struct diff_site *leak = find_named(r.sites, r.site_count, LEAK_STACK);
  const struct diff_site *steady = find_named(r.sites, r.site_count, STEADY_STACK);
  ck_assert_ptr_nonnull(leak);
  ck_assert_ptr_nonnull(steady);
  ck_assert_int_eq(leak->verdict, DIFF_VERDICT_NEW);
  ck_assert_uint_eq(leak->base_count, 0);  /* the base never took that path */
  ck_assert_int_eq(steady->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(steady->base_verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(steady->base_count, 6);
  diff_result_free(&r);
  /* By site, the stacks of the site are compared with the base's alike. */
  options.by = DIFF_BY_SITE;
  ck_assert_int_eq(diff_base(base_paths, 1, paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_NEW);
  ck_assert_uint_eq(r.stack_count, 2);
  leak = find_named(r.stacks, r.stack_count, LEAK_STACK);
  steady = find_named(r.stacks, r.stack_count, STEADY_STACK);
  ck_assert_ptr_nonnull(leak);
  ck_assert_ptr_nonnull(steady);
  ck_assert_int_eq(leak->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(steady->verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(steady->base_verdict, DIFF_VERDICT_STEADY);
  diff_result_free(&r);
  fixture_remove(base);
  fixture_remove(candidate);
}
END_TEST

START_TEST(test_decide_again_judges_stacks_with_the_warmup)
{
  char dir[512];
  write_capture(dir, sizeof dir, "stacks-decide", 6, 1, 1);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  /* Two boundaries left out: four are too few for a trend at p 0.01. */
  options.warmup = 2;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  const struct diff_site *leak = find_named(r.stacks, r.stack_count, LEAK_STACK);
  ck_assert_ptr_nonnull(leak);
  ck_assert_int_eq(leak->verdict, DIFF_VERDICT_UNDECIDED);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_UNDECIDED);
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

/* Gzipped segments and sidecars listed from the directory (no index), the
 * last one a .part: the sidecars are read beside their segments, never as
 * segments themselves. */
START_TEST(test_gzipped_sidecars_and_a_part_are_not_segments)
{
  char dir[512], command[1200];
  write_capture(dir, sizeof dir, "stacks-gz", 6, 1, 1);
  snprintf(command, sizeof command,
           "cd '%s' && gzip seg-*.memprof seg-*.stacks && mv seg-0006.memprof.gz seg-0006.memprof.gz.part "
           "&& mv seg-0006.stacks.gz seg-0006.stacks.gz.part",
           dir);
  ck_assert_int_eq(system(command), 0);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_msg(diff_trend(paths, 1, &options, &r, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_uint_eq(r.capture.boundary_count, 5);  /* the .part ends on no GC cycle */
  ck_assert_uint_eq(r.stack_count, 2);
  ck_assert_str_eq(r.stacks[0].name, LEAK_STACK);
  ck_assert_int_eq(r.stacks[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(r.stacks[0].allocs, 6);  /* the .part's allocation has its stack */
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

static void collect_warning(void *context, const char *message)
{
  char *last = context;
  snprintf(last, 512, "%s", message);
}

/* A sidecar cut short: a warning, the sites as they were, and the events
 * past the cut in a stack without frames, named as their site. */
START_TEST(test_cut_sidecar_warns_and_keeps_the_sites)
{
  char dir[512], path[600];
  write_capture(dir, sizeof dir, "stacks-cut", 6, 1, 1);
  snprintf(path, sizeof path, "%s/seg-0003.stacks", dir);
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), 8), 0);  /* the header only */
  fclose(f);
  char warning[512] = "";
  struct diff_options options;
  diff_options_default(&options);
  options.warn = collect_warning;
  options.warn_context = warning;
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_msg(diff_trend(paths, 1, &options, &r, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(strstr(warning, "seg-0003.stacks") && strstr(warning, "(the stacks of event 0 on are unknown)"),
                "warning: %s", warning);
  static const uint64_t site_series[] = {16384, 24576, 32768, 40960, 49152, 57344};
  check_series(&r.sites[0], site_series, 6);
  ck_assert_uint_eq(r.stack_count, 3);
  const struct diff_site *unknown = find_named(r.stacks, r.stack_count, "@t.lua:10");
  ck_assert_ptr_nonnull(unknown);
  ck_assert_uint_eq(unknown->frame_count, 0);
  ck_assert_uint_eq(unknown->allocs, 2);  /* segment 3's two allocations */
  const struct diff_site *leak = find_named(r.stacks, r.stack_count, LEAK_STACK);
  ck_assert_uint_eq(leak->allocs, 5);
  diff_result_free(&r);
  fixture_remove(dir);
}
END_TEST

/* A capture stopped (a full disk) or killed as it began a segment: that segment's .part is
 * empty, or its sidecar's .part is (or holds part of its header). The segments before it are
 * read as they would be without it, with a warning, not refused. */
START_TEST(test_a_part_made_as_the_capture_ended_is_a_cut_segment)
{
  static const char *const sidecars[] = {NULL, "", "ljs"};
  for (size_t k = 0; k < 3; k++) {
    char dir[512], path[600];
    write_capture(dir, sizeof dir, "empty-part", 6, 1, 1);
    snprintf(path, sizeof path, "%s/seg-0007.memprof.part", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    if (sidecars[k]) {
      snprintf(path, sizeof path, "%s/seg-0007.stacks.part", dir);
      f = fopen(path, "wb");
      ck_assert_ptr_nonnull(f);
      fputs(sidecars[k], f);
      fclose(f);
    }
    char warning[512] = "";
    struct diff_options options;
    diff_options_default(&options);
    options.warn = collect_warning;
    options.warn_context = warning;
    struct diff_result r;
    struct format_error err;
    const char *paths[] = {dir};
    ck_assert_msg(diff_trend(paths, 1, &options, &r, &err) == FORMAT_OK, "%s", err.message);
    ck_assert_msg(strstr(warning, "seg-0007.memprof.part: byte 0: empty"), "warning: %s", warning);
    static const uint64_t site_series[] = {16384, 24576, 32768, 40960, 49152, 57344};
    check_series(&r.sites[0], site_series, 6);
    const struct diff_site *leak = find_named(r.stacks, r.stack_count, LEAK_STACK);
    ck_assert_ptr_nonnull(leak);
    ck_assert_int_eq(leak->verdict, DIFF_VERDICT_GROWING);
    diff_result_free(&r);
    fixture_remove(dir);
  }
}
END_TEST

/* A chunk the captured program named with a ';' (load(code, name)), a control
 * byte and a byte that is not UTF-8, allocating at its line 1 under @t.lua:4:
 * its stack is those two frames, its leaf's label once, cleaned. */
#define FORGING_CHUNK "@evil\x1b\xff.lua;@trusted.lua"
#define FORGING_STACK "@t.lua:4;@evil_\xef\xbf\xbd.lua_@trusted.lua:1"

static void write_forging_segment(const char *dir, int k)
{
  char path[600];
  struct fixture_segment seg;
  struct sidecar side;
  snprintf(path, sizeof path, "%s/seg-%04d.memprof", dir, k);
  fixture_begin_chunk(&seg, path, FORGING_CHUNK);
  snprintf(path, sizeof path, "%s/seg-%04d.stacks", dir, k);
  sidecar_open(&side, path);
  uint32_t chunk = stacks_writer_string(&side.writer, FORGING_CHUNK, strlen(FORGING_CHUNK));
  uint32_t caller = stacks_writer_string(&side.writer, "@t.lua", 6);
  struct stacks_wire_frame frames[] = {{STACKS_FRAME_LUA, chunk, 0, 1}, {STACKS_FRAME_LUA, caller, 0, 4}};
  uint32_t stack = stacks_writer_stack(&side.writer, frames, 2, 0);
  fixture_alloc(&seg, 1, 0x100000 + (uint64_t)k * 0x1000, 8192);
  ck_assert_int_eq(stacks_writer_event(&side.writer, 0, stack), 0);
  fixture_end(&seg, 0);
  sidecar_end(&side);
}

START_TEST(test_a_chunk_name_with_a_separator_forges_no_frame_nor_allow_rule)
{
  char dir[512];
  fixture_directory(dir, sizeof dir, "stacks-forging");
  for (int k = 1; k <= 6; k++)
    write_forging_segment(dir, k);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result r;
  struct format_error err;
  const char *paths[] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_str_eq(r.sites[0].name, FORGING_CHUNK ":1");
  ck_assert_uint_eq(r.stack_count, 1);
  ck_assert_str_eq(r.stacks[0].name, FORGING_STACK);
  diff_result_free(&r);
  /* By stack, the row's leaf is its own site's, not another's: @trusted.lua:1's rule is not its. */
  struct diff_allow *allow;
  const char *rules = "@trusted.lua:1 1M/boundary # another site's\n";
  ck_assert_int_eq(diff_allow_parse("allow.txt", rules, strlen(rules), &allow, &err), FORMAT_OK);
  options.by = DIFF_BY_STACK;
  options.allow = allow;
  ck_assert_int_eq(diff_trend(paths, 1, &options, &r, &err), FORMAT_OK);
  ck_assert_uint_eq(r.site_count, 1);
  ck_assert_str_eq(r.sites[0].name, FORGING_STACK);
  ck_assert_ptr_null(r.sites[0].allowance);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(r.flagged, 1);
  diff_result_free(&r);
  diff_allow_free(allow);
  fixture_remove(dir);
}
END_TEST

static Suite *stacks_suite(void)
{
  Suite *s = suite_create("diff_stacks");
  TCase *c = tcase_create("stacks");
  tcase_set_timeout(c, 60);
  tcase_add_test(c, test_one_site_two_stacks_names_the_leaking_caller);
  tcase_add_test(c, test_a_part_made_as_the_capture_ended_is_a_cut_segment);
  tcase_add_test(c, test_by_stack_rows_are_stacks_with_their_verdicts);
  tcase_add_test(c, test_capture_without_sidecars_has_no_stacks);
  tcase_add_test(c, test_base_by_stack_flags_the_new_leaking_stack);
  tcase_add_test(c, test_decide_again_judges_stacks_with_the_warmup);
  tcase_add_test(c, test_gzipped_sidecars_and_a_part_are_not_segments);
  tcase_add_test(c, test_cut_sidecar_warns_and_keeps_the_sites);
  tcase_add_test(c, test_a_chunk_name_with_a_separator_forges_no_frame_nor_allow_rule);
  suite_add_tcase(s, c);
  return s;
}

int main(void)
{
  return check_run(stacks_suite());
}
