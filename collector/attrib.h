/* collector/attrib.h: what a site is, and what reading the VM's private state gives it: the lines of a prototype, the frames of a stack, a trace by number, the VM's own work by name. */
#ifndef LJLEAK_COLLECTOR_ATTRIB_H
#define LJLEAK_COLLECTOR_ATTRIB_H

#include <stdint.h>

#include "collector/lj_private.h"
#include "format/memprof.h"

/* The VM's own work, named as a site of its own: what the VM was doing
 * when it allocated for itself. Such a site is a C function in the stream
 * (so that Tarantool's parser reads it) at a pseudo address below any
 * code's, ATTRIB_VM_ADDRESS(work), whose C symbol is its name. Chunks
 * being compiled are not among them: their allocations go to the line that
 * called load, loadstring, loadfile, dofile or require. */
enum attrib_vm {
  ATTRIB_VM_NONE,
  ATTRIB_VM_STRING_TABLE,    /* the string table grows: "VM: string table" */
  ATTRIB_VM_GC,              /* the garbage collector: "VM: GC" */
  ATTRIB_VM_RECORDER,        /* recording a trace: "VM: trace recorder" */
  ATTRIB_VM_COMPILER,        /* optimizing and assembling a trace: "VM: trace compiler" */
  ATTRIB_VM_TRACE_EXIT,      /* restoring a snapshot on a trace exit: "VM: trace exit" */
  ATTRIB_VM_COUNT
};

#define ATTRIB_VM_ADDRESS(work) ((uint64_t)(work) * 16)

/* The name of the VM site at address, or NULL if address is none. */
const char *coll_attrib_vm_name(uint64_t address);

/* Where an allocation comes from. For LUA, proto is the prototype and line
 * the current line; for TRACE, location is the trace's number; for C,
 * location is the function's address. INTERNAL carries nothing. When
 * compiled code allocated, trace and traceno name the trace, whether the
 * site is its line (LUA) or, unresolved, the trace itself (TRACE).
 *
 * When vm is not ATTRIB_VM_NONE, the event's site is that VM site
 * (coll_attrib_event_source, coll_attrib_event_location), and the other fields say
 * what code ran under it (the Lua line, C function or trace the VM worked
 * for; INTERNAL when that is not known): its call stack is the VM's. */
struct coll_trace_line_cached;

struct trace_chain;

struct attrib_site {
  enum memprof_source source;
  uint64_t location;
  uint64_t line;
  GCproto *proto;
  GCtrace *trace;
  uint64_t traceno;
  struct coll_trace_line_cached *cached;  /* compiled code: its resolution (coll_trace_line_count) */
  const struct trace_chain *exit_chain;   /* a trace exit's sunk allocation: its callers in the trace */
  enum attrib_vm vm;
};

/* The source and location an event of site is written with. */
static inline enum memprof_source coll_attrib_event_source(const struct attrib_site *site)
{
  return site->vm ? MEMPROF_SOURCE_C : site->source;
}

static inline uint64_t coll_attrib_event_location(const struct attrib_site *site)
{
  return site->vm ? ATTRIB_VM_ADDRESS(site->vm) : site->location;
}

static inline uint64_t coll_attrib_event_line(const struct attrib_site *site)
{
  return site->vm ? 0 : site->line;
}

/* The line of bytecode position pos in pt (as lj_debug_line), 0 if unknown. */
uint64_t coll_attrib_proto_line(const GCproto *pt, BCPos pos);

/* The line of the instruction before pc in pt (a saved PC points after the
 * instruction that runs, a call's after the call); 0 if pc is not in pt. */
uint32_t coll_attrib_line_before(const GCproto *pt, const BCIns *pc);

/* Whether frame f holds a function object (with two-slot frames, in f-1):
 * the attribution and the stack walk both stop at one that does not. */
static inline int coll_attrib_frame_has_function(cTValue *f)
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
static inline int coll_attrib_base_has_function(const lua_State *L, const TValue *base)
{
  const TValue *stack = tvref(L->stack);
  return stack && base > stack + 1 + LJ_FR2 && base <= stack + L->stacksize &&
         coll_attrib_frame_has_function(base - 1);
}

/* The frame of the Lua function that called the function in frame, from a
 * Lua call or a continuation (a call the JIT stitched to a trace, a
 * metamethod); NULL if none (a C or protected frame, an FFI callback, the
 * bottom). Where a fast function, or a C function's call into the VM, is
 * charged to the calling line. */
static inline TValue *coll_attrib_lua_caller(const lua_State *L, TValue *frame)
{
  TValue *prev;
  if (frame_islua(frame))
    prev = frame_prevl(frame);
  else if (frame_iscont(frame) && !frame_iscont_fficb(frame))
    prev = frame_prevd(frame);
  else
    return NULL;
  if (prev <= tvref(L->stack) + LJ_FR2 || !coll_attrib_frame_has_function(prev) ||
      !isluafunc(frame_func(prev)))
    return NULL;
  return prev;
}

/* Whether the C function running in L called into the VM through a
 * protected call that has no frame of its own (lj_vm_cpcall: lua_load and
 * so the parser, string.dump's writer, ffi.cdef's C parser), while no trace
 * is being recorded (the recorder runs in one too): the VM works for that
 * function's caller. */
static inline int coll_attrib_in_frameless_call(global_State *g, const lua_State *L)
{
  void *cf = cframe_raw(L->cframe);
#if LJ_HASJIT
  if (G2J(g)->state != LJ_TRACE_IDLE)
    return 0;
#else
  (void)g;
#endif
  return cf != NULL && cframe_nres(cf) < 0;
}

/* The Lua function an allocation by the C function in frame is charged to
 * (attrib.c): a fast function's caller; for any C function compiling a
 * chunk (coll_attrib_in_frameless_call), the Lua function below the C frames
 * that called one another (require calls its loader). Its frame, and in
 * *called the frame it called; NULL if none. */
static inline TValue *coll_attrib_charged_caller(global_State *g, const lua_State *L, TValue *frame,
                                                 TValue **called)
{
  TValue *prev = isffunc(frame_func(frame)) ? coll_attrib_lua_caller(L, frame) : NULL;
  if (!prev && coll_attrib_in_frameless_call(g, L)) {
    for (int n = 0; n < 8 && frame_isc(frame); n++) {   /* called by C, not by Lua */
      TValue *below = frame_prevd(frame);
      if (below <= tvref(L->stack) + LJ_FR2 || !coll_attrib_frame_has_function(below) ||
          isluafunc(frame_func(below)))
        return NULL;
      frame = below;
    }
    prev = coll_attrib_lua_caller(L, frame);
  }
  *called = frame;
  return prev;
}

/* Whether this allocation is the string table growing (lj_str_resize,
 * right after a string was interned): the VM's, charged to its own site
 * (ATTRIB_VM_STRING_TABLE) under the stack of the line that interned the
 * string. The table grows with the strings that live (those a leak keeps,
 * say), not with the line that happened to make the one string over its
 * load factor, which would otherwise look like it grows. The count is past
 * the mask by two only inside that call (a string is counted, then the
 * table grows); a table's array of the same size allocated while a resize
 * is refused (during the string sweep) would be charged there too. */
static inline int coll_attrib_string_table_grows(const global_State *g, const void *old_ptr,
                                                 size_t nsize)
{
  return nsize == ((size_t)g->str.mask + 1) * 2 * sizeof(GCRef) && !old_ptr &&
         g->str.num > g->str.mask + 1;
}

/* Whether this allocation is the GC shrinking the string table (at the end
 * of its sweep, when a quarter of it or less is used): its site too. */
static inline int coll_attrib_string_table_shrinks(const global_State *g, const void *old_ptr,
                                                   size_t nsize)
{
  return g->vmstate == ~LJ_VMST_GC && !old_ptr &&
         nsize == ((size_t)(g->str.mask >> 1) + 1) * sizeof(GCRef) &&
         g->str.num <= (g->str.mask >> 2);
}

/* The trace numbered traceno, or NULL if there is none. (Inline: the
 * full-capture hook asks it for every allocation made by a trace.) */
static inline GCtrace *coll_attrib_trace(global_State *g, uint64_t traceno)
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

/* What tells a prototype from a later one at the same address. */
static inline uint64_t coll_attrib_proto_fingerprint(const GCproto *pt)
{
  uint64_t fp = (uint64_t)(uintptr_t)gcref(pt->chunkname);
  fp ^= ((uint64_t)(uint32_t)pt->firstline << 32) ^ ((uint64_t)pt->sizebc * 0x9e3779b97f4a7c15ull);
  return fp | 1;
}

#endif
