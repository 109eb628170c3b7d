/* collector/addr_map.c: open-addressing 64-bit map on mmap storage (see addr_map.h). */
#include "collector/addr_map.h"

#include <string.h>
#include <sys/mman.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static size_t slot_of(const struct addr_map *map, uint64_t key)
{
  return (size_t)XXH3_64bits(&key, sizeof key) & map->mask;
}

static struct addr_map_slot *map_alloc(size_t slots)
{
  void *p = mmap(NULL, slots * sizeof(struct addr_map_slot), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void map_release(struct addr_map_slot *slots, size_t count)
{
  if (slots)
    munmap(slots, count * sizeof(struct addr_map_slot));
}

int addr_map_init(struct addr_map *map, size_t initial_slots)
{
  size_t n = 16;
  while (n < initial_slots)
    n <<= 1;
  memset(map, 0, sizeof *map);
  map->slots = map_alloc(n);
  if (!map->slots)
    return -1;
  map->mask = n - 1;
  map->initial = n;
  return 0;
}

void addr_map_free(struct addr_map *map)
{
  map_release(map->slots, map->mask + 1);
  memset(map, 0, sizeof *map);
}

int addr_map_clear(struct addr_map *map)
{
  if (!map->slots)
    return -1;
  if (map->mask + 1 > map->initial) {
    struct addr_map_slot *fresh = map_alloc(map->initial);
    if (fresh) {
      map_release(map->slots, map->mask + 1);
      map->slots = fresh;
      map->mask = map->initial - 1;
      map->count = 0;
      return 0;
    }
  }
  memset(map->slots, 0, (map->mask + 1) * sizeof(struct addr_map_slot));
  map->count = 0;
  return 0;
}

uint64_t *addr_map_find(const struct addr_map *map, uint64_t key)
{
  if (!map->slots)
    return NULL;
  for (size_t i = slot_of(map, key);; i = (i + 1) & map->mask) {
    struct addr_map_slot *s = &map->slots[i];
    if (s->key == key)
      return &s->value;
    if (s->key == 0)
      return NULL;
  }
}

static void insert_fresh(struct addr_map *map, uint64_t key, uint64_t value)
{
  size_t i = slot_of(map, key);
  while (map->slots[i].key != 0)
    i = (i + 1) & map->mask;
  map->slots[i].key = key;
  map->slots[i].value = value;
  map->count++;
}

static int grow(struct addr_map *map)
{
  size_t old_n = map->mask + 1;
  struct addr_map_slot *old = map->slots;
  struct addr_map_slot *fresh = map_alloc(old_n * 2);
  if (!fresh)
    return -1;
  map->slots = fresh;
  map->mask = old_n * 2 - 1;
  map->count = 0;
  for (size_t i = 0; i < old_n; i++)
    if (old[i].key != 0)
      insert_fresh(map, old[i].key, old[i].value);
  map_release(old, old_n);
  return 0;
}

int addr_map_put(struct addr_map *map, uint64_t key, uint64_t value)
{
  uint64_t *v = addr_map_find(map, key);
  if (v) {
    *v = value;
    return 0;
  }
  if (!map->slots || key == 0)
    return -1;
  if ((map->count + 1) * 2 > map->mask + 1 && grow(map) != 0)
    return -1;
  insert_fresh(map, key, value);
  return 0;
}

int addr_map_remove(struct addr_map *map, uint64_t key)
{
  if (!map->slots || key == 0)
    return 0;
  size_t i = slot_of(map, key);
  while (map->slots[i].key != key) {
    if (map->slots[i].key == 0)
      return 0;
    i = (i + 1) & map->mask;
  }
  /* Backward-shift deletion: move later members of the probe run into the hole. */
  size_t hole = i;
  for (size_t j = (i + 1) & map->mask; map->slots[j].key != 0; j = (j + 1) & map->mask) {
    size_t home = slot_of(map, map->slots[j].key);
    /* j may move to the hole unless its home lies cyclically in (hole, j]. */
    int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      map->slots[hole] = map->slots[j];
      hole = j;
    }
  }
  map->slots[hole].key = 0;
  map->slots[hole].value = 0;
  map->count--;
  return 1;
}
