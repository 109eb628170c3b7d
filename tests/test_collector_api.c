/* tests/test_collector_api.c: the C API for embedding hosts: start, status, stop, allocator restored. */
#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "collector/ljleak_collector.h"
#include "collector/capture.h"
#include "collector/lj_private.h"
#include "collector/state_scan.h"
#include "format/capture_index.h"
#include "format/memprof.h"
#include "lauxlib.h"
#include "luajit.h"
#include "lua.h"
#include "lualib.h"

static const char *scratch_dir(const char *name)
{
  static char path[1024];
  const char *b = getenv("BUILD");
  snprintf(path, sizeof path, "%s/tests/collector-api-tmp/%s", b && *b ? b : "build", name);
  char cmd[2200];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", path, path),
                   (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
  return path;
}

/* A new Lua state with the standard libraries, and DIR set to NAME's scratch
 * directory followed by SUB. */
static lua_State *new_state(const char *name, const char *sub, char *dir, size_t size)
{
  ck_assert_int_lt(snprintf(dir, size, "%s/%s", scratch_dir(name), sub), (int)size);
  lua_State *L = luaL_newstate();
  ck_assert_ptr_nonnull(L);
  luaL_openlibs(L);
  return L;
}

/* Sums new_size of ALLOC/REALLOC events; returns the record status. */
static enum format_status read_stream(const char *path, uint64_t *new_bytes, uint64_t *events)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(path, &err);
  ck_assert_msg(r != NULL, "%s", err.message);
  struct memprof_record rec;
  enum format_status st;
  *new_bytes = *events = 0;
  while ((st = memprof_reader_next(r, &rec)) == FORMAT_OK) {
    if (rec.type != MEMPROF_RECORD_EVENT)
      continue;
    (*events)++;
    if (rec.event.kind != MEMPROF_EVENT_FREE)
      *new_bytes += rec.event.new_size;
  }
  memprof_reader_close(r);
  return st;
}

START_TEST(test_api_start_stop_restores_the_allocator)
{
  char dir[1100];
  lua_State *L = new_state("start-stop", "cap", dir, sizeof dir);
  void *ud_before;
  lua_Alloc before = lua_getallocf(L, &ud_before);

  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.command = "test host";
  char err[512];
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  void *ud_during;
  ck_assert_ptr_ne(lua_getallocf(L, &ud_during), before);
  ck_assert_ptr_eq(ud_during, ud_before);
  ck_assert_int_ne(ljleak_collector_start(L, &o, err, sizeof err), 0);
  ck_assert_ptr_nonnull(strstr(err, "already running"));

  ck_assert_int_eq(luaL_dostring(L, "local t = {} for i = 1, 20000 do t[i] = { tostring(i) } end"), 0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_int_eq(st.active, 1);
  ck_assert_str_eq(st.dir, dir);

  ck_assert_msg(ljleak_collector_stop(L, err, sizeof err) == 0, "%s", err);
  void *ud_after;
  ck_assert_ptr_eq(lua_getallocf(L, &ud_after), before);
  ck_assert_ptr_eq(ud_after, ud_before);
  ljleak_collector_status(&st);
  ck_assert_int_eq(st.active, 0);
  ck_assert_uint_eq(st.segments, 1);
  ck_assert_uint_gt(st.events, 40000);
  ck_assert_int_ne(ljleak_collector_stop(L, err, sizeof err), 0);

  char seg[1200];
  snprintf(seg, sizeof seg, "%s/seg-0001.memprof", dir);
  uint64_t new_bytes, events;
  ck_assert_int_eq(read_stream(seg, &new_bytes, &events), FORMAT_END);
  ck_assert_uint_eq(events, st.events);
  ck_assert_uint_eq(new_bytes, st.allocated);

  char index[1200], line[4096];
  snprintf(index, sizeof index, "%s/index", dir);
  FILE *f = fopen(index, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  ck_assert_ptr_nonnull(strstr(line, "\tcommand=test host\t"));
  ck_assert_ptr_nonnull(strstr(line, "\tluajit=" LUAJIT_VERSION "\t"));
  fclose(f);
  lua_close(L);
}
END_TEST

/* A capture still running at lua_close is finished with reason exit. */
START_TEST(test_api_lua_close_finishes_the_capture)
{
  char dir[1100];
  lua_State *L = new_state("close", "cap", dir, sizeof dir);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  char err[512];
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(luaL_dostring(L, "x = {} for i = 1, 1000 do x[i] = {} end"), 0);
  lua_close(L);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_int_eq(st.active, 0);
  char cmd[2400];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd,
                            "grep -q 'reason=exit' '%s/index' && test -f '%s/seg-0001.memprof'",
                            dir, dir),
                   (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Environment variables fill the options. */
START_TEST(test_api_options_from_environment)
{
  setenv("LJLEAK_PERIOD", "2.5", 1);
  setenv("LJLEAK_MAX_BYTES", "64k", 1);
  setenv("LJLEAK_SAMPLE", "1M", 1);
  setenv("LJLEAK_GZIP", "yes", 1);
  setenv("LJLEAK_FORCE_GC", "1", 1);
  setenv("LJLEAK_DIR", "somewhere", 1);
  setenv("LJLEAK_C_HOOK", "true", 1);
  setenv("LJLEAK_EVERY", "8M", 1);
  setenv("LJLEAK_EDGE_GC", "on", 1);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  ck_assert(o.period == 2.5);
  ck_assert_uint_eq(o.max_bytes, 65536);
  ck_assert_uint_eq(o.sample, 1048576);
  ck_assert_int_eq(o.gzip, 1);
  ck_assert_int_eq(o.force_gc, 1);
  ck_assert_int_eq(o.c_hook, 1);
  ck_assert_str_eq(o.dir, "somewhere");
  ck_assert_uint_eq(o.max_total_bytes, 0);
  ck_assert_uint_eq(o.every, 8u << 20);
  ck_assert_int_eq(o.edge_gc, 1);
  /* Under valgrind the tests share one process (CK_FORK=no). */
  const char *const names[] = {"LJLEAK_PERIOD", "LJLEAK_MAX_BYTES", "LJLEAK_SAMPLE",
                               "LJLEAK_GZIP",   "LJLEAK_FORCE_GC",  "LJLEAK_DIR",
                               "LJLEAK_C_HOOK", "LJLEAK_EVERY",     "LJLEAK_EDGE_GC"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    unsetenv(names[i]);
}
END_TEST

/* An allocator that counts the bytes asked of it and passes every call on. */
struct counting {
  lua_Alloc f;
  void *ud;
  uint64_t bytes;
};

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct counting *k = ud;
  if (nsize != 0)
    k->bytes += nsize;
  return k->f(k->ud, ptr, osize, nsize);
}

static const char *const churn =
    "local keep = {} for i = 1, 30000 do local t = { i, tostring(i) } "
    "if i % 7 == 0 then keep[#keep + 1] = t end end "
    "local s = {} for i = 1, 2000 do s[i] = string.rep('x', i % 300) end "
    "collectgarbage() return #keep";

#if defined(__x86_64__) && defined(__linux__)
#define STUB_EXPECTED 1
#else
#define STUB_EXPECTED 0
#endif

/* Starts a capture into DIR (sampled with SAMPLE > 0, through the C hook
 * with C_HOOK), runs churn, stops; returns what status says and checks the
 * stream against it. DIRECT: whether the VM calls the stub (the host has
 * not wrapped the allocator since the hook went in). */
static void capture_churn(lua_State *L, const char *dir, uint64_t sample, int c_hook, int direct,
                          struct counting *k, struct ljleak_collector_status *st)
{
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.sample = sample;
  o.c_hook = c_hook;
  char err[512];
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  k->bytes = 0;
  ck_assert_int_eq(luaL_dostring(L, churn), 0);
  lua_pop(L, 1);
  uint64_t through = k->bytes;
  ljleak_collector_status(st);
  ck_assert_int_eq(st->direct_hook, sample && !c_hook && direct && STUB_EXPECTED);
  ck_assert_msg(ljleak_collector_stop(L, err, sizeof err) == 0, "%s", err);
  ljleak_collector_status(st);
  ck_assert_int_eq(st->active, 0);
  ck_assert_uint_eq(st->segments, 1);
  /* Every byte asked of the allocator while capturing, sampled or not. */
  ck_assert_uint_eq(st->allocated, through);

  char seg[1200];
  snprintf(seg, sizeof seg, "%s/seg-0001.memprof", dir);
  uint64_t new_bytes, events;
  ck_assert_int_eq(read_stream(seg, &new_bytes, &events), FORMAT_END);
  ck_assert_uint_eq(events, st->events);
  if (sample == 0)
    ck_assert_uint_eq(new_bytes, through);
  else
    ck_assert_uint_lt(new_bytes, through);
}

/* A sampled capture counts every allocated byte, records a sample, and
 * gives the allocator back at stop; through the stub (_i 0) and the C hook
 * (_i 1). */
START_TEST(test_api_sampled_capture_counts_and_restores)
{
  char dir[1100];
  lua_State *L = new_state("sampled", "cap", dir, sizeof dir);
  struct counting k = {.bytes = 0};
  k.f = lua_getallocf(L, &k.ud);
  lua_setallocf(L, counting_alloc, &k);

  struct ljleak_collector_status st;
  capture_churn(L, dir, 4096, _i, 1, &k, &st);
  ck_assert_uint_gt(st.events, 10);
  void *ud;
  ck_assert_ptr_eq(lua_getallocf(L, &ud), counting_alloc);
  ck_assert_ptr_eq(ud, &k);
  lua_close(L);
}
END_TEST

/* A host that wraps the allocator while a sampled capture runs keeps
 * calling the hook it wrapped after the stop: that hook (the stub with _i
 * 0, the C hook with _i 1) passes calls on, and serves a full capture and
 * a sampled one after it. */
START_TEST(test_api_sampled_hook_wrapped_by_the_host)
{
  const char *root = scratch_dir("wrapped");
  char dir[1100];
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  snprintf(dir, sizeof dir, "%s/cap1", root);
  o.dir = dir;
  o.sample = 4096;
  o.c_hook = _i;
  char err[512];
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_int_eq(st.direct_hook, !_i && STUB_EXPECTED);
  struct counting k = {.bytes = 0};
  k.f = lua_getallocf(L, &k.ud);
  lua_setallocf(L, counting_alloc, &k);
  k.bytes = 0;
  ck_assert_int_eq(luaL_dostring(L, churn), 0);
  lua_pop(L, 1);
  uint64_t through = k.bytes;
  ck_assert_msg(ljleak_collector_stop(L, err, sizeof err) == 0, "%s", err);
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.allocated, through);
  ck_assert_uint_gt(st.events, 10);
  void *ud;
  ck_assert_ptr_eq(lua_getallocf(L, &ud), counting_alloc);

  /* Stopped: the wrapped hook passes calls on and records nothing. */
  ck_assert_int_eq(luaL_dostring(L, churn), 0);
  lua_pop(L, 1);
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.allocated, through);

  snprintf(dir, sizeof dir, "%s/cap2", root);
  capture_churn(L, dir, 0, _i, 0, &k, &st);
  ck_assert_uint_gt(st.events, 60000);
  snprintf(dir, sizeof dir, "%s/cap3", root);
  capture_churn(L, dir, 4096, _i, 0, &k, &st);
  ck_assert_uint_gt(st.events, 10);
  ck_assert_ptr_eq(lua_getallocf(L, &ud), counting_alloc);
  lua_close(L);
}
END_TEST

/* edge_gc gives the capture a boundary before its first event and one
 * after its last; ljleak_collector_boundary records one in between, and
 * fails when no capture runs. */
START_TEST(test_api_edge_gc_and_boundary_calls)
{
  char dir[1024], err[512], path[1100];
  lua_State *L = new_state("edges", "cap", dir, sizeof dir);
  ck_assert_int_eq(ljleak_collector_boundary(L, err, sizeof err), -1);
  ck_assert_str_eq(err, "no capture is running");
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.edge_gc = 1;
  ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), 0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.boundaries, 1);
  ck_assert_int_eq(luaL_dostring(L, "local t = {} for i = 1, 3000 do t[i] = {i} end"), 0);
  uint64_t before = st.boundaries;
  ck_assert_int_eq(ljleak_collector_boundary(L, err, sizeof err), 0);
  ljleak_collector_status(&st);
  ck_assert_uint_gt(st.boundaries, before);
  uint64_t after_call = st.boundaries;
  ck_assert_int_eq(ljleak_collector_stop(L, err, sizeof err), 0);
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.boundaries, after_call + 1);

  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, st.boundaries);
  ck_assert_str_eq(index.boundaries[0].cause, "start");
  ck_assert_uint_eq(index.boundaries[0].events, 0);
  ck_assert_str_eq(index.boundaries[after_call - 1].cause, "call");
  ck_assert_str_eq(index.boundaries[index.boundary_count - 1].cause, "stop");
  capture_index_free(&index);
  lua_close(L);
}
END_TEST

/* ljleak attach --snapshot's path (coll_capture_snapshot_fresh, coll_capture_stop_fresh): right
 * after the start's full cycle the snapshot is taken at its boundary and the stop runs no closing
 * cycle; once the program has allocated, each runs a full cycle of its own as before. */
START_TEST(test_api_fresh_boundary_serves_the_snapshot_and_the_stop)
{
  char dir[1024], err[512], path[1100];
  lua_State *L = new_state("fresh", "cap", dir, sizeof dir);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.edge_gc = 1;
  o.snapshots = 0;
  ck_assert_int_eq(luaL_dostring(L, "kept = {} for i = 1, 3000 do kept[i] = {i} end"), 0);
  ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), 0);
  ck_assert_int_eq(coll_capture_snapshot_fresh(L, err, sizeof err), 0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.boundaries, 1);   /* the start's */
  ck_assert_uint_eq(st.snapshots, 1);
  ck_assert_int_eq(coll_capture_stop_fresh(L, err, sizeof err), 0);
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.boundaries, 1);   /* no closing cycle */

  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, 1);
  ck_assert_str_eq(index.boundaries[0].cause, "start");
  ck_assert_uint_eq(index.snapshot_count, 1);
  ck_assert_uint_eq(index.snapshots[0].boundary, 1);
  ck_assert(index.has_stop);
  ck_assert_str_eq(index.stop.reason, "stop");
  capture_index_free(&index);

  /* The program allocates between them: the snapshot and the stop each end a cycle of their own. */
  ck_assert_int_lt(snprintf(dir, sizeof dir, "%s/cap2", scratch_dir("fresh2")), (int)sizeof dir);
  o.dir = dir;
  ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), 0);
  ck_assert_int_eq(luaL_dostring(L, "for i = 1, 3000 do kept[i] = {i} end"), 0);
  ck_assert_int_eq(coll_capture_snapshot_fresh(L, err, sizeof err), 0);
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.boundaries, 2);
  ck_assert_uint_eq(st.snapshots, 1);
  ck_assert_int_eq(luaL_dostring(L, "for i = 1, 3000 do kept[i] = {i} end"), 0);
  ck_assert_int_eq(coll_capture_stop_fresh(L, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/index", dir);
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, 3);
  ck_assert_str_eq(index.boundaries[1].cause, "call");
  ck_assert_str_eq(index.boundaries[2].cause, "stop");
  ck_assert_uint_eq(index.snapshots[0].boundary, 2);
  capture_index_free(&index);
  lua_close(L);
}
END_TEST

/* A host's entry, run by lua_cpcall: a chunk that keeps tables (compiling
 * it allocates in this C function). Named by the test program's .symtab. */
static int host_entry(lua_State *L)
{
  if (luaL_dostring(L, "kept = {} for i = 1, 2000 do kept[i] = {i} end") != 0)
    return lua_error(L);
  return 0;
}

/* The same, with the name the host gives it. */
static int host_entry_named(lua_State *L)
{
  return host_entry(L);
}

/* Whether the segment's stream has a C symbol named name. */
static int stream_has_c_symbol(const char *path, const char *name)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(path, &err);
  ck_assert_msg(r != NULL, "%s", err.message);
  struct memprof_record rec;
  int found = 0;
  while (memprof_reader_next(r, &rec) == FORMAT_OK)
    if (rec.type == MEMPROF_RECORD_SYMBOL && rec.symbol.kind == MEMPROF_SYMBOL_C &&
        rec.symbol.name_length == strlen(name) &&
        !memcmp(rec.symbol.name, name, rec.symbol.name_length))
      found = 1;
  memprof_reader_close(r);
  return found;
}

START_TEST(test_api_host_functions_are_named_never_raw_addresses)
{
  char dir[1024], err[512], path[1100];
  lua_State *L = new_state("host-names", "cap", dir, sizeof dir);
  ck_assert_int_eq(ljleak_collector_name_function(host_entry_named, ""), -1);
  ck_assert_int_eq(ljleak_collector_name_function(host_entry_named, "a;b"), -1);
  ck_assert_int_eq(ljleak_collector_name_function(host_entry_named, "test host main"), 0);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), 0);
  ck_assert_int_eq(lua_cpcall(L, host_entry, NULL), 0);
  ck_assert_int_eq(lua_cpcall(L, host_entry_named, NULL), 0);
  ck_assert_int_eq(ljleak_collector_stop(L, err, sizeof err), 0);

  snprintf(path, sizeof path, "%s/seg-0001.memprof", dir);
  ck_assert(stream_has_c_symbol(path, "[C] host_entry"));
  ck_assert(stream_has_c_symbol(path, "test host main"));
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  int entry_line = 0;
  for (size_t i = 0; i < index.c_function_count; i++) {
    const struct capture_index_c_function *f = &index.c_functions[i];
    ck_assert_msg(strncmp(f->name, "test_collector_api+0x", 21) != 0, "%s", f->name);
    if (!strcmp(f->name, "[C] host_entry")) {
      ck_assert_str_eq(f->library, "test_collector_api");
      ck_assert_str_eq(f->origin, "symtab");
      entry_line++;
    }
  }
  ck_assert_int_eq(entry_line, 1);
  capture_index_free(&index);
  lua_close(L);
}
END_TEST

/* The GC's state as a full cycle leaves it. */
struct gc_seen {
  uint64_t total, threshold, estimate, debt;
  unsigned state, white, stepmul, pause;
};

static struct gc_seen gc_seen(lua_State *L)
{
  const GCState *gc = &G(L)->gc;
  return (struct gc_seen){gc->total, gc->threshold, gc->estimate, gc->debt,
                          gc->state, gc->currentwhite, gc->stepmul, gc->pause};
}

/* A snapshot's walk leaves the GC as it found it: ljleak_collector_snapshot is a full cycle,
 * its boundary and the walk; after it the GC is where ljleak_collector_boundary, the same
 * cycle without the walk, leaves it on the same heap: the same bytes, threshold, estimate,
 * debt and state, and one white flip (the cycle's), none more. */
/* The debugger's one entry (ljleak attach, docs/attach.md): each step as its own entry, the
 * message copied into the caller's buffer and cut to its size. Arming is tested end to end
 * (tests/e2e/attach.sh): its scan for the Lua state reads every private writable mapping,
 * which under a sanitizer or valgrind are theirs too. */
START_TEST(test_api_attach_step_is_the_entries_in_one_call)
{
  char dir[1200], message[256];
  lua_State *L = new_state("attach-step", "cap", dir, sizeof dir);
  ck_assert_int_eq(ljleak_collector_attach_step("attach", NULL, NULL, message, sizeof message), -1);
  ck_assert_str_eq(message, "the request is missing or too long");
  ck_assert_int_eq(ljleak_collector_attach_step("attach", NULL, NULL, message, 12), -1);
  ck_assert_str_eq(message, "the request");
  ck_assert_int_eq(ljleak_collector_attach_step("cancel", NULL, NULL, NULL, 0), 0);
  ck_assert_int_eq(ljleak_collector_attach_step("detach", NULL, NULL, message, sizeof message), -1);
  ck_assert_str_eq(message, "no step detach");
  ck_assert_int_eq(ljleak_collector_attach_step(NULL, NULL, NULL, message, sizeof message), -1);
  ck_assert_int_eq(ljleak_collector_attach_step("poll", NULL, NULL, message, sizeof message), 0);
  /* Nothing was armed, and the poll found no capture to ask: Lua runs as before. */
  ck_assert_int_eq(luaL_dostring(L, "local t = {} for i = 1, 100 do t[i] = {} end"), 0);
  lua_close(L);
}
END_TEST

/* Arming by the state's address, the user's --state or the front end's candidate ("~ADDR"):
 * taken after a check of that state alone, with no scan of the process's memory (which this
 * test could not run under a sanitizer or valgrind, above); the hook is armed and cancelled. */
START_TEST(test_api_attach_arms_the_state_named)
{
  char dir[1200], message[256], address[40], want[80];
  lua_State *L = new_state("attach-named", "cap", dir, sizeof dir);
  snprintf(want, sizeof want, "global state %#lx, allocator %#lx", (unsigned long)(uintptr_t)G(L),
           (unsigned long)(uintptr_t)G(L)->allocf);
  for (int candidate = 0; candidate < 2; candidate++) {
    snprintf(address, sizeof address, "%s%#lx", candidate ? "~" : "", (unsigned long)(uintptr_t)G(L));
    ck_assert_int_eq(ljleak_collector_attach_step("attach", "id=a\n", address, message,
                                                  sizeof message), 0);
    ck_assert_str_eq(message, want);
    ck_assert_int_ne(G(L)->hookmask & LUA_MASKCOUNT, 0);
    /* Armed once: a second attach waits for the first. */
    ck_assert_int_eq(ljleak_collector_attach_step("attach", "id=b\n", address, message,
                                                  sizeof message), -1);
    ck_assert_str_eq(message, "an earlier attach still waits for its safe point");
    ck_assert_int_eq(ljleak_collector_attach_step("cancel", NULL, NULL, NULL, 0), 1);
    ck_assert_int_eq(G(L)->hookmask & LUA_MASKCOUNT, 0);
  }
  ck_assert_int_eq(luaL_dostring(L, "local t = {} for i = 1, 100 do t[i] = {} end"), 0);
  lua_close(L);
}
END_TEST

/* Runs luajit with script on a pipe each way; its first line into line. The child's pid. */
static pid_t luajit_child(const char *script, int *to_child, char *line, size_t size)
{
  int in[2], out[2];
  ck_assert_int_eq(pipe(in), 0);
  ck_assert_int_eq(pipe(out), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    execlp("luajit", "luajit", "-e", script, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  FILE *f = fdopen(out[0], "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(line, (int)size, f));
  fclose(f);
  *to_child = in[1];
  return pid;
}

static void end_child(pid_t pid, int to_child)
{
  close(to_child);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The scan from outside (ljleak attach, before the stop) finds a running luajit's one state: its
 * global state, as the script reads it from a coroutine's glref (every thread's names it), among
 * the process's 1 MB chunks and a heap of a few MB; a process with no LuaJIT (sleep) has none,
 * and none can be read of a process that ended. */
START_TEST(test_api_state_scan_finds_a_running_luajit)
{
  char script[512], line[64];
  snprintf(script, sizeof script,
           "local ffi = require 'ffi' local keep = {} "
           "for i = 1, 50000 do keep[i] = {i, tostring(i)} end "
           "local co = coroutine.create(function() end) "
           "local at = tonumber(tostring(co):match('0x(%%x+)'), 16) "
           "local g = ffi.cast('uint64_t *', ffi.cast('uintptr_t', at) + %zu)[0] "
           "io.write(string.format('%%x\\n', tonumber(g))) io.flush() io.read()",
           offsetof(lua_State, glref));
  int to_child;
  pid_t pid = luajit_child(script, &to_child, line, sizeof line);
  uint64_t found[4] = {0};
  ck_assert_int_eq(coll_state_scan(pid, found, 4, UINT64_C(20000000000)), 1);
  ck_assert_uint_eq(found[0], strtoull(line, NULL, 16));
  ck_assert_int_eq(coll_state_scan(pid, found, 4, 0), -1);   /* no time: gives up */
  end_child(pid, to_child);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execlp("sleep", "sleep", "30", (char *)NULL);
    _exit(127);
  }
  /* Until it runs sleep: its own memory, not this test's copy. */
  char exe[64], target[PATH_MAX];
  snprintf(exe, sizeof exe, "/proc/%ld/exe", (long)pid);
  for (int i = 0; i < 500; i++) {
    ssize_t n = readlink(exe, target, sizeof target - 1);
    if (n > 0 && (target[n] = '\0', strstr(target, "sleep")))
      break;
    usleep(10000);
  }
  ck_assert_int_eq(coll_state_scan(pid, found, 4, UINT64_C(20000000000)), 0);
  kill(pid, SIGTERM);
  ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
  ck_assert_int_eq(coll_state_scan(pid, found, 4, UINT64_C(20000000000)), -1);
}
END_TEST

START_TEST(test_api_snapshot_leaves_the_gc_state)
{
  char dir[1024], err[512], path[1100];
  lua_State *L = new_state("snapshot", "cap", dir, sizeof dir);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  ck_assert_int_eq(ljleak_collector_snapshot(L, err, sizeof err), -1);
  ck_assert_str_eq(err, "no capture is running");
  ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), 0);
  ck_assert_int_eq(luaL_dostring(L, "keep = {} for i = 1, 3000 do keep[i] = {i, tostring(i)} end "
                                    "weak = setmetatable({}, {__mode = 'k'}) weak[keep] = keep[1]"), 0);
  ck_assert_int_eq(ljleak_collector_boundary(L, err, sizeof err), 0);
  struct gc_seen first = gc_seen(L);
  ck_assert_int_eq(ljleak_collector_boundary(L, err, sizeof err), 0);
  struct gc_seen second = gc_seen(L);
  ck_assert_int_eq(ljleak_collector_snapshot(L, err, sizeof err), 0);
  struct gc_seen walked = gc_seen(L);
  ck_assert_uint_eq(first.total, second.total);
  ck_assert_uint_eq(walked.total, second.total);
  ck_assert_uint_eq(walked.threshold, second.threshold);
  ck_assert_uint_eq(walked.estimate, second.estimate);
  ck_assert_uint_eq(walked.debt, second.debt);
  ck_assert_uint_eq(walked.state, GCSpause);
  ck_assert_uint_eq(walked.stepmul, second.stepmul);
  ck_assert_uint_eq(walked.pause, second.pause);
  ck_assert_uint_ne(second.white, first.white);
  ck_assert_uint_ne(walked.white, second.white);
  ck_assert_uint_eq(walked.white, first.white);
  /* The program runs on, its objects and weak table intact. */
  ck_assert_int_eq(luaL_dostring(L, "assert(#keep == 3000 and keep[3000][2] == '3000' and weak[keep] == keep[1])"), 0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.snapshots, 1);
  uint64_t at = st.boundaries;  /* the snapshot's boundary is the last one so far */
  ck_assert_int_eq(ljleak_collector_stop(L, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.snapshot_count, 1);
  ck_assert_uint_eq(index.snapshots[0].boundary, at);
  char file[64];
  snprintf(file, sizeof file, "snap-%04llu.heap", (unsigned long long)at);
  ck_assert_str_eq(index.snapshots[0].file, file);
  ck_assert_uint_ge(index.snapshots[0].objects, 6000);
  ck_assert_str_eq(index.boundaries[at - 1].cause, "call");
  capture_index_free(&index);
  lua_close(L);
}
END_TEST

/* A program whose debug hook allocates, collects and then removes itself (a one-shot hook): the
 * snapshot schedule arms its count hook inside that hook, where it cannot run, and the program's
 * debug.sethook() removes it. The candidates go on (the armed one had kept every later one away,
 * and the capture ended with no snapshot), and the stop leaves the program without a hook (giving
 * back the hook saved when arming brought the removed one back, a count hook to no function). */
START_TEST(test_api_snapshot_schedule_survives_a_hook_the_program_removes)
{
  char dir[1024], err[512];
  lua_State *L = new_state("hook-removed", "cap", dir, sizeof dir);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.snapshots = 4;
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(luaL_dostring(L, "jit.off() "
                                    "local function oneshot() "
                                    "  local t = {} for i = 1, 40000 do t[i] = {i} end "
                                    "  t = nil collectgarbage() debug.sethook() "
                                    "end "
                                    "debug.sethook(oneshot, '', 1000) "
                                    "for i = 1, 100000 do local x = {i} end "
                                    "assert(debug.gethook() == nil) "
                                    "keep = {} for i = 1, 400000 do keep[i] = {i} end"),
                   0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_uint_ge(st.snapshots, 1);
  ck_assert_int_eq(ljleak_collector_stop(L, err, sizeof err), 0);
  ck_assert_ptr_null((void *)lua_gethook(L));
  ck_assert_int_eq(lua_gethookmask(L), 0);
  lua_close(L);
}
END_TEST

/* ljleak_collector_snapshot for Lua code: true, or false and the message. */
static int lua_snapshot(lua_State *L)
{
  char err[512];
  int ok = ljleak_collector_snapshot(L, err, sizeof err) == 0;
  lua_pushboolean(L, ok);
  lua_pushstring(L, ok ? "" : err);
  return 2;
}

/* Finalizers that ask for a snapshot, run by the cycle of a snapshot asked for: each call runs
 * inside the one before's cycle, and the innermost took the one snapshot; the others said yes
 * with none at their boundaries. Each call gets its own, at its own boundary. */
START_TEST(test_api_snapshots_asked_for_in_finalizers_are_each_taken)
{
  char dir[1024], err[512], path[1100];
  lua_State *L = new_state("snapshot-finalizers", "cap", dir, sizeof dir);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  lua_pushcfunction(L, lua_snapshot);
  lua_setglobal(L, "snapshot");
  ck_assert_int_eq(luaL_dostring(L, "calls = 0 "
                                    "for i = 1, 3 do "
                                    "  local u = newproxy(true) "
                                    "  getmetatable(u).__gc = function() calls = calls + 1 assert(snapshot()) end "
                                    "end "
                                    "calls = calls + 1 assert(snapshot()) assert(calls == 4)"),
                   0);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  ck_assert_uint_eq(st.snapshots, 4);
  ck_assert_int_eq(ljleak_collector_stop(L, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.snapshot_count, 4);
  for (size_t i = 1; i < index.snapshot_count; i++)
    ck_assert_uint_gt(index.snapshots[i].boundary, index.snapshots[i - 1].boundary);
  capture_index_free(&index);
  lua_close(L);
}
END_TEST

static volatile sig_atomic_t program_signals;

static void program_handler(int signo)
{
  (void)signo;
  program_signals++;
}

/* A program that handles USR2 itself (a log reopened, a config reloaded) and then loads the
 * collector, whose default signal that is: its handler stays, and installing says why not; it
 * was replaced without a word, and the program's signal toggled captures from then on. A signal
 * the program ignores, or leaves at its default, is taken. */
START_TEST(test_api_signal_keeps_a_handler_of_the_program)
{
  char dir[1024], err[512];
  lua_State *L = new_state("signal-handler", "cap", dir, sizeof dir);
  struct sigaction mine, old, now;
  memset(&mine, 0, sizeof mine);
  mine.sa_handler = program_handler;
  sigemptyset(&mine.sa_mask);
  ck_assert_int_eq(sigaction(SIGUSR2, &mine, &old), 0);
  ck_assert_int_eq(ljleak_collector_install_signal(L, "USR2", err, sizeof err), -1);
  ck_assert_str_eq(err, "signal USR2 has a handler of the program's: not replaced (LJLEAK_SIGNAL "
                        "names another, or none)");
  ck_assert_int_eq(sigaction(SIGUSR2, NULL, &now), 0);
  ck_assert_ptr_eq((void *)now.sa_handler, (void *)program_handler);
  raise(SIGUSR2);
  ck_assert_int_eq(program_signals, 1);
  ck_assert_int_eq(sigaction(SIGUSR2, &old, NULL), 0);
  lua_close(L);
}
END_TEST

/* A host that wants no message passes NULL and 0 for err, as coll_options_check and the start take
 * them: every call's failure takes them too. The exit with no capture, or after the capture ended
 * on its own, copied its message through NULL (a crash). */
START_TEST(test_api_calls_take_no_error_buffer)
{
  char dir[1024];
  lua_State *L = new_state("no-err", "cap", dir, sizeof dir);
  ck_assert_int_eq(ljleak_collector_exit(L, NULL, 0), -1);
  ck_assert_int_eq(ljleak_collector_boundary(L, NULL, 0), -1);
  ck_assert_int_eq(ljleak_collector_snapshot(L, NULL, 0), -1);
  ck_assert_int_eq(ljleak_collector_stop(L, NULL, 0), -1);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  o.max_total_bytes = 1;   /* it stops on its own at its first write */
  ck_assert_int_eq(ljleak_collector_start(L, &o, NULL, 0), 0);
  ck_assert_int_eq(luaL_dostring(L, "local t = {} for i = 1, 20000 do t[i] = {i} end"), 0);
  ck_assert_int_eq(ljleak_collector_exit(L, NULL, 0), -1);
  char dir2[1100];
  snprintf(dir2, sizeof dir2, "%s-2", dir);
  o.dir = dir2;
  o.max_total_bytes = 0;
  ck_assert_int_eq(ljleak_collector_start(L, &o, NULL, 0), 0);
  ck_assert_int_eq(ljleak_collector_stop(L, NULL, 0), 0);
  lua_close(L);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_api");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_api_start_stop_restores_the_allocator);
  tcase_add_test(tc, test_api_lua_close_finishes_the_capture);
  tcase_add_test(tc, test_api_options_from_environment);
  tcase_add_test(tc, test_api_edge_gc_and_boundary_calls);
  tcase_add_test(tc, test_api_fresh_boundary_serves_the_snapshot_and_the_stop);
  tcase_add_test(tc, test_api_host_functions_are_named_never_raw_addresses);
  tcase_add_test(tc, test_api_snapshot_leaves_the_gc_state);
  tcase_add_test(tc, test_api_snapshot_schedule_survives_a_hook_the_program_removes);
  tcase_add_test(tc, test_api_snapshots_asked_for_in_finalizers_are_each_taken);
  tcase_add_test(tc, test_api_signal_keeps_a_handler_of_the_program);
  tcase_add_test(tc, test_api_calls_take_no_error_buffer);
  tcase_add_test(tc, test_api_attach_step_is_the_entries_in_one_call);
  tcase_add_test(tc, test_api_attach_arms_the_state_named);
  tcase_add_test(tc, test_api_state_scan_finds_a_running_luajit);
  tcase_add_loop_test(tc, test_api_sampled_capture_counts_and_restores, 0, 2);
  tcase_add_loop_test(tc, test_api_sampled_hook_wrapped_by_the_host, 0, 2);
  suite_add_tcase(s, tc);
  return check_run(s);
}
