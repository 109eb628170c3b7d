/* tests/test_summary_heap_map.c: the summary's heap map against a plain reference: growth, address 0, oversize blocks, overflow chains. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "summary/hash.h"
#include "summary/heap_map.h"

/* ---- A reference: the live blocks in an array -------------------------- */

struct ref_block {
  uint64_t address, size;
  uint32_t version;
};

/* ---- Helpers ---------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
  uint64_t x = rng_state;  /* xorshift64* */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * UINT64_C(0x2545f4914f6cdd1d);
}

static int put(struct summary_heap_map *heap, uint64_t address, uint64_t size, uint32_t version)
{
  return heap_map_put(heap, address, hash_u64(address), size, version);
}

static int take(struct summary_heap_map *heap, uint64_t address, uint64_t *size, uint32_t *version)
{
  return heap_map_take(heap, address, hash_u64(address), size, version);
}

/* Takes block from the map and checks its size and version. (Check's
 * assertions each write to a pipe: in loops of a million, a test asserts
 * only when something is wrong.) */
static void take_expecting(struct summary_heap_map *heap, const struct ref_block *block)
{
  uint64_t size = 0;
  uint32_t version = 0;
  if (take(heap, block->address, &size, &version) != 1 || size != block->size || version != block->version)
    ck_abort_msg("block %#llx: taken as size %llu version %u, put as size %llu version %u",
                 (unsigned long long)block->address, (unsigned long long)size, version,
                 (unsigned long long)block->size, block->version);
}

/* Every overflow count of every bucket. */
static uint64_t overflow_total(const struct summary_heap_map *heap)
{
  uint64_t total = 0;
  for (size_t b = 0; b < heap->bucket_count; b++)
    for (unsigned k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++)
      total += heap_map_overflow(&heap->buckets[b], k);
  return total;
}

/* n addresses (from start, in steps of 16) whose hashes share a home bucket
 * under the map's present bucket count, and a class. */
static size_t same_chain(const struct summary_heap_map *heap, uint64_t start, uint64_t *addresses, size_t n)
{
  uint64_t first = hash_u64(start);
  size_t home = heap_map_home(heap, first);
  unsigned class = heap_map_class(first);
  size_t found = 0;
  for (uint64_t address = start; found < n; address += 16) {
    uint64_t hash = hash_u64(address);
    if (heap_map_home(heap, hash) == home && heap_map_class(hash) == class)
      addresses[found++] = address;
  }
  return home;
}

/* ---- Tests ------------------------------------------------------------------ */

/* Many puts, replacements and takes across many growths, against the
 * reference, with clustered addresses (an allocator's) and scattered ones,
 * on a map that reserves reserve bytes at a time and is dense from
 * dense_from bytes. Returns how many times the table moved to a new range. */
static int growth_against_reference(size_t reserve, size_t dense_from)
{
  enum { LIVE_MAX = 80000, ROUNDS = 300000 };
  struct summary_heap_map heap;
  ck_assert_int_eq(summary_heap_map_init_tuned(&heap, reserve, dense_from), 0);
  size_t initial_bytes = summary_heap_map_table_bytes(&heap);
  int moves = 0;
  struct ref_block *live = malloc(LIVE_MAX * sizeof *live);
  ck_assert_ptr_nonnull(live);
  size_t live_count = 0;
  const void *range = heap.range;
  for (int round = 0; round < ROUNDS; round++) {
    moves += heap.range != range;
    range = heap.range;
    uint64_t r = rng_next();
    if (live_count < LIVE_MAX && (r & 3) != 0) {
      /* Top byte 0: never one of the absent addresses below. */
      uint64_t address = (r & 64) ? UINT64_C(0x7f0000000000) + 16 * (uint64_t)round : (r >> 8) | 1;
      struct ref_block block = {address, (r >> 20) & 0xfffff, (uint32_t)(r >> 40) & 0xffff};
      if (put(&heap, block.address, block.size, block.version))
        ck_abort_msg("put of a new block failed");
      live[live_count++] = block;
    } else if (live_count) {
      size_t i = (size_t)(r >> 16) % live_count;
      if (r & 8) {  /* a realloc in place: replaced, not taken */
        live[i].size = (r >> 24) & 0xffff;
        live[i].version = 3;
        if (put(&heap, live[i].address, live[i].size, live[i].version))
          ck_abort_msg("put of a replacement failed");
      } else {
        take_expecting(&heap, &live[i]);
        live[i] = live[--live_count];
      }
    }
    if (round % 1000 == 0)
      ck_assert_uint_eq(summary_heap_map_count(&heap), live_count);
  }
  ck_assert_uint_eq(summary_heap_map_count(&heap), live_count);
  size_t table = summary_heap_map_table_bytes(&heap);
  if (table > dense_from) {
    /* At most 3/4 full before a growth by a quarter: at least 3/5 full
     * after it, 16 bytes a slot (and a dozen growths or more). */
    ck_assert_uint_gt(table, 100 * initial_bytes);
    ck_assert_uint_le(table, live_count * 16 * 5 / 3);
  } else {
    ck_assert_uint_ge(table, 16 * initial_bytes);  /* doubled four times or more */
    ck_assert_uint_le(table, live_count * 16 * 4);  /* at least 1/4 full */
  }
  /* Absent addresses are absent; then everything goes, in another order. */
  for (int i = 0; i < 10000; i++) {
    uint64_t size;
    uint32_t version;
    if (take(&heap, rng_next() | UINT64_C(0x8000000000000000), &size, &version))
      ck_abort_msg("an absent address was found");
  }
  for (size_t i = 0; i < live_count; i += 2)
    take_expecting(&heap, &live[i]);
  for (size_t i = 1; i < live_count; i += 2)
    take_expecting(&heap, &live[i]);
  ck_assert_uint_eq(summary_heap_map_count(&heap), 0);
  ck_assert_uint_eq(overflow_total(&heap), 0);
  free(live);
  summary_heap_map_release(&heap);
  return moves;
}

/* The default range holds every growth: the table never moves, half full
 * at most (as long as it is below SUMMARY_HEAP_MAP_DENSE_FROM). */
START_TEST(test_growth_in_place_matches_a_reference)
{
  ck_assert_int_eq(growth_against_reference(SUMMARY_HEAP_MAP_RESERVE, SUMMARY_HEAP_MAP_DENSE_FROM), 0);
}
END_TEST

/* The same from 64 KiB dense: grown by a quarter at 3/4 full. */
START_TEST(test_dense_growth_in_place_matches_a_reference)
{
  ck_assert_int_eq(growth_against_reference(SUMMARY_HEAP_MAP_RESERVE, 64 << 10), 0);
}
END_TEST

/* A range of 64 KiB holds the first growths only: the table moves, to
 * ranges four times its size, and grows in place there again. */
START_TEST(test_growth_past_its_range_matches_a_reference)
{
  ck_assert_int_ge(growth_against_reference(64 << 10, SUMMARY_HEAP_MAP_DENSE_FROM), 1);
  int moves = growth_against_reference(64 << 10, 64 << 10);
  ck_assert_int_ge(moves, 2);
  ck_assert_int_le(moves, 4);
}
END_TEST

START_TEST(test_address_zero_is_a_block_like_any)
{
  struct summary_heap_map heap;
  ck_assert_int_eq(summary_heap_map_init(&heap), 0);
  uint64_t size;
  uint32_t version;
  ck_assert_int_eq(take(&heap, 0, &size, &version), 0);
  ck_assert_int_eq(put(&heap, 0, 24, 5), 0);
  ck_assert_int_eq(put(&heap, 16, 8, 6), 0);
  ck_assert_uint_eq(summary_heap_map_count(&heap), 2);
  ck_assert_int_eq(put(&heap, 0, 40, 7), 0);  /* replaced */
  ck_assert_uint_eq(summary_heap_map_count(&heap), 2);
  ck_assert_int_eq(take(&heap, 0, &size, &version), 1);
  ck_assert_uint_eq(size, 40);
  ck_assert_uint_eq(version, 7);
  ck_assert_int_eq(take(&heap, 0, &size, &version), 0);
  /* A huge block at address 0 keeps its size too. */
  ck_assert_int_eq(put(&heap, 0, UINT64_MAX, 1), 0);
  take_expecting(&heap, &(struct ref_block){0, UINT64_MAX, 1});
  take_expecting(&heap, &(struct ref_block){16, 8, 6});
  ck_assert_uint_eq(summary_heap_map_count(&heap), 0);
  summary_heap_map_release(&heap);
}
END_TEST

START_TEST(test_oversize_blocks_keep_their_size)
{
  struct summary_heap_map heap;
  ck_assert_int_eq(summary_heap_map_init(&heap), 0);
  const uint64_t escape = SUMMARY_HEAP_MAP_SIZE_ESCAPE;
  ck_assert_int_eq(put(&heap, 0x1000, escape - 1, 1), 0);  /* the largest kept in a slot */
  ck_assert_int_eq(put(&heap, 0x2000, escape, 2), 0);
  ck_assert_int_eq(put(&heap, 0x3000, UINT64_C(1) << 50, 3), 0);
  ck_assert_uint_eq(heap.oversize_count, 2);
  /* Oversize replaced by oversize, by small, and small by oversize. */
  ck_assert_int_eq(put(&heap, 0x2000, UINT64_MAX, 4), 0);
  ck_assert_uint_eq(heap.oversize_count, 2);
  ck_assert_int_eq(put(&heap, 0x3000, 48, 5), 0);
  ck_assert_uint_eq(heap.oversize_count, 1);
  ck_assert_int_eq(put(&heap, 0x1000, escape + 1, 6), 0);
  ck_assert_uint_eq(heap.oversize_count, 2);
  ck_assert_uint_eq(summary_heap_map_count(&heap), 3);
  take_expecting(&heap, &(struct ref_block){0x1000, escape + 1, 6});
  take_expecting(&heap, &(struct ref_block){0x2000, UINT64_MAX, 4});
  take_expecting(&heap, &(struct ref_block){0x3000, 48, 5});
  ck_assert_uint_eq(heap.oversize_count, 0);
  ck_assert_uint_eq(summary_heap_map_count(&heap), 0);
  summary_heap_map_release(&heap);
}
END_TEST

/* Twenty blocks with one home and class: four fit in the home bucket, the
 * rest overflow into the buckets after it. Taken from the middle of the
 * chain, from its home and from its end, each other block stays found, and
 * the overflow counts go back to zero. */
START_TEST(test_removal_from_overflow_chains)
{
  struct summary_heap_map heap;
  ck_assert_int_eq(summary_heap_map_init(&heap), 0);
  uint64_t chain[20];
  size_t home = same_chain(&heap, 0x7f1234560000, chain, 20);
  unsigned class = heap_map_class(hash_u64(chain[0]));
  for (uint32_t i = 0; i < 20; i++)
    ck_assert_int_eq(put(&heap, chain[i], 100 + i, i), 0);
  ck_assert_uint_eq(heap_map_overflow(&heap.buckets[home], class), 16);
  static const int order[20] = {10, 0, 19, 5, 1, 18, 2, 11, 3, 17, 4, 12, 6, 16, 7, 13, 8, 15, 9, 14};
  int taken[20] = {0};
  for (int n = 0; n < 20; n++) {
    uint64_t size;
    uint32_t version;
    int i = order[n];
    ck_assert_int_eq(take(&heap, chain[i], &size, &version), 1);
    ck_assert_uint_eq(size, 100 + (uint64_t)i);
    ck_assert_uint_eq(version, (uint32_t)i);
    taken[i] = 1;
    ck_assert_int_eq(take(&heap, chain[i], &size, &version), 0);
    for (int j = 0; j < 20; j++) {
      struct summary_heap_block *block;
      size_t b;
      block = summary_heap_map_find(&heap, chain[j], hash_u64(chain[j]), &b);
      ck_assert_int_eq(block != NULL, !taken[j]);
    }
    /* A new block of the chain goes into the first free slot from home. */
    if (n == 0) {
      ck_assert_int_eq(put(&heap, chain[i], 1, 1), 0);
      ck_assert_int_eq(take(&heap, chain[i], &size, &version), 1);
      ck_assert_uint_eq(size, 1);
    }
  }
  ck_assert_uint_eq(overflow_total(&heap), 0);
  ck_assert_uint_eq(summary_heap_map_count(&heap), 0);
  summary_heap_map_release(&heap);
}
END_TEST

/* More than 255 blocks overflow one bucket: its count sticks at 255, every
 * block stays found, an absent address is absent (the walk ends), and a
 * growth sets the counts right again. */
START_TEST(test_a_stuck_overflow_count_costs_no_answer)
{
  struct summary_heap_map heap;
  ck_assert_int_eq(summary_heap_map_init_tuned(&heap, SUMMARY_HEAP_MAP_RESERVE, 0), 0);  /* dense: room for 300 */
  enum { N = 300 };
  uint64_t *chain = malloc(N * sizeof *chain);
  ck_assert_ptr_nonnull(chain);
  size_t home = same_chain(&heap, 0x7f0000000000, chain, N);
  unsigned class = heap_map_class(hash_u64(chain[0]));
  size_t buckets = heap.bucket_count;
  for (uint32_t i = 0; i < N; i++)
    ck_assert_int_eq(put(&heap, chain[i], i, i), 0);
  ck_assert_uint_eq(heap.bucket_count, buckets);  /* no growth yet */
  ck_assert_uint_eq(heap_map_overflow(&heap.buckets[home], class), SUMMARY_HEAP_MAP_OVERFLOW_STUCK);
  uint64_t size;
  uint32_t version;
  ck_assert_int_eq(take(&heap, chain[0] + 8, &size, &version), 0);
  for (uint32_t i = 0; i < N; i += 2) {
    ck_assert_int_eq(take(&heap, chain[i], &size, &version), 1);
    ck_assert_uint_eq(size, i);
  }
  ck_assert_uint_eq(heap_map_overflow(&heap.buckets[home], class), SUMMARY_HEAP_MAP_OVERFLOW_STUCK);
  ck_assert_int_eq(summary_heap_map_grow(&heap), 0);
  ck_assert_uint_lt(heap_map_overflow(&heap.buckets[heap_map_home(&heap, hash_u64(chain[1]))], class),
                    SUMMARY_HEAP_MAP_OVERFLOW_STUCK);
  for (uint32_t i = 1; i < N; i += 2) {
    ck_assert_int_eq(take(&heap, chain[i], &size, &version), 1);
    ck_assert_uint_eq(size, i);
    ck_assert_uint_eq(version, i);
  }
  ck_assert_uint_eq(overflow_total(&heap), 0);
  free(chain);
  summary_heap_map_release(&heap);
}
END_TEST

/* Buckets whose blocks hold a few addresses in every arrangement, with
 * free blocks, equal halves and addresses that differ in one half only:
 * the vector match and its portable twin give the same bits, for
 * heap_map_bucket_match and heap_map_bucket_match_and_free alike. */
START_TEST(test_bucket_match_agrees_with_its_portable_twin)
{
  const uint64_t pool[] = {0, 1, UINT64_C(0x100000000), UINT64_C(0x100000001), UINT64_C(0x7f0012345670),
                           UINT64_C(0x7f0012345678), UINT64_C(0x7f0112345670), UINT64_MAX};
  enum { POOL = sizeof pool / sizeof pool[0] };
  struct summary_heap_bucket bucket;
  for (unsigned arrangement = 0; arrangement < POOL * POOL * POOL * POOL; arrangement++) {
    unsigned rest = arrangement;
    for (int k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++, rest /= POOL) {
      bucket.blocks[k].address = pool[rest % POOL];
      bucket.blocks[k].packed = rng_next();  /* never read as an address */
    }
    for (unsigned key = 0; key < POOL; key++) {
      unsigned expected = heap_map_bucket_match_portable(&bucket, pool[key]), free_mask = 99;
      ck_assert_uint_eq(heap_map_bucket_match(&bucket, pool[key]), expected);
      ck_assert_uint_eq(heap_map_bucket_match_and_free(&bucket, pool[key], &free_mask), expected);
      ck_assert_uint_eq(free_mask, heap_map_bucket_match_portable(&bucket, 0));
    }
  }
}
END_TEST

int main(void)
{
  Suite *suite = suite_create("summary heap map");
  TCase *map = tcase_create("heap map");
  tcase_set_timeout(map, 0);
  tcase_add_test(map, test_growth_in_place_matches_a_reference);
  tcase_add_test(map, test_dense_growth_in_place_matches_a_reference);
  tcase_add_test(map, test_growth_past_its_range_matches_a_reference);
  tcase_add_test(map, test_address_zero_is_a_block_like_any);
  tcase_add_test(map, test_oversize_blocks_keep_their_size);
  tcase_add_test(map, test_removal_from_overflow_chains);
  tcase_add_test(map, test_a_stuck_overflow_count_costs_no_answer);
  tcase_add_test(map, test_bucket_match_agrees_with_its_portable_twin);
  suite_add_tcase(suite, map);
  return check_run(suite);
}
