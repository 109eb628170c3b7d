/* collector/symbols.h: the symbols of a segment: each Lua prototype, trace and C function its events name, emitted once before its first event. */
#ifndef LJLEAK_COLLECTOR_SYMBOLS_H
#define LJLEAK_COLLECTOR_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/site.h"
#include "collector/state.h"

/* Forgets what the segment has: a new segment starts with no symbols. */
void coll_symbols_reset(struct coll_capture *c);

void coll_symbols_emit_lua_slow(struct coll_capture *c, const GCproto *pt, uint64_t fp);
void coll_symbols_emit_trace_slow(struct coll_capture *c, uint64_t traceno, GCtrace *T);

/* Emits the symbol of the C function at address unless this segment has
 * it, named as cname.h says (a VM site's pseudo address by its name,
 * attrib.h); the first time in the capture, its library goes to the index
 * (a c_function line). */
void coll_symbols_emit_c(struct coll_capture *c, uint64_t address);

/* Emits pt's symbol unless this segment has it; the prototype of the last
 * event is checked inline. */
static inline void coll_symbols_emit_lua(struct coll_capture *c, const GCproto *pt)
{
  uint64_t fp = coll_attrib_proto_fingerprint(pt);
  if (pt != c->last_proto || fp != c->last_proto_fp)
    coll_symbols_emit_lua_slow(c, pt, fp);
}

#if LJ_HASJIT
/* What tells a trace from a later one that took its number. */
static inline uint64_t coll_symbols_trace_fingerprint(const GCtrace *T)
{
  return ((uint64_t)(uintptr_t)T ^ ((uint64_t)(uintptr_t)mref(T->startpc, const BCIns) << 7) ^
          (uint64_t)(uintptr_t)gcref(T->startpt)) | 1;
}
#endif

/* Emits the symbol of trace T numbered traceno unless this segment has it;
 * the trace of the last event is checked inline. */
static inline void coll_symbols_emit_trace(struct coll_capture *c, uint64_t traceno, GCtrace *T)
{
#if LJ_HASJIT
  if (traceno == c->last_trace && coll_symbols_trace_fingerprint(T) == c->last_trace_fp)
    return;
#endif
  coll_symbols_emit_trace_slow(c, traceno, T);
}

/* The site of the running code for an allocator call (old_ptr, nsize), its
 * symbols emitted first when they are new in this segment: a line of
 * compiled code brings its trace's symbol too, as secondary information
 * (no event names it then). */
static inline __attribute__((always_inline)) void coll_symbols_current_site(struct coll_capture *c,
                                                                            struct attrib_site *site,
                                                                            const void *old_ptr,
                                                                            size_t nsize)
{
  coll_site_current(c->g, &c->lines, old_ptr, nsize, site);
  c->cnames.skip = old_ptr;   /* a walk for a C name must not read a table that held it */
  if (site->trace)
    coll_symbols_emit_trace(c, site->traceno, site->trace);
  if (site->vm)
    coll_symbols_emit_c(c, coll_attrib_event_location(site));   /* the code under it is in the stack */
  else if (site->source == MEMPROF_SOURCE_LUA)
    coll_symbols_emit_lua(c, site->proto);
  else if (site->source == MEMPROF_SOURCE_C)
    coll_symbols_emit_c(c, site->location);
}

#endif
