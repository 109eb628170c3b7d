/* summary/heap_map.h: the summary's heap map: address -> (size, version) for every live block, in 64-byte buckets. */
#ifndef LJLEAK_SUMMARY_HEAP_MAP_H
#define LJLEAK_SUMMARY_HEAP_MAP_H

#include <stddef.h>
#include <stdint.h>

/* A live block in 16 bytes: packed = size << 24 | (version + 1); 0 marks an
 * empty slot, whose address is 0 too. The version is the owner's (the
 * summary's (site, name) of the block's allocation). A size of 2^40 - 1 or
 * more is kept in the map's oversize list instead. */
struct summary_heap_block {
  uint64_t address;
  uint64_t packed;
};
#define SUMMARY_HEAP_MAP_VERSION_BITS 24
#define SUMMARY_HEAP_MAP_VERSION_LIMIT ((UINT32_C(1) << SUMMARY_HEAP_MAP_VERSION_BITS) - 1)
#define SUMMARY_HEAP_MAP_SIZE_ESCAPE ((UINT64_C(1) << (64 - SUMMARY_HEAP_MAP_VERSION_BITS)) - 1)

/* Three blocks and a counter in one 64-byte cache line. overflow counts the
 * blocks whose home is this bucket but which sit in a later one (it was full
 * when they came): a lookup stops at the first bucket with no overflow, and a
 * removal needs no shifting, only the counters on the way decremented. */
#define SUMMARY_HEAP_MAP_BUCKET_BLOCKS 3
struct summary_heap_bucket {
  _Alignas(64) struct summary_heap_block blocks[SUMMARY_HEAP_MAP_BUCKET_BLOCKS];
  uint64_t overflow;
};

struct summary_heap_oversize_block {
  uint64_t address, size;
};

/* Open addressing over buckets, probed linearly; at most half of the blocks
 * are used, so a lookup mostly reads one cache line.
 *
 * Why not diff/live_map.h, the diff's address -> block map: the summary does
 * not link diff/, and the two are tuned for different jobs. live_map (16-byte
 * slots, linear probing, backward-shift deletion that rehashes the slots
 * after the hole, no address 0) is compact, which suits the diff's
 * capture-wide map beside a map per segment. This map
 * spends memory on 64-byte buckets and huge pages so that the take and the
 * put of every event in a map probed at random cost about one cache line
 * each, and it keeps address 0 and 40-bit sizes as the parser does. Measured
 * with the summary built on a copy of live_map in place of this map (a
 * scratch build, not kept): make BUILD=build-A bench-summary (bench/summary.sh,
 * 10M-event streams, median of 9 or 5 runs, wall-clock):
 *
 *   stream                        this map             live_map design
 *   1x: 65k live blocks           34.0 M events/s,     21.8 M events/s,
 *                                 peak RSS 9.5 MiB     peak RSS 6.2 MiB
 *   1x, 10x live set: 500k        26.9 M events/s,     16.6 M events/s,
 *                                 peak RSS 51.2 MiB    peak RSS 27.2 MiB
 *
 * The summary runs over whole captures in one pass: speed is worth the memory. */
struct summary_heap_map {
  struct summary_heap_bucket *buckets;
  size_t mask, count;           /* mask: buckets - 1 */
  size_t limit;                 /* the count that makes it grow: half of its slots */
  struct summary_heap_oversize_block *oversize;  /* never seen in practice: a plain list */
  size_t oversize_count, oversize_capacity;
};

/* buckets: a power of two. Returns 0, or -1 when out of memory. */
int summary_heap_map_init(struct summary_heap_map *heap, size_t buckets);
void summary_heap_map_release(struct summary_heap_map *heap);

/* Callers pass an address's hash (hash_u64, summary/hash.h) along with it:
 * it is computed once per event, when the event is read and its bucket
 * prefetched. */

/* The block holding address, or NULL. */
struct summary_heap_block *summary_heap_map_find(const struct summary_heap_map *heap, uint64_t address, uint64_t hash);

/* Places a block known to be absent: in the first bucket from its home with
 * room, counting it as overflow in every full bucket passed. */
void summary_heap_map_place(struct summary_heap_map *heap, uint64_t hash, const struct summary_heap_block *block);

/* Doubles the buckets. Returns 0, or -1 when out of memory. */
int summary_heap_map_grow(struct summary_heap_map *heap);

/* Removes address from the oversize list; returns its size. */
static inline uint64_t heap_map_oversize_take(struct summary_heap_map *heap, uint64_t address)
{
  for (size_t i = 0; i < heap->oversize_count; i++)
    if (heap->oversize[i].address == address) {
      uint64_t size = heap->oversize[i].size;
      heap->oversize[i] = heap->oversize[--heap->oversize_count];
      return size;
    }
  return SUMMARY_HEAP_MAP_SIZE_ESCAPE;  /* unreachable: every escaped block is listed */
}

/* heap_map_put for a size kept in the oversize list or for address 0: the
 * rare path. */
int summary_heap_map_put_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t size,
                      uint32_t version);

/* heap_map_take for address 0: the rare path. */
int summary_heap_map_take_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
                       uint32_t *version);

/* Starts fetching the bucket where an address would be, so that the lookup a
 * few events later finds it in cache. */
static inline void heap_map_prefetch(const struct summary_heap_map *heap, uint64_t hash)
{
  __builtin_prefetch(&heap->buckets[hash & heap->mask]);
}

/* Bit k set when block k of bucket holds address, for an address other than
 * 0 (a free slot's address is 0): computed without branches, since which
 * slot holds a block is random and would be mispredicted. */
static inline unsigned heap_map_bucket_match(const struct summary_heap_bucket *bucket, uint64_t address)
{
  const struct summary_heap_block *b = bucket->blocks;
  return (unsigned)(b[0].address == address) | (unsigned)(b[1].address == address) << 1 |
         (unsigned)(b[2].address == address) << 2;
}

/* Bit k set when block k of bucket is free. */
static inline unsigned heap_map_bucket_free(const struct summary_heap_bucket *bucket)
{
  const struct summary_heap_block *b = bucket->blocks;
  return (unsigned)(b[0].packed == 0) | (unsigned)(b[1].packed == 0) << 1 |
         (unsigned)(b[2].packed == 0) << 2;
}
_Static_assert(SUMMARY_HEAP_MAP_BUCKET_BLOCKS == 3,
               "heap_map_bucket_match and heap_map_bucket_free test three blocks");

/* Empties the slot of block, found in bucket b; returns its size and version. */
static inline void heap_map_remove(struct summary_heap_map *heap, uint64_t hash, size_t b,
                                   struct summary_heap_block *block, uint64_t *size, uint32_t *version)
{
  *version = (uint32_t)(block->packed & SUMMARY_HEAP_MAP_VERSION_LIMIT) - 1;
  *size = block->packed >> SUMMARY_HEAP_MAP_VERSION_BITS;
  if (__builtin_expect(*size == SUMMARY_HEAP_MAP_SIZE_ESCAPE, 0))
    *size = heap_map_oversize_take(heap, block->address);
  block->address = 0;  /* a free slot's address is 0: see heap_map_bucket_match */
  block->packed = 0;
  heap->count--;
  /* It overflowed every bucket from its home to here. */
  for (size_t home = hash & heap->mask; home != b; home = (home + 1) & heap->mask)
    heap->buckets[home].overflow--;
}

/* Maps address to (size, version), replacing what was there (as the parser
 * does). One pass: looks for the address along its chain of buckets and
 * remembers the first free slot on the way, where a new block goes. Inlined
 * into the feeding loop, as it runs for every alloc and realloc. Returns 0,
 * or -1 when out of memory. */
static inline __attribute__((always_inline)) int
heap_map_put(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t size,
             uint32_t version)
{
  if (__builtin_expect(heap->count >= heap->limit, 0) &&
      summary_heap_map_grow(heap))
    return -1;
  if (__builtin_expect(size >= SUMMARY_HEAP_MAP_SIZE_ESCAPE || address == 0, 0))
    return summary_heap_map_put_slow(heap, address, hash, size, version);
  uint64_t packed = size << SUMMARY_HEAP_MAP_VERSION_BITS | (version + 1);
  size_t home = hash & heap->mask, b = home;
  struct summary_heap_block *free_slot = NULL;
  size_t free_bucket = 0;
  for (;;) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    unsigned match = heap_map_bucket_match(bucket, address);
    if (__builtin_expect(match != 0, 0)) {
      struct summary_heap_block *block = &bucket->blocks[__builtin_ctz(match)];
      if (__builtin_expect(block->packed >> SUMMARY_HEAP_MAP_VERSION_BITS == SUMMARY_HEAP_MAP_SIZE_ESCAPE, 0))
        heap_map_oversize_take(heap, address);
      block->packed = packed;
      return 0;
    }
    unsigned free_mask = heap_map_bucket_free(bucket);
    if (!free_slot && free_mask) {
      free_slot = &bucket->blocks[__builtin_ctz(free_mask)];
      free_bucket = b;
    }
    if (!bucket->overflow)
      break;
    b = (b + 1) & heap->mask;
  }
  struct summary_heap_block block = {address, packed};
  heap->count++;
  if (!free_slot) {  /* every bucket on the chain is full */
    summary_heap_map_place(heap, hash, &block);
    return 0;
  }
  *free_slot = block;
  for (b = home; b != free_bucket; b = (b + 1) & heap->mask)
    heap->buckets[b].overflow++;
  return 0;
}

/* Removes address; returns 1 and its size and version if it was mapped.
 * Inlined into the feeding loop, as it runs for every realloc and free. */
static inline __attribute__((always_inline)) int
heap_map_take(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
              uint32_t *version)
{
  if (__builtin_expect(address == 0, 0))
    return summary_heap_map_take_slow(heap, address, hash, size, version);
  size_t b = hash & heap->mask;
  for (;;) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    unsigned match = heap_map_bucket_match(bucket, address);
    if (__builtin_expect(match != 0, 1)) {
      heap_map_remove(heap, hash, b, &bucket->blocks[__builtin_ctz(match)], size, version);
      return 1;
    }
    if (!bucket->overflow)
      return 0;
    b = (b + 1) & heap->mask;
  }
}

#endif
