/* collector/addr_map.c: a 64-bit map of keyed slots (container/keyed_slots.h) on mmap storage. */
#include "collector/addr_map.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "container/keyed_slots.h"

_Static_assert(sizeof(struct addr_map_slot) == KEYED_SLOTS_SIZE && offsetof(struct addr_map_slot, key) == 0,
               "a map's slot is a keyed slot (container/keyed_slots.h)");

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

int coll_addr_map_init(struct addr_map *map, size_t initial_slots)
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

void coll_addr_map_free(struct addr_map *map)
{
  map_release(map->slots, map->mask + 1);
  memset(map, 0, sizeof *map);
}

int coll_addr_map_clear(struct addr_map *map)
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

/* The slot of key (*found 1), or the empty slot where it would go (key 0:
 * found in an empty one). */
static struct addr_map_slot *slot_of(const struct addr_map *map, uint64_t key, int *found)
{
  return &map->slots[keyed_slots_probe(map->slots, map->mask, key, keyed_slots_hash(key), found)];
}

uint64_t *coll_addr_map_find(const struct addr_map *map, uint64_t key)
{
  if (!map->slots)
    return NULL;
  int found;
  struct addr_map_slot *s = slot_of(map, key, &found);
  return found ? &s->value : NULL;
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
  keyed_slots_move(fresh, map->mask, old, old_n - 1);
  map_release(old, old_n);
  return 0;
}

int coll_addr_map_put(struct addr_map *map, uint64_t key, uint64_t value)
{
  if (!map->slots || key == 0)
    return -1;
  int found;
  struct addr_map_slot *s = slot_of(map, key, &found);
  if (!found) {
    if ((map->count + 1) * 2 > map->mask + 1) {
      if (grow(map) != 0)
        return -1;
      s = slot_of(map, key, &found);
    }
    s->key = key;
    map->count++;
  }
  s->value = value;
  return 0;
}

int coll_addr_map_remove(struct addr_map *map, uint64_t key)
{
  if (!map->slots || key == 0)
    return 0;
  int found;
  struct addr_map_slot *s = slot_of(map, key, &found);
  if (!found)
    return 0;
  keyed_slots_remove(map->slots, map->mask, (size_t)(s - map->slots));
  map->count--;
  return 1;
}
