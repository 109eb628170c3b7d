/* tests/test_collector.c: ljleak run and the collector, checked by reading what they wrote. */
#include <check.h>
#include <stdarg.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/capture_index.h"
#include "format/memprof.h"
#include "tests/check_run.h"
#include "tests/collector_capture.h"
#include "luajit.h" /* the LuaJIT built for: OPENRESTY_LUAJIT leaves out the nogc64 test */


/* ---- Fidelity with Tarantool's memprof --------------------------------------- */

/* Tarantool's parser output for basic-jitoff.bin against ljleak run -j off
 * basic.lua 4000 on Debian's LuaJIT, without the forced cycle at the start
 * (LJLEAK_EDGE_GC=0, not an option: a longer command line interns more
 * strings and moves the string table's resizes; the forced cycle changes
 * when strings die, and the fixture's run had none). What must match and
 * what cannot:
 *
 * - ALLOCATIONS event counts match for every @basic.lua line and for the
 *   loadstring chunk (function_alias_1), except lines 5 and 6.
 * - ALLOCATIONS bytes cannot match: the fixture comes from a non-GC64 build
 *   (a table is 32 bytes there, 64 bytes in Debian's GC64 build; string
 *   sizes are rounded differently).
 * - Line 5 (tostring(i * k)): a string is allocated only when no equal
 *   string is still interned, so the count depends on when the GC frees
 *   dead strings. In the fixture's run almost none had been freed (20757 =
 *   4000 array parts + 16753 distinct products + 4); here GC cycles run
 *   more often (GC64 objects are larger) and 35000-odd strings are made.
 *   With collectgarbage("stop") before the script the count is 20756.
 * - Line 6 (table.concat): the fixture has 4001, one being a 32 KiB
 *   string-table resize that happened there because of the strings line 5
 *   kept alive; here resizes (8 or 16 KiB) fall on line 6 or elsewhere
 *   depending on GC timing, which even the length of the -o path changes.
 *   Without them both runs have exactly 4000.
 * - REALLOCATIONS (array parts of 8-byte TValues, the same in both builds)
 *   match exactly, events and bytes, for lines 5, 7, 13, 17 and
 *   function_alias_1:2. Line 6's differ with the temporary buffer's history.
 */
struct expected_site {
  char name[128];
  unsigned long long events, plus, minus;
};

/* Reads the entries of section ("ALLOCATIONS" or "REALLOCATIONS"). */
static int read_expected(const char *section, struct expected_site *out, int max)
{
  FILE *f = fopen("testdata/tarantool-memprof/basic-jitoff.parse-memprof.txt", "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  int in = 0, n = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strcmp(line, "ALLOCATIONS\n") || !strcmp(line, "REALLOCATIONS\n") ||
        !strcmp(line, "DEALLOCATIONS\n") || !strcmp(line, "HEAP SUMMARY:\n") ||
        !strcmp(line, "ALIASES:\n")) {
      in = !strncmp(line, section, strlen(section)) && line[strlen(section)] == '\n';
      continue;
    }
    if (!in || line[0] == '\t' || line[0] == '\n')
      continue;
    struct expected_site *e = &out[n];
    if (sscanf(line, "%127[^ ] %llu events\t+%lluB\t-%lluB", e->name, &e->events, &e->plus,
               &e->minus) == 4 && n < max) {
      e->name[strlen(e->name) - 1] = '\0'; /* the colon after the site */
      n++;
    }
  }
  fclose(f);
  return n;
}

static int is_basic_site(const char *name)
{
  return !strncmp(name, "@basic.lua:", 11) || !strncmp(name, "function_alias_1:", 17);
}

/* Every basic.lua and loadstring allocation site in Tarantool's output but
 * those in skip (NULL-terminated) has Tarantool's count here, and its bytes
 * too if bytes is set; returns how many sites were compared. */
static int assert_basic_allocations_match(struct capture_read *r, const char *const *skip,
                                          int bytes)
{
  struct expected_site expected[64];
  int n = read_expected("ALLOCATIONS", expected, 64), compared = 0;
  for (int i = 0; i < n; i++) {
    const struct expected_site *e = &expected[i];
    int skipped = !is_basic_site(e->name);
    for (const char *const *k = skip; *k && !skipped; k++)
      skipped = !strcmp(e->name, *k);
    if (skipped)
      continue;
    struct site_total *s = site_of(r, e->name);
    ck_assert_msg(s->allocs == e->events && (!bytes || s->alloc_bytes == e->plus),
                  "%s: ljleak %llu allocations +%llu, Tarantool %llu +%llu", e->name,
                  (unsigned long long)s->allocs, (unsigned long long)s->alloc_bytes, e->events,
                  e->plus);
    compared++;
  }
  return compared;
}

/* Every basic.lua reallocation site has Tarantool's count and bytes (array
 * parts, a TValue each: the same size in every build), but line 6's: the
 * string buffer of table.concat, whose size depends on when the GC last
 * shrank it. */
static void assert_basic_reallocations_match(struct capture_read *r)
{
  struct expected_site expected[64];
  int n = read_expected("REALLOCATIONS", expected, 64), compared = 0;
  for (int i = 0; i < n; i++) {
    const struct expected_site *e = &expected[i];
    if (!is_basic_site(e->name) || !strcmp(e->name, "@basic.lua:6"))
      continue;
    struct site_total *s = site_of(r, e->name);
    ck_assert_msg(s->reallocs == e->events && s->realloc_new == e->plus &&
                      s->realloc_old == e->minus,
                  "%s: ljleak %llu reallocations +%llu -%llu, Tarantool %llu +%llu -%llu",
                  e->name, (unsigned long long)s->reallocs, (unsigned long long)s->realloc_new,
                  (unsigned long long)s->realloc_old, e->events, e->plus, e->minus);
    compared++;
  }
  ck_assert_int_eq(compared, 5);
}

/* Line 5's allocations with the GC stopped (every distinct string made
 * once): 20752 on Debian's LuaJIT and on OpenResty's. The string table's
 * resizes on the way are the VM's (its site "VM: string table", a C symbol
 * at pseudo address 0x10 as Tarantool's parser names it), where Tarantool's
 * memprof charges them to the line (OpenResty's LuaJIT resizes it once
 * more). */
#define BASIC_LINE5_NOGC_ALLOCS 20752

START_TEST(test_jitoff_basic_allocations_match_tarantool)
{
  char dir[1024], out[1100];
  scratch(dir, sizeof dir, "basic-jitoff");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("cd testdata/tarantool-memprof && LJLEAK_EDGE_GC=0 '%s/%s/ljleak' run -o '%s' -j off basic.lua 4000 >/dev/null",
                      getenv("PWD") ? getenv("PWD") : ".", build_dir(), out), 0);
  struct capture_read *r = read_capture(out, NULL);
  ck_assert_int_eq(r->segments, 1);
  ck_assert_int_eq(r->status[0], FORMAT_END);

  static const char *const strings[] = {"@basic.lua:5", "@basic.lua:6", NULL};
  ck_assert_int_eq(assert_basic_allocations_match(r, strings, 0), 11);
  /* 4000 concatenations (Tarantool's 4001 less its one string-table resize),
   * plus however many string-table resizes fell on line 6 here. */
  const struct site_total *line6 = site_of(r, "@basic.lua:6");
  ck_assert_uint_eq(line6->allocs - line6->table_resizes, 4001 - 1);

  assert_basic_reallocations_match(r);
  free(r);

  /* Line 5 without GC: every distinct string made once. */
  snprintf(out, sizeof out, "%s/cap-nogc", dir);
  ck_assert_int_eq(sh("cd testdata/tarantool-memprof && LJLEAK_EDGE_GC=0 '%s/%s/ljleak' run -o '%s' -j off "
                      "-e \"collectgarbage('stop')\" basic.lua 4000 >/dev/null",
                      getenv("PWD") ? getenv("PWD") : ".", build_dir(), out), 0);
  r = read_capture(out, NULL);
  ck_assert_uint_eq(site_of(r, "@basic.lua:5")->allocs, BASIC_LINE5_NOGC_ALLOCS);
  ck_assert_uint_eq(site_of(r, "@basic.lua:5")->table_resizes, 0);
  ck_assert_uint_ge(site_of(r, "VM: string table:0x10")->table_resizes, 4);
  ck_assert_uint_eq(site_of(r, "VM: string table:0x10")->allocs,
                    site_of(r, "VM: string table:0x10")->table_resizes);
  ck_assert_uint_eq(site_of(r, "INTERNAL")->table_resizes, 0);
  free(r);
}
END_TEST

/* The same run with the JIT on: Tarantool's memprof charged the
 * allocations of compiled code to traces (basic-jiton.parse-memprof.txt);
 * ljleak charges them to their lines, so its counts are those of
 * Tarantool's run with the JIT off, on the same sites as that test. */
START_TEST(test_jiton_basic_allocations_match_tarantool_jitoff)
{
  char dir[1024], out[1100];
  scratch(dir, sizeof dir, "basic-jiton");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("cd testdata/tarantool-memprof && LJLEAK_EDGE_GC=0 '%s/%s/ljleak' run -o '%s' basic.lua 4000 >/dev/null",
                      getenv("PWD") ? getenv("PWD") : ".", build_dir(), out), 0);
  struct capture_read *r = read_capture(out, NULL);
  ck_assert_int_eq(r->segments, 1);
  static const char *const strings[] = {"@basic.lua:5", "@basic.lua:6", NULL};
  ck_assert_int_eq(assert_basic_allocations_match(r, strings, 0), 11);
  const struct site_total *line6 = site_of(r, "@basic.lua:6");
  ck_assert_uint_eq(line6->allocs - line6->table_resizes, 4001 - 1);
  for (int i = 0; i < r->nsites; i++)
    ck_assert_msg(strncmp(r->sites[i].name, "TRACE ", 6) != 0 || r->sites[i].allocs == 0,
                  "%s has %llu allocations", r->sites[i].name,
                  (unsigned long long)r->sites[i].allocs);
  ck_assert_uint_gt(r->trace_events, 40000);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

#ifndef OPENRESTY_LUAJIT
/* Runs a Lua snippet with luajit and reads the two numbers it prints. */
static void lua_two_numbers(const char *code, unsigned long long *a, unsigned long long *b)
{
  char cmd[4096];
  int len = snprintf(cmd, sizeof cmd, "%s -e '%s'", luajit_cmd(), code);
  ck_assert(len > 0 && (size_t)len < sizeof cmd);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(fscanf(p, "%llu %llu", a, b), 2);
  ck_assert_int_eq(pclose(p), 0);
}

/* The same run on Debian's LuaJIT built without GC64, as Tarantool's was
 * (build/nogc64, with the collector module built against it): allocation
 * counts and bytes are Tarantool's. Strings are where the two LuaJITs
 * differ: Tarantool's sizes a string 16 + len + 1 bytes, this one
 * 20 + (len + 4 rounded down to a multiple of 4) (its header holds a string
 * id, and it pads); so the string sites are checked by those formulas.
 * This holds for Debian's LuaJIT; on OpenResty's (make check-other-luajit)
 * the test is left out and no nogc64 build is made (collector/build.mk). */
START_TEST(test_nogc64_basic_allocations_and_bytes_match_tarantool)
{
  char dir[1024], out[1100];
  const char *pwd = getenv("PWD") ? getenv("PWD") : ".";
  scratch(dir, sizeof dir, "basic-nogc64");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("cd testdata/tarantool-memprof && LJLEAK_START=1 LJLEAK_DIR='%s' LJLEAK_SIGNAL=none "
                      "LUA_CPATH='%s/%s/nogc64/lua/?.so' '%s/%s/nogc64/luajit/src/luajit' -joff "
                      "-l ljleak.collector basic.lua 4000 >/dev/null",
                      out, pwd, build_dir(), pwd, build_dir()), 0);
  struct capture_read *r = read_capture(out, NULL);
  ck_assert_int_eq(r->segments, 1);
  ck_assert_int_eq(r->status[0], FORMAT_END);

  static const char *const strings[] = {"@basic.lua:5", "@basic.lua:6", "@basic.lua:17", NULL};
  ck_assert_int_eq(assert_basic_allocations_match(r, strings, 1), 10);
  struct expected_site expected[64];
  int n = read_expected("ALLOCATIONS", expected, 64);

  /* Line 17 (loadstring) makes one string, the one-letter name "t": 18
   * bytes there, 24 here; its nine other blocks are the same. */
  const struct expected_site *line17 = NULL;
  for (int i = 0; i < n; i++)
    if (!strcmp(expected[i].name, "@basic.lua:17"))
      line17 = &expected[i];
  ck_assert_ptr_nonnull(line17);
  ck_assert_uint_eq(site_of(r, "@basic.lua:17")->allocs, line17->events);
  ck_assert_uint_eq(site_of(r, "@basic.lua:17")->alloc_bytes, line17->plus - (16 + 1 + 1) + 24);

  /* Line 6: the 4000 joined strings, whose lengths luajit computes here.
   * Tarantool's line 6 is those strings by its formula plus one string-table
   * resize (a power of two); ours, those strings by ours plus whatever
   * resizes fell on line 6 in this run. */
  unsigned long long theirs, ours;
  lua_two_numbers("local a, b = 0, 0 for i = 1, 4000 do local p = {} "
                  "for k = 1, 8 do p[k] = tostring(i * k) end local n = #table.concat(p, \",\") "
                  "a = a + 16 + n + 1 b = b + 20 + bit.band(n + 4, -4) end print(a, b)",
                  &theirs, &ours);
  const struct expected_site *line6 = NULL;
  for (int i = 0; i < n; i++)
    if (!strcmp(expected[i].name, "@basic.lua:6"))
      line6 = &expected[i];
  ck_assert_ptr_nonnull(line6);
  unsigned long long resize = line6->plus - theirs;
  ck_assert_msg(line6->events == 4001 && resize >= 4096 && (resize & (resize - 1)) == 0,
                "Tarantool's line 6: %llu events +%llu, strings %llu", line6->events, line6->plus,
                theirs);
  const struct site_total *ours6 = site_of(r, "@basic.lua:6");
  ck_assert_uint_eq(ours6->allocs - ours6->table_resizes, 4000);
  ck_assert_uint_eq(ours6->alloc_bytes - ours6->table_resize_bytes, ours);

  assert_basic_reallocations_match(r);
  free(r);
}
END_TEST
#endif

/* ---- Accounting ------------------------------------------------------------- */

/* Runs script under ljleak run with extra options, asks the collector after
 * stop() how many bytes went through the allocator, and compares. */
static void check_bytes_match(const char *name, const char *script, const char *options)
{
  char dir[1024], out[1100], bytes_file[1100];
  scratch(dir, sizeof dir, name);
  snprintf(out, sizeof out, "%s/cap", dir);
  snprintf(bytes_file, sizeof bytes_file, "%s/allocated", dir);
  ck_assert_int_eq(sh("LJLEAK_TEST_ALLOCATED_FILE='%s' '%s/ljleak' run -o '%s' %s %s >/dev/null",
                      bytes_file, build_dir(), out, options, script), 0);
  struct capture_read *r = read_capture(out, NULL);
  char *text = slurp(bytes_file);
  uint64_t allocated = strtoull(text, NULL, 10);
  free(text);
  ck_assert_uint_gt(allocated, 0);
  ck_assert_uint_eq(r->new_bytes, allocated);
  ck_assert_int_ge(r->segments, 1);
  for (int i = 0; i < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    ck_assert_uint_eq(r->events[i], r->index_events[i]);
    ck_assert_uint_eq(r->stream_bytes[i], r->index_bytes[i]);
  }
  ck_assert_str_eq(r->stop_reason, "stop");
  free(r);
}

START_TEST(test_jit_heavy_stream_bytes_equal_allocator_bytes)
{
  check_bytes_match("jit-heavy", "tests/lua/collector_jit.lua", "--max-bytes 256k");
}
END_TEST

START_TEST(test_coroutine_heavy_stream_bytes_equal_allocator_bytes)
{
  check_bytes_match("coroutines", "tests/lua/collector_coroutines.lua", "--max-bytes 256k");
}
END_TEST

START_TEST(test_ffi_stream_bytes_equal_allocator_bytes)
{
  check_bytes_match("ffi", "tests/lua/collector_ffi.lua", "");
}
END_TEST

START_TEST(test_gzip_segments_read_and_match_allocator_bytes)
{
  check_bytes_match("gzip", "tests/lua/collector_jit.lua", "--gzip --max-bytes 256k");
  char dir[1024], path[1100];
  scratch_path(dir, sizeof dir, "gzip");
  snprintf(path, sizeof path, "%s/cap/seg-0001.memprof.gz", dir);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fgetc(f), 0x1f);
  ck_assert_int_eq(fgetc(f), 0x8b);
  fclose(f);
}
END_TEST

/* Segments are storage: they rotate by size, whether or not a GC cycle
 * ended. One due between cycles ends at once, near --max-bytes (the size
 * is looked at every tick, so it may pass it by what a tick writes), not
 * complete and saying nothing of young blocks; one due during a cycle ends
 * with it, complete, saying where that cycle started. */
START_TEST(test_segments_rotate_by_size_not_at_gc_cycles)
{
  struct capture_read *r = run_and_read("rotate", "--max-bytes 64k tests/lua/collector_jit.lua");
  ck_assert_int_ge(r->segments, 3);
  int cut = 0;
  for (int i = 0; i < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    if (i + 1 < r->segments) {
      ck_assert_msg(r->index_bytes[i] >= 65536 && (r->complete[i] || r->index_bytes[i] <= 2 * 65536),
                    "segment %d holds %llu bytes", i + 1, (unsigned long long)r->index_bytes[i]);
      cut += !r->complete[i];
    }
    if (r->complete[i])
      ck_assert_uint_le(r->young_from[i], r->index_events[i]);
    else
      ck_assert_uint_eq(r->young_from[i], UINT64_MAX);
  }
  ck_assert_int_ge(cut, 1);  /* some ended where no cycle did */
  ck_assert_str_eq(r->stop_reason, "exit");
  ck_assert_uint_eq(r->unknown_frees > 0, 1); /* blocks from before the capture get freed */
  free(r);
}
END_TEST

/* The program stops its GC: no cycle ends, and segments still rotate by
 * size (before, one segment held the whole run). */
START_TEST(test_segments_rotate_while_the_program_stops_its_gc)
{
  struct capture_read *r = run_and_read("rotate-stopped", "--no-edge-gc --max-bytes 64k -e \"collectgarbage('stop')\" tests/lua/collector_jit.lua");
  ck_assert_int_ge(r->segments, 3);
  ck_assert_int_eq(r->nboundaries, 0);
  for (int i = 0; i + 1 < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    ck_assert_int_eq(r->complete[i], 0);
    ck_assert_uint_eq(r->gc_cycles[i], 0);
  }
  free(r);
}
END_TEST

/* --force-gc with a short period gives complete segments even when the
 * workload allocates too little to finish GC cycles by itself. */
START_TEST(test_force_gc_cuts_complete_segments)
{
  struct capture_read *r = run_and_read("force-gc", "--period 0.05 --force-gc tests/lua/collector_slow.lua");
  ck_assert_int_ge(r->segments, 3);
  for (int i = 0; i + 1 < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    ck_assert_int_eq(r->complete[i], 1);
  }
  free(r);
}
END_TEST

/* --force-gc cuts a due boundary at once inside one long compiled loop that
 * never returns to the interpreter, where GC cycles of its own are seconds
 * apart: every complete segment stays near --max-bytes (a count hook would
 * wait for the loop's end; such a segment holds 80 times as much). */
START_TEST(test_force_gc_cuts_boundaries_inside_a_compiled_loop)
{
  struct capture_read *r = run_and_read("force-trace", "--max-bytes 64k --force-gc tests/lua/collector_trace_loop.lua");
  int complete = 0;
  for (int i = 0; i < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    if (!r->complete[i])
      continue;
    complete++;
    ck_assert_msg(r->index_bytes[i] <= 4 * 65536, "segment %d holds %llu bytes", i + 1,
                  (unsigned long long)r->index_bytes[i]);
    if (i > 0)
      ck_assert_uint_gt(r->gc_cycles[i], r->gc_cycles[i - 1]);
  }
  ck_assert_int_ge(complete, 20);
  free(r);
}
END_TEST

/* A GC cycle that frees nothing and runs whole between two events (inside
 * collectgarbage()) still ends a due segment: the cycle is seen by the
 * white it flips, not by frees. */
START_TEST(test_cycles_that_free_nothing_end_segments)
{
  struct capture_read *r = run_and_read("idle-cycles", "--no-edge-gc --period 0.001 tests/lua/collector_idle_cycles.lua 40");
  int complete = 0;
  for (int i = 0; i < r->segments; i++)
    complete += r->complete[i];
  /* 40 cycles, each after the period has passed; the first may come before
   * the capture's first segment has run its period. */
  ck_assert_int_ge(complete, 38);
  ck_assert_uint_ge(r->gc_cycles[r->segments - 1], 40);
  free(r);
}
END_TEST

/* ---- Boundaries ------------------------------------------------------------- */

static struct capture_read *run_module_script(const char *name, const char *script,
                                              const char *expected, const char *capture);

/* The boundary lines of r in order: numbered from 1, in their segments, no
 * young_from past the position, gc_cycles and allocated never going back. */
static void assert_boundaries_consistent(const struct capture_read *r)
{
  for (int k = 0; k < r->nboundaries; k++) {
    const struct boundary_read *b = &r->boundaries[k];
    ck_assert_uint_eq(b->seq, (uint64_t)k + 1);
    ck_assert_uint_ge(b->segment, 1);
    ck_assert_uint_le(b->segment, (uint64_t)r->segments);
    ck_assert_uint_le(b->events, r->index_events[b->segment - 1]);
    ck_assert_uint_le(b->young_from, b->events);
    if (k == 0)
      continue;
    const struct boundary_read *a = &r->boundaries[k - 1];
    ck_assert_uint_ge(b->segment, a->segment);
    if (b->segment == a->segment)
      ck_assert_uint_ge(b->events, a->events);
    ck_assert_uint_ge(b->gc_cycles, a->gc_cycles);
    ck_assert_uint_ge(b->allocated, a->allocated);
  }
}

static int count_cause(const struct capture_read *r, const char *cause)
{
  int n = 0;
  for (int k = 0; k < r->nboundaries; k++)
    n += !strcmp(r->boundaries[k].cause, cause);
  return n;
}

/* ljleak run records a boundary at every GC cycle of the program, between
 * the forced cycles of the start (before the first event) and the end of the
 * script (after the last, cause exit): each line counts at least one more
 * cycle, and the last has every cycle the capture saw. */
START_TEST(test_boundary_at_every_gc_cycle_between_start_and_stop)
{
  struct capture_read *r = run_and_read("boundaries", "--snapshots none --max-bytes 256k tests/lua/collector_jit.lua");
  ck_assert_int_ge(r->segments, 2);
  ck_assert_int_ge(r->nboundaries, 10);
  assert_boundaries_consistent(r);
  const struct boundary_read *first = &r->boundaries[0], *last = &r->boundaries[r->nboundaries - 1];
  ck_assert_str_eq(first->cause, "start");
  ck_assert_uint_eq(first->segment, 1);
  ck_assert_uint_eq(first->events, 0);
  ck_assert_uint_eq(first->gc_cycles, 0);
  ck_assert_str_eq(last->cause, "exit");  /* the script ended: ljleak run's stop */
  ck_assert_str_eq(r->boundaries[r->nboundaries - 2].cause, "return");  /* its main chunk's */
  ck_assert_uint_eq(last->segment, (uint64_t)r->segments);
  ck_assert_uint_eq(last->events, r->index_events[r->segments - 1]);
  ck_assert_uint_eq(last->gc_cycles, r->gc_cycles[r->segments - 1]);
  for (int k = 1; k < r->nboundaries; k++)
    ck_assert_uint_gt(r->boundaries[k].gc_cycles, r->boundaries[k - 1].gc_cycles);
  /* The program's cycles, and those forced to cover the run as its heap grew. */
  ck_assert_int_eq(count_cause(r, "gc") + count_cause(r, "volume"), r->nboundaries - 3);
  free(r);
}
END_TEST

/* --no-edge-gc: only the program's own cycles. */
START_TEST(test_no_edge_gc_records_only_the_programs_cycles)
{
  struct capture_read *r = run_and_read("no-edge", "--snapshots none --no-edge-gc tests/lua/collector_jit.lua");
  assert_boundaries_consistent(r);
  ck_assert_int_ge(r->nboundaries, 5);
  ck_assert_int_eq(count_cause(r, "gc") + count_cause(r, "volume"), r->nboundaries);
  free(r);
}
END_TEST

/* --every forces a cycle each time the bytes allocated pass a multiple of
 * it: about 40 MB allocated with --every 4M gives 9 or 10 such boundaries,
 * the k-th after k times 4 MiB and before the next multiple. */
START_TEST(test_every_forces_boundaries_by_work)
{
  struct capture_read *r = run_and_read("every", "--every 4M tests/lua/collector_every.lua");
  assert_boundaries_consistent(r);
  uint64_t step = 4u << 20;
  int k = 0;
  for (int i = 0; i < r->nboundaries; i++) {
    const struct boundary_read *b = &r->boundaries[i];
    if (strcmp(b->cause, "every"))
      continue;
    k++;
    ck_assert_msg(b->allocated >= k * step && b->allocated < (k + 1) * step,
                  "every boundary %d after %llu bytes", k, (unsigned long long)b->allocated);
  }
  /* One per multiple passed, but for the last, which may come after the stop. */
  uint64_t allocated = r->boundaries[r->nboundaries - 1].allocated;
  ck_assert_int_ge(k, (int)(allocated / step) - 1);
  ck_assert_int_le(k, (int)(allocated / step));
  ck_assert_int_ge(k, 8);
  free(r);
}
END_TEST

/* A 20 ms run that completes no GC cycle of its own still has two exact
 * boundaries: the start's and the end's. */
START_TEST(test_short_run_without_cycles_has_a_first_and_a_last_boundary)
{
  struct capture_read *r = run_and_read("short", "tests/lua/collector_short.lua");
  assert_boundaries_consistent(r);
  /* The start's, the script's collectgarbage() before its loop, its main
   * chunk's return, the stop's. */
  ck_assert_int_eq(r->nboundaries, 4);
  ck_assert_str_eq(r->boundaries[0].cause, "start");
  ck_assert_str_eq(r->boundaries[1].cause, "gc");
  ck_assert_uint_lt(r->boundaries[1].events, r->boundaries[2].events / 4);
  ck_assert_str_eq(r->boundaries[2].cause, "return");
  ck_assert_str_eq(r->boundaries[3].cause, "exit");
  ck_assert_uint_gt(r->boundaries[2].events, 100);
  ck_assert_uint_gt(r->boundaries[2].allocated, 100 * 256);
  free(r);
}
END_TEST

/* A stop by --duration, inside the hook, waits for one more forced cycle:
 * the capture ends on a boundary. (Without snapshots: a middle snapshot's
 * cycle may come first and end it, at a boundary of cause snapshot.) */
START_TEST(test_duration_stop_ends_on_a_forced_boundary)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, "duration-boundary");
  ck_assert_int_eq(sh("'%s/ljleak' run --snapshots none -o '%s/cap' --duration 0.2 tests/lua/collector_slow.lua > /dev/null",
                      build_dir(), dir), 0);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  assert_boundaries_consistent(r);
  ck_assert_str_eq(r->stop_reason, "duration");
  const struct boundary_read *last = &r->boundaries[r->nboundaries - 1];
  ck_assert_str_eq(last->cause, "stop");
  ck_assert_uint_eq(last->segment, (uint64_t)r->segments);
  free(r);
}
END_TEST

/* collector.boundary() runs a cycle and records its boundary at once; it
 * returns the count, and after the stop it fails. */
START_TEST(test_boundary_call_records_a_boundary_per_call)
{
  struct capture_read *r = run_module_script("boundary-call", "collector_boundary_call.lua",
                                             "true\nnil\tno capture is running\n",
                                             "capture");
  assert_boundaries_consistent(r);
  ck_assert_int_eq(count_cause(r, "call"), 5);
  ck_assert_int_eq(count_cause(r, "gc"), r->nboundaries - 5);
  free(r);
}
END_TEST

/* A sampled capture records its boundaries the same way. */
START_TEST(test_sampled_capture_records_boundaries)
{
  struct capture_read *r = run_and_read("sampled-boundaries", "--sample 64k tests/lua/collector_jit.lua");
  assert_boundaries_consistent(r);
  ck_assert_int_ge(r->nboundaries, 5);
  ck_assert_str_eq(r->boundaries[0].cause, "start");
  ck_assert_str_eq(r->boundaries[r->nboundaries - 1].cause, "exit");
  free(r);
}
END_TEST

/* Runs tests/lua/SCRIPT with luajit and the module (no signal handler) in a
 * new scratch directory NAME, checks what it prints, and reads the capture
 * it made in the subdirectory capture. */
static struct capture_read *run_module_script(const char *name, const char *script,
                                              const char *expected, const char *capture)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("cd '%s' && LJLEAK_SIGNAL=none LUA_CPATH='%s/%s/lua/?.so;;' %s %s/tests/lua/%s > out",
                      dir, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD"), script), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = slurp(path);
  ck_assert_str_eq(text, expected);
  free(text);
  snprintf(path, sizeof path, "%s/%s", dir, capture);
  return read_capture(path, NULL);
}

/* force_gc borrows the VM's stepmul only until the boundary and gives the
 * program's value back; with the collector stopped it forces nothing. */
START_TEST(test_force_gc_restores_stepmul_and_respects_a_stopped_gc)
{
  struct capture_read *r =
      run_module_script("force-module", "collector_force_gc.lua",
                        "forced segments true\nstepmul 300\nstopped grew true segments 0\n"
                        "stepmul 300\n",
                        "stopped");
  ck_assert_int_eq(r->segments, 1);
  ck_assert_int_eq(r->complete[0], 0);
  free(r);
}
END_TEST

/* ---- Sampling ----------------------------------------------------------------- */

START_TEST(test_sampling_records_rate_and_only_frees_of_sampled_blocks)
{
  char dir[1024], out[1100], full[1100];
  scratch(dir, sizeof dir, "sample");
  snprintf(out, sizeof out, "%s/cap", dir);
  snprintf(full, sizeof full, "%s/full", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' --sample 4096 tests/lua/collector_jit.lua >/dev/null",
                      build_dir(), out), 0);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' tests/lua/collector_jit.lua >/dev/null",
                      build_dir(), full), 0);
  struct capture_read *r = read_capture(out, NULL);
  struct capture_read *f = read_capture(full, NULL);
  ck_assert_uint_eq(r->index_sample, 4096);
  ck_assert_uint_eq(f->index_sample, 0);
  ck_assert_uint_eq(r->unknown_frees, 0);
  /* A Poisson sample of mean 4 KiB sees far fewer events than the full stream. */
  ck_assert_uint_lt(r->events[0] * 4, f->events[0]);
  ck_assert_uint_gt(r->events[0], 0);
  free(r);
  free(f);
}
END_TEST

/* ---- The runner behaves like luajit --------------------------------------------- */

START_TEST(test_run_keeps_exit_status_arg_table_and_stdout)
{
  char dir[1024];
  scratch(dir, sizeof dir, "args");
  ck_assert_int_eq(sh("cd '%s' && '%s/%s/ljleak' run -o cap -e 'X=1' %s/tests/lua/collector_args.lua a 'b c' > out.txt",
                      dir, getenv("PWD"), build_dir(), getenv("PWD")), 7);
  char path[1100];
  snprintf(path, sizeof path, "%s/out.txt", dir);
  char *text = slurp(path);
  char expected[2048];
  snprintf(expected, sizeof expected,
           "X=1 n=2 a b c\narg[-1]=X=1 arg[-2]=-e arg[-3]=cap arg[-4]=-o arg[-5]=run arg[-6]=ljleak\n"
           "arg[0]=%s/tests/lua/collector_args.lua\n",
           getenv("PWD"));
  ck_assert_str_eq(text, expected);
  free(text);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_str_eq(r->stop_reason, "exit");
  ck_assert_int_eq(r->segments, 1);
  free(r);
}
END_TEST

START_TEST(test_run_reports_errors_like_luajit)
{
  char dir[1024];
  scratch(dir, sizeof dir, "errors");
  ck_assert_int_eq(sh("cd tests/lua && '%s/%s/ljleak' run -o '%s/cap' collector_error.lua 2> '%s/ljleak.txt'",
                      getenv("PWD"), build_dir(), dir, dir), 1);
  ck_assert_int_eq(sh("cd tests/lua && luajit collector_error.lua 2> '%s/luajit.txt'", dir), 1);
  /* Identical but for the address of the outermost C frame. */
  ck_assert_int_eq(sh("cd '%s' && sed 's/0x[0-9a-f]*/ADDR/' ljleak.txt > a && sed 's/0x[0-9a-f]*/ADDR/' luajit.txt > b && cmp -s a b", dir), 0);
}
END_TEST

/* ---- Refusal and failure paths ---------------------------------------------------- */

START_TEST(test_layout_mismatch_refuses_and_exits_4)
{
  char dir[1024];
  scratch(dir, sizeof dir, "layout");
  ck_assert_int_eq(sh("LJLEAK_TEST_BREAK_LAYOUT=1 '%s/ljleak' run -o '%s/cap' tests/lua/collector_args.lua > '%s/out' 2> '%s/err'",
                      build_dir(), dir, dir, dir), 4);
  char path[1100];
  snprintf(path, sizeof path, "%s/err", dir);
  char *err = slurp(path);
  ck_assert_ptr_nonnull(strstr(err, "LuaJIT layout check failed: running jit.version"));
  free(err);
  snprintf(path, sizeof path, "%s/cap/index", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* The module refuses the same way and the host program carries on. */
START_TEST(test_layout_mismatch_module_start_returns_error)
{
  char dir[1024];
  scratch(dir, sizeof dir, "layout-module");
  ck_assert_int_eq(sh("LJLEAK_TEST_BREAK_LAYOUT=1 LJLEAK_SIGNAL=none LUA_CPATH='%s/lua/?.so;;' %s -e "
                      "\"local c = require 'ljleak.collector' local ok, err = c.start{dir='%s/cap'} "
                      "assert(ok == nil and err:find('layout check failed', 1, true)) "
                      "assert(c.status().active == false) print('host goes on')\" > '%s/out'",
                      build_dir(), luajit_cmd(), dir, dir), 0);
  char path[1100];
  snprintf(path, sizeof path, "%s/out", dir);
  char *out = slurp(path);
  ck_assert_str_eq(out, "host goes on\n");
  free(out);
}
END_TEST

/* Runs the JIT workload under ljleak run --max-bytes 64k in scratch
 * directory NAME, after SETUP there (a shell command, or ""), with ENV in
 * front: the capture must stop at segment 2 with one message that holds
 * ERROR, segment 1 whole, and the program must finish normally. */
static void check_write_error(const char *name, const char *setup, const char *env,
                              const char *error)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("cd '%s' && mkdir -p cap %s", dir, setup), 0);
  ck_assert_int_eq(sh("%s '%s/ljleak' run -o '%s/cap' --max-bytes 64k tests/lua/collector_jit.lua "
                      "> '%s/out' 2> '%s/err'",
                      env, build_dir(), dir, dir, dir), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *out = slurp(path);
  ck_assert_str_eq(out, "jit workload done\n");
  free(out);
  snprintf(path, sizeof path, "%s/err", dir);
  char *err = slurp(path);
  ck_assert_msg(strstr(err, "ljleak: capture stopped: cannot write ") && strstr(err, error),
                "%s: %s", name, err);
  ck_assert_ptr_eq(strstr(strstr(err, "capture stopped") + 1, "capture stopped"), NULL);
  free(err);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_int_eq(r->segments, 1);
  ck_assert_int_eq(r->status[0], FORMAT_END);
  ck_assert_str_eq(r->stop_reason, "write-error");
  free(r);
}

/* Segment 2's writes fail with ENOSPC, as on a full disk (the shim below:
 * the collector never writes through a link planted as its .part). */
START_TEST(test_write_error_stops_capture_and_program_continues)
{
  char env[1200];
  snprintf(env, sizeof env,
           "LD_PRELOAD='%s/%s/tests/fault_io.so' ASAN_OPTIONS=verify_asan_link_order=0 "
           "LJLEAK_FAULT_FILE=seg-0002.memprof.part LJLEAK_FAULT_CALL=write "
           "LJLEAK_FAULT_ERRNO=ENOSPC",
           getenv("PWD"), build_dir());
  check_write_error("write-error", "", env, "seg-0002.memprof.part: No space left on device");
}
END_TEST

/* EIO from write() or from close() when segment 2 ends (as a network
 * filesystem reports a failed writeback): an LD_PRELOAD shim plays the
 * failing disk. (ASan wants to be first among loaded libraries; the shim
 * must come first here.) */
START_TEST(test_io_error_stops_capture_and_program_continues)
{
  static const char *const calls[] = {"write", "close"};
  for (int k = 0; k < 2; k++) {
    char env[1200];
    snprintf(env, sizeof env,
             "LD_PRELOAD='%s/%s/tests/fault_io.so' ASAN_OPTIONS=verify_asan_link_order=0 "
             "LJLEAK_FAULT_FILE=seg-0002.memprof.part LJLEAK_FAULT_CALL=%s",
             getenv("PWD"), build_dir(), calls[k]);
    check_write_error(calls[k], "", env, "seg-0002.memprof.part: Input/output error");
  }
}
END_TEST

/* Runs tests/lua/collector_write_fails.lua under ljleak run --max-bytes 256k in scratch directory
 * NAME, the shim failing writes as FAULT says (its LJLEAK_FAULT_* variables): the capture stops, and every event it counted is in its segments, the one open at the stop
 * finished (listed, or left as its .part with its epilogue when the index took no more lines),
 * the last boundary among them; no snapshot's .part is left. The capture read, with the open
 * segment's .part last when INDEX_FAILS. stderr says once that the capture stopped, with
 * SAID in the line. */
static struct capture_read *check_write_fails_keeping_events(const char *name, const char *fault,
                                                             int index_fails, const char *said)
{
  char dir[1024], path[1200], part[64] = "";
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("LD_PRELOAD='%s/%s/tests/fault_io.so' ASAN_OPTIONS=verify_asan_link_order=0 "
                      "LJLEAK_FAULT_CALL=write LJLEAK_FAULT_ERRNO=ENOSPC %s '%s/ljleak' run "
                      "--snapshots none --max-bytes 256k -o '%s/cap' tests/lua/collector_write_fails.lua "
                      "> '%s/out' 2> '%s/err'",
                      getenv("PWD"), build_dir(), fault, build_dir(), dir, dir, dir), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *out = slurp(path), active[8] = "";
  int batch = 0;
  unsigned long long counted = 0;
  ck_assert_msg(sscanf(out, "%d %llu %7s", &batch, &counted, active) == 3, "%s: %s", name, out);
  ck_assert_str_eq(active, "false");
  ck_assert_int_gt(batch, 1);   /* in mid-capture, after some boundaries */
  free(out);
  snprintf(path, sizeof path, "%s/err", dir);
  char *err = slurp(path), *stopped = strstr(err, "ljleak: capture stopped: ");
  ck_assert_msg(stopped && strstr(stopped, said) && strstr(stopped, said) < strchr(stopped, '\n'),
                "%s: %s", name, err);
  ck_assert_ptr_eq(strstr(stopped + strlen("ljleak: capture"), "capture stopped"), NULL);  /* once */
  free(err);
  ck_assert_int_eq(sh("cd '%s/cap' && test -z \"$(ls | grep '^snap-.*\\.part$')\"", dir), 0);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  if (index_fails) {
    snprintf(part, sizeof part, "seg-%04d.memprof.part", r->segments + 1);
    free(r);
    r = read_capture(path, part);
  } else {
    ck_assert_int_eq(sh("cd '%s/cap' && test -z \"$(ls | grep '\\.part$')\"", dir), 0);
  }
  int read = r->segments + (index_fails ? 1 : 0);
  uint64_t events = 0;
  for (int i = 0; i < read; i++) {
    ck_assert_msg(r->status[i] == FORMAT_END, "%s: segment %d: status %d", name, i + 1, r->status[i]);
    events += r->events[i];
    if (i < r->segments)
      ck_assert_uint_eq(r->events[i], r->index_events[i]);
  }
  ck_assert_uint_eq(events, counted);
  ck_assert_int_gt(r->nboundaries, 1);
  const struct boundary_read *last = &r->boundaries[r->nboundaries - 1];
  ck_assert_int_le(last->segment, read);
  ck_assert_uint_le(last->events, r->events[last->segment - 1]);
  return r;
}

/* A heap snapshot's write fails in mid-capture (a full disk): the open segment still gets every
 * event buffered before the stop and its index line, the failed snapshot's .part is removed,
 * and the index says write-error. */
START_TEST(test_snapshot_write_error_keeps_the_open_segment)
{
  struct capture_read *r = check_write_fails_keeping_events(
      "snapshot-write-error", "LJLEAK_FAULT_FILE=.heap.part", 0,
      ".heap.part: No space left on device");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->stop_reason, "write-error");
  free(r);
}
END_TEST

/* The index fills up in mid-capture, at a boundary's line or at a finished segment's (which then
 * goes back to its .part name): the open segment is finished and kept as its .part, with every
 * event the capture counted. */
START_TEST(test_index_write_error_keeps_the_open_segment_as_its_part)
{
  static const char *const lines[] = {"boundary", "segment"};
  for (int k = 0; k < 2; k++) {
    char name[64], fault[128];
    snprintf(name, sizeof name, "index-write-error-%s", lines[k]);
    snprintf(fault, sizeof fault, "LJLEAK_FAULT_FILE=/index LJLEAK_FAULT_SKIP=12 LJLEAK_FAULT_FROM=%s",
             lines[k]);
    struct capture_read *r = check_write_fails_keeping_events(name, fault, 1, "/index: No space left on device");
    ck_assert_str_eq(r->stop_reason, "");   /* the index took no stop line either */
    free(r);
  }
}
END_TEST

START_TEST(test_max_total_bytes_stops_capture_with_message)
{
  char dir[1024];
  scratch(dir, sizeof dir, "max-total");
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s/cap' --max-bytes 64k --max-total-bytes 200k tests/lua/collector_jit.lua > '%s/out' 2> '%s/err'",
                      build_dir(), dir, dir, dir), 0);
  char path[1100];
  snprintf(path, sizeof path, "%s/err", dir);
  char *err = slurp(path);
  ck_assert_ptr_nonnull(strstr(err, "reached --max-total-bytes 204800"));
  free(err);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_str_eq(r->stop_reason, "max-total-bytes");
  uint64_t total = 0;
  for (int i = 0; i < r->segments; i++) {
    ck_assert_int_eq(r->status[i], FORMAT_END);
    total += r->index_bytes[i];
  }
  /* The stack sidecars are written to disk too, and count. */
  for (int i = 1; i <= r->segments; i++) {
    struct stat st;
    snprintf(path, sizeof path, "%s/cap/seg-%04d.stacks", dir, i);
    ck_assert_int_eq(stat(path, &st), 0);
    total += (uint64_t)st.st_size;
  }
  /* Stops within one buffer (64 KiB) of the cap. */
  ck_assert_uint_ge(total, 200 * 1024);
  ck_assert_uint_le(total, 200 * 1024 + 64 * 1024 + 64);
  free(r);
}
END_TEST

START_TEST(test_duration_stops_capture)
{
  char dir[1024];
  scratch(dir, sizeof dir, "duration");
  ck_assert_int_eq(sh("'%s/ljleak' run --snapshots none -o '%s/cap' --duration 0.2 tests/lua/collector_slow.lua > /dev/null",
                      build_dir(), dir), 0);
  char path[1100];
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_str_eq(r->stop_reason, "duration");
  ck_assert_int_eq(r->status[r->segments - 1], FORMAT_END);
  free(r);
}
END_TEST

/* A process that allocates little (a table every 0.1 s for 3 s): its --duration of 0.5 s ends
 * the capture (a thread asks the hook for the timers once it passed), where the timers ran only
 * at the stream's ticks and the capture ended at the exit. The stop comes at an allocation, so
 * within the run, whatever the machine's load: the program allocates until its end. */
START_TEST(test_duration_stops_a_capture_of_a_process_that_allocates_little)
{
  char dir[1024];
  scratch(dir, sizeof dir, "duration-idle");
  ck_assert_int_eq(sh("'%s/ljleak' run --snapshots none -o '%s/cap' --duration 0.5 tests/lua/collector_idle.lua > /dev/null",
                      build_dir(), dir), 0);
  char path[1100];
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_str_eq(r->stop_reason, "duration");
  free(r);
}
END_TEST

/* SIGKILL in mid-capture: finished segments are whole, the .part reads up
 * to its last complete event (truncated, never corrupt). */
START_TEST(test_sigkill_leaves_whole_segments_and_readable_part)
{
  char dir[1024], out[1100], path[1200];
  scratch(dir, sizeof dir, "sigkill");
  snprintf(out, sizeof out, "%s/cap", dir);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char bin[1100];
    snprintf(bin, sizeof bin, "%s/ljleak", build_dir());
    freopen("/dev/null", "w", stdout);
    execl(bin, bin, "run", "-o", out, "--max-bytes", "1M", "tests/lua/collector_forever.lua",
          (char *)NULL);
    _exit(127);
  }
  /* Wait until a segment is listed and the next one's .part has events on
   * disk (no time limit on the workload itself): a kill in the first moments
   * of a segment would find only its header written. */
  snprintf(path, sizeof path, "%s/index", out);
  for (int tries = 0; tries < 3000; tries++) {
    char *text = slurp(path);
    int lines = 0;
    for (char *p = text; (p = strstr(p, "\nsegment\t")); p++)
      lines++;
    free(text);
    char part_path[1200];
    struct stat st;
    snprintf(part_path, sizeof part_path, "%s/seg-%04d.memprof.part", out, lines + 1);
    if (lines >= 1 && stat(part_path, &st) == 0 && st.st_size >= 256 * 1024)
      break;
    usleep(2000);
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  ck_assert(WIFSIGNALED(status));
  /* The .part is the one after the last listed segment. */
  struct capture_read *listed = read_capture(out, NULL);
  ck_assert_int_ge(listed->segments, 1);
  char part[64];
  snprintf(part, sizeof part, "seg-%04d.memprof.part", listed->segments + 1);
  snprintf(path, sizeof path, "%s/%s", out, part);
  int have_part = 1;
  if (access(path, F_OK) != 0) {
    /* Killed after the rename and before the index line, or after the index
     * line and before the next segment was created. */
    snprintf(part, sizeof part, "seg-%04d.memprof", listed->segments + 1);
    snprintf(path, sizeof path, "%s/%s", out, part);
    have_part = access(path, F_OK) == 0;
  }
  free(listed);
  struct capture_read *r = read_capture(out, have_part ? part : NULL);
  for (int i = 0; i < r->segments; i++)
    ck_assert_int_eq(r->status[i], FORMAT_END);
  /* Cut: truncated, or whole if the kill fell between its epilogue and its rename. */
  if (have_part) {
    ck_assert_msg(r->status[r->segments] == FORMAT_CUT ||
                  r->status[r->segments] == FORMAT_END,
                  "%s read with status %d", part, r->status[r->segments]);
    ck_assert_uint_gt(r->events[r->segments], 0);
  }
  ck_assert_str_eq(r->stop_reason, "");
  free(r);
}
END_TEST

/* A child of fork() drops its parent's capture: it writes nothing to the
 * parent's files (not even at exit), so the parent's capture is whole, with
 * one stop line and none of the child's allocations (line 12). */
START_TEST(test_forked_child_leaves_the_capture_to_its_parent)
{
  char dir[1024], out[1100], path[1200];
  scratch(dir, sizeof dir, "fork");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' --max-bytes 16k tests/lua/collector_fork.lua "
                      "> '%s/out' 2> '%s/err'",
                      build_dir(), out, dir, dir), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = slurp(path);
  ck_assert_str_eq(text, "parent done\t0\n");
  free(text);
  snprintf(path, sizeof path, "%s/err", dir);
  text = slurp(path);
  ck_assert_str_eq(text, "");
  free(text);
  snprintf(path, sizeof path, "%s/index", out);
  text = slurp(path);
  ck_assert_ptr_nonnull(strstr(text, "\nstop\t"));
  ck_assert_ptr_null(strstr(strstr(text, "\nstop\t") + 1, "\nstop\t"));
  free(text);
  struct capture_read *r = read_capture(out, NULL);
  ck_assert_int_ge(r->segments, 2);
  for (int i = 0; i < r->segments; i++)
    ck_assert_int_eq(r->status[i], FORMAT_END);
  ck_assert_str_eq(r->stop_reason, "exit");
  ck_assert_ptr_null(site_ending(r, "collector_fork.lua:12"));
  ck_assert_ptr_nonnull(site_ending(r, "collector_fork.lua:15"));
  free(r);
}
END_TEST

/* ---- The Lua module ------------------------------------------------------------- */

START_TEST(test_module_start_stop_status)
{
  struct capture_read *r =
      run_module_script("module", "collector_module.lua",
                        "idle false\nstarted cap true\nagain nil a capture is already running in cap\n"
                        "stopped true false 1\nstop again nil no capture is running\n",
                        "cap");
  ck_assert_int_eq(r->segments, 1);
  ck_assert_int_eq(r->status[0], FORMAT_END);
  ck_assert_str_eq(r->stop_reason, "stop");
  const struct site_total *line8 = site_ending(r, "/tests/lua/collector_module.lua:8");
  ck_assert_ptr_nonnull(line8);
  /* 1000 tables plus the first array part of keep (later growth is reallocation). */
  ck_assert_uint_eq(line8->allocs, 1001);
  free(r);
}
END_TEST

/* LJLEAK_START=1 starts at load into LJLEAK_DIR; the signal stops the
 * capture and the next one starts a new directory under LJLEAK_ROOT, each
 * at the next allocation. ENV goes in front. */
static void check_signal_toggles_capture(const char *name, const char *env)
{
  char dir[1024];
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("cd '%s' && %s LJLEAK_START=1 LJLEAK_DIR=first LJLEAK_ROOT=roots LUA_CPATH='%s/%s/lua/?.so;;' "
                      "%s -l ljleak.collector %s/tests/lua/collector_signal.lua > out",
                      dir, env, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD")), 0);
  char path[1100];
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = slurp(path);
  ck_assert_str_eq(text, "active first true\nafter signal false\nafter second signal true\n");
  free(text);
  snprintf(path, sizeof path, "%s/first", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_str_eq(r->stop_reason, "signal");
  ck_assert_int_eq(r->status[0], FORMAT_END);
  free(r);
  /* The second capture went to roots/ljleak-<pid>-<time> and ended at exit. */
  ck_assert_int_eq(sh("cd '%s' && ls -d roots/ljleak-* | wc -l | grep -qx 1", dir), 0);
  ck_assert_int_eq(sh("cd '%s' && grep -q 'reason=exit' roots/ljleak-*/index", dir), 0);
}

START_TEST(test_signal_toggles_capture_from_env)
{
  check_signal_toggles_capture("signal", "");
}
END_TEST

START_TEST(test_signal_toggles_sampled_capture)
{
  /* Nothing sampled (a mean of 1 GB) and no GC phase change: the fast path
   * sees the signal by the mark it leaves on the phase compared. */
  check_signal_toggles_capture("signal-sampled",
                               "LJLEAK_TEST_GC_STOPPED=1 LJLEAK_SAMPLE=1000000000");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector");
  TCase *tc = tcase_create("run");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_jitoff_basic_allocations_match_tarantool);
  tcase_add_test(tc, test_jiton_basic_allocations_match_tarantool_jitoff);
#ifndef OPENRESTY_LUAJIT
  tcase_add_test(tc, test_nogc64_basic_allocations_and_bytes_match_tarantool);
#endif
  tcase_add_test(tc, test_jit_heavy_stream_bytes_equal_allocator_bytes);
  tcase_add_test(tc, test_coroutine_heavy_stream_bytes_equal_allocator_bytes);
  tcase_add_test(tc, test_ffi_stream_bytes_equal_allocator_bytes);
  tcase_add_test(tc, test_gzip_segments_read_and_match_allocator_bytes);
  tcase_add_test(tc, test_segments_rotate_by_size_not_at_gc_cycles);
  tcase_add_test(tc, test_segments_rotate_while_the_program_stops_its_gc);
  tcase_add_test(tc, test_force_gc_cuts_complete_segments);
  tcase_add_test(tc, test_force_gc_cuts_boundaries_inside_a_compiled_loop);
  tcase_add_test(tc, test_cycles_that_free_nothing_end_segments);
  tcase_add_test(tc, test_force_gc_restores_stepmul_and_respects_a_stopped_gc);
  tcase_add_test(tc, test_sampling_records_rate_and_only_frees_of_sampled_blocks);
  tcase_add_test(tc, test_run_keeps_exit_status_arg_table_and_stdout);
  tcase_add_test(tc, test_run_reports_errors_like_luajit);
  tcase_add_test(tc, test_layout_mismatch_refuses_and_exits_4);
  tcase_add_test(tc, test_layout_mismatch_module_start_returns_error);
  tcase_add_test(tc, test_write_error_stops_capture_and_program_continues);
  tcase_add_test(tc, test_io_error_stops_capture_and_program_continues);
  tcase_add_test(tc, test_snapshot_write_error_keeps_the_open_segment);
  tcase_add_test(tc, test_index_write_error_keeps_the_open_segment_as_its_part);
  tcase_add_test(tc, test_forked_child_leaves_the_capture_to_its_parent);
  tcase_add_test(tc, test_max_total_bytes_stops_capture_with_message);
  tcase_add_test(tc, test_duration_stops_capture);
  tcase_add_test(tc, test_duration_stops_a_capture_of_a_process_that_allocates_little);
  tcase_add_test(tc, test_boundary_at_every_gc_cycle_between_start_and_stop);
  tcase_add_test(tc, test_no_edge_gc_records_only_the_programs_cycles);
  tcase_add_test(tc, test_every_forces_boundaries_by_work);
  tcase_add_test(tc, test_short_run_without_cycles_has_a_first_and_a_last_boundary);
  tcase_add_test(tc, test_duration_stop_ends_on_a_forced_boundary);
  tcase_add_test(tc, test_boundary_call_records_a_boundary_per_call);
  tcase_add_test(tc, test_sampled_capture_records_boundaries);
  tcase_add_test(tc, test_sigkill_leaves_whole_segments_and_readable_part);
  tcase_add_test(tc, test_module_start_stop_status);
  tcase_add_test(tc, test_signal_toggles_capture_from_env);
  tcase_add_test(tc, test_signal_toggles_sampled_capture);
  suite_add_tcase(s, tc);
  return check_run(s);
}
