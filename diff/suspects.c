/* diff/suspects.c: leak suspects: each growing site's container and kinds from its heap snapshot (docs/diff.md, "Leak suspects"); suspects_group.c groups the flagged sites by container. */
#include <stdlib.h>
#include <string.h>

#include "diff/suspects.h"
#include "format/snapshot.h"

/* ---- Kinds ------------------------------------------------------------------- */

/* Indexed by snapshot type - 1 (type 0 is the wire's CONTINUED, never an object). */
static const char *const kind_names[DIFF_KIND_COUNT] = {
  "string", "table", "function", "C function", "prototype", "upvalue",
  "thread", "userdata", "cdata", "trace", "vm"};
static const char *const kind_words[DIFF_KIND_COUNT] = {
  "strings", "tables", "closures", "C functions", "prototypes", "upvalues",
  "coroutines", "userdata", "cdata", "traces", "VM blocks"};
_Static_assert(SNAPSHOT_TYPE_COUNT - 1 == DIFF_KIND_COUNT, "a kind per snapshot type");

const char *diff_kind_name(size_t kind)
{
  return kind < DIFF_KIND_COUNT ? kind_names[kind] : "?";
}

const char *diff_kind_words(size_t kind)
{
  return kind < DIFF_KIND_COUNT ? kind_words[kind] : "?";
}

int diff_kind_parse(const char *name, size_t *kind)
{
  for (size_t i = 0; i < DIFF_KIND_COUNT; i++)
    if (!strcmp(name, kind_names[i])) {
      *kind = i;
      return 0;
    }
  return -1;
}

size_t diff_kinds_order(const struct diff_kind_count *kinds, size_t *order)
{
  size_t n = 0, local[DIFF_KIND_COUNT];
  size_t *out = order ? order : local;
  for (size_t k = 0; k < DIFF_KIND_COUNT; k++)
    if (kinds[k].objects)
      out[n++] = k;
  for (size_t i = 1; i < n; i++)  /* most bytes first, then the kinds' order: stable insertion */
    for (size_t j = i; j > 0 && kinds[out[j]].bytes > kinds[out[j - 1]].bytes; j--) {
      size_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return n;
}

/* ---- The snapshot pass --------------------------------------------------------- */

#define SUSPECTS_NONE UINT32_MAX

/* The dominator tree as the descent reads it: each node's children, and a preorder of the tree
 * itself (tin), so that a node's subtree is the range of numbers [tin, tin + size), and its
 * children, in the order of their numbers, split it. An unreached node has size 0. */
struct suspects_tree {
  uint32_t nodes, root;
  uint32_t *kid_first, *kids;  /* [nodes + 1], [nodes] */
  uint32_t *tin, *size;        /* [nodes] */
};

static void suspects_tree_free(struct suspects_tree *t)
{
  free(t->kid_first), free(t->kids), free(t->tin), free(t->size);
}

/* From immediate dominators and a preorder of the graph's walk (a node's dominator before it):
 * three passes over the reached nodes. */
static int suspects_tree_build(struct suspects_tree *t, uint32_t nodes, uint32_t root, const uint32_t *idom,
                               const uint32_t *order, uint32_t reached)
{
  memset(t, 0, sizeof *t);
  t->nodes = nodes;
  t->root = root;
  t->kid_first = calloc((size_t)nodes + 1, sizeof *t->kid_first);
  t->kids = malloc((reached ? reached : 1) * sizeof *t->kids);
  t->tin = malloc((nodes ? nodes : 1) * sizeof *t->tin);
  t->size = calloc(nodes ? nodes : 1, sizeof *t->size);
  if (!t->kid_first || !t->kids || !t->tin || !t->size)
    return -1;
  /* The children, by a counting sort on their dominators (tin the cursor meanwhile). */
  for (uint32_t i = 1; i < reached; i++)
    t->kid_first[idom[order[i]] + 1]++;
  for (uint32_t v = 0; v < nodes; v++)
    t->kid_first[v + 1] += t->kid_first[v];
  memcpy(t->tin, t->kid_first, (size_t)nodes * sizeof *t->tin);
  for (uint32_t i = 1; i < reached; i++)
    t->kids[t->tin[idom[order[i]]]++] = order[i];
  /* Subtree sizes from the last of the preorder back; then each child's number after its
   * elder siblings' subtrees. */
  for (uint32_t i = reached; i-- > 0;) {
    uint32_t v = order[i];
    t->size[v]++;
    if (i)
      t->size[idom[v]] += t->size[v];
  }
  if (reached)
    t->tin[root] = 0;
  for (uint32_t i = 0; i < reached; i++) {
    uint32_t u = order[i], next = t->tin[u] + 1;
    for (uint32_t e = t->kid_first[u]; e < t->kid_first[u + 1]; e++) {
      t->tin[t->kids[e]] = next;
      next += t->size[t->kids[e]];
    }
  }
  return 0;
}

/* A site's members by their nodes' numbers: number[a .. b) ascending, sum[k] the bytes of
 * those before k (from a). */
struct suspects_span {
  const uint32_t *number;
  const uint64_t *sum;
  size_t a, b;
};

/* The first of [lo, hi) whose number is at least key. */
static size_t span_lower(const struct suspects_span *m, size_t lo, size_t hi, uint32_t key)
{
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->number[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The members in u's subtree: [*lo, *hi) within [from, to). */
static void span_of(const struct suspects_tree *t, const struct suspects_span *m, uint32_t u, size_t from,
                    size_t to, size_t *lo, size_t *hi)
{
  *lo = span_lower(m, from, to, t->tin[u]);
  *hi = span_lower(m, *lo, to, t->tin[u] + t->size[u]);
}

/* The site's container: from the root down the dominator tree, the child that keeps more than
 * half of its node's share of the site's bytes, until an object of the site or a node where no
 * child does. At most one child can: it holds the member where the bytes pass half (the first
 * whose running sum exceeds half), found among the children by number. [*lo, *hi): the members
 * in its subtree. */
static uint32_t suspects_descend(const struct suspects_tree *t, const struct suspects_span *m, size_t *lo,
                                 size_t *hi)
{
  uint32_t u = t->root;
  span_of(t, m, u, m->a, m->b, lo, hi);
  for (;;) {
    if (*lo < *hi && m->number[*lo] == t->tin[u])
      break;  /* an object of the site */
    uint64_t base = m->sum[*lo], half = (m->sum[*hi] - base) / 2;
    uint32_t k0 = t->kid_first[u], k1 = t->kid_first[u + 1];
    if (*lo == *hi || k0 == k1)
      break;
    size_t x = *lo, y = *hi - 1;  /* the first member whose running sum exceeds half */
    while (x < y) {
      size_t mid = x + (y - x) / 2;
      if (m->sum[mid + 1] - base > half)
        y = mid;
      else
        x = mid + 1;
    }
    uint32_t key = m->number[x];
    while (k0 + 1 < k1) {  /* the last child numbered at most key */
      uint32_t mid = k0 + (k1 - k0) / 2;
      if (t->tin[t->kids[mid]] <= key)
        k0 = mid;
      else
        k1 = mid;
    }
    uint32_t c = t->kids[k0];
    size_t clo, chi;
    span_of(t, m, c, *lo, *hi, &clo, &chi);
    if (m->sum[chi] - m->sum[clo] <= half)
      break;
    u = c;
    *lo = clo;
    *hi = chi;
  }
  return u;
}

int diff_suspects_container_node(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                                 uint32_t root, const uint64_t *bytes, const unsigned char *own,
                                 uint32_t *container)
{
  struct suspects_tree t;
  memset(&t, 0, sizeof t);
  size_t n = node_count ? node_count : 1;
  uint32_t *idom = malloc(n * sizeof *idom), *order = malloc(n * sizeof *order), reached = 0;
  uint32_t *number = malloc(n * sizeof *number);
  uint64_t *sum = calloc(n + 1, sizeof *sum);
  int status = -1;
  if (!idom || !order || !number || !sum ||
      diff_holders_dominators(node_count, first, succ, root, idom, order, &reached) < 0 ||
      suspects_tree_build(&t, node_count, root, idom, order, reached) < 0)
    goto done;
  /* The site's members by number: the reached nodes in the tree's preorder (into idom, done). */
  for (uint32_t i = 0; i < reached; i++)
    idom[t.tin[order[i]]] = order[i];
  size_t count = 0;
  for (uint32_t i = 0; i < reached; i++)
    if (own[idom[i]]) {
      number[count] = i;
      sum[count + 1] = sum[count] + bytes[idom[i]];
      count++;
    }
  struct suspects_span m = {number, sum, 0, count};
  size_t lo, hi;
  *container = suspects_descend(&t, &m, &lo, &hi);
  status = 0;
done:
  suspects_tree_free(&t);
  free(idom), free(order), free(number), free(sum);
  return status;
}

/* Where path first says a run of one field ("_G.chain(.next)*": a list's nodes, whose holder
 * is its head), or NULL. */
static const char *suspects_run_at(const char *path)
{
  for (const char *at = strstr(path, "(."); at; at = strstr(at + 1, "(.")) {
    size_t n = strspn(at + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (n && !strncmp(at + 2 + n, ")*", 2))
      return at;
  }
  return NULL;
}

/* The length of path's head: its part before its first collapsed step or run of one field. */
static size_t suspects_head_length(const char *path)
{
  const char *a = strstr(path, "[*]"), *b = strstr(path, "[key *]"), *run = suspects_run_at(path);
  const char *cut = a && b ? (a < b ? a : b) : a ? a : b;
  cut = run && (!cut || run < cut) ? run : cut;
  return cut && cut != path ? (size_t)(cut - path) : strlen(path);
}

/* Whether a head of a path may end at position at: its end, or before a step (".name",
 * "[...]", "(.next)*", " ▸ upvalue ..."); never inside a label ("local a in ..."). */
static int suspects_step_ends(const char *path, size_t at)
{
  char c = path[at];
  return !c || c == '.' || c == '[' || c == '(' || !strncmp(path + at, " \xe2\x96\xb8 ", 5);
}

/* The name of the container: the head (suspects_head_length) of one of the site's holder paths
 * whose holder is the container (its type and retained size; named 1); else the heads' longest
 * common part that ends before a step (named 0): the site's objects under two lists, _G.left[*]
 * and _G.right[*], are kept by _G, not by the list the top path names. NULL when out of memory. */
static char *suspects_container_path(const struct diff_site *site, const char *type,
                                     uint64_t retained, int *named)
{
  *named = 0;
  const char *from = NULL;
  size_t length = 0;
  for (size_t i = 0; i < site->holder_count && !from; i++) {
    const struct diff_holder *h = &site->holders[i];
    if (!h->path || suspects_head_length(h->path) == strlen(h->path) || h->retained_bytes != retained ||
        !h->holder_type || strcmp(h->holder_type, type))
      continue;
    *named = 1;
    from = h->path;
    length = suspects_head_length(h->path);
  }
  size_t top = 0;
  for (size_t i = 0; i < site->holder_count && !*named; i++) {
    const char *path = site->holders[i].path;
    if (!path)
      continue;
    size_t head = suspects_head_length(path), same = 0;
    if (!from) {
      from = path, length = top = head;
      continue;
    }
    while (same < length && same < head && from[same] == path[same])
      same++;
    while (same && !(suspects_step_ends(from, same) && suspects_step_ends(path, same)))
      same--;
    length = same;
    if (!same) {  /* nothing in common: the top path's head */
      length = top;
      break;
    }
  }
  if (!from)
    return strdup("(no path)");
  char *name = malloc(length + 1);
  if (name) {
    memcpy(name, from, length);
    name[length] = '\0';
  }
  return name;
}

static void suspects_container_free(struct diff_site_container *c)
{
  if (!c)
    return;
  free(c->type), free(c->path), free(c->site);
  free(c);
}

/* Fills the container of a site whose descent stopped at u, members under it by kind in kinds
 * (their count and bytes: objects, bytes); growing: the growing container u is, named by its own
 * path, or NULL. */
static int suspects_container(const struct diff_holders_tree *tree, const struct diff_aggregate_at *at,
                              struct diff_site *site, uint32_t u, const struct diff_kind_count *kinds,
                              uint64_t objects, uint64_t bytes, uint64_t boundary,
                              const struct diff_container *growing)
{
  const struct snapshot_object *o = &tree->snapshot->objects[u];
  struct diff_site_container *c = calloc(1, sizeof *c);
  if (!c)
    return -1;
  site->container = c;
  const char *made = at ? diff_aggregate_made_at(at, o->address) : NULL;
  c->address = o->address;
  c->type = strdup(snapshot_type_name(o->type));
  c->site = made ? strdup(made) : NULL;
  c->retained_bytes = tree->retained[u];
  c->objects = objects;
  c->bytes = bytes;
  memcpy(c->kinds, kinds, sizeof c->kinds);
  c->boundary = boundary;
  if (growing) {  /* its own path: a site's paths may collapse it with its siblings */
    c->named = 1;
    c->path = strdup(growing->path);
  } else {
    c->path = suspects_container_path(site, c->type, c->retained_bytes, &c->named);
  }
  if (!c->type || (made && !c->site) || !c->path)
    return -1;
  return 0;
}

/* The members sorted for the descents: by site, within a site by their nodes' numbers. */
struct suspects_sorted {
  uint32_t *by;               /* [count] member indices, sorted */
  uint32_t *number;           /* [count] the number (tin) of by[k]'s node */
  uint64_t *sum;              /* [count + 1] bytes of by[0 .. k) */
  size_t *start;              /* [site_count + 1] each site's first in by */
  uint8_t *type;              /* [count] each member's object's type, by member: the objects
                               * read once, in order, not once per look in the tree's order */
};

static void suspects_sorted_free(struct suspects_sorted *o)
{
  free(o->by), free(o->number), free(o->sum), free(o->start), free(o->type);
}

/* One sort of the members: by their nodes' numbers (a counting sort), then stably by site. -1
 * when out of memory (suspects_sorted_free either way). */
static int suspects_sort(const struct suspects_tree *t, const struct diff_holders_member *members, size_t count,
                         uint32_t nodes, size_t site_count, struct suspects_sorted *o)
{
  o->by = malloc((count ? count : 1) * sizeof *o->by);
  o->number = malloc((count ? count : 1) * sizeof *o->number);
  o->sum = malloc((count + 1) * sizeof *o->sum);
  o->start = calloc(site_count + 1, sizeof *o->start);
  o->type = malloc(count ? count : 1);
  uint32_t *cursor = calloc((size_t)nodes + 1, sizeof *cursor);
  if (!o->by || !o->number || !o->sum || !o->start || !o->type || !cursor) {
    free(cursor);
    return -1;
  }
  uint32_t *number = o->number;
  size_t *start = o->start;
  for (size_t i = 0; i < count; i++)
    cursor[t->tin[members[i].object] + 1]++;
  for (uint32_t k = 0; k < nodes; k++)
    cursor[k + 1] += cursor[k];
  for (size_t i = 0; i < count; i++)
    number[cursor[t->tin[members[i].object]]++] = (uint32_t)i;
  free(cursor);
  for (size_t i = 0; i < count; i++)
    start[members[i].site + 1]++;
  for (size_t k = 0; k < site_count; k++)
    start[k + 1] += start[k];
  for (size_t k = 0; k < count; k++)
    o->by[start[members[number[k]].site]++] = number[k];
  for (size_t k = site_count; k > 0; k--)  /* back to each site's start */
    start[k] = start[k - 1];
  start[0] = 0;
  o->sum[0] = 0;
  for (size_t k = 0; k < count; k++) {
    number[k] = t->tin[members[o->by[k]].object];
    o->sum[k + 1] = o->sum[k] + members[o->by[k]].bytes;
  }
  return 0;
}

/* Of each site's objects, those an earlier site with the same container has too (each object's
 * members kept in a list, newest first): the container's shared counts. -1 when out of memory. */
static int suspects_shared(const struct diff_holders_tree *tree, const struct suspects_tree *t,
                           const struct suspects_sorted *o, const uint32_t *container,
                           struct diff_site *const *sites, size_t site_count)
{
  const struct diff_holders_member *members = tree->members;
  size_t count = tree->member_count, nodes = (size_t)tree->n + 1;
  uint32_t *head = malloc(nodes * sizeof *head);
  uint32_t *next = malloc((count ? count : 1) * sizeof *next);
  if (!head || !next) {
    free(head), free(next);
    return -1;
  }
  memset(head, 0xff, nodes * sizeof *head);
  for (size_t i = 0; i < site_count; i++) {
    size_t a = o->start[i], b = o->start[i + 1];
    uint32_t u = container[i];
    for (size_t k = a; k < b && u != SUSPECTS_NONE; k++) {
      uint32_t v = members[o->by[k]].object;
      uint32_t e = head[v];
      while (e != SUSPECTS_NONE && container[members[o->by[e]].site] != u)
        e = next[e];
      if (e == SUSPECTS_NONE)
        continue;
      struct diff_site_container *c = sites[i]->container;
      if (!(o->number[k] >= t->tin[u] && o->number[k] - t->tin[u] < t->size[u]))
        continue;  /* not under the container: no part of the suspect */
      if (o->type[o->by[k]] >= 1 && o->type[o->by[k]] <= DIFF_KIND_COUNT)
        c->shared_kinds[o->type[o->by[k]] - 1]++;
      c->shared_objects++;
    }
    for (size_t k = a; k < b; k++) {
      uint32_t v = members[o->by[k]].object;
      next[k] = head[v];
      head[v] = (uint32_t)k;
    }
  }
  free(head), free(next);
  return 0;
}

/* The growing containers at this snapshot: their nodes (by address, of their type) into
 * node[], their entries here into entries[], themselves into which[]; returns how many. */
static size_t suspects_growing_nodes(const struct snapshot *s, const struct diff_suspects_growing *growing,
                                     uint64_t boundary, uint32_t *node, uint64_t *entries,
                                     const struct diff_container **which)
{
  size_t count = 0;
  for (size_t j = 0; growing && j < growing->count; j++) {
    const struct diff_container *g = &growing->containers[j];
    int at = g->boundaries[1] == boundary ? 1 : g->boundaries[0] == boundary ? 0 : -1;
    const struct snapshot_object *o = at >= 0 && g->address ? snapshot_find(s, g->address) : NULL;
    if (!o || !g->type || !g->path || strcmp(snapshot_type_name(o->type), g->type))
      continue;
    node[count] = (uint32_t)(o - s->objects);
    entries[count] = g->entries[at];
    which[count++] = g;
  }
  return count;
}

/* The growing container that is u, the rule's own container for a site, or that takes the site
 * from it (of growing_nodes' count: *u, and [*lo, *hi) its members under it, set to it); NULL
 * when none does. */
static const struct diff_container *suspects_prefer_growing(const struct suspects_tree *t,
                                                            const struct suspects_span *m,
                                                            const uint32_t *node, const uint64_t *entries,
                                                            const struct diff_container *const *which,
                                                            size_t count, uint32_t *u, size_t *lo, size_t *hi)
{
  for (size_t j = 0; j < count; j++)
    if (node[j] == *u)
      return which[j];  /* the rule's own grows */
  const struct diff_container *best = NULL;
  uint64_t best_bytes = 0;
  for (size_t j = 0; j < count; j++) {
    size_t glo, ghi;
    if (!t->size[node[j]])
      continue;  /* the roots do not reach it */
    span_of(t, m, node[j], m->a, m->b, &glo, &ghi);
    uint64_t objects = ghi - glo, bytes = m->sum[ghi] - m->sum[glo];
    if (objects && objects * 10 >= entries[j] && bytes > best_bytes) {
      best = which[j], best_bytes = bytes;
      *u = node[j], *lo = glo, *hi = ghi;
    }
  }
  return best;
}

#define SUSPECTS_AHEAD 16           /* members whose objects are prefetched ahead */

/* Counts one object of a site (member) in its kind's count. */
static void suspects_kind_add(struct diff_kind_count *count, const struct diff_holders_member *member)
{
  count->objects++;
  count->bytes += member->bytes;
  count->parts += member->part;
  count->part_bytes += member->part ? member->bytes : 0;
}

int diff_suspects_snapshot(const struct diff_holders_tree *tree, const struct diff_aggregate_at *at,
                           struct diff_site *const *sites, size_t site_count, uint64_t boundary,
                           const struct diff_suspects_growing *growing)
{
  const struct snapshot *s = tree->snapshot;
  const struct diff_holders_member *members = tree->members;
  struct suspects_tree t;
  struct suspects_sorted o = {0};
  uint32_t *container = malloc((site_count ? site_count : 1) * sizeof *container);
  size_t growing_max = growing && growing->count ? growing->count : 1, growing_count = 0;
  uint32_t *growing_node = malloc(growing_max * sizeof *growing_node);
  uint64_t *growing_entries = malloc(growing_max * sizeof *growing_entries);
  const struct diff_container **growing_which = malloc(growing_max * sizeof *growing_which);
  int status = -1;
  if (suspects_tree_build(&t, tree->n + 1, tree->n, tree->idom, tree->order, tree->reached) < 0 || !container ||
      !growing_node || !growing_entries || !growing_which ||
      suspects_sort(&t, members, tree->member_count, tree->n + 1, site_count, &o) < 0)
    goto done;
  growing_count = suspects_growing_nodes(s, growing, boundary, growing_node, growing_entries, growing_which);
  /* Each site: its kinds (an object once: one member per (site, object)) and its container. */
  for (size_t i = 0; i < site_count; i++) {
    container[i] = SUSPECTS_NONE;
    struct diff_site *site = sites[i];
    size_t a = o.start[i], b = o.start[i + 1];
    if (a == b)
      continue;
    memset(site->kinds, 0, sizeof site->kinds);
    for (size_t k = a; k < b; k++) {  /* members are by site: these are the site's, in address order */
      if (k + SUSPECTS_AHEAD < b)  /* in order, but far apart: one object of many, each a miss */
        __builtin_prefetch(&s->objects[members[k + SUSPECTS_AHEAD].object]);
      uint8_t type = o.type[k] = s->objects[members[k].object].type;
      if (type >= 1 && type <= DIFF_KIND_COUNT)
        suspects_kind_add(&site->kinds[type - 1], &members[k]);
    }
    struct suspects_span m = {o.number, o.sum, a, b};
    size_t lo, hi;
    uint32_t u = suspects_descend(&t, &m, &lo, &hi);
    const struct diff_container *g = suspects_prefer_growing(&t, &m, growing_node, growing_entries, growing_which,
                                                             growing_count, &u, &lo, &hi);
    suspects_container_free(site->container);
    site->container = NULL;
    if (u != tree->n && o.sum[hi] - o.sum[lo]) {
      struct diff_kind_count kinds[DIFF_KIND_COUNT];
      memset(kinds, 0, sizeof kinds);
      for (size_t k = lo; k < hi; k++) {  /* what it keeps alive of the site, by kind */
        uint8_t type = o.type[o.by[k]];
        if (type >= 1 && type <= DIFF_KIND_COUNT)
          suspects_kind_add(&kinds[type - 1], &members[o.by[k]]);
      }
      container[i] = u;
      if (suspects_container(tree, at, site, u, kinds, hi - lo, o.sum[hi] - o.sum[lo], boundary, g) < 0)
        goto done;
      uint32_t key = tree->key_holder ? tree->key_holder[i] : SUSPECTS_NONE;
      if (key != SUSPECTS_NONE && key < tree->n && key != u) {
        site->container->key_address = s->objects[key].address;
        site->container->key_slots = tree->key_slots ? tree->key_slots[i] : 0;
      }
    }
  }
  status = suspects_shared(tree, &t, &o, container, sites, site_count);
done:
  suspects_tree_free(&t);
  suspects_sorted_free(&o);
  free(container), free(growing_node), free(growing_entries), free(growing_which);
  return status;
}
