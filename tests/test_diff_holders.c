/* tests/test_diff_holders.c: the dominator tree on small hand-built graphs (Lengauer and Tarjan's example, a loop, a diamond, unreached nodes), and holder paths and retained sizes on a hand-built snapshot (collapsed keys, a weak cache never holding, an upvalue's path); the dominators of a chain of a million nodes that all refer to one node, which Cooper, Harvey and Kennedy's algorithm takes hours over (no timing: the case's timeout fails it). */
#include <check.h>
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
  struct snapshot_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, file.data, file.size, "heap", &error), SNAPSHOT_OK);
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
  /* most bytes first: the hash part (256 B) is held by the path to its table */
  ck_assert_str_eq(sites[0].holders[0].path, "_LOADED.auth.tokens");
  ck_assert_uint_eq(sites[0].holders[0].bytes, 256);
  ck_assert_str_eq(sites[0].holders[1].path, "_LOADED.auth.tokens[*]");
  ck_assert_uint_eq(sites[0].holders[1].objects, 3);
  ck_assert_uint_eq(sites[0].holders[1].bytes, 120);
  ck_assert_str_eq(sites[0].holders[1].holder_type, "table");
  /* tokens keeps its own 64 bytes, its hash part and the three records alive */
  ck_assert_uint_eq(sites[0].holders[1].retained_bytes, 64 + 256 + 120);
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, "upvalue handlers of function@bus.lua:3[*]");
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
  struct snapshot_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, file.data, file.size, "heap", &error), SNAPSHOT_OK);
  struct diff_holders_block blocks[] = {{0x5100, 40, 0}};
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *wanted[1] = {&site};
  ck_assert_int_eq(diff_holders_analyse(&s, blocks, 1, wanted, 1), 0);
  ck_assert_uint_eq(site.holder_count, 1);
  ck_assert_str_eq(site.holders[0].path, "_LOADED.auth.tokens[\"token-2\"]");
  diff_site_release(&site);
  snapshot_free(&s);
  free(file.data);
}
END_TEST

#define BIG 1000000

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
  size_t wrong = 0, late = 0;  /* counted: a Check assertion records where it is at each call */
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
  suite_add_tcase(s, tc);
  /* A few tenths of a second (a few seconds under the sanitizers); Cooper, Harvey and Kennedy's
   * algorithm takes hours, and the timeout fails it. */
  TCase *big = tcase_create("a million objects");
  tcase_set_timeout(big, 60);
  tcase_add_test(big, test_dominators_of_a_long_chain_sharing_one_node);
  suite_add_tcase(s, big);
  return check_run(s);
}
