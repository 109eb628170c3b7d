/* collector/gc_full.c: a full collection without the sweep of every object that LuaJIT's own makes before its cycle (see gc_full.h). */
#include "collector/gc_full.h"

#include "collector/lj_private.h"

/* KiB a LUA_GCSTEP call may see freed before it returns: 2 GiB, which a build without GC64
 * (32-bit sizes) still takes. A call that returns before the cycle has ended is made again. */
#define GC_FULL_STEP_KB (1 << 21)

void coll_gc_full(lua_State *L)
{
  global_State *g = G(L);
  /* Mid-mark, the marks so far would keep what died since: the whole collection as LuaJIT
   * makes it. On a trace the atomic phase waits (lj_gc.c), so steps would not end. */
  if (g->gc.state != GCSpause || tvref(g->jit_base)) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    return;
  }
  /* From the pause, a cycle's steps run to its end (1): it marks from the roots as they are
   * now, so it frees what the full collection frees, and it sets the next cycle's threshold as
   * that does. */
  while (lua_gc(L, LUA_GCSTEP, GC_FULL_STEP_KB) == 0)
    ;
}
