/* collector/layout.c: verifies the private-structure layout against the running library. */
#include "collector/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/lj_private.h"
#include "lauxlib.h"

struct layout_job {
  char *version;
  size_t version_size;
  char *err;
  size_t err_size;
  int failed;
};

static int fail(struct layout_job *job, const char *what)
{
  snprintf(job->err, job->err_size,
           "LuaJIT layout check failed: %s; the collector was built for %s "
           "(LUAJIT_VERSION_NUM %d) and does not match the running library",
           what, LUAJIT_VERSION, LUAJIT_VERSION_NUM);
  job->failed = 1;
  return 0;
}

/* jit.version and jit.version_num from package.loaded.jit, if loaded. */
static int check_version(lua_State *L, struct layout_job *job)
{
  const char *expected = LUAJIT_VERSION;
  const char *broken = getenv("LJLEAK_TEST_BREAK_LAYOUT");
  if (broken && *broken && strcmp(broken, "0") != 0)
    expected = "LuaJIT 0.0.0-layout-test";
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "jit");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 2);
    snprintf(job->version, job->version_size, "%s", LUAJIT_VERSION);
    return 1; /* No jit library opened: the other checks must do. */
  }
  lua_getfield(L, -1, "version");
  lua_getfield(L, -2, "version_num");
  const char *v = lua_tostring(L, -2);
  lua_Number num = lua_tonumber(L, -1);
  snprintf(job->version, job->version_size, "%s", v ? v : "?");
  int ok = v && strcmp(v, expected) == 0 && num == (lua_Number)LUAJIT_VERSION_NUM;
  lua_pop(L, 4);
  if (!ok) {
    char what[256];
    snprintf(what, sizeof what, "running jit.version is \"%s\" (%.0f)", v ? v : "?", (double)num);
    return fail(job, what);
  }
  return 1;
}

#if LJ_HASJIT
/* A live trace's fields that mapping its calls to lines reads (its IR and
 * snapshot counts, its machine code), against what jit.util reports for it.
 * Only when a trace exists and jit.util loads: a capture that starts before
 * any trace relies on the version check and the recorder handler's own. */
static int check_trace_layout(lua_State *L, struct layout_job *job)
{
  jit_State *J = G2J(G(L));
  GCtrace *T = NULL;
  for (MSize n = 1; n < J->sizetrace && J->trace && !T; n++) {
    GCtrace *t = (GCtrace *)gcref(J->trace[n]);
    if (t && t->traceno == n && t != &J->cur && t->mcode)
      T = t;
  }
  if (!T)
    return 1;
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushstring(L, "jit.util");
  if (!lua_isfunction(L, -2) || lua_pcall(L, 1, 1, 0) != 0 || !lua_istable(L, -1)) {
    lua_settop(L, top);
    return 1;
  }
  lua_getfield(L, -1, "traceinfo");
  lua_pushinteger(L, T->traceno);
  int info_ok = lua_pcall(L, 1, 1, 0) == 0 && lua_istable(L, -1);
  int same = 0;
  if (info_ok) {
    lua_getfield(L, -1, "nins");
    lua_getfield(L, -2, "nk");
    lua_getfield(L, -3, "nexit");
    same = lua_tointeger(L, -3) == (lua_Integer)T->nins - REF_BIAS - 1 &&
           lua_tointeger(L, -2) == REF_BIAS - (lua_Integer)T->nk &&
           lua_tointeger(L, -1) == (lua_Integer)T->nsnap;
    lua_pop(L, 4);
    lua_getfield(L, -1, "tracemc");
    lua_pushinteger(L, T->traceno);
    if (same && lua_pcall(L, 1, 3, 0) == 0) {
      size_t size = 0;
      lua_tolstring(L, -3, &size);
      same = size == T->szmcode && (uintptr_t)lua_tonumber(L, -2) == (uintptr_t)T->mcode &&
             lua_tointeger(L, -1) == (lua_Integer)T->mcloop;
    }
  }
  lua_settop(L, top);
  if (info_ok && !same)
    return fail(job, "a trace's fields differ from what jit.util reports for it");
  return 1;
}
#endif

static int verify_cf(lua_State *L)
{
  struct layout_job *job = lua_touserdata(L, 1);
  lua_pop(L, 1);
  global_State *g = mref(L->glref, global_State);
  if (!g)
    return fail(job, "L->glref is NULL");
  if (L->gct != ~LJ_TTHREAD)
    return fail(job, "L does not carry the thread type tag");

  void *ud = NULL;
  lua_Alloc f = lua_getallocf(L, &ud);
  if (f != g->allocf || ud != g->allocd)
    return fail(job, "lua_getallocf differs from global_State allocf/allocd");

  GCobj *main = gcref(g->mainthref);
  if (!main || main->gch.gct != ~LJ_TTHREAD || mref(main->th.glref, global_State) != g)
    return fail(job, "global_State mainthref is not a thread of this state");
  if ((char *)g - (char *)&main->th != (ptrdiff_t)offsetof(GG_State, g))
    return fail(job, "global_State is not where GG_State puts it after the main thread");
  int is_main = lua_pushthread(L);
  lua_pop(L, 1);
  if (is_main != (L == &main->th))
    return fail(job, "lua_pushthread disagrees with mainthref");

  if (g->vmstate != ~LJ_VMST_C)
    return fail(job, "vmstate does not read the C state inside a C function");
  if (gcref(g->cur_L) != obj2gco(L))
    return fail(job, "cur_L is not the running thread");

  TValue *stack = tvref(L->stack);
  if (!stack || tvref(L->maxstack) != stack + L->stacksize - LJ_STACK_EXTRA - 1 ||
      L->base < stack || L->top < L->base || L->top > tvref(L->maxstack))
    return fail(job, "lua_State stack fields are inconsistent");
  cTValue *frame = L->base - 1;
  if ((LJ_FR2 && !tvisfunc(frame - 1)) || frame_gc(frame)->gch.gct != ~LJ_TFUNC ||
      !iscfunc(frame_func(frame)) || frame_func(frame)->c.f != verify_cf)
    return fail(job, "the running frame is not this C function");

  GCSize total = g->gc.total;
  int kb = lua_gc(L, LUA_GCCOUNT, 0);
  int rest = lua_gc(L, LUA_GCCOUNTB, 0);
  if ((GCSize)kb * 1024 + (GCSize)rest != total)
    return fail(job, "gc.total differs from collectgarbage(\"count\")");
  if (g->gc.state > GCSfinalize || g->gc.total < sizeof(GG_State))
    return fail(job, "gc state is implausible");
  /* force_gc writes gc.stepmul and gc.threshold (next to gc.total); cycles
   * are told by gc.currentwhite, which new objects take. */
  int stepmul = lua_gc(L, LUA_GCSETSTEPMUL, 123);
  int stepmul_ok = g->gc.stepmul == 123;
  lua_gc(L, LUA_GCSETSTEPMUL, stepmul);
  if (!stepmul_ok || g->gc.stepmul != (MSize)stepmul)
    return fail(job, "gc.stepmul is not where collectgarbage(\"setstepmul\") puts it");
  lua_newtable(L);
  uint8_t marked = gcV(L->top - 1)->gch.marked;
  lua_pop(L, 1);
  uint8_t white = g->gc.currentwhite & LJ_GC_WHITES;
  if ((white != LJ_GC_WHITE0 && white != LJ_GC_WHITE1) || (marked & LJ_GC_WHITES) != white)
    return fail(job, "gc.currentwhite is not the color of a new object");
  if (((g->str.mask + 1) & g->str.mask) != 0 || g->str.num > 64 * (g->str.mask + 1) ||
      g->str.tab == NULL)
    return fail(job, "string table is implausible");
  if (g->strempty.len != 0 || g->strempty.gct != ~LJ_TSTR)
    return fail(job, "the empty string is not where it should be");
#if LJ_HASJIT
  jit_State *J = G2J(g);
  if (J2G(J) != g || (J->sizetrace > 0 && J->trace == NULL) || J->sizetrace > 65536)
    return fail(job, "jit_State trace table is implausible");
  if (!check_trace_layout(L, job))
    return 0;
#endif
  check_version(L, job);
  return 0;
}

int layout_verify(lua_State *L, char *version, size_t version_size, char *err, size_t err_size)
{
  struct layout_job job = {version, version_size, err, err_size, 0};
  int top = lua_gettop(L);
  lua_pushcfunction(L, verify_cf);
  lua_pushlightuserdata(L, &job);
  if (lua_pcall(L, 1, 0, 0) != 0) {
    snprintf(err, err_size, "LuaJIT layout check failed: %s",
             lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
    lua_settop(L, top);
    return -1;
  }
  lua_settop(L, top);
  return job.failed ? -1 : 0;
}
