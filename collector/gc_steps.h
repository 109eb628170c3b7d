/* collector/gc_steps.h: a full GC cycle run in steps at the VM's safe points, whose end is a boundary with a heap snapshot (ljleak attach --snapshot, the snapshots of the middle of a run). */
#ifndef LJLEAK_COLLECTOR_GC_STEPS_H
#define LJLEAK_COLLECTOR_GC_STEPS_H

#include "collector/boundary.h"
#include "collector/state.h"

/* What ends a stepped cycle, at a safe point: snapshot is 1 when the cycle ran to its end and
 * the heap snapshot was taken at its boundary (coll_boundary_after_steps); 0 when it did not
 * (the capture stopped or a stop is due, the program stopped its GC or set a debug hook of its
 * own, a collection of the collector's own superseded it, or the snapshot failed: c->error).
 * The program's hook is back by then. A 0 may come from the allocator hook
 * (coll_gc_steps_watch): it must run no Lua and no collection. */
typedef void (*coll_gc_steps_end)(lua_State *L, int snapshot);

/* Starts a full cycle of the running capture in steps: a count hook every count instructions
 * (the program's own hook, if any, is given back at the end), none longer than a few ms and
 * the VM taking none of its own meanwhile (but, for a snapshot's cycle with the JIT on, the
 * sweep, whose end a sentinel's finalizer makes a trace exit: docs/snapshot-format.md). Every cycle that ends meanwhile is a boundary, as
 * without the steps; at the safe point where the first that began after this call has ended,
 * the snapshot is taken (on a boundary of cause written there first, when events came since
 * the cycle's end) and end runs. 0, or -1 when the capture is not L's or a cycle is stepped
 * already (nothing started). */
int coll_gc_steps_begin(lua_State *L, int count, enum capture_index_boundary_cause cause, coll_gc_steps_end end);

/* Whether a stepped cycle runs. */
int coll_gc_steps_running(void);

/* From the timers: a stepped cycle whose count hook the program replaced (debug.sethook) ends,
 * with no snapshot; the cycle under way ends as the program's own. */
void coll_gc_steps_watch(struct coll_capture *c);

/* The capture stops, or a collection of the collector's own runs now: a stepped cycle ends
 * first, with no snapshot. */
void coll_gc_steps_cancel(struct coll_capture *c);

#endif
