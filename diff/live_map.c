/* diff/live_map.c: the live map: keyed slots (linear probing, backward-shift deletion) on the heap, and the sizes too big for a slot. */
#include "diff/live_map.h"

#include <stdlib.h>
#include <string.h>

#define LIVE_MAP_INITIAL_SLOTS 1024

int diff_live_map_init(struct diff_live_map *map)
{
  map->slots = calloc(LIVE_MAP_INITIAL_SLOTS, sizeof *map->slots);
  map->mask = LIVE_MAP_INITIAL_SLOTS - 1;
  map->limit = LIVE_MAP_INITIAL_SLOTS / 4 * 3;
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
  map->mask = 0;
  map->limit = 0;
  map->count = 0;
  map->big = NULL;
  map->big_count = map->big_capacity = 0;
}

void diff_live_map_clear(struct diff_live_map *map)
{
  if (map->count)
    memset(map->slots, 0, (map->mask + 1) * sizeof *map->slots);
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
  if (map->big_count == map->big_capacity) {
    size_t capacity = map->big_capacity ? map->big_capacity * 2 : 4;
    struct diff_live_map_big *bigger = realloc(map->big, capacity * sizeof *bigger);
    if (!bigger) {
      block->size = 0;
      return -1;
    }
    map->big = bigger;
    map->big_capacity = capacity;
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

#define LIVE_MAP_STASH 64

/* Moves every block of map's slots and of a full stash into a second array
 * of the same size (the old way to grow: two arrays at once). The way out
 * of live_map_rehash_doubled when its stash overflows. */
static int live_map_rehash_copy(struct diff_live_map *map, const struct diff_live_block *stash)
{
  struct diff_live_block *slots = calloc(map->mask + 1, sizeof *slots);
  if (!slots)
    return -1;
  keyed_slots_move(slots, map->mask, map->slots, map->mask);
  keyed_slots_move(slots, map->mask, stash, LIVE_MAP_STASH - 1);
  free(map->slots);
  map->slots = slots;
  return 0;
}

/* Puts every block in its place under the new mask after the slots doubled
 * in place (the old blocks in the lower half, the upper half empty), with no
 * second array: so that growing a map costs no more memory than the map.
 * The old slots are taken in turn from one after an empty slot around, each
 * block lifted out and placed at the first empty slot from its new home.
 * A block whose home is in the lower half lands on a slot already taken in
 * turn (its old run from its home to its old slot had no empty slot, was
 * taken in turn before it, and now ends at its old slot, just emptied) or in
 * the upper half, which holds only placed blocks: no slot on its probe run
 * is emptied later. A block whose home is in the upper half stays there
 * unless the upper half is full to its end, when it would wrap onto lower
 * slots not yet taken in turn: those few wait in a stash and are placed
 * last. Returns -1 only when the stash overflows and the copy it falls back
 * to cannot be made. */
static int live_map_rehash_doubled(struct diff_live_map *map, size_t old_size)
{
  struct diff_live_block *slots = map->slots;
  struct diff_live_block stash[LIVE_MAP_STASH];
  size_t stashed = 0;
  size_t start = 0;
  while (slots[start].address)
    start++;  /* there is one: the old slots were at most 3/4 full */
  for (size_t n = 1; n < old_size; n++) {
    size_t p = (start + n) & (old_size - 1);
    if (!slots[p].address)
      continue;
    struct diff_live_block block = slots[p];
    memset(&slots[p], 0, sizeof slots[p]);
    size_t j = keyed_slots_hash(block.address) & map->mask;
    while (j <= map->mask && slots[j].address)
      j++;
    if (j <= map->mask) {
      slots[j] = block;
      continue;
    }
    if (stashed == LIVE_MAP_STASH) {  /* a long run at the very end: an unlucky or made-up stream */
      slots[p] = block;
      return live_map_rehash_copy(map, stash);
    }
    stash[stashed++] = block;
  }
  for (size_t i = 0; i < stashed; i++) {  /* every lower slot is placed: wrapping is safe now */
    size_t j = keyed_slots_hash(stash[i].address) & map->mask;
    while (slots[j].address)
      j = (j + 1) & map->mask;
    slots[j] = stash[i];
  }
  return 0;
}

/* Doubles the slots once the load passes 3/4: probe runs stay short (16-byte
 * slots, four to a cache line), and a block costs 21 to 43 bytes. In place
 * (realloc extends a large array by remapping it), so that a map of N
 * blocks never needs its old and its new array at once. */
int diff_live_map_grow(struct diff_live_map *map)
{
  size_t old_size = map->mask + 1;
  struct diff_live_block *slots = realloc(map->slots, old_size * 2 * sizeof *slots);
  if (!slots)
    return -1;
  memset(slots + old_size, 0, old_size * sizeof *slots);
  map->slots = slots;
  map->mask = old_size * 2 - 1;
  map->limit = old_size / 2 * 3;
  return live_map_rehash_doubled(map, old_size);
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

void diff_live_map_remove_slot(struct diff_live_map *map, struct diff_live_block *slot)
{
  if (slot->size == DIFF_LIVE_MAP_BIG_SIZE)
    live_map_big_forget(map, slot->address);
  keyed_slots_remove(map->slots, map->mask, (size_t)(slot - map->slots));
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
  for (size_t n = 1; n <= map->mask;) {
    struct diff_live_block *slot = &map->slots[(start + n) & map->mask];
    if (slot->address && slot->site == DIFF_LIVE_MAP_DEAD)
      diff_live_map_remove_slot(map, slot);
    else
      n++;
  }
}
