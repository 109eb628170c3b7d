/* collector/boundary.h: when segments end: full GC cycles seen from the hook, cycles forced at a due boundary, and the timers. */
#ifndef LJLEAK_COLLECTOR_BOUNDARY_H
#define LJLEAK_COLLECTOR_BOUNDARY_H

#include "collector/state.h"

/* Whether the program lets its GC run: after collectgarbage("stop") the
 * collector forces no cycle (--force-gc, --every, edge_gc alike). */
static inline int coll_boundary_gc_running(const global_State *g)
{
  return g->gc.threshold != LJ_MAX_MEM;
}

/* A GC phase change seen by the slow path (phase: coll_capture_gc_phase). Counts
 * the full cycles that ended and cuts a due boundary after one. */
void coll_boundary_gc_transition(struct coll_capture *c, int phase);

/* The phase of now seen, as the hook sees it at its next event (coll_boundary_gc_transition
 * when it changed): from outside the hook, with c->busy set. */
void coll_boundary_gc_sync(struct coll_capture *c);

/* The timers: the duration, a due boundary (and, with force_gc, the cycle
 * it waits for), the periodic flush. */
void coll_boundary_timers(struct coll_capture *c);

/* Gives the VM its stepmul back after a forced cycle. */
void coll_boundary_force_disarm(struct coll_capture *c);

/* Asks the VM for a full cycle that starts from now, for cause; its end is a
 * boundary. The VM runs it at its next GC check: nothing runs from here, so
 * the hook may call it. 0, or -1 when the program stopped the GC. */
int coll_boundary_force(struct coll_capture *c, enum capture_index_boundary_cause cause);

/* Runs a full collection now (lua_gc: only outside the hook, from a C
 * function of the VM or from C) and writes the boundary it ends, for cause,
 * with the heap snapshot asked for (snapshot_next). 1 when it ran to its end:
 * a stop may be due then (pending_stop), which the caller takes
 * (coll_capture_requests); 0 when the capture stopped or was not running. */
int coll_boundary_collect(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause);

/* The same in two halves, for a full cycle the caller runs itself between them (in steps, at
 * several safe points: attach.c): begin marks where the segment is and makes the hook leave the
 * cycles that end meanwhile to end (as inside lua_gc); 0 when the capture is not running. end
 * takes the state right after the full cycle and does what coll_boundary_collect does after its
 * lua_gc, with the same answer. */
struct coll_boundary_mark {
  uint64_t seq, events;   /* the segment and its events when the cycle was asked for */
};
int coll_boundary_collect_begin(struct coll_capture *c, struct coll_boundary_mark *mark);
int coll_boundary_collect_end(struct coll_capture *c, lua_State *L,
                              enum capture_index_boundary_cause cause, const struct coll_boundary_mark *mark);

/* Whether the capture is still where its last boundary line put it: the same segment, no event
 * since, the GC in the same phase and white. A full cycle run now would add nothing to it. */
int coll_boundary_fresh(const struct coll_capture *c);

/* A heap snapshot at the last boundary, when it is fresh (coll_boundary_fresh): 0 (a failure to
 * write it is the capture's error and stops it, as in coll_boundary_collect), or -1 when it is not
 * fresh and nothing was done. Outside the hook, from C. */
int coll_boundary_snapshot_here(struct coll_capture *c, lua_State *L);

/* After a snapshot asked for outside the hook: when the last boundary, the request's own, has
 * none (a request nested in its cycle took it at an earlier one), coll_boundary_snapshot_here;
 * else 0. */
int coll_boundary_snapshot_owed(struct coll_capture *c, lua_State *L);

/* At a safe point after a full cycle run in steps (gc_steps.c) ended: the heap snapshot on the
 * boundary the cycle's end wrote, or, when events came since, on one of cause written now (the
 * blocks born since the cycle began are young at it, as at that end; the VM may have begun
 * another cycle, which frees nothing the walk would miss). 0, or
 * -1 when the capture stopped or a stop is due (no snapshot) or the snapshot failed (the
 * capture's error and a stop due, as in coll_boundary_collect). Outside the hook, from C. */
int coll_boundary_after_steps(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause);

/* Writes a boundary line for the state of now: the capture is right after
 * a full cycle (its start, or the end of coll_boundary_collect). */
void coll_boundary_record(struct coll_capture *c, enum capture_index_boundary_cause cause);

/* The snapshots of the middle of a run (state.h, struct coll_snapshot_schedule): the sequencer
 * decides at each boundary that a candidate is due; the layer above arms its safe point, a count
 * hook (safe_point) that runs at the next instruction, where it collects with cause "snapshot". */
void coll_boundary_schedule_arm(struct coll_capture *c, lua_Hook safe_point);

/* The safe point ran or the capture stops: the program gets its own hook back. */
void coll_boundary_schedule_disarm(struct coll_capture *c);

/* The capture stops: the hook is given back, the candidates come down to N, and no values
 * sidecar stays without its snapshot. */
void coll_boundary_schedule_stop(struct coll_capture *c);

/* A stop is due or waits for its last cycle. */
int coll_boundary_stop_coming(const struct coll_capture *c);

#endif
