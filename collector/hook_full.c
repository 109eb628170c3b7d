/* collector/hook_full.c: the full capture's hot path: the quick and full tiers (hook.h), and the hook the VM calls while not sampling. */
#include "collector/boundary.h"
#include "collector/capture.h"
#include "collector/gc_steps.h"
#include "collector/hook.h"
#include "collector/interp_site.h"
#include "collector/segments.h"
#include "collector/symbols.h"

/* Appends an event to the buffer, which has room for it (MEMPROF_ENCODE_EVENT_MAX). */
static inline __attribute__((always_inline)) void append_event(struct coll_capture *c, unsigned kind,
                                                               unsigned source,
                                                               uint64_t location, uint64_t line,
                                                               void *ptr, size_t osize,
                                                               void *nptr, size_t nsize)
{
  struct memprof_writer *w = &c->writer;
  uint8_t *start = w->buffer + w->used;
  uint8_t *end = memprof_encode_event_at(start, kind, source, location, line,
                                         (uint64_t)(uintptr_t)ptr, osize,
                                         (uint64_t)(uintptr_t)nptr, nsize, c->pdep);
  w->used += (size_t)(end - start);
  w->bytes_written += (uint64_t)(end - start);
  c->segment_events++;
}

/* The VM states whose frees are the VM's own (INTERNAL): the GC, the
 * optimizer and the assembler. Not a trace exit, nor the recorder's state
 * (the interpreter runs the bytecode just recorded in it), nor the
 * interpreter or a C function, whose frees are charged to the running
 * code. Their allocations are charged to VM sites (attrib.h). */
#define QUICK_INTERNAL_STATES \
  ((1u << LJ_VMST_GC) | (1u << LJ_VMST_OPT) | (1u << LJ_VMST_ASM))

/* Whether the VM's own code runs (a free there is INTERNAL). */
static inline __attribute__((always_inline)) int quick_internal(const global_State *g)
{
  uint32_t state = ~(uint32_t)g->vmstate;
  return state < 32 && ((QUICK_INTERNAL_STATES >> state) & 1);
}

/* After the full tier recorded an allocation by a Lua function the
 * interpreter runs (site, and stack_id if stacks are on): keeps its site
 * for the quick tier (interp_site.h), with the key of the frames below it. */
static void keep_interp_site(struct coll_capture *c, const struct attrib_site *site, uint32_t stack_id)
{
  lua_State *L;
  const BCIns *pc;
  const GCproto *pt;
  if (!coll_interp_site_running(c->g, &L, &pc, &pt) || pt != site->proto)
    return;
  uint64_t key = 0;
  if (c->stacks_on) {
    key = stack_id ? coll_callstack_below_key(L, L->base, (uint32_t)c->stacks.depth) : 0;
    if (!key)
      return;
  }
  coll_interp_site_keep(&c->interp, pc, pt, site->line, key, c->stacks.generation, stack_id);
}

/* The full tier: one event, made by the allocator call that returned nptr,
 * attributed and encoded straight into the buffer; returns nptr. Nothing
 * here calls the Lua allocator, so the re-entrancy guard is only raised
 * around the timers. */
static __attribute__((noinline)) void *hook_full(struct coll_capture *c, void *ptr, size_t osize,
                                                 void *nptr, size_t nsize)
{
  struct memprof_writer *w = &c->writer;
  global_State *g = c->g;
  if (__builtin_expect(c->hold != HOLD_NONE, 0) ||
      __builtin_expect(coll_capture_gc_phase(g) != coll_capture_fast_phase(c), 0)) {
    coll_hook_slow(c, ptr, osize, nptr, nsize, HOOK_SLOW_RECORD);
    return nptr;
  }
  unsigned kind;
  if (nsize == 0) {
    if (!ptr)
      return nptr;
    kind = MEMPROF_EVENT_FREE;
  } else {
    if (!nptr)
      return nptr; /* failed allocation: the VM raises an error, nothing changed */
    c->allocated += nsize;
    kind = ptr == NULL || osize == 0 ? MEMPROF_EVENT_ALLOC : MEMPROF_EVENT_REALLOC;
  }
  unsigned source = MEMPROF_SOURCE_INTERNAL;
  uint64_t location = 0, line = 0;
  if (kind != MEMPROF_EVENT_FREE || !quick_internal(g)) {
    /* Compiled code: its line (or the trace); a trace exit: the line of
     * the sunk allocations it materialises; the VM's own work: its site;
     * else the running function. Not the GC's frees (the usual free). */
    struct attrib_site site;
    coll_symbols_current_site(c, &site, ptr, nsize);
    source = (unsigned)coll_attrib_event_source(&site);
    location = coll_attrib_event_location(&site);
    line = coll_attrib_event_line(&site);
    if (site.cached && !site.vm && kind != MEMPROF_EVENT_FREE)
      coll_trace_line_count(site.cached);
    uint32_t stack_id = 0;
    if (c->stacks_on && kind != MEMPROF_EVENT_FREE)
      stack_id = coll_callstack_record(&c->stacks, c->g, &c->cnames, c->segment_events, &site);   /* before the event: its number is segment_events */
    if (kind != MEMPROF_EVENT_FREE && site.source == MEMPROF_SOURCE_LUA && !site.vm && !site.trace)
      keep_interp_site(c, &site, stack_id);
  }
  /* After the symbols, which may have filled the buffer or failed to write. */
  if (__builtin_expect(w->used > COLL_CAPTURE_QUICK_ROOM, 0) || __builtin_expect(w->failed, 0)) {
    if (w->failed || memprof_writer_flush(w) != 0) {
      c->busy = 1;
      coll_segments_write_error(c, "cannot write", c->out.error);
      coll_capture_stop(c, CAPTURE_INDEX_REASON_WRITE_ERROR);
      c->busy = 0;
      return nptr;
    }
  }
  append_event(c, kind, source, location, line, ptr, osize, nptr, nsize);
  if (__builtin_expect(coll_hook_tick_due(c), 0)) {
    c->busy = 1;
    coll_boundary_timers(c);
    coll_gc_steps_watch(c);
    if (c->pending_stop != CAPTURE_INDEX_REASON_NONE)
      coll_capture_stop_due(c);
    c->busy = 0;
  }
  /* Until the next tick, or the buffer's end (flushes only move it on). */
  uint64_t room_end = w->bytes_written - w->used + COLL_CAPTURE_QUICK_ROOM;
  c->quick_until = c->tick_at < room_end ? c->tick_at : room_end;
  return nptr;
}

/* The full tier for a call not yet made: the allocator call, then the event. */
static __attribute__((noinline)) void *hook_full_call(struct coll_capture *c, void *ud, void *ptr,
                                                      size_t osize, size_t nsize)
{
  void *nptr = c->orig_allocf(ud, ptr, osize, nsize);
  return hook_full(c, ptr, osize, nptr, nsize);
}

/* Whether the next event can be written by a quick path: hold is
 * HOLD_NONE, no GC phase change or signal, and no tick or full buffer
 * before quick_until (hook.h). A failed write shows as a stop due (the
 * timers) or is seen by hook_full when the buffer is full. */
static inline __attribute__((always_inline)) int quick_ok(const struct coll_capture *c,
                                                          const global_State *g)
{
  return __builtin_expect(c->hold == HOLD_NONE, 1) &&
         __builtin_expect(coll_capture_gc_phase(g) == coll_capture_fast_phase(c), 1) &&
         __builtin_expect(c->writer.bytes_written <= c->quick_until, 1);
}

/* What quick_site found. */
enum quick_kind {
  QUICK_NONE,       /* the full tier decides */
  QUICK_TRACE,      /* compiled code, resolved before (its line, or the trace) */
  QUICK_INTERP      /* not compiled code: the interpreter's sites may be cached */
};

/* The site of an allocation a quick path can write, without a call:
 * compiled code whose return address the cache holds, resolved in this
 * segment (so its symbols are in it). QUICK_NONE for the others: Lua and C
 * functions, new call sites, the VM's own work (its site's symbol may be
 * new in the segment; such allocations are rare). */
static inline __attribute__((always_inline)) enum quick_kind quick_site(struct coll_capture *c,
                                                                        global_State *g,
                                                                        unsigned *source,
                                                                        uint64_t *location,
                                                                        uint64_t *line,
                                                                        struct coll_trace_line_cached **cached)
{
  int32_t vmstate = g->vmstate;
  *line = 0;
  if (vmstate < 0)
    return QUICK_INTERP;
#if LJ_HASJIT
  GCtrace *T = coll_attrib_trace(g, (uint64_t)vmstate);
  if (!T)
    return QUICK_NONE;
  struct coll_trace_line_cached *e = coll_trace_line_cached(&c->lines, g, T);
  if (!e)
    return QUICK_NONE;
  *cached = e;
  if (e->line) {
    *source = MEMPROF_SOURCE_LUA;
    *location = (uint64_t)(uintptr_t)e->pt;
    *line = e->line;
  } else {
    *source = MEMPROF_SOURCE_TRACE;
    *location = (uint64_t)vmstate;
  }
  return QUICK_TRACE;
#else
  (void)c;
  return QUICK_NONE;
#endif
}

/* The quick tier, a free: written before the block goes, and the allocator
 * tail-called, so that the common case (the GC freeing) makes no frame.
 * Only the VM's own frees: compiled code rarely frees (a table or buffer
 * that grows), and the full tier charges those to their line; so the
 * event's site here is a constant. */
static __attribute__((noinline)) void *hook_full_free(struct coll_capture *c, void *ud, void *ptr,
                                                      size_t osize)
{
  global_State *g = c->g;
  if (__builtin_expect(ptr != NULL, 1) && quick_ok(c, g) && quick_internal(g)) {
    append_event(c, MEMPROF_EVENT_FREE, MEMPROF_SOURCE_INTERNAL, 0, 0, ptr, osize, NULL, 0);
    return c->orig_allocf(ud, ptr, osize, 0);
  }
  return hook_full_call(c, ud, ptr, osize, 0);
}

/* The quick tier, an allocation or reallocation by a Lua function the
 * interpreter runs, at a PC whose site the full tier resolved in this
 * segment (interp_site.h), with the same frames below it when stacks are
 * on. Called once hook_full_record's other conditions held. */
static __attribute__((noinline)) void *hook_full_interp(struct coll_capture *c, void *ptr,
                                                        size_t osize, void *nptr, size_t nsize)
{
  lua_State *L;
  const BCIns *pc;
  const GCproto *pt;
  const struct interp_site_entry *e;
  if (coll_interp_site_running(c->g, &L, &pc, &pt) && (e = coll_interp_site_find(&c->interp, pc, pt)) &&
      (!c->stacks_on || coll_callstack_quick_known(&c->stacks, L, L->base, e->stack_generation,
                                                   e->stack_key, e->stack_id, c->segment_events))) {
    c->allocated += nsize;
    append_event(c, ptr == NULL || osize == 0 ? MEMPROF_EVENT_ALLOC : MEMPROF_EVENT_REALLOC,
                 MEMPROF_SOURCE_LUA, (uint64_t)(uintptr_t)pt, e->line, ptr, osize, nptr, nsize);
    return nptr;
  }
  return hook_full(c, ptr, osize, nptr, nsize);
}

/* The quick tier, an allocation or reallocation the allocator made: the
 * common case (a trace allocating) written with no frame. */
static __attribute__((noinline)) void *hook_full_record(struct coll_capture *c, void *ptr,
                                                        size_t osize, void *nptr, size_t nsize)
{
  global_State *g = c->g;
  unsigned source;
  uint64_t location, line;
  struct coll_trace_line_cached *cached;
  enum quick_kind quick;
  /* With stacks, an allocation by compiled code needs its stack known to
   * its line cache entry (callstack.h). */
  if (__builtin_expect(nptr != NULL, 1) && quick_ok(c, g) &&
      !coll_attrib_string_table_grows(g, ptr, nsize) &&
      (quick = quick_site(c, g, &source, &location, &line, &cached)) != QUICK_NONE) {
    if (quick == QUICK_INTERP)
      return hook_full_interp(c, ptr, osize, nptr, nsize);
    if (c->stacks_on && !coll_callstack_quick_event(&c->stacks, g, cached, c->segment_events))
      return hook_full(c, ptr, osize, nptr, nsize);
    c->allocated += nsize;
    coll_trace_line_count(cached);
    append_event(c, ptr == NULL || osize == 0 ? MEMPROF_EVENT_ALLOC : MEMPROF_EVENT_REALLOC,
                 source, location, line, ptr, osize, nptr, nsize);
    return nptr;
  }
  return hook_full(c, ptr, osize, nptr, nsize);
}

static __attribute__((noinline)) void *hook_full_alloc(struct coll_capture *c, void *ud, void *ptr,
                                                       size_t osize, size_t nsize)
{
  if (__builtin_expect(ptr != NULL, 0) && coll_hook_running_stack(c, ptr)) {
    void *nptr = coll_hook_move_stack(c, ud, ptr, osize, nsize);
    hook_full_record(c, ptr, osize, nptr, nsize);
    if (nptr)
      c->orig_allocf(ud, ptr, osize, 0);
    return nptr;
  }
  void *nptr = c->orig_allocf(ud, ptr, osize, nsize);
  return hook_full_record(c, ptr, osize, nptr, nsize);
}

void *coll_hook_main(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct coll_capture *c = &coll_capture_state;
  if (__builtin_expect(c->sampling, 0))
    return coll_hook_sampled(ud, ptr, osize, nsize);
  if (__builtin_expect(c->active, 1)) {
    if (nsize != 0)
      return hook_full_alloc(c, ud, ptr, osize, nsize);
    if (__builtin_expect(ptr != c->gg, 1))
      return hook_full_free(c, ud, ptr, osize);
  }
  return coll_hook_general(ud, ptr, osize, nsize);
}
