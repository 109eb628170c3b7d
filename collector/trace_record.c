/* collector/trace_record.c: follows the JIT's recorder through LuaJIT's "record" event: for each IR instruction that may allocate, the bytecode it was recorded for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/attrib.h"
#include "collector/cname.h"
#include "collector/trace_line.h"
#include "collector/trace_map.h"
#include "collector/trace_record.h"
#include "lauxlib.h"
#include "lj_ircall.h"

/* The callers of the bytecode about to be recorded, inside the trace: the
 * J->framedepth frames below its frame on the Lua stack, which the
 * interpreter has (the handler runs above them, called by lj_vmevent_send
 * in a protected frame). Its index + 1 in the log's chains (the last one
 * again when equal), or 0. */
static uint32_t record_chain(struct trace_log *log, jit_State *J, lua_State *L)
{
  struct trace_chain chain;
  memset(&chain, 0, sizeof chain);
  if (J->framedepth < 0)
    log->below_start = 1;
  chain.valid = !log->below_start && J->framedepth <= TRACE_CHAIN_MAX;
  TValue *stack = tvref(L->stack);
  TValue *frame = L->base - 1;      /* the handler's own frame */
  if (frame_islua(frame) || frame_iscont(frame))
    chain.valid = 0;
  else
    frame = frame_prevd(frame);     /* the recorded function's */
  if (frame <= stack + LJ_FR2 || frame_func(frame) != J->fn)
    chain.valid = 0;
  TValue *recorded = frame;
  for (int32_t d = 0; chain.valid && d < J->framedepth; d++) {
    const BCIns *pc;
    if (frame_islua(frame)) {
      pc = frame_pc(frame);
      frame = frame_prevl(frame);
    } else if (frame_iscont(frame) && d + 1 < J->framedepth) {
      /* a metamethod the trace called (an __index function): the recorder counts its
       * continuation as a frame of its own (lj_record.c, rec_mm_prep) */
      pc = frame_contpc(frame);
      frame = frame_prevd(frame);
      d++;
    } else if (frame_ispcall(frame) && d + 1 < J->framedepth && chain.count + 2 <= TRACE_CHAIN_MAX &&
               frame_prevd(frame) > stack + LJ_FR2 && isffunc(frame_func(frame_prevd(frame))) &&
               frame_islua(frame_prevd(frame))) {
      /* a function pcall called, and pcall's own frame below it: two frames to the recorder
       * too (lj_ffrecord.c, recff_pcall) */
      frame = frame_prevd(frame);
      d++;
      chain.callers[chain.count++] = (struct trace_map_line){NULL, frame_func(frame)->c.ffid + 1u, 0};
      pc = frame_pc(frame);
      frame = frame_prevl(frame);
    } else {
      chain.valid = 0;
      break;
    }
    GCfunc *fn = frame > stack + LJ_FR2 ? frame_func(frame) : NULL;
    if (!fn || !isluafunc(fn) || chain.count == TRACE_CHAIN_MAX) {
      chain.valid = 0;
      break;
    }
    const GCproto *pt = funcproto(fn);
    chain.callers[chain.count++] = (struct trace_map_line){pt, coll_attrib_line_before(pt, pc), 0};
  }
  /* The walk ends at the trace's first frame, whose base the recorded function's is
   * J->baseslot - 1 - LJ_FR2 slots above (the recorder's slots are the stack's) */
  if (chain.valid && frame != recorded - (J->baseslot - 1 - LJ_FR2))
    chain.valid = 0;
  if (!chain.valid)
    memset(&chain, 0, sizeof chain);
  if (log->nchains && memcmp(&log->chains[log->nchains - 1], &chain, sizeof chain) == 0)
    return log->nchains;
  if ((log->nchains + 1) * sizeof chain > log->chains_size) {
    size_t size = log->chains_size ? log->chains_size * 2 : 4096;
    void *p = log->chains ? mremap(log->chains, log->chains_size, size, MREMAP_MAYMOVE)
                          : coll_trace_log_pages(size);
    if (p == MAP_FAILED || !p)
      return 0;
    log->chains = p;
    log->chains_size = size;
  }
  log->chains[log->nchains++] = chain;
  return log->nchains;
}

/* A new recording began: the last one's log goes to its trace number, and
 * whatever was known of the new one's number is stale (it was free). */
static void recording_begins(struct trace_line_state *tl, jit_State *J)
{
  struct trace_log *old = tl->pending;
  tl->pending = NULL;
  if (old && !tl->pending_used) {
    struct coll_trace_line_slot *s = coll_trace_line_slot(tl, old->traceno);
    if (s) {
      coll_trace_log_free(s->log);
      s->log = old;
      old = NULL;
    }
  }
  coll_trace_log_free(old);
  tl->pending_used = 0;
  struct coll_trace_line_slot *s = coll_trace_line_slot(tl, J->cur.traceno);
  if (s)
    coll_trace_line_slot_clear(tl, s);
  struct trace_log *log = coll_trace_log_new();
  if (!log)
    return;
  GCobj *start = gcref(J->cur.startpt);
  log->traceno = J->cur.traceno;
  log->parent = J->parent;
  log->exitno = J->exitno;
  log->startpt = start ? &start->pt : NULL;
  log->startpc = mref(J->cur.startpc, const BCIns);
  log->first_nins = log->last_nins = J->cur.nins;
  log->last_nk = J->cur.nk;
  tl->pending = log;
}

/* Whether J records another trace than the pending log's. A recording's
 * constants only grow (nk falls) and its IR only grows, except for a
 * rollback, which never reaches back before its first bytecode. */
static int recording_is_new(const struct trace_log *log, jit_State *J)
{
  GCobj *start = gcref(J->cur.startpt);
  return !log || log->traceno != J->cur.traceno || log->parent != J->parent ||
         log->exitno != J->exitno || log->startpt != (start ? &start->pt : NULL) ||
         log->startpc != mref(J->cur.startpc, const BCIns) || J->cur.nk > log->last_nk ||
         J->cur.nins < log->first_nins;
}

/* One recorded bytecode: the IR emitted since the last one is the last
 * bytecode's. A fast function (no prototype) is charged to the Lua
 * bytecode that called it, as the interpreter charges it. */
static void record_step(struct trace_line_state *tl, jit_State *J, lua_State *L)
{
  if (recording_is_new(tl->pending, J)) {
    recording_begins(tl, J);
  } else {
    struct trace_log *log = tl->pending;
    IRRef nins = J->cur.nins;
    if (nins < log->last_nins) {   /* rolled back */
      while (log->n > 0 && log->entries[log->n - 1].ref >= nins)
        log->n--;
      log->last_nins = nins;
    }
    for (IRRef ref = log->last_nins; ref < nins; ref++) {
      const IRIns *ir = &J->cur.ir[ref];
      if (!coll_trace_log_op_logged(ir->o))
        continue;
      if (!(log = coll_trace_log_room(log))) {
        coll_trace_log_free(tl->pending);
        tl->pending = NULL;
        return;
      }
      tl->pending = log;
      log->entries[log->n++] = (struct trace_log_entry){
        .ref = ref, .op = ir->o, .op1 = ir->op1, .op2 = ir->op2,
        .pt = log->attr_pt, .pc = log->attr_pc, .chain = log->attr_chain,
      };
    }
    log->last_nins = nins;
    log->last_nk = J->cur.nk;
  }
  if (tl->pending && J->pt) {
    tl->pending->attr_pt = J->pt;
    tl->pending->attr_pc = J->pc;
    tl->pending->attr_chain = record_chain(tl->pending, J, L);
  }
}

/* The "record" event's handler: (traceno, function, bytecode position,
 * frame depth), sent before each bytecode is recorded. The arguments are
 * checked against the recorder's private state, so that a layout that does
 * not match stops the logs rather than misreading them. */
static int record_event(lua_State *L)
{
  struct trace_line_state *tl = lua_touserdata(L, lua_upvalueindex(1));
  global_State *g = G(L);
  if (!tl || tl->g != g || tl->broken || !tl->ntargets)
    return 0;
  jit_State *J = G2J(g);
  lua_Integer pos = J->pt ? (lua_Integer)proto_bcpos(J->pt, J->pc) : -1;
  if (lua_tointeger(L, 1) != (lua_Integer)J->cur.traceno || lua_tointeger(L, 3) != pos ||
      lua_tointeger(L, 4) != (lua_Integer)J->framedepth) {
    tl->broken = 1;
    return 0;
  }
  record_step(tl, J, L);
  return 0;
}

/* Calls the function on top with n arguments below it, protected; 0 or -1. */
static int call(lua_State *L, int nargs, int nresults)
{
  if (lua_pcall(L, nargs, nresults, 0) != 0) {
    lua_pop(L, 1);
    return -1;
  }
  return 0;
}

/* The IR call targets, from jit.util.ircalladdr; the last index must be
 * the compiled-in IRCALL__MAX (the same list of calls). */
static void load_targets(struct trace_line_state *tl, lua_State *L)
{
  lua_getglobal(L, "require");
  lua_pushstring(L, "jit.util");
  if (!lua_isfunction(L, -2) || call(L, 1, 1) != 0 || !lua_istable(L, -1))
    return;
  lua_getfield(L, -1, "ircalladdr");
  if (!lua_isfunction(L, -1))
    return;
  for (int i = 0; i <= IRCALL__MAX; i++) {
    lua_pushvalue(L, -1);
    lua_pushinteger(L, i);
    if (call(L, 1, 1) != 0)
      return;
    int is_number = lua_type(L, -1) == LUA_TNUMBER;
    uintptr_t address = (uintptr_t)lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (i == IRCALL__MAX ? is_number : !is_number)
      return;
    if (i < IRCALL__MAX)
      tl->targets[i] = (const void *)address;
  }
  if (tl->targets[IRCALL_lj_tab_new1] && tl->targets[IRCALL_lj_buf_tostr] &&
      tl->targets[IRCALL_lj_tab_newkey])
    tl->ntargets = IRCALL__MAX;
}

/* Where jit.attach put the handler on top: its table and key, found by the
 * Lua API (jit.attach hashes the event's name) for coll_trace_line_following. */
static void find_handler(struct trace_line_state *tl, lua_State *L)
{
  int handler = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "_VMEVENTS");
  if (!lua_istable(L, -1))
    return;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TNUMBER && lua_rawequal(L, -1, handler)) {
      tl->handler_table = lua_topointer(L, -3);
      tl->handler = lua_topointer(L, handler);
      tl->handler_key = lua_tonumber(L, -2);
      tl->attached = 1;
    }
    lua_pop(L, 1);
  }
}

void coll_trace_record_attach(struct trace_line_state *tl, lua_State *L)
{
  global_State *g = G(L);
  if (tl->g == g && tl->attached) {
    if (coll_trace_line_following(tl))
      return;
    coll_trace_line_unfollow(tl);   /* replaced: attached again below */
  }
  const char *off = getenv("LJLEAK_TRACE_LINES");
  if (off && (!strcmp(off, "0") || !strcmp(off, "no") || !strcmp(off, "off") ||
              !strcmp(off, "false")))
    return;                   /* every trace keeps its trace site (for measurements) */
  if (tl->g != g) {
    coll_trace_line_forget(tl);
    tl->g = g;
    tl->broken = 0;
  }
  int top = lua_gettop(L);
  if (!tl->ntargets)
    load_targets(tl, L);
  lua_settop(L, top);
  if (!tl->ntargets)
    return;
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "jit");
  if (lua_istable(L, -1)) {
    /* What the VM allocates while it calls the handler (its stack growing)
     * is the recorder's work, not a function of the program. */
    coll_cname_register((uint64_t)(uintptr_t)record_event, "VM: trace recorder");
    lua_pushlightuserdata(L, tl);
    lua_pushcclosure(L, record_event, 1);
    lua_getfield(L, -2, "attach");
    lua_pushvalue(L, -2);
    lua_pushstring(L, "record");
    /* Attached only where the handler is found again in the table. */
    if (lua_isfunction(L, -3) && call(L, 2, 0) == 0)
      find_handler(tl, L);
  }
  lua_settop(L, top);
}
