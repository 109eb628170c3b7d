/* tests/test_diff_boundary.c: boundary lines cut segments into pieces: exact series, young blocks, .part captures, parallel reading, errors at their line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "diff/aggregate.h"
#include "diff/diff.h"
#include "tests/diff_fixture.h"
#include "diff/source.h"
#include "diff/survivors.h"
#include "diff/trend.h"

static char dir[512];

static void setup(void)
{
  fixture_directory(dir, sizeof dir, "diff-boundary");
}

static void teardown(void)
{
  fixture_remove(dir);
}

static void begin_segment(struct fixture_segment *s, const char *name)
{
  char path[600];
  fixture_begin(s, fixture_path(path, sizeof path, dir, name));
}

static void write_index(const char *text)
{
  char path[600];
  FILE *index = fopen(fixture_path(path, sizeof path, dir, "index"), "w");
  ck_assert_ptr_nonnull(index);
  fputs(text, index);
  fclose(index);
}

static int warnings;
static char warning_text[4][512];

static void keep_warning(void *context, const char *message)
{
  (void)context;
  if (warnings < 4)
    snprintf(warning_text[warnings], sizeof warning_text[0], "%s", message);
  warnings++;
}

/* diff_trend over dir with jobs workers and min_boundaries 1. */
static enum format_status run(struct diff_result *result, int jobs, int strict, struct format_error *err)
{
  struct diff_options options;
  diff_options_default(&options);
  options.min_boundaries = 1;
  options.jobs = jobs;
  options.strict = strict;
  options.warn = keep_warning;
  warnings = 0;
  const char *paths[1] = {dir};
  return diff_trend(paths, 1, &options, result, err);
}

static void run_ok(struct diff_result *result, int jobs)
{
  struct format_error err;
  ck_assert_msg(run(result, jobs, 0, &err) == FORMAT_OK, "-j %d: %s", jobs, err.message);
}

static const struct diff_site *find_site(const struct diff_result *result, const char *name)
{
  for (size_t i = 0; i < result->site_count; i++)
    if (!strcmp(result->sites[i].name, name))
      return &result->sites[i];
  ck_abort_msg("no site %s", name);
  return NULL;
}

static void assert_series(const char *what, const uint64_t *series, size_t count,
                          const uint64_t *expected, size_t n)
{
  ck_assert_msg(count == n, "%s: %zu boundaries, want %zu", what, count, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(series[i] == expected[i], "%s: boundary %zu: %llu, want %llu", what, i + 1,
                  (unsigned long long)series[i], (unsigned long long)expected[i]);
}

#define SERIES(site, field, ...)                                                              \
  assert_series(#site " " #field, (site)->field, (site)->count, (const uint64_t[]){__VA_ARGS__}, \
                sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* The byte offset of the line that starts with prefix in text. */
static size_t line_offset(const char *text, const char *prefix)
{
  const char *at = strstr(text, prefix);
  ck_assert_ptr_nonnull(at);
  return (size_t)(at - text);
}

#define HEAD_TEXT "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"

/* Writes index and expects diff_trend, with 1 and 2 jobs, to fail at the
 * line that starts with line, saying what. */
static void expect_line_error_at(const char *index, const char *line, const char *what)
{
  write_index(index);
  char expected[2048];
  snprintf(expected, sizeof expected, "%s/index: byte %zu: boundary line: %s", dir, line_offset(index, line),
           what);
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    struct format_error err;
    ck_assert_int_eq(run(&result, jobs, 0, &err), FORMAT_BAD_INPUT);
    ck_assert_str_eq(err.message, expected);
    ck_assert_ptr_null(result.sites);
  }
}

/* Three segments. Segment 1 has boundaries at event 0, in its middle and
 * one event before its end; segment 2 one in its middle and one at its last
 * event; segment 3 none (its events count, it adds no point). */
static const char three_segments_index[] =
    "ljleak-index\tversion=1\n"
    "capture\tpid=7\tstart=100.000\tsample=0\n"
    "boundary\tseq=1\tsegment=1\tevents=0\ttime=100.500\tgc_cycles=1\theap_bytes=1000\tallocated=0"
    "\tyoung_from=0\tcause=start\n"
    "boundary\tseq=2\tsegment=1\tevents=2\ttime=101.500\tgc_cycles=2\theap_bytes=2000\tallocated=150"
    "\tyoung_from=2\tcause=gc\n"
    "boundary\tseq=3\tsegment=1\tevents=4\ttime=102.500\tgc_cycles=3\theap_bytes=3000\tallocated=180"
    "\tyoung_from=4\tcause=gc\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tend=103.000\tgc_cycles=3\theap_bytes=3100\tevents=5"
    "\tcomplete=1\tyoung_from=3\n"
    "boundary\tseq=4\tsegment=2\tevents=1\ttime=103.500\tgc_cycles=4\theap_bytes=3200\tallocated=187"
    "\tyoung_from=1\tcause=every\n"
    "boundary\tseq=5\tsegment=2\tevents=2\ttime=104.000\tgc_cycles=5\theap_bytes=3300\tallocated=196"
    "\tyoung_from=2\tcause=call\n"
    "segment\tseq=2\tfile=seg-0002.memprof\tend=104.000\tgc_cycles=5\theap_bytes=3300\tevents=2"
    "\tcomplete=1\tyoung_from=2\n"
    "segment\tseq=3\tfile=seg-0003.memprof\tend=105.000\tgc_cycles=5\theap_bytes=3400\tevents=2"
    "\tcomplete=0\n"
    "stop\ttime=105.000\treason=exit\n";

static void write_three_segments(void)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 10, 0xa000, 100);   /* event 0 */
  fixture_alloc(&s, 11, 0xb000, 50);    /* event 1 */
  fixture_free(&s, 20, 0xb000, 50);     /* event 2, after boundary 2 */
  fixture_alloc(&s, 10, 0xc000, 30);    /* event 3 */
  fixture_alloc(&s, 12, 0xd000, 7);     /* event 4, after boundary 3: the segment's tail */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_free(&s, 20, 0xa000, 100);    /* event 0 */
  fixture_alloc(&s, 12, 0xe000, 9);     /* event 1; boundary 5 after it, at the segment's end */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0003.memprof");
  fixture_alloc(&s, 13, 0xf000, 5);
  fixture_free(&s, 20, 0xd000, 7);
  fixture_end(&s, 0);
  write_index(three_segments_index);
}

/* What survived of each boundary's blocks at the next, from the frees between: a block
 * born before a boundary and freed after it counts, in the segment's own pieces and from
 * the capture's map; a block born and freed between two boundaries does not, nor does a
 * block young at a boundary (not counted live there). */
static const char survived_index[] =
    "ljleak-index\tversion=1\n"
    "capture\tpid=7\tstart=100.000\tsample=0\n"
    "boundary\tseq=1\tsegment=1\tevents=3\ttime=100.500\tgc_cycles=1\theap_bytes=1000\tallocated=0"
    "\tyoung_from=2\tcause=gc\n"
    "boundary\tseq=2\tsegment=1\tevents=8\ttime=101.500\tgc_cycles=2\theap_bytes=2000\tallocated=0"
    "\tcause=gc\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tend=102.000\tgc_cycles=2\theap_bytes=2000\tevents=8"
    "\tcomplete=1\n"
    "boundary\tseq=3\tsegment=2\tevents=2\ttime=102.500\tgc_cycles=3\theap_bytes=3000\tallocated=0"
    "\tcause=gc\n"
    "segment\tseq=2\tfile=seg-0002.memprof\tend=103.000\tgc_cycles=3\theap_bytes=3000\tevents=2"
    "\tcomplete=1\n"
    "stop\ttime=103.000\treason=exit\n";

START_TEST(test_survived_counts_the_frees_of_blocks_live_at_the_boundary_before)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 10, 0xa000, 100);   /* event 0 */
  fixture_alloc(&s, 10, 0xb000, 50);    /* event 1 */
  fixture_alloc(&s, 10, 0xf000, 40);    /* event 2: young at boundary 1 */
  fixture_free(&s, 20, 0xa000, 100);    /* event 3: lived at boundary 1 */
  fixture_alloc(&s, 10, 0xc000, 80);    /* event 4 */
  fixture_free(&s, 20, 0xc000, 80);     /* event 5: born since boundary 1 */
  fixture_free(&s, 20, 0xf000, 40);     /* event 6: young at boundary 1 */
  fixture_alloc(&s, 10, 0xd000, 60);    /* event 7 */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_free(&s, 20, 0xb000, 50);     /* event 0: the capture's, lived at boundary 2 */
  fixture_alloc(&s, 10, 0xe000, 10);    /* event 1 */
  fixture_end(&s, 0);
  write_index(survived_index);
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    const struct diff_site *site = find_site(&result, "@t.lua:10");
    SERIES(site, live_bytes, 150, 110, 70);
    SERIES(site, survived, UINT64_MAX, 90, 60);  /* 150 + 40 young - 100; 110 - 50 */
    diff_result_free(&result);
  }
}
END_TEST

/* A segment that ends between two boundaries: the next one's frees of the capture's blocks
 * may be of blocks born since the boundary before (X), which never lived at it, so they count
 * only beyond what was allocated since. Frees of 130 bytes, 30 allocated since: 100 freed of
 * what lived at boundary 1, all of it. */
static const char survived_between_index[] =
    "ljleak-index\tversion=1\n"
    "capture\tpid=7\tstart=100.000\tsample=0\n"
    "boundary\tseq=1\tsegment=1\tevents=1\ttime=100.500\tgc_cycles=1\theap_bytes=1000\tallocated=0"
    "\tcause=gc\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tend=101.000\tgc_cycles=1\theap_bytes=1000\tevents=2"
    "\tcomplete=1\n"
    "boundary\tseq=2\tsegment=2\tevents=3\ttime=102.500\tgc_cycles=2\theap_bytes=3000\tallocated=0"
    "\tcause=gc\n"
    "segment\tseq=2\tfile=seg-0002.memprof\tend=103.000\tgc_cycles=2\theap_bytes=3000\tevents=3"
    "\tcomplete=1\n"
    "stop\ttime=103.000\treason=exit\n";

START_TEST(test_survived_across_a_segment_that_ends_between_boundaries)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 10, 0xa000, 100);   /* event 0 */
  fixture_alloc(&s, 10, 0xb000, 30);    /* event 1: X, after boundary 1 */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_free(&s, 20, 0xb000, 30);     /* X */
  fixture_free(&s, 20, 0xa000, 100);
  fixture_alloc(&s, 10, 0xc000, 20);
  fixture_end(&s, 0);
  write_index(survived_between_index);
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    const struct diff_site *site = find_site(&result, "@t.lua:10");
    SERIES(site, live_bytes, 100, 20);
    SERIES(site, survived, UINT64_MAX, 0);
    diff_result_free(&result);
  }
}
END_TEST

START_TEST(test_boundary_lines_are_the_boundaries_at_event_0_mid_segment_and_at_its_end)
{
  write_three_segments();
  struct diff_result result;
  run_ok(&result, 1);
  ck_assert_int_eq(warnings, 0);
  ck_assert_uint_eq(result.capture.boundary_count, 5);
  ck_assert_uint_eq(result.capture.events, 9);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  SERIES(site, live_bytes, 0, 100, 130, 30, 30);
  SERIES(site, live_blocks, 0, 1, 2, 1, 1);
  SERIES(site, alloc_bytes, 0, 100, 30, 0, 0);
  SERIES(site, free_bytes, 0, 0, 0, 100, 0);
  ck_assert_uint_eq(site->allocs, 2);
  ck_assert_uint_eq(site->frees, 1);
  site = find_site(&result, "@t.lua:11");
  SERIES(site, live_bytes, 0, 50, 0, 0, 0);
  SERIES(site, alloc_bytes, 0, 50, 0, 0, 0);
  SERIES(site, free_bytes, 0, 0, 50, 0, 0);
  /* Born in segment 1's tail (after its last boundary): counted at the next boundary. */
  site = find_site(&result, "@t.lua:12");
  SERIES(site, live_bytes, 0, 0, 0, 7, 16);
  SERIES(site, alloc_bytes, 0, 0, 0, 7, 9);
  SERIES(site, free_bytes, 0, 0, 0, 0, 0);
  ck_assert_uint_eq(site->allocs, 2);
  ck_assert_uint_eq(site->frees, 1);  /* freed in segment 3, after the last boundary */
  /* Segment 3 has no boundary: its site is there, with no point of its own. */
  site = find_site(&result, "@t.lua:13");
  SERIES(site, live_bytes, 0, 0, 0, 0, 0);
  ck_assert_uint_eq(site->allocs, 1);

  /* The boundaries' metadata comes from their lines, not from the segments. */
  const struct diff_capture *c = &result.capture;
  ck_assert_ptr_nonnull(c->boundary_times);
  ck_assert_ptr_nonnull(c->gc_cycles);
  ck_assert_ptr_nonnull(c->heap_bytes);
  ck_assert_ptr_nonnull(c->allocated);
  ck_assert_ptr_nonnull(c->forced);
  static const double times[5] = {100.5, 101.5, 102.5, 103.5, 104.0};
  static const uint64_t cycles[5] = {1, 2, 3, 4, 5}, heap[5] = {1000, 2000, 3000, 3200, 3300},
                        allocated[5] = {0, 150, 180, 187, 196};
  static const unsigned char forced[5] = {1, 0, 0, 1, 1};
  for (size_t i = 0; i < 5; i++) {
    ck_assert(c->boundary_times[i] == times[i]);
    ck_assert_uint_eq(c->gc_cycles[i], cycles[i]);
    ck_assert_uint_eq(c->heap_bytes[i], heap[i]);
    ck_assert_uint_eq(c->allocated[i], allocated[i]);
    ck_assert_uint_eq(c->forced[i], forced[i]);
  }
  /* Seconds per boundary for the growth rate: (104 - 100.5) / 4. */
  const struct diff_site *grower = find_site(&result, "@t.lua:12");
  ck_assert(grower->growth_bytes_per_second == grower->growth_bytes_per_segment / 0.875);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_young_blocks_at_a_mid_segment_boundary_count_at_the_next_one)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 20, 0x1000, 10);   /* event 0: before boundary 1's cycle: old */
  fixture_alloc(&s, 21, 0x2000, 20);   /* event 1: young at boundary 1 */
  fixture_alloc(&s, 22, 0x3000, 30);   /* event 2: young, freed before boundary 2 */
  fixture_free(&s, 29, 0x3000, 30);    /* event 3 */
  fixture_alloc(&s, 23, 0x4000, 40);   /* event 4: young at boundary 2 */
  fixture_alloc(&s, 24, 0x5000, 50);   /* event 5: the tail, no boundary: old at boundary 3 */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_alloc(&s, 25, 0x6000, 60);   /* event 0: young at boundary 3 */
  fixture_realloc(&s, 26, 0x1000, 10, 0x7000, 70);  /* event 1: after boundary 3 */
  fixture_end(&s, 0);
  write_index("ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
              "boundary\tseq=1\tsegment=1\tevents=3\tyoung_from=1\tcause=gc\n"
              "boundary\tseq=2\tsegment=1\tevents=5\tyoung_from=4\tcause=gc\n"
              "segment\tseq=1\tfile=seg-0001.memprof\tevents=6\tcomplete=1\tyoung_from=0\n"
              "boundary\tseq=3\tsegment=2\tevents=1\tyoung_from=0\tcause=gc\n"
              "segment\tseq=2\tfile=seg-0002.memprof\tevents=2\tcomplete=1\tyoung_from=2\n");
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    ck_assert_uint_eq(result.capture.boundary_count, 3);
    /* No time, GC cycles, heap or work done in the lines: none in the result. */
    ck_assert_ptr_null(result.capture.boundary_times);
    ck_assert_ptr_null(result.capture.gc_cycles);
    ck_assert_ptr_null(result.capture.heap_bytes);
    ck_assert_ptr_null(result.capture.allocated);
    ck_assert_ptr_nonnull(result.capture.forced);
    ck_assert_uint_eq(result.capture.forced[2], 0);
    const struct diff_site *site = find_site(&result, "@t.lua:20");
    SERIES(site, live_bytes, 10, 10, 10);
    site = find_site(&result, "@t.lua:21");
    SERIES(site, live_bytes, 0, 20, 20);
    SERIES(site, live_blocks, 0, 1, 1);
    site = find_site(&result, "@t.lua:22");  /* young, then freed: never counted */
    SERIES(site, live_bytes, 0, 0, 0);
    SERIES(site, alloc_bytes, 30, 0, 0);
    SERIES(site, free_bytes, 0, 30, 0);
    site = find_site(&result, "@t.lua:23");
    SERIES(site, live_bytes, 0, 0, 40);
    site = find_site(&result, "@t.lua:24");
    SERIES(site, live_bytes, 0, 0, 50);
    site = find_site(&result, "@t.lua:25");
    SERIES(site, live_bytes, 0, 0, 0);
    SERIES(site, alloc_bytes, 0, 0, 60);
    site = find_site(&result, "@t.lua:26");
    SERIES(site, live_bytes, 0, 0, 0);
    diff_result_free(&result);
  }
}
END_TEST

/* A table's array part resized during the final cycle is as old as the
 * part it replaces: counted at the boundary (flush_leak.lua's audit list
 * read 0 at one boundary of 31, and the leak passed). A young block moved
 * stays young. */
START_TEST(test_a_realloc_in_the_final_cycle_keeps_the_age_of_the_block_it_moves)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 30, 0xa000, 100);                 /* event 0: old */
  fixture_alloc(&s, 31, 0xb000, 10);                  /* event 1: young at boundary 1 */
  fixture_realloc(&s, 30, 0xa000, 100, 0xa800, 200);  /* event 2: moves an old block */
  fixture_realloc(&s, 31, 0xb000, 10, 0xb800, 20);    /* event 3: moves a young one */
  fixture_realloc(&s, 32, 0xd000, 8, 0xd800, 16);     /* event 4: the capture's block */
  fixture_alloc(&s, 33, 0xc000, 5);                   /* event 5 */
  fixture_end(&s, 0);
  write_index("ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
              "boundary\tseq=1\tsegment=1\tevents=5\tyoung_from=1\tcause=gc\n"
              "boundary\tseq=2\tsegment=1\tevents=6\tyoung_from=6\tcause=gc\n"
              "segment\tseq=1\tfile=seg-0001.memprof\tevents=6\tcomplete=1\tyoung_from=6\n");
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    const struct diff_site *site = find_site(&result, "@t.lua:30");
    SERIES(site, live_bytes, 200, 200);
    SERIES(site, live_blocks, 1, 1);
    site = find_site(&result, "@t.lua:31");
    SERIES(site, live_bytes, 0, 20);
    site = find_site(&result, "@t.lua:32");  /* born before the capture: old */
    SERIES(site, live_bytes, 16, 16);
    diff_result_free(&result);
  }
}
END_TEST

START_TEST(test_block_born_in_piece_1_and_freed_in_piece_3_of_one_segment)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 30, 0x7000, 64);
  fixture_alloc(&s, 31, 0x8000, 1);
  fixture_free(&s, 39, 0x7000, 64);
  fixture_alloc(&s, 30, 0x7000, 8);     /* the address again, a new block */
  fixture_end(&s, 0);
  write_index("ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
              "boundary\tseq=1\tsegment=1\tevents=1\n"
              "boundary\tseq=2\tsegment=1\tevents=2\n"
              "boundary\tseq=3\tsegment=1\tevents=3\n"
              "boundary\tseq=4\tsegment=1\tevents=4\n"
              "segment\tseq=1\tfile=seg-0001.memprof\tevents=4\tcomplete=1\n");
  struct diff_result result;
  run_ok(&result, 1);
  ck_assert_uint_eq(result.capture.boundary_count, 4);
  const struct diff_site *site = find_site(&result, "@t.lua:30");
  SERIES(site, live_bytes, 64, 64, 0, 8);
  SERIES(site, live_blocks, 1, 1, 0, 1);
  SERIES(site, alloc_bytes, 64, 0, 0, 8);
  SERIES(site, free_bytes, 0, 0, 64, 0);
  ck_assert_uint_eq(site->allocs, 2);
  ck_assert_uint_eq(site->frees, 1);
  /* No cause in the lines: no cycle was forced. */
  for (size_t i = 0; i < 4; i++)
    ck_assert_uint_eq(result.capture.forced[i], 0);
  diff_result_free(&result);
}
END_TEST

/* Survivors (diff/survivors.h): the blocks a site held at a mark, followed
 * to later boundaries across segments; an address freed and taken again is
 * a new block, not a survivor. */
START_TEST(test_survivors_of_a_mark_are_the_blocks_held_there_still_live)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 30, 0x1000, 100);
  fixture_alloc(&s, 30, 0x2000, 200);   /* boundary 1 after it: marked, 300 bytes */
  fixture_free(&s, 39, 0x1000, 100);
  fixture_alloc(&s, 30, 0x1000, 50);    /* the address again: a new block */
  fixture_end(&s, 0);                   /* boundary 2 at the segment's end: 200 survive */
  begin_segment(&s, "seg-0002.memprof");
  fixture_free(&s, 39, 0x2000, 200);
  fixture_alloc(&s, 30, 0x3000, 10);    /* boundary 3: none survive; marked again, 60 bytes */
  fixture_free(&s, 39, 0x3000, 10);     /* boundary 4: 50 survive */
  fixture_end(&s, 0);
  write_index("ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
              "boundary\tseq=1\tsegment=1\tevents=2\n"
              "boundary\tseq=2\tsegment=1\tevents=4\n"
              "segment\tseq=1\tfile=seg-0001.memprof\tevents=4\tcomplete=1\n"
              "boundary\tseq=3\tsegment=2\tevents=2\n"
              "boundary\tseq=4\tsegment=2\tevents=3\n"
              "segment\tseq=2\tfile=seg-0002.memprof\tevents=3\tcomplete=1\n");
  struct diff_source capture;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_msg(diff_source_open(&capture, paths, 1, &err) == FORMAT_OK, "%s", err.message);
  size_t marks[2] = {0, 2};
  uint64_t bytes[4];
  struct diff_survivors_site site = {"@t.lua:30", marks, 2, 3, bytes, NULL};
  ck_assert_msg(diff_survivors_read(&capture, 0, 0, &site, 1, 4, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(bytes[0], DIFF_TREND_UNMEASURED);
  ck_assert_uint_eq(bytes[1], 200);
  ck_assert_uint_eq(bytes[2], 0);
  ck_assert_uint_eq(bytes[3], 50);
  /* In cohorts, each mark's own blocks: at mark 0 the 300 bytes born by
   * then (200 left at boundary 1, none from boundary 2 on); at mark 2 the
   * 50 and 10 bytes born since mark 0 (50 left at boundary 3). */
  uint64_t cohorts[2 * 4];
  struct diff_survivors_site each = {"@t.lua:30", marks, 2, 3, NULL, cohorts};
  ck_assert_msg(diff_survivors_read(&capture, 0, 0, &each, 1, 4, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(cohorts[0], DIFF_TREND_UNMEASURED);
  ck_assert_uint_eq(cohorts[1], 200);
  ck_assert_uint_eq(cohorts[2], 0);
  ck_assert_uint_eq(cohorts[3], 0);
  ck_assert_uint_eq(cohorts[4 + 2], DIFF_TREND_UNMEASURED);
  ck_assert_uint_eq(cohorts[4 + 3], 50);
  /* Read no further than wanted: past until nothing is measured. */
  size_t first_mark[1] = {0};
  struct diff_survivors_site early = {"@t.lua:30", first_mark, 1, 1, bytes, NULL};
  ck_assert_msg(diff_survivors_read(&capture, 0, 0, &early, 1, 4, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(bytes[1], 200);
  ck_assert_uint_eq(bytes[2], DIFF_TREND_UNMEASURED);
  ck_assert_uint_eq(bytes[3], DIFF_TREND_UNMEASURED);
  /* A site the capture never saw is measured as nothing held. */
  struct diff_survivors_site none = {"@t.lua:99", marks, 2, 3, bytes, NULL};
  ck_assert_msg(diff_survivors_read(&capture, 0, 0, &none, 1, 4, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(bytes[1], 0);
  ck_assert_uint_eq(bytes[3], 0);
  diff_source_release(&capture);
}
END_TEST

START_TEST(test_block_crossing_segments_is_followed_across_a_boundary_at_event_0)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 40, 0x9000, 128);
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_alloc(&s, 41, 0x9100, 3);
  fixture_free(&s, 49, 0x9000, 128);
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0003.memprof");
  fixture_free(&s, 49, 0x9100, 3);
  fixture_end(&s, 0);
  static const char index[] = "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
                              "boundary\tseq=1\tsegment=1\tevents=1\n"
                              "segment\tseq=1\tfile=seg-0001.memprof\tevents=1\tcomplete=1\n"
                              "boundary\tseq=2\tsegment=2\tevents=0\n"
                              "boundary\tseq=3\tsegment=2\tevents=2\n"
                              "segment\tseq=2\tfile=seg-0002.memprof\tevents=2\tcomplete=1\n"
                              "segment\tseq=3\tfile=seg-0003.memprof\tevents=1\tcomplete=1\n"
                              "boundary\tseq=4\tsegment=4\tevents=0\n";  /* no stream: dropped */
  write_index(index);
  for (int jobs = 1; jobs <= 3; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    ck_assert_uint_eq(result.capture.boundary_count, 3);
    const struct diff_site *site = find_site(&result, "@t.lua:40");
    SERIES(site, live_bytes, 128, 128, 0);
    SERIES(site, free_bytes, 0, 0, 128);
    site = find_site(&result, "@t.lua:41");
    SERIES(site, live_bytes, 0, 0, 3);
    ck_assert_uint_eq(site->frees, 1);
    ck_assert_uint_eq(result.capture.events, 4);
    /* The index has no stop line: the last boundary points at a segment that the
     * process was finishing when it was killed, which is not there. */
    ck_assert_int_eq(warnings, 1);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "%s/index: byte %zu: boundary line: segment 4 is not in the capture (the process stopped "
             "while it finished it): boundaries 4 to 4 are dropped",
             dir, line_offset(index, "boundary\tseq=4"));
    ck_assert_str_eq(warning_text[0], expected);
    ck_assert_int_eq(result.capture.truncated, 1);
    diff_result_free(&result);
  }
}
END_TEST

/* A capture stopped by a write error (a full disk): its boundaries stand, with a warning at its
 * stop line, the reason kept in the result; --strict refuses it. Other reasons say nothing. */
START_TEST(test_a_capture_stopped_by_a_write_error_warns_at_its_stop_line)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 40, 0x9000, 128);
  fixture_alloc(&s, 40, 0x9100, 128);
  fixture_end(&s, 0);
  static const char *const reasons[] = {"write-error", "exit", "max-total-bytes"};
  for (int k = 0; k < 3; k++) {
    char index[512];
    snprintf(index, sizeof index,
             "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
             "boundary\tseq=1\tsegment=1\tevents=1\n"
             "boundary\tseq=2\tsegment=1\tevents=2\n"
             "segment\tseq=1\tfile=seg-0001.memprof\tevents=2\tcomplete=0\n"
             "stop\ttime=101.000\treason=%s\n", reasons[k]);
    write_index(index);
    struct diff_result result;
    run_ok(&result, 1);
    ck_assert_uint_eq(result.capture.boundary_count, 2);
    ck_assert_str_eq(result.capture.stop_reason, reasons[k]);
    ck_assert_int_eq(result.capture.truncated, 0);  /* every segment is whole */
    ck_assert_int_eq(warnings, k == 0);
    if (k == 0) {
      char expected[1024];
      snprintf(expected, sizeof expected,
               "%s/index: byte %zu: the capture stopped early: the collector could not write "
               "(stop reason write-error), and the process ran on unrecorded: its verdicts judge "
               "only what came before",
               dir, line_offset(index, "stop\t"));
      ck_assert_str_eq(warning_text[0], expected);
      struct format_error err;
      struct diff_result strict;
      ck_assert_int_eq(run(&strict, 1, 1, &err), FORMAT_CUT);
      ck_assert_str_eq(err.message, expected);
    }
    diff_result_free(&result);
  }
}
END_TEST

/* The cycle forced after the program ended (cause exit) comes when the main
 * chunk's locals are gone: what they held shows as freed, so it is no
 * boundary; its events count, and its line is checked like any other. */
START_TEST(test_boundary_forced_after_the_program_ended_is_left_out)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 90, 0x1000, 10);
  fixture_free(&s, 99, 0x1000, 10);   /* a local of the main chunk, gone at its end */
  fixture_end(&s, 0);
  static const char index[] = "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
                              "boundary\tseq=1\tsegment=1\tevents=1\tgc_cycles=1\tcause=gc\n"
                              "boundary\tseq=2\tsegment=1\tevents=2\tgc_cycles=2\tcause=exit\n"
                              "segment\tseq=1\tfile=seg-0001.memprof\tevents=2\tcomplete=1\n"
                              "stop\treason=exit\n";
  write_index(index);
  struct diff_result result;
  run_ok(&result, 1);
  ck_assert_uint_eq(result.capture.boundary_count, 1);
  ck_assert_uint_eq(result.capture.events, 2);
  ck_assert_uint_eq(result.capture.gc_cycles[0], 1);
  const struct diff_site *site = find_site(&result, "@t.lua:90");
  SERIES(site, live_bytes, 10);
  ck_assert_uint_eq(site->frees, 1);
  diff_result_free(&result);
  expect_line_error_at(HEAD_TEXT "boundary\tseq=1\tsegment=1\tevents=1\tcause=gc\n"
                                 "boundary\tseq=2\tsegment=1\tevents=3\tcause=exit\n"
                                 "segment\tseq=1\tfile=seg-0001.memprof\tevents=2\tcomplete=1\n",
                       "boundary\tseq=2", "event 3 is past the end of segment 1 (2 events)");
}
END_TEST

/* A capture with more boundary lines than DIFF_SOURCE_MAX_BOUNDARIES (one per
 * GC cycle of a long run) is judged on that many: every forced one, the
 * first and the last, the others evenly spaced; each point is exact (the
 * live bytes at its line), and the events of the lines left out still
 * count. */
START_TEST(test_boundaries_beyond_the_limit_are_thinned_keeping_the_forced_ones)
{
  enum { LINES = 1000 };
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  for (int i = 0; i < 2 * LINES; i++)
    fixture_alloc(&s, 5, 0x100000 + (uint64_t)i * 64, 16);
  fixture_end(&s, 0);
  size_t size = 200 + (size_t)LINES * 120, used = 0;
  char *index = malloc(size);
  ck_assert_ptr_nonnull(index);
  used += (size_t)snprintf(index + used, size - used, "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n");
  for (int k = 1; k <= LINES; k++)
    used += (size_t)snprintf(index + used, size - used,
                             "boundary\tseq=%d\tsegment=1\tevents=%d\tgc_cycles=%d\tallocated=%d\tcause=%s\n",
                             k, 2 * k, k, 32 * k, k % 10 ? "gc" : "every");
  snprintf(index + used, size - used,
           "segment\tseq=1\tfile=seg-0001.memprof\tevents=%d\tcomplete=1\nstop\treason=stop\n",
           2 * LINES);
  write_index(index);
  free(index);
  struct diff_result result;
  run_ok(&result, 1);
  const struct diff_capture *c = &result.capture;
  ck_assert_uint_eq(c->boundary_count, 512);
  ck_assert_uint_eq(c->events, 2 * LINES);
  ck_assert_ptr_nonnull(c->forced);
  size_t forced = 0;
  for (size_t i = 0; i < c->boundary_count; i++)
    forced += c->forced[i];
  ck_assert_uint_eq(forced, LINES / 10);
  ck_assert_uint_eq(c->gc_cycles[0], 1);
  ck_assert_uint_eq(c->gc_cycles[c->boundary_count - 1], LINES);
  const struct diff_site *site = find_site(&result, "@t.lua:5");
  ck_assert_uint_eq(site->count, 512);
  ck_assert_uint_eq(site->allocs, 2 * LINES);
  for (size_t i = 0; i < site->count; i++) {
    if (i && c->gc_cycles[i] <= c->gc_cycles[i - 1])
      ck_abort_msg("point %zu: gc_cycles %llu after %llu", i, (unsigned long long)c->gc_cycles[i],
                   (unsigned long long)c->gc_cycles[i - 1]);
    if (site->live_bytes[i] != 32 * c->gc_cycles[i] || c->allocated[i] != 32 * c->gc_cycles[i])
      ck_abort_msg("point %zu (line %llu): %llu live bytes", i,
                   (unsigned long long)c->gc_cycles[i], (unsigned long long)site->live_bytes[i]);
  }
  diff_result_free(&result);
}
END_TEST

/* With --every every boundary is forced, and more of them than the limit are thinned evenly;
 * the boundaries of the heap snapshots stay points whatever their place, so the holders can
 * join each snapshot with the blocks live there (a thinned one had no holder at all). */
START_TEST(test_thinning_keeps_the_heap_snapshots_boundaries)
{
  enum { LINES = 1531 };
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  for (int i = 0; i < LINES; i++)
    fixture_alloc(&s, 5, 0x100000 + (uint64_t)i * 64, 16);
  fixture_end(&s, 0);
  size_t size = 400 + (size_t)LINES * 120, used = 0;
  char *index = malloc(size);
  ck_assert_ptr_nonnull(index);
  used += (size_t)snprintf(index + used, size - used, "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n");
  for (int k = 1; k <= LINES; k++) {
    used += (size_t)snprintf(index + used, size - used,
                             "boundary\tseq=%d\tsegment=1\tevents=%d\tgc_cycles=%d\tallocated=%d\tcause=%s\n",
                             k, k, k, 16 * k, k == 516 || k == 1029 ? "snapshot" : "every");
    if (k == 516 || k == 1029)
      used += (size_t)snprintf(index + used, size - used, "snapshot\tboundary=%d\tfile=snap-%04d.heap\n", k, k);
  }
  snprintf(index + used, size - used,
           "segment\tseq=1\tfile=seg-0001.memprof\tevents=%d\tcomplete=1\nstop\treason=stop\n", LINES);
  write_index(index);
  free(index);
  char path[600];
  for (int k = 516; k; k = k == 516 ? 1029 : 0) {
    char name[32];
    snprintf(name, sizeof name, "snap-%04d.heap", k);
    FILE *f = fopen(fixture_path(path, sizeof path, dir, name), "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
  }
  struct diff_source capture;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_msg(diff_source_open(&capture, paths, 1, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(capture.boundary_count, DIFF_SOURCE_MAX_BOUNDARIES);
  ck_assert_uint_eq(capture.files.snapshot_count, 2);
  for (size_t i = 0; i < 2; i++) {
    size_t at = diff_source_snapshot_at(&capture, i);
    ck_assert_msg(at < capture.boundary_count, "snapshot %zu was thinned out", i);
    ck_assert_uint_eq(capture.boundaries[at].gc_cycles, i ? 1029 : 516);
  }
  diff_source_release(&capture);
}
END_TEST

START_TEST(test_capture_without_boundary_lines_keeps_segment_ends_as_boundaries)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 50, 0x1000, 10);
  fixture_alloc(&s, 50, 0x2000, 20);   /* young: after young_from=1 */
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_alloc(&s, 50, 0x3000, 30);
  fixture_end(&s, 0);
  write_index("ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
              "segment\tseq=1\tfile=seg-0001.memprof\tend=10.000\tgc_cycles=2\theap_bytes=500\tevents=2"
              "\tcomplete=1\tyoung_from=1\n"
              "segment\tseq=2\tfile=seg-0002.memprof\tend=20.000\tgc_cycles=4\theap_bytes=600\tevents=1"
              "\tcomplete=1\tyoung_from=1\n");
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    ck_assert_uint_eq(result.capture.boundary_count, 2);
    const struct diff_site *site = find_site(&result, "@t.lua:50");
    SERIES(site, live_bytes, 10, 60);
    ck_assert(result.capture.boundary_times[1] == 20.0);
    ck_assert_uint_eq(result.capture.gc_cycles[1], 4);
    ck_assert_uint_eq(result.capture.heap_bytes[0], 500);
    ck_assert_ptr_null(result.capture.allocated);
    ck_assert_ptr_null(result.capture.forced);
    diff_result_free(&result);
  }
}
END_TEST

/* Boundary lines at each segment's end, with the segments' young_from, cut
 * nothing: the series are those of the same capture without them. */
START_TEST(test_boundary_lines_at_segment_ends_give_the_series_of_segment_ends)
{
  struct fixture_segment s;
  uint64_t events[6];
  for (int k = 1; k <= 6; k++) {
    char name[32];
    snprintf(name, sizeof name, "seg-%04d.memprof", k);
    begin_segment(&s, name);
    uint64_t n = 0;
    for (uint64_t i = 0; i < 40; i++, n++) {
      fixture_alloc(&s, 60 + i % 4, 0x100000 + 16 * ((i * 7 + (uint64_t)k * 13) % 50), 8 + i % 5);
      if (i % 3 == 0) {
        fixture_free(&s, 69, 0x100000 + 16 * ((i * 11 + (uint64_t)k * 5) % 50), 0);
        n++;
      }
    }
    fixture_end(&s, 0);
    events[k - 1] = n;
  }
  char index[4096];
  size_t used = (size_t)snprintf(index, sizeof index, "ljleak-index\tversion=1\ncapture\tpid=1\tsample=0\n");
  for (int k = 1; k <= 6; k++)
    used += (size_t)snprintf(index + used, sizeof index - used,
                             "segment\tseq=%d\tfile=seg-%04d.memprof\tevents=%llu\tcomplete=1\tyoung_from=%d\n",
                             k, k, (unsigned long long)events[k - 1], 20 + k);
  write_index(index);
  struct diff_result plain;
  run_ok(&plain, 1);
  used = (size_t)snprintf(index, sizeof index, "ljleak-index\tversion=1\ncapture\tpid=1\tsample=0\n");
  for (int k = 1; k <= 6; k++)
    used += (size_t)snprintf(index + used, sizeof index - used,
                             "boundary\tseq=%d\tsegment=%d\tevents=%llu\tyoung_from=%d\tcause=gc\n"
                             "segment\tseq=%d\tfile=seg-%04d.memprof\tevents=%llu\tcomplete=0\n",
                             k, k, (unsigned long long)events[k - 1], 20 + k, k, k,
                             (unsigned long long)events[k - 1]);
  write_index(index);
  for (int jobs = 1; jobs <= 4; jobs *= 2) {
    struct diff_result cut;
    run_ok(&cut, jobs);
    ck_assert_uint_eq(cut.capture.boundary_count, 6);
    ck_assert_uint_eq(cut.site_count, plain.site_count);
    ck_assert_uint_eq(cut.capture.events, plain.capture.events);
    for (size_t i = 0; i < plain.site_count; i++) {
      const struct diff_site *a = &plain.sites[i], *b = find_site(&cut, a->name);
      SERIES(b, live_bytes, a->live_bytes[0], a->live_bytes[1], a->live_bytes[2], a->live_bytes[3],
             a->live_bytes[4], a->live_bytes[5]);
      SERIES(b, live_blocks, a->live_blocks[0], a->live_blocks[1], a->live_blocks[2],
             a->live_blocks[3], a->live_blocks[4], a->live_blocks[5]);
      SERIES(b, alloc_bytes, a->alloc_bytes[0], a->alloc_bytes[1], a->alloc_bytes[2],
             a->alloc_bytes[3], a->alloc_bytes[4], a->alloc_bytes[5]);
      SERIES(b, free_bytes, a->free_bytes[0], a->free_bytes[1], a->free_bytes[2], a->free_bytes[3],
             a->free_bytes[4], a->free_bytes[5]);
      ck_assert_uint_eq(b->allocs, a->allocs);
      ck_assert_uint_eq(b->frees, a->frees);
    }
    diff_result_free(&cut);
  }
  diff_result_free(&plain);
}
END_TEST

/* ---- Parallel reading ----------------------------------------------------- */

static uint64_t rng_state;

static uint64_t next_random(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* segments segments of about per events, random allocs, frees and reallocs
 * over a small address space (blocks live across pieces and segments), and
 * a boundary line every few events, its cycle starting a few events before. */
static void write_random_capture(int segments, int per, int boundary_every)
{
  static char index[1 << 20];
  size_t used = (size_t)snprintf(index, sizeof index, "ljleak-index\tversion=1\ncapture\tpid=1\tsample=0\n");
  uint64_t seq = 0, allocated = 0;
  rng_state = 0x9e3779b97f4a7c15ull;
  for (int k = segments + 1; k <= 99; k++) {  /* an earlier capture's in this directory */
    char path[600], name[32];
    snprintf(name, sizeof name, "seg-%04d.memprof", k);
    unlink(fixture_path(path, sizeof path, dir, name));
  }
  for (int k = 1; k <= segments; k++) {
    char name[32];
    snprintf(name, sizeof name, "seg-%04d.memprof", k);
    struct fixture_segment s;
    begin_segment(&s, name);
    uint64_t n = 0, last = 0;
    for (int i = 0; i < per; i++, n++) {
      uint64_t r = next_random();
      uint64_t address = 0x200000 + 32 * (r % 300);
      uint64_t line = 100 + (r >> 20) % 9;
      if (r % 7 < 4) {
        fixture_alloc(&s, line, address, 8 + (r >> 30) % 100);
        allocated += 8 + (r >> 30) % 100;
      } else if (r % 7 < 6) {
        fixture_free(&s, line, address, 0);
      } else {
        fixture_realloc(&s, line, address, 0, 0x200000 + 32 * ((r >> 40) % 300), 16);
        allocated += 16;
      }
      if ((r >> 50) % (uint64_t)boundary_every == 0 || (k == 2 && i == 0)) {
        uint64_t at = n + 1, young_from = at - (at - last) / 3;
        used += (size_t)snprintf(index + used, sizeof index - used,
                                 "boundary\tseq=%llu\tsegment=%d\tevents=%llu\ttime=%llu.250\tgc_cycles=%llu"
                                 "\theap_bytes=%llu\tallocated=%llu\tyoung_from=%llu\tcause=%s\n",
                                 (unsigned long long)(seq + 1), k, (unsigned long long)at,
                                 (unsigned long long)(1000 + seq), (unsigned long long)(seq + 1),
                                 (unsigned long long)(4096 + r % 1000), (unsigned long long)allocated,
                                 (unsigned long long)young_from, seq % 5 ? "gc" : "every");
        seq++;
        last = at;
      }
    }
    fixture_end(&s, 0);
    used += (size_t)snprintf(index + used, sizeof index - used,
                             "segment\tseq=%d\tfile=%s\tevents=%llu\tcomplete=1\tyoung_from=%llu\n", k, name,
                             (unsigned long long)n, (unsigned long long)n / 2);
  }
  ck_assert_uint_lt(used, sizeof index - 1);
  write_index(index);
}

static void assert_same_array(const char *what, const uint64_t *a, const uint64_t *b, size_t n)
{
  ck_assert_msg((a == NULL) == (b == NULL), "%s: one is NULL", what);
  if (a && n && memcmp(a, b, n * sizeof *a))
    ck_abort_msg("%s differs", what);
}

static void assert_same_result(const struct diff_result *a, const struct diff_result *b)
{
  ck_assert_uint_eq(a->site_count, b->site_count);
  ck_assert_uint_eq(a->flagged, b->flagged);
  const struct diff_capture *x = &a->capture, *y = &b->capture;
  ck_assert_uint_eq(x->boundary_count, y->boundary_count);
  ck_assert_uint_eq(x->events, y->events);
  size_t n = x->boundary_count;
  ck_assert_int_eq(memcmp(x->boundary_times, y->boundary_times, n * sizeof(double)), 0);
  assert_same_array("gc_cycles", x->gc_cycles, y->gc_cycles, n);
  assert_same_array("heap_bytes", x->heap_bytes, y->heap_bytes, n);
  assert_same_array("allocated", x->allocated, y->allocated, n);
  ck_assert_int_eq(memcmp(x->forced, y->forced, n), 0);
  for (size_t i = 0; i < a->site_count; i++) {
    const struct diff_site *s = &a->sites[i], *t = &b->sites[i];
    ck_assert_str_eq(s->name, t->name);
    ck_assert_int_eq(s->verdict, t->verdict);
    ck_assert_uint_eq(s->count, t->count);
    assert_same_array("live_bytes", s->live_bytes, t->live_bytes, s->count);
    assert_same_array("live_blocks", s->live_blocks, t->live_blocks, s->count);
    assert_same_array("alloc_bytes", s->alloc_bytes, t->alloc_bytes, s->count);
    assert_same_array("free_bytes", s->free_bytes, t->free_bytes, s->count);
    ck_assert_uint_eq(s->allocs, t->allocs);
    ck_assert_uint_eq(s->frees, t->frees);
    ck_assert(s->growth_bytes_per_segment == t->growth_bytes_per_segment);
    ck_assert(s->growth_bytes_per_second == t->growth_bytes_per_second);
    ck_assert(s->trend_statistic == t->trend_statistic);
    ck_assert(s->trend_p_value == t->trend_p_value || (s->trend_p_value != s->trend_p_value &&
                                                       t->trend_p_value != t->trend_p_value));
  }
}

/* Many pieces per segment, in many small segments (the workers wait on the
 * window of segments) and in a few larger ones. */
START_TEST(test_sequential_and_parallel_reading_of_many_pieces_agree)
{
  static const int shapes[2][3] = {{9, 3000, 40}, {4, 30000, 300}};
  for (int shape = 0; shape < 2; shape++) {
    int segments = shapes[shape][0], per = shapes[shape][1], every = shapes[shape][2];
    write_random_capture(segments, per, every);
    struct diff_result one;
    run_ok(&one, 1);
    ck_assert_uint_gt(one.capture.boundary_count, (size_t)(segments * per / every / 2));
    ck_assert_uint_eq(one.capture.events, (uint64_t)segments * (uint64_t)per);
    for (int jobs = 2; jobs <= 4; jobs += 2) {
      struct diff_result many;
      run_ok(&many, jobs);
      assert_same_result(&one, &many);
      diff_result_free(&many);
    }
    diff_result_free(&one);
  }
}
END_TEST

/* ---- Kept boundaries ------------------------------------------------------------ */

/* A block at a boundary, by its site's name: owners differ between readings. */
struct kept_block {
  uint64_t address, size;
  const char *site;
};

static int kept_by_address(const void *a, const void *b)
{
  const struct kept_block *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

struct kept_list {
  struct kept_block *blocks;
  size_t count;
};

static const char *kept_site(const struct diff_aggregate *aggregate, uint32_t owner)
{
  ck_assert_uint_lt(owner, aggregate->owners.count);
  return aggregate->sites.names[aggregate->owners.sites[owner]];
}

/* The stepwise reading's hook: the capture's map at the stop, sorted. */
static int kept_copy_map(struct diff_aggregate *aggregate, size_t boundary, void *context)
{
  struct kept_list *lists = context;
  struct kept_list *list = &lists[boundary];
  const struct diff_live_map *live = &aggregate->live;
  list->blocks = malloc((live->count + 1) * sizeof *list->blocks);
  ck_assert_ptr_nonnull(list->blocks);
  for (size_t i = 0; i < live->slot_count; i++)
    if (live->slots[i].address)
      list->blocks[list->count++] = (struct kept_block){live->slots[i].address, live_map_size(live, &live->slots[i]),
                                                        kept_site(aggregate, live->slots[i].site)};
  qsort(list->blocks, list->count, sizeof *list->blocks, kept_by_address);
  return 0;
}

/* A kept block is 16 bytes: a size of 4 GiB or more is listed aside, and reads back. */
START_TEST(test_kept_block_sizes_past_32_bits)
{
  ck_assert_uint_eq(sizeof(struct diff_segment_block), 16);
  static const uint64_t sizes[] = {5, UINT32_MAX - 1, UINT32_MAX, UINT64_C(1) << 40, 0};
  struct diff_segment_block blocks[5];
  struct diff_live_map_big *big = NULL;
  size_t big_count = 0;
  for (size_t i = 0; i < 5; i++)
    ck_assert_int_eq(diff_segment_block_put(blocks, i, 0x1000 + 16 * i, sizes[i], (uint32_t)i, &big, &big_count), 0);
  ck_assert_uint_eq(big_count, 2);
  for (size_t i = 0; i < 5; i++) {
    ck_assert_uint_eq(diff_segment_block_size(&blocks[i], big, big_count), sizes[i]);
    ck_assert_uint_eq(blocks[i].owner, i);
    ck_assert_uint_eq(blocks[i].address, 0x1000 + 16 * i);
  }
  free(big);
}
END_TEST

/* What a reading keeps at a heap snapshot's boundary is what a reading that stops there holds:
 * every third boundary kept, read on one thread and on two, against the stepwise reading. */
START_TEST(test_kept_boundaries_hold_the_blocks_live_there)
{
  write_random_capture(6, 3000, 50);
  const char *paths[1] = {dir};
  struct diff_source capture;
  struct format_error err;
  ck_assert_msg(diff_source_open(&capture, paths, 1, &err) == FORMAT_OK, "%s", err.message);
  size_t n = capture.boundary_count, stop_count = 0;
  ck_assert_uint_gt(n, 30);
  size_t *stops = calloc(n, sizeof *stops);
  struct kept_list *expected = calloc(n, sizeof *expected);
  ck_assert_ptr_nonnull(stops);
  ck_assert_ptr_nonnull(expected);
  for (size_t b = 1; b < n; b += 3)
    stops[stop_count++] = b;
  struct diff_aggregate stepwise;
  ck_assert_int_eq(diff_aggregate_init(&stepwise, 0), 0);
  struct diff_aggregate_stops at = {stops, stop_count, n};
  ck_assert_msg(diff_aggregate_capture_stepwise(&stepwise, &capture, 0, &at, kept_copy_map, expected, &err) ==
                    FORMAT_OK, "%s", err.message);
  capture.keep_blocks = 1;
  for (size_t i = 0; i < stop_count; i++)
    capture.boundaries[stops[i]].keep = 1;
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_options options;
    diff_options_default(&options);
    options.jobs = jobs;
    struct diff_aggregate aggregate;
    ck_assert_int_eq(diff_aggregate_init(&aggregate, 0), 0);
    ck_assert_msg(diff_aggregate_capture(&aggregate, &capture, &options, &err) == FORMAT_OK, "%s", err.message);
    ck_assert_uint_eq(aggregate.kept_count, stop_count);
    ck_assert_ptr_null(diff_aggregate_kept_at(&aggregate, 0));
    for (size_t i = 0; i < stop_count; i++) {
      const struct diff_aggregate_kept *kept = diff_aggregate_kept_at(&aggregate, stops[i]);
      const struct kept_list *want = &expected[stops[i]];
      ck_assert_ptr_nonnull(kept);
      ck_assert_msg(kept->count == want->count, "-j %d: boundary %zu: %zu blocks kept, %zu live", jobs, stops[i],
                    kept->count, want->count);
      struct kept_block *got = malloc((kept->count + 1) * sizeof *got);
      ck_assert_ptr_nonnull(got);
      for (size_t k = 0; k < kept->count; k++)
        got[k] = (struct kept_block){kept->blocks[k].address, diff_aggregate_kept_size(kept, k),
                                     kept_site(&aggregate, kept->blocks[k].owner)};
      qsort(got, kept->count, sizeof *got, kept_by_address);
      for (size_t k = 0; k < kept->count; k++) {
        ck_assert_uint_eq(got[k].address, want->blocks[k].address);
        ck_assert_uint_eq(got[k].size, want->blocks[k].size);
        ck_assert_str_eq(got[k].site, want->blocks[k].site);
      }
      free(got);
    }
    diff_aggregate_release(&aggregate);
  }
  diff_aggregate_release(&stepwise);  /* after the comparison: the names are its */
  for (size_t b = 0; b < n; b++)
    free(expected[b].blocks);
  free(expected);
  free(stops);
  diff_source_release(&capture);
}
END_TEST

/* ---- A killed capture ------------------------------------------------------ */

/* Segment 1 listed; the .part was cut after 3 events; boundaries 4 and 5 lie
 * past what it kept. */
static const char part_index[] =
    "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
    "boundary\tseq=1\tsegment=1\tevents=1\tgc_cycles=1\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tevents=1\tcomplete=1\n"
    "boundary\tseq=2\tsegment=2\tevents=1\tgc_cycles=2\n"
    "boundary\tseq=3\tsegment=2\tevents=3\tgc_cycles=3\n"
    "boundary\tseq=4\tsegment=2\tevents=5\tgc_cycles=4\n"
    "boundary\tseq=5\tsegment=2\tevents=6\tgc_cycles=5\n";

static void write_part_capture(void)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  fixture_alloc(&s, 70, 0xa000, 100);
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof.part");
  fixture_alloc(&s, 70, 0xb000, 10);
  fixture_alloc(&s, 71, 0xc000, 20);
  fixture_free(&s, 79, 0xa000, 100);
  fixture_end(&s, 1);  /* cut in the middle of a fourth event */
  write_index(part_index);
}

START_TEST(test_part_keeps_its_whole_boundaries_and_drops_those_past_its_cut)
{
  write_part_capture();
  char path[600];
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_ok(&result, jobs);
    ck_assert_uint_eq(result.capture.boundary_count, 3);
    ck_assert_uint_eq(result.capture.events, 4);
    ck_assert_int_eq(result.capture.truncated, 1);
    const struct diff_site *site = find_site(&result, "@t.lua:70");
    SERIES(site, live_bytes, 100, 110, 10);
    site = find_site(&result, "@t.lua:71");
    SERIES(site, live_bytes, 0, 0, 20);
    ck_assert_uint_eq(result.capture.gc_cycles[2], 3);
    /* The cut, then the boundaries it drops, named by their first line. */
    ck_assert_int_eq(warnings, 2);
    ck_assert_ptr_nonnull(strstr(warning_text[0], "seg-0002.memprof.part"));
    char expected[2048];
    snprintf(expected, sizeof expected,
             "%s/index: byte %zu: boundary line: event 5 is past the end of %s (3 events): "
             "boundaries 4 to 5 are dropped",
             dir, line_offset(part_index, "boundary\tseq=4"),
             fixture_path(path, sizeof path, dir, "seg-0002.memprof.part"));
    ck_assert_str_eq(warning_text[1], expected);
    diff_result_free(&result);
  }
  struct diff_result result;
  struct format_error err;
  ck_assert_int_eq(run(&result, 1, 1, &err), FORMAT_CUT);
  ck_assert_ptr_nonnull(strstr(err.message, "seg-0002.memprof.part"));
}
END_TEST

/* ---- Errors: at the boundary line's byte offset ----------------------------- */

static void write_two_segments(void)
{
  struct fixture_segment s;
  begin_segment(&s, "seg-0001.memprof");
  for (uint64_t i = 0; i < 5; i++)
    fixture_alloc(&s, 80, 0x1000 + 16 * i, 8);
  fixture_end(&s, 0);
  begin_segment(&s, "seg-0002.memprof");
  fixture_alloc(&s, 81, 0x9000, 8);
  fixture_end(&s, 0);
}

#define HEAD HEAD_TEXT
#define SEGMENT_1 "segment\tseq=1\tfile=seg-0001.memprof\tevents=5\tcomplete=1\n"
#define SEGMENT_2 "segment\tseq=2\tfile=seg-0002.memprof\tevents=1\tcomplete=1\n"

START_TEST(test_boundary_lines_out_of_place_are_errors_at_their_offset)
{
  write_two_segments();
  expect_line_error_at(HEAD "boundary\tseq=1\tsegment=1\tevents=2\n" SEGMENT_1 SEGMENT_2
                         "boundary\tseq=2\tsegment=7\tevents=0\nstop\treason=exit\n",
                    "boundary\tseq=2", "segment 7 is not in the capture");
  expect_line_error_at(HEAD "boundary\tseq=1\tsegment=1\tevents=6\n" SEGMENT_1 SEGMENT_2,
                    "boundary\tseq=1", "event 6 is past the end of segment 1 (5 events)");
  expect_line_error_at(HEAD "boundary\tseq=1\tsegment=1\tevents=2\nboundary\tseq=1\tsegment=1\tevents=3\n"
                         SEGMENT_1 SEGMENT_2,
                    "boundary\tseq=1\tsegment=1\tevents=3", "seq 1 does not follow seq 1");
  expect_line_error_at(HEAD "boundary\tseq=1\tsegment=1\tevents=3\nboundary\tseq=2\tsegment=1\tevents=2\n"
                         SEGMENT_1 SEGMENT_2,
                    "boundary\tseq=2", "event 2 of segment 1 is before the boundary before it (event 3)");
  expect_line_error_at(HEAD SEGMENT_1 "boundary\tseq=1\tsegment=2\tevents=0\n"
                         "boundary\tseq=2\tsegment=1\tevents=4\n" SEGMENT_2,
                    "boundary\tseq=2", "segment 1 comes before the segment of the boundary before it");
  /* The segment line does not say how many events: the stream does, when read. */
  char path[600];
  char what[800];
  snprintf(what, sizeof what, "event 9 is past the end of %s (5 events)",
           fixture_path(path, sizeof path, dir, "seg-0001.memprof"));
  expect_line_error_at(HEAD "boundary\tseq=1\tsegment=1\tevents=2\nboundary\tseq=2\tsegment=1\tevents=9\n"
                         "segment\tseq=1\tfile=seg-0001.memprof\tcomplete=1\n" SEGMENT_2,
                    "boundary\tseq=2", what);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_boundary");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_boundary_lines_are_the_boundaries_at_event_0_mid_segment_and_at_its_end);
  tcase_add_test(tc, test_survived_counts_the_frees_of_blocks_live_at_the_boundary_before);
  tcase_add_test(tc, test_survived_across_a_segment_that_ends_between_boundaries);
  tcase_add_test(tc, test_young_blocks_at_a_mid_segment_boundary_count_at_the_next_one);
  tcase_add_test(tc, test_a_realloc_in_the_final_cycle_keeps_the_age_of_the_block_it_moves);
  tcase_add_test(tc, test_block_born_in_piece_1_and_freed_in_piece_3_of_one_segment);
  tcase_add_test(tc, test_survivors_of_a_mark_are_the_blocks_held_there_still_live);
  tcase_add_test(tc, test_block_crossing_segments_is_followed_across_a_boundary_at_event_0);
  tcase_add_test(tc, test_a_capture_stopped_by_a_write_error_warns_at_its_stop_line);
  tcase_add_test(tc, test_boundary_forced_after_the_program_ended_is_left_out);
  tcase_add_test(tc, test_capture_without_boundary_lines_keeps_segment_ends_as_boundaries);
  tcase_add_test(tc, test_boundaries_beyond_the_limit_are_thinned_keeping_the_forced_ones);
  tcase_add_test(tc, test_thinning_keeps_the_heap_snapshots_boundaries);
  tcase_add_test(tc, test_boundary_lines_at_segment_ends_give_the_series_of_segment_ends);
  tcase_add_test(tc, test_sequential_and_parallel_reading_of_many_pieces_agree);
  tcase_add_test(tc, test_kept_boundaries_hold_the_blocks_live_there);
  tcase_add_test(tc, test_kept_block_sizes_past_32_bits);
  tcase_add_test(tc, test_part_keeps_its_whole_boundaries_and_drops_those_past_its_cut);
  tcase_add_test(tc, test_boundary_lines_out_of_place_are_errors_at_their_offset);
  suite_add_tcase(s, tc);
  return check_run(s);
}
