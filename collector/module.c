/* collector/module.c: the Lua module require "ljleak.collector": start, stop, boundary, status, poll, nginx; the environment, the signal, the registration. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/capture.h"
#include "collector/capture_dir.h"
#include "collector/trace_record.h"
#include "collector/control.h"
#include "collector/ljleak_collector.h"
#include "collector/options.h"
#include "collector/text.h"
#include "lauxlib.h"
#include "lua.h"

static int push_failure(lua_State *L, const char *msg)
{
  lua_pushnil(L);
  lua_pushstring(L, msg);
  return 2;
}

/* The text of the string at index: one with a NUL byte inside is refused, since C would read
 * it cut short there (a capture in another directory, labels lost) and say nothing. */
static const char *field_text(lua_State *L, int index, const char *key)
{
  size_t length;
  const char *text = lua_tolstring(L, index, &length);
  if (strlen(text) != length)
    luaL_error(L, "ljleak.collector: %s has a NUL byte", key);
  return text;
}

/* Reads optional field f (seconds, a size or a stack depth) of the table
 * at index 1 into o: a number, or a string in the syntax of the LJLEAK_*
 * variables. A value of another type or a malformed string raises an
 * error; a value out of f's range gives -1 (o unchanged), since converting
 * an infinite, NaN or too large lua_Number to an integer is undefined. */
static int field_number(lua_State *L, const struct coll_options_field *f,
                        struct ljleak_collector_options *o)
{
  int rc = 0;
  lua_getfield(L, 1, f->key);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    lua_Number n = lua_tonumber(L, -1);
    if (!coll_options_number_ok(f, n))
      rc = -1;
    else if (f->kind == COLL_OPTIONS_KIND_SECONDS)
      *(double *)coll_options_field_at(o, f) = n;
    else if (f->kind == COLL_OPTIONS_KIND_SIZE)
      *(uint64_t *)coll_options_field_at(o, f) = (uint64_t)n;
    else
      *(int *)coll_options_field_at(o, f) = (int)n;
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    const char *text = field_text(L, -1, f->key);
    uint64_t size;
    if (coll_options_parse_field(f, text, o) == 0) {
      rc = 0;
    } else if (f->kind != COLL_OPTIONS_KIND_SECONDS && ljleak_collector_parse_size(text, &size) == 0) {
      rc = -1;   /* a well-formed size, past f's limit */
    } else {
      char limit[256];
      coll_options_range_error(f, limit, sizeof limit);
      luaL_error(L, "ljleak.collector: bad %s '%s': %s", f->key, text, limit);
    }
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "ljleak.collector: %s must be a number%s", f->key,
               f->kind == COLL_OPTIONS_KIND_SECONDS ? " of seconds" : "");
  }
  lua_pop(L, 1);
  return rc;
}

/* A start{} value out of its option's range: for stack_depth the start
 * fails (nil and the message), as it always did; for the others it raises
 * an error, as a negative number always did. */
static int field_out_of_range(lua_State *L, const struct coll_options_field *f)
{
  char err[256];
  coll_options_range_error(f, err, sizeof err);
  if (f->kind == COLL_OPTIONS_KIND_STACK_DEPTH)
    return push_failure(L, err);
  return luaL_error(L, "ljleak.collector: %s", err);
}

/* A boolean, or a number (0 is false); NaN is neither. */
static void field_bool(lua_State *L, const struct coll_options_field *f, int *value)
{
  lua_getfield(L, 1, f->key);
  if (lua_type(L, -1) == LUA_TBOOLEAN) {
    *value = lua_toboolean(L, -1);
  } else if (lua_type(L, -1) == LUA_TNUMBER) {
    lua_Number n = lua_tonumber(L, -1);
    if (!coll_options_number_ok(f, n)) {
      char err[256];
      coll_options_range_error(f, err, sizeof err);
      luaL_error(L, "ljleak.collector: %s", err);
    }
    *value = n != 0;
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "ljleak.collector: %s must be a boolean", f->key);
  }
  lua_pop(L, 1);
}

/* Strings of the options table stay referenced on the stack during start. */
static void field_string(lua_State *L, const char *name, const char **value)
{
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) == LUA_TSTRING)
    *value = field_text(L, -1, name);
  else if (!lua_isnil(L, -1))
    luaL_error(L, "ljleak.collector: %s must be a string", name);
  /* Left on the stack so the string stays alive until start returns. */
}

/* labels: a string ("release=1.4.2,role=api"), or a table of KEY = VALUE
 * strings (numbers too), joined in the order of their keys so that the
 * index is the same from run to run. The list is left on the stack, so it
 * stays alive until start returns; ljleak_collector_start checks it. */
static void field_labels(lua_State *L, const struct coll_options_field *f, const char **value)
{
  lua_getfield(L, 1, f->key);
  if (lua_type(L, -1) == LUA_TSTRING) {
    *value = field_text(L, -1, f->key);
    return;
  }
  if (lua_isnil(L, -1))
    return;
  if (!lua_istable(L, -1))
    luaL_error(L, "ljleak.collector: %s must be a table of KEY = VALUE strings, or a string", f->key);
  int table = lua_gettop(L);
  /* The keys, sorted with table.sort's order for strings: strcmp. */
  const char *keys[CAPTURE_INDEX_LABEL_COUNT_MAX + 1];
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    if (lua_type(L, -2) != LUA_TSTRING || (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
      luaL_error(L, "ljleak.collector: %s must be a table of KEY = VALUE strings", f->key);
    field_text(L, -2, f->key);
    if (lua_type(L, -1) == LUA_TSTRING)
      field_text(L, -1, f->key);
    if (lua_type(L, -1) == LUA_TSTRING && strchr(lua_tostring(L, -1), ','))
      luaL_error(L, "ljleak.collector: %s: the value of '%s' has a ','", f->key, lua_tostring(L, -2));
    lua_pop(L, 1);
    if (strpbrk(lua_tostring(L, -1), ",="))
      luaL_error(L, "ljleak.collector: %s: the key '%s' has a ',' or a '='", f->key, lua_tostring(L, -1));
    if (count == CAPTURE_INDEX_LABEL_COUNT_MAX)
      luaL_error(L, "ljleak.collector: %s: more than %d labels", f->key, CAPTURE_INDEX_LABEL_COUNT_MAX);
    const char *key = lua_tostring(L, -1);  /* a string key: lua_next may go on with it */
    size_t at = count++;
    while (at > 0 && strcmp(keys[at - 1], key) > 0) {
      keys[at] = keys[at - 1];
      at--;
    }
    keys[at] = key;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (size_t i = 0; i < count; i++) {
    if (i)
      luaL_addchar(&b, ',');
    luaL_addstring(&b, keys[i]);
    luaL_addchar(&b, '=');
    lua_getfield(L, table, keys[i]);
    lua_tostring(L, -1);  /* a number becomes its string, on the stack */
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  *value = lua_tostring(L, -1);
}

/* Pushes global name, read raw: a program whose undeclared globals raise an error when read
 * (strict.lua) has no ngx outside nginx, and the module would fail to load (an error out of
 * require), start with it. */
static void push_global(lua_State *L, const char *name)
{
  lua_pushstring(L, name);
  lua_rawget(L, LUA_GLOBALSINDEX);
}

/* The environment as the Lua code sees it: os.getenv, which nginx's Lua
 * module replaces in init_by_lua with one that knows nginx's env
 * directives; getenv() where there is no os.getenv. The value stays on the
 * stack (the caller's frame keeps it alive). */
static int env_calling;   /* the program's os.getenv runs, called from lua_env */

static const char *lua_env(void *ctx, const char *name)
{
  lua_State *L = ctx;
  push_global(L, "os");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "getenv");
    lua_remove(L, -2);
    /* An os.getenv that calls start would call itself through start down the whole C stack (a
     * crash): inside it, the process's environment is read. lua_pcall always returns, so the
     * flag is always cleared. */
    if (lua_isfunction(L, -1) && !env_calling) {
      lua_pushstring(L, name);
      env_calling = 1;
      int rc = lua_pcall(L, 1, 1, 0);
      env_calling = 0;
      if (rc == 0 && lua_type(L, -1) == LUA_TSTRING)
        return lua_tostring(L, -1);
      return NULL;   /* its result, nil or an error message, stays on the stack */
    }
  }
  lua_pop(L, 1);
  return getenv(name);
}

/* nginx's phase ("init" in the master's init_by_lua, "init_worker", ...)
 * when the module runs inside nginx's Lua module; NULL elsewhere. Pushes one
 * value. */
static const char *nginx_phase(lua_State *L)
{
  push_global(L, "ngx");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "get_phase");
    lua_remove(L, -2);
    if (lua_isfunction(L, -1) && lua_pcall(L, 0, 1, 0) == 0 && lua_type(L, -1) == LUA_TSTRING)
      return lua_tostring(L, -1);
    return NULL;
  }
  return NULL;
}

/* A start{} in nginx's master (init_by_lua): the options each worker's
 * capture starts with when collector.nginx() runs in it. */
static struct {
  int set;
  struct ljleak_collector_options opt;
  char root[PATH_MAX];
  char labels[CAPTURE_INDEX_LABELS_MAX + 1];
} deferred;

static int defer_start(lua_State *L, const struct ljleak_collector_options *opt)
{
  if (opt->dir)
    return push_failure(L, "under nginx each worker captures into a directory of its own: "
                           "give root, not dir");
  /* Checked now, so that a bad value fails here rather than in each worker. */
  char err[256];
  if (coll_options_check(opt, err, sizeof err) != 0 || coll_capture_dir_root_check(opt->root, err, sizeof err) != 0)
    return push_failure(L, err);   /* a root cut to fit deferred.root would fail in each worker */
  deferred.opt = *opt;
  coll_text_copy(deferred.root, sizeof deferred.root, opt->root ? opt->root : "");
  deferred.opt.root = deferred.root[0] ? deferred.root : NULL;
  coll_text_copy(deferred.labels, sizeof deferred.labels, opt->labels ? opt->labels : "");
  deferred.opt.labels = deferred.labels;
  deferred.set = 1;
  lua_pushboolean(L, 1);
  return 1;
}

static int l_start(lua_State *L)
{
  struct ljleak_collector_options opt;
  char err[512];
  luaL_checkstack(L, 48, "ljleak.collector: start");
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    /* A misspelt option would otherwise be a silent default (a name with a NUL byte too: C
     * would read an option's name, Lua look up another key). */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING || lua_objlen(L, -1) != strlen(lua_tostring(L, -1)) ||
          !coll_options_field(lua_tostring(L, -1))) {
        lua_pushvalue(L, -1);
        int is_string = lua_type(L, -1) == LUA_TSTRING;
        snprintf(err, sizeof err, "unknown option '%s'%s", is_string ? lua_tostring(L, -1) : luaL_typename(L, -1),
                 is_string && lua_objlen(L, -1) != strlen(lua_tostring(L, -1)) ? " (its name has a NUL byte)" : "");
        return push_failure(L, err);
      }
    }
  }
  if (coll_options_from_env(&opt, lua_env, L, err, sizeof err) != 0)
    return push_failure(L, err);
  if (!lua_isnoneornil(L, 1)) {
    for (const struct coll_options_field *f = coll_options_fields; f->key; f++) {
      void *field = coll_options_field_at(&opt, f);
      switch (f->kind) {
      case COLL_OPTIONS_KIND_STRING:
        field_string(L, f->key, field);
        break;
      case COLL_OPTIONS_KIND_LABELS:
        field_labels(L, f, field);
        break;
      case COLL_OPTIONS_KIND_SECONDS:
      case COLL_OPTIONS_KIND_SIZE:
      case COLL_OPTIONS_KIND_STACK_DEPTH:
        if (field_number(L, f, &opt) != 0)
          return field_out_of_range(L, f);
        break;
      case COLL_OPTIONS_KIND_BOOL:
        field_bool(L, f, field);
        break;
      }
    }
  }
  const char *phase = nginx_phase(L);
  if (phase && !strcmp(phase, "init"))
    return defer_start(L, &opt);
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

/* Runs a request of the C API (boundary or snapshot), then returns how many
 * boundaries (snapshots 0) or snapshots (1) there are so far. */
static int request_and_count(lua_State *L, int (*request)(lua_State *, char *, size_t), int snapshots)
{
  char err[512];
  if (request(L, err, sizeof err) != 0)
    return push_failure(L, err);
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  lua_pushnumber(L, (lua_Number)(snapshots ? st.snapshots : st.boundaries));
  return 1;
}

/* collector.boundary(): a full GC cycle now, and the boundary it ends;
 * returns the number of boundaries so far. */
static int l_boundary(lua_State *L)
{
  return request_and_count(L, ljleak_collector_boundary, 0);
}

/* collector.snapshot(): a full GC cycle now, its boundary, and a heap snapshot at it; returns
 * the number of snapshots so far. */
static int l_snapshot(lua_State *L)
{
  return request_and_count(L, ljleak_collector_snapshot, 1);
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
  const struct {
    const char *name;
    uint64_t value;
    int boolean;
  } fields[] = {{"segments", st.segments, 0}, {"events", st.events, 0}, {"bytes", st.bytes, 0},
                {"allocated", st.allocated, 0}, {"direct_hook", (uint64_t)st.direct_hook, 1},
                {"boundaries", st.boundaries, 0}, {"snapshots", st.snapshots, 0},
                {"trace_allocations", st.trace_allocations, 0}, {"trace_lines", st.trace_lines, 0}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (fields[i].boolean)
      lua_pushboolean(L, fields[i].value != 0);
    else
      lua_pushnumber(L, (lua_Number)fields[i].value);
    lua_setfield(L, -2, fields[i].name);
  }
  if (st.error[0]) {
    lua_pushstring(L, st.error);
    lua_setfield(L, -2, "error");
  }
  return 1;
}

/* The options of a control request before its own: the environment's. */
static int poll_now(lua_State *L)
{
  if (!coll_control_request_waiting())
    return 0;
  struct ljleak_collector_options base;
  char err[512];
  luaL_checkstack(L, 24, "ljleak.collector: poll");
  int bad = coll_options_from_env(&base, lua_env, L, err, sizeof err) != 0;
  return coll_capture_control_poll(L, &base, bad ? err : NULL);
}

/* collector.poll(): takes a control request now, if one waits (a host with
 * its own event loop calls it; under nginx the module's timer does).
 * Returns whether one was taken. */
static int l_poll(lua_State *L)
{
  lua_pushboolean(L, poll_now(L));
  return 1;
}

/* The timer collector.nginx() sets up: every second, a request if one
 * waits; when the worker exits (premature: a reload or a shutdown), the
 * capture ends as the program's end does, with its last cycle. */
static int nginx_tick(lua_State *L)
{
  if (lua_toboolean(L, 1)) {
    char err[512];
    if (coll_capture_state.active && ljleak_collector_exit(L, err, sizeof err) != 0)
      fprintf(stderr, "ljleak: collector: the capture ended on an error: %s\n", err);
    coll_control_note_exiting();
    return 0;
  }
  poll_now(L);
  return 0;
}

static int nginx_ready;   /* the pid whose timer is set up */

static int nginx_fail(lua_State *L, const char *message)
{
  fprintf(stderr, "ljleak: collector: %s\n", message);
  return push_failure(L, message);
}

/* collector.nginx(): in an nginx worker (init_worker_by_lua): registers the
 * worker, installs the hook and the timer that takes control requests, and
 * starts the capture a start{} of init_by_lua asked for. true, or nil and
 * the reason (also on stderr, nginx's error.log). */
static int l_nginx(lua_State *L)
{
  char err[512], run_dir[PATH_MAX];
  const char *phase = nginx_phase(L);
  if (!phase)
    return nginx_fail(L, "collector.nginx() is for nginx's Lua module (no ngx.get_phase here)");
  if (!strcmp(phase, "init"))
    return nginx_fail(L, "collector.nginx() runs in the workers: call it from "
                         "init_worker_by_lua, not init_by_lua (nginx's master)");
  if (nginx_ready == (int)getpid()) {
    lua_pushboolean(L, 1);
    return 1;
  }
  struct ljleak_collector_options env;
  luaL_checkstack(L, 24, "ljleak.collector: nginx");
  if (coll_options_from_env(&env, lua_env, L, err, sizeof err) != 0)
    return nginx_fail(L, err);
  if (coll_control_run_dir(lua_env(L, "LJLEAK_RUN_DIR"), run_dir, sizeof run_dir, err, sizeof err) != 0 ||
      coll_control_register(run_dir, env.root, COLL_CONTROL_POLL_TIMER, &coll_capture_signal_pending,
                            &coll_capture_state.fast_phase, err, sizeof err) != 0)
    return nginx_fail(L, err);
  coll_capture_at_fork_and_exit();
  if (coll_capture_attach(L, err, sizeof err) != 0) {
    coll_control_set_error(err);
    return nginx_fail(L, err);
  }
  push_global(L, "ngx");
  lua_getfield(L, -1, "timer");
  if (lua_istable(L, -1))
    lua_getfield(L, -1, "every");
  else
    lua_pushnil(L);   /* an ngx without timer (a test's stand-in): said below, not an index error */
  if (!lua_isfunction(L, -1))
    return nginx_fail(L, "this nginx Lua module has no ngx.timer.every (0.10.9 or later has it)");
  lua_pushnumber(L, 1);
  /* ngx.timer.every wants a Lua function: one that calls the tick. */
  if (luaL_loadstring(L, "local tick = ... return function(premature) return tick(premature) end"))
    return nginx_fail(L, lua_tostring(L, -1));
  lua_pushcfunction(L, nginx_tick);
  lua_call(L, 1, 1);
  if (lua_pcall(L, 2, 2, 0) != 0 || !lua_toboolean(L, -2)) {
    snprintf(err, sizeof err, "cannot set up the control timer: %s",
             lua_isstring(L, -1) ? lua_tostring(L, -1) : "ngx.timer.every failed");
    coll_control_set_error(err);
    return nginx_fail(L, err);
  }
  nginx_ready = (int)getpid();
  /* The timer takes requests: no pass-through hook between captures. */
  coll_capture_release_idle();
  if (deferred.set && !coll_capture_state.active &&
      ljleak_collector_start(L, &deferred.opt, err, sizeof err) != 0) {
    char message[600];
    snprintf(message, sizeof message, "cannot start the capture asked for in init_by_lua: %s", err);
    coll_control_set_error(message);
    return nginx_fail(L, message);
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg functions[] = {
  {"start", l_start},
  {"stop", l_stop},
  {"status", l_status},
  {"boundary", l_boundary},
  {"snapshot", l_snapshot},
  {"poll", l_poll},
  {"nginx", l_nginx},
  {NULL, NULL},
};

/* Signals nginx's master or workers act on: never the collector's there. */
static int nginx_uses_signal(int signo)
{
  return signo == SIGHUP || signo == SIGUSR1 || signo == SIGUSR2 || signo == SIGWINCH ||
         signo == SIGQUIT || signo == SIGTERM || signo == SIGINT;
}

int luaopen_ljleak_collector(lua_State *L)
{
  int top = lua_gettop(L);
  char err[512], run_dir[PATH_MAX];
  luaL_checkstack(L, 32, "ljleak.collector");
  const char *phase = nginx_phase(L);
  /* Under nginx there is no default signal (nginx's own would be taken),
   * and one that nginx uses is refused. */
  const char *sig = lua_env(L, "LJLEAK_SIGNAL");
  int signo = 0;
  if (!sig)
    sig = phase ? "none" : "USR2";
  if (phase && coll_options_parse_signal(sig, &signo) == 0 && nginx_uses_signal(signo))
    fprintf(stderr, "ljleak: collector: LJLEAK_SIGNAL=%s is a signal nginx uses; no signal "
                    "installed (ci/capture uses the control files)\n", sig);
  else if (ljleak_collector_install_signal(L, sig, err, sizeof err) != 0)
    fprintf(stderr, "ljleak: collector: %s\n", err);
  /* Loading the module is the intent to capture: the traces compiled from
   * now on get maps of their lines, even before a capture starts. */
  if (!coll_capture_state.active)
    coll_trace_record_attach(&coll_capture_state.lines, L);
  const char *control = lua_env(L, "LJLEAK_CONTROL");
  int control_on = 1;
  if (control && coll_options_parse_bool(control, &control_on) != 0) {
    fprintf(stderr, "ljleak: collector: bad LJLEAK_CONTROL '%s' (1 or 0)\n", control);
    control_on = 1;
  }
  struct ljleak_collector_options env;
  int env_ok = coll_options_from_env(&env, lua_env, L, err, sizeof err) == 0;
  if (!env_ok)
    fprintf(stderr, "ljleak: collector: %s\n", err);
  if (control_on && !phase) {
    /* A plain program: registered now, its requests taken by the hook. */
    if (coll_control_run_dir(lua_env(L, "LJLEAK_RUN_DIR"), run_dir, sizeof run_dir, err,
                             sizeof err) != 0 ||
        coll_capture_attach(L, err, sizeof err) != 0 ||
        coll_control_register(run_dir, env.root, COLL_CONTROL_POLL_THREAD, &coll_capture_signal_pending,
                              &coll_capture_state.fast_phase, err, sizeof err) != 0)
      fprintf(stderr, "ljleak: collector: no control channel: %s\n", err);
    else
      coll_capture_at_fork_and_exit();
  }
  int start_on = 0;
  const char *start = lua_env(L, "LJLEAK_START");
  if (start && coll_options_parse_bool(start, &start_on) != 0)
    fprintf(stderr, "ljleak: collector: bad LJLEAK_START '%s' (1 or 0)\n", start);
  lua_settop(L, top);
  lua_newtable(L);
  luaL_register(L, NULL, functions);
  if (phase && strcmp(phase, "init") && control_on) {
    /* Loaded in a worker: set up as collector.nginx() does. */
    lua_getfield(L, -1, "nginx");
    lua_call(L, 0, 0);
  }
  if (start_on) {
    lua_getfield(L, -1, "start");
    lua_call(L, 0, 2);
    if (lua_isnil(L, -2))
      fprintf(stderr, "ljleak: collector: cannot start a capture: %s\n", lua_tostring(L, -1));
    lua_pop(L, 2);
  }
  return 1;
}
