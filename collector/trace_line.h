/* collector/trace_line.h: the Lua line of an allocation made by compiled code: the recorder's log, the maps of traces, the resolution and its cache. */
#ifndef LJLEAK_COLLECTOR_TRACE_LINE_H
#define LJLEAK_COLLECTOR_TRACE_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/lj_private.h"

/* How it works (docs/collector.md, "Allocations in compiled code"):
 *
 *  log      While the JIT records a trace, a handler of LuaJIT's "record"
 *           event (trace_record.c) notes, for each IR instruction that can
 *           allocate, the Lua function and bytecode being recorded.
 *  map      The first time a trace allocates, its log is checked against the
 *           live trace (the same instructions at the same references) and
 *           turned into a map (trace_map.c): for each snapshot's stretch of
 *           machine code and each C function called there, the one line its
 *           allocating instructions came from, or "ambiguous".
 *  resolve  An allocation while trace N runs (trace_line.c): the trace's call
 *           into the VM left its return address at a fixed place, right
 *           below the interpreter's C frame (cframe - spadjust - 8); it must
 *           lie in the trace's machine code right after a call, whose target
 *           names the function called. The snapshot whose machine code
 *           holds the call, and that target, give the line from the map.
 *           Anything unverified keeps the trace site.
 *  cache    The answer for a return address of a trace, so that a hot site
 *           costs a few loads (the quick tier of hook.h reads it). */

#define TRACE_LINE_CACHE_SIZE 256      /* entries of the resolution cache (a power of two) */
#define TRACE_LINE_MAX_CALLS 256       /* at least IRCALL__MAX (checked in trace_record.c) */

/* One resolution: while `trace` runs, a call that returns to `ra` allocated
 * at line `line` of `pt` (line 0: no line, the trace site). Valid while
 * stamp is the state's. count: the allocations charged through it that the
 * segment's totals do not hold yet (coll_trace_line_fold). */
struct coll_trace_line_cached {
  uintptr_t ra;
  const GCtrace *trace;
  uint64_t stamp;
  const GCproto *pt;
  uint32_t line;
  uint32_t count;
  const struct trace_chain *chain;  /* the line's inlined callers (NULL: not known) */
  /* The call stack last recorded through this entry (callstack.h): valid
   * while stack_generation is the sidecar's and the frames below the
   * trace's base give stack_key. */
  uint32_t stack_id, stack_generation;
  uint64_t stack_key;
};

struct trace_chain;
struct trace_log;
struct trace_map;

/* What is known of one trace number: the log of its last recording not yet
 * turned into a map, and the map of the live trace (or none: map NULL with
 * failed_fp the live trace's fingerprint, so that it is not built again). */
struct coll_trace_line_slot {
  struct trace_log *log;
  struct trace_map *map;
  const GCtrace *failed;
  uint64_t failed_fp;
};

struct trace_line_state {
  global_State *g;               /* the VM whose recorder is followed; NULL: none */
  int attached;                  /* the "record" handler is in place for g */
  int broken;                    /* the handler saw state it did not expect: no more logs */
  const void *handler_table;     /* jit.attach's table of handlers (in the registry), */
  const void *handler;           /* where the "record" handler attached ... */
  double handler_key;            /* ... is at this key */
  uint64_t stamp;                /* bumped when a map goes (cached resolutions of it are void)
                                  * and per segment (a cached site's symbols must be in it) */
  struct coll_trace_line_cached cache[TRACE_LINE_CACHE_SIZE];
  const void *targets[TRACE_LINE_MAX_CALLS]; /* the IR call targets (jit.util.ircalladdr) */
  unsigned ntargets;             /* IRCALL__MAX when known, else 0 (no maps) */
  struct trace_log *pending;     /* the recording in progress, or the last one */
  int pending_used;              /* pending was turned into a map already */
  struct coll_trace_line_slot *slots; /* by trace number (mmap'd) */
  uint32_t nslots;
  uint64_t segment_events;       /* allocations by compiled code in this segment (but those */
  uint64_t segment_lines;        /* the cache's counts hold); of those, charged to a line */
  uint64_t events, lines;        /* the same for the capture (ended segments) */
};

/* The slot of trace number n (the table grows); NULL if it cannot. */
struct coll_trace_line_slot *coll_trace_line_slot(struct trace_line_state *tl, uint32_t n);

/* Forgets the slot's log and map (its number is free again). */
void coll_trace_line_slot_clear(struct trace_line_state *tl, struct coll_trace_line_slot *s);

/* Frees every log and map (the VM is closing, or another one is followed). */
void coll_trace_line_forget(struct trace_line_state *tl);

/* Whether the logs are whole: the handler attached is still the one in
 * jit.attach's table (another jit.attach(f, "record") replaces it, and the
 * recordings made since go unseen) and never saw state it did not expect.
 * Reads the table through private state, without the Lua API, so the
 * allocator hook may call it. */
int coll_trace_line_following(const struct trace_line_state *tl);

/* Stops following the recorder: frees every log and map and voids the
 * cache. Once another handler took the event, a trace may be flushed and
 * recorded again unseen, with the number, start and instructions of one
 * logged, even at the addresses of one mapped; attached again (and followed
 * from then on) by the next coll_trace_record_attach. */
void coll_trace_line_unfollow(struct trace_line_state *tl);

/* Unfollows if the handler was replaced (coll_trace_line_following): before a
 * map is built, and at the capture's timer ticks, so that cached lines do
 * not outlive the handler by more than a tick. */
void coll_trace_line_watch(struct trace_line_state *tl);

/* A capture begins: no allocations counted yet. */
void coll_trace_line_begin(struct trace_line_state *tl);

/* Moves the cache's counts into the segment's totals (at its end). */
void coll_trace_line_fold(struct trace_line_state *tl);

/* The segment's allocations by compiled code and those charged to a line,
 * the cache's counts included. */
void coll_trace_line_segment_counts(const struct trace_line_state *tl, uint64_t *events,
                                    uint64_t *lines);

/* A new segment: cached sites must emit their symbols again. */
static inline void coll_trace_line_new_segment(struct trace_line_state *tl)
{
  tl->stamp++;
}

/* Resolves an allocation made while trace T of g runs: returns the cache
 * entry (line 0: no line was found or verified). Builds the trace's map on
 * first use. Never NULL. */
struct coll_trace_line_cached *coll_trace_line_resolve(struct trace_line_state *tl, global_State *g,
                                                       const GCtrace *T);

/* The same for a call into the VM that returns to ra (coll_trace_line_resolve
 * reads it from the stack): a line only if ra lies in T's code right after
 * a call whose target and place the map account for. */
struct coll_trace_line_cached *coll_trace_line_resolve_at(struct trace_line_state *tl, global_State *g,
                                                          const GCtrace *T, uintptr_t ra);

/* An allocation while a trace exit restores the interpreter's state
 * (vmstate EXIT): if the exit's snapshot holds sunk allocations, the line
 * they are charged to (docs/collector.md) in *pt and *line, their callers
 * inside the trace in *chain (NULL: not known), and 1; else 0. */
int coll_trace_line_exit_site(struct trace_line_state *tl, global_State *g, const void *old_ptr,
                              const GCproto **pt, uint64_t *line, const struct trace_chain **chain);

#if LJ_HASJIT && LJ_TARGET_X64 && !LJ_ABI_WIN
/* What BC_JLOOP pushes below the interpreter's C frame before it jumps to a
 * trace (vm_x64.dasc: two callee-saved registers). */
#define TRACE_LINE_JIT_FRAME (CFRAME_SIZE_JIT - CFRAME_SIZE)
#endif

/* The return address of the running trace's call into the VM: the word
 * right below the interpreter's C frame, what BC_JLOOP pushed and the
 * trace's stack adjustment. 0 if that place is not between the caller's
 * stack pointer and the interpreter's frame (the trace's frame is there),
 * or not known on this target. The stack pointer is read, not a local's
 * address taken, so that the quick tier's functions need no frame. */
static inline __attribute__((always_inline)) uintptr_t coll_trace_line_return_address(
  global_State *g, const GCtrace *T)
{
#ifdef TRACE_LINE_JIT_FRAME
  GCobj *o = gcref(g->cur_L);
  uintptr_t cf = (uintptr_t)cframe_raw(o->th.cframe);
  uintptr_t slot = cf - TRACE_LINE_JIT_FRAME - T->spadjust - sizeof(uintptr_t);
  uintptr_t sp;
  __asm__("mov %%rsp, %0" : "=r"(sp));
  if (__builtin_expect(slot <= sp || slot >= cf, 0))
    return 0;
  return *(const uintptr_t *)slot;
#else
  (void)g;
  (void)T;
  return 0;
#endif
}

static inline size_t coll_trace_line_cache_slot(uintptr_t ra)
{
  return (size_t)((ra ^ (ra >> 9)) & (TRACE_LINE_CACHE_SIZE - 1));
}

/* The cached resolution for the running trace T, or NULL (resolve then). */
static inline __attribute__((always_inline)) struct coll_trace_line_cached *coll_trace_line_cached(
  struct trace_line_state *tl, global_State *g, const GCtrace *T)
{
  uintptr_t ra = coll_trace_line_return_address(g, T);
  struct coll_trace_line_cached *e = &tl->cache[coll_trace_line_cache_slot(ra)];
  if (e->ra != ra || e->trace != T || e->stamp != tl->stamp)
    return NULL;
  return e;
}

/* Counts an allocation by compiled code resolved through entry e (its line
 * or the trace). */
static inline __attribute__((always_inline)) void coll_trace_line_count(struct coll_trace_line_cached *e)
{
  e->count++;
}

#endif
