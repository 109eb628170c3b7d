/* collector/boundary.c: when segments end: full GC cycles seen from the hook, cycles forced at a due boundary, and the timers. */
#include <string.h>

#include "lua.h"

#include "collector/boundary.h"
#include "collector/gc_full.h"
#include "collector/index.h"
#include "collector/segments.h"
#include "collector/snapshot.h"
#include "collector/snapshot_values.h"
#include "collector/text.h"

/* Whether the open segment has run its period or reached its size. */
static void boundary_check(struct coll_capture *c, uint64_t now)
{
  if (!c->boundary_due &&
      ((c->opt.period > 0 && (double)(now - c->segment_start_ns) >= c->opt.period * 1e9) ||
       (c->opt.max_bytes && c->writer.bytes_written >= c->opt.max_bytes)))
    c->boundary_due = 1;
}

/* Segments are storage: a due segment ends without waiting for a GC
 * cycle when none is under way (the GC paused between cycles, or stopped
 * by the program), and the next cycle's young blocks then all lie in the
 * next segment. During a cycle it ends at the cycle's end
 * (coll_boundary_gc_transition): the blocks born since the cycle started stay in
 * the segment of its boundary, where readers can tell them young. Cutting
 * there instead would count them old at that boundary, and on a heap that
 * grows, whose cycles stretch, that garbage grows with them: a churning
 * site looked like a leak. */
static int boundary_cut_now(const struct coll_capture *c)
{
  return !c->g || c->g->gc.state == GCSpause || !coll_boundary_gc_running(c->g);
}

/* A forced cycle: one that starts after it is asked for, which the VM runs
 * at its next GC check, in the interpreter or on a trace alike: stepmul 0
 * makes one GC step run the rest of a cycle (as collectgarbage("setstepmul",
 * 0) does) and threshold 0 makes the next check take that step. Nothing is
 * run from here: the hook may be inside the GC. The timers apply it again
 * until the cycle has run, since a step that ends a cycle sets the
 * threshold anew. */
static int force_cycle(struct coll_capture *c)
{
  global_State *g = c->g;
  if (!coll_boundary_gc_running(g))
    return -1;  /* the program wants no cycles now */
  if (!c->force_armed) {
    c->force_armed = 1;
    c->saved_stepmul = g->gc.stepmul;
    /* A cycle under way started before the boundary was due: one more. */
    c->force_until = c->gc_cycles + (g->gc.state == GCSpause ? 1 : 2);
  }
  g->gc.stepmul = 0;
  if (g->vmstate != ~LJ_VMST_GC)
    g->gc.threshold = 0;  /* inside a step, the step sets it when it ends */
  return 0;
}

int coll_boundary_force(struct coll_capture *c, enum capture_index_boundary_cause cause)
{
  if (!c->force_armed)
    c->force_cause = cause;
  return force_cycle(c);
}

void coll_boundary_force_disarm(struct coll_capture *c)
{
  if (!c->force_armed)
    return;
  c->force_armed = 0;
  if (c->g)
    c->g->gc.stepmul = c->saved_stepmul;
}

/* Boundaries cover the run (docs/collector.md, "Boundaries cover the run"):
 * a GC cycle comes when the heap has grown by its pause since the last one,
 * so on a heap that grows (a buffer filling) the program's own cycles
 * stretch, and most of a run could pass without a boundary. A cycle is
 * forced when the bytes allocated since the last boundary reach a quarter
 * of those allocated before it (and at least BOUNDARY_VOLUME_MIN): no
 * stretch without a boundary is then more than a fifth of the work done by
 * its end, and the forced cycles number at most the logarithm of the run's
 * volume in base 1.25, however long it runs (about 40 from 1 MiB to 10
 * GiB). --every bounds the stretches itself, with boundaries at the same
 * work in two builds: this rule then stays out of its way. */
#define BOUNDARY_VOLUME_SHARE 4               /* since the last >= before it / 4 */
#define BOUNDARY_VOLUME_MIN (UINT64_C(1) << 20)

static int boundary_volume_due(const struct coll_capture *c)
{
  uint64_t since = c->allocated - c->boundary_allocated;
  return !c->opt.every && !c->volume_off && !c->force_armed && since >= BOUNDARY_VOLUME_MIN &&
         since >= c->boundary_allocated / BOUNDARY_VOLUME_SHARE;
}

void coll_boundary_timers(struct coll_capture *c)
{
  uint64_t now = coll_now_mono_ns();
  if (c->opt.duration > 0 && (double)(now - c->start_ns) >= c->opt.duration * 1e9 &&
      c->pending_stop == CAPTURE_INDEX_REASON_NONE && c->deferred_stop == CAPTURE_INDEX_REASON_NONE)
    c->pending_stop = CAPTURE_INDEX_REASON_DURATION;
  boundary_check(c, now);
  coll_trace_line_watch(&c->lines);
  if (c->opt.every && c->allocated >= c->every_next) {
    /* At multiples of every: two builds on one workload get their
     * boundaries after the same work. */
    c->every_next = (c->allocated / c->opt.every + 1) * c->opt.every;
    coll_boundary_force(c, CAPTURE_INDEX_CAUSE_EVERY);
  }
  if (boundary_volume_due(c))
    coll_boundary_force(c, CAPTURE_INDEX_CAUSE_VOLUME);
  if (c->boundary_due && c->opt.force_gc)
    coll_boundary_force(c, CAPTURE_INDEX_CAUSE_PERIOD);
  else if (c->force_armed)
    force_cycle(c);
  if (c->boundary_due && !c->opt.force_gc && !c->collecting && boundary_cut_now(c))
    coll_segments_rotate(c, 0);
  if (now - c->last_flush_ns >= COLL_CAPTURE_FLUSH_NS) {
    c->last_flush_ns = now;
    if (c->writer.used && memprof_writer_flush(&c->writer) != 0) {
      coll_segments_write_error(c, "cannot write", c->out.error);
      c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
    }
    if (coll_segments_index_flush(c) != 0)  /* the boundaries held go out with the stream */
      c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
  }
}

/* The GC state and the current white of a coll_capture_gc_phase() value. */
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
void coll_boundary_gc_transition(struct coll_capture *c, int phase)
{
  int st, last, white, last_white;
  phase_split(phase, &st, &white);
  phase_split(c->last_gc_phase, &last, &last_white);
  int flipped = white != last_white;
  c->last_gc_phase = phase;
  coll_capture_set_fast_phase(c, coll_capture_pending() ? -1 : phase);
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
  int forced = c->force_armed && c->gc_cycles >= c->force_until;
  /* The end of a cycle the collector runs in steps is its own, as a forced one is. */
  int stepped = c->steps_cause != 0 && c->gc_cycles == c->steps_until;
  /* A forced cycle runs in one step, but on a trace its atomic phase waits for the trace to exit:
   * what the program made in between (a few hundred bytes) was young, and a string replaced by
   * a longer copy at every append was left out whole at such boundaries (0, then its size: a
   * flush, and the leak passed under --every). Nothing is young at an --every boundary: its
   * window is short. (Not at the volume rule's: there a refilling cache's young strings rose
   * the series, and a steady program was undecided.) */
  if (forced && !c->collecting && c->force_cause == CAPTURE_INDEX_CAUSE_EVERY)
    c->cycle_start_events = c->segment_events;
  if (!c->collecting)
    coll_boundary_record(c, forced ? c->force_cause : stepped ? c->steps_cause : CAPTURE_INDEX_CAUSE_GC);
  boundary_check(c, coll_now_mono_ns());  /* the timers look only now and then */
  /* Not inside a collection of the collector's own: its boundary, written
   * after it, then sits at the end of the segment. A forced cycle still to
   * come keeps the segment open (but one forced for the volume: segments
   * are storage, and that cycle is no due segment's); this one is disarmed
   * below. */
  if (c->boundary_due && !c->collecting &&
      (!c->force_armed || forced || c->force_cause == CAPTURE_INDEX_CAUSE_VOLUME))
    coll_segments_rotate(c, 1);
  if (forced) {
    coll_boundary_force_disarm(c);
    if (c->deferred_stop != CAPTURE_INDEX_REASON_NONE && c->pending_stop == CAPTURE_INDEX_REASON_NONE)
      c->pending_stop = (uint8_t)c->deferred_stop;  /* the last cycle has run */
  }
}

/* ---- When snapshots are taken -------------------------------------------------------- */

/* A stop is due or waits for its last cycle: that cycle's boundary is the capture's last. */
int coll_boundary_stop_coming(const struct coll_capture *c)
{
  return c->pending_stop != CAPTURE_INDEX_REASON_NONE || c->deferred_stop != CAPTURE_INDEX_REASON_NONE;
}

/* Whether the program set a hook of its own over the armed one (debug.sethook in a hook or a
 * finalizer, where the count hook does not run): its hook stands, and the candidate is not armed. */
static int schedule_displaced(struct coll_capture *c)
{
  return c->schedule.armed && lua_gethook(mainthread(c->g)) != c->schedule.hook;
}

void coll_boundary_schedule_disarm(struct coll_capture *c)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  if (!s->armed)
    return;
  /* Given back over the program's own, the saved hook would come back after the program removed
   * it (a one-shot hook, run again). */
  if (!schedule_displaced(c))
    lua_sethook(mainthread(c->g), s->saved_hook, s->saved_mask, s->saved_count);
  s->armed = 0;
}

/* At each boundary (in the hook too): a candidate is due once the bytes allocated pass the next
 * power of two; the layer above arms its safe point (coll_boundary_schedule_arm). */
static void schedule_boundary(struct coll_capture *c)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  if (c->g && schedule_displaced(c)) {
    /* Its candidate never ran: due again, else armed would stay set and no candidate come. */
    s->armed = 0;
    s->due = !coll_boundary_stop_coming(c);
    return;
  }
  if (!c->opt.snapshots || s->due || s->armed || s->middle || !c->g || coll_boundary_stop_coming(c))
    return;
  if (!s->next_at)
    s->next_at = COLL_SNAPSHOT_SCHEDULE_FIRST;
  if (c->allocated < s->next_at)
    return;
  while (s->next_at <= c->allocated)
    s->next_at *= 2;
  s->due = 1;
}

void coll_boundary_schedule_arm(struct coll_capture *c, lua_Hook safe_point)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  if (!s->due)
    return;
  s->due = 0;
  /* lua_sethook only sets fields and the dispatch table, as a signal handler may. */
  lua_State *main = mainthread(c->g);
  s->saved_hook = lua_gethook(main);
  s->saved_mask = lua_gethookmask(main);
  s->saved_count = lua_gethookcount(main);
  s->armed = 1;
  s->hook = safe_point;
  lua_sethook(main, safe_point, LUA_MASKCOUNT, 1);
}

/* Removes a candidate's file and says so in the index. */
static void schedule_drop(struct coll_capture *c, uint32_t i)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  struct coll_snapshot_candidate *k = &s->kept[i];
  struct capture_index_snapshot line = {.boundary = k->boundary, .file = k->file, .dropped = 1};
  char text[256];
  if (coll_capture_dir_remove(&c->dir, k->file) == 0 && capture_index_write_snapshot(text, sizeof text, &line))
    coll_index_append(&c->index, text);
  memmove(&s->kept[i], &s->kept[i + 1], (s->kept_count - i - 1) * sizeof *s->kept);
  s->kept_count--;
}

/* After a snapshot was written (file, at the last boundary): a candidate is listed, and the
 * oldest dropped past N + 1. */
static void schedule_written(struct coll_capture *c, const char *file)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  if (!s->middle)
    return;
  struct coll_snapshot_candidate *k = &s->kept[s->kept_count++];
  coll_text_copy(k->file, sizeof k->file, file);
  k->boundary = c->boundaries;
  k->allocated = c->allocated;
  if (s->kept_count > c->opt.snapshots + 1)
    schedule_drop(c, 0);
}

void coll_boundary_schedule_stop(struct coll_capture *c)
{
  struct coll_snapshot_schedule *s = &c->schedule;
  if (c->g)
    coll_boundary_schedule_disarm(c);
  if (s->kept_count > c->opt.snapshots) {
    const struct coll_snapshot_candidate *newest = &s->kept[s->kept_count - 1];
    schedule_drop(c, (double)newest->allocated > 0.75 * (double)c->allocated ? s->kept_count - 1 : 0);
  }
  memset(s, 0, sizeof *s);
  if (c->opt.values)
    coll_snapshot_values_prune(&c->dir);  /* no values stay on disk without their snapshot */
}

/* A heap snapshot at the boundary just recorded, its index line and its place in the schedule.
 * A failure stops the capture, said on stderr as a segment's is (the index's own failure
 * says itself). */
static void boundary_snapshot(struct coll_capture *c, lua_State *L)
{
  struct coll_snapshot_request rq = {
    .dir = &c->dir,
    .gg = c->gg,
    .start_wall = c->start_wall,
    .boundary = c->boundaries,
    .segment = c->seq,
    .events = c->segment_events,
    .held_proto = c->held_proto,
    .held_base = c->held_base,
    .held_end = c->held_end,
    .values = c->opt.values,
  };
  char name[CAPTURE_LAYOUT_NAME_MAX];
  struct coll_snapshot_result r;
  if (coll_snapshot_take(&rq, L, name, sizeof name, &r, c->error, sizeof c->error) != 0) {
    coll_segments_say_stop(c);
    c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
    return;
  }
  if (coll_segments_index_snapshot(c, name, &r) != 0) {
    c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
    return;
  }
  schedule_written(c, name);
  c->snapshots++;
  c->snapshot_boundary = c->boundaries;
}

void coll_boundary_record(struct coll_capture *c, enum capture_index_boundary_cause cause)
{
  c->boundaries++;
  c->boundary_allocated = c->allocated;
  c->boundary_seq = c->seq;
  c->boundary_events = c->segment_events;
  c->boundary_young_from = c->cycle_start_events;
  c->boundary_phase = c->g ? coll_capture_gc_phase(c->g) : 0;
  if (coll_segments_index_boundary(c, cause) != 0)
    c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
  schedule_boundary(c);
}

int coll_boundary_fresh(const struct coll_capture *c)
{
  return c->active && c->boundaries && c->g && c->seq == c->boundary_seq &&
         c->segment_events == c->boundary_events && coll_capture_gc_phase(c->g) == c->boundary_phase &&
         c->pending_stop == CAPTURE_INDEX_REASON_NONE;
}

int coll_boundary_snapshot_here(struct coll_capture *c, lua_State *L)
{
  if (!coll_boundary_fresh(c))
    return -1;
  c->busy = 1;
  c->snapshot_next = 0;
  boundary_snapshot(c, L);
  c->busy = 0;
  return 0;
}

int coll_boundary_snapshot_owed(struct coll_capture *c, lua_State *L)
{
  /* A call made during the cycle of this one (a finalizer that asks for a snapshot too) took
   * the snapshot asked for, at its own boundary. */
  if (!c->active || c->snapshot_boundary == c->boundaries)
    return 0;
  return coll_boundary_snapshot_here(c, L);
}

void coll_boundary_gc_sync(struct coll_capture *c)
{
  int phase = coll_capture_gc_phase(c->g);
  if (phase != c->last_gc_phase)
    coll_boundary_gc_transition(c, phase);
}

int coll_boundary_after_steps(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause)
{
  if (!c->active || c->pending_stop != CAPTURE_INDEX_REASON_NONE)
    return -1;
  if (!coll_boundary_fresh(c)) {
    /* The cycle's end wrote the last boundary line; the VM may have begun another since, which
     * moved cycle_start_events: what is young here is what was young there, and what came since
     * (all of a segment begun since). */
    uint64_t cycle_start = c->cycle_start_events;
    c->cycle_start_events = c->seq == c->boundary_seq ? c->boundary_young_from : 0;
    c->busy = 1;
    coll_boundary_record(c, cause);
    c->busy = 0;
    c->cycle_start_events = cycle_start;
  }
  if (coll_boundary_snapshot_here(c, L) != 0 || c->pending_stop != CAPTURE_INDEX_REASON_NONE)
    return -1;
  return 0;
}

int coll_boundary_collect_begin(struct coll_capture *c, struct coll_boundary_mark *mark)
{
  /* A cycle of the program's that ended since the last allocator call is
   * counted first: the collection's own white flip would cancel its flip. */
  c->busy = 1;
  coll_boundary_gc_sync(c);
  c->busy = 0;
  if (!c->active)
    return 0;
  mark->seq = c->seq;
  mark->events = c->segment_events;
  c->collecting = 1;
  return 1;
}

int coll_boundary_collect(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause)
{
  struct coll_boundary_mark mark;
  if (!coll_boundary_collect_begin(c, &mark))
    return 0;
  coll_gc_full(L);
  return coll_boundary_collect_end(c, L, cause, &mark);
}

int coll_boundary_collect_end(struct coll_capture *c, lua_State *L,
                              enum capture_index_boundary_cause cause, const struct coll_boundary_mark *mark)
{
  uint64_t seq = mark->seq, events = mark->events;
  if (!c->active) {
    c->collecting = 0;
    return 0;  /* the hook stopped the capture meanwhile (a write error, a stop due) */
  }
  /* The last steps may have freed nothing after the state went back to
   * pause: the hook has not seen that yet. */
  c->busy = 1;
  coll_boundary_gc_sync(c);
  c->collecting = 0;
  /* Every block born before the collection was marked by a whole cycle. */
  c->cycle_start_events = c->seq == seq ? events : 0;
  coll_boundary_record(c, cause);
  if (c->snapshot_next && c->pending_stop == CAPTURE_INDEX_REASON_NONE) {
    /* Right after the full cycle, between two instructions: the heap holds what is live. */
    c->snapshot_next = 0;
    boundary_snapshot(c, L);
  }
  /* A segment that fell due while its cycle was awaited ends at this
   * boundary, complete, as after a cycle of the program's; left to the
   * next tick, it ended a few events later, cut, past --max-bytes. (The
   * capture's last collections end it anyway.) */
  if (c->boundary_due && c->pending_stop == CAPTURE_INDEX_REASON_NONE &&
      cause != CAPTURE_INDEX_CAUSE_STOP && cause != CAPTURE_INDEX_CAUSE_EXIT)
    coll_segments_rotate(c, 1);
  c->busy = 0;
  return 1;
}
