/* tests/test_collector_stacks.c: the call stacks the collector records (ljleak run and the module): one helper with two callers, named with exact lines, JIT on (the helper inlined into its callers' trace) and off, a table the JIT sank (made at exits and in side traces) one an inlined __index function makes and one a handler run under pcall makes, with their callers, a coroutine and a builtin, sampled, cut at the depth, gzip, and a capture killed mid-run. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/capture_index.h"
#include "format/capture_layout.h"
#include "format/memprof.h"
#include "format/stacks.h"
#include "tests/check_run.h"
#include "tests/collector_capture.h"

#define SCRIPT "testdata/stacks/helper_two_callers.lua"
#define PUT_LINE "@" SCRIPT ":8"   /* put's allocation, the site of both callers */
#define MAX_STACKS 64

/* The stacks of the events at one site, rendered, with their counts. */
struct stack_tally {
  char text[MAX_STACKS][512];
  uint64_t count[MAX_STACKS];
  int n;
  uint64_t site_events;     /* ALLOC and REALLOC events at the site */
  uint64_t without_stack;   /* of those, events the sidecar gives no stack */
  uint64_t lua_events;      /* ALLOC and REALLOC events at any Lua line */
  uint64_t lua_without;     /* of those, without a stack */
  enum format_status sidecar_status;  /* the last lookup's */
};

/* "chunk@defined:line" for Lua frames ("helper_two_callers.lua@7:8"), "C" for
 * C functions (the runner's "ljleak run", say), "builtin" for
 * LuaJIT's (builtin#N), "coroutine", "?";
 * leaf first, joined by " < ", "..." when cut. */
static void render(const struct stacks_stack *s, char *out, size_t size)
{
  size_t used = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < s->frame_count && used < size; i++) {
    const struct stacks_frame *f = &s->frames[i];
    const char *sep = i ? " < " : "";
    if (f->kind == STACKS_FRAME_LUA) {
      const char *base = strrchr(f->name, '/');
      used += (size_t)snprintf(out + used, size - used, "%s%s@%llu:%llu", sep,
                               base ? base + 1 : f->name, (unsigned long long)f->defined,
                               (unsigned long long)f->line);
    } else {
      const char *what = f->kind == STACKS_FRAME_COROUTINE ? "coroutine"
                         : f->kind != STACKS_FRAME_C ? "?"
                         : !strncmp(f->name, "builtin#", 8) ? "builtin" : "C";
      used += (size_t)snprintf(out + used, size - used, "%s%s", sep, what);
    }
  }
  if (s->flags & STACKS_FLAG_TRUNCATED && used < size)
    snprintf(out + used, size - used, " < ...");
}

static void tally_add(struct stack_tally *t, const char *text)
{
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->text[i], text)) {
      t->count[i]++;
      return;
    }
  if (t->n == MAX_STACKS)
    return;
  snprintf(t->text[t->n], sizeof t->text[0], "%s", text);
  t->count[t->n++] = 1;
}

static uint64_t tally_count(const struct stack_tally *t, const char *text)
{
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->text[i], text))
      return t->count[i];
  return 0;
}

/* Reads one segment and its sidecar in lockstep, as diff/ does, and tallies
 * the stacks of the events at site (named as Tarantool's parser names it,
 * without run-specific parts). Only the complete events of a cut segment.
 * sidecar NULL: the events at site only. */
static void tally_segment(const char *segment, const char *sidecar, const char *site,
                          struct stack_tally *t)
{
  struct format_error err;
  struct memprof_reader *mr = memprof_reader_open(segment, &err);
  ck_assert_msg(mr != NULL, "%s", err.message);
  struct stacks_reader *sr = sidecar ? stacks_reader_open(sidecar, &err) : NULL;
  ck_assert_msg(sr != NULL || !sidecar, "%s", err.message);
  struct memprof_symtab *symtab = memprof_symtab_new();
  struct memprof_record rec;
  uint64_t number = 0;
  char name[1024], text[512];
  while (memprof_reader_next(mr, &rec) == FORMAT_OK) {
    if (rec.type == MEMPROF_RECORD_SYMBOL) {
      memprof_symtab_add(symtab, &rec.symbol);
      continue;
    }
    uint64_t n = number++;
    if (rec.event.kind == MEMPROF_EVENT_FREE)
      continue;
    uint32_t id = 0;
    if (!sr) {
      memprof_symtab_name(symtab, &rec.event, MEMPROF_NAMING_STABLE, name, sizeof name);
      t->site_events += !strcmp(name, site);
      continue;
    }
    t->sidecar_status = stacks_reader_event(sr, n, &id);
    const struct stacks_stack *s = stacks_reader_stack(sr, id);
    int is_lua = rec.event.source == MEMPROF_SOURCE_LUA;
    t->lua_events += is_lua;
    t->lua_without += is_lua && !s;
    memprof_symtab_name(symtab, &rec.event, MEMPROF_NAMING_STABLE, name, sizeof name);
    if (strcmp(name, site) != 0)
      continue;
    t->site_events++;
    if (!s) {
      t->without_stack++;
      continue;
    }
    render(s, text, sizeof text);
    tally_add(t, text);
  }
  memprof_symtab_free(symtab);
  memprof_reader_close(mr);
  if (sr)
    stacks_reader_close(sr);
}

/* Runs ljleak run OPTIONS script ROUNDS into a scratch directory and
 * tallies site over every segment (ext NULL: without stacks, its events
 * only); returns the capture's index. */
static struct capture_index run_script_and_tally(const char *name, const char *script,
                                                 const char *site, const char *options, int rounds,
                                                 const char *ext, struct stack_tally *t)
{
  char dir[1024], path[1200], sidecar[1200];
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s/cap' %s %s %d > /dev/null", build_dir(),
                      dir, options, script, rounds), 0);
  snprintf(path, sizeof path, "%s/cap/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  memset(t, 0, sizeof *t);
  ck_assert_uint_ge(index.segment_count, 1);
  for (size_t i = 0; i < index.segment_count; i++) {
    snprintf(path, sizeof path, "%s/cap/%s", dir, index.segments[i].file);
    ck_assert_uint_gt(capture_layout_sidecar_name(path, sidecar, sizeof sidecar), 0);
    ck_assert_ptr_nonnull(!ext ? sidecar : strstr(sidecar, ext));
    tally_segment(path, ext ? sidecar : NULL, site, t);
  }
  return index;
}

/* The same, of SCRIPT at put's line. */
static struct capture_index run_and_tally(const char *name, const char *options, int rounds,
                                          const char *ext, struct stack_tally *t)
{
  return run_script_and_tally(name, SCRIPT, PUT_LINE, options, rounds, ext, t);
}

static uint64_t trace_lines(const struct capture_index *index)
{
  uint64_t n = 0;
  for (size_t i = 0; i < index->segment_count; i++)
    n += index->segments[i].trace_lines;
  return n;
}

/* The two stacks of put's line: its leaking caller and its steady one. */
#define LEAK_STACK "helper_two_callers.lua@7:8 < helper_two_callers.lua@11:12 < helper_two_callers.lua@0:22 < C"
#define STEADY_STACK "helper_two_callers.lua@7:8 < helper_two_callers.lua@15:17 < helper_two_callers.lua@0:23 < C"

/* Every event at the site has one of the n stacks, stacks[i] at least
 * min[i] times. */
static void assert_stacks(const struct stack_tally *t, const char *const *stacks, const uint64_t *min, int n)
{
  int short_of = 0;
  for (int i = 0; i < n; i++)
    short_of |= tally_count(t, stacks[i]) < min[i];
  if (t->n != n || t->without_stack != 0 || short_of) {
    char all[4096] = "";
    for (int i = 0; i < t->n; i++) {
      size_t used = strlen(all);
      snprintf(all + used, sizeof all - used, "\n  %llu x %s", (unsigned long long)t->count[i],
               t->text[i]);
    }
    ck_abort_msg("%llu events at the site, %llu without a stack; stacks:%s",
                 (unsigned long long)t->site_events, (unsigned long long)t->without_stack, all);
  }
}

/* ... of two stacks, the first's at least first_min times, the second's second_min. */
static void assert_two_stacks(const struct stack_tally *t, const char *first, uint64_t first_min,
                              const char *second, uint64_t second_min)
{
  const char *const stacks[2] = {first, second};
  const uint64_t min[2] = {first_min, second_min};
  assert_stacks(t, stacks, min, 2);
}

/* Every event at put's line has one of its callers' stacks, each at least
 * once per round. */
static void assert_two_callers(const struct stack_tally *t, int rounds)
{
  assert_two_stacks(t, LEAK_STACK, (uint64_t)rounds, STEADY_STACK, (uint64_t)rounds);
}

START_TEST(test_jit_on_stacks_name_both_callers_with_exact_lines)
{
  struct stack_tally t;
  struct capture_index index = run_and_tally("jit-on", "", 3000, ".stacks", &t);
  assert_two_callers(&t, 3000);
  /* Compiled code made most of them: the helper's frame and its callers'
   * came from the trace that inlined them (the recorder's chains). */
  ck_assert_uint_gt(trace_lines(&index), t.site_events / 2);
  ck_assert_uint_eq(index.capture.stacks, 16);
  ck_assert_uint_eq(t.lua_without, 0);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_jit_off_stacks_name_both_callers_with_exact_lines)
{
  struct stack_tally t;
  struct capture_index index = run_and_tally("jit-off", "-j off", 3000, ".stacks", &t);
  assert_two_callers(&t, 3000);
  ck_assert_uint_eq(trace_lines(&index), 0);
  ck_assert_uint_eq(t.lua_without, 0);
  capture_index_free(&index);
}
END_TEST

/* A table the JIT sank, made by compiled code only where it escapes: at
 * the trace's exit, then at the start of the side trace grown there. Each
 * has its callers, as the interpreter's have (it had the line alone, and
 * the side trace's the line over a frame it could not read). */
#define SUNK_SCRIPT "testdata/stacks/sunk_two_callers.lua"
#define SUNK_KEEP "sunk_two_callers.lua@8:9 < sunk_two_callers.lua@11:12 < sunk_two_callers.lua@0:24 < C"
#define SUNK_CHURN "sunk_two_callers.lua@8:9 < sunk_two_callers.lua@16:17 < sunk_two_callers.lua@0:25 < C"

START_TEST(test_jit_on_sunk_tables_have_their_callers)
{
  struct stack_tally t;
  struct capture_index index = run_script_and_tally("sunk", SUNK_SCRIPT, "@" SUNK_SCRIPT ":9", "",
                                                    3000, ".stacks", &t);
  assert_two_stacks(&t, SUNK_KEEP, 3000 / 7, SUNK_CHURN, 3000 / 5);
  /* Fewer than one a call: compiled code made only those that escaped. */
  ck_assert_uint_lt(t.site_events, 2 * 3000);
  ck_assert_uint_eq(t.lua_without, 0);
  capture_index_free(&index);
}
END_TEST

/* Runs script (3000 rounds, JIT on) as name: every event at its line 8 has one of the n stacks,
 * stacks[i] at least min[i] times, and compiled code made most of them. */
static void assert_compiled_stacks(const char *name, const char *script, const char *const *stacks,
                                   const uint64_t *min, int n)
{
  char site[256];
  snprintf(site, sizeof site, "@%s:8", script);
  struct stack_tally t;
  struct capture_index index = run_script_and_tally(name, script, site, "", 3000, ".stacks", &t);
  assert_stacks(&t, stacks, min, n);
  ck_assert_uint_gt(trace_lines(&index), t.site_events / 2);
  capture_index_free(&index);
}

/* An __index function that the JIT inlines into the loop's trace behind a continuation frame:
 * its table (line 8) has the loop's line as its caller (it had the line over a frame it could
 * not read: the recorder counts the continuation as a frame of its own). */
#define MM_SCRIPT "testdata/stacks/metamethod.lua"
#define MM_STACK "metamethod.lua@7:8 < metamethod.lua@0:14 < C"

START_TEST(test_jit_on_a_metamethods_tables_have_their_caller)
{
  const char *const stack[1] = {MM_STACK};
  const uint64_t min[1] = {3000};
  assert_compiled_stacks("metamethod", MM_SCRIPT, stack, min, 1);  /* every event has it */
}
END_TEST

/* A handler the loop runs under pcall and under xpcall, which the JIT inlines into the loop's
 * trace behind the protected frame: its table (line 8) has the builtin and the loop's line as
 * its callers, as in the interpreter (it had the line over a frame it could not read). */
#define PCALL_SCRIPT "testdata/stacks/pcall_handler.lua"
#define PCALL_STACK "pcall_handler.lua@7:8 < builtin < pcall_handler.lua@0:14 < C"
#define XPCALL_STACK "pcall_handler.lua@7:8 < builtin < pcall_handler.lua@0:15 < C"

START_TEST(test_jit_on_a_protected_calls_tables_have_their_callers)
{
  const char *const stacks[2] = {PCALL_STACK, XPCALL_STACK};
  const uint64_t min[2] = {3000, 3000};
  assert_compiled_stacks("pcall", PCALL_SCRIPT, stacks, min, 2);
}
END_TEST

/* The interpreter's sites cached by the quick tier (interp_site.h) serve
 * only the segment that resolved them: cut into many segments, each one
 * read alone still names every event at put's line, with its caller's stack. */
START_TEST(test_jit_off_stacks_in_every_segment)
{
  struct stack_tally whole, cut;
  struct capture_index one = run_and_tally("jit-off-one", "-j off", 3000, ".stacks", &whole);
  struct capture_index index = run_and_tally("jit-off-segments", "-j off --max-bytes 16k", 3000, ".stacks", &cut);
  ck_assert_uint_eq(one.segment_count, 1);
  ck_assert_uint_gt(index.segment_count, 4);
  assert_two_callers(&cut, 3000);
  ck_assert_uint_eq(cut.site_events, whole.site_events);
  ck_assert_uint_eq(cut.lua_without, 0);
  capture_index_free(&one);
  capture_index_free(&index);
  /* Without stacks, the cached site alone: its prototype's symbol is in each segment. */
  one = run_and_tally("jit-off-one-nostacks", "-j off --stack-depth 0", 3000, NULL, &whole);
  index = run_and_tally("jit-off-segments-nostacks", "-j off --stack-depth 0 --max-bytes 16k", 3000, NULL, &cut);
  ck_assert_uint_gt(index.segment_count, 4);
  ck_assert_uint_ge(whole.site_events, 2 * 3000);
  ck_assert_uint_eq(cut.site_events, whole.site_events);
  capture_index_free(&one);
  capture_index_free(&index);
}
END_TEST

/* Tallies site's stacks in a -j off capture of testdata/stacks/SCRIPT. */
static void tally_script(const char *name, const char *script, const char *site,
                         struct stack_tally *t)
{
  char dir[1024], path[1200], sidecar[1200];
  scratch(dir, sizeof dir, name);
  ck_assert_int_eq(sh("'%s/ljleak' run -j off -o '%s/cap' testdata/stacks/%s > /dev/null",
                      build_dir(), dir, script), 0);
  snprintf(path, sizeof path, "%s/cap/seg-0001.memprof", dir);
  ck_assert_uint_gt(capture_layout_sidecar_name(path, sidecar, sizeof sidecar), 0);
  memset(t, 0, sizeof *t);
  tally_segment(path, sidecar, site, t);
}

START_TEST(test_coroutine_and_builtin_frames)
{
  struct stack_tally t;
  /* In a coroutine: its frames, then the coroutine's bottom. */
  tally_script("coroutine", "coroutine_and_pcall.lua", "@testdata/stacks/coroutine_and_pcall.lua:8", &t);
  ck_assert_int_eq(t.n, 1);
  ck_assert_str_eq(t.text[0], "coroutine_and_pcall.lua@6:8 < coroutine");
  ck_assert_uint_ge(t.count[0], 100);   /* and the growth of keep's array */
  /* Under pcall: the builtin between the callee and its caller. */
  tally_script("pcall", "coroutine_and_pcall.lua", "@testdata/stacks/coroutine_and_pcall.lua:15", &t);
  ck_assert_int_eq(t.n, 1);
  ck_assert_str_eq(t.text[0],
                   "coroutine_and_pcall.lua@14:15 < builtin < coroutine_and_pcall.lua@0:18 < C");
  ck_assert_uint_ge(t.count[0], 100);   /* and the growth of keep's array */
  ck_assert_uint_eq(t.lua_without, 0);
}
END_TEST

START_TEST(test_sampled_capture_records_stacks_of_sampled_events)
{
  struct stack_tally t;
  struct capture_index index = run_and_tally("sampled", "--sample 1k", 20000, ".stacks", &t);
  /* About one allocation in 16 (64-byte tables, 1 KiB mean): both callers seen. */
  ck_assert_int_eq(t.n, 2);
  ck_assert_uint_eq(t.without_stack, 0);
  ck_assert_uint_gt(tally_count(&t, LEAK_STACK), 100);
  ck_assert_uint_gt(tally_count(&t, STEADY_STACK), 100);
  ck_assert_uint_lt(t.site_events, 40000 / 4);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_stacks_are_cut_at_the_depth)
{
  struct stack_tally t;
  struct capture_index index = run_and_tally("depth", "--stack-depth 2", 500, ".stacks", &t);
  ck_assert_int_eq(t.n, 2);
  ck_assert_uint_ge(tally_count(&t, "helper_two_callers.lua@7:8 < helper_two_callers.lua@11:12 < ..."), 500);
  ck_assert_uint_ge(tally_count(&t, "helper_two_callers.lua@7:8 < helper_two_callers.lua@15:17 < ..."), 500);
  ck_assert_uint_eq(index.capture.stacks, 2);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_gzip_capture_has_gzip_sidecars)
{
  struct stack_tally t;
  struct capture_index index = run_and_tally("gzip", "--gzip", 1000, ".stacks.gz", &t);
  assert_two_callers(&t, 1000);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_depth_zero_writes_no_sidecar)
{
  char dir[1024], path[1200];
  scratch(dir, sizeof dir, "depth-zero");
  ck_assert_int_eq(sh("LJLEAK_STACK_DEPTH=0 '%s/ljleak' run -o '%s/cap' " SCRIPT " 100 > /dev/null",
                      build_dir(), dir), 0);
  snprintf(path, sizeof path, "%s/cap/seg-0001.memprof", dir);
  ck_assert_int_eq(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/cap/seg-0001.stacks", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/cap/index", dir);
  char *text = slurp(path);
  ck_assert_ptr_null(strstr(text, "stacks="));
  free(text);
  /* A bad depth is a usage error. */
  ck_assert_int_eq(sh("'%s/ljleak' run --stack-depth 257 " SCRIPT " 2> /dev/null", build_dir()), 2);
}
END_TEST

START_TEST(test_module_option_stack_depth)
{
  char dir[1024], path[1200];
  scratch(dir, sizeof dir, "module");
  ck_assert_int_eq(sh("cd '%s' && LJLEAK_SIGNAL=none LUA_CPATH='%s/%s/lua/?.so;;' %s -e \""
                      "local c = require 'ljleak.collector' "
                      "assert(c.start{dir = 'cap', stack_depth = 3}) "
                      "arg = {[0] = '" SCRIPT "', '200'} dofile('%s/" SCRIPT "') "
                      "assert(c.stop()) "
                      "local ok, err = c.start{dir = 'cap2', stack_depth = 1000} "
                      "assert(not ok and err:find('stack_depth'))\" > out 2>&1",
                      dir, getenv("PWD"), build_dir(), luajit_cmd(), getenv("PWD")), 0);
  snprintf(path, sizeof path, "%s/cap/index", dir);
  char *text = slurp(path);
  ck_assert_ptr_nonnull(strstr(text, "\tstacks=3"));
  free(text);
  snprintf(path, sizeof path, "%s/cap/seg-0001.stacks", dir);
  struct format_error err;
  struct stacks_reader *r = stacks_reader_open(path, &err);
  ck_assert_msg(r != NULL, "%s", err.message);
  struct stacks_record rec;
  enum format_status s;
  int cut = 0;
  while ((s = stacks_reader_next(r, &rec)) == FORMAT_OK)
    if (rec.type == STACKS_RECORD_STACK) {
      ck_assert_uint_le(rec.stack->frame_count, 3);
      cut += (rec.stack->flags & STACKS_FLAG_TRUNCATED) != 0;
    }
  ck_assert_int_eq(s, FORMAT_END);
  ck_assert_int_gt(cut, 0);   /* put < leak < the loop's chunk < dofile's C frame ... */
  stacks_reader_close(r);
}
END_TEST

START_TEST(test_sigkill_keeps_the_stack_of_every_complete_event)
{
  char dir[1024], out[1100], path[1200], sidecar[1200];
  scratch(dir, sizeof dir, "sigkill");
  snprintf(out, sizeof out, "%s/cap", dir);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char bin[1100];
    snprintf(bin, sizeof bin, "%s/ljleak", build_dir());
    if (!freopen("/dev/null", "w", stdout))
      _exit(126);
    execl(bin, bin, "run", "-o", out, "--max-bytes", "1M", "tests/lua/collector_forever.lua",
          (char *)NULL);
    _exit(127);
  }
  /* Until the second segment's .part has events on disk. */
  snprintf(path, sizeof path, "%s/seg-0002.memprof.part", out);
  for (int tries = 0; tries < 3000; tries++) {
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size >= 256 * 1024)
      break;
    usleep(2000);
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  ck_assert(WIFSIGNALED(status));
  /* The killed segment: its .part, or the segment after the last one renamed. */
  int checked = 0;
  for (int seq = 2; seq < 100 && !checked; seq++) {
    snprintf(path, sizeof path, "%s/seg-%04d.memprof.part", out, seq);
    if (access(path, F_OK) != 0)
      continue;
    ck_assert_uint_gt(capture_layout_sidecar_name(path, sidecar, sizeof sidecar), 0);
    struct stack_tally t;
    memset(&t, 0, sizeof t);
    tally_segment(path, sidecar, "@tests/lua/collector_forever.lua:7", &t);
    /* Every complete allocation at a Lua line has its stack. */
    ck_assert_uint_gt(t.lua_events, 1000);
    ck_assert_uint_eq(t.lua_without, 0);
    ck_assert_uint_eq(t.without_stack, 0);
    ck_assert_int_eq(t.n, 1);
    ck_assert_str_eq(t.text[0], "collector_forever.lua@0:7 < C");
    checked = 1;
  }
  ck_assert_msg(checked, "no .part segment left by the kill");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_stacks");
  TCase *tc = tcase_create("run");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_jit_on_stacks_name_both_callers_with_exact_lines);
  tcase_add_test(tc, test_jit_off_stacks_name_both_callers_with_exact_lines);
  tcase_add_test(tc, test_jit_on_sunk_tables_have_their_callers);
  tcase_add_test(tc, test_jit_on_a_metamethods_tables_have_their_caller);
  tcase_add_test(tc, test_jit_on_a_protected_calls_tables_have_their_callers);
  tcase_add_test(tc, test_jit_off_stacks_in_every_segment);
  tcase_add_test(tc, test_coroutine_and_builtin_frames);
  tcase_add_test(tc, test_sampled_capture_records_stacks_of_sampled_events);
  tcase_add_test(tc, test_stacks_are_cut_at_the_depth);
  tcase_add_test(tc, test_gzip_capture_has_gzip_sidecars);
  tcase_add_test(tc, test_depth_zero_writes_no_sidecar);
  tcase_add_test(tc, test_module_option_stack_depth);
  tcase_add_test(tc, test_sigkill_keeps_the_stack_of_every_complete_event);
  suite_add_tcase(s, tc);
  return check_run(s);
}
