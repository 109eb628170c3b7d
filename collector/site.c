/* collector/site.c: the site of the allocator call being made: the interpreter's frames, a trace (and its line), the recorder, the VM's own work (site.h). */
#include "collector/site.h"

#include <stddef.h>

#include "collector/trace_line.h"

/* Invalid bytecode position. */
#define SITE_NO_POS (~(BCPos)0)

/* Bytecode position of ins in pt, undoing the JLOOP patch of lj_trace_exit
 * (the PC then points into a trace's startins); SITE_NO_POS if unusable. */
static BCPos proto_pos_of(global_State *g, GCproto *pt, const BCIns *ins)
{
  if (!ins)
    return SITE_NO_POS;
  BCPos pos = proto_bcpos(pt, ins) - 1;
  if (pos <= pt->sizebc)
    return pos;
#if LJ_HASJIT
  const GCtrace *T = (const GCtrace *)(const void *)((const char *)(ins - 1) -
                                                     offsetof(GCtrace, startins));
  /* Only trust it if the trace table says this really is a live trace. */
  jit_State *J = G2J(g);
  for (MSize n = 1; n < J->sizetrace && J->trace; n++) {
    if ((const GCtrace *)gcref(J->trace[n]) == T) {
      if (gcref(T->startpt) != obj2gco(pt))
        return SITE_NO_POS;
      pos = proto_bcpos(pt, mref(T->startpc, const BCIns));
      return pos < pt->sizebc ? pos : SITE_NO_POS;
    }
  }
#else
  (void)g;
#endif
  return SITE_NO_POS;
}

/* The current line of the Lua function fn in frame; nextframe is the frame
 * above it (NULL when fn is on top, its PC then is in the C frame). */
static int lua_frame_site(global_State *g, lua_State *L, GCfunc *fn, cTValue *nextframe,
                          struct attrib_site *site)
{
  const BCIns *ins;
  GCproto *pt = funcproto(fn);
  if (!pt || pt->gct != ~LJ_TPROTO)
    return -1;
  if (nextframe == NULL) {
    void *cf = cframe_raw(L->cframe);
    if (cf == NULL || (char *)cframe_pc(cf) == (char *)cframe_L(cf))
      return -1;
    ins = cframe_pc(cf);
  } else if (frame_islua(nextframe)) {
    ins = frame_pc(nextframe);
  } else if (frame_iscont(nextframe)) {
    ins = frame_contpc(nextframe);
  } else {
    return -1;
  }
  BCPos pos = proto_pos_of(g, pt, ins);
  if (pos == SITE_NO_POS)
    return -1;
  site->source = MEMPROF_SOURCE_LUA;
  site->proto = pt;
  site->location = (uint64_t)(uintptr_t)pt;
  site->line = coll_attrib_proto_line(pt, pos);
  return 0;
}


/* Attribution through cur_L's frames: the interpreter and C functions,
 * and the interpreter running a bytecode it records or a trace compiled. */
static void frame_site(global_State *g, struct attrib_site *site)
{
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD)
    return;
  lua_State *L = &o->th;
  if (mref(L->glref, global_State) != g)
    return;
  if (!coll_attrib_base_has_function(L, L->base))
    return;
  TValue *frame = L->base - 1;
  GCfunc *fn = frame_func(frame);
  if (isluafunc(fn)) {
    lua_frame_site(g, L, fn, NULL, site);
    return;
  }
  /* A fast function called from Lua, or a C function whose call into the
   * VM compiles a chunk (require, a C module's own loader): the calling
   * line. */
  TValue *called;
  TValue *prev = coll_attrib_charged_caller(g, L, frame, &called);
  if (prev && lua_frame_site(g, L, frame_func(prev), called, site) == 0)
    return;
  /* A C function (or a fast function not called from Lua). */
  site->source = MEMPROF_SOURCE_C;
  site->location = (uint64_t)(uintptr_t)fn->c.f;
}

/* Compiled code running trace T: the line its call came from, or the trace
 * itself. */
static void trace_site(global_State *g, struct trace_line_state *tl, GCtrace *T,
                       struct attrib_site *site)
{
  struct coll_trace_line_cached *e = coll_trace_line_cached(tl, g, T);
  if (!e)
    e = coll_trace_line_resolve(tl, g, T);
  site->trace = T;
  site->traceno = T->traceno;
  site->cached = e;
  if (e->line) {
    site->source = MEMPROF_SOURCE_LUA;
    site->proto = (GCproto *)e->pt;
    site->location = (uint64_t)(uintptr_t)e->pt;
    site->line = e->line;
  } else {
    site->source = MEMPROF_SOURCE_TRACE;
    site->location = T->traceno;
  }
}

/* Whether the trace recorder runs (in its own protected C frame, which
 * lj_vm_cpcall marks with a negative result count): its allocations are
 * the VM's, whatever function is on top of the stack. Its vmstate is
 * RECORD, or C once a "record" event handler returned. */
static int in_recorder(global_State *g)
{
#if LJ_HASJIT
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD)
    return 0;
  void *cf = cframe_raw(o->th.cframe);
  return G2J(g)->state != LJ_TRACE_IDLE && (cf == NULL || cframe_nres(cf) < 0);
#else
  (void)g;
  return 0;
#endif
}

/* The recorder and the compiler run in a protected call of their own,
 * whose C frame holds no PC: the Lua function on top is the one recorded
 * (J->fn), at the bytecode last recorded (J->pc). */
static void recorded_site(global_State *g, struct attrib_site *site)
{
  frame_site(g, site);
#if LJ_HASJIT
  jit_State *J = G2J(g);
  GCobj *o = gcref(g->cur_L);
  if (site->source != MEMPROF_SOURCE_INTERNAL || !J->fn || !J->pt || !o ||
      o->gch.gct != ~LJ_TTHREAD || !coll_attrib_base_has_function(&o->th, o->th.base) ||
      frame_func(o->th.base - 1) != J->fn || funcproto(J->fn) != J->pt)
    return;
  BCPos pos = proto_bcpos(J->pt, J->pc);
  if (pos >= J->pt->sizebc)
    return;
  site->source = MEMPROF_SOURCE_LUA;
  site->proto = J->pt;
  site->location = (uint64_t)(uintptr_t)J->pt;
  site->line = coll_attrib_proto_line(J->pt, pos);
#endif
}

void coll_site_current(global_State *g, struct trace_line_state *tl, const void *old_ptr,
                         size_t nsize, struct attrib_site *site)
{
  site->source = MEMPROF_SOURCE_INTERNAL;
  site->location = 0;
  site->line = 0;
  site->proto = NULL;
  site->trace = NULL;
  site->traceno = 0;
  site->cached = NULL;
  site->exit_chain = NULL;
  site->vm = ATTRIB_VM_NONE;
  int32_t vmstate = g->vmstate;
  if (vmstate > 0) {
    GCtrace *T = coll_attrib_trace(g, (uint64_t)vmstate);
    if (T)
      trace_site(g, tl, T, site);
  } else if (vmstate == ~LJ_VMST_EXIT) {
    /* A trace exit materialising sunk allocations (docs/collector.md). */
    const GCproto *pt;
    if (nsize != 0 && coll_trace_line_exit_site(tl, g, old_ptr, &pt, &site->line, &site->exit_chain)) {
      site->source = MEMPROF_SOURCE_LUA;
      site->proto = (GCproto *)pt;
      site->location = (uint64_t)(uintptr_t)pt;
      return;
    }
    site->vm = ATTRIB_VM_TRACE_EXIT;   /* the stack being restored: no frames read */
  } else if (vmstate == ~LJ_VMST_OPT || vmstate == ~LJ_VMST_ASM) {
    site->vm = ATTRIB_VM_COMPILER;   /* at the end of a recording, in its protected call */
    recorded_site(g, site);
  } else if (vmstate == ~LJ_VMST_GC) {
    site->vm = ATTRIB_VM_GC;
    if (!mref(g->jit_base, void))   /* not a step called by compiled code: the frames are whole */
      frame_site(g, site);
  } else if (in_recorder(g)) {
    site->vm = ATTRIB_VM_RECORDER;
    recorded_site(g, site);
  } else if (vmstate == ~LJ_VMST_INTERP || vmstate == ~LJ_VMST_C || vmstate == ~LJ_VMST_RECORD) {
    frame_site(g, site);
  }
  if (coll_attrib_string_table_grows(g, old_ptr, nsize) || coll_attrib_string_table_shrinks(g, old_ptr, nsize))
    site->vm = ATTRIB_VM_STRING_TABLE;
  if (nsize == 0 && site->vm != ATTRIB_VM_NONE) {
    /* A free is charged to whoever frees: the VM's are INTERNAL. */
    site->source = MEMPROF_SOURCE_INTERNAL;
    site->location = 0;
    site->line = 0;
    site->proto = NULL;
    site->trace = NULL;
    site->cached = NULL;
    site->vm = ATTRIB_VM_NONE;
  }
}
