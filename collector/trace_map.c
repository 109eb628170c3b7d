/* collector/trace_map.c: builds a trace's map from its recording log: for each snapshot's machine code and each C function called there, the Lua line that allocates. */
#include "collector/trace_map.h"

#include <string.h>
#include <unistd.h>

#include "collector/attrib.h"
#include "lj_ircall.h"
#include "lj_target.h"

/* Pseudo-ops of the keys that pair a loop's copied instructions with the
 * recorded ones (loop_key). */
#define KEY_STRING 0xffffu     /* any string or buffer operation: folding turns one into another */
#define KEY_CALL 0xfffeu       /* another call, by its id */

/* IR calls that build strings or grow buffers, by name (lj_ircall.h). */
static int call_builds_string(unsigned id)
{
  static const char *const names[] = {
#define TRACE_MAP_CALLNAME(cond, name, nargs, kind, type, flags) #name,
    IRCALLDEF(TRACE_MAP_CALLNAME)
#undef TRACE_MAP_CALLNAME
  };
  if (id >= sizeof names / sizeof names[0])
    return 0;
  const char *n = names[id];
  return strcmp(n, "lj_str_new") == 0 || strncmp(n, "lj_strfmt_", 10) == 0 ||
         strncmp(n, "lj_buf_", 7) == 0 || strncmp(n, "lj_bufx_", 8) == 0;
}

uint64_t coll_trace_map_fingerprint(const GCtrace *T, const GCproto *root_start)
{
  uint64_t h = (uint64_t)(uintptr_t)T;
  uint64_t parts[] = {
    (uint64_t)(uintptr_t)mref(T->startpc, const BCIns), (uint64_t)(uintptr_t)gcref(T->startpt),
    (uint64_t)(uintptr_t)T->mcode, T->szmcode, T->nins, T->nk, T->nsnap, T->nsnapmap,
    T->traceno, T->root, T->spadjust, (uint64_t)(uintptr_t)root_start,
  };
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    h = (h ^ parts[i]) * 0x100000001b3ull + (h >> 29);
  /* The constants: the prototypes a map names are those they hold. */
  for (IRRef ref = T->nk; ref < REF_BIAS; ref++) {
    uint64_t word;
    memcpy(&word, &T->ir[ref], sizeof word);
    h = (h ^ word) * 0x100000001b3ull + (h >> 29);
  }
  return h | 1;
}

/* The operands that a recorded instruction and the trace's must share. */
static int same_instruction(const struct trace_log_entry *e, const IRIns *ir)
{
  if (e->op != ir->o)
    return 0;
  switch (ir->o) {
  case IR_TNEW: return e->op1 == ir->op1 && e->op2 == ir->op2;
  case IR_TDUP: case IR_CNEW: case IR_CNEWI: return e->op1 == ir->op1;
  case IR_CALLN: case IR_CALLA: case IR_CALLL: case IR_CALLS: return e->op2 == ir->op2;
  default: return 1;
  }
}

/* Pairs a copy in the loop body with the recorded instructions it may copy:
 * the same op and constant operands (their copies keep them). Folding may
 * turn a buffer's puts into calls and back, and drop a put (a string put
 * into a new buffer appends to the buffer that made it), so those share
 * one key; but no fold makes a BUFSTR or a TOSTR of anything else (lj_opt_fold.c:
 * a copy of one is one, a constant, or an instruction made before), so
 * those keep theirs. */
static uint32_t loop_key(const IRIns *ir)
{
  switch (ir->o) {
  case IR_TNEW: return ((uint32_t)IR_TNEW << 16) ^ ir->op1 ^ ((uint32_t)ir->op2 << 8);
  case IR_TDUP: case IR_CNEW: case IR_CNEWI: return ((uint32_t)ir->o << 16) ^ ir->op1;
  case IR_NEWREF: return (uint32_t)IR_NEWREF << 16;
  case IR_BUFSTR: return (uint32_t)IR_BUFSTR << 16;
  case IR_TOSTR: return ((uint32_t)IR_TOSTR << 16) | ir->op2;
  case IR_CALLN: case IR_CALLA: case IR_CALLL: case IR_CALLS:
    return call_builds_string(ir->op2) ? KEY_STRING << 16 : (KEY_CALL << 16) | ir->op2;
  default: return KEY_STRING << 16;
  }
}

/* Whether the assembler kept a register or spill slot for ir: an
 * instruction without either that is no store left no code (its one use
 * fused it into another instruction's). */
static int ir_used(const IRIns *ir)
{
  return ra_hasreg(ir->r) || ra_hasspill(ir->s);
}

/* LuaJIT's lj_ir_mode (lj_ir.c; the library does not export it): each
 * op's mode, with IRM_W inverted (set for ops whose guard is not weak). */
static const uint8_t ir_modes[] = {IRDEF(IRMODE) 0};
_Static_assert(sizeof ir_modes == IR__MAX + 1, "a mode for every IR op");

/* Whether the assembler emitted code for ir: it skips an instruction that
 * is not used and has no side effect (lj_asm.c, "Dead-code elimination can
 * be soooo easy", with LuaJIT's ir_sideeff): an allocation whose result
 * the trace never uses, such as a string built for a call the trace
 * inlined and whose result it dropped, or one whose only use was
 * eliminated (a lookup in a table the trace knows to be empty). A guard
 * on such an op (BUFSTR, TNEW, CALLA, ...) is weak: it does not keep it.
 * dce: the JIT's dead-code elimination is on (jit.opt's "dce", as it is
 * unless the program turned it off). */
static int ir_assembled(const IRIns *ir, int dce)
{
  if (!dce || ir->o >= IR__MAX)
    return 1;
  return ir_used(ir) || ((ir->t.irt | ~IRT_GUARD) & ir_modes[ir->o]) >= IRM_S;
}

/* The function the machine code of ir calls, as the assembler chose it
 * (lj_asm.c, lj_asm_x86.h); NULL if it calls none of the VM's allocating
 * functions: dead, sunk or fused into another instruction. A wrong guess
 * here only makes the count of calls in the code differ, which
 * trace_line.c checks before it trusts an order. */
static const void *exact_target(const GCtrace *T, const IRIns *ir, const void *const *targets,
                                int dce)
{
  if (ir->o == IR_NOP || ir->r == RID_SUNK || ir->r == RID_SINK || !ir_assembled(ir, dce))
    return NULL;
  switch (ir->o) {
  case IR_TNEW: return targets[IRCALL_lj_tab_new1];
  case IR_TDUP: return targets[IRCALL_lj_tab_dup];
  case IR_CNEW:
    return targets[ir->op2 != REF_NIL ? IRCALL_lj_cdata_newv : IRCALL_lj_mem_newgco];
  case IR_CNEWI: return targets[IRCALL_lj_mem_newgco];
  case IR_SNEW: case IR_XSNEW: return ir_used(ir) ? targets[IRCALL_lj_str_new] : NULL;
  case IR_BUFSTR: return targets[IRCALL_lj_buf_tostr];
  case IR_NEWREF: return targets[IRCALL_lj_tab_newkey];
  case IR_TOSTR:
    if (!ir_used(ir))
      return NULL;
    return targets[ir->op2 == IRTOSTR_NUM   ? IRCALL_lj_strfmt_num
                   : ir->op2 == IRTOSTR_INT ? IRCALL_lj_strfmt_int
                                            : IRCALL_lj_strfmt_char];
  case IR_BUFPUT: {
    const IRIns *irs = &T->ir[ir->op2];
    if (irs->o == IR_KGC)
      return targets[ir_kstr(irs)->len == 1 ? IRCALL_lj_buf_putchar : IRCALL_lj_buf_putstr];
    if (irs->o == IR_TOSTR && !ir_used(irs))
      return targets[irs->op2 == IRTOSTR_NUM   ? IRCALL_lj_strfmt_putnum
                     : irs->op2 == IRTOSTR_INT ? IRCALL_lj_strfmt_putint
                                               : IRCALL_lj_buf_putchar];
    if (irs->o == IR_SNEW && !ir_used(irs))
      return targets[IRCALL_lj_buf_putmem];
    return targets[IRCALL_lj_buf_putstr];
  }
  case IR_CALLN: case IR_CALLA: case IR_CALLL: case IR_CALLS:
    return ir->op2 < IRCALL__MAX ? targets[ir->op2] : NULL;
  default:
    return NULL;
  }
}

/* The snapshot whose IR holds ref (the rightmost that starts at or before). */
static uint32_t region_of_ref(const GCtrace *T, IRRef ref)
{
  uint32_t lo = 0, hi = T->nsnap;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (T->snap[mid].ref <= ref)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* What the builder knows of each IR instruction: its Lua line, and the
 * chain of its inlined callers (an index + 1 into the log's chains). */
struct ir_line {
  const GCproto *pt;         /* NULL: not known */
  uint32_t line;
  uint32_t chain;
};

struct builder {
  const GCtrace *T;
  const struct trace_log *log;
  const void *const *targets;
  IRRef loopref;             /* IR_LOOP, or 0 */
  struct ir_line *lines;     /* [nins - REF_BIAS] */
  const GCproto **protos;    /* the prototypes the trace and its ancestors keep alive */
  uint32_t nprotos;
  IRRef *allocs;             /* the logged ops of the trace, in order */
  uint32_t nallocs;
  struct trace_map_site *calls;  /* one per call, in the order of the IR */
  uint32_t ncalls;
  const struct trace_map *parent;
  const GCproto *root_start;
  int dce;                   /* the JIT's dead-code elimination is on */
  struct trace_map_sunk *sunk;   /* what each exit makes, exit after exit */
  uint32_t nsunk;
  struct trace_map_exit *exits;  /* [nsnap] */
  const struct trace_chain **extra;  /* the parent's chains its replays name, after the log's */
  uint32_t nextra;
};

static int proto_live(const struct builder *b, const GCproto *pt)
{
  for (uint32_t i = 0; i < b->nprotos; i++)
    if (b->protos[i] == pt)
      return 1;
  return 0;
}

static void add_proto(struct builder *b, const GCproto *pt, uint32_t cap)
{
  if (pt && b->nprotos < cap && !proto_live(b, pt))
    b->protos[b->nprotos++] = pt;
}

/* Adds the prototypes trace X keeps alive (what the GC marks through it,
 * lj_gc.c gc_traverse_trace): its start and those its constants hold, a
 * prototype or a Lua function's. */
static void add_live_protos(struct builder *b, const GCtrace *X, uint32_t cap)
{
  add_proto(b, &gcref(X->startpt)->pt, cap);
  for (IRRef ref = X->nk; ref < REF_TRUE; ref++) {
    const IRIns *ir = &X->ir[ref];
    if (ir->o == IR_KGC) {
      GCobj *o = ir_kgc(ir);
      if (o->gch.gct == ~LJ_TPROTO)
        add_proto(b, &o->pt, cap);
      else if (o->gch.gct == ~LJ_TFUNC && isluafunc(&o->fn))
        add_proto(b, funcproto(&o->fn), cap);
    }
    if (irt_is64(ir->t) && ir->o != IR_KNULL)
      ref++;
  }
}

/* The trace that side trace X grew from: its parent, whose number the
 * recorder put into X's IR_BASE (lj_record_setup), if that is a live
 * trace of X's tree; NULL for a root trace. A side trace lives no longer
 * than its parent, and runs only after it (it is entered from the
 * parent's exit): the root's chain of side traces keeps every trace of a
 * tree, which is flushed and collected as one. */
static const GCtrace *trace_parent(global_State *g, const GCtrace *X)
{
  if (!X->root || X->nins <= REF_BASE || X->ir[REF_BASE].o != IR_BASE)
    return NULL;
  const GCtrace *P = coll_attrib_trace(g, X->ir[REF_BASE].op1);
  if (!P || P == X || P == &G2J(g)->cur || (P->root ? P->root : P->traceno) != X->root)
    return NULL;
  return P;
}

/* The line of pc in pt, if pt is alive and pc is one of its instructions. */
static int line_of(const struct builder *b, const GCproto *pt, const BCIns *pc,
                   struct ir_line *out)
{
  if (!pt || !proto_live(b, pt) || pc < proto_bc(pt) || pc >= proto_bc(pt) + pt->sizebc)
    return 0;
  uint64_t line = coll_attrib_proto_line(pt, proto_bcpos(pt, pc));
  if (line == 0)
    return 0;
  out->pt = pt;
  out->line = (uint32_t)line;
  return 1;
}

static int is_allocation(unsigned op)
{
  return op == IR_TNEW || op == IR_TDUP || op == IR_CNEW || op == IR_CNEWI;
}

/* Adds a line to found, the line several allocations share: 0 if it is not
 * known or not found's; the chain stays only if they share it too. */
static int same_line(struct ir_line *found, const GCproto *pt, uint32_t line, uint32_t chain)
{
  if (!pt || (found->pt && (found->pt != pt || found->line != line)))
    return 0;
  *found = (struct ir_line){pt, line, found->pt && found->chain != chain ? 0 : chain};
  return 1;
}

/* The index + 1 in the map's chains of the parent's chain c (an index + 1
 * in the parent's), added after the log's if new; 0 if c is not known. */
static uint32_t parent_chain(struct builder *b, uint32_t c)
{
  const struct trace_map *p = b->parent;
  if (c == 0 || c > p->nchains || !p->chains[c - 1].valid)
    return 0;
  uint32_t i = 0;
  while (i < b->nextra && b->extra[i] != &p->chains[c - 1])
    i++;
  if (i == b->nextra)
    b->extra[b->nextra++] = &p->chains[c - 1];
  return b->log->nchains + i + 1;
}

/* Lines of the recorded instructions: from the log, and for the IR after
 * the last event, the last bytecode's. 0, or -1 if the log does not fit. */
static int recorded_lines(struct builder *b)
{
  const GCtrace *T = b->T;
  const struct trace_log *log = b->log;
  IRRef end = b->loopref ? b->loopref : T->nins;
  for (uint32_t i = 0; i < log->n; i++) {
    const struct trace_log_entry *e = &log->entries[i];
    if (e->ref < REF_FIRST || e->ref >= end)
      return -1;
    const IRIns *ir = &T->ir[e->ref];
    if (ir->o == IR_NOP)
      continue;               /* dead code, eliminated */
    if (!same_instruction(e, ir))
      return -1;
    if (line_of(b, e->pt, e->pc, &b->lines[e->ref - REF_BIAS]))
      b->lines[e->ref - REF_BIAS].chain = e->chain;
  }
  for (IRRef ref = log->last_nins; ref < end; ref++)
    if (coll_trace_log_op_logged(T->ir[ref].o) &&
        line_of(b, log->attr_pt, log->attr_pc, &b->lines[ref - REF_BIAS]))
      b->lines[ref - REF_BIAS].chain = log->attr_chain;
  /* A side trace first makes what its parent's exit had sunk: each such
   * allocation has the line of the one it replays (the same key), and its
   * callers (a side trace has its parent's base). That
   * line's prototype may be one the side trace's constants do not hold (a
   * constructor inlined in the parent): it was alive in the parent's map,
   * and a side trace lives no longer than its parent (a trace is flushed
   * with its root and every trace grown from it). */
  const struct trace_map *p = b->parent;
  if (p && log->exitno < p->nsnap) {
    const struct trace_map_exit *x = &p->exits[log->exitno];
    for (IRRef ref = REF_FIRST; ref < log->first_nins && ref < end; ref++) {
      if (!is_allocation(T->ir[ref].o))
        continue;
      uint64_t key = coll_trace_map_alloc_key(T, &T->ir[ref]);
      struct ir_line found = {NULL, 0, 0};
      int one = 1;
      for (uint32_t i = x->sunk_first; i < x->sunk_first + x->sunk_count && one; i++) {
        const struct trace_map_sunk *k = &p->sunk[i];
        if (k->key == key)
          one = same_line(&found, k->pt, k->line, k->chain);
      }
      if (one && found.pt)
        b->lines[ref - REF_BIAS] = (struct ir_line){found.pt, found.line, parent_chain(b, found.chain)};
    }
  }
  return 0;
}

/* Lines of the loop body's copies: the k-th copy with a key is one of the
 * recorded instructions with that key from the k-th to the (k + n - m)-th
 * (n recorded, m copies: copies keep their order and never multiply). */
static void loop_lines(struct builder *b)
{
  const GCtrace *T = b->T;
  for (uint32_t i = 0; i < b->nallocs; i++) {
    IRRef x = b->allocs[i];
    if (x < b->loopref)
      continue;
    uint32_t key = loop_key(&T->ir[x]);
    uint32_t n = 0, m = 0, k = 0;
    for (uint32_t j = 0; j < b->nallocs; j++) {
      IRRef y = b->allocs[j];
      if (loop_key(&T->ir[y]) != key)
        continue;
      if (y < b->loopref)
        n++;
      else if (y < x)
        k++, m++;
      else
        m++;
    }
    if (m > n)
      continue;
    struct ir_line found = {NULL, 0, 0};
    uint32_t seen = 0, ok = 1;
    for (uint32_t j = 0; j < b->nallocs && ok; j++) {
      IRRef y = b->allocs[j];
      if (y >= b->loopref || loop_key(&T->ir[y]) != key)
        continue;
      if (seen >= k && seen <= k + (n - m)) {
        const struct ir_line *l = &b->lines[y - REF_BIAS];
        if (!l->pt || (found.pt && (found.pt != l->pt || found.line != l->line)))
          ok = 0;
        if (found.pt && found.chain != l->chain)
          found.chain = 0;           /* one line, several callers: the chain is not known */
        else
          found = *l;
      }
      seen++;
    }
    if (ok && found.pt)
      b->lines[x - REF_BIAS] = found;   /* its chain, if the candidates share it */
  }
}

/* One site per call: its snapshot, target and line. The IR's order is the
 * code's within a snapshot (the assembler emits each instruction's code
 * below the next one's). */
static void collect_calls(struct builder *b)
{
  for (uint32_t i = 0; i < b->nallocs; i++) {
    IRRef ref = b->allocs[i];
    const void *target = exact_target(b->T, &b->T->ir[ref], b->targets, b->dce);
    if (!target)
      continue;
    const struct ir_line *l = &b->lines[ref - REF_BIAS];
    b->calls[b->ncalls++] = (struct trace_map_site){
      .target = target, .pt = l->pt, .region = region_of_ref(b->T, ref),
      .line = l->pt ? l->line : 0, .chain = l->pt ? l->chain : 0,
    };
  }
}

static int site_order(const struct trace_map_site *a, const struct trace_map_site *b)
{
  if (a->region != b->region)
    return a->region < b->region ? -1 : 1;
  return a->target < b->target ? -1 : a->target > b->target;
}

/* Whether sunk store irs fills sunk allocation ira (lj_snap.c,
 * snap_sunk_store). */
static int sunk_store(const GCtrace *T, const IRIns *ira, const IRIns *irs)
{
  if (irs->s != 255)
    return ira + irs->s == irs;
  if (irs->o != IR_ASTORE && irs->o != IR_HSTORE && irs->o != IR_FSTORE && irs->o != IR_XSTORE)
    return 0;
  const IRIns *irk = &T->ir[irs->op1];
  if (irk->o == IR_AREF || irk->o == IR_HREFK)
    irk = &T->ir[irk->op1];
  return &T->ir[irk->op1] == ira;
}

static int sunk_allocation(const GCtrace *T, IRRef ref)
{
  return !irref_isk(ref) && ref < T->nins && T->ir[ref].r == RID_SUNK &&
         is_allocation(T->ir[ref].o);
}

/* What an exit through snapshot k materialises (lj_snap.c, snap_unsink):
 * the sunk allocations its slots hold, and those stored into them before
 * it. Its line is theirs if they share one, else the line it resumes at. */
static void exit_of(struct builder *b, uint32_t k, struct trace_map_exit *out)
{
  const GCtrace *T = b->T;
  const SnapShot *snap = &T->snap[k];
  const SnapEntry *map = &T->snapmap[snap->mapofs];
  memset(out, 0, sizeof *out);
  out->sunk_first = b->nsunk;
  IRRef *made = b->allocs + b->nallocs;   /* scratch after the logged ops */
  uint32_t nmade = 0;
  for (uint32_t i = 0; i < snap->nent; i++) {
    IRRef ref = snap_ref(map[i]);
    int seen = 0;
    for (uint32_t j = 0; j < nmade && !seen; j++)
      seen = made[j] == ref;
    if (!seen && sunk_allocation(T, ref))
      made[nmade++] = ref;
  }
  for (uint32_t j = 0; j < nmade; j++) {
    const IRIns *ira = &T->ir[made[j]];
    for (IRRef s = made[j] + 1; s < snap->ref; s++) {
      const IRIns *irs = &T->ir[s];
      if (irs->r != RID_SINK || !sunk_store(T, ira, irs) || !sunk_allocation(T, irs->op2))
        continue;
      int seen = 0;
      for (uint32_t i = 0; i < nmade && !seen; i++)
        seen = made[i] == irs->op2;
      if (!seen)
        made[nmade++] = irs->op2;
    }
  }
  if (nmade == 0)
    return;
  out->sunk = 1;
  struct ir_line found = {NULL, 0, 0};
  int one = 1;
  for (uint32_t j = 0; j < nmade; j++) {
    const struct ir_line *l = &b->lines[made[j] - REF_BIAS];
    b->sunk[b->nsunk++] = (struct trace_map_sunk){coll_trace_map_alloc_key(T, &T->ir[made[j]]),
                                                  l->pt, l->pt ? l->line : 0, l->pt ? l->chain : 0};
    one = one && same_line(&found, l->pt, l->line, l->chain);
  }
  out->sunk_count = nmade;
  if (one && found.pt) {
    out->pt = found.pt;
    out->line = found.line;
    out->chain = found.chain;
    return;
  }
  /* The exit's own line: its PC is in one of the trace's prototypes. */
  const BCIns *pc = snap_pc((SnapEntry *)&map[snap->nent]);
  for (uint32_t i = 0; i < b->nprotos; i++) {
    struct ir_line l;
    if (line_of(b, b->protos[i], pc, &l)) {
      out->pt = l.pt;
      out->line = l.line;
      return;
    }
  }
}

uint64_t coll_trace_map_alloc_key(const GCtrace *T, const IRIns *ir)
{
  uint64_t v;
  switch (ir->o) {
  case IR_TNEW: v = (uint64_t)ir->op1 << 16 | ir->op2; break;
  case IR_TDUP: v = (uint64_t)(uintptr_t)ir_ktab(&T->ir[ir->op1]); break;
  default: v = (uint64_t)(uint32_t)T->ir[ir->op1].i; break;   /* CNEW, CNEWI: the ctype */
  }
  return (v * 0x9e3779b97f4a7c15ull) ^ ir->o;
}

static size_t round_pages(size_t size)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (size + page - 1) / page * page;
}

/* The log's chains, then the parent's the builder took, for the map; a chain
 * naming a prototype that the trace does not keep alive is not valid there. */
static void copy_chains(const struct builder *b, struct trace_chain *out, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++) {
    out[i] = i < b->log->nchains ? b->log->chains[i] : *b->extra[i - b->log->nchains];
    for (uint32_t k = 0; k < out[i].count && out[i].valid; k++)
      if (out[i].callers[k].pt && !proto_live(b, out[i].callers[k].pt))
        out[i].valid = 0;
  }
}

/* Copies what the builder found into one mapping: the calls sorted by
 * snapshot and target (a stable sort: the code's order stays), one site
 * per snapshot and target over its run of calls. */
static struct trace_map *finish(struct builder *b)
{
  const GCtrace *T = b->T;
  for (uint32_t k = 0; k < T->nsnap; k++)
    exit_of(b, k, &b->exits[k]);
  struct trace_map_site *c = b->calls;
  for (uint32_t i = 1; i < b->ncalls; i++) {
    struct trace_map_site s = c[i];
    uint32_t j = i;
    for (; j > 0 && site_order(&s, &c[j - 1]) < 0; j--)
      c[j] = c[j - 1];
    c[j] = s;
  }
  uint32_t nsites = 0;
  for (uint32_t i = 0; i < b->ncalls; i++)
    nsites += i == 0 || site_order(&c[i], &c[i - 1]) != 0;
  size_t size = sizeof(struct trace_map) + (T->nsnap + 1) * sizeof(uint32_t);
  size = (size + 15) & ~(size_t)15;
  size_t sites_at = size;
  size += nsites * sizeof(struct trace_map_site);
  size_t ordinals_at = size;
  size += b->ncalls * sizeof(struct trace_map_line);
  size_t exits_at = size;
  size += T->nsnap * sizeof(struct trace_map_exit);
  size_t sunk_at = size;
  size += b->nsunk * sizeof(struct trace_map_sunk);
  size = (size + 15) & ~(size_t)15;
  size_t chains_at = size;
  uint32_t nchains = b->log->nchains + b->nextra;
  size += nchains * sizeof(struct trace_chain);
  size = round_pages(size);
  struct trace_map *map = coll_trace_log_pages(size);
  if (!map)
    return NULL;
  map->size = size;
  map->trace = T;
  map->fp = coll_trace_map_fingerprint(T, b->root_start);
  map->nsnap = T->nsnap;
  map->nsites = nsites;
  map->region_first = (uint32_t *)(map + 1);
  map->sites = (struct trace_map_site *)((char *)map + sites_at);
  map->ordinals = (struct trace_map_line *)((char *)map + ordinals_at);
  map->exits = (struct trace_map_exit *)((char *)map + exits_at);
  map->sunk = (struct trace_map_sunk *)((char *)map + sunk_at);
  memcpy(map->exits, b->exits, T->nsnap * sizeof *b->exits);
  map->chains = (struct trace_chain *)((char *)map + chains_at);
  map->nchains = nchains;
  copy_chains(b, map->chains, nchains);
  memcpy(map->sunk, b->sunk, b->nsunk * sizeof *b->sunk);
  struct trace_map_site *site = NULL;
  for (uint32_t i = 0; i < b->ncalls; i++) {
    map->ordinals[i] = (struct trace_map_line){c[i].pt, c[i].line, c[i].chain};
    if (i == 0 || site_order(&c[i], &c[i - 1]) != 0) {
      site = site ? site + 1 : map->sites;
      *site = c[i];
      site->first = i;
      site->count = 0;
    } else if (site->pt != c[i].pt || site->line != c[i].line) {
      site->pt = NULL;     /* more than one line (or one not known) */
      site->line = 0;
    } else if (site->chain != c[i].chain) {
      site->chain = 0;     /* one line, several callers */
    }
    site->count++;
  }
  uint32_t s = 0;
  for (uint32_t k = 0; k <= T->nsnap; k++) {
    while (s < nsites && map->sites[s].region < k)
      s++;
    map->region_first[k] = s;
  }
  return map;
}

struct trace_map *coll_trace_map_build(global_State *g, const struct trace_log *log,
                                       const GCtrace *T, const void *const *targets,
                                       const struct trace_map *parent, const GCproto *root_start)
{
  if (!coll_trace_log_matches(log, T) || T->nsnap == 0 || T->nins <= REF_FIRST)
    return NULL;
  jit_State *J = G2J(g);
  struct builder b = {.T = T, .log = log, .targets = targets, .parent = parent,
                      .root_start = root_start, .dce = (J->flags & JIT_F_OPT_DCE) != 0};
  size_t nins = T->nins - REF_BIAS;
  for (IRRef ref = REF_FIRST; ref < T->nins; ref++)
    if (T->ir[ref].o == IR_LOOP)
      b.loopref = ref;
  /* A side trace's ancestors: its parent (the one the log names), its
   * parent's parent, up to the root. The code it recorded may belong to a
   * function only they name: a side trace starts with the frames of its
   * parent's exit, and returns into them without a guard of its own (a
   * side trace that starts in a library function inlined into the
   * program's loop runs on into the loop's next turn: the program's
   * function is a constant of the parent that entered it, or of its
   * ancestor). */
  uint32_t nancestors = 0;
  uint32_t nk = REF_BIAS - T->nk + 2, nsunk = 0;   /* the constants, the start, the root's */
  if (log->parent && T->ir[REF_BASE].o == IR_BASE && T->ir[REF_BASE].op1 == log->parent)
    for (const GCtrace *A = trace_parent(g, T); A && nancestors < J->sizetrace;
         A = trace_parent(g, A), nancestors++)
      nk += REF_BIAS - A->nk + 1;
  /* Scratch: lines by IR, the calls, what the exits make (an exit makes
   * at most every allocation once), the exits, protos, the logged ops and
   * room after them for one exit's allocations. */
  for (IRRef ref = REF_FIRST; ref < T->nins; ref++)
    nsunk += sunk_allocation(T, ref);
  size_t scratch = nins * sizeof(struct ir_line) + nins * sizeof(struct trace_map_site) +
                   (size_t)T->nsnap * nsunk * sizeof(struct trace_map_sunk) +
                   T->nsnap * sizeof(struct trace_map_exit) + nk * sizeof(GCproto *) +
                   nins * sizeof(struct trace_chain *) + 2 * nins * sizeof(IRRef) + 64;
  scratch = round_pages(scratch);
  char *mem = coll_trace_log_pages(scratch);
  if (!mem)
    return NULL;
  b.lines = (struct ir_line *)mem;
  b.calls = (struct trace_map_site *)(b.lines + nins);
  b.sunk = (struct trace_map_sunk *)(b.calls + nins);
  b.exits = (struct trace_map_exit *)(b.sunk + (size_t)T->nsnap * nsunk);
  b.protos = (const GCproto **)(b.exits + T->nsnap);
  b.extra = (const struct trace_chain **)(b.protos + nk);
  b.allocs = (IRRef *)(b.extra + nins);
  add_live_protos(&b, T, nk);
  add_proto(&b, root_start, nk);
  const GCtrace *A = nancestors ? trace_parent(g, T) : NULL;
  for (uint32_t i = 0; A && i < nancestors; A = trace_parent(g, A), i++)
    add_live_protos(&b, A, nk);
  for (IRRef ref = REF_FIRST; ref < T->nins; ref++)
    if (coll_trace_log_op_logged(T->ir[ref].o))
      b.allocs[b.nallocs++] = ref;
  struct trace_map *map = NULL;
  if (recorded_lines(&b) == 0) {
    if (b.loopref)
      loop_lines(&b);
    collect_calls(&b);
    map = finish(&b);
  }
  coll_trace_log_unpages(mem, scratch);
  return map;
}

void coll_trace_map_free(struct trace_map *map)
{
  if (map)
    coll_trace_log_unpages(map, map->size);
}
