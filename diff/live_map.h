/* diff/live_map.h: address -> block (size, site), 16-byte slots, linear probing from a home scaled to any slot count, no tombstones. */
#ifndef LJLEAK_DIFF_LIVE_MAP_H
#define LJLEAK_DIFF_LIVE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "container/keyed_slots.h"

/* One block in 16 bytes, so more of a big map stays in the caches. Address
 * 0 marks an empty slot (no allocator returns it). site is the owner's to
 * use: the capture-wide map keeps the site index there; a segment's own map
 * keeps DIFF_LIVE_MAP_DEAD for an address whose block died, else the site index
 * plus DIFF_LIVE_MAP_YOUNG for a block born during the segment's final GC cycle,
 * plus the piece it counts from (DIFF_LIVE_MAP_PIECE: its number modulo 128) to
 * tell a block freed in the piece it was born in from one live at its start.
 * A size too big for 32 bits is DIFF_LIVE_MAP_BIG_SIZE, the real one kept aside
 * (read and write sizes with live_map_size and live_map_set_size). */
struct diff_live_block {
  uint64_t address;
  uint32_t site;
  uint32_t size;
};

_Static_assert(sizeof(struct diff_live_block) == KEYED_SLOTS_SIZE && offsetof(struct diff_live_block, address) == 0,
               "a live block is a keyed slot (container/keyed_slots.h)");

#define DIFF_LIVE_MAP_DEAD UINT32_MAX
#define DIFF_LIVE_MAP_YOUNG 0x80000000u
#define DIFF_LIVE_MAP_PIECE 0x7f000000u
#define DIFF_LIVE_MAP_PIECE_SHIFT 24
#define DIFF_LIVE_MAP_SITE_MASK 0x00ffffffu
#define DIFF_LIVE_MAP_MAX_SITES 0x00ffffffu  /* site indices stay below this */
#define DIFF_LIVE_MAP_BIG_SIZE UINT32_MAX

/* The sizes of DIFF_LIVE_MAP_BIG_SIZE blocks (4 GiB or more: a handful at most). */
struct diff_live_map_big {
  uint64_t address, size;
};

/* Open addressing over slot_count slots, any count: an address's home is
 * the low 32 bits of its hash (container/keyed_slots.h's) scaled to the count,
 * a multiply, so that a home only moves up as the map grows, which lets it
 * grow in place by any step (diff_live_map_grow). Linear probing from the
 * home, backward-shift deletion. */
struct diff_live_map {
  struct diff_live_block *slots;
  size_t slot_count;          /* from 1024; below 2^32 */
  size_t count;
  size_t limit;               /* the count that makes it grow: 1/2 of the slots, 3/4 from 16 MiB */
  struct diff_live_map_big *big;
  size_t big_count, big_capacity;
};

int diff_live_map_init(struct diff_live_map *map);
void diff_live_map_release(struct diff_live_map *map);

/* Forgets every block, keeping the slots. */
void diff_live_map_clear(struct diff_live_map *map);

/* The block at address, or NULL. The pointer is valid until the next insert or remove. */
struct diff_live_block *diff_live_map_find(const struct diff_live_map *map, uint64_t address);

/* The slot for address, made (zeroed but for the address; *created = 1) when
 * absent. NULL when out of memory or address is 0. */
struct diff_live_block *diff_live_map_insert(struct diff_live_map *map, uint64_t address, int *created);

/* Grows the slots (diff_live_map_insert does it when the map is 1/2 full, 3/4 from 16 MiB),
 * in place: doubles them up to 16 MiB, then adds a quarter. Returns -1 when
 * out of memory: the map is then only fit to be released. */
int diff_live_map_grow(struct diff_live_map *map);

/* The slot where a probe for hash starts. */
static inline size_t live_map_home(const struct diff_live_map *map, size_t hash)
{
  return (size_t)(((uint64_t)(uint32_t)hash * map->slot_count) >> 32);
}

static inline size_t live_map_next(const struct diff_live_map *map, size_t i)
{
  return i + 1 == map->slot_count ? 0 : i + 1;
}

/* Asks the cache for the slot where address would start its probe, ahead of
 * a find, insert or remove: lookups in a big map are memory-bound. */
static inline void live_map_prefetch(const struct diff_live_map *map, size_t hash)
{
  __builtin_prefetch(&map->slots[live_map_home(map, hash)], 1);
}

/* The hash of an address, as the map places it. */
static inline size_t live_map_hash(uint64_t address)
{
  return keyed_slots_hash(address);
}

/* The slot holding address (*found 1), or the empty slot where its probe
 * from hash ended (*found 0). */
static inline size_t live_map_probe(const struct diff_live_map *map, uint64_t address, size_t hash, int *found)
{
  for (size_t i = live_map_home(map, hash);; i = live_map_next(map, i)) {
    uint64_t key = map->slots[i].address;
    if (key == address) {
      *found = 1;
      return i;
    }
    if (!key) {
      *found = 0;
      return i;
    }
  }
}

/* diff_live_map_insert with hash = live_map_hash(address) computed by the caller
 * once; inline, as it runs for every event. */
static inline struct diff_live_block *live_map_insert_hashed(struct diff_live_map *map, uint64_t address,
                                                        size_t hash, int *created)
{
  *created = 0;
  if (!address)
    return NULL;
  if (map->count >= map->limit && diff_live_map_grow(map) < 0)
    return NULL;
  int found;
  struct diff_live_block *slot = &map->slots[live_map_probe(map, address, hash, &found)];
  if (found)
    return slot;
  slot->address = address;
  slot->size = 0;
  slot->site = 0;
  map->count++;
  *created = 1;
  return slot;
}

/* diff_live_map_find with hash = live_map_hash(address) computed by the caller. */
static inline struct diff_live_block *live_map_find_hashed(const struct diff_live_map *map, uint64_t address,
                                                      size_t hash)
{
  if (!address)
    return NULL;
  int found;
  struct diff_live_block *slot = &map->slots[live_map_probe(map, address, hash, &found)];
  return found ? slot : NULL;
}

/* Removes the block in slot (from diff_live_map_find or live_map_find_hashed). */
void diff_live_map_remove_slot(struct diff_live_map *map, struct diff_live_block *slot);

/* Removes the block at address into *removed and its size into *removed_size
 * (either may be NULL); returns 1, or 0 if absent. */
int diff_live_map_remove(struct diff_live_map *map, uint64_t address, struct diff_live_block *removed,
                    uint64_t *removed_size);

/* Removes every block whose site is DIFF_LIVE_MAP_DEAD. */
void diff_live_map_remove_dead(struct diff_live_map *map);

uint64_t diff_live_map_big_size(const struct diff_live_map *map, uint64_t address);
int diff_live_map_set_big_size(struct diff_live_map *map, struct diff_live_block *block, uint64_t size);

/* The size of a block of map. */
static inline uint64_t live_map_size(const struct diff_live_map *map, const struct diff_live_block *block)
{
  return block->size != DIFF_LIVE_MAP_BIG_SIZE ? block->size : diff_live_map_big_size(map, block->address);
}

/* Sets the size of a block of map. Returns -1 when out of memory. */
static inline int live_map_set_size(struct diff_live_map *map, struct diff_live_block *block, uint64_t size)
{
  if (block->size != DIFF_LIVE_MAP_BIG_SIZE && size < DIFF_LIVE_MAP_BIG_SIZE) {
    block->size = (uint32_t)size;
    return 0;
  }
  return diff_live_map_set_big_size(map, block, size);
}

#endif
