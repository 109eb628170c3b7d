/* collector/callstack.h: the Lua call stack of each recorded allocation: walking the frames, interning, the sidecar beside the segment (docs/stacks-format.md). */
#ifndef LJLEAK_COLLECTOR_CALLSTACK_H
#define LJLEAK_COLLECTOR_CALLSTACK_H

#include <stdint.h>

#include "collector/addr_map.h"
#include "collector/lj_private.h"
#include "collector/ljleak_collector.h"
#include "collector/seg_out.h"
#include "collector/trace_line.h"
#include "format/stacks.h"

struct coll_capture_dir;
struct cname_state;
struct attrib_site;

#define CALLSTACK_DEFAULT_DEPTH 16     /* stack_depth's default */
#define CALLSTACK_MAX_DEPTH LJLEAK_COLLECTOR_MAX_STACK_DEPTH

/* A frame as the collector keys it: what tells two stacks apart. A Lua
 * frame's line is looked up only when its stack is new: the key holds the
 * saved PC (two PCs of one line make two ids of equal stacks, which the
 * sidecar allows), or the line itself where it is known already. */
struct callstack_frame {
  const void *object;        /* LUA: the prototype; C: the function's address; else NULL */
  uint64_t fingerprint;      /* LUA: coll_attrib_proto_fingerprint; a builtin (a fast function, a
                                C frame without object, written as builtin#N): its id; else 0 */
  uint64_t position;         /* LUA: the saved PC, or the line | CALLSTACK_LINE_KNOWN */
  uint64_t kind;             /* enum stacks_frame_kind (format/stacks.h) */
};

#define CALLSTACK_LINE_KNOWN (1ull << 63)

/* A stack known in this sidecar: its id and where its frames are kept. */
struct callstack_entry {
  uint64_t hash;
  uint32_t generation;       /* valid while it is the state's */
  uint32_t id;
  uint32_t first;            /* in frames */
  uint32_t count;
};

/* The sidecar of the open segment and what it has defined. Memory from
 * mmap, never the Lua allocator. */
struct callstack_state {
  int depth;                 /* frames kept per stack; 0: no stacks */
  int open;                  /* a sidecar is open */
  uint8_t *buffer;           /* CALLSTACK_BUFFER_SIZE + CALLSTACK_ZBUFFER_SIZE, mmap'd */
  struct stacks_writer writer;
  struct seg_out out;
  uint64_t disk_done;        /* file bytes of the sidecars finished */
  struct callstack_entry *table;   /* CALLSTACK_TABLE_SIZE entries */
  struct callstack_frame *frames;  /* CALLSTACK_FRAME_STORE entries */
  uint32_t frames_used, stacks_kept;
  uint32_t generation;
  struct addr_map chunks;    /* chunk name (GCstr) -> string id | (its hash << 32) */
  struct addr_map cfuncs;    /* C function address -> string id */
  uint32_t fast_names[256];  /* builtin id -> string id (0: none yet) */
  uint32_t coroutine_name;
};

/* Opens the sidecar of the segment that segments.c just opened (segment_part
 * is the segment's .part name in the capture directory) and writes its header. 0 or -1 (out.error). A
 * capture without stacks opens nothing. */
int coll_callstack_open(struct callstack_state *s, const struct coll_capture_dir *dir, const char *segment_part,
                        int gzip, int depth);

/* Hands buffered records to the file: before each write of the segment's
 * stream, so that every event on disk has its stack on disk. 0 or -1. */
int coll_callstack_flush(struct callstack_state *s);

/* Ends the sidecar (END record, flush, close) and renames it from its
 * .part name. 0 or -1. */
int coll_callstack_close(struct callstack_state *s, const struct coll_capture_dir *dir, const char *segment_part,
                         const char *segment);

/* Closes without finishing (after an error). */
void coll_callstack_abandon(struct callstack_state *s);

/* Frees the buffers and tables (the capture ends). */
void coll_callstack_free(struct callstack_state *s);

/* Records the stack of the allocation or reallocation about to be written
 * as the segment's next event (number event), whose site is
 * site: walks the frames, defines the stack if it is new in this sidecar,
 * writes the EVENT record. Reads private state only; never calls the Lua
 * API. Nothing for sites without Lua frames (INTERNAL, TRACE). Returns the
 * stack's id, 0 if no EVENT record was written. */
uint32_t coll_callstack_record(struct callstack_state *s, global_State *g, struct cname_state *cnames,
                               uint64_t event, const struct attrib_site *site);

/* A key of what callstack_walk reads below a trace's base: the thread,
 * the base, and down to the bottom of the stack each frame's link word and
 * the function below it (which give the callers, their lines, the dummy
 * and vararg frames it skips). 0 if the chain is longer than the walk
 * would go for depth frames, or leaves the stack. Cheap: two or three
 * loads a frame, no line lookups. */
static inline __attribute__((always_inline)) uint64_t coll_callstack_below_key(lua_State *L,
                                                                               TValue *base,
                                                                               uint32_t depth)
{
  TValue *stack = tvref(L->stack);
  TValue *bottom = stack + LJ_FR2, *top = stack + L->stacksize;
  TValue *frame = base - 1;
  uint64_t key = ((uint64_t)(uintptr_t)L * 0x9e3779b97f4a7c15ull) ^ (uint64_t)(uintptr_t)base;
  for (uint32_t n = 0; n < 2 * depth + 4; n++) {
    if (frame <= bottom || frame >= top)
      return 0;
    uint64_t link = (uint64_t)frame_ftsz(frame);
    TValue *prev = frame_islua(frame) ? frame_prevl(frame) : frame_prevd(frame);
    key = (key ^ link) * 0x9e3779b97f4a7c15ull;
    if (prev <= bottom)
      return key | 1;
    key = (key ^ (uint64_t)(uintptr_t)frame_gc(prev)) * 0xc2b2ae3d27d4eb4full;
    frame = prev;
  }
  return 0;
}

/* The quick tier (hook.h): if the frames below base in L have the key
 * stack_key that a stack interned in this sidecar's generation
 * stack_generation had, and the sidecar's buffer has room, writes the EVENT
 * record of the segment's next event (number `event`) with its id and
 * returns 1; else 0 (the full tier walks). Never flushes. */
static inline __attribute__((always_inline)) int coll_callstack_quick_known(
  struct callstack_state *s, lua_State *L, TValue *base, uint32_t stack_generation, uint64_t stack_key,
  uint32_t stack_id, uint64_t event)
{
  if (stack_generation != s->generation || !base ||
      s->writer.out.capacity - s->writer.out.used < 3 * MEMPROF_ULEB128_MAX)
    return 0;
  if (coll_callstack_below_key(L, base, (uint32_t)s->depth) != stack_key)
    return 0;
  return stacks_writer_event(&s->writer, event, stack_id) == 0;
}

/* The same for an allocation by compiled code whose line cache entry e
 * recorded its stack: the frames below the trace's base. */
static inline __attribute__((always_inline)) int coll_callstack_quick_event(
  struct callstack_state *s, global_State *g, const struct coll_trace_line_cached *e, uint64_t event)
{
  GCobj *o = gcref(g->cur_L);
  return coll_callstack_quick_known(s, &o->th, mref(g->jit_base, TValue), e->stack_generation,
                                    e->stack_key, e->stack_id, event);
}

#endif
