/* collector/gc_steps.c: a full GC cycle in steps at the VM's safe points instead of one stop for all of it (docs/snapshot-format.md, "When"): the program stands still for a step at a time, and for the snapshot's walk at the end. */
#include "collector/gc_steps.h"

#include <stdint.h>

#include "collector/lj_private.h"
#include "collector/now.h"

/* A step's GC work is at most STEP_BUDGET_NS and the program runs at least STEP_GAP_NS between
 * two: a large heap's cycle ends within a few times its own work, each stall a few ms. Past
 * STEP_HURRY_NS the gap shrinks to STEP_HURRY_GAP_NS (a heap of hundreds of MB in a process that
 * runs Lua now and then, as an nginx worker does), each stall still one step; past STEP_LIMIT_NS
 * the rest of the cycle (not a new one) runs in one go, before ljleak attach's --wait (10 s by
 * default) is over. */
#define STEP_BUDGET_NS UINT64_C(4000000)
#define STEP_GAP_NS UINT64_C(1000000)
#define STEP_HURRY_NS UINT64_C(2000000000)
#define STEP_HURRY_GAP_NS UINT64_C(250000)
#define STEP_LIMIT_NS UINT64_C(6000000000)

static struct {
  int on;                        /* the hook steps a cycle */
  global_State *g;
  uint64_t start_ns;
  uint64_t next_ns;              /* no step before */
  int volume_off;                /* the capture's, put back when the cycle has ended ... */
  int volume_held;               /* ... and not yet */
  int sentinel;                  /* a sentinel (steps_sentinel) waits for its cycle's end */
  int late;                      /* the awaited cycle ended far from a safe point: the next one's
                                  * sweep runs in one go (steps_late) */
  lua_Hook saved_hook;           /* the program's hook, given back at the end */
  int saved_mask, saved_count;
  coll_gc_steps_end end;
} steps;

static void at_step(lua_State *L, lua_Debug *ar);

/* Whether the VM compiles traces (jit.on, the default): its loops then run on them. */
static int steps_jit_on(global_State *g)
{
#if LJ_HASJIT
  return (G2J(g)->flags & JIT_F_ON) != 0;
#else
  (void)g;
  return 0;
#endif
}

static int sentinel_gc(lua_State *L)
{
  (void)L;
  steps.sentinel = 0;
  return 0;
}

/* With the JIT on, a sentinel for the cycle under way or the next: a userdata with a finalizer
 * that does nothing, garbage from birth (with its metatable). A cycle whose sweep leaves a
 * finalizer due ends in the finalizer phase, which never runs on a trace: the trace exits, and
 * the count hook runs right at the cycle's end, where the walk takes no garbage made since. */
static void steps_sentinel(lua_State *L)
{
  if (steps.sentinel || !lua_checkstack(L, 3))
    return;
  lua_newuserdata(L, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, sentinel_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  steps.sentinel = 1;
}

/* Whether the cycle the steps wait for is past its marking (its atomic phase, sweep or
 * finalizers). */
static int steps_last_sweeps(const struct coll_capture *c, const global_State *g)
{
  return c->gc_cycles + 1 == c->steps_until && g->gc.state != GCSpause && g->gc.state != GCSpropagate;
}

/* With the JIT on, whether the awaited cycle ended long before this safe point: a loop that runs
 * compiled reached none since (the sentinel's exit does not always bring one), and the walk
 * would take what it allocated since the last cycle's end, up to a whole cycle's. Then the
 * cycle under way is awaited instead, its sweep run in one go at the first safe point past its
 * marking (the atomic phase never runs on a trace), the walk right after. Once per snapshot. */
static int steps_late(struct coll_capture *c, global_State *g, int jit)
{
  if (steps.late || !jit)
    return 0;
  uint64_t since = c->allocated - c->boundary_allocated;   /* since the last cycle's end */
  if (since <= (uint64_t)g->gc.estimate / 8)
    return 0;
  steps.late = 1;
  c->steps_until = c->gc_cycles + 1;
  return 1;
}

/* Until the next step, the VM takes none of its own (one could end the cycle away from a safe
 * point; then it takes one more), unless its heap grows by a quarter and a MiB first: a program that
 * stays in compiled code reaches no count hook. */
static void steps_hold(global_State *g)
{
  g->gc.threshold = g->gc.total + g->gc.total / 4 + ((GCSize)1 << 20);
}

/* The stepped cycle is over: the program's hook back (unless it set one of its own meanwhile),
 * the capture's settings back, the snapshot when the cycle ended, and the end told. ended: at a
 * safe point, the cycle has ended. */
static void steps_finish(lua_State *L, int ended)
{
  struct coll_capture *c = &coll_capture_state;
  lua_State *main = mainthread(steps.g);
  if (lua_gethook(main) == at_step)
    lua_sethook(main, steps.saved_hook, steps.saved_mask, steps.saved_count);
  steps.on = 0;
  if (steps.volume_held)
    c->volume_off = steps.volume_off;
  steps.volume_held = 0;
  enum capture_index_boundary_cause cause = c->steps_cause;
  c->steps_cause = (enum capture_index_boundary_cause)0;
  if (!ended && steps.g->gc.threshold != LJ_MAX_MEM)
    steps.g->gc.threshold = steps.g->gc.total;   /* its own steps again, from the next check */
  steps.end(L, ended && coll_boundary_after_steps(c, L, cause) == 0);
}

/* The capture sees the GC's phase now, as it would at its next event: a cycle that ended (in a
 * step of ours, in the VM's own on compiled code, which reaches no count hook, or in the
 * program's collectgarbage()) is counted, and is a boundary as it would be without the steps. */
static int steps_ended(struct coll_capture *c)
{
  int busy = c->busy;
  c->busy = 1;
  coll_boundary_gc_sync(c);
  c->busy = busy;
  return c->gc_cycles >= c->steps_until;
}

/* The count hook while the cycle runs: a step of GC work, or the end. */
static void at_step(lua_State *L, lua_Debug *ar)
{
  struct coll_capture *c = &coll_capture_state;
  (void)ar;
  if (!steps.on || G(L) != steps.g)
    return;
  global_State *g = steps.g;
  if (!c->active || c->g != g || g->gc.threshold == LJ_MAX_MEM) {
    steps_finish(L, 0);   /* the capture stopped, or the program stopped its GC */
    return;
  }
  /* A scheduled snapshot's cycle with the JIT on (below, and steps_late). */
  int jit = c->steps_cause == CAPTURE_INDEX_CAUSE_SNAPSHOT && steps_jit_on(g);
  /* A cycle that ended in the VM's own step (on compiled code, or in the program's
   * collectgarbage()) is taken at the first safe point after it, even when the VM began another
   * since (coll_boundary_after_steps). */
  if (steps_ended(c) && !steps_late(c, g, jit)) {
    steps_finish(L, 1);
    return;
  }
  uint64_t now = coll_now_mono_ns();
  int sweeping = steps_last_sweeps(c, g);
  /* With the JIT on, compiled code reaches no count hook: the VM's own steps would end the
   * cycle on a trace, and the walk would wait for the next safe point and take the garbage made
   * meanwhile (a loop's, up to twice the live heap). A sentinel (steps_sentinel) makes the
   * cycle's end a trace exit; without one, once the marking is done (the atomic phase never
   * runs on a trace: the trace exits first, and this hook comes right after), the sweep runs in
   * one go here, and the walk follows in the same stop. */
  int finish = sweeping && jit && (!steps.sentinel || steps.late);
  if (!finish && now < steps.next_ns)
    return;
  /* Past the limit, no budget: what remains of the cycle, where a full collection would finish
   * it and run a whole one more (the heap's work twice, in one stop). */
  uint64_t budget = finish || now - steps.start_ns >= STEP_LIMIT_NS ? UINT64_MAX : STEP_BUDGET_NS;
  int ended = 0;
  while (!ended && coll_now_mono_ns() - now < budget)
    if (lua_gc(L, LUA_GCSTEP, 0) == 1)
      ended = steps_ended(c);
  if (ended) {
    steps_finish(L, 1);   /* the last step set the VM's next threshold */
    return;
  }
  sweeping = steps_last_sweeps(c, g);
  if (jit && steps.sentinel && sweeping)
    g->gc.threshold = g->gc.total;   /* the VM sweeps at its own pace; the sentinel ends it here */
  else
    steps_hold(g);
  if (jit) {
    int busy = c->busy;   /* the sentinel is the collector's: no event charges it to the program */
    c->busy = 1;
    steps_sentinel(L);
    c->busy = busy;
  }
  /* What the program allocates while the last cycle sweeps survives it, and the walk would take
   * it all: the program runs less between the sweep's steps (with the JIT on, between those it
   * interprets). */
  steps.next_ns = coll_now_mono_ns() + (sweeping || now - steps.start_ns >= STEP_HURRY_NS ? STEP_HURRY_GAP_NS
                                                                                          : STEP_GAP_NS);
}

int coll_gc_steps_begin(lua_State *L, int count, enum capture_index_boundary_cause cause, coll_gc_steps_end end)
{
  struct coll_capture *c = &coll_capture_state;
  global_State *g = G(L);
  if (steps.on || !c->active || c->g != g)
    return -1;
  lua_State *main = mainthread(g);
  steps.saved_hook = lua_gethook(main);
  steps.saved_mask = lua_gethookmask(main);
  steps.saved_count = lua_gethookcount(main);
  steps.g = g;
  steps_ended(c);   /* the cycles ended so far, counted */
  steps.on = 1;
  c->steps_until = c->gc_cycles + (g->gc.state == GCSpause ? 1 : 2);
  steps.start_ns = coll_now_mono_ns();
  steps.next_ns = 0;
  steps.late = 0;
  c->steps_cause = cause;
  steps.end = end;
  /* No boundary forced for the volume while the cycle runs: it would run the rest in one step. */
  steps.volume_off = c->volume_off;
  steps.volume_held = 1;
  c->volume_off = 1;
  steps_hold(g);
  lua_sethook(main, at_step, LUA_MASKCOUNT, count);
  /* The first step now: a loop that runs compiled may reach no count hook for long, and a small
   * heap's cycle ends within one step. */
  at_step(L, NULL);
  return 0;
}

int coll_gc_steps_running(void)
{
  return steps.on;
}

void coll_gc_steps_watch(struct coll_capture *c)
{
  if (!steps.on || c->g != steps.g)
    return;
  if (lua_gethook(mainthread(steps.g)) != at_step) {
    steps_finish(mainthread(steps.g), 0);
  } else if (steps.volume_held && c->gc_cycles >= c->steps_until) {
    /* The cycle ended on compiled code, which may reach no safe point for long: the volume's
     * boundaries come again meanwhile. */
    c->volume_off = steps.volume_off;
    steps.volume_held = 0;
  }
}

void coll_gc_steps_cancel(struct coll_capture *c)
{
  if (steps.on && c->g == steps.g)
    steps_finish(mainthread(steps.g), 0);
}
