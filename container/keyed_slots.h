/* container/keyed_slots.h: open addressing over 16-byte slots that begin with a nonzero 64-bit key: linear probing from the key's hash, backward-shift deletion, no tombstones. */
#ifndef LJLEAK_CONTAINER_KEYED_SLOTS_H
#define LJLEAK_CONTAINER_KEYED_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The owner keeps the slots: its own 16-byte struct whose first member is
 * the key (0 marks an empty slot), in its own storage (the collector's maps
 * use mmap, which the allocator hook may call; diff's live map the heap),
 * with their count and its growth: never full (the collector's maps at
 * most half, diff's live map three quarters), so that every probe ends at
 * an empty slot. Everything here is inline: the collector's hook
 * and diff's per-event loop probe through it. Slots are read and written
 * as bytes, so any such struct will do. */
#define KEYED_SLOTS_SIZE 16

/* The hash that places key: a multiply between two xor-shifts, so that
 * every bit of the key moves the low bits that a map's mask keeps (the high
 * bits of clustered addresses as much as the low ones). Five instructions:
 * it runs for every address of every event. */
static inline size_t keyed_slots_hash(uint64_t key)
{
  key ^= key >> 32;
  key *= UINT64_C(0xd6e8feb86659fd93);
  key ^= key >> 32;
  return (size_t)key;
}

/* The key of slot i. */
static inline uint64_t keyed_slots_key(const void *slots, size_t i)
{
  uint64_t key;
  memcpy(&key, (const char *)slots + i * KEYED_SLOTS_SIZE, sizeof key);
  return key;
}

/* The slot holding key among mask + 1 slots (*found 1), or the empty slot
 * where its probe from hash (keyed_slots_hash(key)) ended (*found 0). Key
 * 0 is found in that empty slot. The two exits set *found so that, once
 * inlined, the caller's test of it folds into them. */
static inline size_t keyed_slots_probe(const void *slots, size_t mask, uint64_t key, size_t hash,
                                       int *found)
{
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    uint64_t slot_key = keyed_slots_key(slots, i);
    if (slot_key == key) {
      *found = 1;
      return i;
    }
    if (!slot_key) {
      *found = 0;
      return i;
    }
  }
}

/* Empties slot hole. Backward shift: later members of its probe run move
 * into the hole when their home lies at or before it (cyclically), so that
 * a lookup never stops early at a hole and churn never degrades the map. */
static inline void keyed_slots_remove(void *slots, size_t mask, size_t hole)
{
  char *bytes = slots;
  for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
    uint64_t key = keyed_slots_key(slots, i);
    if (!key)
      break;
    size_t home = keyed_slots_hash(key) & mask;
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      memcpy(bytes + hole * KEYED_SLOTS_SIZE, bytes + i * KEYED_SLOTS_SIZE, KEYED_SLOTS_SIZE);
      hole = i;
    }
  }
  memset(bytes + hole * KEYED_SLOTS_SIZE, 0, KEYED_SLOTS_SIZE);
}

/* Moves every member of from (from_mask + 1 slots) into to (to_mask + 1
 * empty slots, more than twice as many as the members): a map's growth. */
static inline void keyed_slots_move(void *to, size_t to_mask, const void *from, size_t from_mask)
{
  for (size_t i = 0; i <= from_mask; i++) {
    uint64_t key = keyed_slots_key(from, i);
    if (!key)
      continue;
    size_t j = keyed_slots_hash(key) & to_mask;
    while (keyed_slots_key(to, j))  /* no member of to is key: the first empty slot */
      j = (j + 1) & to_mask;
    memcpy((char *)to + j * KEYED_SLOTS_SIZE, (const char *)from + i * KEYED_SLOTS_SIZE,
           KEYED_SLOTS_SIZE);
  }
}

#endif
