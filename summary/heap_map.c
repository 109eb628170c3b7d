/* summary/heap_map.c: the heap map's set-up, growth and rare paths; the hot paths are inline in heap_map.h. */
#include "summary/heap_map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "container/array.h"
#include "summary/hash.h"
#include "summary/id.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define HEAP_MAP_INITIAL_BUCKETS 128

static int heap_map_is_dense(const struct summary_heap_map *heap, size_t bucket_count)
{
  return bucket_count * sizeof(struct summary_heap_bucket) >= heap->dense_from;
}

static size_t round_up(size_t bytes, size_t unit)
{
  return (bytes + unit - 1) / unit * unit;
}

static void heap_map_set_count(struct summary_heap_map *heap, size_t bucket_count)
{
  heap->bucket_count = bucket_count;
  size_t slots = bucket_count * SUMMARY_HEAP_MAP_BUCKET_BLOCKS;
  heap->limit = heap_map_is_dense(heap, bucket_count) ? slots / 4 * 3 : slots / 2;
  if (!heap->limit)
    heap->limit = 1;
}

/* Reserves a range of address space for a table of at least bytes: heap's
 * reserve if the system lets it, less if not, never less than bytes. The
 * range starts on a huge-page boundary and nothing in it can be touched
 * yet (heap_map_make_usable). Returns 0, or -1. */
static int heap_map_reserve(struct summary_heap_map *heap, size_t bytes)
{
  size_t room = heap->reserve > bytes ? heap->reserve : bytes;
  room = round_up(room, (size_t)sysconf(_SC_PAGESIZE));
  for (;;) {
    size_t total = room + HUGE_PAGE;  /* room for the alignment */
    void *range = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range != MAP_FAILED) {
      heap->range = range;
      heap->range_bytes = total;
      heap->buckets = (struct summary_heap_bucket *)(((uintptr_t)range + HUGE_PAGE - 1) &
                                                     ~(uintptr_t)(HUGE_PAGE - 1));
      heap->room = room;
      heap->usable = 0;
      return 0;
    }
    if (room / 2 < bytes)
      return -1;
    room = round_up(room / 2, (size_t)sysconf(_SC_PAGESIZE));
  }
}

/* Makes the first bytes of the range readable and writable (fresh pages
 * read as zeros: empty buckets), in whole huge pages, which it asks for:
 * the first 2 MiB of a table that grows past them would stay on small
 * pages otherwise. Returns 0, or -1. */
static int heap_map_make_usable(struct summary_heap_map *heap, size_t bytes)
{
  if (bytes <= heap->usable)
    return 0;
  size_t usable = round_up(bytes, HUGE_PAGE);
  if (usable > heap->room)
    usable = heap->room;
  if (mprotect((char *)heap->buckets + heap->usable, usable - heap->usable, PROT_READ | PROT_WRITE))
    return -1;
#ifdef MADV_HUGEPAGE
  (void)madvise(heap->buckets, usable, MADV_HUGEPAGE);  /* only advice: fine if refused */
#endif
  heap->usable = usable;
  return 0;
}

int summary_heap_map_init_tuned(struct summary_heap_map *heap, size_t reserve, size_t dense_from)
{
  memset(heap, 0, sizeof *heap);
  heap->reserve = reserve;
  heap->dense_from = dense_from;
  size_t bytes = HEAP_MAP_INITIAL_BUCKETS * sizeof(struct summary_heap_bucket);
  if (heap_map_reserve(heap, bytes))
    return -1;
  if (heap_map_make_usable(heap, bytes)) {
    summary_heap_map_release(heap);
    return -1;
  }
  heap_map_set_count(heap, HEAP_MAP_INITIAL_BUCKETS);
  return 0;
}

int summary_heap_map_init(struct summary_heap_map *heap)
{
  return summary_heap_map_init_tuned(heap, SUMMARY_HEAP_MAP_RESERVE, SUMMARY_HEAP_MAP_DENSE_FROM);
}

void summary_heap_map_release(struct summary_heap_map *heap)
{
  if (heap->range)
    (void)munmap(heap->range, heap->range_bytes);
  free(heap->oversize);
  memset(heap, 0, sizeof *heap);
}

size_t summary_heap_map_count(const struct summary_heap_map *heap)
{
  return heap->count + (size_t)heap->zero.present;
}

size_t summary_heap_map_table_bytes(const struct summary_heap_map *heap)
{
  return heap->bucket_count * sizeof(struct summary_heap_bucket);
}

struct summary_heap_block *summary_heap_map_find(const struct summary_heap_map *heap, uint64_t address, uint64_t hash,
                                                 size_t *bucket_index)
{
  unsigned class = heap_map_class(hash);
  size_t b = heap_map_home(heap, hash);
  for (size_t left = heap->bucket_count; left; left--) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    unsigned match = heap_map_bucket_match(bucket, address);
    if (match) {
      *bucket_index = b;
      return &bucket->blocks[__builtin_ctz(match)];
    }
    if (!heap_map_overflow(bucket, class))
      break;
    b = heap_map_next(heap, b);
  }
  return NULL;
}

struct summary_heap_block *summary_heap_map_place(struct summary_heap_map *heap, uint64_t hash, uint64_t address,
                                                  uint64_t packed)
{
  unsigned class = heap_map_class(hash);
  size_t b = heap_map_home(heap, hash);
  for (;;) {  /* ends: the table is never full */
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    unsigned free_mask = heap_map_bucket_match(bucket, 0);
    if (free_mask) {
      struct summary_heap_block *slot = &bucket->blocks[__builtin_ctz(free_mask)];
      heap_map_slot_set(slot, address, packed);
      return slot;
    }
    heap_map_overflow_add(bucket, class);
    b = heap_map_next(heap, b);
  }
}

/* Rehashes the table in place after its bucket count grew from old_count:
 * every overflow count is cleared, then each block is taken out and placed
 * again from its new home, the buckets walked from the last down. A home
 * only moves up as the count grows, so a block placed again mostly lands
 * in buckets already walked, among blocks already placed, and the counts it
 * adds are exact. The few that land lower (homes near the start, chains
 * that wrap) are marked, not to be placed twice; the buckets they pass may
 * be full of blocks still to move, which leaves a count too high: a lookup
 * then goes one bucket further than it needs, never stops short. */
static int heap_map_rehash(struct summary_heap_map *heap, size_t old_count)
{
  size_t slots = heap->bucket_count * SUMMARY_HEAP_MAP_BUCKET_BLOCKS;
  uint64_t *placed = calloc((slots + 63) / 64, sizeof *placed);
  if (!placed)
    return -1;
  for (size_t i = 0; i < old_count; i++)
    for (unsigned k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++)
      heap->buckets[i].blocks[k].packed &= ~SUMMARY_HEAP_MAP_OVERFLOW_MASK;
  for (size_t i = old_count; i-- > 0;)
    for (unsigned k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++) {
      size_t at = i * SUMMARY_HEAP_MAP_BUCKET_BLOCKS + k;
      struct summary_heap_block *slot = &heap->buckets[i].blocks[k];
      uint64_t address = slot->address;
      if (!address || placed[at / 64] >> (at % 64) & 1)
        continue;
      uint64_t packed = slot->packed & ~SUMMARY_HEAP_MAP_OVERFLOW_MASK;
      heap_map_slot_set(slot, 0, 0);
      struct summary_heap_block *to = summary_heap_map_place(heap, hash_u64(address), address, packed);
      size_t to_at = (size_t)(to - &heap->buckets[0].blocks[0]);
      placed[to_at / 64] |= UINT64_C(1) << (to_at % 64);
    }
  free(placed);
  return 0;
}

/* Moves the table to a new range of at least bytes, which holds it and its
 * growths after it: the system let too little be reserved at once. */
static int heap_map_move(struct summary_heap_map *heap, size_t count)
{
  struct summary_heap_map old = *heap;
  size_t bytes = count * sizeof(struct summary_heap_bucket);
  heap->reserve = 4 * bytes > old.reserve ? 4 * bytes : old.reserve;
  if (heap_map_reserve(heap, bytes))
    goto fail;
  if (heap_map_make_usable(heap, bytes)) {
    (void)munmap(heap->range, heap->range_bytes);
    goto fail;
  }
  heap->reserve = old.reserve;
  heap_map_set_count(heap, count);
  for (size_t i = 0; i < old.bucket_count; i++)
    for (unsigned k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++) {
      const struct summary_heap_block *block = &old.buckets[i].blocks[k];
      if (block->address)
        summary_heap_map_place(heap, hash_u64(block->address), block->address,
                               block->packed & ~SUMMARY_HEAP_MAP_OVERFLOW_MASK);
    }
  (void)munmap(old.range, old.range_bytes);
  return 0;
fail:
  *heap = old;
  return -1;
}

int summary_heap_map_grow(struct summary_heap_map *heap)
{
  size_t old_count = heap->bucket_count;
  size_t count = heap_map_is_dense(heap, old_count) ? old_count + old_count / 4 : 2 * old_count;
  size_t bytes = count * sizeof(struct summary_heap_bucket);
  if (bytes > heap->room)
    return heap_map_move(heap, count);
  if (heap_map_make_usable(heap, bytes))
    return -1;
  heap_map_set_count(heap, count);
  if (heap_map_rehash(heap, old_count)) {
    heap_map_set_count(heap, old_count);
    return -1;
  }
  return 0;
}

int summary_heap_map_put_chain(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t packed)
{
  unsigned class = heap_map_class(hash);
  size_t home = heap_map_home(heap, hash), b = home, free_bucket = 0;
  struct summary_heap_block *free_slot = NULL;
  for (size_t left = heap->bucket_count; left; left--) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    unsigned match = heap_map_bucket_match(bucket, address);
    if (match) {
      struct summary_heap_block *block = &bucket->blocks[__builtin_ctz(match)];
      if (heap_map_packed_size(block->packed) == SUMMARY_HEAP_MAP_SIZE_ESCAPE)
        heap_map_oversize_take(heap, address);
      heap_map_slot_set(block, address, packed);
      return 0;
    }
    unsigned free_mask = heap_map_bucket_match(bucket, 0);
    if (!free_slot && free_mask) {
      free_slot = &bucket->blocks[__builtin_ctz(free_mask)];
      free_bucket = b;
    }
    if (!heap_map_overflow(bucket, class))
      break;
    b = heap_map_next(heap, b);
  }
  heap->count++;
  if (!free_slot) {  /* every bucket on the chain is full */
    summary_heap_map_place(heap, hash, address, packed);
    return 0;
  }
  heap_map_slot_set(free_slot, address, packed);
  for (b = home; b != free_bucket; b = heap_map_next(heap, b))
    heap_map_overflow_add(&heap->buckets[b], class);
  return 0;
}

int summary_heap_map_take_chain(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
                                uint32_t *version)
{
  size_t b;
  struct summary_heap_block *found = summary_heap_map_find(heap, address, hash, &b);
  if (!found)
    return 0;
  heap_map_remove(heap, heap_map_class(hash), heap_map_home(heap, hash), b, found, size, version);
  return 1;
}

int summary_heap_map_put_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t size,
                              uint32_t version)
{
  if (address == 0) {
    heap->zero = (struct summary_heap_zero_block){1, version, size};
    return 0;
  }
  /* A size of SUMMARY_HEAP_MAP_SIZE_ESCAPE or more. */
  if (array_reserve((void **)&heap->oversize, &heap->oversize_capacity, heap->oversize_count + 1,
                       sizeof *heap->oversize))
    return -1;
  size_t b;
  struct summary_heap_block *found = summary_heap_map_find(heap, address, hash, &b);
  if (found && heap_map_packed_size(found->packed) == SUMMARY_HEAP_MAP_SIZE_ESCAPE)
    heap_map_oversize_take(heap, address);
  heap->oversize[heap->oversize_count++] = (struct summary_heap_oversize_block){address, size};
  uint64_t packed = SUMMARY_HEAP_MAP_SIZE_ESCAPE << SUMMARY_HEAP_MAP_VERSION_BITS | (version + 1);
  if (found) {
    heap_map_slot_set(found, address, packed);
    return 0;
  }
  summary_heap_map_place(heap, hash, address, packed);
  heap->count++;
  return 0;
}

int summary_heap_map_take_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
                               uint32_t *version)
{
  (void)address;  /* 0: the only address that comes here */
  (void)hash;
  if (!heap->zero.present)
    return 0;
  *size = heap->zero.size;
  *version = heap->zero.version;
  heap->zero.present = 0;
  return 1;
}
