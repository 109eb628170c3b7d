/* diff/holders.c: holder paths and retained sizes of growing sites, from a heap snapshot (docs/diff.md, "Holders"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/suspects.h"
#include "format/capture_index.h"
#include "format/capture_layout.h"
#include "format/memprof.h"

/* ---- Dominators ------------------------------------------------------------- */

/* Lengauer and Tarjan's algorithm, its simple version (path compression without balancing):
 * O(E log N) on any graph. Cooper, Harvey and Kennedy's iterative one, here before, walks up the
 * dominator tree from each predecessor of a node to the others' meeting point: every node of a
 * Lua list of N nodes refers to its key string ("next"), and the globals table too, so the
 * string's predecessors cost N steps each, N^2 in all. Arrays are indexed by preorder number,
 * the root 0. */

/* The forest's ancestor of v with the least semidominator on the way up, the way compressed;
 * iterative (a chain of a million nodes is a path of a million), path a scratch stack. */
static uint32_t holders_eval(uint32_t *ancestor, uint32_t *label, const uint32_t *semi, uint32_t *path,
                             uint32_t v)
{
  if (ancestor[v] == DIFF_HOLDERS_NONE)
    return v;
  size_t depth = 0;
  for (uint32_t x = v; ancestor[ancestor[x]] != DIFF_HOLDERS_NONE; x = ancestor[x])
    path[depth++] = x;
  while (depth--) {  /* from the top down: each node's ancestor is compressed already */
    uint32_t x = path[depth], a = ancestor[x];
    if (semi[label[a]] < semi[label[x]])
      label[x] = label[a];
    ancestor[x] = ancestor[a];
  }
  return label[v];
}

int diff_holders_dominators(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                            uint32_t root, uint32_t *idom, uint32_t *order, uint32_t *reached)
{
  size_t n = node_count ? node_count : 1, edges = first[node_count];
  uint32_t *semi = malloc(n * sizeof *semi);          /* the walk: each node's number */
  uint32_t *link = malloc(n * sizeof *link);          /* the walk: the next edge; then buckets' */
  uint32_t *stack = malloc(n * sizeof *stack);        /* the walk's stack; then holders_eval's */
  uint32_t *ancestor = malloc(n * sizeof *ancestor);
  uint32_t *label = malloc(n * sizeof *label);
  uint32_t *bucket = malloc(n * sizeof *bucket);
  uint32_t *pred_first = calloc(n + 1, sizeof *pred_first);
  uint32_t *pred = malloc((edges ? edges : 1) * sizeof *pred);
  int status = -1;
  if (!semi || !link || !stack || !ancestor || !label || !bucket || !pred_first || !pred)
    goto done;
  /* A number's parent in the walk's tree and its immediate dominator share idom: the dominator
   * of v is set while the loop below takes a number at or below v, whose parent is read first,
   * and no parent above is read again. */
  uint32_t *number = semi, *parent = idom;
  for (uint32_t v = 0; v < node_count; v++)
    number[v] = DIFF_HOLDERS_NONE;
  /* Preorder numbers by an iterative depth-first walk; order[i] is node number i. */
  uint32_t count = 0, depth = 0;
  number[root] = count;
  order[count] = root;
  parent[count++] = 0;
  link[root] = first[root];
  stack[depth++] = root;
  while (depth) {
    uint32_t v = stack[depth - 1];
    if (link[v] == first[v + 1]) {
      depth--;
      continue;
    }
    uint32_t w = succ[link[v]++];
    if (number[w] != DIFF_HOLDERS_NONE)
      continue;
    number[w] = count;
    order[count] = w;
    parent[count++] = number[v];
    link[w] = first[w];
    stack[depth++] = w;
  }
  /* Predecessors by number, among reached nodes. */
  for (uint32_t v = 0; v < node_count; v++)
    if (number[v] != DIFF_HOLDERS_NONE)
      for (uint32_t e = first[v]; e < first[v + 1]; e++)
        pred_first[number[succ[e]] + 1]++;
  for (uint32_t i = 0; i < count; i++)
    pred_first[i + 1] += pred_first[i];
  memcpy(link, pred_first, (size_t)count * sizeof *link);
  for (uint32_t v = 0; v < node_count; v++)
    if (number[v] != DIFF_HOLDERS_NONE)
      for (uint32_t e = first[v]; e < first[v + 1]; e++)
        pred[link[number[succ[e]]]++] = number[v];
  for (uint32_t i = 0; i < count; i++) {
    semi[i] = label[i] = i;
    ancestor[i] = bucket[i] = DIFF_HOLDERS_NONE;
  }
  /* Semidominators from the last number up; a node's immediate dominator as soon as its
   * semidominator's subtree is linked (idom holds numbers until the end). */
  for (uint32_t i = count; i-- > 1;) {
    uint32_t p = parent[i];
    for (uint32_t e = pred_first[i]; e < pred_first[i + 1]; e++) {
      uint32_t u = holders_eval(ancestor, label, semi, stack, pred[e]);
      if (semi[u] < semi[i])
        semi[i] = semi[u];
    }
    link[i] = bucket[semi[i]];
    bucket[semi[i]] = i;
    ancestor[i] = p;
    for (uint32_t v = bucket[p]; v != DIFF_HOLDERS_NONE; v = link[v]) {
      uint32_t u = holders_eval(ancestor, label, semi, stack, v);
      idom[v] = semi[u] < semi[v] ? u : p;
    }
    bucket[p] = DIFF_HOLDERS_NONE;
  }
  for (uint32_t i = 1; i < count; i++)
    if (idom[i] != semi[i])
      idom[i] = idom[idom[i]];
  idom[0] = 0;
  /* From numbers to nodes. */
  memcpy(label, idom, (size_t)count * sizeof *label);
  for (uint32_t v = 0; v < node_count; v++)
    idom[v] = DIFF_HOLDERS_NONE;
  for (uint32_t i = 0; i < count; i++)
    idom[order[i]] = order[label[i]];
  *reached = count;
  status = 0;
done:
  free(semi), free(link), free(stack), free(ancestor), free(label), free(bucket);
  free(pred_first), free(pred);
  return status;
}

/* ---- The graph of a snapshot ------------------------------------------------ */

#define HOLDERS_DEPTH 64            /* steps of a path shown (its root end); deeper ones are cut */

/* What an edge is, for the order in which paths are looked for (docs/diff.md, "Holders"): a
 * path over named edges first, then one through a temporary (a stack slot no local names),
 * then one through a value of a weak-keyed table, which holds it only while its key lives. */
enum holders_edge {
  HOLDERS_NAMED,
  HOLDERS_TEMPORARY,
  HOLDERS_WHILE_KEY           /* a weak-keyed table's value under a collectable key */
};
#define HOLDERS_VIA_TEMPORARY 1u    /* how[]: a temporary on the node's path */
#define HOLDERS_VIA_KEY 2u          /* ... a weak-keyed table's value on it */

/* A snapshot as a graph: objects 0 .. n-1, the roots' node n; edges over
 * references that hold (not weak, to an object of the snapshot). */
struct holders_graph {
  const struct snapshot *snapshot;
  uint32_t n;
  uint32_t *first;            /* [n + 2] */
  uint32_t *succ;
  uint32_t *succ_ref;         /* the reference of each edge; the root's: its root index */
  uint8_t *edge;              /* enum holders_edge of each edge */
  uint32_t *parent;           /* BFS tree: the node a node was reached from; NONE: unreached */
  uint32_t *parent_ref;       /* ... and the edge's reference (or root index) */
  uint32_t *top;              /* the node where a node's path is cut: itself within HOLDERS_DEPTH
                               * steps of the roots, else its ancestor HOLDERS_DEPTH steps down */
  uint8_t *depth;             /* a node's steps from the roots, at most HOLDERS_DEPTH */
  uint8_t *how;               /* HOLDERS_VIA_*: what its path goes through */
  uint32_t *key_step;         /* NULL when no edge is HOLDERS_WHILE_KEY; else the reference of the
                               * first such step of a node's path (its key's is the next), or NONE */
  uint64_t *retained;         /* [n + 1] bytes each node keeps alive */
  uint32_t *idom;             /* [n + 1] the dominator tree (NONE: unreached) */
  uint32_t *order;            /* [n + 1] its nodes in depth-first preorder, reached of them */
  uint32_t reached;
  uint32_t main_thread;       /* the object of the "main thread" root, or NONE */
  uint32_t registry;          /* the object of the "registry" root, or NONE */
  uint32_t loaded;            /* registry._LOADED (package.loaded), or NONE */
};

/* What the paths of a site's objects (or of the keys their notes name) are marked with, for
 * holders_collapsed: labels[node] the one text under which a node leads to them, + 1, or
 * MULTI, 0 off their paths; source[string id] the one object whose FIELD steps use the string,
 * + 1, or MULTI, 0 unseen. */
struct holders_marks {
  uint32_t *labels;
  uint32_t *source;
};

static uint32_t holders_object_index(const struct snapshot *snapshot, uint64_t address)
{
  const struct snapshot_object *o = snapshot_find(snapshot, address);
  return o ? (uint32_t)(o - snapshot->objects) : DIFF_HOLDERS_NONE;
}

_Static_assert(SNAPSHOT_NO_OBJECT == DIFF_HOLDERS_NONE, "a reference to no object is no node");

/* The string id of a reference's label; 0 for an INDEX (whose text holds its n). */
static uint32_t holders_text_id(const struct snapshot_reference *r)
{
  return r->kind == SNAPSHOT_REF_INDEX ? 0 : r->text;
}

static uint64_t holders_object_bytes(const struct snapshot *snapshot, const struct snapshot_object *o)
{
  uint64_t bytes = o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    bytes += snapshot->blocks[o->first_block + b].size;
  return bytes;
}

/* Frees the paths' arrays (the BFS tree and what it marks), keeping the dominator tree. */
static void holders_paths_free(struct holders_graph *g)
{
  free(g->parent), free(g->parent_ref), free(g->top), free(g->depth), free(g->how), free(g->key_step);
  g->parent = g->parent_ref = g->top = g->key_step = NULL;
  g->depth = g->how = NULL;
}

static void holders_graph_free(struct holders_graph *g)
{
  free(g->first), free(g->succ), free(g->succ_ref), free(g->edge);
  holders_paths_free(g);
  free(g->retained), free(g->idom), free(g->order);
}

/* The node of the key of the weak-keyed table's entry whose value reference is ref: the KEY
 * reference that follows it (the walk writes an entry's value, then its key), or NONE. */
static uint32_t holders_key_of(const struct snapshot *s, uint32_t ref)
{
  const struct snapshot_reference *r = &s->references[ref];
  if (ref + 1 >= s->reference_count || r[1].kind != SNAPSHOT_REF_KEY || r[1].text != holders_text_id(r))
    return DIFF_HOLDERS_NONE;
  return r[1].object;  /* SNAPSHOT_NO_OBJECT is DIFF_HOLDERS_NONE */
}

/* What an edge from object o by reference ref (index r) to object w is. Thread slots no
 * local names are temporaries ("slot N in ...", "slot N"). A weak-keyed table's value under
 * a key that is an object but not a string lives while that key lives (LuaJIT marks the
 * value, and clears the entry once the key is dead); under a string, a number or a boolean
 * it is held (a string is never a weak reference: lj_gc.c, gc_mayclear). */
static enum holders_edge holders_edge_kind(const struct snapshot *s, const struct snapshot_object *o,
                                           uint32_t r)
{
  const struct snapshot_reference *ref = &s->references[r];
  if (o->type == SNAPSHOT_THREAD && ref->kind == SNAPSHOT_REF_OTHER &&
      !strncmp(snapshot_string(s, ref->text), "slot ", 5))
    return HOLDERS_TEMPORARY;
  if (o->type == SNAPSHOT_TABLE && (o->flags & SNAPSHOT_FLAG_WEAK_KEYS) && ref->kind == SNAPSHOT_REF_KEYED &&
      r + 1 < o->first_reference + o->reference_count) {
    uint32_t key = holders_key_of(s, r);
    if (key != DIFF_HOLDERS_NONE && s->objects[key].type != SNAPSHOT_STRING)
      return HOLDERS_WHILE_KEY;
  }
  return HOLDERS_NAMED;
}

/* Reaches w from v by edge ref, at the queue's tail. */
static void holders_reach(struct holders_graph *g, uint32_t *queue, size_t *tail, uint32_t v, uint32_t w,
                          uint32_t ref, enum holders_edge kind)
{
  uint8_t d = g->depth[v];
  g->parent[w] = v;
  g->parent_ref[w] = ref;
  g->depth[w] = d < HOLDERS_DEPTH ? (uint8_t)(d + 1) : HOLDERS_DEPTH;
  g->top[w] = d < HOLDERS_DEPTH ? w : g->top[v];
  g->how[w] = (uint8_t)(g->how[v] | (kind == HOLDERS_TEMPORARY ? HOLDERS_VIA_TEMPORARY : 0) |
                        (kind == HOLDERS_WHILE_KEY ? HOLDERS_VIA_KEY : 0));
  if (g->key_step)
    g->key_step[w] = g->key_step[v] != DIFF_HOLDERS_NONE ? g->key_step[v]
                   : kind == HOLDERS_WHILE_KEY ? ref : DIFF_HOLDERS_NONE;
  queue[(*tail)++] = w;
}

/* Breadth first from queue[head] on, over the edges of the kinds in allow (a bit each). */
static void holders_walk(struct holders_graph *g, uint32_t *queue, size_t head, size_t *tail, unsigned allow)
{
  while (head < *tail) {
    uint32_t v = queue[head++];
    for (uint32_t k = g->first[v]; k < g->first[v + 1]; k++)
      if ((allow >> g->edge[k] & 1) && g->parent[g->succ[k]] == DIFF_HOLDERS_NONE)
        holders_reach(g, queue, tail, v, g->succ[k], g->succ_ref[k], g->edge[k]);
  }
}

/* The nodes that edges of kind lead to from queue[0 .. end), not reached yet, at the tail. */
static void holders_seed(struct holders_graph *g, uint32_t *queue, size_t end, size_t *tail,
                         enum holders_edge kind)
{
  for (size_t i = 0; i < end; i++) {
    uint32_t v = queue[i];
    for (uint32_t k = g->first[v]; k < g->first[v + 1]; k++)
      if (g->edge[k] == kind && g->parent[g->succ[k]] == DIFF_HOLDERS_NONE)
        holders_reach(g, queue, tail, v, g->succ[k], g->succ_ref[k], kind);
  }
}

/* Whether root index r is the one named name. */
static int holders_root_is(const struct snapshot *s, uint32_t r, const char *name)
{
  return !strcmp(snapshot_string(s, s->roots[r].text), name);
}

/* Shortest paths, named ones first (docs/diff.md, "Holders"): breadth first from the roots over
 * named edges; then from the temporaries those nodes hold, for the nodes not reached; then from
 * the values of weak-keyed tables. The roots in the order a programmer names things:
 * package.loaded (a module by its require name: as long as a global), the globals, the
 * registry, the main thread, the others. */
static void holders_paths(struct holders_graph *g, uint32_t *queue)
{
  const struct snapshot *s = g->snapshot;
  uint32_t n = g->n;
  for (uint32_t v = 0; v <= n; v++)
    g->parent[v] = DIFF_HOLDERS_NONE;
  if (g->key_step)
    for (uint32_t v = 0; v <= n; v++)
      g->key_step[v] = DIFF_HOLDERS_NONE;
  g->parent[n] = n;
  g->top[n] = n;
  g->depth[n] = 0;
  g->how[n] = 0;
  size_t tail = 1;  /* queue[0]: package.loaded, taken first */
  static const char *const order[] = {"globals", "registry", "main thread", NULL};
  for (int pass = 0; pass < 4; pass++)
    for (uint32_t k = g->first[n]; k < g->first[n + 1]; k++) {
      uint32_t r = g->succ_ref[k];
      int named = 0;
      for (int o = 0; o < 3; o++)
        named |= holders_root_is(s, r, order[o]);
      if ((pass < 3 ? holders_root_is(s, r, order[pass]) : !named) && g->parent[g->succ[k]] == DIFF_HOLDERS_NONE)
        holders_reach(g, queue, &tail, n, g->succ[k], r, HOLDERS_NAMED);
    }
  size_t head = 1;
  if (g->registry != DIFF_HOLDERS_NONE && g->parent[g->registry] == n) {
    for (uint32_t k = g->first[g->registry]; k < g->first[g->registry + 1]; k++) {
      const struct snapshot_reference *r = &s->references[g->succ_ref[k]];
      if (r->kind == SNAPSHOT_REF_FIELD && !strcmp(snapshot_string(s, r->text), "_LOADED") &&
          s->objects[g->succ[k]].type == SNAPSHOT_TABLE && g->parent[g->succ[k]] == DIFF_HOLDERS_NONE) {
        size_t at = 0;
        g->loaded = g->succ[k];
        holders_reach(g, queue, &at, g->registry, g->loaded, g->succ_ref[k], HOLDERS_NAMED);
        head = 0;
        break;
      }
    }
  }
  if (head)
    memmove(queue, queue + 1, (tail - 1) * sizeof *queue), tail--;
  holders_walk(g, queue, 0, &tail, 1u << HOLDERS_NAMED);
  size_t named = tail;
  holders_seed(g, queue, named, &tail, HOLDERS_TEMPORARY);
  holders_walk(g, queue, named, &tail, 1u << HOLDERS_NAMED | 1u << HOLDERS_TEMPORARY);
  if (g->key_step) {
    size_t strong = tail;
    holders_seed(g, queue, strong, &tail, HOLDERS_WHILE_KEY);
    holders_walk(g, queue, strong, &tail, 1u << HOLDERS_NAMED | 1u << HOLDERS_TEMPORARY | 1u << HOLDERS_WHILE_KEY);
  }
}

static int holders_graph_build(struct holders_graph *g, const struct snapshot *snapshot)
{
  memset(g, 0, sizeof *g);
  g->snapshot = snapshot;
  g->n = (uint32_t)snapshot->object_count;
  g->main_thread = g->registry = g->loaded = DIFF_HOLDERS_NONE;
  uint32_t n = g->n;
  size_t edges = snapshot->reference_count + snapshot->root_count;
  if (edges >= UINT32_MAX)
    return -1;  /* more than 32-bit edge indices: the reader takes fewer references */
  g->first = calloc((size_t)n + 2, sizeof *g->first);
  g->succ = malloc((edges ? edges : 1) * sizeof *g->succ);
  g->succ_ref = malloc((edges ? edges : 1) * sizeof *g->succ_ref);
  g->edge = malloc(edges ? edges : 1);
  if (!g->first || !g->succ || !g->succ_ref || !g->edge)
    return -1;
  uint32_t e = 0;
  int while_key = 0;
  for (uint32_t v = 0; v < n; v++) {
    const struct snapshot_object *o = &snapshot->objects[v];
    g->first[v] = e;
    for (uint32_t r = o->first_reference; r < o->first_reference + o->reference_count; r++) {
      const struct snapshot_reference *ref = &snapshot->references[r];
      uint32_t w = ref->object;  /* SNAPSHOT_NO_OBJECT is DIFF_HOLDERS_NONE */
      /* a weak reference holds nothing, but to a string: strings are never weak references */
      if (w == DIFF_HOLDERS_NONE || w == v || (ref->weak && snapshot->objects[w].type != SNAPSHOT_STRING))
        continue;
      g->succ[e] = w;
      g->edge[e] = (uint8_t)holders_edge_kind(snapshot, o, r);
      while_key |= g->edge[e] == HOLDERS_WHILE_KEY;
      g->succ_ref[e++] = r;
    }
  }
  g->first[n] = e;
  for (size_t r = 0; r < snapshot->root_count; r++) {
    const struct snapshot_root *root = &snapshot->roots[r];
    uint32_t w = root->weak ? DIFF_HOLDERS_NONE : holders_object_index(snapshot, root->target);
    if (w == DIFF_HOLDERS_NONE)
      continue;
    if (holders_root_is(snapshot, (uint32_t)r, "main thread"))
      g->main_thread = w;
    if (holders_root_is(snapshot, (uint32_t)r, "registry") && g->registry == DIFF_HOLDERS_NONE)
      g->registry = w;
    g->succ[e] = w;
    g->edge[e] = HOLDERS_NAMED;
    g->succ_ref[e++] = (uint32_t)r;
  }
  g->first[n + 1] = e;
  /* Retained sizes: each node's bytes summed up the dominator tree, from the last node of a
   * depth-first preorder back (a node's dominator comes before it). First, so that the
   * dominators' arrays (the analysis's peak of memory) and the paths' never coexist. A
   * weak-keyed table's value is an edge like any other: without the table it is gone. */
  g->order = malloc(((size_t)n + 1) * sizeof *g->order);
  g->idom = malloc(((size_t)n + 1) * sizeof *g->idom);
  if (!g->order || !g->idom ||
      diff_holders_dominators(n + 1, g->first, g->succ, n, g->idom, g->order, &g->reached) < 0 ||
      !(g->retained = calloc((size_t)n + 1, sizeof *g->retained)))
    return -1;
  for (uint32_t v = 0; v < n; v++)
    g->retained[v] = holders_object_bytes(snapshot, &snapshot->objects[v]);
  for (uint32_t i = g->reached; i-- > 1;) {
    uint32_t v = g->order[i];
    g->retained[g->idom[v]] += g->retained[v];
  }
  uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
  g->parent = malloc(((size_t)n + 1) * sizeof *g->parent);
  g->parent_ref = malloc(((size_t)n + 1) * sizeof *g->parent_ref);
  g->top = malloc(((size_t)n + 1) * sizeof *g->top);
  g->depth = malloc((size_t)n + 1);
  g->how = malloc((size_t)n + 1);
  if (while_key)
    g->key_step = malloc(((size_t)n + 1) * sizeof *g->key_step);
  if (!queue || !g->parent || !g->parent_ref || !g->top || !g->depth || !g->how ||
      (while_key && !g->key_step)) {
    free(queue);
    return -1;
  }
  holders_paths(g, queue);
  free(queue);
  /* The edges are walked: the paths need the tree (parent, parent_ref) from here on. */
  free(g->first), free(g->succ), free(g->succ_ref), free(g->edge);
  g->first = g->succ = g->succ_ref = NULL;
  g->edge = NULL;
  return 0;
}

/* ---- Paths ------------------------------------------------------------------ */

#define HOLDERS_MULTI UINT32_MAX    /* collapse: several labels lead from one object to the site */

/* A text being built, cut (never overrun) at its size. */
struct holders_text {
  char buf[1024];
  size_t len;
  int full;                   /* something did not fit */
};

static void text_clear(struct holders_text *t)
{
  t->len = 0;
  t->buf[0] = '\0';
  t->full = 0;
}

static void text_put(struct holders_text *t, const char *s)
{
  size_t room = sizeof t->buf - 1 - t->len, n = strlen(s);
  if (n > room) {
    n = room;
    t->full = 1;
  }
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

/* The text in parentheses: "(local pool in main chunk@app.lua)". */
static void text_parenthesize(struct holders_text *t)
{
  size_t keep = t->len < sizeof t->buf - 2 ? t->len : sizeof t->buf - 2;  /* room for "(" */
  t->full |= keep < t->len;
  memmove(t->buf + 1, t->buf, keep);
  t->buf[0] = '(';
  t->len = keep + 1;
  t->buf[t->len] = '\0';
  text_put(t, ")");
}

/* Ends the text with suffix, and with " ..." before it when the path was cut (or the text
 * would not fit): room made for both, the text cut at a character's start, so that a cut
 * text always says so. */
static void text_end(struct holders_text *t, int cut, const char *suffix)
{
  static const char elision[] = " ...";
  size_t tail = strlen(suffix);
  int elide = cut || t->full || t->len + tail > sizeof t->buf - 1;
  if (elide)
    tail += sizeof elision - 1;
  if (t->len + tail > sizeof t->buf - 1) {
    t->len = tail < sizeof t->buf - 1 ? sizeof t->buf - 1 - tail : 0;
    while (t->len && ((unsigned char)t->buf[t->len] & 0xc0) == 0x80)
      t->len--;
    t->buf[t->len] = '\0';
  }
  if (elide)
    text_put(t, elision);
  text_put(t, suffix);
  t->full = 0;  /* said so: a suffix added later cuts nothing more */
}

static int holders_identifier(const char *s)
{
  if (!*s || (*s >= '0' && *s <= '9'))
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

/* The name of a function object: its prototype's ("function@app.lua:3"). */
static const char *holders_function_name(const struct snapshot *snapshot, const struct snapshot_object *f)
{
  if (f->type == SNAPSHOT_C_FUNCTION)
    return "C function";
  for (size_t r = f->first_reference; r < f->first_reference + f->reference_count; r++) {
    const struct snapshot_reference *ref = &snapshot->references[r];
    if (ref->kind == SNAPSHOT_REF_OTHER && !strcmp(snapshot_string(snapshot, ref->text), "prototype")) {
      const struct snapshot_object *p = ref->object != SNAPSHOT_NO_OBJECT ? &snapshot->objects[ref->object] : NULL;
      if (p && p->name)
        return snapshot_string(snapshot, p->name);
    }
  }
  return "function";
}

/* The steps from the root to v, at most HOLDERS_DEPTH (*cut: v lies deeper; the steps end at
 * g->top[v], so a path costs that many steps however deep v is): edges' (source node,
 * reference), root end first. */
static size_t holders_steps(const struct holders_graph *g, uint32_t v, uint32_t *from, size_t *refs,
                            int *cut)
{
  uint32_t path[HOLDERS_DEPTH];
  size_t depth = 0;
  *cut = g->top[v] != v;
  for (uint32_t w = g->top[v]; w != g->n && depth < HOLDERS_DEPTH; w = g->parent[w])
    path[depth++] = w;
  for (size_t i = 0; i < depth; i++) {
    uint32_t w = path[depth - 1 - i];
    from[i] = g->parent[w];
    refs[i] = g->parent_ref[w];
  }
  return depth;
}

/* Whether a step is shown as [*]: array slots and other keys always, string
 * keys when one object leads to the site's objects under several. */
static int holders_collapsed(const struct holders_graph *g, const struct holders_marks *marks, uint32_t from,
                             size_t ref)
{
  if (from == g->n)
    return 0;
  const struct snapshot_reference *r = &g->snapshot->references[ref];
  if (r->kind == SNAPSHOT_REF_INDEX || r->kind == SNAPSHOT_REF_KEYED || r->kind == SNAPSHOT_REF_KEY)
    return 1;
  /* a key of its own (one table uses it): "token-17"; not a field every record has ("name") */
  return r->kind == SNAPSHOT_REF_FIELD && marks->labels[from] == HOLDERS_MULTI &&
         marks->source[r->text] != HOLDERS_MULTI;
}

/* The text wrapped: "getmetatable(_G.instance)". */
static void text_wrap(struct holders_text *t, const char *before, const char *after)
{
  size_t add = strlen(before);
  size_t keep = t->len < sizeof t->buf - 1 - add ? t->len : sizeof t->buf - 1 - add;
  t->full |= keep < t->len;
  memmove(t->buf + add, t->buf, keep);
  memcpy(t->buf, before, add);
  t->len = keep + add;
  t->buf[t->len] = '\0';
  text_put(t, after);
}

/* A module's require name as written: dotted identifiers ("events", "pl.utils"). */
static int holders_module_name(const char *s)
{
  char part[SNAPSHOT_LABEL_MAX + 1];
  for (;;) {
    size_t len = strcspn(s, ".");
    if (len > SNAPSHOT_LABEL_MAX)
      return 0;
    memcpy(part, s, len);
    part[len] = '\0';
    if (!holders_identifier(part))
      return 0;
    if (!s[len])
      return 1;
    s += len + 1;
  }
}

/* The path of v as a person reads it, from the roots (docs/diff.md, "Holders"): a module by its
 * require name ("auth.tokens[*]"), a global ("_G.records[*]"), the registry's other entries
 * ("registry.KEY"), a thread's local, from where it is named ("local pending in coroutine
 * function@jobs.lua:2[*]"), an upvalue after the path of its function ("router.resolve ▸
 * upvalue cache[*]"), a metatable as getmetatable(...), another root in parentheses ("(ffi
 * finalizers)"). A path of more than HOLDERS_DEPTH steps shows its first HOLDERS_DEPTH and " ..."
 * (a linked list: "_G.chain.next.next.next ..."), so that every object deeper along it has one
 * text; one through a temporary says so. The note of a weak-keyed table's value is
 * holders_note's. *holder is the object the first [*] after the last upvalue or local comes from
 * (else v's parent, or where the last step shown leaves from). */
static void holders_render_path(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                                struct holders_text *t, uint32_t *holder)
{
  const struct snapshot *s = g->snapshot;
  uint32_t from[HOLDERS_DEPTH];
  size_t refs[HOLDERS_DEPTH];
  int cut;
  size_t depth = holders_steps(g, v, from, refs, &cut);
  int skip_value = 0, after_anchor = 0, anchor_temporary = 0;
  const char *temporary_in = NULL;  /* the function of the first temporary shown */
  size_t temporary_len = 0;
  text_clear(t);
  *holder = DIFF_HOLDERS_NONE;
  char label[SNAPSHOT_LABEL_MAX + 64];
  for (size_t i = 0; i < depth; i++) {
    uint32_t to = i + 1 < depth ? from[i + 1] : g->top[v];
    if (from[i] == g->n) {  /* the root */
      const char *root = snapshot_string(s, s->roots[refs[i]].text);
      if (!strcmp(root, "globals"))
        text_put(t, "_G");
      else if (!strcmp(root, "registry"))
        text_put(t, "registry");
      else {
        snprintf(label, sizeof label, "(%s)", root);
        text_put(t, label);
      }
      continue;
    }
    const struct snapshot_object *o = &s->objects[from[i]];
    const struct snapshot_reference *r = &s->references[refs[i]];
    const char *text = snapshot_string(s, holders_text_id(r));
    if (skip_value && o->type == SNAPSHOT_UPVALUE) {
      skip_value = 0;
      continue;
    }
    skip_value = 0;
    int collapsed = holders_collapsed(g, marks, from[i], refs[i]);
    if (to == g->loaded && from[i] == g->registry) {
      text_clear(t);
      text_put(t, "package.loaded");
      continue;
    }
    if (from[i] == g->loaded && r->kind == SNAPSHOT_REF_FIELD && !collapsed) {
      text_clear(t);  /* a module: its require name */
      *holder = DIFF_HOLDERS_NONE;
      if (holders_module_name(text)) {
        text_put(t, text);
      } else {
        text_put(t, "package.loaded[\"");
        text_put(t, text);
        text_put(t, "\"]");
      }
      continue;
    }
    int thread_local = r->kind == SNAPSHOT_REF_OTHER && o->type == SNAPSHOT_THREAD &&
                       (!strncmp(text, "local ", 6) || !strncmp(text, "slot ", 5));
    int upvalue = r->kind == SNAPSHOT_REF_OTHER && !strncmp(text, "upvalue ", 8);
    int metatable = r->kind == SNAPSHOT_REF_OTHER && !strcmp(text, "metatable");
    if (after_anchor && !collapsed && !(r->kind == SNAPSHOT_REF_FIELD && !holders_identifier(text)) &&
        !upvalue && !metatable && !thread_local) {
      /* "(local pool in main chunk@app.lua).listeners": a field after an anchor's file name */
      text_parenthesize(t);
    }
    after_anchor = 0;
    if (collapsed) {
      if (*holder == DIFF_HOLDERS_NONE)
        *holder = from[i];
      text_put(t, r->kind == SNAPSHOT_REF_KEY ? "[key *]" : "[*]");
    } else if (r->kind == SNAPSHOT_REF_FIELD) {
      if (holders_identifier(text)) {
        if (t->len)
          text_put(t, ".");
        text_put(t, text);
      } else {
        text_put(t, "[\"");
        text_put(t, text);
        text_put(t, "\"]");
      }
    } else if (upvalue) {
      /* after the path of its function: "router.resolve ▸ upvalue cache" */
      *holder = DIFF_HOLDERS_NONE;
      if (t->len) {
        text_put(t, " \xe2\x96\xb8 ");
        text_put(t, text);
      } else {
        snprintf(label, sizeof label, "%s of %s", text, holders_function_name(s, o));
        text_put(t, label);
      }
      skip_value = 1;
    } else if (thread_local) {
      text_clear(t);  /* a new anchor: a local of a frame of a thread */
      *holder = DIFF_HOLDERS_NONE;
      const char *in = strstr(text, " in ");
      if (in && from[i] != g->main_thread)
        snprintf(label, sizeof label, "%.*s in coroutine %s", (int)(in - text), text, in + 4);
      else
        snprintf(label, sizeof label, "%s", text);
      text_put(t, label);
      after_anchor = 1;
      anchor_temporary = text[0] == 's';
      if (anchor_temporary && !temporary_in && in) {
        temporary_in = in + 4;
        temporary_len = strlen(temporary_in);
      }
    } else if (r->kind == SNAPSHOT_REF_OTHER && o->type == SNAPSHOT_THREAD && !strcmp(text, "frame")) {
      text_clear(t);  /* a new anchor: the function a frame runs */
      *holder = DIFF_HOLDERS_NONE;
      snprintf(label, sizeof label, "running %s", holders_function_name(s, &s->objects[to]));
      text_put(t, label);
    } else if (metatable) {
      text_wrap(t, "getmetatable(", ")");
    } else {
      text_put(t, "<");
      text_put(t, snapshot_label(s, r, label, sizeof label));
      text_put(t, ">");
    }
  }
  if (g->how[v] & HOLDERS_VIA_TEMPORARY) {
    if (anchor_temporary || !temporary_len)
      snprintf(label, sizeof label, " (only through a temporary)");
    else
      snprintf(label, sizeof label, " (only through a temporary of %.*s)", (int)temporary_len, temporary_in);
  } else {
    label[0] = '\0';
  }
  text_end(t, cut, label);
  if (*holder == DIFF_HOLDERS_NONE && depth)  /* held by a root itself: the object is its own holder */
    *holder = from[depth - 1] == g->n ? v : from[depth - 1];
}

#define HOLDERS_KEY_TEXT 400        /* bytes of a key's path in a note */

/* The note of v when its path goes through a weak-keyed table's value: it lives while its key
 * lives, and who holds the key (its own path), or that the key is held only through that
 * value: a cycle LuaJIT's weak keys never collect (no ephemerons). "" when v's path does not. */
static void holders_note(const struct holders_graph *g, const struct holders_marks *keys, uint32_t v,
                         struct holders_text *note)
{
  text_clear(note);
  uint32_t step = g->key_step ? g->key_step[v] : DIFF_HOLDERS_NONE;
  if (step == DIFF_HOLDERS_NONE)
    return;
  uint32_t key = holders_key_of(g->snapshot, step), holder;
  if (key == DIFF_HOLDERS_NONE || g->parent[key] == DIFF_HOLDERS_NONE) {
    text_put(note, " (lives while its key lives; the key has no path from a root)");
  } else if (g->key_step[key] == step) {
    text_put(note, " (lives while its key lives, and the key is held only through this value: "
                   "a cycle that weak keys never collect in LuaJIT)");
  } else {
    struct holders_text k;
    holders_render_path(g, keys, key, &k, &holder);
    if (k.len > HOLDERS_KEY_TEXT) {
      k.len = HOLDERS_KEY_TEXT;
      while (k.len && ((unsigned char)k.buf[k.len] & 0xc0) == 0x80)
        k.len--;
      k.buf[k.len] = '\0';
      text_put(&k, " ...");
    }
    text_put(note, " (lives while its key lives; the key is held by ");
    text_put(note, k.buf);
    if (g->key_step[key] != DIFF_HOLDERS_NONE)
      text_put(note, ", itself while its own key lives");
    text_put(note, ")");
  }
}

/* The whole text of v: its path and its note. */
static void holders_render(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                           struct holders_text *t, uint32_t *holder)
{
  struct holders_text note;
  holders_render_path(g, marks, v, t, holder);
  holders_note(g, marks, v, &note);
  if (note.len)
    text_end(t, 0, note.buf);
}

/* ---- Grouping by path -------------------------------------------------------- */

struct holders_group {
  char *path;
  uint64_t objects, bytes;
  uint32_t holder;
  uint32_t note;              /* the id of its text's note (holders_note), or NONE */
};

struct holders_groups {
  struct holders_group *items;
  size_t count, capacity;
  uint32_t *slots;            /* open addressing over items; NONE empty */
  size_t mask;
};

static uint64_t holders_hash(const char *s)
{
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void groups_clear(struct holders_groups *gs)
{
  for (size_t i = 0; i < gs->count; i++)
    free(gs->items[i].path);
  gs->count = 0;
  if (gs->slots)
    memset(gs->slots, 0xff, (gs->mask + 1) * sizeof *gs->slots);
}

static int groups_rehash(struct holders_groups *gs, size_t slots)
{
  uint32_t *fresh = malloc(slots * sizeof *fresh);
  if (!fresh)
    return -1;
  memset(fresh, 0xff, slots * sizeof *fresh);
  for (size_t i = 0; i < gs->count; i++) {
    size_t at = holders_hash(gs->items[i].path) & (slots - 1);
    while (fresh[at] != DIFF_HOLDERS_NONE)
      at = (at + 1) & (slots - 1);
    fresh[at] = (uint32_t)i;
  }
  free(gs->slots);
  gs->slots = fresh;
  gs->mask = slots - 1;
  return 0;
}

/* Adds an object of bytes under path; *index: its group's (stable until the groups are sorted). */
static int groups_add(struct holders_groups *gs, const char *path, uint64_t bytes, uint32_t holder,
                      uint32_t *index)
{
  if ((gs->count + 1) * 2 > (gs->slots ? gs->mask + 1 : 0) &&
      groups_rehash(gs, gs->slots ? (gs->mask + 1) * 2 : 64) < 0)
    return -1;
  size_t at = holders_hash(path) & gs->mask;
  for (; gs->slots[at] != DIFF_HOLDERS_NONE; at = (at + 1) & gs->mask) {
    struct holders_group *g = &gs->items[gs->slots[at]];
    if (!strcmp(g->path, path)) {
      g->objects++;
      g->bytes += bytes;
      *index = gs->slots[at];
      return 0;
    }
  }
  if (gs->count == gs->capacity) {
    size_t capacity = gs->capacity ? gs->capacity * 2 : 16;
    struct holders_group *bigger = realloc(gs->items, capacity * sizeof *bigger);
    if (!bigger)
      return -1;
    gs->items = bigger;
    gs->capacity = capacity;
  }
  char *copy = strdup(path);
  if (!copy)
    return -1;
  gs->items[gs->count] = (struct holders_group){copy, 1, bytes, holder, DIFF_HOLDERS_NONE};
  *index = (uint32_t)gs->count;
  gs->slots[at] = (uint32_t)gs->count++;
  return 0;
}

static int groups_by_bytes(const void *a, const void *b)
{
  const struct holders_group *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? 1 : -1;
  if (x->objects != y->objects)
    return x->objects < y->objects ? 1 : -1;
  return strcmp(x->path, y->path);
}

/* ---- Analysis ---------------------------------------------------------------- */

/* An object of a site: the object's index and the bytes of the site's blocks in it. */
#define holders_member diff_holders_member

/* The size the snapshot gives the block at address of object o (its own or an owned one). */
static uint64_t holders_block_size(const struct snapshot *s, const struct snapshot_object *o, uint64_t address)
{
  if (o->address == address)
    return o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    if (s->blocks[o->first_block + b].address == address)
      return s->blocks[o->first_block + b].size;
  return 0;
}

/* What the analysis of one snapshot's sites works in, each of its arrays a node's. */
struct holders_work {
  struct holders_marks marks[2];  /* [0] the site's objects' paths, [1] their notes' keys' */
  uint8_t *on_path;           /* 1 << k: a node of the paths marks[k] marks (shown steps) */
  uint32_t *seen;             /* those nodes, to clear what was marked */
  size_t seen_count;
  uint32_t *memo[2];          /* the group of the site's objects whose path is cut at a node, or
                               * whose last step is a [*] from it; [1]: a [key *] from it */
  uint32_t *key_memo[2];      /* so for the keys of weak-keyed tables' entries the site's paths go
                               * through: the id of their note (NULL: the snapshot has none) */
  struct holders_groups notes;  /* the site's notes, each text once: its id is its index */
};

/* The key of the weak-keyed table's entry on v's path, when v's path goes through one; else
 * NONE. */
static uint32_t holders_key(const struct holders_graph *g, uint32_t v)
{
  uint32_t step = g->key_step ? g->key_step[v] : DIFF_HOLDERS_NONE;
  return step == DIFF_HOLDERS_NONE ? DIFF_HOLDERS_NONE : holders_key_of(g->snapshot, step);
}

/* Marks the steps of v's path in marks[k], each once (a path is the BFS tree's, so every node
 * above a marked one is marked: a walk up stops at the first), up to where it is cut: labels[u]
 * becomes the one text under which u leads to the marked objects, or MULTI; and source[text]
 * the one object that uses text so in a FIELD step, or MULTI. */
static void holders_mark_one(const struct holders_graph *g, struct holders_work *w, int k, uint32_t v)
{
  struct holders_marks *marks = &w->marks[k];
  for (uint32_t c = g->top[v]; c != g->n && !(w->on_path[c] >> k & 1); c = g->parent[c]) {
    if (!w->on_path[c])
      w->seen[w->seen_count++] = c;
    w->on_path[c] |= (uint8_t)(1u << k);
    uint32_t u = g->parent[c];
    if (u == g->n)
      continue;
    const struct snapshot_reference *r = &g->snapshot->references[g->parent_ref[c]];
    uint32_t id = holders_text_id(r);
    uint32_t *source = id <= g->snapshot->string_count ? &marks->source[id] : NULL;
    uint32_t text = id + 1;
    if (!marks->labels[u])
      marks->labels[u] = text;
    else if (marks->labels[u] != text)
      marks->labels[u] = HOLDERS_MULTI;
    if (source && r->kind == SNAPSHOT_REF_FIELD) {
      if (!*source)
        *source = u + 1;
      else if (*source != u + 1)
        *source = HOLDERS_MULTI;
    }
  }
}

/* ... for the site's objects, and apart for the keys of the weak-keyed tables' entries on their
 * paths (a note names a key's path, collapsed among the keys': "_G.sessions[*]"). */
static void holders_mark(const struct holders_graph *g, struct holders_work *w,
                         const struct holders_member *m, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    holders_mark_one(g, w, 0, m[i].object);
    uint32_t key = holders_key(g, m[i].object);
    if (key != DIFF_HOLDERS_NONE && g->parent[key] != DIFF_HOLDERS_NONE)
      holders_mark_one(g, w, 1, key);
  }
}

/* Clears what holders_mark and the site's memo set, on the nodes marked only. */
static void holders_unmark(const struct holders_graph *g, struct holders_work *w)
{
  for (size_t i = 0; i < w->seen_count; i++) {
    uint32_t c = w->seen[i], u = g->parent[c];
    w->on_path[c] = 0;
    w->memo[0][c] = w->memo[1][c] = DIFF_HOLDERS_NONE;
    if (w->key_memo[0])
      w->key_memo[0][c] = w->key_memo[1][c] = DIFF_HOLDERS_NONE;
    if (u == g->n)
      continue;
    uint32_t text = holders_text_id(&g->snapshot->references[g->parent_ref[c]]);
    for (int k = 0; k < 2; k++) {
      w->marks[k].labels[u] = 0;
      if (text <= g->snapshot->string_count)
        w->marks[k].source[text] = 0;
    }
  }
  w->seen_count = 0;
}

/* Where the group of v is remembered, when every object there has v's text and holder: one
 * cut at the same node (its steps end there), or one whose last step is a [*] or [key *] from
 * the same node. NULL: v's text is its own (a step under a name). A node where paths are cut is
 * HOLDERS_DEPTH steps down, and one a shown [*] leaves from fewer: [0] serves both. */
static uint32_t *holders_memo(const struct holders_graph *g, const struct holders_marks *marks,
                              uint32_t *const memo[2], uint32_t v)
{
  uint32_t top = g->top[v], p = g->parent[v];
  if (top != v)
    return &memo[0][top];
  if (p == g->n || !holders_collapsed(g, marks, p, g->parent_ref[v]))
    return NULL;
  return &memo[g->snapshot->references[g->parent_ref[v]].kind == SNAPSHOT_REF_KEY][p];
}

/* The id of v's note (holders_note), NONE when it has none: rendered once per group of keys (a
 * key held without a weak-keyed table of its own has one text wherever the path to it is cut
 * or collapsed). -1 when out of memory. */
static int holders_note_id(const struct holders_graph *g, struct holders_work *w, uint32_t v, uint32_t *id)
{
  uint32_t key = holders_key(g, v);
  *id = DIFF_HOLDERS_NONE;
  if (!g->key_step || g->key_step[v] == DIFF_HOLDERS_NONE)
    return 0;
  uint32_t *memo = NULL;  /* the note of a key under a weak-keyed table says more: its own */
  if (key != DIFF_HOLDERS_NONE && g->parent[key] != DIFF_HOLDERS_NONE && g->key_step[key] == DIFF_HOLDERS_NONE)
    memo = holders_memo(g, &w->marks[1], w->key_memo, key);
  if (memo && *memo != DIFF_HOLDERS_NONE) {
    *id = *memo;
    return 0;
  }
  struct holders_text note;
  holders_note(g, &w->marks[1], v, &note);
  if (groups_add(&w->notes, note.buf, 0, DIFF_HOLDERS_NONE, id) < 0)
    return -1;
  if (memo)
    *memo = *id;
  return 0;
}

/* The site's holders from its objects m: each text rendered once per group remembered (a list
 * of a million nodes renders as many texts as it has steps shown, plus one). */
static int holders_site(const struct holders_graph *g, struct holders_work *w, struct holders_groups *gs,
                        const struct holders_member *m, size_t count, struct diff_site *site)
{
  holders_mark(g, w, m, count);
  struct holders_text t;
  int status = 0;
  for (size_t i = 0; i < count && status == 0; i++) {
    uint32_t *memo = holders_memo(g, &w->marks[0], w->memo, m[i].object), holder, index, note;
    if ((status = holders_note_id(g, w, m[i].object, &note)) < 0)
      break;
    if (memo && *memo != DIFF_HOLDERS_NONE && gs->items[*memo].note == note) {
      gs->items[*memo].objects++;
      gs->items[*memo].bytes += m[i].bytes;
      continue;
    }
    holders_render_path(g, &w->marks[0], m[i].object, &t, &holder);
    if (note != DIFF_HOLDERS_NONE)
      text_end(&t, 0, w->notes.items[note].path);
    status = groups_add(gs, t.buf, m[i].bytes, holder, &index);
    if (status == 0) {
      gs->items[index].note = note;
      if (memo)
        *memo = index;
    }
  }
  holders_unmark(g, w);
  groups_clear(&w->notes);
  if (status < 0)
    return -1;
  if (gs->count > 1)
    qsort(gs->items, gs->count, sizeof *gs->items, groups_by_bytes);
  size_t shown = gs->count < DIFF_HOLDERS_SHOWN ? gs->count : DIFF_HOLDERS_SHOWN;
  site->holders = calloc(shown ? shown : 1, sizeof *site->holders);
  if (!site->holders)
    return -1;
  for (size_t i = 0; i < shown; i++) {
    struct holders_group *group = &gs->items[i];
    struct diff_holder *h = &site->holders[i];
    const struct snapshot_object *o = group->holder < g->n ? &g->snapshot->objects[group->holder] : NULL;
    h->path = group->path;
    group->path = NULL;
    h->objects = group->objects;
    h->bytes = group->bytes;
    h->retained_bytes = o ? g->retained[group->holder] : 0;
    h->holder_type = strdup(o ? snapshot_type_name(o->type) : "root");
    site->holder_count = i + 1;
    if (!h->holder_type)
      return -1;
  }
  groups_clear(gs);
  return 0;
}

#define HOLDERS_AHEAD 16            /* blocks prefetched ahead of their look-up */

/* *order: the blocks' indices in about address order, by a counting sort of address ranges
 * of about two blocks each (NULL: a few blocks, taken as they come). The snapshot's objects are
 * in address order, so that its look-ups then read it in order: in the live map's order (a
 * hash's), each missed the cache, most of the analysis of a million-node list. -1 when out of
 * memory. */
static int holders_block_order(const struct diff_holders_block *blocks, size_t count, uint32_t **order)
{
  *order = NULL;
  if (count < 64 || count > UINT32_MAX)
    return 0;
  uint64_t low = UINT64_MAX, high = 0;
  for (size_t i = 0; i < count; i++) {
    low = blocks[i].address < low ? blocks[i].address : low;
    high = blocks[i].address > high ? blocks[i].address : high;
  }
  size_t ranges = 32;
  while (ranges < count / 2)
    ranges <<= 1;
  unsigned shift = 0;  /* stops by 63: the span >> 63 is 0 or 1 */
  while (((high - low) >> shift) >= ranges)
    shift++;
  uint32_t *start = calloc(ranges + 1, sizeof *start);
  *order = malloc(count * sizeof **order);
  if (!start || !*order) {
    free(start), free(*order);
    *order = NULL;
    return -1;
  }
  for (size_t i = 0; i < count; i++)
    start[((blocks[i].address - low) >> shift) + 1]++;
  for (size_t k = 0; k < ranges; k++)
    start[k + 1] += start[k];
  for (size_t i = 0; i < count; i++)
    (*order)[start[(blocks[i].address - low) >> shift]++] = (uint32_t)i;
  free(start);
  return 0;
}

/* The holders of the sites, and with suspects the suspects' step on the same graph. */
static int holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                           size_t block_count, struct diff_site **sites, size_t site_count, int suspects,
                           const struct diff_aggregate_at *at, uint64_t boundary)
{
  struct holders_member *members = malloc((block_count ? block_count : 1) * sizeof *members);
  uint32_t *order = NULL;
  if (!members || holders_block_order(blocks, block_count, &order) < 0) {
    free(members);
    return -1;
  }
  size_t count = 0;
  for (size_t k = 0; k < block_count; k++) {
    size_t i = order ? order[k] : k;
    if (order && k + HOLDERS_AHEAD < block_count)  /* the blocks themselves are in the map's order */
      __builtin_prefetch(&blocks[order[k + HOLDERS_AHEAD]]);
    const struct snapshot_object *o = snapshot_find_block(snapshot, blocks[i].address);
    if (!o || blocks[i].site >= site_count ||
        holders_block_size(snapshot, o, blocks[i].address) != blocks[i].size)
      continue;  /* not in the snapshot, or another block at a reused address */
    members[count++] = (struct holders_member){blocks[i].site, (uint32_t)(o - snapshot->objects),
                                               blocks[i].size};
  }
  free(order);
  /* By site (a counting sort: sites are few, members many), then one member per (site,
   * object): an object whose blocks the site made twice (a table and its array part) once. */
  size_t *start = calloc(site_count + 1, sizeof *start);
  struct holders_member *sorted = malloc((count ? count : 1) * sizeof *sorted);
  uint32_t *last = malloc((snapshot->object_count ? snapshot->object_count : 1) * sizeof *last);
  if (!start || !sorted || !last) {
    free(start), free(sorted), free(last), free(members);
    return -1;
  }
  for (size_t i = 0; i < count; i++)
    start[members[i].site + 1]++;
  for (size_t k = 0; k < site_count; k++)
    start[k + 1] += start[k];
  for (size_t i = 0; i < count; i++)
    sorted[start[members[i].site]++] = members[i];
  free(start);
  free(members);
  members = sorted;
  memset(last, 0xff, (snapshot->object_count ? snapshot->object_count : 1) * sizeof *last);
  size_t out = 0;  /* last[object]: its member of the current site, while the site lasts */
  for (size_t i = 0; i < count; i++) {
    uint32_t o = members[i].object;
    if (last[o] != DIFF_HOLDERS_NONE && last[o] < out && members[last[o]].site == members[i].site &&
        members[last[o]].object == o) {
      members[last[o]].bytes += members[i].bytes;
      continue;
    }
    last[o] = (uint32_t)out;
    members[out++] = members[i];
  }
  free(last);
  struct holders_graph g;
  struct holders_groups gs = {0};
  struct holders_work w = {0};
  int status = -1;
  size_t reached = 0;
  size_t nodes = (size_t)snapshot->object_count + 1;
  if (holders_graph_build(&g, snapshot) < 0)
    goto done;
  for (int k = 0; k < 2; k++) {
    w.marks[k].labels = calloc(nodes, sizeof *w.marks[k].labels);
    w.marks[k].source = calloc(snapshot->string_count + 1, sizeof *w.marks[k].source);
    if (!w.marks[k].labels || !w.marks[k].source)
      goto done;
  }
  w.on_path = calloc(nodes, sizeof *w.on_path);
  w.seen = malloc(nodes * sizeof *w.seen);
  w.memo[0] = malloc(nodes * sizeof *w.memo[0]);
  w.memo[1] = malloc(nodes * sizeof *w.memo[1]);
  if (!w.on_path || !w.seen || !w.memo[0] || !w.memo[1])
    goto done;
  memset(w.memo[0], 0xff, nodes * sizeof *w.memo[0]);
  memset(w.memo[1], 0xff, nodes * sizeof *w.memo[1]);
  for (int k = 0; k < 2 && g.key_step; k++) {
    if (!(w.key_memo[k] = malloc(nodes * sizeof *w.key_memo[k])))
      goto done;
    memset(w.key_memo[k], 0xff, nodes * sizeof *w.key_memo[k]);
  }
  reached = 0;  /* members the roots reach */
  for (size_t i = 0; i < out; i++)
    if (g.parent[members[i].object] != DIFF_HOLDERS_NONE)
      members[reached++] = members[i];
  for (size_t i = 0; i < reached;) {
    size_t j = i;
    while (j < reached && members[j].site == members[i].site)
      j++;
    if (holders_site(&g, &w, &gs, members + i, j - i, sites[members[i].site]) < 0)
      goto done;
    i = j;
  }
  status = 0;
done:
  groups_clear(&gs);
  free(gs.items);
  free(gs.slots);
  for (int k = 0; k < 2; k++)
    free(w.marks[k].labels), free(w.marks[k].source);
  free(w.on_path), free(w.seen), free(w.memo[0]), free(w.memo[1]);
  free(w.key_memo[0]), free(w.key_memo[1]);
  groups_clear(&w.notes);
  free(w.notes.items), free(w.notes.slots);
  if (status == 0 && suspects) {  /* the paths' arrays freed first: the suspects' step needs the tree */
    holders_paths_free(&g);
    struct diff_holders_tree tree = {snapshot, g.n, g.reached, g.idom, g.order, g.retained, members, reached};
    status = diff_suspects_snapshot(&tree, at, sites, site_count, boundary);
  }
  holders_graph_free(&g);
  free(members);
  return status;
}

int diff_holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                         size_t block_count, struct diff_site **sites, size_t site_count)
{
  return holders_analyse(snapshot, blocks, block_count, sites, site_count, 0, NULL, 0);
}

int diff_holders_analyse_suspects(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                                  size_t block_count, struct diff_site **sites, size_t site_count,
                                  const struct diff_aggregate_at *at, uint64_t boundary)
{
  return holders_analyse(snapshot, blocks, block_count, sites, site_count, 1, at, boundary);
}

/* ---- The engine's step -------------------------------------------------------- */

static void holders_warn(const struct diff_options *options, const char *message)
{
  if (options->warn)
    options->warn(options->warn_context, message);
}

/* Whether a site's holders are looked for: it grew. */
static int holders_wanted(const struct diff_site *site)
{
  return site->verdict == DIFF_VERDICT_GROWING || site->verdict == DIFF_VERDICT_NEW ||
         site->verdict == DIFF_VERDICT_WORSE || site->verdict == DIFF_VERDICT_UNDECIDED;
}

int diff_holders_prepare(struct diff_holders *holders, struct diff_source *capture)
{
  memset(holders, 0, sizeof *holders);
  if (!capture->index_path)
    return 0;
  capture->keep_blocks = 1;
  struct capture_index index;
  struct capture_index_error index_error;
  if (capture_index_read_file(&index, capture->index_path, &index_error) != CAPTURE_INDEX_OK)
    return 0;  /* the source read it already: it said what was wrong */
  holders->listed = index.snapshot_count;
  holders->pid = (uint64_t)index.capture.pid;
  holders->start = index.capture.start;
  holders->snapshots = calloc(index.snapshot_count ? index.snapshot_count : 1, sizeof *holders->snapshots);
  if (!holders->snapshots) {
    capture_index_free(&index);
    return -1;
  }
  size_t directory = strlen(capture->index_path) - strlen(CAPTURE_LAYOUT_INDEX);
  const char *exit_cause = capture_index_boundary_cause_name(CAPTURE_INDEX_CAUSE_EXIT);
  for (size_t i = index.snapshot_count; i-- > 0 && holders->count < DIFF_HOLDERS_MAX_SNAPSHOTS;) {
    const struct capture_index_snapshot *line = &index.snapshots[i];
    struct diff_holders_snapshot *snapshot = &holders->snapshots[holders->count];
    /* Its boundary among the capture's: by the boundary line's place in the index. */
    size_t at = SIZE_MAX - 1;  /* none */
    for (size_t k = 0; k < index.boundary_count; k++) {
      const struct capture_index_boundary *b = &index.boundaries[k];
      if (b->seq != line->boundary)
        continue;
      if (b->cause && !strcmp(b->cause, exit_cause))
        at = DIFF_HOLDERS_AT_END;
      for (size_t c = 0; c < capture->boundary_count && at != DIFF_HOLDERS_AT_END; c++)
        if (capture->boundaries[c].offset == b->offset)
          at = c;
      break;
    }
    if (at == SIZE_MAX - 1)
      continue;
    size_t length = directory + strlen(line->file) + 1;
    if (!(snapshot->path = malloc(length))) {
      capture_index_free(&index);
      return -1;
    }
    snprintf(snapshot->path, length, "%.*s%s", (int)directory, capture->index_path, line->file);
    snapshot->boundary = line->boundary;
    snapshot->at = at;
    if (at != DIFF_HOLDERS_AT_END)
      capture->boundaries[at].keep = 1;
    holders->count++;
  }
  capture_index_free(&index);
  return 0;
}

void diff_holders_release(struct diff_holders *holders)
{
  for (size_t i = 0; i < holders->count; i++)
    free(holders->snapshots[i].path);
  free(holders->snapshots);
  memset(holders, 0, sizeof *holders);
}

/* The blocks at (aggregate's live map, or its blocks at a kept boundary) whose site is one of
 * the wanted sites (by name), each with its index among them. -1 when out of memory. */
static int holders_blocks(const struct diff_aggregate_at *at, struct diff_site *const *wanted,
                          size_t wanted_count, struct diff_holders_block **out, size_t *count)
{
  const struct diff_aggregate *aggregate = at->aggregate;
  size_t global_count = aggregate->sites.count;
  uint32_t *result_of = malloc((global_count ? global_count : 1) * sizeof *result_of);
  const struct diff_live_map *live = &aggregate->live;
  *count = 0;
  *out = NULL;
  if (!result_of)
    return -1;
  for (size_t i = 0; i < global_count; i++)
    result_of[i] = DIFF_HOLDERS_NONE;
  for (size_t i = 0; i < wanted_count; i++) {
    uint32_t global = diff_site_table_find(&aggregate->sites, wanted[i]->name, strlen(wanted[i]->name));
    if (global != DIFF_SITE_TABLE_NONE)
      result_of[global] = (uint32_t)i;
  }
  /* Counted first, then copied: the wanted sites' blocks may be a few of a big heap's. */
  size_t end = at->kept ? at->kept->count : live->slots ? live->slot_count : 0, wanted_blocks = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass && !(*out = malloc((wanted_blocks ? wanted_blocks : 1) * sizeof **out))) {
      free(result_of);
      return -1;
    }
    for (size_t i = 0; i < end; i++) {
      const struct diff_live_block *slot = at->kept ? NULL : &live->slots[i];
      uint64_t address = slot ? slot->address : at->kept->blocks[i].address;
      uint32_t owner = slot ? slot->site : at->kept->blocks[i].owner;
      if (!address || owner >= aggregate->owners.count)
        continue;
      uint32_t global = aggregate->owners.sites[owner];
      if (global >= global_count || result_of[global] == DIFF_HOLDERS_NONE)
        continue;
      if (!pass)
        wanted_blocks++;
      else
        (*out)[(*count)++] = (struct diff_holders_block){
            address, slot ? live_map_size(live, slot) : at->kept->blocks[i].size, result_of[global]};
    }
  }
  free(result_of);
  return 0;
}

/* The capture read again up to its boundary at (exactly: every block live
 * there, none after), into aggregate. */
static enum diff_status holders_replay(struct diff_source *capture, size_t at,
                                       struct diff_aggregate *aggregate,
                                       const struct diff_options *options, struct diff_error *err)
{
  size_t last = SIZE_MAX;
  for (size_t p = 0; p < capture->piece_count; p++)
    if (capture->pieces[p].boundary_end && capture->pieces[p].boundary == at) {
      last = p;
      break;
    }
  if (last == SIZE_MAX)
    return DIFF_OK;  /* never reached: nothing is live there that the capture shows */
  size_t segment = capture->pieces[last].segment;
  struct diff_source cut = *capture;
  cut.segments = malloc((segment + 1) * sizeof *cut.segments);
  if (!cut.segments)
    return DIFF_ERROR_MEMORY;
  memcpy(cut.segments, capture->segments, (segment + 1) * sizeof *cut.segments);
  cut.count = segment + 1;
  cut.segments[segment].piece_count = last - cut.segments[segment].first_piece + 1;
  cut.piece_count = last + 1;
  cut.boundary_count = at + 1;
  cut.dropped_warning = NULL;
  cut.keep_blocks = 0;
  struct diff_options quiet = *options;
  quiet.warn = NULL;        /* the first reading warned already */
  quiet.progress = NULL;
  enum diff_status status = diff_aggregate_capture(aggregate, &cut, &quiet, err);
  free(cut.segments);
  return status;
}

static uint64_t holders_bytes(const struct diff_site *site)
{
  uint64_t bytes = 0;
  for (size_t i = 0; i < site->holder_count; i++)
    bytes += site->holders[i].bytes;
  return bytes;
}

static void holders_drop(struct diff_site *site)
{
  for (size_t i = 0; i < site->holder_count && site->holders; i++) {
    free(site->holders[i].path);
    free(site->holders[i].holder_type);
  }
  free(site->holders);
  site->holders = NULL;
  site->holder_count = 0;
  if (site->container)
    free(site->container->type), free(site->container->path), free(site->container->site);
  free(site->container);
  site->container = NULL;
  memset(site->kinds, 0, sizeof site->kinds);
}

/* Reads entry's snapshot, refused (with a warning: no WHAT from it) when it is unreadable or
 * another capture's; a cut one is read, with a warning when warn_cut. 0 read, 1 refused,
 * -1 out of memory. */
static int holders_read(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                        struct snapshot *snapshot, const char *what, int warn_cut,
                        const struct diff_options *options)
{
  struct snapshot_error error, foreign;
  char message[700];
  enum snapshot_status read = snapshot_read_file(snapshot, entry->path, &error);
  if (read == SNAPSHOT_NO_MEMORY)
    return -1;
  if ((read == SNAPSHOT_OK || read == SNAPSHOT_CUT) &&
      snapshot_check_capture(snapshot, entry->path, holders->pid, holders->start, &foreign) != SNAPSHOT_OK) {
    error = foreign;
    read = SNAPSHOT_FOREIGN;
  }
  if (read != SNAPSHOT_OK && read != SNAPSHOT_CUT) {
    snprintf(message, sizeof message, "%s; no %s from it", error.message, what);
    holders_warn(options, message);
    return 1;
  }
  if (read == SNAPSHOT_CUT && warn_cut)
    holders_warn(options, error.message);
  return 0;
}

/* One snapshot: read, checked against the capture, joined with the wanted
 * sites' blocks live at its boundary into scratch. */
static int holders_one(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                       const struct diff_holders_block *blocks, size_t count,
                       struct diff_site **scratch, size_t wanted_count,
                       const struct diff_aggregate_at *at, const struct diff_options *options)
{
  struct snapshot snapshot;
  memset(&snapshot, 0, sizeof snapshot);
  int read = holders_read(holders, entry, &snapshot, "holders", 1, options);
  int status = read < 0 ? -1 : 0;
  if (read == 0 && count)  /* and the suspects' step on the same reading (diff/suspects.h) */
    status = diff_holders_analyse_suspects(&snapshot, blocks, count, scratch, wanted_count, at,
                                           entry->boundary);
  snapshot_free(&snapshot);
  return status;
}

int diff_holders_all_kept(const struct diff_holders *holders, const struct diff_aggregate *aggregate)
{
  for (size_t s = 0; s < holders->count; s++)
    if (holders->snapshots[s].at == DIFF_HOLDERS_AT_END || !diff_aggregate_kept_at(aggregate, holders->snapshots[s].at))
      return 0;
  return holders->count > 0;
}

int diff_holders_find(struct diff_holders *holders, struct diff_source *capture,
                      const struct diff_aggregate *aggregate, struct diff_site *result_sites,
                      size_t site_count, struct diff_capture *info,
                      const struct diff_options *options, struct diff_error *err)
{
  info->snapshots = holders->listed;
  if (!holders->count)
    return 0;
  size_t wanted_count = 0;
  struct diff_site **wanted = calloc(site_count ? site_count : 1, sizeof *wanted);
  struct diff_site *scratch = calloc(site_count ? site_count : 1, sizeof *scratch);
  struct diff_site **scratch_of = calloc(site_count ? site_count : 1, sizeof *scratch_of);
  int status = -1;
  if (!wanted || !scratch || !scratch_of)
    goto done;
  for (size_t i = 0; i < site_count; i++) {
    struct diff_site *site = &result_sites[i];
    if (site->is_stack || !holders_wanted(site))
      continue;
    scratch_of[wanted_count] = &scratch[wanted_count];
    wanted[wanted_count++] = site;
  }
  status = 0;
  for (size_t s = 0; s < holders->count && wanted_count && status == 0; s++) {
    const struct diff_holders_snapshot *entry = &holders->snapshots[s];
    struct diff_holders_block *blocks = NULL;
    size_t count = 0;
    /* The blocks live at its boundary: the whole capture's at the exit, else those the reading
     * kept there, else the capture read again up to it, kept for the suspects' step (who made
     * each container). */
    struct diff_aggregate prefix;
    struct diff_aggregate_at at = {aggregate, NULL};
    int have_prefix = 0;
    if (entry->at != DIFF_HOLDERS_AT_END && !(at.kept = diff_aggregate_kept_at(aggregate, entry->at))) {
      if (diff_aggregate_init(&prefix, capture->info.sample_bytes) < 0) {
        status = -1;
        break;
      }
      have_prefix = 1;
      at.aggregate = &prefix;
      if (holders_replay(capture, entry->at, &prefix, options, err) != DIFF_OK)
        status = -1;
    }
    if (status == 0)
      status = holders_blocks(&at, wanted, wanted_count, &blocks, &count);
    if (status == 0)
      status = holders_one(holders, entry, blocks, count, scratch_of, wanted_count, &at, options);
    free(blocks);
    if (have_prefix)
      diff_aggregate_release(&prefix);
    for (size_t i = 0; i < wanted_count; i++) {  /* newest first: an older one must hold more */
      if (status == 0 && scratch[i].holder_count && holders_bytes(&scratch[i]) > holders_bytes(wanted[i])) {
        holders_drop(wanted[i]);  /* the holders, kinds and container of one snapshot */
        wanted[i]->holders = scratch[i].holders;
        wanted[i]->holder_count = scratch[i].holder_count;
        wanted[i]->holders_boundary = entry->boundary;
        wanted[i]->container = scratch[i].container;
        memcpy(wanted[i]->kinds, scratch[i].kinds, sizeof wanted[i]->kinds);
        scratch[i].holders = NULL;
        scratch[i].holder_count = 0;
        scratch[i].container = NULL;
      }
      holders_drop(&scratch[i]);
    }
  }
done:
  free(wanted);
  free(scratch);
  free(scratch_of);
  return status;
}

/* ---- Growing containers --------------------------------------------------------- */

struct holders_candidate {
  uint64_t address;
  uint32_t object;            /* in the later snapshot */
  uint64_t entries, bytes;    /* at the earlier one */
  int reused;                 /* an event freed or made a block at its address in between */
};

static int candidates_by_address(const void *a, const void *b)
{
  const struct holders_candidate *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

static int holders_container_type(enum snapshot_type type)
{
  return type == SNAPSHOT_TABLE || type == SNAPSHOT_USERDATA || type == SNAPSHOT_THREAD;
}

static struct holders_candidate *candidate_find(struct holders_candidate *c, size_t count, uint64_t address)
{
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c[mid].address < address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && c[lo].address == address ? &c[lo] : NULL;
}

/* Marks the candidates whose address an event touched between the boundary
 * at from and the one at to (DIFF_HOLDERS_AT_END: the capture's end). */
static enum diff_status holders_confirm(const struct diff_source *capture, size_t from, size_t to,
                                        struct holders_candidate *c, size_t count,
                                        struct diff_error *err)
{
  const struct diff_source_boundary *a = &capture->boundaries[from];
  size_t last = to == DIFF_HOLDERS_AT_END ? capture->count - 1 : capture->boundaries[to].segment;
  uint64_t last_events = to == DIFF_HOLDERS_AT_END ? UINT64_MAX : capture->boundaries[to].events;
  for (size_t s = a->segment; s <= last && s < capture->count; s++) {
    struct memprof_error merr;
    struct memprof_reader *reader = memprof_reader_open(capture->segments[s].path, &merr);
    if (!reader) {
      err->status = DIFF_ERROR_INPUT;
      snprintf(err->message, sizeof err->message, "%s", merr.message);
      return err->status;
    }
    uint64_t n = 0, first = s == a->segment ? a->events : 0, end = s == last ? last_events : UINT64_MAX;
    struct memprof_record record;
    while (n < end && memprof_reader_next(reader, &record) == MEMPROF_OK) {
      if (record.type != MEMPROF_RECORD_EVENT)
        continue;
      if (n++ < first)
        continue;
      const struct memprof_event *e = &record.event;
      struct holders_candidate *hit;
      if ((e->kind == MEMPROF_EVENT_FREE || e->kind == MEMPROF_EVENT_REALLOC) &&
          (hit = candidate_find(c, count, e->old_address)))
        hit->reused = 1;
      if ((e->kind == MEMPROF_EVENT_ALLOC || e->kind == MEMPROF_EVENT_REALLOC) &&
          (hit = candidate_find(c, count, e->new_address)))
        hit->reused = 1;
    }
    memprof_reader_close(reader);
  }
  return DIFF_OK;
}

static int candidates_by_growth(const void *a, const void *b, void *context)
{
  const struct snapshot *s = context;
  const struct holders_candidate *x = a, *y = b;
  uint64_t gx = holders_object_bytes(s, &s->objects[x->object]) - x->bytes;
  uint64_t gy = holders_object_bytes(s, &s->objects[y->object]) - y->bytes;
  if (gx != gy)
    return gx < gy ? 1 : -1;
  return x->address < y->address ? -1 : x->address > y->address;
}

int diff_holders_containers(struct diff_holders *holders, struct diff_source *capture,
                            const struct diff_aggregate *aggregate, struct diff_result *result,
                            const struct diff_options *options, struct diff_error *err)
{
  if (holders->count < 2 || holders->snapshots[1].at == DIFF_HOLDERS_AT_END)
    return 0;
  const struct diff_holders_snapshot *later = &holders->snapshots[0], *earlier = &holders->snapshots[1];
  struct snapshot a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  struct holders_candidate *c = NULL;
  size_t count = 0;
  struct holders_marks marks = {NULL, NULL};  /* nothing marked: string keys named */
  struct holders_graph g;
  memset(&g, 0, sizeof g);
  struct diff_aggregate prefix;
  int have_prefix = 0, status = -1;
  int read = holders_read(holders, earlier, &a, "growing containers", 0, options);
  if (read != 0) {
    status = read > 0 ? 0 : -1;
    goto done;
  }
  read = holders_read(holders, later, &b, "growing containers", 0, options);
  if (read != 0) {
    status = read > 0 ? 0 : -1;
    goto done;
  }
  if (!(c = malloc((b.object_count ? b.object_count : 1) * sizeof *c)))
    goto done;
  for (size_t i = 0; i < b.object_count; i++) {
    const struct snapshot_object *o = &b.objects[i];
    const struct snapshot_object *was = holders_container_type(o->type) ? snapshot_find(&a, o->address) : NULL;
    if (!was || was->type != o->type)
      continue;
    uint64_t bytes = holders_object_bytes(&b, o), before = holders_object_bytes(&a, was);
    if (o->count >= was->count + DIFF_CONTAINERS_MIN_ENTRIES || (bytes >= before + DIFF_CONTAINERS_MIN_BYTES && o->count > was->count))
      c[count++] = (struct holders_candidate){o->address, (uint32_t)i, was->count, before, 0};
  }
  snapshot_free(&a);
  memset(&a, 0, sizeof a);
  status = 0;
  if (!count)
    goto done;
  qsort(c, count, sizeof *c, candidates_by_address);
  if (holders_confirm(capture, earlier->at, later->at, c, count, err) != DIFF_OK) {
    status = -1;
    goto done;
  }
  size_t kept = 0;
  for (size_t i = 0; i < count; i++)
    if (!c[i].reused)
      c[kept++] = c[i];
  count = kept;
  qsort_r(c, count, sizeof *c, candidates_by_growth, &b);
  if (count > DIFF_CONTAINERS_SHOWN)
    count = DIFF_CONTAINERS_SHOWN;
  if (!count)
    goto done;
  status = -1;
  /* Where each was made: the blocks at the later boundary (kept there, or read again). */
  struct diff_aggregate_at at_later = {aggregate, NULL};
  if (later->at != DIFF_HOLDERS_AT_END && !(at_later.kept = diff_aggregate_kept_at(aggregate, later->at))) {
    if (diff_aggregate_init(&prefix, capture->info.sample_bytes) < 0)
      goto done;
    have_prefix = 1;
    if (holders_replay(capture, later->at, &prefix, options, err) != DIFF_OK)
      goto done;
    at_later.aggregate = &prefix;
  }
  if (holders_graph_build(&g, &b) < 0 || !(marks.labels = calloc((size_t)g.n + 1, sizeof *marks.labels)) ||
      !(marks.source = calloc(b.string_count + 1, sizeof *marks.source)))
    goto done;
  result->containers = calloc(count, sizeof *result->containers);
  if (!result->containers)
    goto done;
  for (size_t i = 0; i < count; i++) {
    const struct snapshot_object *o = &b.objects[c[i].object];
    struct diff_container *out = &result->containers[i];
    result->container_count = i + 1;
    struct holders_text t;
    uint32_t holder;
    if (g.parent[c[i].object] != DIFF_HOLDERS_NONE)
      holders_render(&g, &marks, c[i].object, &t, &holder);
    else
      snprintf(t.buf, sizeof t.buf, "%s", "(no path from a root)");
    const char *site = diff_aggregate_made_at(&at_later, o->address);
    out->type = strdup(snapshot_type_name(o->type));
    out->path = strdup(t.buf);
    out->site = site ? strdup(site) : NULL;
    out->boundaries[0] = earlier->boundary;
    out->boundaries[1] = later->boundary;
    out->entries[0] = c[i].entries;
    out->entries[1] = o->count;
    out->bytes[0] = c[i].bytes;
    out->bytes[1] = holders_object_bytes(&b, o);
    if (!out->type || !out->path || (site && !out->site))
      goto done;
  }
  status = 0;
done:
  if (have_prefix)
    diff_aggregate_release(&prefix);
  holders_graph_free(&g);
  free(marks.labels), free(marks.source);
  free(c);
  snapshot_free(&a);
  snapshot_free(&b);
  return status;
}
