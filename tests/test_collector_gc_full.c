/* tests/test_collector_gc_full.c: the collector's own full collections (collector/gc_full.c) free what lua_gc(L, LUA_GCCOLLECT, 0) frees, whatever phase the GC is in, run the finalizers due, and leave the GC as that call does. */
#include <check.h>
#include <stdint.h>

#include "tests/check_run.h"
#include "collector/gc_full.h"
#include "collector/lj_private.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* The program: LIVE tables kept in the global keep; garbage made and dropped, seen through the
 * weak-valued table weak; a proxy whose finalizer counts. */
static const char *const setup =
    "keep, finalized = {}, 0\n"
    "for i = 1, 20000 do keep[i] = { i } end\n"
    "weak = setmetatable({}, { __mode = 'v' })\n";
static const char *const garbage =
    "for i = 1, 500 do weak[i] = { i } end\n"
    "local p = newproxy(true)\n"
    "getmetatable(p).__gc = function() finalized = finalized + 1 end\n"
    "weak.proxy = p\n"
    "weak.victim = keep[1]\n";

/* keep[1], the victim, is dropped without an allocation: no GC step runs meanwhile. */
static void drop_victim(lua_State *L)
{
  lua_getglobal(L, "keep");
  lua_pushnil(L);
  lua_rawseti(L, -2, 1);
  lua_pop(L, 1);
}

static void run(lua_State *L, const char *code)
{
  ck_assert_msg(luaL_dostring(L, code) == 0, "%s", lua_tostring(L, -1));
}

static lua_Integer global_int(lua_State *L, const char *expr)
{
  char code[128];
  snprintf(code, sizeof code, "return %s", expr);
  ck_assert_msg(luaL_dostring(L, code) == 0, "%s", lua_tostring(L, -1));
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* A state with the program set up and its GC in the pause between two cycles. */
static lua_State *new_program(void)
{
  lua_State *L = luaL_newstate();
  ck_assert_ptr_nonnull(L);
  luaL_openlibs(L);
  run(L, setup);
  lua_gc(L, LUA_GCCOLLECT, 0);
  ck_assert_int_eq(G(L)->gc.state, GCSpause);
  return L;
}

/* Steps the GC one object's work at a time until it is in phase want (or past the cycle's
 * end: the test fails). */
static void step_to(lua_State *L, int want)
{
  int mul = lua_gc(L, LUA_GCSETSTEPMUL, 1);
  for (int i = 0; i < 1000000 && G(L)->gc.state != want; i++)
    ck_assert_int_eq(lua_gc(L, LUA_GCSTEP, 0), 0);
  lua_gc(L, LUA_GCSETSTEPMUL, mul);
  ck_assert_int_eq(G(L)->gc.state, want);
}

/* The program's side of one collection: the garbage gone, its finalizer run, the live tables
 * kept. */
static void check_program(lua_State *L)
{
  ck_assert_int_eq(global_int(L, "(next(weak) == nil) and 1 or 0"), 1);
  ck_assert_int_eq(global_int(L, "finalized"), 1);
  ck_assert_int_eq(global_int(L, "#keep"), 20000);
}

/* Two runs of the program, each brought to phase by prepare: the one collected by
 * coll_gc_full is left as the one collected by lua_gc(L, LUA_GCCOLLECT, 0), byte for byte, in
 * the pause with the same estimate, threshold and debt; and what was garbage is gone. */
static void check_as_collect(void (*prepare)(lua_State *), int phase)
{
  lua_State *ours = new_program(), *theirs = new_program();
  prepare(ours);
  prepare(theirs);
  ck_assert_int_eq(G(ours)->gc.state, phase);
  ck_assert_int_eq(G(theirs)->gc.state, phase);
  coll_gc_full(ours);
  lua_gc(theirs, LUA_GCCOLLECT, 0);
  const global_State *a = G(ours), *b = G(theirs);
  ck_assert_int_eq(a->gc.state, GCSpause);
  ck_assert_int_eq(b->gc.state, GCSpause);
  ck_assert_uint_eq(a->gc.total, b->gc.total);
  ck_assert_uint_eq(a->gc.estimate, b->gc.estimate);
  ck_assert_uint_eq(a->gc.threshold, b->gc.threshold);
  ck_assert_uint_eq(a->gc.debt, b->gc.debt);
  check_program(ours);
  check_program(theirs);
  lua_close(ours);
  lua_close(theirs);
}

/* From the pause: the garbage made since the last cycle. */
static void in_the_pause(lua_State *L)
{
  run(L, garbage);
  drop_victim(L);
}

/* Mid-mark, the victim already marked: a cycle that went on from there would keep it. */
static void mid_mark(lua_State *L)
{
  run(L, garbage);
  step_to(L, GCSpropagate);
  int mul = lua_gc(L, LUA_GCSETSTEPMUL, 1);
  lua_getglobal(L, "keep");
  lua_rawgeti(L, -1, 1);
  const GCobj *victim = (const GCobj *)lua_topointer(L, -1);
  lua_pop(L, 2);
  for (int i = 0; i < 1000000 && !isblack(victim); i++)
    ck_assert_int_eq(lua_gc(L, LUA_GCSTEP, 0), 0);
  lua_gc(L, LUA_GCSETSTEPMUL, mul);
  ck_assert(isblack(victim));
  drop_victim(L);
}

/* While a cycle sweeps: the garbage made before it and after it (the finalizer's proxy). */
static void while_sweeping(lua_State *L)
{
  step_to(L, GCSsweep);
  run(L, garbage);
  drop_victim(L);
}

/* A GC the program stopped (collectgarbage("stop")): collected, and running again after. */
static void stopped(lua_State *L)
{
  lua_gc(L, LUA_GCSTOP, 0);
  run(L, garbage);
  drop_victim(L);
}

START_TEST(test_from_the_pause)
{
  check_as_collect(in_the_pause, GCSpause);
}
END_TEST

START_TEST(test_mid_mark)
{
  check_as_collect(mid_mark, GCSpropagate);
}
END_TEST

START_TEST(test_while_sweeping)
{
  check_as_collect(while_sweeping, GCSsweep);
}
END_TEST

START_TEST(test_stopped_gc)
{
  check_as_collect(stopped, GCSpause);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_gc_full");
  TCase *tc = tcase_create("gc_full");
  tcase_add_test(tc, test_from_the_pause);
  tcase_add_test(tc, test_mid_mark);
  tcase_add_test(tc, test_while_sweeping);
  tcase_add_test(tc, test_stopped_gc);
  suite_add_tcase(s, tc);
  return check_run(s);
}
