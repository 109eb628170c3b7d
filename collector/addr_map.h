/* collector/addr_map.h: an open-addressing map from 64-bit keys to 64-bit values, mmap-backed. */
#ifndef LJLEAK_COLLECTOR_ADDR_MAP_H
#define LJLEAK_COLLECTOR_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Keyed slots (container/keyed_slots.h): linear probing on XXH3 of the key,
 * backward-shift deletion, load <= 1/2.
 * Storage comes from mmap, never from a Lua allocator, so the allocator hook
 * can use it. Key 0 marks an empty slot and cannot be stored. */
struct addr_map_slot {
  uint64_t key;
  uint64_t value;
};

struct addr_map {
  struct addr_map_slot *slots;
  size_t mask;            /* slot count - 1 (a power of two minus one) */
  size_t count;
  size_t initial;         /* slot count to start with and to shrink back to */
};

/* Returns 0, or -1 when mmap fails. */
int coll_addr_map_init(struct addr_map *map, size_t initial_slots);
void coll_addr_map_free(struct addr_map *map);

/* Empties the map (keeps at most the initial storage). */
int coll_addr_map_clear(struct addr_map *map);

/* The value stored for key, or NULL. Key 0 is found in an empty slot, with
 * the value 0: a caller's key 0 (a NULL C function) counts as known, naming
 * nothing. */
uint64_t *coll_addr_map_find(const struct addr_map *map, uint64_t key);

/* Stores value for key (replacing); returns 0, or -1 when growing failed. */
int coll_addr_map_put(struct addr_map *map, uint64_t key, uint64_t value);

/* Removes key; returns 1 if it was there, 0 if not. */
int coll_addr_map_remove(struct addr_map *map, uint64_t key);

#endif
