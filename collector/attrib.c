/* collector/attrib.c: attributes an allocation to a Lua line, a trace, a C function or INTERNAL. */
#include "collector/attrib.h"

#include <stddef.h>

/* Invalid bytecode position. */
#define ATTRIB_NO_POS (~(BCPos)0)

uint64_t attrib_proto_line(const GCproto *pt, BCPos pos)
{
  const void *lineinfo = proto_lineinfo(pt);
  if (pos > pt->sizebc || !lineinfo)
    return 0;
  BCLine first = pt->firstline;
  if (pos == pt->sizebc)
    return (uint64_t)(first + pt->numline);
  if (pos == 0)
    return (uint64_t)first;
  pos--;
  if (pt->numline < 256)
    return (uint64_t)(first + (BCLine)((const uint8_t *)lineinfo)[pos]);
  if (pt->numline < 65536)
    return (uint64_t)(first + (BCLine)((const uint16_t *)lineinfo)[pos]);
  return (uint64_t)(first + (BCLine)((const uint32_t *)lineinfo)[pos]);
}

uint32_t attrib_line_before(const GCproto *pt, const BCIns *pc)
{
  if (!pc || pc <= proto_bc(pt) || pc > proto_bc(pt) + pt->sizebc)
    return 0;
  return (uint32_t)attrib_proto_line(pt, proto_bcpos(pt, pc) - 1);
}

/* Bytecode position of ins in pt, undoing the JLOOP patch of lj_trace_exit
 * (the PC then points into a trace's startins); ATTRIB_NO_POS if unusable. */
static BCPos proto_pos_of(global_State *g, GCproto *pt, const BCIns *ins)
{
  if (!ins)
    return ATTRIB_NO_POS;
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
        return ATTRIB_NO_POS;
      pos = proto_bcpos(pt, mref(T->startpc, const BCIns));
      return pos < pt->sizebc ? pos : ATTRIB_NO_POS;
    }
  }
#else
  (void)g;
#endif
  return ATTRIB_NO_POS;
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
  if (pos == ATTRIB_NO_POS)
    return -1;
  site->source = MEMPROF_SOURCE_LUA;
  site->proto = pt;
  site->location = (uint64_t)(uintptr_t)pt;
  site->line = attrib_proto_line(pt, pos);
  return 0;
}

/* Whether the trace recorder runs (in its own protected C frame, which
 * lj_vm_cpcall marks with a negative result count): its allocations are
 * the VM's, whatever function is on top of the stack. Its vmstate is
 * RECORD, or C once a "record" event handler returned. */
static int in_recorder(global_State *g, lua_State *L)
{
#if LJ_HASJIT
  void *cf = cframe_raw(L->cframe);
  return G2J(g)->state != LJ_TRACE_IDLE && (cf == NULL || cframe_nres(cf) < 0);
#else
  (void)g;
  (void)L;
  return 0;
#endif
}

/* Attribution through cur_L's frames: the interpreter and C functions,
 * and the interpreter running a bytecode it has just recorded. */
static void frame_site(global_State *g, struct attrib_site *site)
{
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD)
    return;
  lua_State *L = &o->th;
  if (mref(L->glref, global_State) != g || in_recorder(g, L))
    return;
  if (!attrib_base_has_function(L, L->base))
    return;
  TValue *stack = tvref(L->stack);
  TValue *frame = L->base - 1;
  GCfunc *fn = frame_func(frame);
  if (isluafunc(fn)) {
    lua_frame_site(g, L, fn, NULL, site);
    return;
  }
  if (isffunc(fn)) {
    /* A fast function called from Lua: the calling line. */
    if (!frame_islua(frame))
      return;
    TValue *prev = frame_prevl(frame);
    if (prev <= stack + LJ_FR2 || !attrib_frame_has_function(prev))
      return;
    GCfunc *pfn = frame_func(prev);
    if (isluafunc(pfn)) {
      lua_frame_site(g, L, pfn, frame, site);
      return;
    }
  }
  /* A C function (or a fast function not called from Lua). */
  site->source = MEMPROF_SOURCE_C;
  site->location = (uint64_t)(uintptr_t)fn->c.f;
}

void attrib_current_site(global_State *g, struct trace_line_state *tl, const void *old_ptr,
                         size_t nsize, struct attrib_site *site)
{
  site->source = MEMPROF_SOURCE_INTERNAL;
  site->location = 0;
  site->line = 0;
  site->proto = NULL;
  site->trace = NULL;
  site->traceno = 0;
  site->cached = NULL;
  if (attrib_string_table_grows(g, old_ptr, nsize))
    return;
  int32_t vmstate = g->vmstate;
  if (vmstate > 0) {
    GCtrace *T = attrib_trace(g, (uint64_t)vmstate);
    if (T) {
      /* The line the trace's call came from, or the trace itself. */
      struct trace_line_cached *e = trace_line_cached(tl, g, T);
      if (!e)
        e = trace_line_resolve(tl, g, T);
      site->trace = T;
      site->traceno = (uint64_t)vmstate;
      site->cached = e;
      if (e->line) {
        site->source = MEMPROF_SOURCE_LUA;
        site->proto = (GCproto *)e->pt;
        site->location = (uint64_t)(uintptr_t)e->pt;
        site->line = e->line;
      } else {
        site->source = MEMPROF_SOURCE_TRACE;
        site->location = (uint64_t)vmstate;
      }
    }
    return;
  }
  if (vmstate == ~LJ_VMST_EXIT) {
    /* A trace exit materialising sunk allocations (docs/collector.md). */
    const GCproto *pt;
    if (nsize != 0 && trace_line_exit_site(tl, g, old_ptr, &pt, &site->line)) {
      site->source = MEMPROF_SOURCE_LUA;
      site->proto = (GCproto *)pt;
      site->location = (uint64_t)(uintptr_t)pt;
    }
    return;
  }
  if (vmstate == ~LJ_VMST_INTERP || vmstate == ~LJ_VMST_C || vmstate == ~LJ_VMST_RECORD)
    frame_site(g, site);
}
