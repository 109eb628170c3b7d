/* collector/interp_site.h: the quick tier's cache of the interpreter's allocation sites: the saved PC of the Lua function on top, resolved by the full tier to its prototype and line, with the stack id it interned (callstack.h). */
#ifndef LJLEAK_COLLECTOR_INTERP_SITE_H
#define LJLEAK_COLLECTOR_INTERP_SITE_H

#include <stdint.h>

#include "collector/attrib.h"
#include "collector/lj_private.h"

#define INTERP_SITE_CACHE_SIZE 256   /* entries (a power of two) */

/* One resolved site. Valid while stamp is the cache's and the running
 * prototype is pt with fingerprint fp: a live prototype's bytecode does not
 * change, so the PC gives the same line. stack_generation is the stack
 * table's generation when stack_id was interned for the frames below whose
 * key is stack_key (0: no stack known). */
struct interp_site_entry {
  const BCIns *pc;
  const GCproto *pt;
  uint64_t fp;
  uint64_t line;
  uint64_t stamp;
  uint64_t stack_key;
  uint32_t stack_generation;
  uint32_t stack_id;
};

/* stamp is bumped whenever the symbols a cached site relies on may be
 * missing from the segment: a new segment, a prototype's symbol written
 * again for another prototype at its address. */
struct interp_site_cache {
  uint64_t stamp;
  struct interp_site_entry entry[INTERP_SITE_CACHE_SIZE];
};

static inline void coll_interp_site_void(struct interp_site_cache *cache)
{
  cache->stamp++;
}

/* The interpreter running a Lua function on top of cur_L, outside the
 * recorder: the case in which the full tier's site (site.c, frame_site) is
 * that function's prototype at the PC saved in its C frame, and its stack
 * (callstack.c, walk_code) that line over the callers of L->base - 1. Sets
 * *L, *pc and *pt and returns 1; else 0. */
static inline __attribute__((always_inline)) int coll_interp_site_running(global_State *g, lua_State **L,
                                                                          const BCIns **pc,
                                                                          const GCproto **pt)
{
  if (g->vmstate != ~LJ_VMST_INTERP)
    return 0;
#if LJ_HASJIT
  if (G2J(g)->state != LJ_TRACE_IDLE)
    return 0;
#endif
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD)
    return 0;
  lua_State *th = &o->th;
  if (mref(th->glref, global_State) != g || !coll_attrib_base_has_function(th, th->base))
    return 0;
  GCfunc *fn = frame_func(th->base - 1);
  if (!isluafunc(fn))
    return 0;
  const GCproto *p = funcproto(fn);
  void *cf = cframe_raw(th->cframe);
  if (!p || p->gct != ~LJ_TPROTO || cf == NULL || (char *)cframe_pc(cf) == (char *)cframe_L(cf))
    return 0;
  *L = th;
  *pc = cframe_pc(cf);
  *pt = p;
  return 1;
}

static inline struct interp_site_entry *coll_interp_site_slot(struct interp_site_cache *cache,
                                                              const BCIns *pc)
{
  uintptr_t a = (uintptr_t)pc;
  return &cache->entry[(a ^ (a >> 10)) / sizeof(BCIns) & (INTERP_SITE_CACHE_SIZE - 1)];
}

/* The cached site of pc in pt, or NULL. */
static inline __attribute__((always_inline)) const struct interp_site_entry *coll_interp_site_find(
  struct interp_site_cache *cache, const BCIns *pc, const GCproto *pt)
{
  const struct interp_site_entry *e = coll_interp_site_slot(cache, pc);
  if (e->pc != pc || e->pt != pt || e->stamp != cache->stamp || e->fp != coll_attrib_proto_fingerprint(pt))
    return NULL;
  return e;
}

/* Keeps the site the full tier found for pc in pt (source LUA, its line),
 * with the stack it interned (stack_key 0: none). */
static inline void coll_interp_site_keep(struct interp_site_cache *cache, const BCIns *pc,
                                         const GCproto *pt, uint64_t line, uint64_t stack_key,
                                         uint32_t stack_generation, uint32_t stack_id)
{
  struct interp_site_entry *e = coll_interp_site_slot(cache, pc);
  *e = (struct interp_site_entry){pc, pt, coll_attrib_proto_fingerprint(pt), line, cache->stamp,
                                  stack_key, stack_key ? stack_generation : 0, stack_id};
}

#endif
