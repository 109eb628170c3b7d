/* bench/cname_walk.c: how long the walk that learns the Lua names of C functions takes when a capture starts, with 1,000 C functions in 50 modules (target: 5 ms or less). */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_time.h"
#include "collector/cname.h"
#include "collector/lj_private.h"
#include "lauxlib.h"
#include "lualib.h"

#define MODULES 50
#define PER_MODULE 20              /* 10 as fields, 10 in a table below (M.sub.K) */
#define RUNS 101

/* 1,000 distinct C functions: each its own address, as a module's are. */
#define ONE(n) static int f##n(lua_State *L) { lua_pushinteger(L, n); return 1; }
#define TEN(n) ONE(n##0) ONE(n##1) ONE(n##2) ONE(n##3) ONE(n##4) ONE(n##5) ONE(n##6) ONE(n##7) \
  ONE(n##8) ONE(n##9)
#define HUNDRED(n) TEN(n##0) TEN(n##1) TEN(n##2) TEN(n##3) TEN(n##4) TEN(n##5) TEN(n##6) \
  TEN(n##7) TEN(n##8) TEN(n##9)
HUNDRED(1) HUNDRED(2) HUNDRED(3) HUNDRED(4) HUNDRED(5) HUNDRED(6) HUNDRED(7) HUNDRED(8)
HUNDRED(9) HUNDRED(10)
#undef ONE
#define ONE(n) f##n,
static const lua_CFunction functions[] = {
  HUNDRED(1) HUNDRED(2) HUNDRED(3) HUNDRED(4) HUNDRED(5) HUNDRED(6) HUNDRED(7) HUNDRED(8)
  HUNDRED(9) HUNDRED(10)
};
#undef ONE

/* MODULES modules in package.loaded (and as globals, as luaL_register
 * makes them), each with 10 functions and a table of 10 more. */
static void register_modules(lua_State *L)
{
  size_t next = 0;
  for (int m = 0; m < MODULES; m++) {
    char name[32];
    snprintf(name, sizeof name, "module%02d", m);
    luaL_Reg none[] = {{NULL, NULL}};
    luaL_register(L, name, none);
    for (int k = 0; k < PER_MODULE / 2; k++) {
      snprintf(name, sizeof name, "function%02d", k);
      lua_pushcfunction(L, functions[next++]);
      lua_setfield(L, -2, name);
    }
    lua_newtable(L);
    for (int k = 0; k < PER_MODULE / 2; k++) {
      snprintf(name, sizeof name, "method%02d", k);
      lua_pushcfunction(L, functions[next++]);
      lua_setfield(L, -2, name);
    }
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
  }
}

/* The median walk in ms over RUNS fresh walks of L's VM; *named: how many
 * functions one walk names. */
static double median_walk_ms(lua_State *L, uint32_t *named)
{
  struct cname_state s = {0};
  double ms[RUNS];
  for (int r = 0; r < RUNS; r++) {
    if (coll_cname_begin(&s) != 0) {
      fprintf(stderr, "cname_walk: cannot map the name tables\n");
      exit(1);
    }
    double t0 = bench_now_seconds();
    *named = coll_cname_walk(&s, G(L));
    ms[r] = (bench_now_seconds() - t0) * 1e3;
  }
  coll_cname_free(&s);
  return bench_median(ms, RUNS);
}

int main(void)
{
  lua_State *L = luaL_newstate();
  if (!L)
    return 1;
  luaL_openlibs(L);
  uint32_t base_named;
  double base = median_walk_ms(L, &base_named);
  register_modules(L);
  uint32_t named;
  double walk = median_walk_ms(L, &named);
  printf("naming walk, standard libraries only: %u C functions named, median %.3f ms (%d walks)\n",
         base_named, base, RUNS);
  printf("naming walk, with %d more in %d modules: %u C functions named, median %.3f ms "
         "(%d walks; target 5 ms)\n",
         MODULES * PER_MODULE, MODULES, named, walk, RUNS);
  lua_close(L);
  return named == base_named + MODULES * PER_MODULE ? 0 : 1;
}
