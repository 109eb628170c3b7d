/* collector/hook_slow.c: the hook's general and slow tiers (hook.h): recording an event with its site, the signal, lua_close. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/boundary.h"
#include "collector/capture.h"
#include "collector/control.h"
#include "collector/gc_steps.h"
#include "collector/hook.h"
#include "collector/segments.h"
#include "collector/symbols.h"

/* Attributes and writes one event (sampling decisions are already made);
 * ptr is the block the call freed or resized. */
static void write_event(struct coll_capture *c, struct memprof_event *ev, const void *ptr)
{
  struct attrib_site site;
  int32_t vmstate = c->g->vmstate;
  if (ev->kind == MEMPROF_EVENT_FREE && vmstate < 0 && vmstate != ~LJ_VMST_INTERP &&
      vmstate != ~LJ_VMST_C && vmstate != ~LJ_VMST_EXIT && vmstate != ~LJ_VMST_RECORD) {
    /* GC, the compiler freeing: no frames to read (the usual free). */
    ev->source = MEMPROF_SOURCE_INTERNAL;
    ev->location = 0;
    ev->line = 0;
    goto encode;
  }
  coll_symbols_current_site(c, &site, ptr, ev->new_size);
  ev->source = coll_attrib_event_source(&site);
  ev->location = coll_attrib_event_location(&site);
  ev->line = coll_attrib_event_line(&site);
  if (site.cached && !site.vm && ev->kind != MEMPROF_EVENT_FREE)
    coll_trace_line_count(site.cached);
  if (c->stacks_on && ev->kind != MEMPROF_EVENT_FREE)
    coll_callstack_record(&c->stacks, c->g, &c->cnames, c->segment_events, &site);   /* before the event: its number is segment_events */
encode:
  memprof_encode_event(&c->writer, ev, c->pdep);
  c->segment_events++;
  if (c->writer.failed) {
    coll_segments_write_error(c, "cannot write", c->out.error);
    c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
  }
}

/* Records one allocator call: every event without sampling, and the
 * events the sampling fast tier could not dismiss. */
static void record(struct coll_capture *c, void *ptr, size_t osize, void *nptr, size_t nsize,
                   int counted)
{
  struct memprof_event ev;
  if (nsize == 0) {
    if (!ptr)
      return;
    if (c->opt.sample && !coll_hook_sampled_remove(c, ptr))
      return;
    ev.kind = MEMPROF_EVENT_FREE;
    ev.old_address = (uint64_t)(uintptr_t)ptr;
    ev.old_size = osize;
    ev.new_address = 0;
    ev.new_size = 0;
  } else {
    if (!nptr)
      return; /* failed allocation: the VM raises an error, nothing changed */
    if (!counted)
      c->allocated += nsize;
    ev.new_address = (uint64_t)(uintptr_t)nptr;
    ev.new_size = nsize;
    if (ptr == NULL || osize == 0) {
      if (c->opt.sample) {
        if (!counted && !coll_hook_sampled_take(c, nsize))
          return;
        coll_hook_sampled_add(c, nptr, nsize);
      }
      ev.kind = MEMPROF_EVENT_ALLOC;
      ev.old_address = 0;
      ev.old_size = 0;
    } else if (c->opt.sample && !coll_hook_sampled_remove(c, ptr)) {
      /* A block we did not sample grew or shrank: sample the new size as an allocation. */
      if (!coll_hook_sampled_take(c, nsize))
        return;
      coll_hook_sampled_add(c, nptr, nsize);
      ev.kind = MEMPROF_EVENT_ALLOC;
      ev.old_address = 0;
      ev.old_size = 0;
    } else {
      if (c->opt.sample)
        coll_hook_sampled_add(c, nptr, nsize);
      ev.kind = MEMPROF_EVENT_REALLOC;
      ev.old_address = (uint64_t)(uintptr_t)ptr;
      ev.old_size = osize;
    }
  }
  write_event(c, &ev, ptr);
}

/* The start/stop signal came: stops the running capture or starts one. A
 * control request (collector/control.c) is taken first. */
static void handle_signal(struct coll_capture *c)
{
  int pending = __atomic_exchange_n(&coll_capture_signal_pending, 0, __ATOMIC_SEQ_CST);
  if (pending & COLL_CAPTURE_PENDING_TIMER)
    c->tick_at = 0;  /* the timers run in this call (coll_hook_tick_due): --duration passed */
  if (pending & COLL_CAPTURE_PENDING_CONTROL)
    coll_capture_control_from_hook(c);
  if (!(pending & COLL_CAPTURE_PENDING_SIGNAL))
    return;
  if (c->active) {
    /* A second signal while the last cycle is awaited stops at once. */
    if (c->deferred_stop != CAPTURE_INDEX_REASON_NONE) {
      coll_capture_stop(c, CAPTURE_INDEX_REASON_SIGNAL);
      return;
    }
    c->pending_stop = CAPTURE_INDEX_REASON_SIGNAL;
    coll_capture_stop_due(c);
    return;
  }
  if (!c->layout_ok)
    return;
  struct ljleak_collector_options opt;
  ljleak_collector_options_init(&opt);
  if (opt.dir) {
    /* LJLEAK_DIR serves the first capture; later ones get new directories. */
    char index[PATH_MAX + 8];
    capture_layout_join(opt.dir, CAPTURE_LAYOUT_INDEX, index, sizeof index);
    if (access(index, F_OK) == 0)
      opt.dir = NULL;
  }
  char err[512];
  if (coll_capture_begin(c, &opt, err, sizeof err) != 0)
    fprintf(stderr, "ljleak: cannot start a capture on signal: %s\n", err);
  else if (opt.edge_gc)
    coll_boundary_force(c, CAPTURE_INDEX_CAUSE_START);  /* not from inside the hook: at the next check */
}

/* lua_close frees the GG_State last: finish while g is still readable. */
static __attribute__((noinline)) void *hook_close(struct coll_capture *c, void *ud, void *ptr,
                                                  size_t osize, size_t nsize)
{
  lua_Alloc f = c->orig_allocf;
  if (ptr == NULL)
    return f(ud, ptr, osize, nsize);
  if (c->active && !c->busy) {
    c->busy = 1;
    coll_capture_stop(c, CAPTURE_INDEX_REASON_EXIT);
    c->busy = 0;
  }
  c->hooked = 0;
  c->g = NULL;
  c->gg = NULL;
  coll_trace_line_forget(&c->lines);
  c->layout_ok = 0;
  return f(ud, ptr, osize, nsize);
}

__attribute__((noinline)) void coll_hook_slow(struct coll_capture *c, void *ptr, size_t osize, void *nptr,
                                              size_t nsize, enum hook_slow_work work)
{
  if (c->busy)
    return;
  c->busy = 1;
  /* Re-armed before the flag is read: a signal that comes after it marks
   * fast_phase again. (One that comes between coll_boundary_gc_transition's read
   * of the flag and its store waits for the next slow call.) */
  coll_capture_set_fast_phase(c, c->last_gc_phase);
  if (coll_capture_pending())
    handle_signal(c);
  if (!c->active) {
    c->busy = 0;
    return;
  }
  int phase = coll_capture_gc_phase(c->g);
  if (phase != c->last_gc_phase)
    coll_boundary_gc_transition(c, phase);
  if (work != HOOK_SLOW_TAIL) {
    if (c->segment_open)
      record(c, ptr, osize, nptr, nsize, work == HOOK_SLOW_RECORD_COUNTED);
  }
  if (coll_hook_tick_due(c) || c->sampling) {
    coll_boundary_timers(c);
    coll_gc_steps_watch(c);
  }
  coll_capture_requests(c);
  c->busy = 0;
}

void *coll_hook_move_stack(struct coll_capture *c, void *ud, void *ptr, size_t osize, size_t nsize)
{
  void *nptr = c->orig_allocf(ud, NULL, 0, nsize);
  if (nptr)
    memcpy(nptr, ptr, osize < nsize ? osize : nsize);
  return nptr;
}

/* coll_hook_general once the allocator made the call: records it (or not). */
static void *hook_general_record(struct coll_capture *c, void *ptr, size_t osize, void *nptr,
                                 size_t nsize);

__attribute__((noinline)) void *coll_hook_general(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct coll_capture *c = &coll_capture_state;
  if (__builtin_expect(nsize == 0 && ptr == c->gg, 0))
    return hook_close(c, ud, ptr, osize, nsize);
  if (__builtin_expect(ptr != NULL && nsize != 0, 0) && coll_hook_running_stack(c, ptr)) {
    void *nptr = coll_hook_move_stack(c, ud, ptr, osize, nsize);
    hook_general_record(c, ptr, osize, nptr, nsize);
    if (nptr)
      c->orig_allocf(ud, ptr, osize, 0);
    return nptr;
  }
  return hook_general_record(c, ptr, osize, c->orig_allocf(ud, ptr, osize, nsize), nsize);
}

static void *hook_general_record(struct coll_capture *c, void *ptr, size_t osize, void *nptr,
                                 size_t nsize)
{
  if (c->sampling) {
    if (nsize != 0 && ptr == NULL) {
      if (__builtin_expect(nptr == NULL, 0))
        goto slow;
      c->allocated += nsize;
      c->countdown -= (int64_t)nsize;
      if (c->countdown <= 0) {
        c->countdown = coll_hook_sampled_gap(c);
        coll_hook_slow(c, ptr, osize, nptr, nsize, HOOK_SLOW_RECORD_COUNTED);
        return nptr;
      }
      coll_hook_slow(c, ptr, osize, nptr, nsize, HOOK_SLOW_TAIL);
      return nptr;
    }
    goto slow;
  }
  /* A full capture's events come here only for lua_close (above): its own
   * path is hook_full's. */
  if (!c->active && !coll_capture_pending())
    return nptr;
slow:
  coll_hook_slow(c, ptr, osize, nptr, nsize, HOOK_SLOW_RECORD);
  return nptr;
}
