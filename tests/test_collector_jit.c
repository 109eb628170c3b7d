/* tests/test_collector_jit.c: allocations made by compiled code (JIT traces) are charged to their Lua lines, and to their trace where the line cannot be known. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/trace_line.h"
#include "collector/trace_record.h"
#include "lauxlib.h"
#include "lualib.h"
#include "tests/check_run.h"
#include "tests/collector_capture.h"

/* The allocation events of sites whose name starts with "TRACE ". */
static uint64_t trace_site_allocs(const struct capture_read *r)
{
  uint64_t n = 0;
  for (int i = 0; i < r->nsites; i++)
    if (!strncmp(r->sites[i].name, "TRACE ", 6))
      n += r->sites[i].allocs + r->sites[i].reallocs;
  return n;
}

static const struct site_total *must_site(const struct capture_read *r, const char *suffix)
{
  const struct site_total *s = site_ending(r, suffix);
  ck_assert_msg(s != NULL, "no site %s", suffix);
  return s;
}

/* The allocation events of sites whose name starts with prefix and holds
 * needle. */
static uint64_t allocs_of_sites(const struct capture_read *r, const char *prefix,
                                const char *needle)
{
  uint64_t n = 0;
  for (int i = 0; i < r->nsites; i++)
    if (!strncmp(r->sites[i].name, prefix, strlen(prefix)) && strstr(r->sites[i].name, needle))
      n += r->sites[i].allocs;
  return n;
}

/* The allocations of a loop compiled into one trace, with a call inlined
 * from another file, are charged to the same lines, in the same numbers,
 * with the JIT on as with -j off; none is left to a trace site, and the
 * index counts them all as charged to a line. */
START_TEST(test_trace_allocations_are_charged_to_the_lines_the_interpreter_charges)
{
  struct capture_read *on = run_and_read("lines-on", "tests/lua/collector_trace_lines.lua");
  struct capture_read *off = run_and_read("lines-off", "-j off tests/lua/collector_trace_lines.lua");
  static const char *const lines[] = {"/collector_trace_helper.lua:4",
                                      "/collector_trace_lines.lua:6",
                                      "/collector_trace_lines.lua:8"};
  /* A helper table (its hash part too), a two-slot table, a string (and
   * the keep table's parts; the string table's growth is the VM's). */
  static const uint64_t expected[] = {40000, 20000, 20006};
  for (int i = 0; i < 3; i++) {
    const struct site_total *a = must_site(on, lines[i]), *b = must_site(off, lines[i]);
    ck_assert_msg(a->allocs == expected[i] && b->allocs == expected[i] &&
                    a->alloc_bytes == b->alloc_bytes,
                  "%s: JIT on %llu +%llu, off %llu +%llu", lines[i],
                  (unsigned long long)a->allocs, (unsigned long long)a->alloc_bytes,
                  (unsigned long long)b->allocs, (unsigned long long)b->alloc_bytes);
  }
  ck_assert_uint_eq(trace_site_allocs(on), 0);
  ck_assert_uint_ge(on->trace_events, 79000);
  ck_assert_uint_eq(on->trace_lines, on->trace_events);
  ck_assert_uint_eq(off->trace_events, 0);
  free(on);
  free(off);
}
END_TEST

/* After jit.flush() trace number 1 is reused by another loop: each loop's
 * allocations are charged to its own line, and the trace symbol, kept as
 * secondary information, is emitted again for the new trace. */
START_TEST(test_reused_trace_number_gets_a_new_symbol)
{
  struct capture_read *r = run_and_read("flush", "tests/lua/collector_flush.lua");
  ck_assert_uint_eq(must_site(r, "/collector_flush.lua:3")->allocs, 2000 + 1); /* + keep's array */
  ck_assert_uint_eq(must_site(r, "/collector_flush.lua:5")->allocs, 2000);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  int first = 0, second = 0;
  for (int i = 0; i < r->ntrace_symbols; i++) {
    first += r->trace_symbols[i].trace == 1 && r->trace_symbols[i].line == 3;
    second += r->trace_symbols[i].trace == 1 && r->trace_symbols[i].line == 5;
  }
  ck_assert_int_eq(first, 1);
  ck_assert_int_eq(second, 1);
  free(r);
}
END_TEST

/* When the collector does not follow the recorder (the program attached
 * its own "record" handler, as -jdump does), nothing tells the lines of a
 * trace's code: its allocations keep the trace site, none goes to a line
 * it did not come from, the index counts none as charged to a line, and
 * ljleak run -v says so. */
START_TEST(test_trace_lines_fall_back_to_the_trace_when_the_recorder_is_not_followed)
{
  char dir[1024], out[1100], path[1100];
  scratch(dir, sizeof dir, "fallback");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -v -o '%s' tests/lua/collector_trace_fallback.lua "
                      ">/dev/null 2>'%s/err'", build_dir(), out, dir), 0);
  struct capture_read *r = read_capture(out, NULL);
  const struct site_total *trace = must_site(r, "TRACE [1] started at @tests/lua/collector_trace_fallback.lua:4");
  const struct site_total *line = must_site(r, "/collector_trace_fallback.lua:4");
  /* 20000 tables and keep's first array part, between the interpreter and the trace. */
  ck_assert_uint_eq(trace->allocs + line->allocs, 20001);
  ck_assert_uint_ge(trace->allocs, 19000);
  ck_assert_uint_eq(r->trace_lines, 0);
  ck_assert_uint_eq(r->trace_events, trace->allocs + trace->reallocs);
  snprintf(path, sizeof path, "%s/err", dir);
  char *text = slurp(path);
  char want[200];
  snprintf(want, sizeof want,
           "ljleak: %llu allocations by compiled code, 0 (0.0%%) charged to their line\n",
           (unsigned long long)r->trace_events);
  ck_assert_str_eq(text, want);
  free(text);
  free(r);
}
END_TEST

/* A log the collector kept from a recording it saw is never matched to a
 * trace recorded after the program's own "record" handler took its place,
 * even one with the same number, start and instructions: that trace keeps
 * its trace site, and line 5, whose recording left the log, gets only what
 * the interpreter ran there. */
START_TEST(test_trace_lines_drop_logs_once_the_recorder_is_no_longer_followed)
{
  char dir[1024], out[1100];
  scratch(dir, sizeof dir, "stale");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' tests/lua/collector_trace_stale.lua >/dev/null",
                      build_dir(), out), 0);
  struct capture_read *r = read_capture(out, NULL);
  const struct site_total *trace = must_site(r, "TRACE [1] started at @tests/lua/collector_trace_stale.lua:4");
  const struct site_total *first = must_site(r, "/collector_trace_stale.lua:5");
  const struct site_total *second = must_site(r, "/collector_trace_stale.lua:6");
  ck_assert_uint_le(first->allocs, 58);
  ck_assert_uint_eq(trace->allocs + second->allocs, 20000);
  ck_assert_uint_ge(trace->allocs, 19000);
  ck_assert_uint_eq(r->trace_lines, 0);
  free(r);
}
END_TEST

/* The return address is verified, never guessed: on a live trace whose only
 * allocation is line 3's table, every byte offset of its machine code (and
 * around it) is tried as the address a call into the VM returns to. Only
 * offsets right after a call instruction give a line, that line is 3, and
 * there is one; every other offset, one inside an instruction, the code's
 * first bytes, its end and beyond, gives the trace site. */
START_TEST(test_trace_lines_verify_the_return_address_at_every_offset)
{
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  struct trace_line_state tl;
  memset(&tl, 0, sizeof tl);
  coll_trace_record_attach(&tl, L);
  ck_assert(tl.attached);
  ck_assert(coll_trace_line_following(&tl));
  ck_assert_int_eq(luaL_dostring(L, "keep = {}\n"
                                    "for i = 1, 3000 do\n"
                                    "  keep[i % 64 + 1] = {}\n"
                                    "end\n"), 0);
  global_State *g = G(L);
  const GCtrace *T = traceref(G2J(g), 1);
  ck_assert_ptr_nonnull(T);
  const uint8_t *code = (const uint8_t *)T->mcode;
  uintptr_t mcode = (uintptr_t)T->mcode;
  unsigned lines = 0, wrong = 0, not_after_call = 0;
  uintptr_t found = 0;
  for (uintptr_t ra = mcode > 16 ? mcode - 16 : 0; ra < mcode + T->szmcode + 16; ra++) {
    uint32_t line = coll_trace_line_resolve_at(&tl, g, T, ra)->line;
    if (!line)
      continue;
    lines++;
    found = ra;
    wrong += line != 3;
    size_t at = ra - mcode;
    int after_call = (at >= 5 && code[at - 5] == 0xe8) ||
                     (at >= 2 && code[at - 2] == 0xff && code[at - 1] == 0xd0);
    not_after_call += !after_call;
  }
  ck_assert_uint_ge(lines, 1);
  ck_assert_uint_eq(wrong, 0);
  ck_assert_uint_eq(not_after_call, 0);
  ck_assert_uint_eq(coll_trace_line_resolve_at(&tl, g, T, 0)->line, 0);
  /* A replaced handler: the trace could now be flushed and recorded again
   * unseen, so even its map goes, and it keeps the trace site. */
  ck_assert_int_eq(luaL_dostring(L, "jit.attach(function() end, 'record')"), 0);
  ck_assert(!coll_trace_line_following(&tl));
  ck_assert_uint_eq(coll_trace_line_resolve_at(&tl, g, T, found)->line, 0);
  ck_assert(!tl.attached);
  coll_trace_line_forget(&tl);
  lua_close(L);
}
END_TEST

/* When one exit makes sunk tables of different lines (5 and 6), the exit
 * handler charges them to the line where the exit resumes, where they
 * escape (8); the side trace that replays them once the exit is hot
 * matches each to the one it copies, so lines 5 and 6 get theirs again. */
START_TEST(test_sunk_tables_of_two_lines_made_by_one_exit_are_charged_to_the_exit_line)
{
  struct capture_read *r = run_and_read("sunk-two", "tests/lua/collector_trace_sunk_two.lua");
  uint64_t p = must_site(r, "/collector_trace_sunk_two.lua:5")->allocs;
  uint64_t q = must_site(r, "/collector_trace_sunk_two.lua:6")->allocs;
  /* keep's first array part, then each exit's two tables and hash parts. */
  uint64_t at_exit = must_site(r, "/collector_trace_sunk_two.lua:8")->allocs - 1;
  ck_assert_uint_gt(at_exit, 0);
  ck_assert_uint_eq(at_exit % 4, 0);
  ck_assert_uint_le(at_exit, 4 * 20);
  ck_assert_uint_eq(p, q);
  /* 200 escapes of two tables, and what the interpreter made first. */
  ck_assert_uint_ge(p + q + at_exit, 2 * 2 * 200);
  ck_assert_uint_le(p + q + at_exit, 2 * 2 * (200 + 120));
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

/* A sampled capture resolves its samples the same way: every sample taken
 * in compiled code is charged to a line, on the lines that allocate. */
START_TEST(test_sampled_capture_charges_trace_samples_to_lines)
{
  struct capture_read *r =
    run_and_read("sampled", "--sample 4096 tests/lua/collector_trace_lines.lua 100000");
  ck_assert_uint_eq(r->index_sample, 4096);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  ck_assert_uint_ge(r->trace_events, 100);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  ck_assert_uint_ge(must_site(r, "/collector_trace_helper.lua:4")->allocs, 10);
  ck_assert_uint_ge(must_site(r, "/collector_trace_lines.lua:6")->allocs, 10);
  ck_assert_uint_ge(must_site(r, "/collector_trace_lines.lua:8")->allocs, 10);
  free(r);
}
END_TEST

/* A table the trace sinks is made only when it escapes, by a trace exit
 * (and, once the exit is hot, by the side trace that replays it): those
 * allocations are charged to the line of its constructor, not to the exit
 * or the trace. */
START_TEST(test_sunk_table_escaping_at_exits_is_charged_to_its_line)
{
  struct capture_read *r = run_and_read("sunk", "tests/lua/collector_trace_sunk.lua");
  const struct site_total *made = must_site(r, "/collector_trace_sunk.lua:5");
  /* A table and its hash part each: the 200 that escape, and the ones the
   * interpreter made before the loop was compiled; not the 20000. */
  ck_assert_uint_eq(made->allocs % 2, 0);
  ck_assert_uint_ge(made->allocs, 2 * 200);
  ck_assert_uint_le(made->allocs, 2 * 200 + 2 * 120);
  /* Where it escapes: only keep's first array part (its growth is reallocation). */
  ck_assert_uint_eq(must_site(r, "/collector_trace_sunk.lua:7")->allocs, 1);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

/* The same table made by a constructor the loop's trace inlines: the side
 * trace that makes it at the hot exit charges it to the constructor's line
 * (4), which the side trace's own constants do not name (only its parent's
 * do), not to the side trace. */
START_TEST(test_sunk_table_of_an_inlined_constructor_made_by_a_side_trace_is_charged_to_its_line)
{
  struct capture_read *r =
    run_and_read("sunk-inlined", "tests/lua/collector_trace_sunk_inlined.lua");
  const struct site_total *made = must_site(r, "/collector_trace_sunk_inlined.lua:4");
  ck_assert_uint_eq(made->allocs % 2, 0);
  ck_assert_uint_ge(made->allocs, 2 * 200);
  ck_assert_uint_le(made->allocs, 2 * 200 + 2 * 120);
  ck_assert_uint_eq(must_site(r, "/collector_trace_sunk_inlined.lua:10")->allocs, 1);
  ck_assert_uint_ge(r->trace_events, 100);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

/* The program's loop builds a new string each turn and hands it to a
 * cache from another file, which only reads it
 * (testdata/jit/library_loop.lua, lru_helpers.lua). The traces start in
 * the library: the first is the cache's own loop, and the side traces that
 * grow from its exits run on into the program's loop, where they build
 * the next turn's string; the one that grows from the other, at the
 * cache's branch, names the program's function nowhere among its own
 * constants (only its parent does, which returned into the loop). Every
 * string is charged to the program's line (14), as with -j off, none to a
 * trace started in the library ("TRACE started at
 * @.../lru_helpers.lua:31" had three in four of them); the cache's own
 * tables stay on its lines (28, 32), in the same numbers. Without lines
 * (LJLEAK_TRACE_LINES=0) the traces started in the library are seen to
 * make more than the library's lines allocate in all: the program's
 * strings. */
START_TEST(test_strings_a_trace_started_in_a_library_builds_are_charged_to_the_program_line)
{
  struct capture_read *on = run_and_read("library-on", "testdata/jit/library_loop.lua");
  struct capture_read *off = run_and_read("library-off", "-j off testdata/jit/library_loop.lua");
  static const char *const lines[] = {"/library_loop.lua:14", "/lru_helpers.lua:28",
                                      "/lru_helpers.lua:32"};
  uint64_t total = 0;
  for (int i = 0; i < 3; i++) {
    const struct site_total *a = must_site(on, lines[i]), *b = must_site(off, lines[i]);
    ck_assert_msg(a->allocs == b->allocs && a->alloc_bytes == b->alloc_bytes && a->allocs > 0,
                  "%s: JIT on %llu +%llu, off %llu +%llu", lines[i],
                  (unsigned long long)a->allocs, (unsigned long long)a->alloc_bytes,
                  (unsigned long long)b->allocs, (unsigned long long)b->alloc_bytes);
    total += a->allocs;
  }
  ck_assert_uint_eq(must_site(on, lines[0])->allocs, 20000);   /* every "k" .. i */
  ck_assert_uint_eq(trace_site_allocs(on), 0);
  ck_assert_uint_eq(on->trace_lines, on->trace_events);
  ck_assert_uint_ge(on->trace_events * 10, total * 9);   /* compiled code made them */
  ck_assert_uint_eq(off->trace_events, 0);

  char dir[1024], out[1100];
  scratch(dir, sizeof dir, "library-traces");
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("LJLEAK_TRACE_LINES=0 '%s/ljleak' run -o '%s' "
                      "testdata/jit/library_loop.lua >/dev/null", build_dir(), out), 0);
  struct capture_read *traces = read_capture(out, NULL);
  uint64_t by_library_traces = allocs_of_sites(traces, "TRACE ", "/lru_helpers.lua:");
  uint64_t library_lines = allocs_of_sites(on, "@", "/lru_helpers.lua:");
  ck_assert_msg(by_library_traces >= library_lines + 20000 / 2,
                "traces started in the library made %llu allocations, its lines %llu",
                (unsigned long long)by_library_traces, (unsigned long long)library_lines);
  free(traces);
  free(on);
  free(off);
}
END_TEST

/* Captures PROGRAM with the JIT on and with -j off: the lines `same` have
 * the same allocations (count and bytes) in both, those in `dropped` fewer
 * with the JIT on (it made no code for them), compiled code made at least
 * min_trace_events, and every one is charged to a line. */
static void check_lines_against_jit_off(const char *name, const char *program,
                                        const char *const *same, int nsame,
                                        const char *const *dropped, int ndropped,
                                        uint64_t min_trace_events)
{
  char on_name[64], off_name[64], off_args[256];
  snprintf(on_name, sizeof on_name, "%s-on", name);
  snprintf(off_name, sizeof off_name, "%s-off", name);
  snprintf(off_args, sizeof off_args, "-j off %s", program);
  struct capture_read *on = run_and_read(on_name, program);
  struct capture_read *off = run_and_read(off_name, off_args);
  for (int i = 0; i < nsame; i++) {
    const struct site_total *a = must_site(on, same[i]), *b = must_site(off, same[i]);
    ck_assert_msg(a->allocs == b->allocs && a->alloc_bytes == b->alloc_bytes,
                  "%s: JIT on %llu +%llu, off %llu +%llu", same[i],
                  (unsigned long long)a->allocs, (unsigned long long)a->alloc_bytes,
                  (unsigned long long)b->allocs, (unsigned long long)b->alloc_bytes);
  }
  for (int i = 0; i < ndropped; i++) {
    const struct site_total *a = site_ending(on, dropped[i]), *b = must_site(off, dropped[i]);
    ck_assert_msg(!a || a->allocs * 10 < b->allocs, "%s: JIT on %llu, off %llu", dropped[i],
                  (unsigned long long)(a ? a->allocs : 0), (unsigned long long)b->allocs);
  }
  ck_assert_uint_eq(trace_site_allocs(on), 0);
  ck_assert_uint_ge(on->trace_events, min_trace_events);
  ck_assert_uint_eq(on->trace_lines, on->trace_events);
  free(on);
  free(off);
}

/* The trace builds strings it then drops (a key only looked up in an
 * empty table, an inlined call's result never used): the assembler makes
 * no code for them (testdata/jit/dropped_strings.lua), so the calls of
 * the trace's code are fewer than the ones it recorded. The string built
 * beside them, which the loop keeps, is charged to its line, every one of
 * them (it was left to the trace, but for the interpreter's). */
START_TEST(test_strings_the_trace_drops_leave_the_kept_one_its_line)
{
  static const char *const same[] = {"/dropped_strings.lua:22"};
  static const char *const dropped[] = {"/dropped_strings.lua:14", "/dropped_strings.lua:20"};
  check_lines_against_jit_off("dropped", "testdata/jit/dropped_strings.lua", same, 1, dropped, 2,
                              19000);
}
END_TEST

/* In the loop's copy the JIT appends a string's pieces to the buffer that
 * built the key it starts with, one put fewer than it recorded
 * (testdata/jit/appended_strings.lua): the strings the copy makes are
 * still matched to the recorded ones, and each of the three lines gets
 * its own (a third of them were left to the trace). */
START_TEST(test_strings_of_a_loop_copy_with_a_put_folded_away_keep_their_lines)
{
  static const char *const same[] = {"/appended_strings.lua:16", "/appended_strings.lua:18",
                                     "/appended_strings.lua:19"};
  static const char *const dropped[] = {"/appended_strings.lua:11"};
  check_lines_against_jit_off("appended", "testdata/jit/appended_strings.lua", same, 3, dropped,
                              1, 44000);
}
END_TEST

/* A closure, and the upvalue it makes, are charged to the line where its
 * function expression ends: LuaJIT's parser gives the bytecode that makes
 * it (FNEW) the line of the closing "end" (lj_parse.c, parse_body), and
 * the interpreter makes it (LuaJIT 2.1 compiles no FNEW), as Tarantool's
 * memprof charges it. testdata/jit/closure_lines.lua makes 20000 of
 * lines 12 to 14, called from a compiled loop: they are on line 14 with
 * the JIT on as off, and nothing is on line 12; a heap snapshot names
 * their function by both lines (function@closure_lines.lua:12-14). */
START_TEST(test_a_closure_is_charged_to_the_line_its_function_expression_ends_on)
{
  struct capture_read *on = run_and_read("closure-on", "testdata/jit/closure_lines.lua");
  struct capture_read *off = run_and_read("closure-off", "-j off testdata/jit/closure_lines.lua");
  const struct site_total *a = must_site(on, "/closure_lines.lua:14");
  const struct site_total *b = must_site(off, "/closure_lines.lua:14");
  /* A closure and an upvalue each, and handlers' array part. */
  ck_assert_msg(a->allocs == b->allocs && a->alloc_bytes == b->alloc_bytes &&
                  a->allocs >= 2 * 20000 && a->allocs <= 2 * 20000 + 2,
                "line 14: JIT on %llu, off %llu", (unsigned long long)a->allocs,
                (unsigned long long)b->allocs);
  ck_assert_ptr_null(site_ending(on, "/closure_lines.lua:12"));
  ck_assert_ptr_null(site_ending(off, "/closure_lines.lua:12"));
  /* The calls' tables, made by compiled code, on their line. */
  ck_assert_uint_eq(must_site(on, "/closure_lines.lua:13")->allocs, 40000);
  ck_assert_uint_ge(on->trace_events, 39000);
  ck_assert_uint_eq(on->trace_lines, on->trace_events);
  free(on);
  free(off);
}
END_TEST

/* The module's status() counts the allocations of compiled code and those
 * charged to their line. */
START_TEST(test_module_status_counts_trace_allocations_and_lines)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, "status");
  ck_assert_int_eq(sh("cd '%s' && LJLEAK_SIGNAL=none LUA_CPATH='%s/%s/lua/?.so;;' %s "
                      "%s/tests/lua/collector_trace_status.lua > out",
                      dir, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD")), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = slurp(path);
  ck_assert_str_eq(text, "counted true lines true\n");
  free(text);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_uint_ge(r->trace_events, 19000);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

/* A handler of the program's own replaces the collector's during the first
 * capture (its trace keeps the trace site, no line from the log of the
 * recording before) and is detached again: the second capture attaches the
 * collector's once more, and the trace recorded then gets its line. */
START_TEST(test_the_next_capture_follows_the_recorder_again)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, "reattach");
  ck_assert_int_eq(sh("cd '%s' && LJLEAK_SIGNAL=none LUA_CPATH='%s/%s/lua/?.so;;' %s "
                      "%s/tests/lua/collector_trace_reattach.lua > out",
                      dir, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD")), 0);
  snprintf(path, sizeof path, "%s/one", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_uint_ge(trace_site_allocs(r), 19000);
  ck_assert_uint_le(must_site(r, "/collector_trace_reattach.lua:6")->allocs, 58);
  ck_assert_uint_eq(r->trace_lines, 0);
  free(r);
  snprintf(path, sizeof path, "%s/two", dir);
  r = read_capture(path, NULL);
  ck_assert_uint_eq(must_site(r, "/collector_trace_reattach.lua:6")->allocs, 20000);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  ck_assert_uint_eq(r->trace_lines, r->trace_events);
  free(r);
}
END_TEST

/* A capture started by the module after a loop was compiled: the layout
 * check compares that live trace with what jit.util reports (and passes),
 * and a loop compiled after the module was loaded gets its lines. */
START_TEST(test_capture_started_after_a_trace_checks_it_and_charges_new_loops_to_lines)
{
  char dir[1024], path[1100];
  scratch(dir, sizeof dir, "late");
  ck_assert_int_eq(sh("cd '%s' && LJLEAK_SIGNAL=none LUA_CPATH='%s/%s/lua/?.so;;' %s "
                      "%s/tests/lua/collector_trace_late.lua > out",
                      dir, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD")), 0);
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = slurp(path);
  ck_assert_str_eq(text, "lines true\n");
  free(text);
  snprintf(path, sizeof path, "%s/cap", dir);
  struct capture_read *r = read_capture(path, NULL);
  ck_assert_uint_ge(must_site(r, "/collector_trace_late.lua:6")->allocs, 4800);
  ck_assert_uint_eq(trace_site_allocs(r), 0);
  free(r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_jit");
  TCase *tc = tcase_create("lines");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_trace_allocations_are_charged_to_the_lines_the_interpreter_charges);
  tcase_add_test(tc, test_reused_trace_number_gets_a_new_symbol);
  tcase_add_test(tc, test_trace_lines_fall_back_to_the_trace_when_the_recorder_is_not_followed);
  tcase_add_test(tc, test_trace_lines_drop_logs_once_the_recorder_is_no_longer_followed);
  tcase_add_test(tc, test_the_next_capture_follows_the_recorder_again);
  tcase_add_test(tc, test_trace_lines_verify_the_return_address_at_every_offset);
  tcase_add_test(tc, test_sampled_capture_charges_trace_samples_to_lines);
  tcase_add_test(tc, test_sunk_table_escaping_at_exits_is_charged_to_its_line);
  tcase_add_test(tc, test_sunk_tables_of_two_lines_made_by_one_exit_are_charged_to_the_exit_line);
  tcase_add_test(tc, test_sunk_table_of_an_inlined_constructor_made_by_a_side_trace_is_charged_to_its_line);
  tcase_add_test(tc, test_module_status_counts_trace_allocations_and_lines);
  tcase_add_test(tc, test_capture_started_after_a_trace_checks_it_and_charges_new_loops_to_lines);
  tcase_add_test(tc, test_strings_a_trace_started_in_a_library_builds_are_charged_to_the_program_line);
  tcase_add_test(tc, test_strings_the_trace_drops_leave_the_kept_one_its_line);
  tcase_add_test(tc, test_strings_of_a_loop_copy_with_a_put_folded_away_keep_their_lines);
  tcase_add_test(tc, test_a_closure_is_charged_to_the_line_its_function_expression_ends_on);
  suite_add_tcase(s, tc);
  return check_run(s);
}
