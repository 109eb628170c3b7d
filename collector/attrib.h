/* collector/attrib.h: which site made an allocation, from the VM's private state. */
#ifndef LJLEAK_COLLECTOR_ATTRIB_H
#define LJLEAK_COLLECTOR_ATTRIB_H

#include <stdint.h>

#include "collector/lj_private.h"
#include "collector/trace_line.h"
#include "format/memprof.h"

/* Where an allocation comes from. For LUA, proto is the prototype and line
 * the current line; for TRACE, location is the trace's number; for C,
 * location is the function's address. INTERNAL carries nothing. When
 * compiled code allocated, trace and traceno name the trace, whether the
 * site is its line (LUA) or, unresolved, the trace itself (TRACE). */
struct attrib_site {
  enum memprof_source source;
  uint64_t location;
  uint64_t line;
  GCproto *proto;
  GCtrace *trace;
  uint64_t traceno;
  struct trace_line_cached *cached;  /* compiled code: its resolution (trace_line_count) */
};

/* Fills site for an allocator call happening now in the VM of g (old_ptr
 * and nsize are the call's: a free gets no line from a trace exit). Reads
 * only private state, never calls the Lua API, never allocates through the
 * VM (a trace's first allocation builds its map from mmap'd memory);
 * anything inconsistent gives INTERNAL. */
void attrib_current_site(global_State *g, struct trace_line_state *tl, const void *old_ptr,
                         size_t nsize, struct attrib_site *site);

/* The line of bytecode position pos in pt (as lj_debug_line), 0 if unknown. */
uint64_t attrib_proto_line(const GCproto *pt, BCPos pos);

/* The line of the instruction before pc in pt (a saved PC points after the
 * instruction that runs, a call's after the call); 0 if pc is not in pt. */
uint32_t attrib_line_before(const GCproto *pt, const BCIns *pc);

/* Whether frame f holds a function object (with two-slot frames, in f-1):
 * the attribution and the stack walk both stop at one that does not. */
static inline int attrib_frame_has_function(cTValue *f)
{
#if LJ_FR2
  if (!tvisfunc(f - 1))
    return 0;
#endif
  GCobj *o = frame_gc(f);
  return o && o->gch.gct == ~LJ_TFUNC;
}

/* Whether base lies inside L's stack above its bottom frame and the frame
 * below it holds a function: where the attribution and the stack walk
 * start (L->base, or a trace's g->jit_base). */
static inline int attrib_base_has_function(const lua_State *L, const TValue *base)
{
  const TValue *stack = tvref(L->stack);
  return stack && base > stack + 1 + LJ_FR2 && base <= stack + L->stacksize &&
         attrib_frame_has_function(base - 1);
}

/* Whether this allocation is the string table growing (lj_str_resize,
 * right after a string was interned): the VM's, charged INTERNAL. The
 * table grows with the strings that live (those a leak keeps, say), not
 * with the line that happened to make the one string over its load
 * factor, which would otherwise look like it grows. The count is past the
 * mask by two only inside that call (a string is counted, then the table
 * grows); a table's array of the same size allocated while a resize is
 * refused (during the string sweep) would be charged INTERNAL too. */
static inline int attrib_string_table_grows(const global_State *g, const void *old_ptr,
                                            size_t nsize)
{
  return nsize == ((size_t)g->str.mask + 1) * 2 * sizeof(GCRef) && !old_ptr &&
         g->str.num > g->str.mask + 1;
}

/* The trace numbered traceno, or NULL if there is none. (Inline: the
 * full-capture hook asks it for every allocation made by a trace.) */
static inline GCtrace *attrib_trace(global_State *g, uint64_t traceno)
{
#if LJ_HASJIT
  jit_State *J = G2J(g);
  if (traceno == 0 || traceno >= J->sizetrace || !J->trace)
    return NULL;
  GCtrace *T = (GCtrace *)gcref(J->trace[traceno]);
  if (!T || T->traceno != traceno)
    return NULL;
  return T;
#else
  (void)g;
  (void)traceno;
  return NULL;
#endif
}

#endif
