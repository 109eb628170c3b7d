/* diff/live_map.c: the live map: slots on the heap (linear probing, backward-shift deletion, growth in place), and the sizes too big for a slot. */
#include "diff/live_map.h"

#include <stdlib.h>
#include <string.h>

#include "container/array.h"

#define LIVE_MAP_INITIAL_SLOTS 1024
/* The size from which the map grows by a quarter, not by doubling. */
#define LIVE_MAP_DENSE_FROM ((size_t)16 << 20)

int diff_live_map_init(struct diff_live_map *map)
{
  map->slots = calloc(LIVE_MAP_INITIAL_SLOTS, sizeof *map->slots);
  map->slot_count = LIVE_MAP_INITIAL_SLOTS;
  map->limit = LIVE_MAP_INITIAL_SLOTS / 2;
  map->count = 0;
  map->big = NULL;
  map->big_count = map->big_capacity = 0;
  return map->slots ? 0 : -1;
}

void diff_live_map_release(struct diff_live_map *map)
{
  free(map->slots);
  free(map->big);
  map->slots = NULL;
  map->slot_count = 0;
  map->limit = 0;
  map->count = 0;
  map->big = NULL;
  map->big_count = map->big_capacity = 0;
}

void diff_live_map_clear(struct diff_live_map *map)
{
  if (map->count)
    memset(map->slots, 0, map->slot_count * sizeof *map->slots);
  map->count = 0;
  map->big_count = 0;
}

static size_t live_map_big_find(const struct diff_live_map *map, uint64_t address)
{
  size_t i = 0;
  while (i < map->big_count && map->big[i].address != address)
    i++;
  return i;
}

uint64_t diff_live_map_big_size(const struct diff_live_map *map, uint64_t address)
{
  size_t i = live_map_big_find(map, address);
  return i < map->big_count ? map->big[i].size : DIFF_LIVE_MAP_BIG_SIZE;
}

/* Drops the big size kept for address, if any. */
static void live_map_big_forget(struct diff_live_map *map, uint64_t address)
{
  size_t i = live_map_big_find(map, address);
  if (i < map->big_count)
    map->big[i] = map->big[--map->big_count];
}

int diff_live_map_set_big_size(struct diff_live_map *map, struct diff_live_block *block, uint64_t size)
{
  if (block->size == DIFF_LIVE_MAP_BIG_SIZE)
    live_map_big_forget(map, block->address);
  if (size < DIFF_LIVE_MAP_BIG_SIZE) {
    block->size = (uint32_t)size;
    return 0;
  }
  if (array_reserve((void **)&map->big, &map->big_capacity, map->big_count + 1, sizeof *map->big) != 0) {
    block->size = 0;
    return -1;
  }
  map->big[map->big_count].address = block->address;
  map->big[map->big_count].size = size;
  map->big_count++;
  block->size = DIFF_LIVE_MAP_BIG_SIZE;
  return 0;
}

struct diff_live_block *diff_live_map_find(const struct diff_live_map *map, uint64_t address)
{
  return live_map_find_hashed(map, address, live_map_hash(address));
}

/* Blocks lifted out of the slots while they grow. */
struct live_map_lifted {
  struct diff_live_block *blocks;
  size_t count, capacity;
};

/* Moves n blocks from slots (emptied) to the end of lifted. */
static int live_map_lift(struct live_map_lifted *lifted, struct diff_live_block *slots, size_t n)
{
  if (!n)
    return 0;  /* and no copy to a list not made yet */
  if (array_reserve((void **)&lifted->blocks, &lifted->capacity, lifted->count + n, sizeof *lifted->blocks) != 0)
    return -1;
  memcpy(lifted->blocks + lifted->count, slots, n * sizeof *slots);
  memset(slots, 0, n * sizeof *slots);
  lifted->count += n;
  return 0;
}

/* Puts every block in its place after the slots grew in place from
 * old_count (the old blocks below it, the new slots empty), with no second
 * array: so that growing a map costs no more memory than the map. A home
 * only moves up as the count grows. The run of blocks at slot 0 (it may
 * hold blocks that wrapped around the old end) is lifted out first; then
 * the other runs, from the top down, each lifted out whole and its blocks
 * placed from their new homes: a block's new home is at or above its old
 * one, which is in its run, so it lands in its run's emptied slots or among
 * blocks already placed, and no slot on its probe is emptied later (only
 * runs below it are). A block that would wrap around the new end onto slots
 * not yet taken in turn waits with the run of slot 0, and they are placed
 * last. Returns -1 when out of memory (a lifted list). */
static int live_map_rehash_grown(struct diff_live_map *map, size_t old_count)
{
  struct diff_live_block *slots = map->slots;
  struct live_map_lifted last = {NULL, 0, 0}, run = {NULL, 0, 0};
  size_t low = 0;
  while (slots[low].address)  /* ends: the old slots were at most 3/4 full */
    low++;
  int failed = live_map_lift(&last, slots, low);
  size_t count = map->slot_count;
  for (size_t end = old_count; !failed && end > low;) {
    if (!slots[end - 1].address) {
      end--;
      continue;
    }
    size_t start = end - 1;
    while (slots[start - 1].address)  /* ends: slot low is empty */
      start--;
    run.count = 0;
    failed = live_map_lift(&run, &slots[start], end - start);
    for (size_t i = 0; !failed && i < run.count; i++) {
      size_t j = live_map_home(map, keyed_slots_hash(run.blocks[i].address));
      while (j < count && slots[j].address)
        j++;
      if (j < count)
        slots[j] = run.blocks[i];
      else
        failed = live_map_lift(&last, &run.blocks[i], 1);
    }
    end = start;
  }
  for (size_t i = 0; !failed && i < last.count; i++) {  /* every run is placed: wrapping is safe now */
    size_t j = live_map_home(map, keyed_slots_hash(last.blocks[i].address));
    while (slots[j].address)
      j = live_map_next(map, j);
    slots[j] = last.blocks[i];
  }
  free(last.blocks);
  free(run.blocks);
  return failed ? -1 : 0;
}

/* Grows the slots once the load passes 1/2 up to 16 MiB, doubling them, where
 * memory matters little and a probe rarely leaves its home (at 3/4, a probe
 * for an absent address, most of a segment's, read 8 slots on average and
 * cost the diff an eighth of its time); from 16 MiB, once it passes 3/4, by
 * a quarter, so that a big map holds 21 to 27 bytes a block whatever its
 * count (doubled: 21 to 43). In place (realloc extends
 * a large array by remapping it), so that a map of N blocks never needs its
 * old and its new array at once. */
int diff_live_map_grow(struct diff_live_map *map)
{
  size_t old_count = map->slot_count;
  size_t count = old_count * sizeof *map->slots < LIVE_MAP_DENSE_FROM ? 2 * old_count : old_count + old_count / 4;
  if (count > UINT32_MAX)
    return -1;
  struct diff_live_block *slots = realloc(map->slots, count * sizeof *slots);
  if (!slots)
    return -1;
  memset(slots + old_count, 0, (count - old_count) * sizeof *slots);
  map->slots = slots;
  map->slot_count = count;
  map->limit = count * sizeof *slots < LIVE_MAP_DENSE_FROM ? count / 2 : count / 4 * 3;
  return live_map_rehash_grown(map, old_count);
}

struct diff_live_block *diff_live_map_insert(struct diff_live_map *map, uint64_t address, int *created)
{
  return live_map_insert_hashed(map, address, live_map_hash(address), created);
}


int diff_live_map_remove(struct diff_live_map *map, uint64_t address, struct diff_live_block *removed,
                    uint64_t *removed_size)
{
  struct diff_live_block *slot = diff_live_map_find(map, address);
  if (!slot)
    return 0;
  if (removed)
    *removed = *slot;
  if (removed_size)
    *removed_size = live_map_size(map, slot);
  diff_live_map_remove_slot(map, slot);
  return 1;
}

/* Backward shift: later members of the slot's probe run move into the hole
 * when their home lies at or before it (cyclically), so that a lookup never
 * stops early at a hole and churn never degrades the map. */
void diff_live_map_remove_slot(struct diff_live_map *map, struct diff_live_block *slot)
{
  if (slot->size == DIFF_LIVE_MAP_BIG_SIZE)
    live_map_big_forget(map, slot->address);
  size_t n = map->slot_count, hole = (size_t)(slot - map->slots);
  for (size_t i = live_map_next(map, hole);; i = live_map_next(map, i)) {
    uint64_t key = map->slots[i].address;
    if (!key)
      break;
    size_t home = live_map_home(map, keyed_slots_hash(key));
    size_t from_home = i >= home ? i - home : i + n - home, from_hole = i >= hole ? i - hole : i + n - hole;
    if (from_home >= from_hole) {
      map->slots[hole] = map->slots[i];
      hole = i;
    }
  }
  memset(&map->slots[hole], 0, sizeof map->slots[hole]);
  map->count--;
}

/* Scans from an empty slot once around: a removal shifts later members of
 * the same run back, never past that empty slot, so the slot just emptied
 * is looked at again and no member is skipped. */
void diff_live_map_remove_dead(struct diff_live_map *map)
{
  if (!map->count)
    return;
  size_t start = 0;
  while (map->slots[start].address)
    start++;  /* there is one: the map is at most 3/4 full */
  for (size_t n = 1; n < map->slot_count;) {
    size_t at = start + n;
    struct diff_live_block *slot = &map->slots[at < map->slot_count ? at : at - map->slot_count];
    if (slot->address && slot->site == DIFF_LIVE_MAP_DEAD)
      diff_live_map_remove_slot(map, slot);
    else
      n++;
  }
}
