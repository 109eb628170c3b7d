/* collector/gc_full.h: the collector's own full collections (a boundary or a heap snapshot asked for, a capture's first and last cycles), in one stop. */
#ifndef LJLEAK_COLLECTOR_GC_FULL_H
#define LJLEAK_COLLECTOR_GC_FULL_H

#include "lua.h"

/* A full collection of L's heap: what lua_gc(L, LUA_GCCOLLECT, 0) frees, with the finalizers it
 * runs. While a cycle marks, or on a trace, it is that call. From the pause between two
 * cycles it is one whole cycle and no more: LuaJIT's full collection first sweeps every object,
 * which from there frees nothing and takes about as long as the cycle's marking
 * (docs/collector.md, "Forced cycles"). */
void coll_gc_full(lua_State *L);

#endif
