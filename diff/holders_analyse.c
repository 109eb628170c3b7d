/* diff/holders_analyse.c: the holders of each site's blocks in one heap snapshot, grouped by path, with retained sizes (docs/diff.md, "Holders"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "container/sorted.h"
#include "diff/holders.h"
#include "diff/holders_graph.h"
#include "diff/holders_join.h"
#include "diff/holders_keys.h"
#include "diff/holders_path.h"
#include "diff/suspects.h"

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
  if (array_reserve((void **)&gs->items, &gs->capacity, gs->count + 1, sizeof *gs->items) != 0)
    return -1;
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

/* A path whose last steps are named fields under a [*] (_G.users[*].name): every object of the
 * site at the end of such steps from one node has one text and one holder, whatever table the
 * [*] stands for. Its group is remembered by the node the [*] leaves from, the step's kind and
 * the fields' labels, so that a million such objects render their text once. */
#define HOLDERS_SUFFIX_STEPS 2      /* fields after the [*] that are remembered so */

struct holders_suffix {
  uint32_t from;              /* the node the [*] leaves from; NONE: an empty slot */
  uint32_t text[HOLDERS_SUFFIX_STEPS];  /* the fields' labels, the [*]'s end first (0: none) */
  uint32_t bits;              /* the [*] is a [key *]; the path's HOLDERS_VIA_* */
  uint32_t group;
};

struct holders_suffixes {
  struct holders_suffix *slots;
  size_t mask, count;         /* mask + 1 slots, a power of two; count used */
};

/* What the analysis of one snapshot's sites works in, each of its arrays a node's. */
struct holders_work {
  struct holders_marks marks[2];  /* [0] the site's objects' paths, [1] their notes' keys' */
  uint8_t *on_path;           /* 1 << k: a node of the paths marks[k] marks (shown steps) */
  uint32_t *seen;             /* those nodes, to clear what was marked */
  size_t seen_count, seen_capacity;  /* grown as marked: a site's paths are a few of the nodes */
  uint32_t *memo[2];          /* the group of the site's objects whose path is cut at a node, or
                               * whose last step is a [*] from it; [1]: a [key *] from it */
  uint32_t *key_memo[2];      /* so for the keys of weak-keyed tables' entries the site's paths go
                               * through: the id of their note (NULL: the snapshot has none) */
  struct holders_groups notes;  /* the site's notes, each text once: its id is its index */
  struct holders_suffixes suffixes;  /* the site's groups by [*] and the fields after it */
};

/* Marks the steps of v's path in marks[k], each once (a path is the BFS tree's, so every node
 * above a marked one is marked: a walk up stops at the first), up to where it is cut: labels[u]
 * becomes the one text under which u leads to the marked objects, or MULTI; and source[text]
 * the one object that uses text so in a FIELD step, or MULTI. */
static int holders_mark_one(const struct holders_graph *g, struct holders_work *w, int k, uint32_t v)
{
  struct holders_marks *marks = &w->marks[k];
  for (uint32_t c = g->top[v]; c != g->n && !(w->on_path[c] >> k & 1); c = g->parent[c]) {
    if (!w->on_path[c]) {
      if (array_reserve((void **)&w->seen, &w->seen_capacity, w->seen_count + 1, sizeof *w->seen) != 0)
        return -1;
      w->seen[w->seen_count++] = c;
    }
    w->on_path[c] |= (uint8_t)(1u << k);
    uint32_t u = g->parent[c];
    if (u == g->n)
      continue;
    uint32_t id = g->step_text[c];
    uint32_t *source = id <= g->snapshot->string_count ? &marks->source[id] : NULL;
    uint32_t text = id + 1;
    if (!marks->labels[u])
      marks->labels[u] = text;
    else if (marks->labels[u] < HOLDERS_FEW && marks->labels[u] != text)
      marks->labels[u] = HOLDERS_FEW;
    else if (marks->labels[u] >= HOLDERS_FEW && marks->labels[u] < HOLDERS_MULTI)
      marks->labels[u]++;   /* one more child on the paths */
    if (source && g->step_kind[c] == SNAPSHOT_REF_FIELD) {
      if (!*source)
        *source = u + 1;
      else if (*source != u + 1)
        *source = HOLDERS_MULTI;
    }
  }
  return 0;
}

/* ... for the site's objects, and apart for the keys of the weak-keyed tables' entries on their
 * paths (a note names a key's path, collapsed among the keys': "_G.sessions[*]"). */
static int holders_mark(const struct holders_graph *g, struct holders_work *w,
                        const struct holders_member *m, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    if (holders_mark_one(g, w, 0, m[i].object) < 0)
      return -1;
    uint32_t key = holders_key(g, m[i].object);
    if (key != DIFF_HOLDERS_NONE && g->parent[key] != DIFF_HOLDERS_NONE && holders_mark_one(g, w, 1, key) < 0)
      return -1;
  }
  return 0;
}

/* Clears what holders_mark and the site's memo set, on the nodes marked only. */
static void holders_unmark(const struct holders_graph *g, struct holders_work *w)
{
  for (size_t i = 0; i < w->seen_count; i++) {
    uint32_t c = w->seen[i], u = g->parent[c];
    w->on_path[c] = 0;
    for (int k = 0; k < 2; k++) {
      if (w->memo[k])
        w->memo[k][c] = DIFF_HOLDERS_NONE;
      if (w->key_memo[k])
        w->key_memo[k][c] = DIFF_HOLDERS_NONE;
    }
    if (u == g->n)
      continue;
    uint32_t text = g->step_text[c];
    for (int k = 0; k < 2 && w->marks[k].labels; k++) {
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
  if (p == g->n || !holders_step_collapsed(g, marks, v))
    return NULL;
  return &memo[g->step_kind[v] == SNAPSHOT_REF_KEY][p];
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

/* Whether v's path ends in named fields (at most HOLDERS_SUFFIX_STEPS, none cut, collapsed or
 * into or out of package.loaded, whose render says more) after a [*]: then *key says which. */
static int holders_suffix_of(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                             struct holders_suffix *key)
{
  uint32_t c = v;
  size_t steps = 0;
  if (g->top[v] != v)
    return 0;
  memset(key, 0, sizeof *key);
  for (;;) {
    uint32_t p = g->parent[c];
    if (p == g->n || p == DIFF_HOLDERS_NONE || c == g->loaded || p == g->loaded || p == g->registry)
      return 0;
    if (holders_step_collapsed(g, marks, c)) {
      /* v's own [*] is holders_memo's; an upvalue's value is no [*] where it follows the upvalue */
      if (!steps || g->snapshot->objects[p].type == SNAPSHOT_UPVALUE)
        return 0;
      key->from = p;
      key->bits = (g->step_kind[c] == SNAPSHOT_REF_KEY) | (uint32_t)g->how[v] << 1;
      return 1;
    }
    if (steps == HOLDERS_SUFFIX_STEPS || g->step_kind[c] != SNAPSHOT_REF_FIELD)
      return 0;
    key->text[steps++] = g->step_text[c];
    c = p;
  }
}

static uint64_t holders_suffix_hash(const struct holders_suffix *k)
{
  uint64_t h = (uint64_t)k->from * 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < HOLDERS_SUFFIX_STEPS; i++)
    h = (h ^ k->text[i]) * 0xff51afd7ed558ccdull;
  return (h ^ k->bits) * 0xc4ceb9fe1a85ec53ull;
}

static int holders_suffix_same(const struct holders_suffix *a, const struct holders_suffix *b)
{
  return a->from == b->from && a->bits == b->bits && !memcmp(a->text, b->text, sizeof a->text);
}

/* The slot of key in ss: its own, or the empty one where it goes (grown first, so that there
 * is one). NULL when out of memory. */
static struct holders_suffix *holders_suffix_slot(struct holders_suffixes *ss, const struct holders_suffix *key)
{
  if ((ss->count + 1) * 2 > (ss->slots ? ss->mask + 1 : 0)) {
    size_t size = ss->slots ? (ss->mask + 1) * 2 : 64;
    struct holders_suffix *fresh = malloc(size * sizeof *fresh);
    if (!fresh)
      return NULL;
    for (size_t i = 0; i < size; i++)
      fresh[i].from = DIFF_HOLDERS_NONE;
    for (size_t i = 0; ss->slots && i <= ss->mask; i++) {
      if (ss->slots[i].from == DIFF_HOLDERS_NONE)
        continue;
      size_t at = holders_suffix_hash(&ss->slots[i]) & (size - 1);
      while (fresh[at].from != DIFF_HOLDERS_NONE)
        at = (at + 1) & (size - 1);
      fresh[at] = ss->slots[i];
    }
    free(ss->slots);
    ss->slots = fresh;
    ss->mask = size - 1;
  }
  size_t at = holders_suffix_hash(key) & ss->mask;
  while (ss->slots[at].from != DIFF_HOLDERS_NONE && !holders_suffix_same(&ss->slots[at], key))
    at = (at + 1) & ss->mask;
  return &ss->slots[at];
}

static void holders_suffix_clear(struct holders_suffixes *ss)
{
  for (size_t i = 0; ss->count && i <= ss->mask; i++)
    ss->slots[i].from = DIFF_HOLDERS_NONE;
  ss->count = 0;
}

/* *memo: where v's group is remembered (holders_memo's place, else by its fields after a [*]),
 * NONE there until it has one; NULL when v's text is its own. Valid until the next call. -1
 * when out of memory. */
static int holders_remembered(const struct holders_graph *g, struct holders_work *w, uint32_t v, uint32_t **memo)
{
  struct holders_suffix key, *slot;
  *memo = holders_memo(g, &w->marks[0], w->memo, v);
  if (*memo || !holders_suffix_of(g, &w->marks[0], v, &key))
    return 0;
  if (!(slot = holders_suffix_slot(&w->suffixes, &key)))
    return -1;
  if (slot->from == DIFF_HOLDERS_NONE) {
    *slot = key;
    slot->group = DIFF_HOLDERS_NONE;
    w->suffixes.count++;
  }
  *memo = &slot->group;
  return 0;
}

/* The words after the path of an object whose parts a site made, not the object itself. */
static const char *holders_part_words(const struct snapshot_object *o)
{
  switch (o->type) {
  case SNAPSHOT_TABLE:
    return " (its slots)";
  case SNAPSHOT_THREAD:
    return " (its stack)";
  case SNAPSHOT_USERDATA:
    return " (its buffer)";
  default:
    return " (its data)";
  }
}

/* Forgets the groups the site's memos point to, the marks kept (between holders_site's passes). */
static void holders_memo_clear(struct holders_work *w)
{
  for (size_t i = 0; i < w->seen_count; i++)
    for (int k = 0; k < 2; k++)
      if (w->memo[k])
        w->memo[k][w->seen[i]] = DIFF_HOLDERS_NONE;
  holders_suffix_clear(&w->suffixes);
}

/* The site's holders from its objects m: each text rendered once per group remembered (a list
 * of a million nodes renders as many texts as it has steps shown, plus one). The objects the
 * site made come first, then those it made only parts of (a table whose slots grew at the site's
 * line): each of those is its own holder, as "_G.log (its slots)", where its path is its own
 * (the table then keeps alive what it retains, not what its parent does). */
static int holders_site(const struct holders_graph *g, struct holders_work *w, struct holders_groups *gs,
                        const struct holders_member *m, size_t count, struct diff_site *site)
{
  int status = holders_mark(g, w, m, count);
  struct holders_text t;
  for (uint32_t part = 0; part < 2 && status == 0; part++) {
    if (part)
      holders_memo_clear(w);
    for (size_t i = 0; i < count && status == 0; i++) {
      uint32_t *memo, holder, index, note;
      if (m[i].part != part)
        continue;
      if ((status = holders_remembered(g, w, m[i].object, &memo)) < 0 ||
          (status = holders_note_id(g, w, m[i].object, &note)) < 0)
        break;
      if (memo && *memo != DIFF_HOLDERS_NONE && gs->items[*memo].note == note) {
        gs->items[*memo].objects++;
        gs->items[*memo].bytes += m[i].bytes;
        continue;
      }
      holders_render_path(g, &w->marks[0], m[i].object, &t, &holder);
      if (part) {
        holders_text_end(&t, 0, holders_part_words(&g->snapshot->objects[m[i].object]));
        /* its own holder, unless its path names another for all that share its text: a [*]
         * (sched.parked[*] ▸ local buf ... (its slots): every parked coroutine's buffer), a
         * list's head, or where a path deeper than HOLDERS_DEPTH is cut */
        if (!memo && holder == g->parent[m[i].object])
          holder = m[i].object;
      }
      if (note != DIFF_HOLDERS_NONE)
        holders_text_end(&t, 0, w->notes.items[note].path);
      status = groups_add(gs, t.buf, m[i].bytes, holder, &index);
      if (status == 0) {
        gs->items[index].note = note;
        if (memo)
          *memo = index;
      }
    }
  }
  holders_unmark(g, w);
  groups_clear(&w->notes);
  holders_suffix_clear(&w->suffixes);
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

/* Whether a reached node of g is reached by a hash key's own reference (a [key *] step). */
static int holders_key_steps(const struct holders_graph *g)
{
  for (uint32_t v = 0; v < g->n; v++)
    if (g->parent[v] != DIFF_HOLDERS_NONE && g->parent[v] != g->n && g->step_kind[v] == SNAPSHOT_REF_KEY)
      return 1;
  return 0;
}

/* The analysis's scratch for a graph of nodes nodes (with_keys: it has weak-keyed values'
 * steps; key_steps: [key *] steps, whose memo is [1]). -1 when out of memory
 * (holders_work_free either way). */
static int holders_work_init(struct holders_work *w, size_t nodes, uint32_t strings, int with_keys, int key_steps)
{
  memset(w, 0, sizeof *w);
  for (int k = 0; k < 1 + !!with_keys; k++) {  /* [1]: the keys' paths, only with weak-keyed values */
    w->marks[k].labels = calloc(nodes, sizeof *w->marks[k].labels);
    w->marks[k].source = calloc((size_t)strings + 1, sizeof *w->marks[k].source);
    if (!w->marks[k].labels || !w->marks[k].source)
      return -1;
  }
  w->on_path = calloc(nodes, sizeof *w->on_path);
  if (!w->on_path)
    return -1;
  for (int k = 0; k < 1 + !!key_steps; k++) {
    if (!(w->memo[k] = malloc(nodes * sizeof *w->memo[k])))
      return -1;
    memset(w->memo[k], 0xff, nodes * sizeof *w->memo[k]);
    if (!with_keys)
      continue;
    if (!(w->key_memo[k] = malloc(nodes * sizeof *w->key_memo[k])))
      return -1;
    memset(w->key_memo[k], 0xff, nodes * sizeof *w->key_memo[k]);
  }
  return 0;
}

static void holders_work_free(struct holders_work *w)
{
  for (int k = 0; k < 2; k++)
    free(w->marks[k].labels), free(w->marks[k].source);
  free(w->on_path), free(w->seen), free(w->memo[0]), free(w->memo[1]);
  free(w->key_memo[0]), free(w->key_memo[1]);
  groups_clear(&w->notes);
  free(w->notes.items), free(w->notes.slots);
  free(w->suffixes.slots);
}

/* The holders of the sites, and with suspects the suspects' step on the same graph (growing:
 * the containers it prefers). */
static int holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                           size_t block_count, struct diff_holders_block *taken, struct diff_site **sites,
                           size_t site_count, struct snapshot *suspects, const struct diff_aggregate_at *at,
                           uint64_t boundary, const struct diff_suspects_growing *growing)
{
  struct holders_member *members;
  size_t count;
  if (holders_join(snapshot, blocks, block_count, site_count, &members, &count, taken) < 0)
    return -1;
  if (suspects)  /* joined: the graph looks up the roots only */
    snapshot_free_index(suspects);
  struct holders_graph g;
  struct holders_groups gs = {0};
  struct holders_work w = {0};
  int status = -1;
  size_t reached = 0;
  uint32_t *key_holder = NULL;
  uint8_t *key_slots = NULL;
  if (holders_graph_build(&g, snapshot) < 0 ||
      holders_work_init(&w, (size_t)snapshot->object_count + 1, snapshot->string_count, g.key_step != NULL,
                        holders_key_steps(&g)) < 0)
    goto done;
  for (size_t i = 0; i < count; i++)  /* the members the roots reach */
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
  if (suspects && holders_key_holders(&g, members, reached, site_count, &key_holder, &key_slots) < 0)
    goto done;
  status = 0;
done:
  groups_clear(&gs);
  free(gs.items);
  free(gs.slots);
  holders_work_free(&w);
  if (status == 0 && suspects) {  /* the paths' arrays and the references freed first: the suspects'
                                   * step needs the tree */
    holders_paths_free(&g);
    snapshot_free_references(suspects);
    struct diff_holders_tree tree = {snapshot, g.n, g.reached, g.idom, g.order, g.retained, members, reached,
                                     key_holder, key_slots};
    status = diff_suspects_snapshot(&tree, at, sites, site_count, boundary, growing);
  }
  holders_graph_free(&g);
  free(members);
  free(key_holder);
  free(key_slots);
  return status;
}

int diff_holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                         size_t block_count, struct diff_site **sites, size_t site_count)
{
  return holders_analyse(snapshot, blocks, block_count, NULL, sites, site_count, NULL, NULL, 0, NULL);
}

int diff_holders_analyse_suspects(struct snapshot *snapshot, struct diff_holders_block **blocks,
                                  size_t block_count, struct diff_site **sites, size_t site_count,
                                  const struct diff_aggregate_at *at, uint64_t boundary,
                                  const struct diff_container *growing, size_t growing_count)
{
  struct diff_holders_block *taken = *blocks;
  *blocks = NULL;
  struct diff_suspects_growing g = {growing, growing_count};
  return holders_analyse(snapshot, taken, block_count, taken, sites, site_count, snapshot, at, boundary, &g);
}
