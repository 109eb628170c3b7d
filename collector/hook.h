/* collector/hook.h: the allocator hook: its tiers, what each may do, and the invariants they share.
 *
 * Every allocator call of the hooked VM comes through one of five tiers,
 * cheapest first. A tier that meets anything it may not handle passes the
 * call down to the next.
 *
 *  fast     coll_hook_sampled's first lines (hook_sampled.c), and the stub made
 *           at run time that does the same in machine code (stub.h). Every
 *           call while sampling. Reads the sampling filter, countdown, the
 *           GC phase word and fast_phase; writes countdown and allocated;
 *           tail-calls the allocator. Takes no frame, never takes busy,
 *           writes no stream, reads no clock. Frees look only at the
 *           filter. Else: general.
 *  quick    hook_full_free, hook_full_record and hook_full_interp (hook_full.c). A full
 *           capture's common events, while hold is HOLD_NONE, the GC phase
 *           word equals fast_phase and the stream has not passed
 *           quick_until. Appends one event whose site needs no call: a
 *           free by a VM internal (the GC, the compiler; not a trace exit,
 *           nor the recorder's state), or an allocation by compiled code
 *           whose return address the line
 *           cache (trace_line.h) resolved in this segment (a few loads: the
 *           running trace, the word below the interpreter's C frame, one
 *           cache entry). Counts allocated and the trace allocations.
 *           With call stacks, such an allocation also needs its stack
 *           recorded through that cache entry, the same frames below the
 *           trace's base (a key of their links, a few loads a frame) and
 *           room in the sidecar's buffer: it appends the EVENT record
 *           (callstack.h). Likewise an allocation by a Lua function the
 *           interpreter runs, at a saved PC whose prototype, line and
 *           stack the full tier resolved in this segment (interp_site.h:
 *           one cache entry, the same frames below it). Emits no symbol,
 *           never flushes, reads no clock, never takes busy. Else: full.
 *  full     hook_full (hook_full.c). Every other full-capture event while
 *           hold is HOLD_NONE and the phase word equals fast_phase:
 *           attributes it (emitting symbols; the first allocation at a
 *           call site of a trace verifies its return address and looks its
 *           line up, and the trace's first builds its map, in mmap'd
 *           memory), flushes when the buffer is full, runs the timers when
 *           a tick is due, and sets quick_until. Takes busy only around the
 *           timers and a stop. Else: slow.
 *  general  coll_hook_general (hook_slow.c). Calls no faster tier takes:
 *           lua_close's last free, sampled calls the fast tier did not
 *           dismiss, and the pass-through hook while no capture runs (it
 *           waits for a signal). Calls the allocator, counts and samples
 *           allocations, then slow.
 *  slow     coll_hook_slow (hook_slow.c). Under busy (a call made while busy
 *           records nothing): the signal, GC phase changes (cycle ends,
 *           boundaries, rotation), recording the event (attributed as the
 *           full tier does, so sampled events get their lines too), the
 *           timers, and stopping. Anything but calling the hooked VM's
 *           allocator.
 *
 * Invariants the tiers share (fields of struct coll_capture, capture.h):
 *
 *  hold         busy, segment_open, pending_stop and a zero byte, read as
 *               one word. HOLD_NONE (only segment_open set) means: not
 *               re-entered, a segment open, no stop due. Setting any of
 *               those bytes is all it takes to keep the quick paths out.
 *  phase word   coll_capture_gc_phase(g): the GC state and current white.
 *               fast_phase is last_gc_phase, or -1 once a signal came (the
 *               handler writes it), so comparing one word sends a GC phase
 *               change and a signal alike to the slow path. Only the slow
 *               path (coll_boundary_gc_transition) moves last_gc_phase and
 *               fast_phase; coll_hook_slow re-arms fast_phase before it reads
 *               the signal flag.
 *  tick_at      writer.bytes_written at which the timers run next
 *               (coll_hook_tick_due); 0 in a new segment, so its first event
 *               runs them.
 *  quick_until  writer.bytes_written up to which the quick paths may
 *               append: the lesser of tick_at and the end of the buffer's
 *               room (COLL_CAPTURE_QUICK_ROOM). Set by full after each event; 0
 *               in a new segment, so that after a tick, a flush or a new
 *               segment the next event goes through full. */
#ifndef LJLEAK_COLLECTOR_HOOK_H
#define LJLEAK_COLLECTOR_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "collector/state.h"
#include "collector/stub.h"

/* The sampling filter's size: the stub's (a power of two). */
#define HOOK_FILTER_SIZE STUB_FILTER_SIZE

/* What the slow path is asked to do. */
enum hook_slow_work {
  HOOK_SLOW_RECORD,          /* record the event (full capture, or not dismissed by sampling) */
  HOOK_SLOW_RECORD_COUNTED,  /* the same for an allocation general already counted and sampled */
  HOOK_SLOW_TAIL             /* only the GC state, timers and the signal flag */
};

/* The hook while no sampled capture runs: a full capture's tiers, sampling
 * where someone wrapped the allocator after the hook went in (see
 * coll_hook_sampled_set), and the pass-through waiting for a signal. */
void *coll_hook_main(void *ud, void *ptr, size_t osize, size_t nsize);

/* The hook while sampling where there is no stub, and the stub's slow path. */
void *coll_hook_sampled(void *ud, void *ptr, size_t osize, size_t nsize);

/* Whether ptr is the running thread's stack. The VM frees its old stack
 * inside the realloc that grows or shrinks it and points L->stack at the
 * new one only afterwards, while the site of the event is read from the
 * frames in the old one: such a realloc is made as an allocation, a copy
 * and a free (coll_hook_move_stack), so that the old stack is still there while
 * the site is read. */
static inline int coll_hook_running_stack(const struct coll_capture *c, const void *ptr)
{
  const global_State *g = c->g;
  GCobj *o = g ? gcref(g->cur_L) : NULL;
  return o && mref(gco2th(o)->stack, void) == ptr;
}
/* The new stack for coll_hook_running_stack's realloc, with the old one's
 * contents (NULL, the old one untouched, when the allocator fails); the
 * caller records the event, then frees ptr with c->orig_allocf. */
void *coll_hook_move_stack(struct coll_capture *c, void *ud, void *ptr, size_t osize, size_t nsize);

/* The general and slow tiers. coll_hook_general takes the allocator's
 * arguments, so that the faster tiers reach it with a plain jump. */
void *coll_hook_general(void *ud, void *ptr, size_t osize, size_t nsize);
void coll_hook_slow(struct coll_capture *c, void *ptr, size_t osize, void *nptr, size_t nsize,
                    enum hook_slow_work work);

/* Sampling (hook_sampled.c): on or off, with the hook the VM calls; the
 * next gap; the decision for one allocation; the blocks sampled. */
void coll_hook_sampled_set(struct coll_capture *c, int on);
int64_t coll_hook_sampled_gap(struct coll_capture *c);
int coll_hook_sampled_take(struct coll_capture *c, size_t size);
void coll_hook_sampled_add(struct coll_capture *c, const void *p, size_t size);
int coll_hook_sampled_remove(struct coll_capture *c, const void *p);

/* Whether the timers are due: every COLL_CAPTURE_TICK_BYTES of stream (or at
 * once in a new segment). Takes the tick when they are. */
static inline int coll_hook_tick_due(struct coll_capture *c)
{
  if (c->writer.bytes_written < c->tick_at)
    return 0;
  c->tick_at = c->writer.bytes_written + COLL_CAPTURE_TICK_BYTES;
  return 1;
}

#endif
