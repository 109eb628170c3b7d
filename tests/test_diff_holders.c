/* tests/test_diff_holders.c: the dominator tree on small hand-built graphs (Lengauer and Tarjan's example, a loop, a diamond, unreached nodes), and holder paths and retained sizes on a hand-built snapshot (collapsed keys, a weak cache never holding, an upvalue's path); named paths first (a module, a global over a shorter dead stack slot; a path only a temporary holds says so; an upvalue after the path of its closure, two closures of one function told apart; the objects at the end of the same fields after a [*] from one table are one holder, per table and fields) and weak tables (a weak-keyed table's value lives while its key lives and names the key's holder, a key only its value holds, a weak-valued table never holding but strings); a table's slots and a coroutine's stack held by their object, a variable-length cdata's one block no part of it; the analysis of a million-node list, of a table of a million entries and of a list with side branches, which only an analysis linear in objects and references finishes (no timing: the case's timeout is what fails a quadratic one). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "format/snapshot.h"
#include "tests/bytes.h"
#include "tests/check_run.h"

/* A graph from an edge list: first[] and succ[] as diff_holders_dominators takes them. */
struct graph {
  uint32_t first[32];
  uint32_t succ[64];
};

static void graph_build(struct graph *g, uint32_t nodes, const uint32_t (*edges)[2], size_t count)
{
  size_t e = 0;
  for (uint32_t v = 0; v < nodes; v++) {
    g->first[v] = e;
    for (size_t i = 0; i < count; i++)
      if (edges[i][0] == v)
        g->succ[e++] = edges[i][1];
  }
  g->first[nodes] = e;
}

static void dominators(const struct graph *g, uint32_t nodes, uint32_t *idom, uint32_t *reached)
{
  uint32_t order[32];
  ck_assert_int_eq(diff_holders_dominators(nodes, g->first, g->succ, 0, idom, order, reached), 0);
  for (uint32_t i = 1; i < *reached; i++)  /* a node's dominator comes before it */
    for (uint32_t j = i; j < *reached; j++)
      ck_assert_uint_ne(order[j], idom[order[i]] == order[i] ? DIFF_HOLDERS_NONE : idom[order[i]]);
}

enum { R, A, B, C, D, E, F, G, H, I, J, K, L };

START_TEST(test_lengauer_tarjan_example)
{
  /* The flow graph of Lengauer and Tarjan's paper, and its dominator tree. */
  static const uint32_t edges[][2] = {
      {R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E}, {C, F}, {C, G}, {D, L}, {E, H},
      {F, I}, {G, I}, {G, J}, {H, E}, {H, K}, {I, K}, {J, I}, {K, I}, {K, R}, {L, H}};
  struct graph g;
  graph_build(&g, 13, edges, sizeof edges / sizeof edges[0]);
  uint32_t idom[13], reached;
  dominators(&g, 13, idom, &reached);
  ck_assert_uint_eq(reached, 13);
  static const uint32_t want[13] = {[R] = R, [A] = R, [B] = R, [C] = R, [D] = R, [E] = R, [F] = C,
                                    [G] = C, [H] = R, [I] = R, [J] = G, [K] = R, [L] = D};
  for (int v = 0; v < 13; v++)
    ck_assert_msg(idom[v] == want[v], "idom of node %d is %u, not %u", v, idom[v], want[v]);
}
END_TEST

START_TEST(test_diamond_loop_and_unreached_nodes)
{
  /* 0 -> 1 -> 2 -> 1 (a loop), 2 -> 3, 0 -> 3; 1 -> 4, 2 -> 4 (a diamond below the loop);
   * 5 -> 4 with 5 unreached. */
  static const uint32_t edges[][2] = {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {0, 3}, {1, 4}, {2, 4}, {5, 4}};
  struct graph g;
  graph_build(&g, 6, edges, sizeof edges / sizeof edges[0]);
  uint32_t idom[6], reached;
  dominators(&g, 6, idom, &reached);
  ck_assert_uint_eq(reached, 5);
  ck_assert_uint_eq(idom[0], 0);
  ck_assert_uint_eq(idom[1], 0);
  ck_assert_uint_eq(idom[2], 1);
  ck_assert_uint_eq(idom[3], 0);
  ck_assert_uint_eq(idom[4], 1);
  ck_assert_uint_eq(idom[5], DIFF_HOLDERS_NONE);
}
END_TEST

START_TEST(test_a_chain_and_a_root_alone)
{
  static const uint32_t edges[][2] = {{0, 1}, {1, 2}, {2, 3}};
  struct graph g;
  graph_build(&g, 4, edges, 3);
  uint32_t idom[4], reached;
  dominators(&g, 4, idom, &reached);
  ck_assert_uint_eq(reached, 4);
  ck_assert_uint_eq(idom[3], 2);
  graph_build(&g, 4, edges, 0);
  dominators(&g, 4, idom, &reached);
  ck_assert_uint_eq(reached, 1);
  ck_assert_uint_eq(idom[1], DIFF_HOLDERS_NONE);
}
END_TEST

/* A heap: the registry (0x1000) holds _LOADED (0x2000), which holds the module auth (0x3000),
 * whose tokens (0x4000, with a hash part at 0x4800) holds three records under unique keys
 * (0x5000, 0x5100, 0x5200). A weak-valued cache (0x6000), a global, holds the records too. A
 * function (0x7000, prototype 0x7800 named function@bus.lua:3) holds the upvalue 0x7400
 * "handlers", whose value is a list (0x8000) holding a record (0x8100) at [1]. The globals
 * table (0x9000) holds the cache and the function. */
static struct bytes write_heap(void)
{
  struct bytes out = {NULL, 0, 0};
  size_t capacity = 8192;
  uint8_t *buffer = malloc(2 * capacity);
  struct snapshot_writer w;
  struct snapshot_capture capture = {4242, 1763745600125, 3, 1, 100, 1763745605310, 4096, 0};
  snapshot_writer_init(&w, buffer, buffer + capacity, capacity, bytes_sink, &out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &capture), 0);
  uint32_t s_loaded = snapshot_writer_string(&w, "_LOADED", 7);
  uint32_t s_auth = snapshot_writer_string(&w, "auth", 4);
  uint32_t s_tokens = snapshot_writer_string(&w, "tokens", 6);
  uint32_t s_t1 = snapshot_writer_string(&w, "token-1", 7);
  uint32_t s_t2 = snapshot_writer_string(&w, "token-2", 7);
  uint32_t s_t3 = snapshot_writer_string(&w, "token-3", 7);
  uint32_t s_cache = snapshot_writer_string(&w, "cache", 5);
  uint32_t s_on = snapshot_writer_string(&w, "on", 2);
  uint32_t s_upvalue = snapshot_writer_string(&w, "upvalue handlers", 16);
  uint32_t s_value = snapshot_writer_string(&w, "value", 5);
  uint32_t s_prototype = snapshot_writer_string(&w, "prototype", 9);
  uint32_t s_name = snapshot_writer_string(&w, "function@bus.lua:3", 18);
  uint32_t s_registry = snapshot_writer_string(&w, "registry", 8);
  uint32_t s_globals = snapshot_writer_string(&w, "globals", 7);
#define OBJECT(type, flags, address, size, blocks, block_count)                                   \
  do {                                                                                            \
    struct snapshot_wire_object o = {type, flags, address, size, 0, 0, blocks, block_count};     \
    ck_assert_int_eq(snapshot_writer_object(&w, &o), 0);                                          \
  } while (0)
#define REF(kind, weak, text, index, target) \
  ck_assert_int_eq(snapshot_writer_reference(&w, kind, weak, text, index, target), 0)
  OBJECT(SNAPSHOT_TABLE, 0, 0x1000, 64, NULL, 0);
  REF(SNAPSHOT_REF_FIELD, 0, s_loaded, 0, 0x2000);
  OBJECT(SNAPSHOT_TABLE, 0, 0x2000, 64, NULL, 0);
  REF(SNAPSHOT_REF_FIELD, 0, s_auth, 0, 0x3000);
  OBJECT(SNAPSHOT_TABLE, 0, 0x3000, 64, NULL, 0);
  REF(SNAPSHOT_REF_FIELD, 0, s_tokens, 0, 0x4000);
  struct snapshot_block hash = {0x4800, 256};
  OBJECT(SNAPSHOT_TABLE, 0, 0x4000, 64, &hash, 1);
  REF(SNAPSHOT_REF_FIELD, 0, s_t1, 0, 0x5000);
  REF(SNAPSHOT_REF_FIELD, 0, s_t2, 0, 0x5100);
  REF(SNAPSHOT_REF_FIELD, 0, s_t3, 0, 0x5200);
  OBJECT(SNAPSHOT_TABLE, 0, 0x5000, 40, NULL, 0);
  OBJECT(SNAPSHOT_TABLE, 0, 0x5100, 40, NULL, 0);
  OBJECT(SNAPSHOT_TABLE, 0, 0x5200, 40, NULL, 0);
  OBJECT(SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_VALUES, 0x6000, 64, NULL, 0);
  REF(SNAPSHOT_REF_INDEX, 1, 0, 1, 0x5000);
  REF(SNAPSHOT_REF_INDEX, 1, 0, 2, 0x5100);
  REF(SNAPSHOT_REF_INDEX, 1, 0, 3, 0x5200);
  REF(SNAPSHOT_REF_INDEX, 1, 0, 4, 0x8100);
  OBJECT(SNAPSHOT_LUA_FUNCTION, 0, 0x7000, 40, NULL, 0);
  REF(SNAPSHOT_REF_OTHER, 0, s_prototype, 0, 0x7800);
  REF(SNAPSHOT_REF_OTHER, 0, s_upvalue, 0, 0x7400);
  OBJECT(SNAPSHOT_UPVALUE, 0, 0x7400, 48, NULL, 0);
  REF(SNAPSHOT_REF_OTHER, 0, s_value, 0, 0x8000);
  struct snapshot_wire_object proto = {SNAPSHOT_PROTOTYPE, 0, 0x7800, 200, 0, s_name, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &proto), 0);
  OBJECT(SNAPSHOT_TABLE, 0, 0x8000, 64, NULL, 0);
  REF(SNAPSHOT_REF_INDEX, 0, 0, 1, 0x8100);
  OBJECT(SNAPSHOT_TABLE, 0, 0x8100, 40, NULL, 0);
  OBJECT(SNAPSHOT_TABLE, 0, 0x9000, 64, NULL, 0);
  REF(SNAPSHOT_REF_FIELD, 0, s_cache, 0, 0x6000);
  REF(SNAPSHOT_REF_FIELD, 0, s_on, 0, 0x7000);
#undef OBJECT
#undef REF
  ck_assert_int_eq(snapshot_writer_root(&w, s_registry, 0, 0x1000), 0);
  ck_assert_int_eq(snapshot_writer_root(&w, s_globals, 0, 0x9000), 0);
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  free(buffer);
  return out;
}

START_TEST(test_paths_collapse_unique_keys_and_weak_caches_never_hold)
{
  struct bytes file = write_heap();
  struct snapshot s;
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, file.data, file.size, "heap", &error), FORMAT_OK);
  /* Site 0: the three records, and the tokens table's hash part (a block the table owns);
   * site 1: the record in the list; a block of a reused address (another size) is no member. */
  struct diff_holders_block blocks[] = {
      {0x5000, 40, 0}, {0x5100, 40, 0}, {0x5200, 40, 0}, {0x4800, 256, 0},
      {0x8100, 40, 1}, {0x8000, 99, 1}};
  struct diff_site sites[2];
  memset(sites, 0, sizeof sites);
  struct diff_site *wanted[2] = {&sites[0], &sites[1]};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, 6, wanted, 2), 0);
  ck_assert_uint_eq(sites[0].holder_count, 2);
  /* most bytes first: the hash part (256 B), of a table the site did not make, is the table's
   * slots, held by the table itself: the same table keeps the same bytes alive on both lines */
  ck_assert_str_eq(sites[0].holders[0].path, "auth.tokens (its slots)");
  ck_assert_uint_eq(sites[0].holders[0].bytes, 256);
  ck_assert_uint_eq(sites[0].holders[0].objects, 1);
  ck_assert_str_eq(sites[0].holders[0].holder_type, "table");
  ck_assert_str_eq(sites[0].holders[1].path, "auth.tokens[*]");
  ck_assert_uint_eq(sites[0].holders[1].objects, 3);
  ck_assert_uint_eq(sites[0].holders[1].bytes, 120);
  ck_assert_str_eq(sites[0].holders[1].holder_type, "table");
  /* tokens keeps its own 64 bytes, its hash part and the three records alive */
  ck_assert_uint_eq(sites[0].holders[1].retained_bytes, 64 + 256 + 120);
  ck_assert_uint_eq(sites[0].holders[0].retained_bytes, sites[0].holders[1].retained_bytes);
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "_G.on \xe2\x96\xb8 upvalue handlers[*]");
  ck_assert_uint_eq(sites[1].holders[0].objects, 1);
  ck_assert_uint_eq(sites[1].holders[0].retained_bytes, 64 + 40);
  for (int i = 0; i < 2; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
  free(file.data);
}
END_TEST

START_TEST(test_one_key_is_named_not_collapsed)
{
  struct bytes file = write_heap();
  struct snapshot s;
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, file.data, file.size, "heap", &error), FORMAT_OK);
  struct diff_holders_block blocks[] = {{0x5100, 40, 0}};
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *wanted[1] = {&site};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, 1, wanted, 1), 0);
  ck_assert_uint_eq(site.holder_count, 1);
  ck_assert_str_eq(site.holders[0].path, "auth.tokens[\"token-2\"]");
  diff_site_release(&site);
  snapshot_free(&s);
  free(file.data);
}
END_TEST

START_TEST(test_a_text_too_long_is_cut_and_says_so)
{
  /* Eight tables down from the globals, each under a name of 200 letters: 1.6 KiB of path. */
  struct bytes out = {NULL, 0, 0};
  size_t capacity = 8192;
  uint8_t *buffer = malloc(2 * capacity);
  struct snapshot_writer w;
  struct snapshot_capture capture = {4242, 1763745600125, 3, 1, 100, 1763745605310, 4096, 0};
  snapshot_writer_init(&w, buffer, buffer + capacity, capacity, bytes_sink, &out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &capture), 0);
  char name[200];
  uint32_t names[8];
  for (int k = 0; k < 8; k++) {
    memset(name, 'a' + k, sizeof name);
    names[k] = snapshot_writer_string(&w, name, sizeof name);
  }
  uint32_t s_globals = snapshot_writer_string(&w, "globals", 7);
  for (uint64_t k = 0; k <= 8; k++) {
    struct snapshot_wire_object o = {SNAPSHOT_TABLE, 0, 0x1000 + k * 0x100, 64, 0, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(&w, &o), 0);
    if (k < 8)
      ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, names[k], 0, 0x1100 + k * 0x100), 0);
  }
  ck_assert_int_eq(snapshot_writer_root(&w, s_globals, 0, 0x1000), 0);
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  free(buffer);
  struct snapshot s;
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "heap", &error), FORMAT_OK);
  struct diff_holders_block blocks[] = {{0x1800, 64, 0}};
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *wanted[1] = {&site};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, 1, wanted, 1), 0);
  ck_assert_uint_eq(site.holder_count, 1);
  const char *path = site.holders[0].path;
  size_t len = strlen(path);
  ck_assert_uint_eq(len, 1023);
  ck_assert_str_eq(path + len - 4, " ...");
  ck_assert_int_eq(strncmp(path, "_G.aaaa", 7), 0);
  diff_site_release(&site);
  snapshot_free(&s);
  free(out.data);
}
END_TEST


/* ---- Named paths first; weak-keyed tables ------------------------------------------------- */

/* A small heap written by hand: its strings interned (as the collector's are), objects and
 * references in the order given. */
struct heap {
  struct bytes out;
  uint8_t *buffer;
  struct snapshot_writer w;
  const char *texts[64];
  uint32_t ids[64];
  size_t count;
};

static void heap_begin(struct heap *h)
{
  size_t capacity = 8192;
  memset(h, 0, sizeof *h);
  h->buffer = malloc(2 * capacity);
  ck_assert_ptr_nonnull(h->buffer);
  struct snapshot_capture capture = {4242, 1763745600125, 3, 1, 100, 1763745605310, 4096, 0};
  snapshot_writer_init(&h->w, h->buffer, h->buffer + capacity, capacity, bytes_sink, &h->out);
  ck_assert_int_eq(snapshot_writer_begin(&h->w, &capture), 0);
}

static uint32_t heap_text(struct heap *h, const char *text)
{
  for (size_t i = 0; i < h->count; i++)
    if (!strcmp(h->texts[i], text))
      return h->ids[i];
  ck_assert_uint_lt(h->count, 64);
  h->texts[h->count] = text;
  h->ids[h->count] = snapshot_writer_string(&h->w, text, strlen(text));
  ck_assert_uint_ne(h->ids[h->count], 0);
  return h->ids[h->count++];
}

static void heap_object(struct heap *h, enum snapshot_type type, unsigned flags, uint64_t address,
                        const char *name)
{
  struct snapshot_wire_object o = {type, flags, address, 40, 0, name ? heap_text(h, name) : 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&h->w, &o), 0);
}

/* A reference of the open object: FIELD, KEYED, KEY, OTHER with text; INDEX with index. */
static void heap_ref(struct heap *h, enum snapshot_ref_kind kind, int weak, const char *text, int64_t index,
                     uint64_t target)
{
  uint32_t id = kind == SNAPSHOT_REF_INDEX ? 0 : heap_text(h, text);
  ck_assert_int_eq(snapshot_writer_reference(&h->w, kind, weak, id, index, target), 0);
}

static void heap_root(struct heap *h, const char *name, uint64_t target)
{
  ck_assert_int_eq(snapshot_writer_root(&h->w, heap_text(h, name), 0, target), 0);
}

static void heap_read(struct heap *h, struct snapshot *s)
{
  ck_assert_int_eq(snapshot_writer_end(&h->w), 0);
  free(h->buffer);
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(s, h->out.data, h->out.size, "heap", &error), FORMAT_OK);
  free(h->out.data);
}

/* The holders of sites[0 .. count), each site's blocks [address, 40]. */
static void heap_analyse(const struct snapshot *s, const struct diff_holders_block *blocks, size_t block_count,
                         struct diff_site *sites, size_t count)
{
  struct diff_site *wanted[8];
  memset(sites, 0, count * sizeof *sites);
  for (size_t i = 0; i < count; i++)
    wanted[i] = &sites[i];
  ck_assert_int_eq(diff_holders_analyse(s, blocks, block_count, wanted, count), 0);
}

#define TRI "\xe2\x96\xb8"          /* the step from a function to its upvalue: " ▸ " */

enum {
  REGISTRY = 0x1000, LOADED = 0x1100, STORE = 0x1200, BY_TOKEN = 0x1300, MAIN = 0x1400, GLOBALS_T = 0x1500,
  AUDIT = 0x1600, CO = 0x1700, PENDING = 0x1800, LONE = 0x1900, EVENTS = 0x1a00, BUS = 0x1b00,
  SHUTDOWN = 0x1c00, ROUTER = 0x1d00, F1 = 0x1e00, F2 = 0x1f00, U1 = 0x2000, U2 = 0x2100, C1 = 0x2200,
  C2 = 0x2300, PROTO = 0x2400, SESSIONS = 0x2500, META = 0x2600, WVALUES = 0x2700, DEEP = 0x2800,
  RECORD = 0x10000,           /* records: RECORD + 0x100 * i */
};
#define REC(i) (RECORD + 0x100 * (uint64_t)(i))

/* The issue's heap: the main chunk's dead stack slots hold what a module, a local and a global
 * hold too, under longer paths; a coroutine only a temporary holds; a memoizing function's
 * closures at two names of a module. */
static void write_named(struct snapshot *s)
{
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, REGISTRY, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "_LOADED", 0, LOADED);
  heap_object(&h, SNAPSHOT_TABLE, 0, LOADED, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "store", 0, STORE);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "events", 0, EVENTS);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "router", 0, ROUTER);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "my-mod", 0, LONE);
  heap_object(&h, SNAPSHOT_TABLE, 0, STORE, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "by_token", 0, BY_TOKEN);
  heap_object(&h, SNAPSHOT_TABLE, 0, BY_TOKEN, NULL);  /* records 1-3 */
  for (int i = 1; i <= 3; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  heap_object(&h, SNAPSHOT_TABLE, 0, EVENTS, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "bus", 0, BUS);
  heap_object(&h, SNAPSHOT_TABLE, 0, BUS, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "handlers", 0, SHUTDOWN - 0x80);
  heap_object(&h, SNAPSHOT_TABLE, 0, SHUTDOWN - 0x80, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "shutdown", 0, SHUTDOWN);
  heap_object(&h, SNAPSHOT_TABLE, 0, SHUTDOWN, NULL);  /* records 4-5 */
  for (int i = 4; i <= 5; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i - 3, REC(i));
  heap_object(&h, SNAPSHOT_TABLE, 0, LONE, NULL);  /* records 13-14, a module of another name */
  for (int i = 13; i <= 14; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  /* router.resolve and router.lookup: two closures of one memoizing function */
  heap_object(&h, SNAPSHOT_TABLE, 0, ROUTER, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "resolve", 0, F1);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "lookup", 0, F2);
  heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, F1, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "prototype", 0, PROTO);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue cache", 0, U1);
  heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, F2, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "prototype", 0, PROTO);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue cache", 0, U2);
  heap_object(&h, SNAPSHOT_PROTOTYPE, 0, PROTO, "function@pl/utils.lua:752");
  heap_object(&h, SNAPSHOT_UPVALUE, 0, U1, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, C1);
  heap_object(&h, SNAPSHOT_UPVALUE, 0, U2, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, C2);
  heap_object(&h, SNAPSHOT_TABLE, 0, C1, NULL);  /* records 6-7 */
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "/a", 0, REC(6));
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "/b", 0, REC(7));
  heap_object(&h, SNAPSHOT_TABLE, 0, C2, NULL);  /* record 8 */
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "/c", 0, REC(8));
  /* the main thread: dead slots of its main chunk, a local, a coroutine in a slot */
  heap_object(&h, SNAPSHOT_THREAD, 0, MAIN, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 10 in main chunk@app.lua", 0, BY_TOKEN);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 6 in main chunk@app.lua", 0, AUDIT);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 16 in main chunk@app.lua", 0, EVENTS);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "local store in main chunk@app.lua", 0, STORE);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 3 in main chunk@app.lua", 0, CO);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 4 in main chunk@app.lua", 0, DEEP);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 5 in main chunk@app.lua", 0, F1);
  heap_object(&h, SNAPSHOT_TABLE, 0, DEEP, NULL);  /* records 11-12: only through a temporary */
  for (int i = 11; i <= 12; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  heap_object(&h, SNAPSHOT_THREAD, 0, CO, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "local pending in function@jobs.lua:2", 0, PENDING);
  heap_object(&h, SNAPSHOT_TABLE, 0, PENDING, NULL);  /* records 9-10 */
  for (int i = 9; i <= 10; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "AUDIT_TRAIL", 0, AUDIT);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "store", 0, STORE);  /* a global too: the module wins */
  heap_object(&h, SNAPSHOT_TABLE, 0, AUDIT, NULL);  /* records 15-16 */
  for (int i = 15; i <= 16; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  for (int i = 1; i <= 16; i++)
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
  heap_root(&h, "registry", REGISTRY);
  heap_root(&h, "main thread", MAIN);
  heap_root(&h, "globals", GLOBALS_T);
  heap_read(&h, s);
}

/* The registry (REGISTRY) with package.loaded (LOADED), which holds one module: name, at
 * module. */
static void heap_module(struct heap *h, const char *name, uint64_t module)
{
  heap_object(h, SNAPSHOT_TABLE, 0, REGISTRY, NULL);
  heap_ref(h, SNAPSHOT_REF_FIELD, 0, "_LOADED", 0, LOADED);
  heap_object(h, SNAPSHOT_TABLE, 0, LOADED, NULL);
  heap_ref(h, SNAPSHOT_REF_FIELD, 0, name, 0, module);
}

/* A module whose field has the module's name (package.loaded.names.names) is named by its
 * require name and then the field, "names.names[*]": the two steps of one field are no list
 * (it read "package.loaded(.names)*[*]"); nor are a global's ("_G.config.config[*]", not
 * "_G(.config)*[*]"); two such steps further down still are ("names.names(.next)*"). */
START_TEST(test_a_module_field_named_as_the_module_is_no_list)
{
  struct heap h;
  heap_begin(&h);
  heap_module(&h, "names", STORE);
  heap_object(&h, SNAPSHOT_TABLE, 0, STORE, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "names", 0, BY_TOKEN);
  heap_object(&h, SNAPSHOT_TABLE, 0, BY_TOKEN, NULL);
  for (int i = 1; i <= 2; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "next", 0, REC(3));
  heap_object(&h, SNAPSHOT_TABLE, 0, REC(1), NULL);
  heap_object(&h, SNAPSHOT_TABLE, 0, REC(2), NULL);
  for (int i = 3; i <= 5; i++) {
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
    if (i < 5)
      heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "next", 0, REC(i + 1));
  }
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "config", 0, AUDIT);
  heap_object(&h, SNAPSHOT_TABLE, 0, AUDIT, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "config", 0, PENDING);
  heap_object(&h, SNAPSHOT_TABLE, 0, PENDING, NULL);
  heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, 1, REC(6));
  heap_object(&h, SNAPSHOT_TABLE, 0, REC(6), NULL);
  heap_root(&h, "registry", REGISTRY);
  heap_root(&h, "globals", GLOBALS_T);
  struct snapshot s;
  heap_read(&h, &s);
  struct diff_holders_block blocks[] = {{REC(1), 40, 0}, {REC(2), 40, 0}, {REC(5), 40, 1}, {REC(6), 40, 2}};
  struct diff_site sites[3];
  heap_analyse(&s, blocks, sizeof blocks / sizeof blocks[0], sites, 3);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "names.names[*]");
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "names.names(.next)*");
  ck_assert_uint_eq(sites[2].holder_count, 1);
  ck_assert_str_eq(sites[2].holders[0].path, "_G.config.config[*]");
  for (int i = 0; i < 3; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

/* A module's get and set share an upvalue: of the two named paths of one length, the one
 * through the key first in byte order, "store.get ▸ upvalue items[*]", whichever order the
 * table's references come in (it follows the VM's string hashes, seeded per process: the name
 * changed from run to run). */
START_TEST(test_of_two_paths_of_one_length_the_first_key_in_byte_order_wins)
{
  for (int set_first = 0; set_first < 2; set_first++) {
    struct heap h;
    heap_begin(&h);
    heap_module(&h, "store", STORE);
    heap_object(&h, SNAPSHOT_TABLE, 0, STORE, NULL);
    heap_ref(&h, SNAPSHOT_REF_FIELD, 0, set_first ? "set" : "get", 0, set_first ? F2 : F1);
    heap_ref(&h, SNAPSHOT_REF_FIELD, 0, set_first ? "get" : "set", 0, set_first ? F1 : F2);
    heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, F1, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue items", 0, U1);
    heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, F2, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue items", 0, U1);
    heap_object(&h, SNAPSHOT_UPVALUE, 0, U1, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, C1);
    heap_object(&h, SNAPSHOT_TABLE, 0, C1, NULL);
    for (int i = 1; i <= 2; i++)
      heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
    for (int i = 1; i <= 2; i++)
      heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
    heap_root(&h, "registry", REGISTRY);
    struct snapshot s;
    heap_read(&h, &s);
    struct diff_holders_block blocks[] = {{REC(1), 40, 0}, {REC(2), 40, 0}};
    struct diff_site site;
    heap_analyse(&s, blocks, 2, &site, 1);
    ck_assert_uint_eq(site.holder_count, 1);
    ck_assert_str_eq(site.holders[0].path, "store.get " TRI " upvalue items[*]");
    diff_site_release(&site);
    snapshot_free(&s);
  }
}
END_TEST

START_TEST(test_a_named_path_beats_a_shorter_temporary)
{
  struct snapshot s;
  write_named(&s);
  /* sites: the store's records, the events' handlers, the global's, a module not named as
   * an identifier */
  struct diff_holders_block blocks[] = {{REC(1), 40, 0}, {REC(2), 40, 0}, {REC(3), 40, 0}, {REC(4), 40, 1},
                                        {REC(5), 40, 1}, {REC(15), 40, 2}, {REC(16), 40, 2},
                                        {REC(13), 40, 3}, {REC(14), 40, 3}};
  struct diff_site sites[4];
  heap_analyse(&s, blocks, sizeof blocks / sizeof blocks[0], sites, 4);
  /* not "slot 10 in main chunk@app.lua[*]", 2 steps from the roots, nor the local store's
   * "(local store in main chunk@app.lua).by_token[*]": a module by its require name */
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "store.by_token[*]");
  ck_assert_uint_eq(sites[0].holders[0].objects, 3);
  ck_assert_str_eq(sites[1].holders[0].path, "events.bus.handlers.shutdown[*]");
  ck_assert_str_eq(sites[2].holders[0].path, "_G.AUDIT_TRAIL[*]");
  ck_assert_str_eq(sites[3].holders[0].path, "package.loaded[\"my-mod\"][*]");
  for (int i = 0; i < 4; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_only_a_temporary_says_so)
{
  struct snapshot s;
  write_named(&s);
  /* a table only a dead slot holds; a coroutine's local, the coroutine only in a slot */
  struct diff_holders_block blocks[] = {{REC(11), 40, 0}, {REC(12), 40, 0}, {REC(9), 40, 1}, {REC(10), 40, 1}};
  struct diff_site sites[2];
  heap_analyse(&s, blocks, 4, sites, 2);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "slot 4 in main chunk@app.lua[*] (only through a temporary)");
  ck_assert_str_eq(sites[1].holders[0].path,
                   "local pending in coroutine function@jobs.lua:2[*] (only through a temporary of main chunk@app.lua)");
  for (int i = 0; i < 2; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

/* A site that made a variable-length cdata (its one block lies before the object, whose own size
 * is 0) made the object: held by the path to it; a site that grew a coroutine's stack made a
 * part of it: held by the coroutine itself, "(its stack)". */
START_TEST(test_an_object_whose_one_block_is_its_allocation_is_no_part)
{
  enum { GLOBALS = 0x1000, LIST = 0x1100, VLA = 0x1210, THREAD = 0x1300 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "bufs", 0, LIST);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "worker", 0, THREAD);
  heap_object(&h, SNAPSHOT_TABLE, 0, LIST, NULL);
  heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, 1, VLA);
  struct snapshot_block data = {VLA - 0x10, 72}, stack = {0x5000, 640};
  struct snapshot_wire_object cdata = {SNAPSHOT_CDATA, 0, VLA, 0, 0, 0, &data, 1};
  ck_assert_int_eq(snapshot_writer_object(&h.w, &cdata), 0);
  struct snapshot_wire_object thread = {SNAPSHOT_THREAD, 0, THREAD, 200, 0, 0, &stack, 1};
  ck_assert_int_eq(snapshot_writer_object(&h.w, &thread), 0);
  heap_root(&h, "globals", GLOBALS);
  struct snapshot s;
  heap_read(&h, &s);
  struct diff_holders_block blocks[] = {{VLA - 0x10, 72, 0}, {0x5000, 640, 1}};
  struct diff_site sites[2];
  heap_analyse(&s, blocks, 2, sites, 2);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "_G.bufs[*]");
  ck_assert_uint_eq(sites[0].holders[0].bytes, 72);
  ck_assert_str_eq(sites[0].holders[0].holder_type, "table");
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "_G.worker (its stack)");
  ck_assert_str_eq(sites[1].holders[0].holder_type, "thread");
  ck_assert_uint_eq(sites[1].holders[0].retained_bytes, 200 + 640);
  for (int i = 0; i < 2; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_an_upvalue_after_the_path_of_its_function)
{
  struct snapshot s;
  write_named(&s);
  /* two closures of one prototype, each its own cache; one of them in a dead slot too */
  struct diff_holders_block blocks[] = {{REC(6), 40, 0}, {REC(7), 40, 0}, {REC(8), 40, 1}};
  struct diff_site sites[2];
  heap_analyse(&s, blocks, 3, sites, 2);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "router.resolve " TRI " upvalue cache[*]");
  ck_assert_uint_eq(sites[0].holders[0].objects, 2);
  ck_assert_str_eq(sites[0].holders[0].holder_type, "table");  /* the cache, not the closure */
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "router.lookup " TRI " upvalue cache[\"/c\"]");
  ck_assert_ptr_null(strstr(sites[0].holders[0].path, "function@"));
  for (int i = 0; i < 2; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

/* Sessions (REC 1-3) held by the global sessions; a weak-keyed table meta whose values (REC
 * 4-6) are the sessions' data, keyed by the sessions; REC 7, a value whose key (REC 8) only it
 * holds; a weak-valued table wvalues: REC 9 held by it alone, REC 10 held by _G.keep too, and
 * a string it holds (a string is never a weak reference). */
static void write_weak(struct snapshot *s)
{
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "sessions", 0, SESSIONS);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "meta", 0, META);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "wvalues", 0, WVALUES);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "keep", 0, REC(10));
  heap_object(&h, SNAPSHOT_TABLE, 0, SESSIONS, NULL);
  for (int i = 1; i <= 3; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(i));
  heap_object(&h, SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_KEYS, META, NULL);
  for (int i = 1; i <= 3; i++) {
    heap_ref(&h, SNAPSHOT_REF_KEYED, 0, "[table]", 0, REC(i + 3));
    heap_ref(&h, SNAPSHOT_REF_KEY, 1, "[table]", 0, REC(i));
  }
  heap_ref(&h, SNAPSHOT_REF_KEYED, 0, "[table]", 0, REC(7));
  heap_ref(&h, SNAPSHOT_REF_KEY, 1, "[table]", 0, REC(8));
  heap_object(&h, SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_VALUES, WVALUES, NULL);
  heap_ref(&h, SNAPSHOT_REF_INDEX, 1, NULL, 1, REC(9));
  heap_ref(&h, SNAPSHOT_REF_INDEX, 1, NULL, 2, REC(10));
  heap_ref(&h, SNAPSHOT_REF_INDEX, 1, NULL, 3, REC(11));
  for (int i = 1; i <= 10; i++) {
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
    if (i == 7)
      heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "owner", 0, REC(8));
  }
  heap_object(&h, SNAPSHOT_STRING, 0, REC(11), NULL);
  heap_root(&h, "globals", GLOBALS_T);
  heap_read(&h, s);
}

/* The holder of site whose path is path, or a failed check. */
static const struct diff_holder *holder_at(const struct diff_site *site, const char *path)
{
  for (size_t i = 0; i < site->holder_count; i++)
    if (!strcmp(site->holders[i].path, path))
      return &site->holders[i];
  ck_abort_msg("no holder %s", path);
  return NULL;
}

enum { USERS = 0x3000, ADMINS = 0x3100, BYNAME = 0x3200, FN = 0x3400, UV = 0x3500, LIST = 0x3600,
       NAMES = 0x40000, TAGS = 0x50000, FIRST = 0x60000 };

/* Records (REC(i)) under [*] of four tables, each reached from a root of its own (so that no
 * step to them is collapsed), each record with a name string (NAMES + 0x100 * i) and a tags
 * table (TAGS + ...) whose field first holds a table (FIRST + ...): fields after a [*]; and a
 * record (REC(0)) a root holds itself. */
static void write_fields(struct snapshot *s)
{
  static const struct { uint64_t table; int first, last; } under[] = {
    {USERS, 1, 4}, {ADMINS, 5, 6}, {LIST, 7, 8}, {BYNAME, 9, 10}};
  static const char *const keys[] = {"alice", "bob"};
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "users", 0, USERS);
  heap_object(&h, SNAPSHOT_TABLE, 0, REGISTRY, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "admins", 0, ADMINS);
  heap_object(&h, SNAPSHOT_THREAD, 0, MAIN, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "local f in main chunk@app.lua", 0, FN);
  heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, FN, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue list", 0, UV);
  heap_object(&h, SNAPSHOT_UPVALUE, 0, UV, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, LIST);
  for (size_t t = 0; t < sizeof under / sizeof under[0]; t++) {
    heap_object(&h, SNAPSHOT_TABLE, 0, under[t].table, NULL);
    for (int i = under[t].first; i <= under[t].last; i++) {
      if (under[t].table == BYNAME)  /* string keys of one table each: collapsed too */
        heap_ref(&h, SNAPSHOT_REF_FIELD, 0, keys[i - under[t].first], 0, REC(i));
      else
        heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i - under[t].first + 1, REC(i));
    }
  }
  for (int i = 0; i <= 10; i++) {
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
    heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "name", 0, NAMES + 0x100 * (uint64_t)i);
    heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "tags", 0, TAGS + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_STRING, 0, NAMES + 0x100 * (uint64_t)i, NULL);
    heap_object(&h, SNAPSHOT_TABLE, 0, TAGS + 0x100 * (uint64_t)i, NULL);
    heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "first", 0, FIRST + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_TABLE, 0, FIRST + 0x100 * (uint64_t)i, NULL);
  }
  heap_root(&h, "globals", GLOBALS_T);
  heap_root(&h, "registry", REGISTRY);
  heap_root(&h, "main thread", MAIN);
  heap_root(&h, "finalizers", BYNAME);
  heap_root(&h, "lonely", REC(0));
  heap_read(&h, s);
}

/* Handlers in _G.handlers, each a closure over a table of its own: the tables' text is
 * "_G.handlers[*] ▸ upvalue state" for all three, so their holder is the list that keeps them
 * all, not one closure (it was: "the function keeps 104 B alive"). */
START_TEST(test_upvalues_of_closures_in_a_list_are_held_by_the_list)
{
  enum { HANDLERS = 0x3000, FN_1 = 0x3100, UV_1 = 0x3400, STATE_1 = 0x3700 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "handlers", 0, HANDLERS);
  heap_object(&h, SNAPSHOT_TABLE, 0, HANDLERS, NULL);
  for (int i = 0; i < 3; i++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i + 1, FN_1 + 0x100 * (uint64_t)i);
  for (int i = 0; i < 3; i++) {
    heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, FN_1 + 0x100 * (uint64_t)i, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue state", 0, UV_1 + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_UPVALUE, 0, UV_1 + 0x100 * (uint64_t)i, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, STATE_1 + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_TABLE, 0, STATE_1 + 0x100 * (uint64_t)i, NULL);
  }
  heap_root(&h, "globals", GLOBALS_T);
  struct snapshot s;
  heap_read(&h, &s);
  struct diff_holders_block blocks[3];
  for (uint32_t i = 0; i < 3; i++)
    blocks[i] = (struct diff_holders_block){STATE_1 + 0x100 * (uint64_t)i, 40, 0};
  struct diff_site sites[1];
  heap_analyse(&s, blocks, 3, sites, 1);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path, "_G.handlers[*] " TRI " upvalue state");
  ck_assert_uint_eq(sites[0].holders[0].objects, 3);
  ck_assert_str_eq(sites[0].holders[0].holder_type, "table");
  ck_assert_uint_eq(sites[0].holders[0].retained_bytes, 40 + 3 * (40 + 40 + 40));
  diff_site_release(&sites[0]);
  snapshot_free(&s);
}
END_TEST

/* Coroutines parked in _G.parked, each with a local buf of records: the local after the path of
 * its coroutine, "_G.parked[*] ▸ local buf in function@app.lua:3[*]" (it was "local buf in
 * coroutine function@app.lua:3[*]", which said nothing of where the coroutines are), held by
 * the list that keeps every coroutine, not by one buf among them; the slots of the bufs too. */
START_TEST(test_a_coroutines_local_follows_the_path_of_the_coroutine)
{
  enum { PARKED = 0x3000, CO_1 = 0x3100, BUF = 0x3400, SLOTS = 0x3800 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "parked", 0, PARKED);
  heap_object(&h, SNAPSHOT_TABLE, 0, PARKED, NULL);
  for (int c = 0; c < 3; c++)
    heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, c + 1, CO_1 + 0x100 * (uint64_t)c);
  for (int c = 0; c < 3; c++) {
    heap_object(&h, SNAPSHOT_THREAD, 0, CO_1 + 0x100 * (uint64_t)c, NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "local buf in function@app.lua:3", 0, BUF + 0x100 * (uint64_t)c);
  }
  for (int c = 0; c < 3; c++) {
    struct snapshot_block slots = {SLOTS + 0x100 * (uint64_t)c, 64};
    struct snapshot_wire_object buf = {SNAPSHOT_TABLE, 0, BUF + 0x100 * (uint64_t)c, 40, 2, 0, &slots, 1};
    ck_assert_int_eq(snapshot_writer_object(&h.w, &buf), 0);
    for (int i = 1; i <= 2; i++)
      heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(2 * c + i));
  }
  for (int i = 1; i <= 6; i++)
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
  heap_root(&h, "globals", GLOBALS_T);
  struct snapshot s;
  heap_read(&h, &s);
  struct diff_holders_block blocks[9];
  for (uint32_t i = 0; i < 6; i++)
    blocks[i] = (struct diff_holders_block){REC(i + 1), 40, 0};
  for (uint32_t c = 0; c < 3; c++)
    blocks[6 + c] = (struct diff_holders_block){SLOTS + 0x100 * (uint64_t)c, 64, 0};
  struct diff_site sites[1];
  heap_analyse(&s, blocks, 9, sites, 1);
  ck_assert_uint_eq(sites[0].holder_count, 2);
  const struct diff_holder *records = holder_at(&sites[0], "_G.parked[*] " TRI " local buf in function@app.lua:3[*]");
  ck_assert_uint_eq(records->objects, 6);
  ck_assert_str_eq(records->holder_type, "table");
  uint64_t all = 40 + 3 * 40 + 3 * (40 + 64) + 6 * 40;  /* parked, the coroutines, the bufs, the records */
  ck_assert_uint_eq(records->retained_bytes, all);
  const struct diff_holder *slots = holder_at(&sites[0], "_G.parked[*] " TRI " local buf in function@app.lua:3 (its slots)");
  ck_assert_uint_eq(slots->objects, 3);
  ck_assert_uint_eq(slots->retained_bytes, all);
  diff_site_release(&sites[0]);
  snapshot_free(&s);
}
END_TEST

/* A producer made by coroutine.wrap, at _G.produce: its coroutine runs a function whose upvalue
 * made keeps what it makes. The function a frame runs after the path of its coroutine,
 * "_G.produce ▸ upvalue 1 ▸ running function@app.lua:4-9 ▸ upvalue made[*]" (it was "running
 * function@app.lua:4-9 ▸ upvalue made[*]", which said nothing of where the coroutine is); a
 * coroutine only a dead slot holds starts the path at its frame's function, as before, and
 * says so. */
START_TEST(test_a_coroutines_running_function_follows_the_path_of_the_coroutine)
{
  enum { WRAP = 0x3000, CO_A = 0x3100, FN_A = 0x3200, PROTO_A = 0x3300, UV_A = 0x3400, MADE_A = 0x3500,
         MAIN_T = 0x3600, CO_B = 0x3700, FN_B = 0x3800, PROTO_B = 0x3900, UV_B = 0x3a00, MADE_B = 0x3b00 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "produce", 0, WRAP);
  heap_object(&h, SNAPSHOT_C_FUNCTION, 0, WRAP, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "upvalue 1", 0, CO_A);
  heap_object(&h, SNAPSHOT_THREAD, 0, MAIN_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "slot 4 in main chunk@app.lua", 0, CO_B);
  const uint64_t co[2] = {CO_A, CO_B}, fn[2] = {FN_A, FN_B}, proto[2] = {PROTO_A, PROTO_B},
                 uv[2] = {UV_A, UV_B}, made[2] = {MADE_A, MADE_B};
  for (int k = 0; k < 2; k++) {
    heap_object(&h, SNAPSHOT_THREAD, 0, co[k], NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "frame", 0, fn[k]);
    heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, fn[k], NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "prototype", 0, proto[k]);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, k ? "upvalue spare" : "upvalue made", 0, uv[k]);
    heap_object(&h, SNAPSHOT_PROTOTYPE, 0, proto[k], k ? "function@app.lua:12-15" : "function@app.lua:4-9");
    heap_object(&h, SNAPSHOT_UPVALUE, 0, uv[k], NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "value", 0, made[k]);
    heap_object(&h, SNAPSHOT_TABLE, 0, made[k], NULL);
    for (int i = 1; i <= 3; i++)
      heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(3 * k + i));
  }
  for (int i = 1; i <= 6; i++)
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
  heap_root(&h, "globals", GLOBALS_T);
  heap_root(&h, "main thread", MAIN_T);
  struct snapshot s;
  heap_read(&h, &s);
  struct diff_holders_block blocks[6];
  for (uint32_t i = 0; i < 6; i++)
    blocks[i] = (struct diff_holders_block){REC(i + 1), 40, 0};
  struct diff_site sites[1];
  heap_analyse(&s, blocks, 6, sites, 1);
  ck_assert_uint_eq(sites[0].holder_count, 2);
  const struct diff_holder *named = holder_at(&sites[0], "_G.produce " TRI " upvalue 1 " TRI
                                              " running function@app.lua:4-9 " TRI " upvalue made[*]");
  ck_assert_uint_eq(named->objects, 3);
  ck_assert_str_eq(named->holder_type, "table");
  const struct diff_holder *dead = holder_at(&sites[0], "running function@app.lua:12-15 " TRI
                                             " upvalue spare[*] (only through a temporary)");
  ck_assert_uint_eq(dead->objects, 3);
  diff_site_release(&sites[0]);
  snapshot_free(&s);
}
END_TEST

/* Records under two lists of _G, left and right: string keys of one table each, which collapse
 * to _G[*][*] when nothing tells them from keys made at run time (tokens). A prototype that
 * holds "left" and "right" as constants says the code wrote them: _G.left[*], _G.right[*]. */
static void write_two_lists(struct snapshot *s, int written)
{
  enum { LEFT = 0x3000, RIGHT = 0x3100, K_LEFT = 0x3200, K_RIGHT = 0x3300, CHUNK = 0x3400 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "left", 0, LEFT);
  heap_ref(&h, SNAPSHOT_REF_KEY, 0, "left", 0, K_LEFT);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "right", 0, RIGHT);
  heap_ref(&h, SNAPSHOT_REF_KEY, 0, "right", 0, K_RIGHT);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "main", 0, CHUNK);
  heap_object(&h, SNAPSHOT_STRING, 0, K_LEFT, NULL);
  heap_object(&h, SNAPSHOT_STRING, 0, K_RIGHT, NULL);
  heap_object(&h, SNAPSHOT_PROTOTYPE, 0, CHUNK, "main chunk@app.lua");
  if (written) {
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "constant", 0, K_LEFT);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "constant", 0, K_RIGHT);
  }
  for (int t = 0; t < 2; t++) {
    heap_object(&h, SNAPSHOT_TABLE, 0, t ? RIGHT : LEFT, NULL);
    for (int i = 1; i <= 2; i++)
      heap_ref(&h, SNAPSHOT_REF_INDEX, 0, NULL, i, REC(2 * t + i));
  }
  for (int i = 1; i <= 4; i++)
    heap_object(&h, SNAPSHOT_TABLE, 0, REC(i), NULL);
  heap_root(&h, "globals", GLOBALS_T);
  heap_read(&h, s);
}

START_TEST(test_keys_the_code_writes_stay_named)
{
  struct diff_holders_block blocks[] = {{REC(1), 40, 0}, {REC(2), 40, 0}, {REC(3), 40, 0}, {REC(4), 40, 0}};
  for (int written = 0; written < 2; written++) {
    struct snapshot s;
    write_two_lists(&s, written);
    struct diff_site sites[1];
    heap_analyse(&s, blocks, 4, sites, 1);
    if (!written) {
      ck_assert_uint_eq(sites[0].holder_count, 1);
      ck_assert_str_eq(sites[0].holders[0].path, "_G[*][*]");
    } else {
      ck_assert_uint_eq(sites[0].holder_count, 2);
      ck_assert_ptr_nonnull(holder_at(&sites[0], "_G.left[*]"));
      ck_assert_uint_eq(holder_at(&sites[0], "_G.right[*]")->objects, 2);
    }
    diff_site_release(&sites[0]);
    snapshot_free(&s);
  }
}
END_TEST

/* A cache of code generated per key (templates compiled by their text): each key a constant of
 * the prototype made for it. As many keys as code could name one by one stay named; more are
 * not names the code wrote, and collapse ("engine.compiled[*]", not one holder per key). */
static void write_generated(struct snapshot *s, int keys)
{
  enum { CACHE = 0x3000, KEY = 0x40000, PROTO_K = 0x50000 };
  struct heap h;
  heap_begin(&h);
  heap_object(&h, SNAPSHOT_TABLE, 0, GLOBALS_T, NULL);
  heap_ref(&h, SNAPSHOT_REF_FIELD, 0, "compiled", 0, CACHE);
  heap_object(&h, SNAPSHOT_TABLE, 0, CACHE, NULL);
  char name[32];
  for (int i = 1; i <= keys; i++) {  /* more texts than heap_text keeps: written as they come */
    int n = snprintf(name, sizeof name, " #%d", i);
    uint32_t id = snapshot_writer_string(&h.w, name, (size_t)n);
    ck_assert_uint_ne(id, 0);
    ck_assert_int_eq(snapshot_writer_reference(&h.w, SNAPSHOT_REF_FIELD, 0, id, 0, REC(i)), 0);
    ck_assert_int_eq(snapshot_writer_reference(&h.w, SNAPSHOT_REF_KEY, 0, id, 0, KEY + 0x100 * (uint64_t)i), 0);
  }
  for (int i = 1; i <= keys; i++) {
    heap_object(&h, SNAPSHOT_LUA_FUNCTION, 0, REC(i), NULL);
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "prototype", 0, PROTO_K + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_PROTOTYPE, 0, PROTO_K + 0x100 * (uint64_t)i, "main chunk=tpl");
    heap_ref(&h, SNAPSHOT_REF_OTHER, 0, "constant", 0, KEY + 0x100 * (uint64_t)i);
    heap_object(&h, SNAPSHOT_STRING, 0, KEY + 0x100 * (uint64_t)i, NULL);
  }
  heap_root(&h, "globals", GLOBALS_T);
  heap_read(&h, s);
}

START_TEST(test_more_keys_than_code_names_collapse_though_constants)
{
  for (int keys = DIFF_HOLDERS_NAMED_MAX; keys <= DIFF_HOLDERS_NAMED_MAX + 1; keys++) {
    struct snapshot s;
    write_generated(&s, keys);
    struct diff_holders_block *blocks = calloc((size_t)keys, sizeof *blocks);
    ck_assert_ptr_nonnull(blocks);
    for (int i = 0; i < keys; i++)
      blocks[i] = (struct diff_holders_block){REC(i + 1), 40, 0};
    struct diff_site sites[1];
    heap_analyse(&s, blocks, (size_t)keys, sites, 1);
    ck_assert_uint_ge(sites[0].holder_count, 1);
    if (keys == DIFF_HOLDERS_NAMED_MAX) {  /* as many as code may name: each key its own holder */
      ck_assert_ptr_nonnull(strstr(sites[0].holders[0].path, "_G.compiled[\" #"));
      ck_assert_uint_eq(sites[0].holders[0].objects, 1);
    } else {
      ck_assert_uint_eq(sites[0].holder_count, 1);
      ck_assert_str_eq(sites[0].holders[0].path, "_G.compiled[*]");
      ck_assert_uint_eq(sites[0].holders[0].objects, (uint64_t)keys);
    }
    diff_site_release(&sites[0]);
    snapshot_free(&s);
    free(blocks);
  }
}
END_TEST

/* Objects at the end of the same fields after a [*] from one table are one holder, with that
 * table as holder; another table, other fields, or a path under names alone are others. */
START_TEST(test_fields_after_a_collapsed_key_are_one_holder_per_table_and_fields)
{
  struct snapshot s;
  write_fields(&s);
  /* Site 0: every name; site 1: the tags tables and the tables at first of the users and the
   * admins; site 2: those of the list and of the table by name; site 3: the lone record's. */
  struct diff_holders_block blocks[33];
  size_t n = 0;
  for (int i = 0; i <= 10; i++) {
    uint32_t site = i == 0 ? 3 : i <= 6 ? 1 : 2;
    blocks[n++] = (struct diff_holders_block){NAMES + 0x100 * (uint64_t)i, 40, 0};
    blocks[n++] = (struct diff_holders_block){TAGS + 0x100 * (uint64_t)i, 40, site};
    blocks[n++] = (struct diff_holders_block){FIRST + 0x100 * (uint64_t)i, 40, site};
  }
  struct diff_site sites[4];
  heap_analyse(&s, blocks, n, sites, 4);
#define LOCAL_F "local f in main chunk@app.lua " TRI " upvalue list[*]"
  /* retained: the table a [*] leaves from, with its records and what they hold (4 objects of 40
   * bytes each); on a path of names alone, the object's parent (the lone record, or its tags
   * table with the table under first) */
  static const struct { int site; const char *path; uint64_t objects, retained; } want[] = {
    {0, "_G.users[*].name", 4, 40 + 4 * 160}, {0, "registry.admins[*].name", 2, 40 + 2 * 160},
    {0, LOCAL_F ".name", 2, 40 + 2 * 160}, {0, "(finalizers)[*].name", 2, 40 + 2 * 160},
    {0, "(lonely).name", 1, 160},
    {1, "_G.users[*].tags", 4, 40 + 4 * 160}, {1, "_G.users[*].tags.first", 4, 40 + 4 * 160},
    {1, "registry.admins[*].tags", 2, 40 + 2 * 160}, {1, "registry.admins[*].tags.first", 2, 40 + 2 * 160},
    {2, LOCAL_F ".tags", 2, 40 + 2 * 160}, {2, LOCAL_F ".tags.first", 2, 40 + 2 * 160},
    {2, "(finalizers)[*].tags", 2, 40 + 2 * 160}, {2, "(finalizers)[*].tags.first", 2, 40 + 2 * 160},
    {3, "(lonely).tags", 1, 160}, {3, "(lonely).tags.first", 1, 80}};
#undef LOCAL_F
  static const size_t groups[4] = {5, 4, 4, 2};
  for (int k = 0; k < 4; k++)
    ck_assert_uint_eq(sites[k].holder_count, groups[k]);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const struct diff_holder *h = holder_at(&sites[want[i].site], want[i].path);
    ck_assert_uint_eq(h->objects, want[i].objects);
    ck_assert_uint_eq(h->bytes, 40 * want[i].objects);
    ck_assert_uint_eq(h->retained_bytes, want[i].retained);
  }
  for (int i = 0; i < 4; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_a_weak_keyed_value_lives_while_its_key_lives)
{
  struct snapshot s;
  write_weak(&s);
  struct diff_holders_block blocks[] = {{REC(4), 40, 0}, {REC(5), 40, 0}, {REC(6), 40, 0}, {REC(7), 40, 1},
                                        {REC(8), 40, 2}};
  struct diff_site sites[3];
  heap_analyse(&s, blocks, 5, sites, 3);
  ck_assert_uint_eq(sites[0].holder_count, 1);
  ck_assert_str_eq(sites[0].holders[0].path,
                   "_G.meta[*] (lives while its key lives; the key is held by _G.sessions[*])");
  ck_assert_uint_eq(sites[0].holders[0].objects, 3);
  /* a key only its value holds: LuaJIT marks the value, which marks the key */
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path,
                   "_G.meta[*] (lives while its key lives, and the key is held only through this "
                   "value: a cycle that weak keys never collect in LuaJIT)");
  ck_assert_str_eq(sites[2].holders[0].path,
                   "_G.meta[*].owner (lives while its key lives, and the key is held only through "
                   "this value: a cycle that weak keys never collect in LuaJIT)");
  for (int i = 0; i < 3; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_a_weak_valued_table_never_holds)
{
  struct snapshot s;
  write_weak(&s);
  /* REC 9: only the weak-valued table refers to it (no path); REC 10: the global's; the
   * string: the weak table's, as LuaJIT keeps it */
  struct diff_holders_block blocks[] = {{REC(9), 40, 0}, {REC(10), 40, 1}, {REC(11), 40, 2}};
  struct diff_site sites[3];
  heap_analyse(&s, blocks, 3, sites, 3);
  ck_assert_uint_eq(sites[0].holder_count, 0);
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "_G.keep");
  ck_assert_uint_eq(sites[2].holder_count, 1);
  ck_assert_str_eq(sites[2].holders[0].path, "_G.wvalues[*]");
  for (int i = 0; i < 3; i++)
    diff_site_release(&sites[i]);
  snapshot_free(&s);
}
END_TEST

/* ---- A million objects ---------------------------------------------------------------------- */

#define BIG 1000000               /* nodes of the list, entries of the table */
#define NODE_BYTES (64 + 32)      /* a list node: its table and its hash part */

/* A writer of a big snapshot into memory. Its failures are counted and asserted at the end:
 * a Check assertion records where it is at each call, a million times too slow. */
struct big {
  struct bytes out;
  uint8_t *buffer;
  struct snapshot_writer w;
  size_t failed;
};

static void big_begin(struct big *b)
{
  size_t capacity = 1 << 20;
  memset(b, 0, sizeof *b);
  b->buffer = malloc(2 * capacity);
  ck_assert_ptr_nonnull(b->buffer);
  struct snapshot_capture capture = {4242, 1763745600125, 3, 1, 100, 1763745605310, 4096, 0};
  snapshot_writer_init(&b->w, b->buffer, b->buffer + capacity, capacity, bytes_sink, &b->out);
  ck_assert_int_eq(snapshot_writer_begin(&b->w, &capture), 0);
}

static void big_object(struct big *b, enum snapshot_type type, uint64_t address, uint64_t size,
                       struct snapshot_block *block)
{
  struct snapshot_wire_object o = {type, 0, address, size, 0, 0, block, block ? 1 : 0};
  b->failed += snapshot_writer_object(&b->w, &o) != 0;
}

static void big_ref(struct big *b, enum snapshot_ref_kind kind, uint32_t text, int64_t index, uint64_t target)
{
  b->failed += snapshot_writer_reference(&b->w, kind, 0, text, index, target) != 0;
}

static void big_read(struct big *b, uint32_t globals, uint64_t at, struct snapshot *s)
{
  ck_assert_uint_eq(b->failed, 0);
  ck_assert_int_eq(snapshot_writer_root(&b->w, globals, 0, at), 0);
  ck_assert_int_eq(snapshot_writer_end(&b->w), 0);
  free(b->buffer);
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(s, b->out.data, b->out.size, "heap", &error), FORMAT_OK);
  free(b->out.data);
}

#define GLOBALS 0x1000            /* the globals table: the lowest address, before every node */
#define NEXT_KEY 0x3000           /* the string "next" */
#define NODE(i) (0x100000 + (uint64_t)(i) * 128)  /* node i, 1 .. nodes; its hash part 64 past */
#define SIDE(j) (0x40000000 + (uint64_t)(j) * 0x10000000)  /* side table j; its items from 1 MiB past */
#define ITEM(j, t) (SIDE(j) + 0x100000 + (uint64_t)(t) * 64)
#define ITEMS 1000
#define ITEM_BYTES 40

/* A Lua list of nodes nodes held by the global "chain": node i holds node i + 1 under "next"
 * and refers to its key, the string "next", as every node of a Lua list does (and the globals
 * table, whose "next" is the C function; its address first, so that the string's first
 * predecessor is the globals table and the others are the nodes from the top down: the order
 * in which Cooper, Harvey and Kennedy's intersect walks up the whole list for each node). The
 * nodes side_at[j] (0: none) hold a table under "side" whose array holds ITEMS items. */
static void write_chain(struct snapshot *s, size_t nodes, const size_t side_at[2])
{
  struct big b;
  big_begin(&b);
  uint32_t s_chain = snapshot_writer_string(&b.w, "chain", 5);
  uint32_t s_next = snapshot_writer_string(&b.w, "next", 4);
  uint32_t s_side = snapshot_writer_string(&b.w, "side", 4);
  uint32_t s_globals = snapshot_writer_string(&b.w, "globals", 7);
  big_object(&b, SNAPSHOT_TABLE, GLOBALS, 64, NULL);
  big_ref(&b, SNAPSHOT_REF_FIELD, s_chain, 0, NODE(1));
  big_ref(&b, SNAPSHOT_REF_FIELD, s_next, 0, 0x2000);
  big_ref(&b, SNAPSHOT_REF_KEY, s_next, 0, NEXT_KEY);
  big_object(&b, SNAPSHOT_C_FUNCTION, 0x2000, 40, NULL);
  big_object(&b, SNAPSHOT_STRING, NEXT_KEY, 28, NULL);
  for (size_t i = 1; i <= nodes; i++) {
    struct snapshot_block hash = {NODE(i) + 64, 32};
    big_object(&b, SNAPSHOT_TABLE, NODE(i), 64, &hash);
    if (i < nodes)
      big_ref(&b, SNAPSHOT_REF_FIELD, s_next, 0, NODE(i + 1));
    big_ref(&b, SNAPSHOT_REF_KEY, s_next, 0, NEXT_KEY);
    for (int j = 0; j < 2; j++)
      if (side_at[j] == i)
        big_ref(&b, SNAPSHOT_REF_FIELD, s_side, 0, SIDE(j));
  }
  for (int j = 0; j < 2; j++) {
    if (!side_at[j])
      continue;
    struct snapshot_block array = {SIDE(j) + 64, ITEMS * 8};
    big_object(&b, SNAPSHOT_TABLE, SIDE(j), 64, &array);
    for (int64_t t = 1; t <= ITEMS; t++)
      big_ref(&b, SNAPSHOT_REF_INDEX, 0, t, ITEM(j, t));
    for (int t = 1; t <= ITEMS; t++)
      big_object(&b, SNAPSHOT_TABLE, ITEM(j, t), ITEM_BYTES, NULL);
  }
  big_read(&b, s_globals, GLOBALS, s);
}

/* The text of the first HOLDERS_DEPTH (64) steps of the list, cut: the root's step, "chain",
 * and 62 steps "next", said once. */
static void chain_cut_text(char *out, size_t size)
{
  snprintf(out, size, "_G.chain(.next)* ...");
}

/* Blocks of a site: each node's table and hash part (one member each, both blocks' bytes). */
static struct diff_holders_block *chain_blocks(size_t nodes, size_t *count)
{
  struct diff_holders_block *blocks = malloc(2 * nodes * sizeof *blocks);
  ck_assert_ptr_nonnull(blocks);
  for (size_t i = 0; i < nodes; i++) {  /* as a hash's order would have them: not by address */
    size_t k = (i * 7919) % nodes + 1;
    blocks[2 * i] = (struct diff_holders_block){NODE(k), 64, 0};
    blocks[2 * i + 1] = (struct diff_holders_block){NODE(k) + 64, 32, 0};
  }
  *count = 2 * nodes;
  return blocks;
}

START_TEST(test_a_list_of_a_million_nodes)
{
  static const size_t none[2] = {0, 0};
  struct snapshot s;
  write_chain(&s, BIG, none);
  size_t count;
  struct diff_holders_block *blocks = chain_blocks(BIG, &count);
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *wanted[1] = {&site};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, count, wanted, 1), 0);
  char cut[1024];
  chain_cut_text(cut, sizeof cut);
  ck_assert_uint_eq(site.holder_count, 4);
  /* Nodes 64 .. BIG lie deeper than the 64 steps shown: one path, cut, the run of "next" said
   * once; held by the list's head, node 1, which keeps the whole list alive (each node was
   * held by the node before it, a holder of a few bytes named 62 ".next" deep). */
  ck_assert_str_eq(site.holders[0].path, cut);
  ck_assert_uint_eq(site.holders[0].objects, BIG - 63);
  ck_assert_uint_eq(site.holders[0].bytes, (uint64_t)(BIG - 63) * NODE_BYTES);
  ck_assert_str_eq(site.holders[0].holder_type, "table");
  ck_assert_uint_eq(site.holders[0].retained_bytes, (uint64_t)BIG * NODE_BYTES);
  /* Nodes 3 .. 63: the same run, whole; the same head. */
  ck_assert_str_eq(site.holders[1].path, "_G.chain(.next)*");
  ck_assert_uint_eq(site.holders[1].objects, 61);
  ck_assert_uint_eq(site.holders[1].retained_bytes, (uint64_t)BIG * NODE_BYTES);
  /* Then a node each: the first held by the globals table, which keeps everything alive (the
   * list, the function next and the key string, which the nodes share); the next by the
   * first node (one step is no run). */
  ck_assert_str_eq(site.holders[2].path, "_G.chain");
  ck_assert_uint_eq(site.holders[2].objects, 1);
  ck_assert_uint_eq(site.holders[2].bytes, NODE_BYTES);
  ck_assert_uint_eq(site.holders[2].retained_bytes, 64 + 40 + 28 + (uint64_t)BIG * NODE_BYTES);
  ck_assert_str_eq(site.holders[3].path, "_G.chain.next");
  ck_assert_uint_eq(site.holders[3].retained_bytes, (uint64_t)BIG * NODE_BYTES);
  diff_site_release(&site);
  free(blocks);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_a_list_with_side_branches)
{
  /* A side table near the top (its items' paths shown whole) and one half way down (cut as
   * the list's). */
  static const size_t sides[2] = {10, BIG / 2};
  struct snapshot s;
  write_chain(&s, BIG, sides);
  size_t count;
  struct diff_holders_block *blocks = chain_blocks(BIG, &count);
  blocks = realloc(blocks, (count + 2 * ITEMS) * sizeof *blocks);
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t j = 0; j < 2; j++)
    for (int t = 1; t <= ITEMS; t++)
      blocks[count++] = (struct diff_holders_block){ITEM(j, t), ITEM_BYTES, 1 + j};
  struct diff_site sites[3];
  memset(sites, 0, sizeof sites);
  struct diff_site *wanted[3] = {&sites[0], &sites[1], &sites[2]};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, count, wanted, 3), 0);
  char cut[1024];
  chain_cut_text(cut, sizeof cut);
  const char *near = "_G.chain(.next)*.side[*]";  /* 9 steps "next": one run */
  uint64_t side_bytes = 64 + ITEMS * 8 + (uint64_t)ITEMS * ITEM_BYTES;
  /* The list's nodes as without the branches; its head keeps both branches alive too. */
  ck_assert_str_eq(sites[0].holders[0].path, cut);
  ck_assert_uint_eq(sites[0].holders[0].objects, BIG - 63);
  ck_assert_uint_eq(sites[0].holders[0].retained_bytes, (uint64_t)BIG * NODE_BYTES + 2 * side_bytes);
  ck_assert_str_eq(sites[0].holders[2].path, "_G.chain");
  ck_assert_uint_eq(sites[0].holders[2].retained_bytes, 64 + 40 + 28 + (uint64_t)BIG * NODE_BYTES + 2 * side_bytes);
  /* The near branch's items: past the run, the side table their holder (a [*] after a run
   * names the holder as before). */
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, near);
  ck_assert_uint_eq(sites[1].holders[0].objects, ITEMS);
  ck_assert_uint_eq(sites[1].holders[0].bytes, (uint64_t)ITEMS * ITEM_BYTES);
  ck_assert_uint_eq(sites[1].holders[0].retained_bytes, side_bytes);
  /* The deep branch's items: 500,000 steps down, the list's cut path, held by its head. */
  ck_assert_uint_eq(sites[2].holder_count, 1);
  ck_assert_str_eq(sites[2].holders[0].path, cut);
  ck_assert_uint_eq(sites[2].holders[0].objects, ITEMS);
  ck_assert_uint_eq(sites[2].holders[0].retained_bytes, (uint64_t)BIG * NODE_BYTES + 2 * side_bytes);
  for (int i = 0; i < 3; i++)
    diff_site_release(&sites[i]);
  free(blocks);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_a_table_of_a_million_entries)
{
  /* The global "list" holds BIG records in its array part; each record's metatable is the
   * global "Record" (a node of BIG predecessors). */
  const uint64_t list = 0x2000, meta = 0x3000, first = 0x100000;
  struct big b;
  big_begin(&b);
  uint32_t s_list = snapshot_writer_string(&b.w, "list", 4);
  uint32_t s_record = snapshot_writer_string(&b.w, "Record", 6);
  uint32_t s_metatable = snapshot_writer_string(&b.w, "metatable", 9);
  uint32_t s_globals = snapshot_writer_string(&b.w, "globals", 7);
  big_object(&b, SNAPSHOT_TABLE, GLOBALS, 64, NULL);
  big_ref(&b, SNAPSHOT_REF_FIELD, s_record, 0, meta);
  big_ref(&b, SNAPSHOT_REF_FIELD, s_list, 0, list);
  struct snapshot_block array = {0x10000000, (uint64_t)BIG * 8};
  big_object(&b, SNAPSHOT_TABLE, list, 64, &array);
  for (int64_t t = 1; t <= BIG; t++)
    big_ref(&b, SNAPSHOT_REF_INDEX, 0, t, first + (uint64_t)t * 64);
  big_object(&b, SNAPSHOT_TABLE, meta, 64, NULL);
  for (int64_t t = 1; t <= BIG; t++) {
    big_object(&b, SNAPSHOT_TABLE, first + (uint64_t)t * 64, ITEM_BYTES, NULL);
    big_ref(&b, SNAPSHOT_REF_OTHER, s_metatable, 0, meta);
  }
  struct snapshot s;
  big_read(&b, s_globals, GLOBALS, &s);
  struct diff_holders_block *blocks = malloc(BIG * sizeof *blocks);
  ck_assert_ptr_nonnull(blocks);
  for (size_t i = 0; i < BIG; i++)
    blocks[i] = (struct diff_holders_block){first + ((i * 7919) % BIG + 1) * 64, ITEM_BYTES, 0};
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *wanted[1] = {&site};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, BIG, wanted, 1), 0);
  ck_assert_uint_eq(site.holder_count, 1);
  ck_assert_str_eq(site.holders[0].path, "_G.list[*]");
  ck_assert_uint_eq(site.holders[0].objects, BIG);
  ck_assert_uint_eq(site.holders[0].bytes, (uint64_t)BIG * ITEM_BYTES);
  ck_assert_str_eq(site.holders[0].holder_type, "table");
  ck_assert_uint_eq(site.holders[0].retained_bytes, 64 + (uint64_t)BIG * 8 + (uint64_t)BIG * ITEM_BYTES);
  diff_site_release(&site);
  free(blocks);
  snapshot_free(&s);
}
END_TEST

START_TEST(test_dominators_of_a_long_chain_sharing_one_node)
{
  /* 0 -> 1 -> ... -> BIG - 1, and 0 and every node of the chain -> BIG: the shared node's
   * predecessors, the root first, then the chain from the top. Its dominator is the root, a
   * chain node's the one before it. */
  uint32_t n = BIG + 1, shared = BIG;
  uint32_t *first = malloc(((size_t)n + 1) * sizeof *first);
  uint32_t *succ = malloc(2 * (size_t)n * sizeof *succ);
  uint32_t *idom = malloc((size_t)n * sizeof *idom);
  uint32_t *order = malloc((size_t)n * sizeof *order);
  ck_assert(first && succ && idom && order);
  uint32_t e = 0;
  for (uint32_t v = 0; v < n; v++) {
    first[v] = e;
    if (v == shared)
      continue;
    succ[e++] = shared;
    if (v + 1 < shared)
      succ[e++] = v + 1;
  }
  first[n] = e;
  uint32_t reached;
  ck_assert_int_eq(diff_holders_dominators(n, first, succ, 0, idom, order, &reached), 0);
  ck_assert_uint_eq(reached, n);
  ck_assert_uint_eq(idom[0], 0);
  ck_assert_uint_eq(idom[shared], 0);
  uint32_t *at = malloc((size_t)n * sizeof *at);  /* a node's dominator comes before it */
  ck_assert_ptr_nonnull(at);
  for (uint32_t i = 0; i < reached; i++)
    at[order[i]] = i;
  size_t wrong = 0, late = 0;  /* counted: an assertion a node is too slow (see struct big) */
  for (uint32_t v = 1; v < shared; v++)
    wrong += idom[v] != v - 1;
  for (uint32_t v = 1; v < n; v++)
    late += at[idom[v]] >= at[v];
  ck_assert_uint_eq(wrong, 0);
  ck_assert_uint_eq(late, 0);
  free(at), free(first), free(succ), free(idom), free(order);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_holders");
  TCase *tc = tcase_create("holders");
  tcase_add_test(tc, test_lengauer_tarjan_example);
  tcase_add_test(tc, test_diamond_loop_and_unreached_nodes);
  tcase_add_test(tc, test_a_chain_and_a_root_alone);
  tcase_add_test(tc, test_paths_collapse_unique_keys_and_weak_caches_never_hold);
  tcase_add_test(tc, test_one_key_is_named_not_collapsed);
  tcase_add_test(tc, test_a_text_too_long_is_cut_and_says_so);
  tcase_add_test(tc, test_a_named_path_beats_a_shorter_temporary);
  tcase_add_test(tc, test_a_module_field_named_as_the_module_is_no_list);
  tcase_add_test(tc, test_of_two_paths_of_one_length_the_first_key_in_byte_order_wins);
  tcase_add_test(tc, test_only_a_temporary_says_so);
  tcase_add_test(tc, test_a_coroutines_local_follows_the_path_of_the_coroutine);
  tcase_add_test(tc, test_a_coroutines_running_function_follows_the_path_of_the_coroutine);
  tcase_add_test(tc, test_upvalues_of_closures_in_a_list_are_held_by_the_list);
  tcase_add_test(tc, test_an_upvalue_after_the_path_of_its_function);
  tcase_add_test(tc, test_an_object_whose_one_block_is_its_allocation_is_no_part);
  tcase_add_test(tc, test_fields_after_a_collapsed_key_are_one_holder_per_table_and_fields);
  tcase_add_test(tc, test_keys_the_code_writes_stay_named);
  tcase_add_test(tc, test_more_keys_than_code_names_collapse_though_constants);
  tcase_add_test(tc, test_a_weak_keyed_value_lives_while_its_key_lives);
  tcase_add_test(tc, test_a_weak_valued_table_never_holds);
  suite_add_tcase(s, tc);
  /* Each a few tenths of a second (a few seconds under the sanitizers); a quadratic analysis
   * takes hours, and the timeout fails it. */
  TCase *big = tcase_create("a million objects");
  tcase_set_timeout(big, 60);
  tcase_add_test(big, test_dominators_of_a_long_chain_sharing_one_node);
  tcase_add_test(big, test_a_list_of_a_million_nodes);
  tcase_add_test(big, test_a_list_with_side_branches);
  tcase_add_test(big, test_a_table_of_a_million_entries);
  suite_add_tcase(s, big);
  return check_run(s);
}
