/* collector/boundary.c: when segments end: full GC cycles seen from the hook, cycles forced at a due boundary, and the timers. */
#include <string.h>

#include "collector/boundary.h"
#include "collector/segments.h"

/* Whether the open segment has run its period or reached its size. */
static void boundary_check(struct capture *c, uint64_t now)
{
  if (!c->boundary_due &&
      ((c->opt.period > 0 && (double)(now - c->segment_start_ns) >= c->opt.period * 1e9) ||
       (c->opt.max_bytes && c->writer.bytes_written >= c->opt.max_bytes)))
    c->boundary_due = 1;
}

/* --force-gc: a due boundary waits for a full GC cycle that starts after it
 * is due, which the VM runs at its next GC check, in the interpreter or on a
 * trace alike: stepmul 0 makes one GC step run a whole cycle (as
 * collectgarbage("setstepmul", 0) does) and threshold 0 makes the next check
 * take that step. Nothing is run from here: the hook may be inside the GC. */
static void force_cycle(struct capture *c)
{
  global_State *g = c->g;
  if (g->gc.threshold == LJ_MAX_MEM)
    return;  /* collectgarbage("stop"): the program wants no cycles now */
  if (!c->force_armed) {
    c->force_armed = 1;
    c->saved_stepmul = g->gc.stepmul;
    /* A cycle under way started before the boundary was due: one more. */
    c->force_until = c->gc_cycles + (g->gc.state == GCSpause ? 1 : 2);
  }
  g->gc.stepmul = 0;
  if (g->vmstate != ~LJ_VMST_GC)
    g->gc.threshold = 0;  /* inside a step, the step sets it when it ends */
}

void boundary_force_disarm(struct capture *c)
{
  if (!c->force_armed)
    return;
  c->force_armed = 0;
  if (c->g)
    c->g->gc.stepmul = c->saved_stepmul;
}

void boundary_timers(struct capture *c)
{
  uint64_t now = capture_mono_ns();
  if (c->opt.duration > 0 && (double)(now - c->start_ns) >= c->opt.duration * 1e9 &&
      c->pending_stop == REASON_NONE)
    c->pending_stop = REASON_DURATION;
  boundary_check(c, now);
  if (c->boundary_due && c->opt.force_gc)
    force_cycle(c);
  if (now - c->last_flush_ns >= CAPTURE_FLUSH_NS) {
    c->last_flush_ns = now;
    if (c->writer.used && memprof_writer_flush(&c->writer) != 0) {
      segments_write_error(c, "cannot write", c->out.error);
      c->pending_stop = REASON_WRITE_ERROR;
    }
  }
}

/* The GC state and the current white of a capture_gc_phase() value. */
static void phase_split(int phase, int *state, int *white)
{
  uint16_t word = (uint16_t)phase;
  uint8_t bytes[2];
  memcpy(bytes, &word, sizeof bytes);
  *white = bytes[0];
  *state = bytes[1];
}

/* Full cycles have ended when the state is back at pause after their
 * atomic phases (white flips); that is the only place a due segment
 * boundary is cut. A flip since the last event is one atomic phase or
 * more: two cycles run back to back with no event between them (two
 * collectgarbage() calls with nothing to free) count as none. */
void boundary_gc_transition(struct capture *c, int phase)
{
  int st, last, white, last_white;
  phase_split(phase, &st, &white);
  phase_split(c->last_gc_phase, &last, &last_white);
  int flipped = white != last_white;
  c->last_gc_phase = phase;
  c->fast_phase = capture_signal_pending ? -1 : phase;
  if (last == GCSpause && st != GCSpause) {
    /* A cycle starts; seen at the first event after it, so one event early
     * to be safe (a block wrongly called young only waits a boundary). */
    c->cycle_start_events = c->segment_events ? c->segment_events - 1 : 0;
  }
  c->gc_flips += (unsigned)flipped;
  if (st != GCSpause || !c->gc_flips)
    return;
  if (last == GCSpause)
    c->cycle_start_events = c->segment_events;  /* the whole cycle ran since the last event */
  c->gc_cycles += c->gc_flips;
  c->gc_flips = 0;
  boundary_check(c, capture_mono_ns());  /* the timers look only now and then */
  if (c->boundary_due && (!c->force_armed || c->gc_cycles >= c->force_until))
    segments_rotate(c);
}
