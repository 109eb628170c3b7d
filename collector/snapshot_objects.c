/* collector/snapshot_objects.c: a heap snapshot's objects: each live GC object of the VM (tables, functions, prototypes, upvalues, threads, userdata, cdata, traces, strings) with its blocks and references, and the labels they carry. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "collector/addr_map.h"
#include "collector/snapshot_objects.h"
#include "format/memprof.h"
#include "lj_str.h"
#include "lj_tab.h"
#if LJ_HASBUFFER
#include "lj_buf.h"
#endif
#if LJ_HASFFI
#include "lj_ctype.h"
#endif

/* The walk reads the GC's lists (the root list, the string table, the finalizer queue, the ring
 * of open upvalues) and never
 * its mark bits: every object on them is live at a boundary, right after a full cycle, but for
 * the ones a finalizer ran on (they go at the next cycle).
 *
 * Sizes are the allocator's: each object's own block and each part has the size the VM passed
 * to the allocator for it (and passes again to free it), so that a live block of the event
 * stream finds its object by address and size, and the objects' bytes are gc.total. */

#define TEXT_MAX SNAPSHOT_LABEL_MAX

/* The six names LuaJIT gives a for loop's hidden variables in a prototype's debug info, by their
 * code (1 ...) in the variable list. */
static const char *const hidden_variable_names[] = {
  NULL, "(for index)", "(for limit)", "(for step)", "(for generator)", "(for state)", "(for control)"};
_Static_assert(sizeof hidden_variable_names / sizeof hidden_variable_names[0] == 7,
               "the names of LuaJIT's hidden variables, codes 1 to 6");

/* The string id of a label text, written the first time it is seen. */
uint32_t coll_snapshot_text_id(struct coll_snapshot_walk *w, const char *text, size_t length)
{
  uint64_t key = XXH3_64bits(text, length) | 1;
  uint64_t *known = coll_addr_map_find(&w->text_ids, key);
  if (known && *known)
    return (uint32_t)*known;
  uint32_t id = snapshot_writer_string(&w->writer, text, length);
  if (!id || coll_addr_map_put(&w->text_ids, key, id) != 0)
    w->failed = 1;
  return id;
}

uint32_t coll_snapshot_text_idf(struct coll_snapshot_walk *w, const char *format, ...)
{
  char text[TEXT_MAX + 64];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(text, sizeof text, format, args);
  va_end(args);
  if (n < 0)
    n = 0;
  return coll_snapshot_text_id(w, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

/* A string key's label: its text, interned by the string's address. */
static uint32_t key_id(struct coll_snapshot_walk *w, GCstr *s)
{
  uint64_t *known = coll_addr_map_find(&w->key_ids, (uint64_t)(uintptr_t)s);
  if (known && *known)
    return (uint32_t)*known;
  uint32_t id = coll_snapshot_text_id(w, strdata(s), s->len);
  if (!id || coll_addr_map_put(&w->key_ids, (uint64_t)(uintptr_t)s, id) != 0)
    w->failed = 1;
  return id;
}

static void reference(struct coll_snapshot_walk *w, enum snapshot_ref_kind kind, int weak, uint32_t text,
                      int64_t index, const void *target)
{
  if (snapshot_writer_reference(&w->writer, kind, weak, text, index, (uint64_t)(uintptr_t)target) != 0)
    w->failed = 1;
}

static void reference_tv(struct coll_snapshot_walk *w, enum snapshot_ref_kind kind, int weak,
                         uint32_t text, int64_t index, cTValue *tv)
{
  if (tvisgcv(tv))
    reference(w, kind, weak, text, index, gcV(tv));
}

void coll_snapshot_object(struct coll_snapshot_walk *w, enum snapshot_type type, unsigned flags,
                          const void *address, uint64_t size, uint64_t count, uint32_t name,
                          const struct snapshot_block *blocks, uint32_t block_count)
{
  struct snapshot_wire_object o = {type, flags, (uint64_t)(uintptr_t)address, size, count, name,
                                   blocks, block_count};
  if (snapshot_writer_object(&w->writer, &o) != 0)
    w->failed = 1;
}

/* "function@app.lua:12" for a prototype on one line, "function@app.lua:12-14" for one over
 * several ("main chunk@app.lua" for a file's main chunk): the line the programmer wrote
 * `function` on, and the line of its `end`, where LuaJIT puts the bytecode that makes a
 * closure (FNEW), so the site a closure is charged to (`@app.lua:14`) is in its name. */
static void proto_text(const GCproto *pt, char *out, size_t size)
{
  const char *chunk = strdata(proto_chunkname(pt));
  if (*chunk == '@' || *chunk == '=')
    chunk++;
  if (pt->firstline == 0)
    snprintf(out, size, "main chunk@%.*s", TEXT_MAX / 2, chunk);
  else if (pt->numline == 0)
    snprintf(out, size, "function@%.*s:%u", TEXT_MAX / 2, chunk, (unsigned)pt->firstline);
  else
    snprintf(out, size, "function@%.*s:%u-%u", TEXT_MAX / 2, chunk, (unsigned)pt->firstline,
             (unsigned)(pt->firstline + pt->numline));
}

static uint32_t proto_name(struct coll_snapshot_walk *w, const GCproto *pt)
{
  char text[TEXT_MAX];
  proto_text(pt, text, sizeof text);
  return coll_snapshot_text_id(w, text, strlen(text));
}

/* The object a reference field holds, or NULL: LuaJIT's tabref() and traceref() take a member
 * of what the field points to, which for an empty field is undefined behaviour. */
static GCobj *held(GCRef ref)
{
  return gcref(ref);
}

static GCtab *table_held(GCRef ref)
{
  GCobj *o = gcref(ref);
  return o ? gco2tab(o) : NULL;
}

/* A reference to o, when there is one. */
static void reference_object(struct coll_snapshot_walk *w, uint32_t text, const GCobj *o)
{
  if (o)
    reference(w, SNAPSHOT_REF_OTHER, 0, text, 0, o);
}

/* ---- Tables ------------------------------------------------------------------ */

/* The table's weak modes, from its metatable's __mode (looked up by hand: the VM's lookup
 * caches into the metatable). */
static unsigned table_weakness(global_State *g, GCtab *t)
{
  GCtab *mt = table_held(t->metatable);
  if (!mt || mt->hmask == 0)
    return 0;
  GCstr *mode_name = mmname_str(g, MM_mode);
  Node *node = noderef(mt->node);
  for (uint32_t i = 0; i <= mt->hmask; i++) {
    Node *n = &node[i];
    if (tvisstr(&n->key) && strV(&n->key) == mode_name && tvisstr(&n->val)) {
      unsigned weak = 0;
      for (const char *m = strVdata(&n->val); *m; m++)
        weak |= *m == 'k' ? SNAPSHOT_FLAG_WEAK_KEYS : *m == 'v' ? SNAPSHOT_FLAG_WEAK_VALUES : 0;
      return weak;
    }
  }
  return 0;
}

/* How a key that is neither a string nor an integer reads: "[table]", "[true]", "[1.5]". */
static uint32_t key_text(struct coll_snapshot_walk *w, cTValue *key)
{
  if (tvisnum(key))
    return coll_snapshot_text_idf(w, "[%.14g]", numV(key));
  if (tvisbool(key))
    return coll_snapshot_text_id(w, tvistrue(key) ? "[true]" : "[false]", tvistrue(key) ? 6 : 7);
  const char *type = tvistab(key) ? "table" : tvisfunc(key) ? "function" : tvisthread(key) ? "thread"
                   : tvisudata(key) ? "userdata" : tviscdata(key) ? "cdata" : tvislightud(key) ? "lightuserdata" : "value";
  return coll_snapshot_text_idf(w, "[%s]", type);
}

/* Whether a number key is an integer: its label is [n]. */
static int integer_key(cTValue *key, int64_t *n)
{
  if (tvisint(key)) {
    *n = intV(key);
    return 1;
  }
  if (!tvisnum(key))
    return 0;
  double d = numV(key);
  if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || (double)(int64_t)d != d)
    return 0;
  *n = (int64_t)d;
  return 1;
}

static void walk_table(struct coll_snapshot_walk *w, GCtab *t)
{
  global_State *g = w->g;
  unsigned weak = table_weakness(g, t);
#if LJ_HASFFI
  CTState *cts = ctype_ctsG(g);
  if (cts && cts->finalizer == t)
    weak = SNAPSHOT_FLAG_WEAK_KEYS;  /* the GC's own rule for this table */
#endif
  int weak_keys = !!(weak & SNAPSHOT_FLAG_WEAK_KEYS), weak_values = !!(weak & SNAPSHOT_FLAG_WEAK_VALUES);
  struct snapshot_block blocks[2];
  uint32_t block_count = 0;
  uint64_t entries = 0;
  uint64_t own = t->colo ? sizetabcolo((uint32_t)t->colo & 0x7f) : sizeof(GCtab);
  if (t->asize > 0 && t->colo <= 0)
    blocks[block_count++] = (struct snapshot_block){(uint64_t)(uintptr_t)tvref(t->array), (uint64_t)t->asize * sizeof(TValue)};
  if (t->hmask > 0)
    blocks[block_count++] = (struct snapshot_block){(uint64_t)(uintptr_t)noderef(t->node), ((uint64_t)t->hmask + 1) * sizeof(Node)};
  for (uint32_t i = 0; i < t->asize; i++)
    entries += !tvisnil(arrayslot(t, i));
  Node *node = noderef(t->node);
  for (uint32_t i = 0; t->hmask && i <= t->hmask; i++)
    entries += !tvisnil(&node[i].val);
  coll_snapshot_object(w, SNAPSHOT_TABLE, weak, t, own, entries, 0, blocks, block_count);
  GCtab *mt = table_held(t->metatable);
  if (mt)
    reference(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "metatable", 9), 0, mt);
  for (uint32_t i = 0; i < t->asize; i++)
    reference_tv(w, SNAPSHOT_REF_INDEX, weak_values, 0, (int64_t)i, arrayslot(t, i));
  for (uint32_t i = 0; t->hmask && i <= t->hmask; i++) {
    Node *n = &node[i];
    int64_t index;
    if (tvisnil(&n->val))
      continue;
    if (tvisstr(&n->key)) {
      uint32_t label = key_id(w, strV(&n->key));
      reference_tv(w, SNAPSHOT_REF_FIELD, weak_values, label, 0, &n->val);
      reference(w, SNAPSHOT_REF_KEY, weak_keys, label, 0, strV(&n->key));
    } else if (integer_key(&n->key, &index)) {
      reference_tv(w, SNAPSHOT_REF_INDEX, weak_values, 0, index, &n->val);
    } else {
      uint32_t label = key_text(w, &n->key);
      reference_tv(w, SNAPSHOT_REF_KEYED, weak_values, label, 0, &n->val);
      reference_tv(w, SNAPSHOT_REF_KEY, weak_keys, label, 0, &n->key);
    }
  }
}

/* ---- Functions, prototypes, upvalues -------------------------------------------- */

/* The name of upvalue i in the prototype's debug info, or NULL (a stripped chunk). */
static const char *upvalue_name(const GCproto *pt, uint32_t i)
{
  const uint8_t *p = proto_uvinfo(pt);
  if (!p || i >= pt->sizeuv)
    return NULL;
  while (i-- > 0)
    while (*p++)
      ;
  return (const char *)p;
}

static void walk_function(struct coll_snapshot_walk *w, GCfunc *fn)
{
  int lua = isluafunc(fn);
  uint32_t n = lua ? fn->l.nupvalues : fn->c.nupvalues;
  coll_snapshot_object(w, lua ? SNAPSHOT_LUA_FUNCTION : SNAPSHOT_C_FUNCTION, 0, fn,
         lua ? sizeLfunc(n) : sizeCfunc(n), n, 0, NULL, 0);
  reference_object(w, coll_snapshot_text_id(w, "env", 3), held(fn->c.env));
  if (lua) {
    GCproto *pt = funcproto(fn);
    reference(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "prototype", 9), 0, pt);
    for (uint32_t i = 0; i < n; i++) {
      const char *name = upvalue_name(pt, i);
      uint32_t label = name ? coll_snapshot_text_idf(w, "upvalue %.*s", TEXT_MAX - 16, name)
                            : coll_snapshot_text_idf(w, "upvalue %u", i + 1);
      reference(w, SNAPSHOT_REF_OTHER, 0, label, 0, gcref(fn->l.uvptr[i]));
    }
  } else {
    for (uint32_t i = 0; i < n; i++)
      reference_tv(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_idf(w, "upvalue %u", i + 1), 0,
                   &fn->c.upvalue[i]);
  }
}

static void walk_proto(struct coll_snapshot_walk *w, GCproto *pt)
{
  coll_snapshot_object(w, SNAPSHOT_PROTOTYPE, 0, pt, pt->sizept, pt->sizebc, proto_name(w, pt), NULL, 0);
  reference(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "chunk name", 10), 0, proto_chunkname(pt));
  uint32_t constant = coll_snapshot_text_id(w, "constant", 8);
  for (ptrdiff_t i = -(ptrdiff_t)pt->sizekgc; i < 0; i++)
    reference(w, SNAPSHOT_REF_OTHER, 0, constant, 0, proto_kgc(pt, i));
#if LJ_HASJIT
  if (pt->trace && pt->trace < G2J(w->g)->sizetrace)
    reference_object(w, coll_snapshot_text_id(w, "trace", 5), held(G2J(w->g)->trace[pt->trace]));
#endif
}

void coll_snapshot_walk_upvalue(struct coll_snapshot_walk *w, GCupval *uv)
{
  coll_snapshot_object(w, SNAPSHOT_UPVALUE, 0, uv, sizeof(GCupval), uv->closed ? 0 : 1, 0, NULL, 0);
  reference_tv(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "value", 5), 0, uvval(uv));
}

/* ---- Threads -------------------------------------------------------------------- */

/* The bytecode position a Lua frame is at, or -1 where it cannot be told: from the frame above
 * it (next), or, for the running thread's top frame, from its C frame. */
static int64_t frame_position(lua_State *th, int running, TValue *frame, TValue *next)
{
  GCproto *pt = funcproto(frame_func(frame));
  const BCIns *ins;
  if (next) {
    if (frame_islua(next))
      ins = frame_pc(next);
    else if (frame_iscont(next))
      ins = frame_contpc(next);
    else
      return -1;
  } else {
    void *cf = cframe_raw(th->cframe);
    if (!running || !cf || (const void *)cframe_pc(cf) == (const void *)cframe_L(cf))
      return -1;
    ins = cframe_pc(cf);
  }
  if (!ins || ins <= proto_bc(pt) || ins > proto_bc(pt) + pt->sizebc)
    return -1;
  return (int64_t)proto_bcpos(pt, ins) - 1;
}

/* One variable of a prototype's variable list: its name and the bytecode
 * range [start, end) where it is live. 0, or -1 at the list's end. */
struct varinfo_cursor {
  const uint8_t *p;
  uint64_t last;
};

static int varinfo_next(struct varinfo_cursor *v, const char **name, uint64_t *start, uint64_t *end)
{
  const uint8_t *p = v->p;
  if (!p || *p == 0)
    return -1;
  *name = (const char *)p;
  if (*p < 7) {
    *name = hidden_variable_names[*p];
  } else {
    while (*p)
      p++;
  }
  p++;
  uint64_t length;
  int n = memprof_uleb128_decode(p, 10, start);
  if (n <= 0)
    return -1;
  p += n;
  *start += v->last;
  v->last = *start;
  n = memprof_uleb128_decode(p, 10, &length);
  if (n <= 0)
    return -1;
  p += n;
  *end = *start + length;
  v->p = p;
  return 0;
}

/* The name of the local in slot at bytecode position pc, from the prototype's variable list:
 * the variables live at pc, in order, are slots 0, 1, ... NULL if none is, or the chunk was
 * stripped. */
static const char *local_name(const GCproto *pt, int64_t pc, uint32_t slot)
{
  if (pc < 0)
    return NULL;
  struct varinfo_cursor v = {proto_varinfo(pt), 0};
  const char *name;
  uint64_t start, end;
  while (varinfo_next(&v, &name, &start, &end) == 0) {
    if ((int64_t)start > pc)
      return NULL;
    if (pc < (int64_t)end && slot-- == 0)
      return name;
  }
  return NULL;
}

/* The name of a returned main chunk's local in slot: its top-level locals,
 * those live to the chunk's end, are slots 0, 1, ... in their order. */
static const char *returned_local_name(const GCproto *pt, uint32_t slot)
{
  struct varinfo_cursor v = {proto_varinfo(pt), 0};
  const char *name;
  uint64_t start, end, last_end = 0;
  while (varinfo_next(&v, &name, &start, &end) == 0)
    if (end > last_end)
      last_end = end;
  v = (struct varinfo_cursor){proto_varinfo(pt), 0};
  while (varinfo_next(&v, &name, &start, &end) == 0)
    if (end == last_end && slot-- == 0)
      return name;
  return NULL;
}

void coll_snapshot_walk_thread(struct coll_snapshot_walk *w, lua_State *th)
{
  global_State *g = w->g;
  int main = th == mainthread(g);
  TValue *stack = tvref(th->stack), *top = th->top;
  struct snapshot_block block = {(uint64_t)(uintptr_t)stack, (uint64_t)th->stacksize * sizeof(TValue)};
  /* The main thread lies at the start of the VM's global block, which it stands for. */
  coll_snapshot_object(w, SNAPSHOT_THREAD, 0, main ? w->gg : (void *)th, main ? sizeof(GG_State) : sizeof(lua_State),
         (uint64_t)(top - stack), 0, &block, 1);
  reference_object(w, coll_snapshot_text_id(w, "env", 3), held(th->env));
  int running = gcref(g->cur_L) == obj2gco(th);
  uint32_t frame_label = coll_snapshot_text_id(w, "frame", 5);
  TValue *bottom = stack + 1 + LJ_FR2;
  TValue *slot_top = top;
  TValue *next = NULL;
  /* Frames from the top down; each one's slots are from its base up to the frame above it. */
  for (TValue *frame = th->base - 1; frame > stack + LJ_FR2 && frame < stack + th->stacksize;
       next = frame, frame = frame_prev(frame)) {
    GCfunc *fn = frame_func(frame);
    TValue *base = frame + 1;
    int lua = isluafunc(fn);
    int64_t pc = lua ? frame_position(th, running, frame, next) : -1;
    char where[TEXT_MAX];
    if (lua)
      proto_text(funcproto(fn), where, sizeof where);
    else
      snprintf(where, sizeof where, "C function");
    /* Above the runner's C frame: a main chunk's slots, held after its
     * return (capture.h), named as its locals at its last instruction. */
    const GCproto *held = main && !lua ? w->held_proto : NULL;
    char held_where[TEXT_MAX];
    if (held)
      proto_text(held, held_where, sizeof held_where);
    for (TValue *o = base; o < slot_top; o++) {
      if (!tvisgcv(o))
        continue;
      uint32_t k = (uint32_t)(o - base);
      long at = (long)(o - stack);
      if (held && at >= w->held_base && at < w->held_end) {
        uint32_t slot = (uint32_t)(at - w->held_base);
        const char *local = returned_local_name(held, slot);
        uint32_t label = local ? coll_snapshot_text_idf(w, "local %.*s in %s", TEXT_MAX / 2, local, held_where)
                               : coll_snapshot_text_idf(w, "slot %u in %s", slot, held_where);
        reference(w, SNAPSHOT_REF_OTHER, 0, label, 0, gcV(o));
        continue;
      }
      const char *name = lua ? local_name(funcproto(fn), pc, k) : NULL;
      uint32_t label = name ? coll_snapshot_text_idf(w, "local %.*s in %s", TEXT_MAX / 2, name, where)
                            : coll_snapshot_text_idf(w, "slot %u in %s", k, where);
      reference(w, SNAPSHOT_REF_OTHER, 0, label, 0, gcV(o));
    }
    reference(w, SNAPSHOT_REF_OTHER, 0, frame_label, 0, fn);
    slot_top = frame - LJ_FR2;
    if (slot_top < bottom)
      break;
  }
  for (TValue *o = bottom; o < slot_top; o++)
    reference_tv(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_idf(w, "slot %u", (uint32_t)(o - stack)),
                 0, o);
}

/* ---- Userdata, cdata, traces ------------------------------------------------------- */

static void walk_userdata(struct coll_snapshot_walk *w, GCudata *ud)
{
  struct snapshot_block block = {0, 0};
  uint32_t block_count = 0;
#if LJ_HASBUFFER
  /* A string buffer's contents are a block of its own, unless it shares them (copy-on-write
   * or borrowed), as lj_bufx_free frees them. */
  SBufExt *sbx = ud->udtype == UDTYPE_BUFFER ? (SBufExt *)uddata(ud) : NULL;
  if (sbx && !sbufiscoworborrow(sbx) && sbufsz(sbx) > 0) {
    block = (struct snapshot_block){(uint64_t)(uintptr_t)sbx->b, sbufsz(sbx)};
    block_count = 1;
  }
#endif
  coll_snapshot_object(w, SNAPSHOT_USERDATA, 0, ud, sizeudata(ud), ud->len, 0, &block, block_count);
  GCtab *mt = table_held(ud->metatable);
  if (mt)
    reference(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "metatable", 9), 0, mt);
  reference_object(w, coll_snapshot_text_id(w, "env", 3), held(ud->env));
#if LJ_HASBUFFER
  /* What the GC marks from a string buffer (gc_mark). */
  if (sbx) {
    if (sbufiscow(sbx))
      reference_object(w, coll_snapshot_text_id(w, "copy-on-write contents", 22), held(sbx->cowref));
    reference_object(w, coll_snapshot_text_id(w, "string dictionary", 17), held(sbx->dict_str));
    reference_object(w, coll_snapshot_text_id(w, "metatable dictionary", 20), held(sbx->dict_mt));
  }
#endif
}

#if LJ_HASFFI
static void walk_cdata(struct coll_snapshot_walk *w, GCcdata *cd)
{
  if (cdataisv(cd)) {
    /* A variable-length cdata's block starts before it (its alignment). */
    struct snapshot_block block = {(uint64_t)(uintptr_t)memcdatav(cd), sizecdatav(cd)};
    coll_snapshot_object(w, SNAPSHOT_CDATA, 0, cd, 0, cdatavlen(cd), 0, &block, 1);
    return;
  }
  CTState *cts = ctype_ctsG(w->g);
  CType *ct = ctype_raw(cts, cd->ctypeid);
  CTSize size = ctype_hassize(ct->info) ? ct->size : CTSIZE_PTR;
  coll_snapshot_object(w, SNAPSHOT_CDATA, 0, cd, sizeof(GCcdata) + size, size, 0, NULL, 0);
}
#endif

#if LJ_HASJIT
static void walk_trace(struct coll_snapshot_walk *w, GCtrace *T)
{
  size_t size = ((sizeof(GCtrace) + 7) & ~(size_t)7) + (size_t)(T->nins - T->nk) * sizeof(IRIns) +
                T->nsnap * sizeof(SnapShot) + T->nsnapmap * sizeof(SnapEntry);
  coll_snapshot_object(w, SNAPSHOT_TRACE, 0, T, size, T->nins - T->nk,
                       coll_snapshot_text_idf(w, "trace %u", (unsigned)T->traceno), NULL, 0);
  if (T->traceno == 0)
    return;
  jit_State *J = G2J(w->g);
  uint32_t constant = coll_snapshot_text_id(w, "constant", 8);
  for (IRRef ref = T->nk; ref < REF_TRUE; ref++) {
    IRIns *ir = &T->ir[ref];
    if (ir->o == IR_KGC)
      reference(w, SNAPSHOT_REF_OTHER, 0, constant, 0, ir_kgc(ir));
    if (irt_is64(ir->t) && ir->o != IR_KNULL)
      ref++;
  }
  const TraceNo1 links[3] = {T->link, T->nextroot, T->nextside};
  const char *names[3] = {"link", "next root trace", "side trace"};
  for (int i = 0; i < 3; i++)
    if (links[i] && links[i] != T->traceno && links[i] < J->sizetrace)
      reference_object(w, coll_snapshot_text_id(w, names[i], strlen(names[i])), held(J->trace[links[i]]));
  reference(w, SNAPSHOT_REF_OTHER, 0, coll_snapshot_text_id(w, "start prototype", 15), 0, gcref(T->startpt));
}
#endif

void coll_snapshot_walk_object(struct coll_snapshot_walk *w, GCobj *o)
{
  switch (o->gch.gct) {
  case ~LJ_TTAB: walk_table(w, gco2tab(o)); break;
  case ~LJ_TFUNC: walk_function(w, gco2func(o)); break;
  case ~LJ_TPROTO: walk_proto(w, gco2pt(o)); break;
  case ~LJ_TUPVAL: coll_snapshot_walk_upvalue(w, gco2uv(o)); break;
  case ~LJ_TTHREAD: coll_snapshot_walk_thread(w, gco2th(o)); break;
  case ~LJ_TUDATA: walk_userdata(w, gco2ud(o)); break;
#if LJ_HASFFI
  case ~LJ_TCDATA: walk_cdata(w, gco2cd(o)); break;
#endif
#if LJ_HASJIT
  case ~LJ_TTRACE: walk_trace(w, gco2trace(o)); break;
#endif
  case ~LJ_TSTR: {
    GCstr *s = gco2str(o);
    coll_snapshot_object(w, SNAPSHOT_STRING, 0, s, lj_str_size(s->len), s->len, 0, NULL, 0);
    break;
  }
  default: break;  /* nothing else lives on the lists */
  }
}
