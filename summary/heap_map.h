/* summary/heap_map.h: the summary's heap map: address -> (size, version) for every live block, in 64-byte buckets of one table grown in place. */
#ifndef LJLEAK_SUMMARY_HEAP_MAP_H
#define LJLEAK_SUMMARY_HEAP_MAP_H

#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A live block in 16 bytes: packed = size << 24 | (version + 1). A free
 * slot's address is 0 (a block at address 0 is kept aside). The version is
 * the owner's (the summary's (site, name) of the block's allocation). A size
 * of 2^32 - 1 or more is kept in the map's oversize list instead. The top
 * byte of packed is not the block's but its bucket's: an overflow count (see
 * summary_heap_bucket). */
struct summary_heap_block {
  uint64_t address;
  uint64_t packed;
};
#define SUMMARY_HEAP_MAP_VERSION_BITS 24
#define SUMMARY_HEAP_MAP_SIZE_BITS 32
#define SUMMARY_HEAP_MAP_VERSION_LIMIT ((UINT32_C(1) << SUMMARY_HEAP_MAP_VERSION_BITS) - 1)
#define SUMMARY_HEAP_MAP_SIZE_ESCAPE ((UINT64_C(1) << SUMMARY_HEAP_MAP_SIZE_BITS) - 1)
#define SUMMARY_HEAP_MAP_OVERFLOW_SHIFT (SUMMARY_HEAP_MAP_VERSION_BITS + SUMMARY_HEAP_MAP_SIZE_BITS)
#define SUMMARY_HEAP_MAP_OVERFLOW_ONE (UINT64_C(1) << SUMMARY_HEAP_MAP_OVERFLOW_SHIFT)
#define SUMMARY_HEAP_MAP_OVERFLOW_MASK (~(SUMMARY_HEAP_MAP_OVERFLOW_ONE - 1))
#define SUMMARY_HEAP_MAP_OVERFLOW_STUCK ((uint64_t)0xff)  /* a count's top: it stays there */

/* Four blocks in one 64-byte cache line, and four overflow counts, one in
 * the top byte of each block's packed. A block belongs to one of four
 * classes (two bits of its address's hash); count k of a bucket counts the
 * blocks of class k whose probe from their home passed this bucket because
 * it was full when they came. A lookup stops at the first bucket whose count
 * for its class is 0, and a removal needs no shifting, only the counts on
 * the way decremented. A single count per bucket would make a lookup for an
 * absent address (most puts) go on past every bucket some block passed,
 * which at this map's load is most of them; split by class, a quarter as
 * often. A count that reaches 255 stays there until the table grows
 * (lookups then go on past it, never stop short), and every walk along
 * buckets ends after a whole round, so that a stuck count costs time,
 * never an answer. */
#define SUMMARY_HEAP_MAP_BUCKET_BLOCKS 4
struct summary_heap_bucket {
  _Alignas(64) struct summary_heap_block blocks[SUMMARY_HEAP_MAP_BUCKET_BLOCKS];
};
_Static_assert(sizeof(struct summary_heap_bucket) == 64, "a bucket is one cache line");

struct summary_heap_oversize_block {
  uint64_t address, size;
};

/* The map is one table of buckets probed linearly, of any bucket count: a
 * block's home is its hash's low 32 bits scaled to the count (a multiply,
 * no power of two needed, and a home that only moves up as the table
 * grows). It grows in place: the table sits at the start of a range of
 * address space reserved once and taken into use as it grows, so a growth
 * holds no second table. Up to 16 MiB it is at most half full and doubles:
 * a lookup then rarely leaves the home bucket. From 16 MiB (about 500,000
 * blocks) on, where memory counts more than a bucket more per lookup, it
 * grows by a quarter when 3/4 full and holds 16 / (3/4) to 16 * 1.25 / (3/4)
 * bytes, 21 to 27, per live block at any live count. The range is aligned
 * to and advised for huge pages: the map is probed at random, one bucket
 * per event, and on 4 KiB pages nearly every probe would also miss the TLB.
 * Should the range run out (a system that lets little be reserved), the
 * table moves to a new range.
 *
 * Why not diff/live_map.h, the diff's address -> block map: the summary does
 * not link diff/, and the two are tuned for different jobs. live_map (16-byte
 * slots, linear probing, backward-shift deletion that rehashes the slots
 * after the hole, no address 0, one table doubled in place) suits the
 * diff's capture-wide map beside a map per segment. This map takes and puts
 * a block in about one cache line (a bucket of four), removes without
 * moving other blocks, and keeps address 0 and sizes of 4 GiB and more as
 * the parser does. Figures against the map it replaced: docs/summary.md. */

/* The block at address 0, kept aside: in the table a free slot's address
 * is 0. */
struct summary_heap_zero_block {
  int present;
  uint32_t version;
  uint64_t size;
};

struct summary_heap_map {
  struct summary_heap_bucket *buckets;
  size_t bucket_count;          /* any count from 1; below 2^32 */
  size_t count;                 /* blocks in the table */
  size_t limit;                 /* the count that makes it grow: 1/2 or 3/4 of its slots */
  size_t usable;                /* bytes from buckets readable and writable */
  size_t room;                  /* bytes from buckets reserved: what it grows to in place */
  void *range;                  /* the reserved range and its length, for munmap */
  size_t range_bytes;
  size_t reserve;               /* the bytes of address space a range takes when made */
  size_t dense_from;            /* table bytes from which it is 3/4 full, not 1/2 */
  struct summary_heap_zero_block zero;
  struct summary_heap_oversize_block *oversize;  /* never seen in practice: a plain list */
  size_t oversize_count, oversize_capacity;
};

/* The address space the table reserves: room for 3 billion live blocks, of
 * which only what the table uses is ever backed by memory. */
#define SUMMARY_HEAP_MAP_RESERVE ((size_t)64 << 30)
/* The table's size from which it is kept dense. */
#define SUMMARY_HEAP_MAP_DENSE_FROM ((size_t)16 << 20)

/* Returns 0, or -1 when out of memory. */
int summary_heap_map_init(struct summary_heap_map *heap);

/* As summary_heap_map_init, with ranges of reserve bytes at least and a
 * table kept dense from dense_from bytes on (tests make the table move, and
 * dense while small). */
int summary_heap_map_init_tuned(struct summary_heap_map *heap, size_t reserve, size_t dense_from);

void summary_heap_map_release(struct summary_heap_map *heap);

/* The blocks the map holds, and the bytes its table takes (for tests and
 * measurements). */
size_t summary_heap_map_count(const struct summary_heap_map *heap);
size_t summary_heap_map_table_bytes(const struct summary_heap_map *heap);

/* Callers pass an address's hash (hash_u64, summary/hash.h) along with it:
 * it is computed once per event, when the event is read and its bucket
 * prefetched. */

/* The bucket where a probe for hash starts. */
static inline size_t heap_map_home(const struct summary_heap_map *heap, uint64_t hash)
{
  return (size_t)(((hash & UINT32_MAX) * (uint64_t)heap->bucket_count) >> 32);
}

/* The class of a block: which of its buckets' overflow counts it goes by. */
static inline unsigned heap_map_class(uint64_t hash)
{
  return (unsigned)(hash >> 32) & (SUMMARY_HEAP_MAP_BUCKET_BLOCKS - 1);
}

static inline size_t heap_map_next(const struct summary_heap_map *heap, size_t b)
{
  return b + 1 == heap->bucket_count ? 0 : b + 1;
}

static inline uint64_t heap_map_overflow(const struct summary_heap_bucket *bucket, unsigned class)
{
  return bucket->blocks[class].packed >> SUMMARY_HEAP_MAP_OVERFLOW_SHIFT;
}

static inline void heap_map_overflow_add(struct summary_heap_bucket *bucket, unsigned class)
{
  if (heap_map_overflow(bucket, class) != SUMMARY_HEAP_MAP_OVERFLOW_STUCK)
    bucket->blocks[class].packed += SUMMARY_HEAP_MAP_OVERFLOW_ONE;
}

static inline void heap_map_overflow_remove(struct summary_heap_bucket *bucket, unsigned class)
{
  if (heap_map_overflow(bucket, class) != SUMMARY_HEAP_MAP_OVERFLOW_STUCK)
    bucket->blocks[class].packed -= SUMMARY_HEAP_MAP_OVERFLOW_ONE;
}

/* The size field of a block's packed (SUMMARY_HEAP_MAP_SIZE_ESCAPE: in the
 * oversize list). */
static inline uint64_t heap_map_packed_size(uint64_t packed)
{
  return (packed & ~SUMMARY_HEAP_MAP_OVERFLOW_MASK) >> SUMMARY_HEAP_MAP_VERSION_BITS;
}

/* Writes a block (packed without an overflow count) into slot, keeping the
 * slot's overflow count. */
static inline void heap_map_slot_set(struct summary_heap_block *slot, uint64_t address, uint64_t packed)
{
  slot->address = address;
  slot->packed = (slot->packed & SUMMARY_HEAP_MAP_OVERFLOW_MASK) | packed;
}

/* The block holding address (not 0), or NULL; *bucket_index: its bucket. */
struct summary_heap_block *summary_heap_map_find(const struct summary_heap_map *heap, uint64_t address, uint64_t hash,
                                                 size_t *bucket_index);

/* Places a block known to be absent: in the first bucket from its home with
 * room, counting it as overflow in every full bucket passed. Returns the
 * slot. */
struct summary_heap_block *summary_heap_map_place(struct summary_heap_map *heap, uint64_t hash, uint64_t address,
                                                  uint64_t packed);

/* Grows the table (doubles it, or by a quarter when dense). Returns 0, or -1 when out of memory. */
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
  __builtin_prefetch(&heap->buckets[heap_map_home(heap, hash)]);
}

/* Bit k set when block k of bucket holds address; for address 0, when it
 * is free. Computed without branches, since which slot holds a block is
 * random and would be mispredicted. The portable twin of
 * heap_map_bucket_match (tests compare the two). */
static inline unsigned heap_map_bucket_match_portable(const struct summary_heap_bucket *bucket, uint64_t address)
{
  const struct summary_heap_block *b = bucket->blocks;
  return (unsigned)(b[0].address == address) | (unsigned)(b[1].address == address) << 1 |
         (unsigned)(b[2].address == address) << 2 | (unsigned)(b[3].address == address) << 3;
}

#if defined(__SSE2__)
/* The four addresses of a bucket, in two vectors of two. */
static inline void heap_map_bucket_addresses(const struct summary_heap_bucket *bucket, __m128i *first,
                                             __m128i *second)
{
  const __m128i *blocks = (const __m128i *)bucket->blocks;  /* (address, packed) each */
  *first = _mm_unpacklo_epi64(_mm_load_si128(&blocks[0]), _mm_load_si128(&blocks[1]));
  *second = _mm_unpacklo_epi64(_mm_load_si128(&blocks[2]), _mm_load_si128(&blocks[3]));
}

/* Bit k set when 64-bit lane k of (first, second) equals key's: SSE2
 * compares 32-bit halves, so a lane matches when both of its halves do. */
static inline unsigned heap_map_lanes_equal(__m128i first, __m128i second, __m128i key)
{
  __m128i a = _mm_cmpeq_epi32(first, key), b = _mm_cmpeq_epi32(second, key);
  a = _mm_and_si128(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 3, 0, 1)));
  b = _mm_and_si128(b, _mm_shuffle_epi32(b, _MM_SHUFFLE(2, 3, 0, 1)));
  return (unsigned)_mm_movemask_pd(_mm_castsi128_pd(a)) |
         (unsigned)_mm_movemask_pd(_mm_castsi128_pd(b)) << 2;
}
#endif

/* As heap_map_bucket_match_portable, in a few vector instructions where
 * SSE2 is there (every x86-64): it runs once or twice per event. */
static inline unsigned heap_map_bucket_match(const struct summary_heap_bucket *bucket, uint64_t address)
{
#if defined(__SSE2__)
  __m128i first, second;
  heap_map_bucket_addresses(bucket, &first, &second);
  return heap_map_lanes_equal(first, second, _mm_set1_epi64x((long long)address));
#else
  return heap_map_bucket_match_portable(bucket, address);
#endif
}

/* heap_map_bucket_match for address, and for 0 into *free_mask (the free
 * blocks), from one reading of the bucket: what a put needs. */
static inline unsigned heap_map_bucket_match_and_free(const struct summary_heap_bucket *bucket, uint64_t address,
                                                      unsigned *free_mask)
{
#if defined(__SSE2__)
  __m128i first, second;
  heap_map_bucket_addresses(bucket, &first, &second);
  *free_mask = heap_map_lanes_equal(first, second, _mm_setzero_si128());
  return heap_map_lanes_equal(first, second, _mm_set1_epi64x((long long)address));
#else
  *free_mask = heap_map_bucket_match_portable(bucket, 0);
  return heap_map_bucket_match_portable(bucket, address);
#endif
}
_Static_assert(SUMMARY_HEAP_MAP_BUCKET_BLOCKS == 4 && sizeof(struct summary_heap_block) == 16,
               "heap_map_bucket_match tests four blocks of two words");

/* Empties the slot of block, found in bucket b, on the chain from home (of
 * class); returns its size and version. */
static inline void heap_map_remove(struct summary_heap_map *heap, unsigned class, size_t home, size_t b,
                                   struct summary_heap_block *block, uint64_t *size, uint32_t *version)
{
  *version = (uint32_t)(block->packed & SUMMARY_HEAP_MAP_VERSION_LIMIT) - 1;
  *size = heap_map_packed_size(block->packed);
  if (__builtin_expect(*size == SUMMARY_HEAP_MAP_SIZE_ESCAPE, 0))
    *size = heap_map_oversize_take(heap, block->address);
  heap_map_slot_set(block, 0, 0);
  heap->count--;
  /* It overflowed every bucket from its home to here. */
  for (; home != b; home = heap_map_next(heap, home))
    heap_map_overflow_remove(&heap->buckets[home], class);
}

/* heap_map_put past the home bucket: the address, or a free slot for it,
 * along the chain of buckets its class overflowed. */
int summary_heap_map_put_chain(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t packed);

/* heap_map_take past the home bucket. */
int summary_heap_map_take_chain(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
                                uint32_t *version);

/* Maps address to (size, version), replacing what was there (as the parser
 * does). Inlined into the feeding loop, as it runs for every alloc and
 * realloc: the home bucket only (it holds the address, or has room and no
 * block of the address's class went on past it: mostly); the rest out of
 * line. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
heap_map_put(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t size,
             uint32_t version)
{
  if (__builtin_expect(heap->count >= heap->limit, 0) && summary_heap_map_grow(heap))
    return -1;
  if (__builtin_expect(size >= SUMMARY_HEAP_MAP_SIZE_ESCAPE || address == 0, 0))
    return summary_heap_map_put_slow(heap, address, hash, size, version);
  uint64_t packed = size << SUMMARY_HEAP_MAP_VERSION_BITS | (version + 1);
  struct summary_heap_bucket *bucket = &heap->buckets[heap_map_home(heap, hash)];
  unsigned free_mask;
  unsigned match = heap_map_bucket_match_and_free(bucket, address, &free_mask);
  if (__builtin_expect(free_mask != 0 && !heap_map_overflow(bucket, heap_map_class(hash)) && !match, 1)) {
    heap_map_slot_set(&bucket->blocks[__builtin_ctz(free_mask)], address, packed);
    heap->count++;
    return 0;
  }
  return summary_heap_map_put_chain(heap, address, hash, packed);
}

/* Removes address; returns 1 and its size and version if it was mapped.
 * Inlined into the feeding loop, as it runs for every realloc and free:
 * the home bucket only; the rest out of line. */
static inline __attribute__((always_inline)) int
heap_map_take(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
              uint32_t *version)
{
  if (__builtin_expect(address == 0, 0))
    return summary_heap_map_take_slow(heap, address, hash, size, version);
  size_t home = heap_map_home(heap, hash);
  struct summary_heap_bucket *bucket = &heap->buckets[home];
  unsigned match = heap_map_bucket_match(bucket, address);
  if (__builtin_expect(match != 0, 1)) {
    heap_map_remove(heap, 0, home, home, &bucket->blocks[__builtin_ctz(match)], size, version);
    return 1;
  }
  return summary_heap_map_take_chain(heap, address, hash, size, version);
}

#endif
