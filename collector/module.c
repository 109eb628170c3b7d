/* collector/module.c: the Lua module require "ljleak.collector": start, stop, boundary, status, env start, signal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/capture.h"
#include "collector/ljleak_collector.h"
#include "collector/options.h"
#include "lauxlib.h"
#include "lua.h"

/* Reads optional field name of the table at index 1 as a size. */
static void field_size(lua_State *L, const char *name, uint64_t *value)
{
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    lua_Number n = lua_tonumber(L, -1);
    if (n < 0)
      luaL_error(L, "ljleak.collector: %s must not be negative", name);
    *value = (uint64_t)n;
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    if (ljleak_collector_parse_size(lua_tostring(L, -1), value) != 0)
      luaL_error(L, "ljleak.collector: bad %s '%s'", name, lua_tostring(L, -1));
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "ljleak.collector: %s must be a number", name);
  }
  lua_pop(L, 1);
}

static void field_seconds(lua_State *L, const char *name, double *value)
{
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    *value = lua_tonumber(L, -1);
    if (*value < 0)
      luaL_error(L, "ljleak.collector: %s must not be negative", name);
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    if (ljleak_collector_parse_seconds(lua_tostring(L, -1), value) != 0)
      luaL_error(L, "ljleak.collector: bad %s '%s'", name, lua_tostring(L, -1));
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "ljleak.collector: %s must be a number of seconds", name);
  }
  lua_pop(L, 1);
}

static void field_bool(lua_State *L, const char *name, int *value)
{
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) == LUA_TBOOLEAN)
    *value = lua_toboolean(L, -1);
  else if (lua_type(L, -1) == LUA_TNUMBER)
    *value = lua_tonumber(L, -1) != 0;
  else if (!lua_isnil(L, -1))
    luaL_error(L, "ljleak.collector: %s must be a boolean", name);
  lua_pop(L, 1);
}

/* Strings of the options table stay referenced on the stack during start. */
static void field_string(lua_State *L, const char *name, const char **value)
{
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) == LUA_TSTRING)
    *value = lua_tostring(L, -1);
  else if (!lua_isnil(L, -1))
    luaL_error(L, "ljleak.collector: %s must be a string", name);
  /* Left on the stack so the string stays alive until start returns. */
}

static int push_failure(lua_State *L, const char *msg)
{
  lua_pushnil(L);
  lua_pushstring(L, msg);
  return 2;
}

static int l_start(lua_State *L)
{
  struct ljleak_collector_options opt;
  ljleak_collector_options_init(&opt);
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    field_string(L, "dir", &opt.dir);
    field_string(L, "root", &opt.root);
    field_seconds(L, "period", &opt.period);
    field_size(L, "max_bytes", &opt.max_bytes);
    field_size(L, "max_total_bytes", &opt.max_total_bytes);
    field_size(L, "sample", &opt.sample);
    field_bool(L, "gzip", &opt.gzip);
    field_seconds(L, "duration", &opt.duration);
    field_bool(L, "force_gc", &opt.force_gc);
    field_bool(L, "c_hook", &opt.c_hook);
    field_size(L, "every", &opt.every);
    field_bool(L, "edge_gc", &opt.edge_gc);
  }
  char err[512];
  if (ljleak_collector_start(L, &opt, err, sizeof err) != 0)
    return push_failure(L, err);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  lua_pushstring(L, st.dir);
  return 1;
}

static int l_stop(lua_State *L)
{
  char err[512];
  if (ljleak_collector_stop(L, err, sizeof err) != 0)
    return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* collector.boundary(): a full GC cycle now, and the boundary it ends;
 * returns the number of boundaries so far. */
static int l_boundary(lua_State *L)
{
  char err[512];
  if (ljleak_collector_boundary(L, err, sizeof err) != 0)
    return push_failure(L, err);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  lua_pushnumber(L, (lua_Number)st.boundaries);
  return 1;
}

static int l_status(lua_State *L)
{
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  lua_createtable(L, 0, 11);
  lua_pushboolean(L, st.active);
  lua_setfield(L, -2, "active");
  if (st.dir[0]) {
    lua_pushstring(L, st.dir);
    lua_setfield(L, -2, "dir");
  }
  lua_pushnumber(L, (lua_Number)st.segments);
  lua_setfield(L, -2, "segments");
  lua_pushnumber(L, (lua_Number)st.events);
  lua_setfield(L, -2, "events");
  lua_pushnumber(L, (lua_Number)st.bytes);
  lua_setfield(L, -2, "bytes");
  lua_pushnumber(L, (lua_Number)st.allocated);
  lua_setfield(L, -2, "allocated");
  lua_pushboolean(L, st.direct_hook);
  lua_setfield(L, -2, "direct_hook");
  lua_pushnumber(L, (lua_Number)st.boundaries);
  lua_setfield(L, -2, "boundaries");
  lua_pushnumber(L, (lua_Number)st.trace_allocations);
  lua_setfield(L, -2, "trace_allocations");
  lua_pushnumber(L, (lua_Number)st.trace_lines);
  lua_setfield(L, -2, "trace_lines");
  if (st.error[0]) {
    lua_pushstring(L, st.error);
    lua_setfield(L, -2, "error");
  }
  return 1;
}

static const luaL_Reg functions[] = {
  {"start", l_start},
  {"stop", l_stop},
  {"status", l_status},
  {"boundary", l_boundary},
  {NULL, NULL},
};

int luaopen_ljleak_collector(lua_State *L)
{
  lua_newtable(L);
  luaL_register(L, NULL, functions);
  char err[512];
  const char *sig = getenv("LJLEAK_SIGNAL");
  if (ljleak_collector_install_signal(L, sig ? sig : "USR2", err, sizeof err) != 0)
    fprintf(stderr, "ljleak: collector: %s\n", err);
  /* Loading the module is the intent to capture: the traces compiled from
   * now on get maps of their lines, even before a capture starts. */
  if (!capture_state.active)
    trace_line_attach(&capture_state.lines, L);
  const char *start = getenv("LJLEAK_START");
  int on = 0;
  if (start && options_parse_bool(start, &on) == 0 && on) {
    if (ljleak_collector_start(L, NULL, err, sizeof err) != 0)
      fprintf(stderr, "ljleak: collector: cannot start a capture: %s\n", err);
  }
  return 1;
}
