/* summary/heap_map.c: the heap map's set-up, growth and rare paths; the hot paths are inline in heap_map.h. */
#include "summary/heap_map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "summary/hash.h"
#include "summary/id.h"

#define HUGE_PAGE ((size_t)2 << 20)

static struct summary_heap_bucket *heap_map_buckets_new(size_t count)
{
  /* Zeroed memory is an empty map; cache-line alignment keeps a bucket in one
   * line. A large map is probed at random, one bucket per event: on 4 KiB
   * pages nearly every probe would also miss the TLB, so it asks for huge
   * pages (sizes from 2 MiB up are whole multiples of 2 MiB). */
  size_t bytes = count * sizeof(struct summary_heap_bucket);
  int huge = bytes >= HUGE_PAGE;
  struct summary_heap_bucket *buckets = aligned_alloc(huge ? HUGE_PAGE : 64, bytes);
  if (!buckets)
    return NULL;
#ifdef MADV_HUGEPAGE
  if (huge)
    (void)madvise(buckets, bytes, MADV_HUGEPAGE);  /* only advice: fine if refused */
#endif
  memset(buckets, 0, bytes);
  return buckets;
}

int summary_heap_map_init(struct summary_heap_map *heap, size_t buckets)
{
  heap->buckets = heap_map_buckets_new(buckets);
  if (!heap->buckets)
    return -1;
  heap->mask = buckets - 1;
  heap->limit = buckets * SUMMARY_HEAP_MAP_BUCKET_BLOCKS / 2;
  heap->count = 0;
  heap->oversize = NULL;
  heap->oversize_count = heap->oversize_capacity = 0;
  return 0;
}

void summary_heap_map_release(struct summary_heap_map *heap)
{
  free(heap->buckets);
  free(heap->oversize);
}

struct summary_heap_block *summary_heap_map_find(const struct summary_heap_map *heap, uint64_t address, uint64_t hash)
{
  size_t b = hash & heap->mask;
  for (;;) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    for (int k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++)
      if (bucket->blocks[k].address == address && bucket->blocks[k].packed)
        return &bucket->blocks[k];
    if (!bucket->overflow)
      return NULL;
    b = (b + 1) & heap->mask;
  }
}

void summary_heap_map_place(struct summary_heap_map *heap, uint64_t hash, const struct summary_heap_block *block)
{
  size_t b = hash & heap->mask;
  for (;;) {
    struct summary_heap_bucket *bucket = &heap->buckets[b];
    for (int k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++)
      if (!bucket->blocks[k].packed) {
        bucket->blocks[k] = *block;
        return;
      }
    bucket->overflow++;
    b = (b + 1) & heap->mask;
  }
}

int summary_heap_map_grow(struct summary_heap_map *heap)
{
  size_t count = 2 * (heap->mask + 1);
  struct summary_heap_bucket *buckets = heap_map_buckets_new(count);
  if (!buckets)
    return -1;
  struct summary_heap_bucket *old = heap->buckets;
  size_t old_count = heap->mask + 1;
  heap->buckets = buckets;
  heap->mask = count - 1;
  heap->limit = count * SUMMARY_HEAP_MAP_BUCKET_BLOCKS / 2;
  for (size_t i = 0; i < old_count; i++)
    for (int k = 0; k < SUMMARY_HEAP_MAP_BUCKET_BLOCKS; k++)
      if (old[i].blocks[k].packed)
        summary_heap_map_place(heap, hash_u64(old[i].blocks[k].address), &old[i].blocks[k]);
  free(old);
  return 0;
}

int summary_heap_map_put_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t size,
                      uint32_t version)
{
  if (size >= SUMMARY_HEAP_MAP_SIZE_ESCAPE &&
      id_array_reserve((void **)&heap->oversize, &heap->oversize_capacity,
                       heap->oversize_count + 1, sizeof *heap->oversize))
    return -1;
  struct summary_heap_block *found = summary_heap_map_find(heap, address, hash);
  if (found && found->packed >> SUMMARY_HEAP_MAP_VERSION_BITS == SUMMARY_HEAP_MAP_SIZE_ESCAPE)
    heap_map_oversize_take(heap, address);
  if (size >= SUMMARY_HEAP_MAP_SIZE_ESCAPE) {
    heap->oversize[heap->oversize_count++] = (struct summary_heap_oversize_block){address, size};
    size = SUMMARY_HEAP_MAP_SIZE_ESCAPE;
  }
  struct summary_heap_block block = {address, size << SUMMARY_HEAP_MAP_VERSION_BITS | (version + 1)};
  if (found) {
    *found = block;
    return 0;
  }
  summary_heap_map_place(heap, hash, &block);
  heap->count++;
  return 0;
}

int summary_heap_map_take_slow(struct summary_heap_map *heap, uint64_t address, uint64_t hash, uint64_t *size,
                       uint32_t *version)
{
  struct summary_heap_block *found = summary_heap_map_find(heap, address, hash);
  if (!found)
    return 0;
  size_t b = (size_t)((const char *)found - (const char *)heap->buckets) / sizeof *heap->buckets;
  heap_map_remove(heap, hash, b, found, size, version);
  return 1;
}
