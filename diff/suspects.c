/* diff/suspects.c: leak suspects: each growing site's container and kinds from its heap snapshot, and the flagged sites grouped by container (docs/diff.md, "Leak suspects"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/site_table.h"
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

/* ---- The snapshot pass --------------------------------------------------------- */

#define SUSPECTS_NONE UINT32_MAX

/* A snapshot as the dominator tree of its holding references (as the holders' step builds
 * its graph: references that are not weak, to objects of the snapshot; the roots' node n). */
struct suspects_tree {
  uint32_t n, reached;
  uint32_t *idom, *order;     /* [n + 1] */
  uint32_t *kid_first, *kids; /* the dominator tree's children of each node */
  uint64_t *retained;         /* [n + 1] what each node keeps alive */
};

static uint64_t suspects_object_bytes(const struct snapshot *s, const struct snapshot_object *o)
{
  uint64_t bytes = o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    bytes += s->blocks[o->first_block + b].size;
  return bytes;
}

static void suspects_tree_free(struct suspects_tree *t)
{
  free(t->idom), free(t->order), free(t->kid_first), free(t->kids), free(t->retained);
}

/* The dominator tree of a graph of nodes (root among them; node_bytes[v] each node's own
 * bytes): idom, preorder, retained sizes and children. */
static int suspects_tree_from_graph(struct suspects_tree *t, uint32_t nodes, const uint32_t *first,
                                    const uint32_t *succ, uint32_t root, const uint64_t *node_bytes)
{
  t->idom = malloc((size_t)nodes * sizeof *t->idom);
  t->order = malloc((size_t)nodes * sizeof *t->order);
  t->kid_first = calloc((size_t)nodes + 1, sizeof *t->kid_first);
  t->kids = malloc((size_t)nodes * sizeof *t->kids);
  t->retained = calloc(nodes, sizeof *t->retained);
  uint32_t *at = malloc((size_t)nodes * sizeof *at);
  int status = -1;
  if (!t->idom || !t->order || !t->kid_first || !t->kids || !t->retained || !at ||
      diff_holders_dominators(nodes, first, succ, root, t->idom, t->order, &t->reached) < 0)
    goto done;
  /* Retained sizes from the last of the preorder back: a node's dominator comes before it. */
  for (uint32_t i = 0; i < t->reached; i++)
    t->retained[t->order[i]] = node_bytes[t->order[i]];
  for (uint32_t i = t->reached; i-- > 1;)
    t->retained[t->idom[t->order[i]]] += t->retained[t->order[i]];
  /* The tree's children, by a counting sort on their dominators. */
  for (uint32_t i = 1; i < t->reached; i++)
    t->kid_first[t->idom[t->order[i]] + 1]++;
  for (uint32_t v = 0; v < nodes; v++)
    t->kid_first[v + 1] += t->kid_first[v];
  memcpy(at, t->kid_first, (size_t)nodes * sizeof *at);
  for (uint32_t i = 1; i < t->reached; i++)
    t->kids[at[t->idom[t->order[i]]]++] = t->order[i];
  status = 0;
done:
  free(at);
  return status;
}

static int suspects_tree_build(struct suspects_tree *t, const struct snapshot *s)
{
  memset(t, 0, sizeof *t);
  if (s->object_count >= UINT32_MAX - 1 || s->reference_count + s->root_count >= UINT32_MAX)
    return -1;
  uint32_t n = (uint32_t)s->object_count, nodes = n + 1;
  size_t edges = s->reference_count + s->root_count;
  uint32_t *first = calloc((size_t)nodes + 1, sizeof *first);
  uint32_t *succ = malloc((edges ? edges : 1) * sizeof *succ);
  uint64_t *bytes = calloc(nodes, sizeof *bytes);
  t->n = n;
  int status = -1;
  if (!first || !succ || !bytes)
    goto done;
  uint32_t e = 0;
  for (uint32_t v = 0; v < n; v++) {
    const struct snapshot_object *o = &s->objects[v];
    first[v] = e;
    bytes[v] = suspects_object_bytes(s, o);
    for (uint32_t r = o->first_reference; r < o->first_reference + o->reference_count; r++) {
      const struct snapshot_reference *ref = &s->references[r];
      const struct snapshot_object *to = ref->weak ? NULL : snapshot_find(s, ref->target);
      if (to && to != o)
        succ[e++] = (uint32_t)(to - s->objects);
    }
  }
  first[n] = e;
  for (size_t r = 0; r < s->root_count; r++) {
    const struct snapshot_object *to = s->roots[r].weak ? NULL : snapshot_find(s, s->roots[r].target);
    if (to)
      succ[e++] = (uint32_t)(to - s->objects);
  }
  first[nodes] = e;
  status = suspects_tree_from_graph(t, nodes, first, succ, n, bytes);
done:
  free(first), free(succ), free(bytes);
  return status;
}

/* The site's container in the tree from root: sub[v] the site's bytes v keeps alive, own[v]
 * whether v is an object of the site. From root down, the child that keeps more than half of
 * its node's share, until an object of the site or a node where no child does. */
static uint32_t suspects_descend(const struct suspects_tree *t, const uint64_t *sub,
                                 const unsigned char *own, uint32_t root)
{
  uint32_t u = root;
  while (!own[u]) {
    uint32_t next = SUSPECTS_NONE;
    for (uint32_t e = t->kid_first[u]; e < t->kid_first[u + 1] && next == SUSPECTS_NONE; e++)
      if (sub[t->kids[e]] > sub[u] / 2)
        next = t->kids[e];
    if (next == SUSPECTS_NONE)
      break;
    u = next;
  }
  return u;
}

int diff_suspects_container_node(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                                 uint32_t root, const uint64_t *bytes, const unsigned char *own,
                                 uint32_t *container)
{
  struct suspects_tree t;
  memset(&t, 0, sizeof t);
  uint64_t *none = calloc(node_count ? node_count : 1, sizeof *none);
  uint64_t *sub = calloc(node_count ? node_count : 1, sizeof *sub);
  int status = -1;
  if (none && sub && suspects_tree_from_graph(&t, node_count, first, succ, root, none) == 0) {
    for (uint32_t i = 0; i < t.reached; i++)
      sub[t.order[i]] = own[t.order[i]] ? bytes[t.order[i]] : 0;
    for (uint32_t i = t.reached; i-- > 1;)
      sub[t.idom[t.order[i]]] += sub[t.order[i]];
    *container = suspects_descend(&t, sub, own, root);
    status = 0;
  }
  suspects_tree_free(&t);
  free(none), free(sub);
  return status;
}

/* An object of a wanted site: its object and the bytes of the site's blocks in it. */
struct suspects_member {
  uint32_t site, object;
  uint64_t bytes;
};

static int members_by_site(const void *a, const void *b)
{
  const struct suspects_member *x = a, *y = b;
  if (x->site != y->site)
    return x->site < y->site ? -1 : 1;
  return x->object < y->object ? -1 : x->object > y->object;
}

/* The size the snapshot gives the block at address of object o (its own or an owned one). */
static uint64_t suspects_block_size(const struct snapshot *s, const struct snapshot_object *o,
                                    uint64_t address)
{
  if (o->address == address)
    return o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    if (s->blocks[o->first_block + b].address == address)
      return s->blocks[o->first_block + b].size;
  return 0;
}

/* The wanted sites' objects in snapshot (from aggregate's live blocks), one member per (site,
 * object), by site; only objects the roots reach. -1 when out of memory. */
static int suspects_members(const struct diff_aggregate *aggregate, const struct snapshot *s,
                            const struct suspects_tree *t, struct diff_site *const *wanted,
                            size_t wanted_count, struct suspects_member **out, size_t *count)
{
  size_t global_count = aggregate->sites.count;
  const struct diff_live_map *live = &aggregate->live;
  uint32_t *result_of = malloc((global_count ? global_count : 1) * sizeof *result_of);
  struct suspects_member *m = malloc((live->count ? live->count : 1) * sizeof *m);
  *out = NULL;
  *count = 0;
  if (!result_of || !m) {
    free(result_of), free(m);
    return -1;
  }
  for (size_t i = 0; i < global_count; i++)
    result_of[i] = SUSPECTS_NONE;
  for (size_t i = 0; i < wanted_count; i++) {
    uint32_t global = diff_site_table_find(&aggregate->sites, wanted[i]->name, strlen(wanted[i]->name));
    if (global != DIFF_SITE_TABLE_NONE && global < global_count)
      result_of[global] = (uint32_t)i;
  }
  size_t used = 0;
  for (size_t i = 0; live->slots && i < live->slot_count; i++) {
    const struct diff_live_block *slot = &live->slots[i];
    if (!slot->address || slot->site >= aggregate->owners.count)
      continue;
    uint32_t global = aggregate->owners.sites[slot->site];
    if (global >= global_count || result_of[global] == SUSPECTS_NONE)
      continue;
    uint64_t size = live_map_size(live, slot);
    const struct snapshot_object *o = snapshot_find_block(s, slot->address);
    if (!o || suspects_block_size(s, o, slot->address) != size)
      continue;  /* not in the snapshot, or another block at a reused address */
    uint32_t object = (uint32_t)(o - s->objects);
    if (t->idom[object] == SUSPECTS_NONE)
      continue;  /* the roots do not reach it: garbage the snapshot still saw */
    m[used++] = (struct suspects_member){result_of[global], object, size};
  }
  free(result_of);
  if (used > 1)
    qsort(m, used, sizeof *m, members_by_site);
  size_t kept = 0;  /* an object whose blocks the site made twice (a table, its array) once */
  for (size_t i = 0; i < used; i++) {
    if (kept && m[kept - 1].site == m[i].site && m[kept - 1].object == m[i].object) {
      m[kept - 1].bytes += m[i].bytes;
      continue;
    }
    m[kept++] = m[i];
  }
  *out = m;
  *count = kept;
  return 0;
}

/* The name of the container: the part before the first collapsed step of one of the site's
 * holder paths whose holder is the container (its type and retained size); else the top
 * path's part before its first collapsed step (named 0). NULL when out of memory. */
static char *suspects_container_path(const struct diff_site *site, const char *type,
                                     uint64_t retained, int *named)
{
  *named = 0;
  const char *from = NULL;
  size_t length = 0;
  for (size_t pass = 0; pass < 2 && !from; pass++)
    for (size_t i = 0; i < site->holder_count && !from; i++) {
      const struct diff_holder *h = &site->holders[i];
      if (!h->path)
        continue;
      const char *a = strstr(h->path, "[*]"), *b = strstr(h->path, "[key *]");
      const char *cut = a && b ? (a < b ? a : b) : a ? a : b;
      if (pass == 0) {
        if (!cut || cut == h->path || h->retained_bytes != retained || !h->holder_type ||
            strcmp(h->holder_type, type))
          continue;
        *named = 1;
      }
      from = h->path;
      length = cut && cut != h->path ? (size_t)(cut - h->path) : strlen(h->path);
    }
  if (!from)
    return strdup("(no path)");
  char *path = malloc(length + 1);
  if (path) {
    memcpy(path, from, length);
    path[length] = '\0';
  }
  return path;
}

/* The site that made the object at address: the live map's. */
static const char *suspects_made_at(const struct diff_aggregate *aggregate, uint64_t address)
{
  const struct diff_live_block *block = diff_live_map_find(&aggregate->live, address);
  if (!block || block->site >= aggregate->owners.count)
    return NULL;
  uint32_t global = aggregate->owners.sites[block->site];
  return global < aggregate->sites.count ? aggregate->sites.names[global] : NULL;
}

static void suspects_container_free(struct diff_site_container *c)
{
  if (!c)
    return;
  free(c->type), free(c->path), free(c->site);
  free(c);
}

/* For each wanted site: kinds of its members, and its container: from the roots' node down
 * the dominator tree, the child that keeps more than half of the site's bytes alive, until
 * an object of the site or a node where no child does. sub and objects are scratch arrays
 * of n + 1 (zero on entry and on return). */
static int suspects_sites(const struct snapshot *s, const struct suspects_tree *t,
                          const struct diff_aggregate *aggregate, struct diff_site *const *wanted,
                          const struct suspects_member *m, size_t count, uint64_t boundary)
{
  uint32_t nodes = t->n + 1;
  uint64_t *sub = calloc(nodes, sizeof *sub), *objects = calloc(nodes, sizeof *objects);
  unsigned char *own = calloc(nodes, 1);
  int status = -1;
  if (!sub || !objects || !own)
    goto done;
  for (size_t i = 0; i < count;) {
    size_t j = i;
    struct diff_site *site = wanted[m[i].site];
    memset(site->kinds, 0, sizeof site->kinds);
    for (; j < count && m[j].site == m[i].site; j++) {
      const struct snapshot_object *o = &s->objects[m[j].object];
      if (o->type >= 1 && o->type <= DIFF_KIND_COUNT) {
        site->kinds[o->type - 1].objects++;
        site->kinds[o->type - 1].bytes += m[j].bytes;
      }
      sub[m[j].object] += m[j].bytes;
      objects[m[j].object]++;
      own[m[j].object] = 1;
    }
    for (uint32_t k = t->reached; k-- > 1;) {
      uint32_t v = t->order[k], d = t->idom[v];
      sub[d] += sub[v];
      objects[d] += objects[v];
    }
    uint32_t u = suspects_descend(t, sub, own, t->n);
    suspects_container_free(site->container);
    site->container = NULL;
    if (u != t->n && sub[u]) {
      const struct snapshot_object *o = &s->objects[u];
      struct diff_site_container *c = calloc(1, sizeof *c);
      if (!c)
        goto done;
      site->container = c;
      const char *made = suspects_made_at(aggregate, o->address);
      c->address = o->address;
      c->type = strdup(snapshot_type_name(o->type));
      c->site = made ? strdup(made) : NULL;
      c->retained_bytes = t->retained[u];
      c->objects = objects[u];
      c->bytes = sub[u];
      c->boundary = boundary;
      if (!c->type || (made && !c->site) ||
          !(c->path = suspects_container_path(site, c->type, c->retained_bytes, &c->named)))
        goto done;
    }
    for (uint32_t k = 0; k < t->reached; k++)  /* clear on the reached nodes only */
      sub[t->order[k]] = objects[t->order[k]] = 0;
    for (size_t k = i; k < j; k++)
      own[m[k].object] = 0;
    i = j;
  }
  status = 0;
done:
  free(sub), free(objects), free(own);
  return status;
}

/* The capture read again up to its boundary at (every block live there, none after), into
 * aggregate: as the holders' step reads it for a snapshot in the middle of the run. */
static enum diff_status suspects_replay(struct diff_source *capture, size_t at,
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
    return DIFF_OK;
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
  struct diff_options quiet = *options;
  quiet.warn = NULL;
  quiet.progress = NULL;
  enum diff_status status = diff_aggregate_capture(aggregate, &cut, &quiet, err);
  free(cut.segments);
  return status;
}

static int suspects_wanted(const struct diff_site *site)
{
  return !site->is_stack && site->holder_count &&
         (site->verdict == DIFF_VERDICT_GROWING || site->verdict == DIFF_VERDICT_NEW ||
          site->verdict == DIFF_VERDICT_WORSE || site->verdict == DIFF_VERDICT_UNDECIDED);
}

/* One snapshot and the wanted sites whose holders come from it. */
static int suspects_one(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                        const struct diff_aggregate *aggregate, struct diff_site *const *wanted,
                        size_t wanted_count)
{
  struct snapshot snapshot;
  struct snapshot_error error;
  memset(&snapshot, 0, sizeof snapshot);
  enum snapshot_status read = snapshot_read_file(&snapshot, entry->path, &error);
  if (read == SNAPSHOT_NO_MEMORY)
    return -1;
  if ((read != SNAPSHOT_OK && read != SNAPSHOT_CUT) ||
      snapshot_check_capture(&snapshot, entry->path, holders->pid, holders->start, &error) != SNAPSHOT_OK) {
    snapshot_free(&snapshot);
    return 0;  /* the holders' step said why, and has no holders from it */
  }
  struct suspects_tree tree;
  struct suspects_member *members = NULL;
  size_t count = 0;
  int status = -1;
  if (suspects_tree_build(&tree, &snapshot) == 0 &&
      suspects_members(aggregate, &snapshot, &tree, wanted, wanted_count, &members, &count) == 0)
    status = suspects_sites(&snapshot, &tree, aggregate, wanted, members, count, entry->boundary);
  free(members);
  suspects_tree_free(&tree);
  snapshot_free(&snapshot);
  return status;
}

int diff_suspects_analyse(const struct diff_holders *holders, struct diff_source *capture,
                          const struct diff_aggregate *aggregate, struct diff_site *sites,
                          size_t site_count, const struct diff_options *options,
                          struct diff_error *err)
{
  struct diff_site **wanted = malloc((site_count ? site_count : 1) * sizeof *wanted);
  if (!wanted)
    return -1;
  int status = 0;
  for (size_t k = 0; k < holders->count && status == 0; k++) {
    const struct diff_holders_snapshot *entry = &holders->snapshots[k];
    size_t wanted_count = 0;
    for (size_t i = 0; i < site_count; i++)
      if (suspects_wanted(&sites[i]) && sites[i].holders_boundary == entry->boundary)
        wanted[wanted_count++] = &sites[i];
    if (!wanted_count)
      continue;
    if (entry->at == DIFF_HOLDERS_AT_END) {
      status = suspects_one(holders, entry, aggregate, wanted, wanted_count);
      continue;
    }
    struct diff_aggregate prefix;
    if (diff_aggregate_init(&prefix, capture->info.sample_bytes) < 0) {
      status = -1;
      break;
    }
    if (suspects_replay(capture, entry->at, &prefix, options, err) != DIFF_OK)
      status = -1;
    else
      status = suspects_one(holders, entry, &prefix, wanted, wanted_count);
    diff_aggregate_release(&prefix);
  }
  free(wanted);
  return status;
}

/* ---- Grouping ------------------------------------------------------------------- */

void diff_suspects_free(struct diff_result *result)
{
  for (size_t i = 0; i < result->suspect_count && result->suspects; i++) {
    free(result->suspects[i].sites);
    free(result->suspects[i].cause);
  }
  free(result->suspects);
  result->suspects = NULL;
  result->suspect_count = 0;
  result->suspects_grouped = 0;
}

static int suspect_add(struct diff_suspect *s, size_t site, size_t cause)
{
  size_t *sites = realloc(s->sites, (s->site_count + 1) * sizeof *sites);
  if (!sites)
    return -1;
  s->sites = sites;
  size_t *causes = realloc(s->cause, (s->site_count + 1) * sizeof *causes);
  if (!causes)
    return -1;
  s->cause = causes;
  s->sites[s->site_count] = site;
  s->cause[s->site_count++] = cause;
  return 0;
}

/* The VM's own work: its growth follows from the Lua code that made it do it. */
static int suspects_vm_site(const struct diff_site *site)
{
  return site->kind == DIFF_SITE_INTERNAL || (site->name && !strncmp(site->name, "VM: ", 4));
}

/* The suspect (and its site) whose site a stack of the VM site ends at (its leaf Lua frame's
 * label is the site's name): the one whose stacks hold most live bytes at the last boundary,
 * then most growth. 1 found, 0 none, -1 when out of memory. */
static int suspects_by_stacks(const struct diff_result *r, const struct diff_site *site,
                              size_t *which, size_t *cause)
{
  size_t n = r->suspect_count;
  uint64_t *live = calloc(n ? n : 1, sizeof *live);
  double *growth = calloc(n ? n : 1, sizeof *growth);
  size_t *first = calloc(n ? n : 1, sizeof *first);
  unsigned char *hit = calloc(n ? n : 1, 1);
  int found = -1;
  if (!live || !growth || !first || !hit)
    goto done;
  for (size_t k = 0; k < r->stack_count; k++) {
    const struct diff_site *stack = &r->stacks[k];
    if (stack->site_id != site->id)
      continue;
    const struct diff_frame *leaf = NULL;
    for (size_t f = 0; f < stack->frame_count && !leaf; f++)
      if (stack->frames[f].kind == STACKS_FRAME_LUA)
        leaf = &stack->frames[f];
    char label[512];
    if (!leaf || diff_frame_label(leaf, label, sizeof label) >= sizeof label)
      continue;
    for (size_t i = 0; i < n; i++) {
      const struct diff_suspect *s = &r->suspects[i];
      size_t j = 0;
      while (j < s->site_count && (s->cause[j] != SIZE_MAX || strcmp(r->sites[s->sites[j]].name, label)))
        j++;
      if (j == s->site_count)
        continue;
      if (!hit[i])
        first[i] = s->sites[j];
      hit[i] = 1;
      live[i] += stack->count && stack->live_bytes ? stack->live_bytes[stack->count - 1] : 0;
      growth[i] += stack->growth_bytes_per_segment;
    }
  }
  found = 0;
  for (size_t i = 0; i < n; i++) {
    if (!hit[i])
      continue;
    if (!found || live[i] > live[*which] || (live[i] == live[*which] && growth[i] > growth[*which])) {
      *which = i;
      *cause = first[i];
    }
    found = 1;
  }
done:
  free(live), free(growth), free(first), free(hit);
  return found;
}

static int suspects_compare(const void *a, const void *b, void *context)
{
  const struct diff_result *r = context;
  const struct diff_suspect *x = a, *y = b;
  if (x->growth_bytes_per_segment != y->growth_bytes_per_segment)
    return x->growth_bytes_per_segment < y->growth_bytes_per_segment ? 1 : -1;
  if (x->retained_bytes != y->retained_bytes)
    return x->retained_bytes < y->retained_bytes ? 1 : -1;
  return strcmp(r->sites[x->named_site].container->path, r->sites[y->named_site].container->path);
}

int diff_suspects_find(struct diff_result *result)
{
  diff_suspects_free(result);
  size_t capacity = 0;
  for (size_t i = 0; i < result->site_count; i++) {
    if (result->sites[i].container)
      result->suspects_grouped = 1;
    capacity += result->sites[i].facts.flagged && result->sites[i].container;
  }
  if (!capacity)
    return 0;
  result->suspects = calloc(capacity, sizeof *result->suspects);
  if (!result->suspects)
    goto fail;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (!site->facts.flagged || !site->container)
      continue;
    size_t k = 0;
    while (k < result->suspect_count &&
           result->sites[result->suspects[k].sites[0]].container->address != site->container->address)
      k++;
    struct diff_suspect *s = &result->suspects[k];
    if (k == result->suspect_count) {
      result->suspect_count++;
      s->named_site = i;
    }
    if (suspect_add(s, i, SIZE_MAX) < 0)
      goto fail;
    const struct diff_site_container *c = site->container;
    const struct diff_site_container *named = result->sites[s->named_site].container;
    if (c->named && !named->named)
      s->named_site = i;
    /* Sites may take their holders from different snapshots: the newest one's size. */
    if (c->boundary > s->boundary || (c->boundary == s->boundary && c->retained_bytes > s->retained_bytes)) {
      s->boundary = c->boundary;
      s->retained_bytes = c->retained_bytes;
    }
    s->objects += c->objects;
    s->bytes += c->bytes;
    for (size_t j = 0; j < DIFF_KIND_COUNT; j++) {
      s->kinds[j].objects += site->kinds[j].objects;
      s->kinds[j].bytes += site->kinds[j].bytes;
    }
    s->growth_bytes_per_segment += site->growth_bytes_per_segment;
    s->growth_bytes_per_second += site->growth_bytes_per_second;
  }
  /* The VM's work for a leaking line goes with the suspect of that line. */
  size_t suspects = result->suspect_count;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (!site->facts.flagged || site->container || !suspects_vm_site(site))
      continue;
    size_t which = 0, cause = 0;
    int found = suspects_by_stacks(result, site, &which, &cause);
    if (found < 0)
      goto fail;
    if (!found || which >= suspects)
      continue;
    struct diff_suspect *s = &result->suspects[which];
    if (suspect_add(s, i, cause) < 0)
      goto fail;
    s->growth_bytes_per_segment += site->growth_bytes_per_segment;
    s->growth_bytes_per_second += site->growth_bytes_per_second;
  }
  for (size_t k = 0; k < result->suspect_count; k++) {
    struct diff_suspect *s = &result->suspects[k];
    const struct diff_site_container *c = result->sites[s->named_site].container;
    for (size_t j = 0; j < result->container_count && !s->container; j++) {
      const struct diff_container *g = &result->containers[j];
      if (g->path && g->type && !strcmp(g->path, c->path) && !strcmp(g->type, c->type))
        s->container = j + 1;
    }
  }
  if (result->suspect_count > 1)
    qsort_r(result->suspects, result->suspect_count, sizeof *result->suspects, suspects_compare,
            result);
  return 0;
fail:
  {
    int grouped = result->suspects_grouped;
    diff_suspects_free(result);
    result->suspects_grouped = grouped;
  }
  return -1;
}

const struct diff_suspect *diff_suspects_of(const struct diff_result *result, size_t site)
{
  for (size_t k = 0; k < result->suspect_count; k++)
    for (size_t j = 0; j < result->suspects[k].site_count; j++)
      if (result->suspects[k].sites[j] == site)
        return &result->suspects[k];
  return NULL;
}

size_t diff_suspects_alone(const struct diff_result *result)
{
  size_t alone = 0;
  for (size_t i = 0; i < result->site_count; i++)
    alone += result->sites[i].facts.flagged && !diff_suspects_of(result, i);
  return alone;
}
