/* collector/callstack.c: the Lua call stack of each recorded allocation: the frames from the VM's private state (a trace's inlined callers from the recorder's log), interned, written to the segment's sidecar. */
#include "collector/callstack.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/attrib.h"
#include "collector/capture_dir.h"
#include "collector/cname.h"
#include "collector/trace_line.h"
#include "collector/trace_map.h"
#include "format/capture_layout.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define CALLSTACK_BUFFER_SIZE (64 * 1024)    /* sidecar bytes buffered before a write */
#define CALLSTACK_ZBUFFER_SIZE (64 * 1024)   /* deflate output per write */
#define CALLSTACK_TABLE_SIZE (1u << 16)      /* interned stacks' slots (a power of two) */
#define CALLSTACK_FRAME_STORE (1u << 20)     /* their frames */

static void *pages(size_t size)
{
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* A failed write fails the writer (writer.out.failed); seg_out's error says why. */
static int sidecar_sink(void *context, const uint8_t *data, size_t size)
{
  struct callstack_state *s = context;
  return coll_seg_out_write(&s->out, data, size) != 0 ? -1 : 0;
}

/* Maps the buffers and tables the first time a capture with stacks opens a segment. */
static int callstack_map(struct callstack_state *s)
{
  if (s->buffer)
    return 0;
  s->buffer = pages(CALLSTACK_BUFFER_SIZE + CALLSTACK_ZBUFFER_SIZE);
  s->table = pages(CALLSTACK_TABLE_SIZE * sizeof *s->table);
  s->frames = pages(CALLSTACK_FRAME_STORE * sizeof *s->frames);
  if (!s->buffer || !s->table || !s->frames || coll_addr_map_init(&s->chunks, 256) != 0 ||
      coll_addr_map_init(&s->cfuncs, 64) != 0)
    return -1;
  s->generation = 1;
  return 0;
}

void coll_callstack_free(struct callstack_state *s)
{
  coll_callstack_abandon(s);
  if (s->buffer)
    munmap(s->buffer, CALLSTACK_BUFFER_SIZE + CALLSTACK_ZBUFFER_SIZE);
  if (s->table)
    munmap(s->table, CALLSTACK_TABLE_SIZE * sizeof *s->table);
  if (s->frames)
    munmap(s->frames, CALLSTACK_FRAME_STORE * sizeof *s->frames);
  coll_addr_map_free(&s->chunks);
  coll_addr_map_free(&s->cfuncs);
  int depth = s->depth;
  memset(s, 0, sizeof *s);
  s->depth = depth;
}

/* Forgets every stack interned (a new generation voids the table's entries). */
static void forget_stacks(struct callstack_state *s)
{
  s->generation++;
  s->frames_used = 0;
  s->stacks_kept = 0;
}

/* Forgets every stack and string: the next sidecar defines its own. */
static void forget(struct callstack_state *s)
{
  forget_stacks(s);
  coll_addr_map_clear(&s->chunks);
  coll_addr_map_clear(&s->cfuncs);
  memset(s->fast_names, 0, sizeof s->fast_names);
  s->coroutine_name = 0;
}

int coll_callstack_open(struct callstack_state *s, const struct coll_capture_dir *dir, const char *segment_part,
                        int gzip, int depth)
{
  s->depth = depth;
  if (s->depth <= 0)
    return 0;
  char name[CAPTURE_LAYOUT_NAME_MAX];
  if (callstack_map(s) != 0 || !capture_layout_sidecar_name(segment_part, name, sizeof name)) {
    s->out.error = ENOMEM;
    return -1;
  }
  if (coll_seg_out_open(&s->out, coll_capture_dir_create(dir, name, 0), gzip,
                        s->buffer + CALLSTACK_BUFFER_SIZE, CALLSTACK_ZBUFFER_SIZE) != 0)
    return -1;
  s->open = 1;
  forget(s);
  stacks_writer_init(&s->writer, s->buffer, CALLSTACK_BUFFER_SIZE, sidecar_sink, s);
  if (stacks_writer_header(&s->writer) != 0 || stacks_writer_flush(&s->writer) != 0)
    return -1;
  return 0;
}

int coll_callstack_flush(struct callstack_state *s)
{
  if (!s->open)
    return 0;
  return stacks_writer_flush(&s->writer);
}

int coll_callstack_close(struct callstack_state *s, const struct coll_capture_dir *dir, const char *segment_part,
                         const char *segment)
{
  if (!s->open)
    return 0;
  s->open = 0;
  char part[CAPTURE_LAYOUT_NAME_MAX], final[CAPTURE_LAYOUT_NAME_MAX];
  if (stacks_writer_end(&s->writer) != 0 || stacks_writer_flush(&s->writer) != 0 ||
      coll_seg_out_finish(&s->out) != 0) {
    coll_seg_out_abandon(&s->out);
    return -1;
  }
  s->disk_done += s->out.disk_bytes;
  if (!capture_layout_sidecar_name(segment_part, part, sizeof part) ||
      !capture_layout_sidecar_name(segment, final, sizeof final) ||
      coll_capture_dir_rename(dir, part, final) != 0) {
    s->out.error = errno ? errno : EIO;
    return -1;
  }
  return 0;
}

void coll_callstack_abandon(struct callstack_state *s)
{
  if (!s->open)
    return;
  s->open = 0;
  coll_seg_out_abandon(&s->out);
}

/* What recording one stack reads: the sidecar's state, the VM, the names of C functions, and
 * the number of the event it is for. */
struct recording {
  struct callstack_state *stacks;
  global_State *g;
  struct cname_state *cnames;
  uint64_t segment_events;
};

/* ---- Walking the frames ---------------------------------------------------- */

static struct callstack_frame lua_frame(const GCproto *pt, uint32_t line)
{
  return (struct callstack_frame){pt, coll_attrib_proto_fingerprint(pt), line | CALLSTACK_LINE_KNOWN,
                                  STACKS_FRAME_LUA};
}

/* A Lua frame whose saved PC is pc: its line when the stack is new. */
static struct callstack_frame lua_frame_at(const GCproto *pt, const BCIns *pc)
{
  return (struct callstack_frame){pt, coll_attrib_proto_fingerprint(pt), (uint64_t)(uintptr_t)pc,
                                  STACKS_FRAME_LUA};
}

/* The line of a Lua frame as keyed. */
static uint32_t frame_line(const struct callstack_frame *f)
{
  if (f->position & CALLSTACK_LINE_KNOWN)
    return (uint32_t)f->position;
  return coll_attrib_line_before(f->object, (const BCIns *)(uintptr_t)f->position);
}

/* The frame of function fn, called at pc when it is a Lua function. */
static struct callstack_frame function_frame(GCfunc *fn, const BCIns *pc)
{
  if (isluafunc(fn)) {
    const GCproto *pt = funcproto(fn);
    if (pt && pt->gct == ~LJ_TPROTO)
      return lua_frame_at(pt, pc);
    return (struct callstack_frame){NULL, 0, 0, STACKS_FRAME_INTERNAL};
  }
  if (isffunc(fn))
    return (struct callstack_frame){NULL, fn->c.ffid, 0, STACKS_FRAME_C};
  return (struct callstack_frame){(const void *)(uintptr_t)fn->c.f, 0, 0, STACKS_FRAME_C};
}

/* Appends the callers of the function in frame (already in out) down to
 * the bottom of L's stack; the running coroutine only. Returns the count. */
static uint32_t walk_callers(global_State *g, lua_State *L, TValue *frame,
                             struct callstack_frame *out, uint32_t n, uint32_t max,
                             int *truncated)
{
  TValue *bottom = tvref(L->stack) + LJ_FR2;
  TValue *top = tvref(L->stack) + L->stacksize;
  while (frame > bottom && frame < top) {
    const BCIns *pc = NULL;
    TValue *prev;
    if (frame_islua(frame)) {
      pc = frame_pc(frame);
      prev = frame_prevl(frame);
    } else if (frame_iscont(frame)) {
      pc = frame_contpc(frame);
      prev = frame_prevd(frame);
    } else {
      prev = frame_prevd(frame);   /* C, protected C, pcall: no PC for the caller */
    }
    if (prev <= bottom)
      break;
    if (!coll_attrib_frame_has_function(prev)) {
      if (n < max)
        out[n++] = (struct callstack_frame){NULL, 0, 0, STACKS_FRAME_INTERNAL};
      return n;
    }
    if (frame_isvarg(frame) || frame_gc(prev) == obj2gco(L)) {
      frame = prev;                /* a vararg function's lower half, or a dummy frame */
      continue;
    }
    if (n == max) {
      *truncated = 1;
      return n;
    }
    out[n++] = function_frame(frame_func(prev), pc);
    frame = prev;
  }
  if (L != mainthread(g)) {
    if (n == max)
      *truncated = 1;
    else
      out[n++] = (struct callstack_frame){NULL, 0, 0, STACKS_FRAME_COROUTINE};
  }
  return n;
}

#if LJ_HASJIT
/* Frames of an allocation by compiled code at site's line: the leaf, its
 * callers inside the trace (chain, the recorder's, trace_map.h), then the
 * Lua stack below the trace's base, which the interpreter made before the
 * trace ran. */
static uint32_t walk_chain(global_State *g, lua_State *L, const struct attrib_site *site,
                           const struct trace_chain *chain, TValue *base,
                           struct callstack_frame *out, uint32_t max, int *truncated)
{
  uint32_t n = 0;
  out[n++] = lua_frame(site->proto, (uint32_t)site->line);
  if (!chain || !coll_attrib_base_has_function(L, base)) {
    if (n < max)
      out[n++] = (struct callstack_frame){NULL, 0, 0, STACKS_FRAME_INTERNAL};
    return n;
  }
  for (uint32_t k = 0; k < chain->count; k++) {
    if (n == max) {
      *truncated = 1;
      return n;
    }
    const struct trace_map_line *c = &chain->callers[k];
    out[n++] = c->pt ? lua_frame(c->pt, c->line)   /* a fast function's (pcall) has its ffid */
                     : (struct callstack_frame){NULL, c->line - 1, 0, STACKS_FRAME_C};
  }
  return walk_callers(g, L, base - 1, out, n, max, truncated);
}
#endif

/* Fills out with the stack of the code running for site, as recorded
 * (leaf first, at most max frames); returns the count, and *truncated. */
static uint32_t walk_code(struct recording *c, const struct attrib_site *site,
                          struct callstack_frame *out, uint32_t max, int *truncated)
{
  global_State *g = c->g;
  if (max == 0 || (site->source != MEMPROF_SOURCE_LUA && site->source != MEMPROF_SOURCE_C))
    return 0;
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD)
    return 0;
  lua_State *L = &o->th;
#if LJ_HASJIT
  if (site->trace)
    return walk_chain(g, L, site, site->cached ? site->cached->chain : NULL,
                      mref(g->jit_base, TValue), out, max, truncated);
#endif
  if (g->vmstate == ~LJ_VMST_EXIT) {
    if (site->source != MEMPROF_SOURCE_LUA)
      return 0;
#if LJ_HASJIT && LJ_FR2
    /* A sunk allocation the exit makes: the exit handler set L->base to the
     * trace's (jit_base is 0 now), and the restore writes no slot below it
     * with two-slot frames (lj_snap.c, lj_snap_restore). */
    if (site->exit_chain)
      return walk_chain(g, L, site, site->exit_chain, L->base, out, max, truncated);
#endif
    out[0] = lua_frame(site->proto, (uint32_t)site->line);   /* sunk: the line only */
    return 1;
  }
  /* The interpreter or a C function: the frames of cur_L from its top. */
  if (!coll_attrib_base_has_function(L, L->base))
    return 0;
  TValue *frame = L->base - 1;
  GCfunc *fn = frame_func(frame);
  uint32_t n = 0;
  if (site->source == MEMPROF_SOURCE_C) {
    out[n++] = (struct callstack_frame){(const void *)(uintptr_t)site->location, 0, 0, STACKS_FRAME_C};
  } else {
    if (!isluafunc(fn)) {
      /* A fast function, or a C function compiling a chunk, is charged to
       * its caller's line (attrib.c). */
      TValue *called;
      if (!(frame = coll_attrib_charged_caller(g, L, frame, &called)))
        return 0;
    }
    out[n++] = lua_frame(site->proto, (uint32_t)site->line);
  }
  return walk_callers(g, L, frame, out, n, max, truncated);
}

/* The stack of site: a VM site's own frame, then the code it ran for. */
static uint32_t callstack_walk(struct recording *c, const struct attrib_site *site,
                               struct callstack_frame *out, uint32_t max, int *truncated)
{
  *truncated = 0;
  if (!site->vm || max == 0)
    return walk_code(c, site, out, max, truncated);
  out[0] = (struct callstack_frame){(const void *)(uintptr_t)coll_attrib_event_location(site), 0, 0,
                                    STACKS_FRAME_C};
  return 1 + walk_code(c, site, out + 1, max - 1, truncated);
}

/* ---- Interning and writing --------------------------------------------------- */

static uint32_t string_id(struct callstack_state *s, const char *text, size_t length)
{
  return stacks_writer_string(&s->writer, text, length);
}

/* The string id of pt's chunk name in this sidecar, written if new. */
static uint32_t chunk_id(struct callstack_state *s, const GCproto *pt)
{
  GCstr *name = proto_chunkname(pt);
  if (!name)
    return 0;
  uint64_t key = (uint64_t)(uintptr_t)name;
  uint64_t *known = coll_addr_map_find(&s->chunks, key);
  /* A string freed and another made at its address has another hash. */
  if (known && (*known >> 32) == name->hash)
    return (uint32_t)*known;
  uint32_t id = string_id(s, strdata(name), name->len);
  if (id)
    coll_addr_map_put(&s->chunks, key, id | ((uint64_t)name->hash << 32));
  return id;
}

static uint32_t c_function_id(struct recording *c, const void *f)
{
  struct callstack_state *s = c->stacks;
  uint64_t key = (uint64_t)(uintptr_t)f;
  uint64_t *known = coll_addr_map_find(&s->cfuncs, key);
  if (known)
    return (uint32_t)*known;
  char scratch[512];
  struct cname_entry entry;
  coll_cname_name(c->cnames, c->g, key, &entry, scratch, sizeof scratch);
  uint32_t id = string_id(s, entry.name, entry.name_length);
  if (id)
    coll_addr_map_put(&s->cfuncs, key, id);
  return id;
}

static uint32_t fast_id(struct callstack_state *s, uint64_t ffid)
{
  uint32_t *known = &s->fast_names[ffid & 255];
  if (!*known) {
    char name[32];
    int length = snprintf(name, sizeof name, "builtin#%u", (unsigned)ffid);
    *known = string_id(s, name, (size_t)length);
  }
  return *known;
}

/* Writes a new stack's strings and its STACK record; its id, or 0. */
static uint32_t define(struct recording *c, const struct callstack_frame *frames,
                       uint32_t count, int truncated)
{
  struct callstack_state *s = c->stacks;
  struct stacks_wire_frame wire[CALLSTACK_MAX_DEPTH + 1];
  for (uint32_t i = 0; i < count; i++) {
    const struct callstack_frame *f = &frames[i];
    struct stacks_wire_frame *w = &wire[i];
    memset(w, 0, sizeof *w);
    switch (f->kind) {
    case STACKS_FRAME_LUA: {
      const GCproto *pt = f->object;
      w->kind = STACKS_FRAME_LUA;
      w->name = chunk_id(s, pt);
      w->defined = (uint64_t)pt->firstline;
      w->line = frame_line(f);
      break;
    }
    case STACKS_FRAME_C:
      w->kind = STACKS_FRAME_C;
      w->name = !f->object && f->fingerprint ? fast_id(s, f->fingerprint)
                                             : c_function_id(c, f->object);
      break;
    case STACKS_FRAME_COROUTINE:
      w->kind = STACKS_FRAME_COROUTINE;
      if (!s->coroutine_name)
        s->coroutine_name = string_id(s, "coroutine", 9);
      w->name = s->coroutine_name;
      break;
    default:
      w->kind = STACKS_FRAME_INTERNAL;
      break;
    }
  }
  return stacks_writer_stack(&s->writer, wire, count, truncated ? STACKS_FLAG_TRUNCATED : 0);
}

/* Lets the quick tier reuse this stack for later allocations through the
 * same line cache entry while the frames below the trace's base stay. */
static void remember(struct recording *c, const struct attrib_site *site, uint32_t id)
{
  struct coll_trace_line_cached *e = site->cached;
  TValue *base = mref(c->g->jit_base, TValue);
  GCobj *o = gcref(c->g->cur_L);
  if (!e || !site->trace || site->vm || !base || !o || o->gch.gct != ~LJ_TTHREAD)
    return;
  uint64_t key = coll_callstack_below_key(&o->th, base, (uint32_t)c->stacks->depth);
  e->stack_generation = key ? c->stacks->generation : 0;
  e->stack_key = key;
  e->stack_id = id;
}

/* The EVENT record of stack id, remembered for the quick tier; id, or 0 if
 * the record could not be written. */
static uint32_t event_record(struct recording *c, const struct attrib_site *site, uint32_t id)
{
  int failed = stacks_writer_event(&c->stacks->writer, c->segment_events, id) != 0;
  remember(c, site, id);
  return failed ? 0 : id;
}

uint32_t coll_callstack_record(struct callstack_state *stacks, global_State *g, struct cname_state *cnames,
                               uint64_t event, const struct attrib_site *site)
{
  struct recording at = {stacks, g, cnames, event}, *c = &at;
  struct callstack_state *s = c->stacks;
  if (!s->open || s->writer.out.failed)
    return 0;
  struct callstack_frame frames[CALLSTACK_MAX_DEPTH + 1];
  int truncated;
  uint32_t count = callstack_walk(c, site, frames, (uint32_t)s->depth, &truncated);
  if (count == 0)
    return 0;
  size_t bytes = count * sizeof frames[0];
  uint64_t hash = XXH3_64bits(frames, bytes) ^ (uint64_t)truncated;
  uint32_t mask = CALLSTACK_TABLE_SIZE - 1;
  uint32_t slot = (uint32_t)hash & mask;
  struct callstack_entry *e;
  for (;; slot = (slot + 1) & mask) {
    e = &s->table[slot];
    if (e->generation != s->generation)
      break;               /* empty: a new stack */
    if (e->hash == hash && e->count == count &&
        memcmp(&s->frames[e->first], frames, bytes) == 0) {
      return event_record(c, site, e->id);
    }
  }
  /* Full tables: forget what was interned (the sidecar defines it again). */
  if (s->stacks_kept >= CALLSTACK_TABLE_SIZE / 2 ||
      s->frames_used + count > CALLSTACK_FRAME_STORE) {
    forget_stacks(s);
    e = &s->table[(uint32_t)hash & mask];
  }
  uint32_t id = define(c, frames, count, truncated);
  if (!id)
    return 0;
  memcpy(&s->frames[s->frames_used], frames, bytes);
  *e = (struct callstack_entry){hash, s->generation, id, s->frames_used, count};
  s->frames_used += count;
  s->stacks_kept++;
  return event_record(c, site, id);
}
