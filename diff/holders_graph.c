/* diff/holders_graph.c: a heap snapshot as a graph: its dominator tree, retained sizes and shortest named paths from the roots (docs/diff.md, "Holders"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/holders_graph.h"

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

/* Preorder numbers by an iterative depth-first walk from root: number[v] (NONE: unreached),
 * order[i] node number i, parent[i] the number of its parent in the walk. link and stack are
 * scratch. The count of reached nodes. */
static uint32_t holders_preorder(uint32_t node_count, const uint32_t *first, const uint32_t *succ, uint32_t root,
                                 uint32_t *number, uint32_t *order, uint32_t *parent, uint32_t *link,
                                 uint32_t *stack)
{
  for (uint32_t v = 0; v < node_count; v++)
    number[v] = DIFF_HOLDERS_NONE;
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
  return count;
}

/* The predecessors of each of the count reached nodes, by number: pred[pred_first[i] ..
 * pred_first[i + 1]) (pred_first zeroed, count + 1 entries). link is scratch. */
static void holders_predecessors(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                                 const uint32_t *number, uint32_t count, uint32_t *pred_first, uint32_t *pred,
                                 uint32_t *link)
{
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
}

/* diff_holders_dominators; owner, when not NULL, is the graph whose first and succ these are:
 * they are freed (and set NULL) once the predecessors are listed, before the dominators' own
 * arrays are all in use. */
static int holders_dominators_of(uint32_t node_count, const uint32_t *first, const uint32_t *succ, uint32_t root,
                                 uint32_t *idom, uint32_t *order, uint32_t *reached, struct holders_graph *owner)
{
  size_t n = node_count ? node_count : 1, edges = first[node_count];
  uint32_t *semi = malloc(n * sizeof *semi);          /* the walk: each node's number */
  uint32_t *link = malloc(n * sizeof *link);          /* the walk: the next edge; then buckets' */
  uint32_t *stack = malloc(n * sizeof *stack);        /* the walk's stack; then holders_eval's */
  uint32_t *pred_first = calloc(n + 1, sizeof *pred_first);
  uint32_t *pred = malloc((edges ? edges : 1) * sizeof *pred);
  uint32_t *ancestor = NULL, *label = NULL, *bucket = NULL;  /* once the edges are freed */
  int status = -1;
  if (!semi || !link || !stack || !pred_first || !pred)
    goto done;
  /* A number's parent in the walk's tree and its immediate dominator share idom: the dominator
   * of v is set while the loop below takes a number at or below v, whose parent is read first,
   * and no parent above is read again. */
  uint32_t *number = semi, *parent = idom;
  uint32_t count = holders_preorder(node_count, first, succ, root, number, order, parent, link, stack);
  holders_predecessors(node_count, first, succ, number, count, pred_first, pred, link);
  if (owner) {
    free(owner->first), free(owner->succ);
    owner->first = owner->succ = NULL;
  }
  ancestor = malloc(n * sizeof *ancestor);
  label = malloc(n * sizeof *label);
  bucket = malloc(n * sizeof *bucket);
  if (!ancestor || !label || !bucket)
    goto done;
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

int diff_holders_dominators(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                            uint32_t root, uint32_t *idom, uint32_t *order, uint32_t *reached)
{
  return holders_dominators_of(node_count, first, succ, root, idom, order, reached, NULL);
}

/* ---- The graph of a snapshot ------------------------------------------------ */

static uint32_t holders_object_index(const struct snapshot *snapshot, uint64_t address)
{
  const struct snapshot_object *o = snapshot_find(snapshot, address);
  return o ? (uint32_t)(o - snapshot->objects) : DIFF_HOLDERS_NONE;
}

_Static_assert(SNAPSHOT_NO_OBJECT == DIFF_HOLDERS_NONE, "a reference to no object is no node");

/* The string id of a reference's label; 0 for an INDEX (whose text holds its n). */
uint32_t holders_text_id(const struct snapshot_reference *r)
{
  return r->kind == SNAPSHOT_REF_INDEX ? 0 : r->text;
}

uint64_t holders_object_bytes(const struct snapshot *snapshot, const struct snapshot_object *o)
{
  uint64_t bytes = o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    bytes += snapshot->blocks[o->first_block + b].size;
  return bytes;
}

/* Frees the paths' arrays (the BFS tree and what it marks), keeping the dominator tree. */
void holders_paths_free(struct holders_graph *g)
{
  free(g->parent), free(g->parent_ref), free(g->top), free(g->depth), free(g->how), free(g->key_step);
  free(g->step_kind), free(g->step_text);
  g->parent = g->parent_ref = g->top = g->key_step = g->step_text = NULL;
  g->depth = g->how = g->step_kind = NULL;
}

void holders_graph_free(struct holders_graph *g)
{
  free(g->first), free(g->succ), free(g->root_node), free(g->written);
  holders_paths_free(g);
  free(g->retained), free(g->idom), free(g->order);
}

/* The node of the key of the weak-keyed table's entry whose value reference is ref: the KEY
 * reference that follows it (the walk writes an entry's value, then its key), or NONE. */
uint32_t holders_key_of(const struct snapshot *s, uint32_t ref)
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

/* The node an edge of v by reference (or, from the roots' node, root index) r leads to, or
 * NONE when it holds nothing: the graph's edges are read from the snapshot's references where
 * they are, in their order (the paths keep no edge arrays of their own). */
static inline uint32_t holders_edge_to(const struct holders_graph *g, uint32_t v, uint32_t r)
{
  if (v == g->n)
    return g->root_node[r];
  const struct snapshot *s = g->snapshot;
  const struct snapshot_reference *ref = &s->references[r];
  uint32_t w = ref->object;  /* SNAPSHOT_NO_OBJECT is DIFF_HOLDERS_NONE */
  /* a weak reference holds nothing, but to a string: strings are never weak references */
  if (w == DIFF_HOLDERS_NONE || w == v || (ref->weak && s->objects[w].type != SNAPSHOT_STRING))
    return DIFF_HOLDERS_NONE;
  return w;
}

/* v's references (the roots' node: its roots): r from *first to *end. */
static inline void holders_edge_range(const struct holders_graph *g, uint32_t v, uint32_t *first, uint32_t *end)
{
  if (v == g->n) {
    *first = 0;
    *end = (uint32_t)g->snapshot->root_count;
    return;
  }
  const struct snapshot_object *o = &g->snapshot->objects[v];
  *first = o->first_reference;
  *end = o->first_reference + o->reference_count;
}

static inline enum holders_edge holders_edge_of(const struct holders_graph *g, uint32_t v, uint32_t r)
{
  return v == g->n ? HOLDERS_NAMED : holders_edge_kind(g->snapshot, &g->snapshot->objects[v], r);
}

/* A table's references of at most this many are walked with its string keys in byte order. */
#define HOLDERS_SORTED_MAX 64

/* The order in which the walk takes the references first .. end of a table of at most
 * HOLDERS_SORTED_MAX: out[0 .. end - first). Its string keys (its FIELD references) by their
 * text, in the places they hold among its others, so that of two named paths of one length the
 * walk meets the same one first in every run ("store.get ▸ upvalue items", where store.set
 * shares it): a table's own order follows the VM's string hashes, seeded per process. */
static void holders_walk_order(const struct snapshot *s, uint32_t first, uint32_t end, uint32_t *out)
{
  uint32_t fields[HOLDERS_SORTED_MAX], count = 0;
  for (uint32_t r = first; r < end; r++) {
    out[r - first] = r;
    if (s->references[r].kind == SNAPSHOT_REF_FIELD)
      fields[count++] = r;
  }
  if (count < 2)
    return;
  for (uint32_t i = 1; i < count; i++) {  /* insertion sort: a table of a few fields */
    uint32_t r = fields[i], j = i;
    const char *text = snapshot_string(s, holders_text_id(&s->references[r]));
    for (; j > 0 && strcmp(snapshot_string(s, holders_text_id(&s->references[fields[j - 1]])), text) > 0; j--)
      fields[j] = fields[j - 1];
    fields[j] = r;
  }
  for (uint32_t i = 0, k = 0; i < end - first; i++)
    if (s->references[first + i].kind == SNAPSHOT_REF_FIELD)
      out[i] = fields[k++];
}

/* Breadth first from queue[head] on, over the edges of the kinds in allow (a bit each). */
static void holders_walk(struct holders_graph *g, uint32_t *queue, size_t head, size_t *tail, unsigned allow)
{
  uint32_t order[HOLDERS_SORTED_MAX];
  while (head < *tail) {
    uint32_t v = queue[head++], first, end;
    holders_edge_range(g, v, &first, &end);
    int sorted = v != g->n && end - first >= 2 && end - first <= HOLDERS_SORTED_MAX &&
                 g->snapshot->objects[v].type == SNAPSHOT_TABLE;
    if (sorted)
      holders_walk_order(g->snapshot, first, end, order);
    for (uint32_t k = first; k < end; k++) {
      uint32_t r = sorted ? order[k - first] : k;
      uint32_t w = holders_edge_to(g, v, r);
      if (w == DIFF_HOLDERS_NONE || g->parent[w] != DIFF_HOLDERS_NONE)
        continue;
      enum holders_edge kind = holders_edge_of(g, v, r);
      if (allow >> kind & 1)
        holders_reach(g, queue, tail, v, w, r, kind);
    }
  }
}

/* Whether v may have an edge of kind (holders_edge_kind): a temporary is a thread's slot, a
 * value held while its key lives a weak-keyed table's. */
static int holders_may_have(const struct holders_graph *g, uint32_t v, enum holders_edge kind)
{
  if (v == g->n)
    return kind == HOLDERS_NAMED;
  const struct snapshot_object *o = &g->snapshot->objects[v];
  return kind == HOLDERS_NAMED || (kind == HOLDERS_TEMPORARY && o->type == SNAPSHOT_THREAD) ||
         (kind == HOLDERS_WHILE_KEY && o->type == SNAPSHOT_TABLE && (o->flags & SNAPSHOT_FLAG_WEAK_KEYS));
}

/* The nodes that edges of kind lead to from queue[0 .. end), not reached yet, at the tail. */
static void holders_seed(struct holders_graph *g, uint32_t *queue, size_t end, size_t *tail,
                         enum holders_edge kind)
{
  for (size_t i = 0; i < end; i++) {
    uint32_t v = queue[i], r, last;
    if (!holders_may_have(g, v, kind))
      continue;
    for (holders_edge_range(g, v, &r, &last); r < last; r++) {
      uint32_t w = holders_edge_to(g, v, r);
      if (w != DIFF_HOLDERS_NONE && g->parent[w] == DIFF_HOLDERS_NONE && holders_edge_of(g, v, r) == kind)
        holders_reach(g, queue, tail, v, w, r, kind);
    }
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
 * registry, the main thread, the others. The nodes reached are queue[0 ..) the count returned,
 * in the walk's order. */
static size_t holders_paths(struct holders_graph *g, uint32_t *queue)
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
    for (uint32_t r = 0; r < s->root_count; r++) {
      uint32_t w = g->root_node[r];
      if (w == DIFF_HOLDERS_NONE)
        continue;
      int named = 0;
      for (int o = 0; o < 3; o++)
        named |= holders_root_is(s, r, order[o]);
      if ((pass < 3 ? holders_root_is(s, r, order[pass]) : !named) && g->parent[w] == DIFF_HOLDERS_NONE)
        holders_reach(g, queue, &tail, n, w, r, HOLDERS_NAMED);
    }
  size_t head = 1;
  if (g->registry != DIFF_HOLDERS_NONE && g->parent[g->registry] == n) {
    uint32_t k, end;
    for (holders_edge_range(g, g->registry, &k, &end); k < end; k++) {
      uint32_t w = holders_edge_to(g, g->registry, k);
      const struct snapshot_reference *r = &s->references[k];
      if (w != DIFF_HOLDERS_NONE && r->kind == SNAPSHOT_REF_FIELD && !strcmp(snapshot_string(s, r->text), "_LOADED") &&
          s->objects[w].type == SNAPSHOT_TABLE && g->parent[w] == DIFF_HOLDERS_NONE) {
        size_t at = 0;
        g->loaded = w;
        holders_reach(g, queue, &at, g->registry, g->loaded, k, HOLDERS_NAMED);
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
  return tail;
}

/* g's edges for the dominators: each object's references that hold, then the roots', as first
 * and succ (the dominators free them once they have the predecessors); the roots' nodes in
 * root_node. -1 when out of memory. */
static int holders_edges(struct holders_graph *g, const struct snapshot *snapshot)
{
  uint32_t n = g->n;
  size_t edges = snapshot->reference_count + snapshot->root_count;
  if (edges >= UINT32_MAX)
    return -1;  /* more than 32-bit edge indices: the reader takes fewer references */
  g->first = calloc((size_t)n + 2, sizeof *g->first);
  g->succ = malloc((edges ? edges : 1) * sizeof *g->succ);
  g->root_node = malloc((snapshot->root_count ? snapshot->root_count : 1) * sizeof *g->root_node);
  if (!g->first || !g->succ || !g->root_node)
    return -1;
  for (size_t r = 0; r < snapshot->root_count; r++) {
    const struct snapshot_root *root = &snapshot->roots[r];
    g->root_node[r] = root->weak ? DIFF_HOLDERS_NONE : holders_object_index(snapshot, root->target);
  }
  uint32_t e = 0;
  for (uint32_t v = 0; v <= n; v++) {
    uint32_t r, end;
    for (holders_edge_range(g, v, &r, &end); r < end; r++) {
      uint32_t w = holders_edge_to(g, v, r);
      if (w == DIFF_HOLDERS_NONE)
        continue;
      if (v == n && holders_root_is(snapshot, r, "main thread"))
        g->main_thread = w;
      if (v == n && holders_root_is(snapshot, r, "registry") && g->registry == DIFF_HOLDERS_NONE)
        g->registry = w;
      g->succ[e++] = w;
    }
    g->first[v + 1] = e;
  }
  return 0;
}

/* Whether an edge is a weak-keyed table's value under a collectable key (HOLDERS_WHILE_KEY):
 * only then do the paths need key_step. */
static int holders_while_key(const struct holders_graph *g)
{
  for (uint32_t v = 0; v < g->n; v++) {
    if (!(g->snapshot->objects[v].flags & SNAPSHOT_FLAG_WEAK_KEYS))
      continue;
    uint32_t r, end;
    for (holders_edge_range(g, v, &r, &end); r < end; r++)
      if (holders_edge_to(g, v, r) != DIFF_HOLDERS_NONE && holders_edge_of(g, v, r) == HOLDERS_WHILE_KEY)
        return 1;
  }
  return 0;
}

/* Retained sizes: each node's bytes summed up the dominator tree, from the last node of a
 * depth-first preorder back (a node's dominator comes before it). A weak-keyed table's value
 * is an edge like any other: without the table it is gone. -1 when out of memory. */
static int holders_retained(struct holders_graph *g, const struct snapshot *snapshot)
{
  uint32_t n = g->n;
  g->order = malloc(((size_t)n + 1) * sizeof *g->order);
  g->idom = malloc(((size_t)n + 1) * sizeof *g->idom);
  if (!g->order || !g->idom ||
      holders_dominators_of(n + 1, g->first, g->succ, n, g->idom, g->order, &g->reached, g) < 0 ||
      !(g->retained = calloc((size_t)n + 1, sizeof *g->retained)))
    return -1;
  for (uint32_t v = 0; v < n; v++)
    g->retained[v] = holders_object_bytes(snapshot, &snapshot->objects[v]);
  for (uint32_t i = g->reached; i-- > 1;) {
    uint32_t v = g->order[i];
    g->retained[g->idom[v]] += g->retained[v];
  }
  return 0;
}

/* The strings the live functions' prototypes hold as constants (g->written): the names a
 * program's code writes, a field or a global, as against keys it makes at run time. */
static int holders_written(struct holders_graph *g, const struct snapshot *snapshot)
{
  if (!(g->written = calloc((size_t)g->n + 1, 1)))
    return -1;
  for (uint32_t v = 0; v < g->n; v++) {
    const struct snapshot_object *o = &snapshot->objects[v];
    if (o->type != SNAPSHOT_PROTOTYPE)
      continue;
    for (uint32_t r = o->first_reference; r < o->first_reference + o->reference_count; r++) {
      const struct snapshot_reference *ref = &snapshot->references[r];
      if (ref->kind == SNAPSHOT_REF_OTHER && ref->object != SNAPSHOT_NO_OBJECT &&
          snapshot->objects[ref->object].type == SNAPSHOT_STRING &&
          !strcmp(snapshot_string(snapshot, ref->text), "constant"))
        g->written[ref->object] = 1;
    }
  }
  return 0;
}

int holders_graph_build(struct holders_graph *g, const struct snapshot *snapshot)
{
  memset(g, 0, sizeof *g);
  g->snapshot = snapshot;
  g->n = (uint32_t)snapshot->object_count;
  g->main_thread = g->registry = g->loaded = DIFF_HOLDERS_NONE;
  uint32_t n = g->n;
  /* The retained sizes first, so that the dominators' arrays (the analysis's peak of memory)
   * and the paths' never coexist; the paths walk the snapshot's references themselves. */
  if (holders_edges(g, snapshot) < 0 || holders_retained(g, snapshot) < 0 || holders_written(g, snapshot) < 0)
    return -1;
  int while_key = holders_while_key(g);
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
  size_t reached = holders_paths(g, queue);
  /* Each reached node's step, in their place, in the walk's order: the nodes a node reached
   * are together there, and so are their references. */
  g->step_kind = malloc((size_t)n + 1);
  g->step_text = malloc(((size_t)n + 1) * sizeof *g->step_text);
  if (!g->step_kind || !g->step_text) {
    free(queue);
    return -1;
  }
  for (size_t i = 0; i < reached; i++) {
    uint32_t v = queue[i];
    if (g->parent[v] == n)
      continue;  /* a root's: parent_ref is the root's index */
    const struct snapshot_reference *r = &snapshot->references[g->parent_ref[v]];
    g->step_kind[v] = r->kind;
    g->step_text[v] = holders_text_id(r);
  }
  free(queue);
  return 0;
}
