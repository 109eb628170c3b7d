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
  return map->slots ? 0 : -1;
}

void live_map_release(struct live_map *map)
{
  free(map->slots);
  map->slots = NULL;
  map->mask = 0;
  map->count = 0;
}

void live_map_clear(struct live_map *map)
{
  if (map->count)
    memset(map->slots, 0, (map->mask + 1) * sizeof *map->slots);
  map->count = 0;
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


int live_map_remove(struct live_map *map, uint64_t address, struct live_block *removed)
{
  struct live_block *slot = live_map_find(map, address);
  if (!slot)
    return 0;
  if (removed)
    *removed = *slot;
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
  return 1;
}
