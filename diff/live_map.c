/* diff/live_map.c: the live map: linear probing with backward-shift deletion, so churn never degrades it. */
#include "diff/live_map.h"

#include <stdlib.h>
#include <string.h>

#define LIVE_MAP_INITIAL_SLOTS 1024

static size_t live_map_home(const struct live_map *map, uint64_t address)
{
  return live_map_hash(address) & map->mask;
}

int live_map_init(struct live_map *map)
{
  map->slots = calloc(LIVE_MAP_INITIAL_SLOTS, sizeof *map->slots);
  map->mask = LIVE_MAP_INITIAL_SLOTS - 1;
  map->count = 0;
  map->big = NULL;
  map->big_count = map->big_capacity = 0;
  return map->slots ? 0 : -1;
}

void live_map_release(struct live_map *map)
{
  free(map->slots);
  free(map->big);
  map->slots = NULL;
  map->mask = 0;
  map->count = 0;
  map->big = NULL;
  map->big_count = map->big_capacity = 0;
}

void live_map_clear(struct live_map *map)
{
  if (map->count)
    memset(map->slots, 0, (map->mask + 1) * sizeof *map->slots);
  map->count = 0;
  map->big_count = 0;
}

static size_t live_map_big_find(const struct live_map *map, uint64_t address)
{
  size_t i = 0;
  while (i < map->big_count && map->big[i].address != address)
    i++;
  return i;
}

uint64_t live_map_big_size(const struct live_map *map, uint64_t address)
{
  size_t i = live_map_big_find(map, address);
  return i < map->big_count ? map->big[i].size : LIVE_MAP_BIG_SIZE;
}

/* Drops the big size kept for address, if any. */
static void live_map_big_forget(struct live_map *map, uint64_t address)
{
  size_t i = live_map_big_find(map, address);
  if (i < map->big_count)
    map->big[i] = map->big[--map->big_count];
}

int live_map_set_big_size(struct live_map *map, struct live_block *block, uint64_t size)
{
  if (block->size == LIVE_MAP_BIG_SIZE)
    live_map_big_forget(map, block->address);
  if (size < LIVE_MAP_BIG_SIZE) {
    block->size = (uint32_t)size;
    return 0;
  }
  if (map->big_count == map->big_capacity) {
    size_t capacity = map->big_capacity ? map->big_capacity * 2 : 4;
    struct live_map_big *bigger = realloc(map->big, capacity * sizeof *bigger);
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
  block->size = LIVE_MAP_BIG_SIZE;
  return 0;
}

struct live_block *live_map_find(const struct live_map *map, uint64_t address)
{
  if (!address)
    return NULL;
  for (size_t i = live_map_home(map, address);; i = (i + 1) & map->mask) {
    struct live_block *slot = &map->slots[i];
    if (slot->address == address)
      return slot;
    if (!slot->address)
      return NULL;
  }
}

/* Doubles the slots once the load passes 1/2, keeping probe runs short. */
int live_map_grow(struct live_map *map)
{
  size_t old_size = map->mask + 1;
  struct live_block *old = map->slots;
  struct live_block *slots = calloc(old_size * 2, sizeof *slots);
  if (!slots)
    return -1;
  map->slots = slots;
  map->mask = old_size * 2 - 1;
  for (size_t i = 0; i < old_size; i++) {
    if (!old[i].address)
      continue;
    size_t j = live_map_home(map, old[i].address);
    while (slots[j].address)
      j = (j + 1) & map->mask;
    slots[j] = old[i];
  }
  free(old);
  return 0;
}

struct live_block *live_map_insert(struct live_map *map, uint64_t address, int *created)
{
  return live_map_insert_hashed(map, address, live_map_hash(address), created);
}


int live_map_remove(struct live_map *map, uint64_t address, struct live_block *removed,
                    uint64_t *removed_size)
{
  struct live_block *slot = live_map_find(map, address);
  if (!slot)
    return 0;
  if (removed)
    *removed = *slot;
  if (removed_size)
    *removed_size = live_map_size(map, slot);
  live_map_remove_slot(map, slot);
  return 1;
}

void live_map_remove_slot(struct live_map *map, struct live_block *slot)
{
  if (slot->size == LIVE_MAP_BIG_SIZE)
    live_map_big_forget(map, slot->address);
  /* Backward shift: pull later members of the probe run into the hole when
   * their home lies at or before it (cyclically), so lookups never stop early. */
  size_t hole = (size_t)(slot - map->slots);
  for (size_t i = (hole + 1) & map->mask; map->slots[i].address; i = (i + 1) & map->mask) {
    size_t home = live_map_home(map, map->slots[i].address);
    if (((i - home) & map->mask) >= ((i - hole) & map->mask)) {
      map->slots[hole] = map->slots[i];
      hole = i;
    }
  }
  map->slots[hole].address = 0;
  map->count--;
}
