/* tests/test_diff_holders.c: the dominator tree on small hand-built graphs (Lengauer and Tarjan's example, a loop, a diamond, unreached nodes), and holder paths and retained sizes on a hand-built snapshot (collapsed keys, a weak cache never holding, an upvalue's path); the analysis of a million-node list, of a table of a million entries and of a list with side branches, which only an analysis linear in objects and references finishes (no timing: the case's timeout is what fails a quadratic one). */
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
  struct snapshot_error error;
  ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "heap", &error), SNAPSHOT_OK);
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
  struct snapshot_error error;
  ck_assert_int_eq(snapshot_read_memory(s, b->out.data, b->out.size, "heap", &error), SNAPSHOT_OK);
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
 * and 62 steps "next". */
static void chain_cut_text(char *out, size_t size)
{
  size_t len = (size_t)snprintf(out, size, "_G.chain");
  for (int i = 0; i < 62; i++)
    len += (size_t)snprintf(out + len, size - len, ".next");
  snprintf(out + len, size - len, " ...");
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
  ck_assert_uint_eq(site.holder_count, DIFF_HOLDERS_SHOWN);
  /* Nodes 64 .. BIG lie deeper than the 64 steps shown: one path, cut, whose last step shown
   * leaves from node 62, which keeps nodes 62 .. BIG alive. */
  ck_assert_str_eq(site.holders[0].path, cut);
  ck_assert_uint_eq(site.holders[0].objects, BIG - 63);
  ck_assert_uint_eq(site.holders[0].bytes, (uint64_t)(BIG - 63) * NODE_BYTES);
  ck_assert_str_eq(site.holders[0].holder_type, "table");
  ck_assert_uint_eq(site.holders[0].retained_bytes, (uint64_t)(BIG - 61) * NODE_BYTES);
  /* Then a node each, by path: the first held by the globals table, which keeps everything
   * alive (the list, the function next and the key string, which the nodes share); the next
   * by the first node, which keeps the list alive. */
  ck_assert_str_eq(site.holders[1].path, "_G.chain");
  ck_assert_uint_eq(site.holders[1].objects, 1);
  ck_assert_uint_eq(site.holders[1].bytes, NODE_BYTES);
  ck_assert_uint_eq(site.holders[1].retained_bytes, 64 + 40 + 28 + (uint64_t)BIG * NODE_BYTES);
  ck_assert_str_eq(site.holders[2].path, "_G.chain.next");
  ck_assert_uint_eq(site.holders[2].retained_bytes, (uint64_t)BIG * NODE_BYTES);
  ck_assert_str_eq(site.holders[3].path, "_G.chain.next.next");
  ck_assert_uint_eq(site.holders[3].retained_bytes, (uint64_t)(BIG - 1) * NODE_BYTES);
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
  char cut[1024], near[1024];
  chain_cut_text(cut, sizeof cut);
  size_t len = (size_t)snprintf(near, sizeof near, "_G.chain");
  for (int i = 0; i < 9; i++)
    len += (size_t)snprintf(near + len, sizeof near - len, ".next");
  snprintf(near + len, sizeof near - len, ".side[*]");
  uint64_t side_bytes = 64 + ITEMS * 8 + (uint64_t)ITEMS * ITEM_BYTES;
  /* The list's nodes as without the branches; node 62 keeps the deep branch alive too. */
  ck_assert_str_eq(sites[0].holders[0].path, cut);
  ck_assert_uint_eq(sites[0].holders[0].objects, BIG - 63);
  ck_assert_uint_eq(sites[0].holders[0].retained_bytes, (uint64_t)(BIG - 61) * NODE_BYTES + side_bytes);
  ck_assert_uint_eq(sites[0].holders[2].retained_bytes, (uint64_t)BIG * NODE_BYTES + 2 * side_bytes);
  /* The near branch's items: their path whole, the side table their holder. */
  ck_assert_uint_eq(sites[1].holder_count, 1);
  ck_assert_str_eq(sites[1].holders[0].path, near);
  ck_assert_uint_eq(sites[1].holders[0].objects, ITEMS);
  ck_assert_uint_eq(sites[1].holders[0].bytes, (uint64_t)ITEMS * ITEM_BYTES);
  ck_assert_uint_eq(sites[1].holders[0].retained_bytes, side_bytes);
  /* The deep branch's items: 500,000 steps down, the list's cut path. */
  ck_assert_uint_eq(sites[2].holder_count, 1);
  ck_assert_str_eq(sites[2].holders[0].path, cut);
  ck_assert_uint_eq(sites[2].holders[0].objects, ITEMS);
  ck_assert_uint_eq(sites[2].holders[0].retained_bytes, (uint64_t)(BIG - 61) * NODE_BYTES + side_bytes);
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
