/* collector/snapshot.c: heap snapshots: walks every live GC object of the VM and its references, and writes them beside the segment (docs/snapshot-format.md); the roots, the VM's own blocks and the take here, the objects in snapshot_objects.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/capture_dir.h"
#include "collector/now.h"
#include "collector/snapshot.h"
#include "collector/snapshot_objects.h"
#include "collector/snapshot_values.h"
#include "collector/text.h"
#include "format/capture_layout.h"
#if LJ_HASFFI
#include "lj_ctype.h"
#endif

#define SNAPSHOT_STRINGS_AHEAD 16   /* string table anchors read ahead of the walk */

static int walk_sink(void *context, const uint8_t *data, size_t size)
{
  struct coll_snapshot_walk *w = context;
  return coll_seg_out_write(&w->out, data, size);
}

/* ---- The walk ----------------------------------------------------------------------- */

static void walk_roots(struct coll_snapshot_walk *w)
{
  global_State *g = w->g;
  static const char *const type_names[] = {"nil", "false", "true", "lightuserdata", "string", "upvalue",
                                           "thread", "prototype", "function", "trace", "cdata", "table",
                                           "userdata", "number"};
  struct { const char *name; const void *target; int weak; } fixed[] = {
    {"registry", gcV(&g->registrytv), 0},
    {"main thread", w->gg, 0},
    {"globals", gcref(mainthread(g)->env), 0},
  };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (snapshot_writer_root(&w->writer, coll_snapshot_text_id(w, fixed[i].name, strlen(fixed[i].name)), 0,
                             (uint64_t)(uintptr_t)fixed[i].target) != 0)
      w->failed = 1;
  for (int i = 0; i < GCROOT_MAX; i++) {
    GCobj *o = gcref(g->gcroot[i]);
    if (!o)
      continue;
    uint32_t label;
    if (i >= GCROOT_BASEMT && i <= GCROOT_BASEMT_NUM)
      label = coll_snapshot_text_idf(w, "base metatable of %s",
                                     i - GCROOT_BASEMT < 14 ? type_names[i - GCROOT_BASEMT] : "?");
    else if (i == GCROOT_IO_INPUT || i == GCROOT_IO_OUTPUT)
      label = coll_snapshot_text_id(w, i == GCROOT_IO_INPUT ? "io input" : "io output",
                                    i == GCROOT_IO_INPUT ? 8 : 9);
    else
      label = coll_snapshot_text_id(w, "metamethod name", 15);
    if (snapshot_writer_root(&w->writer, label, 0, (uint64_t)(uintptr_t)o) != 0)
      w->failed = 1;
  }
  GCobj *queue = gcref(g->gc.mmudata);
  if (queue) {
    uint32_t label = coll_snapshot_text_id(w, "finalizer queue", 15);
    GCobj *u = queue;
    do {
      u = gcnext(u);
      if (snapshot_writer_root(&w->writer, label, 0, (uint64_t)(uintptr_t)u) != 0)
        w->failed = 1;
    } while (u != queue);
  }
#if LJ_HASFFI
  CTState *cts = ctype_ctsG(g);
  if (cts && cts->finalizer &&
      snapshot_writer_root(&w->writer, coll_snapshot_text_id(w, "ffi finalizers", 14), 0,
                           (uint64_t)(uintptr_t)cts->finalizer) != 0)
    w->failed = 1;
#endif
#if LJ_HASJIT
  /* Compiled traces keep their constants; a trace lives as long as its prototype, so the trace
   * list is a weak root: listed, holding nothing. */
  jit_State *J = G2J(g);
  for (TraceNo i = 1; i < J->sizetrace; i++) {
    GCobj *T = gcref(J->trace[i]);
    if (T && snapshot_writer_root(&w->writer, coll_snapshot_text_idf(w, "trace %u", (unsigned)i), 1,
                                  (uint64_t)(uintptr_t)T) != 0)
      w->failed = 1;
  }
#endif
}

/* One of the VM's own blocks, when it has one. */
static void vm_block(struct coll_snapshot_walk *w, const void *address, uint64_t size, uint64_t count, const char *name)
{
  if (address && size)
    coll_snapshot_object(w, SNAPSHOT_VM, 0, address, size, count,
                         coll_snapshot_text_id(w, name, strlen(name)), NULL, 0);
}

/* The VM's own blocks that collectgarbage("count") counts beside the objects: the string
 * table, the temporary buffer, the light userdata segments, the JIT compiler's buffers and
 * trace list, the FFI's state, type table and callback ids. (The main thread's object stands
 * for the global state's block.) Each with the size the VM frees it with. */
static void walk_vm(struct coll_snapshot_walk *w)
{
  global_State *g = w->g;
  vm_block(w, g->str.tab, ((uint64_t)g->str.mask + 1) * sizeof(GCRef), g->str.num, "string table");
  vm_block(w, g->tmpbuf.b, (uint64_t)(g->tmpbuf.e - g->tmpbuf.b), 0, "temporary buffer");
#if LJ_64
  /* Grown by doubling from 2 as segments are added (lj_lightud_intern); lua_close's size. */
  MSize segments = g->gc.lightudnum ? 2u << lj_fls(g->gc.lightudnum) : 2u;
  vm_block(w, mref(g->gc.lightudseg, uint32_t), (uint64_t)segments * sizeof(uint32_t),
           (uint64_t)g->gc.lightudnum + 1, "lightuserdata segments");
#endif
#if LJ_HASJIT
  jit_State *J = G2J(g);
  if (J->irbuf)
    vm_block(w, J->irbuf + J->irbotlim, (uint64_t)(J->irtoplim - J->irbotlim) * sizeof(IRIns), 0, "JIT IR buffer");
  vm_block(w, J->snapbuf, (uint64_t)J->sizesnap * sizeof(SnapShot), 0, "JIT snapshot buffer");
  vm_block(w, J->snapmapbuf, (uint64_t)J->sizesnapmap * sizeof(SnapEntry), 0, "JIT snapshot map buffer");
  vm_block(w, J->trace, (uint64_t)J->sizetrace * sizeof(GCRef), 0,
           "trace list");
#endif
#if LJ_HASFFI
  CTState *cts = ctype_ctsG(g);
  if (cts) {
    vm_block(w, cts, sizeof(CTState), 0, "ffi state");
    vm_block(w, cts->tab, (uint64_t)cts->sizetab * sizeof(CType), cts->top, "ffi type table");
    vm_block(w, cts->cb.cbid, (uint64_t)cts->cb.sizeid * sizeof(CTypeID1), cts->cb.topid, "ffi callback ids");
  }
#endif
}

static void walk_heap(struct coll_snapshot_walk *w)
{
  global_State *g = w->g;
  lua_State *main = mainthread(g);
  coll_snapshot_walk_thread(w, main);
  walk_vm(w);
  for (GCobj *o = gcref(g->gc.root); o && !w->failed; o = gcnext(o))
    if (o != obj2gco(main))
      coll_snapshot_walk_object(w, o);
  GCobj *queue = gcref(g->gc.mmudata);
  if (queue) {
    GCobj *u = queue;
    do {
      u = gcnext(u);
      coll_snapshot_walk_object(w, u);
    } while (u != queue && !w->failed);
  }
  /* Open upvalues are on no list of the GC's but this ring of every thread's. */
  for (GCupval *uv = uvnext(&g->uvhead); uv != &g->uvhead && !w->failed; uv = uvnext(uv))
    coll_snapshot_walk_upvalue(w, uv);
  /* Strings chain from the table's anchors; an anchor's low bit is a flag of the table's. A
   * string lies anywhere in the heap, so the chains' first strings are read ahead: their loads
   * overlap instead of each waiting on memory in turn. */
  for (MSize i = 0; i <= g->str.mask && !w->failed; i++) {
    if (i + SNAPSHOT_STRINGS_AHEAD <= g->str.mask) {
      __builtin_prefetch((const void *)(gcrefu(g->str.tab[i + SNAPSHOT_STRINGS_AHEAD]) & ~(uintptr_t)1));
      /* Half as far ahead the first string has come: the second of its chain too. */
      const GCobj *first = (const GCobj *)(gcrefu(g->str.tab[i + SNAPSHOT_STRINGS_AHEAD / 2]) & ~(uintptr_t)1);
      if (first)
        __builtin_prefetch(gcref(first->gch.nextgc));
    }
    for (GCobj *o = (GCobj *)(gcrefu(g->str.tab[i]) & ~(uintptr_t)1); o; o = gcnext(o))
      coll_snapshot_walk_object(w, o);
  }
  walk_roots(w);
}

static int walk_map(struct coll_snapshot_walk *w)
{
  w->buffer = mmap(NULL, 2 * COLL_SNAPSHOT_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (w->buffer == MAP_FAILED) {
    w->buffer = NULL;
    return -1;
  }
  if (coll_addr_map_init(&w->key_ids, 4096) != 0 || coll_addr_map_init(&w->text_ids, 4096) != 0)
    return -1;
  return 0;
}

static void walk_unmap(struct coll_snapshot_walk *w)
{
  if (w->buffer)
    munmap(w->buffer, 2 * COLL_SNAPSHOT_BUFFER_SIZE);
  coll_addr_map_free(&w->key_ids);
  coll_addr_map_free(&w->text_ids);
}

int coll_snapshot_take(const struct coll_snapshot_request *rq, lua_State *L, char *name, size_t name_size,
                       struct coll_snapshot_result *result, char *err, size_t err_size)
{
  struct coll_snapshot_walk w;
  memset(&w, 0, sizeof w);
  w.gg = rq->gg;
  w.held_proto = rq->held_proto;
  w.held_base = rq->held_base;
  w.held_end = rq->held_end;
  w.g = G(L);
  w.out.fd = -1;
  uint64_t started = coll_now_mono_ns();
  char part[CAPTURE_LAYOUT_NAME_MAX], where[PATH_MAX + CAPTURE_LAYOUT_NAME_MAX];
  capture_layout_snapshot_name(rq->boundary, name, name_size);
  capture_layout_part_name(name, part, sizeof part);
  capture_layout_join(rq->dir->path, part, where, sizeof where);  /* for messages */
  if (walk_map(&w) != 0) {
    walk_unmap(&w);
    coll_text_error(err, err_size, "cannot take a heap snapshot: %s%s", strerror(ENOMEM), "");
    return -1;
  }
  if (coll_seg_out_open(&w.out, coll_capture_dir_create(rq->dir, part, 0), 0, NULL, 0) != 0) {
    walk_unmap(&w);
    coll_text_error(err, err_size, "cannot create %s: %s", where, strerror(w.out.error));
    return -1;
  }
  snapshot_writer_init(&w.writer, w.buffer, w.buffer + COLL_SNAPSHOT_BUFFER_SIZE, COLL_SNAPSHOT_BUFFER_SIZE, walk_sink, &w);
  struct snapshot_capture who = {
    .pid = (uint64_t)getpid(),
    .start_ms = (uint64_t)(rq->start_wall * 1000.0 + 0.5),
    .boundary = rq->boundary,
    .segment = rq->segment,
    .events = rq->events,
    .time_ms = (uint64_t)(coll_now_wall_time() * 1000.0 + 0.5),
    .heap_bytes = (uint64_t)w.g->gc.total,
    .flags = LJ_HASJIT ? SNAPSHOT_CAPTURE_JIT : 0,
  };
  if (snapshot_writer_begin(&w.writer, &who) != 0)
    w.failed = 1;
  if (!w.failed)
    walk_heap(&w);
  if (w.failed || snapshot_writer_end(&w.writer) != 0 || coll_seg_out_finish(&w.out) != 0 ||
      coll_capture_dir_rename(rq->dir, part, name) != 0) {
    int why = w.out.error ? w.out.error : errno ? errno : EIO;
    coll_seg_out_abandon(&w.out);
    coll_capture_dir_remove(rq->dir, part);   /* its space is the segment's */
    walk_unmap(&w);
    coll_text_error(err, err_size, "cannot write the heap snapshot %s: %s", where, strerror(why));
    return -1;
  }
  struct coll_snapshot_result r = {w.writer.object_records, w.writer.references, w.writer.object_bytes,
                              w.writer.offset, coll_now_mono_ns() - started};
  walk_unmap(&w);
  if (result)
    *result = r;
  if (rq->values && coll_snapshot_values_take(rq->dir, rq->start_wall, rq->boundary, L, name, err, err_size) != 0)
    return -1;  /* the values option's sidecar */
  return 0;
}
