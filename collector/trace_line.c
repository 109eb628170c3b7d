/* collector/trace_line.c: resolves an allocation made by compiled code to its Lua line: the verified return address, the trace's map, the cache. */
#include "collector/trace_line.h"

#include <string.h>

#include "collector/attrib.h"
#include "collector/trace_map.h"
#include "lj_ircall.h"

_Static_assert(IRCALL__MAX <= TRACE_LINE_MAX_CALLS, "TRACE_LINE_MAX_CALLS holds every IR call");

struct coll_trace_line_slot *coll_trace_line_slot(struct trace_line_state *tl, uint32_t n)
{
  if (n == 0 || n > 0xffff)
    return NULL;
  if (n >= tl->nslots) {
    uint32_t count = tl->nslots ? tl->nslots : 64;
    while (count <= n)
      count *= 2;
    struct coll_trace_line_slot *fresh = coll_trace_log_pages(count * sizeof *fresh);
    if (!fresh)
      return NULL;
    if (tl->slots) {
      memcpy(fresh, tl->slots, tl->nslots * sizeof *fresh);
      coll_trace_log_unpages(tl->slots, tl->nslots * sizeof *fresh);
    }
    tl->slots = fresh;
    tl->nslots = count;
  }
  return &tl->slots[n];
}

void coll_trace_line_slot_clear(struct trace_line_state *tl, struct coll_trace_line_slot *s)
{
  coll_trace_log_free(s->log);
  coll_trace_map_free(s->map);
  memset(s, 0, sizeof *s);
  tl->stamp++;
}

void coll_trace_line_unfollow(struct trace_line_state *tl)
{
  for (uint32_t n = 0; n < tl->nslots; n++) {
    coll_trace_log_free(tl->slots[n].log);
    coll_trace_map_free(tl->slots[n].map);
    memset(&tl->slots[n], 0, sizeof tl->slots[n]);
  }
  coll_trace_log_free(tl->pending);
  tl->pending = NULL;
  tl->pending_used = 0;
  tl->attached = 0;
  tl->handler_table = tl->handler = NULL;
  tl->stamp++;
}

void coll_trace_line_forget(struct trace_line_state *tl)
{
  coll_trace_line_unfollow(tl);
  if (tl->slots)
    coll_trace_log_unpages(tl->slots, tl->nslots * sizeof *tl->slots);
  tl->slots = NULL;
  tl->nslots = 0;
  tl->g = NULL;
}

int coll_trace_line_following(const struct trace_line_state *tl)
{
  if (!tl->attached || tl->broken || !tl->handler_table)
    return 0;
  const GCtab *t = tl->handler_table;
  const TValue *tv = NULL;
  double key = tl->handler_key;
  if (key >= 0 && key < t->asize && key == (double)(uint32_t)key) {
    tv = tvref(t->array) + (uint32_t)key;
  } else {
    const Node *node = noderef(t->node);
    for (uint32_t i = 0; i <= t->hmask && !tv; i++) {
      const TValue *k = &node[i].key;
      if ((tvisint(k) && (double)intV(k) == key) || (tvisnum(k) && numV(k) == key))
        tv = &node[i].val;
    }
  }
  return tv && tvisfunc(tv) && (const void *)funcV(tv) == tl->handler;
}

void coll_trace_line_watch(struct trace_line_state *tl)
{
  /* lua_close frees every object, the handler table too, with this white
   * (lj_gc_freeall); no trace runs then. */
  if (!tl->g || (tl->g->gc.currentwhite & LJ_GC_SFIXED))
    return;
  if (tl->attached && !coll_trace_line_following(tl))
    coll_trace_line_unfollow(tl);
}

void coll_trace_line_begin(struct trace_line_state *tl)
{
  for (size_t i = 0; i < TRACE_LINE_CACHE_SIZE; i++)
    tl->cache[i].count = 0;
  tl->segment_events = tl->segment_lines = 0;
  tl->events = tl->lines = 0;
}

static void fold_entry(struct trace_line_state *tl, struct coll_trace_line_cached *e)
{
  tl->segment_events += e->count;
  tl->segment_lines += e->line ? e->count : 0;
  e->count = 0;
}

void coll_trace_line_fold(struct trace_line_state *tl)
{
  for (size_t i = 0; i < TRACE_LINE_CACHE_SIZE; i++)
    fold_entry(tl, &tl->cache[i]);
}

void coll_trace_line_segment_counts(const struct trace_line_state *tl, uint64_t *events,
                                    uint64_t *lines)
{
  *events = tl->segment_events;
  *lines = tl->segment_lines;
  for (size_t i = 0; i < TRACE_LINE_CACHE_SIZE; i++) {
    *events += tl->cache[i].count;
    *lines += tl->cache[i].line ? tl->cache[i].count : 0;
  }
}

static const struct trace_map *map_for(struct trace_line_state *tl, global_State *g,
                                       const GCtrace *T);

/* A side trace's parent's map, or NULL. */
static const struct trace_map *parent_map(struct trace_line_state *tl, global_State *g,
                                          const struct trace_log *log)
{
  const GCtrace *P = log->parent ? coll_attrib_trace(g, log->parent) : NULL;
  return P && P != &G2J(g)->cur ? map_for(tl, g, P) : NULL;
}

/* The map of the live trace T, built from its log on first use; NULL if
 * there is no log that fits it. */
static const struct trace_map *map_for(struct trace_line_state *tl, global_State *g,
                                       const GCtrace *T)
{
  coll_trace_line_watch(tl);   /* T may have been recorded unseen */
  struct coll_trace_line_slot *s = coll_trace_line_slot(tl, T->traceno);
  if (!s)
    return NULL;
  const GCtrace *R = T->root ? coll_attrib_trace(g, T->root) : NULL;
  GCobj *root = R && R != T ? gcref(R->startpt) : NULL;
  const GCproto *root_start = root ? &root->pt : NULL;
  uint64_t fp = coll_trace_map_fingerprint(T, root_start);
  if (s->map) {
    if (s->map->trace == T && s->map->fp == fp)
      return s->map;
    coll_trace_map_free(s->map);   /* an earlier trace with this number */
    s->map = NULL;
    tl->stamp++;
  }
  if (s->failed == T && s->failed_fp == fp)
    return NULL;
  struct trace_map *map = NULL;
  struct trace_log *pending = tl->pending;
  struct trace_log *log = NULL;
  if (pending && !tl->pending_used && coll_trace_log_matches(pending, T))
    log = pending;
  else if (s->log && coll_trace_log_matches(s->log, T))
    log = s->log;
  if (log) {
    if (log == pending)
      tl->pending_used = 1;   /* its recording has ended: T is live */
    else
      s->log = NULL;
    map = coll_trace_map_build(g, log, T, tl->targets, parent_map(tl, g, log), root_start);
    if (log != pending)
      coll_trace_log_free(log);
    /* The parent's map may have grown the table of slots. */
    if (!(s = coll_trace_line_slot(tl, T->traceno))) {
      coll_trace_map_free(map);
      return NULL;
    }
  }
  if (!map) {
    s->failed = T;
    s->failed_fp = fp;
    return NULL;
  }
  s->map = map;
  return map;
}

/* The function called by the call instruction that ends right before ra,
 * as the assembler emits calls (lj_emit_x86.h, emit_call_): call rel32, or
 * call rax after rax was loaded with the target. NULL for anything else,
 * or if the instruction would begin before low. */
static const void *call_target(uintptr_t ra, uintptr_t low)
{
  const uint8_t *p = (const uint8_t *)ra;
  if (ra >= low + 5 && p[-5] == 0xe8) {
    int32_t rel;
    memcpy(&rel, p - 4, sizeof rel);
    return (const void *)(ra + (intptr_t)rel);
  }
  if (ra < low + 7 || p[-2] != 0xff || p[-1] != 0xd0)
    return NULL;
  if (ra >= low + 12 && p[-12] == 0x48 && p[-11] == 0xb8) {   /* mov rax, imm64 */
    uint64_t a;
    memcpy(&a, p - 10, sizeof a);
    return (const void *)(uintptr_t)a;
  }
  if (ra >= low + 9 && p[-9] == 0x48 && p[-8] == 0x8d && p[-7] == 0x05) { /* lea rax, [rip+d] */
    int32_t d;
    memcpy(&d, p - 6, sizeof d);
    return (const void *)(ra - 2 + (intptr_t)d);
  }
  if (ra >= low + 9 && p[-9] == 0x48 && p[-8] == 0xc7 && p[-7] == 0xc0) { /* mov rax, simm32 */
    int32_t a;
    memcpy(&a, p - 6, sizeof a);
    return (const void *)(intptr_t)a;
  }
  if (p[-7] == 0xb8) {                                            /* mov eax, imm32 */
    uint32_t a;
    memcpy(&a, p - 6, sizeof a);
    return (const void *)(uintptr_t)a;
  }
  return NULL;
}

/* The line of the call returning to ra among a site's calls of different
 * lines: its place among the calls to the same target in the snapshot's
 * code [start, end), which must be as many as the map expects. NULL if
 * they are not. */
static const struct trace_map_line *nth_call(const struct trace_map *map,
                                             const struct trace_map_site *site, uintptr_t ra,
                                             uintptr_t start, uintptr_t end)
{
  uint32_t n = 0, at = UINT32_MAX;
  for (uintptr_t q = start + 5; q <= end; q++) {
    if (call_target(q, start) != site->target)
      continue;
    if (q == ra)
      at = n;
    n++;
  }
  if (n != site->count || at == UINT32_MAX)
    return NULL;
  return &map->ordinals[site->first + at];
}

struct coll_trace_line_cached *coll_trace_line_resolve(struct trace_line_state *tl, global_State *g,
                                                       const GCtrace *T)
{
  return coll_trace_line_resolve_at(tl, g, T, coll_trace_line_return_address(g, T));
}

struct coll_trace_line_cached *coll_trace_line_resolve_at(struct trace_line_state *tl, global_State *g,
                                                          const GCtrace *T, uintptr_t ra)
{
  struct coll_trace_line_cached *e = &tl->cache[coll_trace_line_cache_slot(ra)];
  fold_entry(tl, e);
  const GCproto *pt = NULL;
  uint32_t line = 0, chain = 0;
  e->chain = NULL;
  uintptr_t mcode = (uintptr_t)T->mcode;
  /* The return address must lie in T's code right after a call into the
   * VM (the recorder's own trace, J->cur, has no code of its own yet). */
  if (tl->ntargets && ra >= mcode + 5 && ra < mcode + T->szmcode && T != &G2J(g)->cur) {
    uint32_t start, end;
    uint32_t region = coll_trace_map_region(T, (uint32_t)(ra - 1 - mcode), &start, &end);
    const void *target = call_target(ra, mcode + start);
    const struct trace_map *map = target ? map_for(tl, g, T) : NULL;
    const struct trace_map_site *site = map ? coll_trace_map_find(map, region, target) : NULL;
    if (site && site->pt) {
      pt = site->pt;
      line = site->line;
      chain = site->chain;
    } else if (site) {
      const struct trace_map_line *l = nth_call(map, site, ra, mcode + start, mcode + end);
      if (l && l->pt) {
        pt = l->pt;
        line = l->line;
        chain = l->chain;
      }
    }
    if (chain && map && chain <= map->nchains && map->chains[chain - 1].valid)
      e->chain = &map->chains[chain - 1];
  }
  e->ra = ra;
  e->trace = T;
  e->pt = pt;
  e->line = line;
  e->stack_generation = 0;   /* no stack recorded through it yet (callstack.h) */
  e->stamp = tl->stamp;   /* after map_for, which may have voided older entries */
  return e;
}

int coll_trace_line_exit_site(struct trace_line_state *tl, global_State *g, const void *old_ptr,
                              const GCproto **pt, uint64_t *line, const struct trace_chain **chain)
{
  jit_State *J = G2J(g);
  /* After the snapshot is restored the exit may start recording a side
   * trace: allocations then are the recorder's. */
  if (!tl->ntargets || J->state != LJ_TRACE_IDLE)
    return 0;
  const GCtrace *T = coll_attrib_trace(g, J->parent);
  if (!T || J->exitno >= T->nsnap || T == &J->cur)
    return 0;
  GCobj *o = gcref(g->cur_L);
  if (!o || o->gch.gct != ~LJ_TTHREAD || (old_ptr && old_ptr == tvref(o->th.stack)))
    return 0;               /* the stack growing for the restored frames */
  const struct trace_map *map = map_for(tl, g, T);
  if (!map || J->exitno >= map->nsnap)
    return 0;
  const struct trace_map_exit *x = &map->exits[J->exitno];
  if (!x->sunk || !x->pt)
    return 0;
  *pt = x->pt;
  *line = x->line;
  *chain = x->chain && x->chain <= map->nchains && map->chains[x->chain - 1].valid
               ? &map->chains[x->chain - 1] : NULL;
  return 1;
}
