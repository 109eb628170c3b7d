/* collector/boundary.h: when segments end: full GC cycles seen from the hook, cycles forced at a due boundary, and the timers. */
#ifndef LJLEAK_COLLECTOR_BOUNDARY_H
#define LJLEAK_COLLECTOR_BOUNDARY_H

#include "collector/capture.h"

/* A GC phase change seen by the slow path (phase: capture_gc_phase). Counts
 * the full cycles that ended and cuts a due boundary after one. */
void boundary_gc_transition(struct capture *c, int phase);

/* The timers: the duration, a due boundary (and, with force_gc, the cycle
 * it waits for), the periodic flush. */
void boundary_timers(struct capture *c);

/* Gives the VM its stepmul back after a forced cycle. */
void boundary_force_disarm(struct capture *c);

#endif
