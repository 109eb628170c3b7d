/* container/index_table.h: open addressing over items kept in arrays elsewhere (sites, names, stacks, strings), numbered densely as they are added. */
#ifndef LJLEAK_CONTAINER_INDEX_TABLE_H
#define LJLEAK_CONTAINER_INDEX_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define INDEX_TABLE_NONE UINT32_MAX  /* an empty slot; a failed add */

/* The owner keeps its items in its own arrays, item i at index i, and tells
 * the table each one's 64-bit hash. Items are never removed, so the slots
 * are rebuilt from the hashes kept here when they grow: the load stays at
 * most 1/2. A slot holds the high half of its item's hash as a tag, so a
 * probe compares items only when the tags match; the owner alone knows how
 * to compare them (index_table_probe's equal). Linear probing from
 * hash & mask: the low half of the hash places, the high half tags. */
struct index_slot {
  uint32_t tag;
  uint32_t index;               /* the item, or INDEX_TABLE_NONE */
};

struct index_table {
  struct index_slot *slots;
  size_t mask;                  /* slots - 1 (a power of two) */
  uint64_t *hashes;             /* [count] each item's hash */
  size_t count, hashes_capacity;
};

/* Returns 0, or -1 when out of memory. */
int index_table_init(struct index_table *table);
void index_table_release(struct index_table *table);
/* Forgets every item, keeping the slots. */
void index_table_clear(struct index_table *table);

/* The slot of the item with hash for which equal(context, index) is true,
 * or the empty slot where the probe ended (its index INDEX_TABLE_NONE).
 * Inline, so that a constant equal is inlined too: some owners probe once
 * per event. */
static inline struct index_slot *index_table_probe(const struct index_table *table, uint64_t hash,
                                                   int (*equal)(const void *context, uint32_t index),
                                                   const void *context)
{
  uint32_t tag = (uint32_t)(hash >> 32);
  for (size_t i = hash & table->mask;; i = (i + 1) & table->mask) {
    struct index_slot *slot = &table->slots[i];
    if (slot->index == INDEX_TABLE_NONE || (slot->tag == tag && equal(context, slot->index)))
      return slot;
  }
}

/* Adds item count (the owner has made it, or makes it now at that index)
 * with hash, without looking for an equal one. Returns its index, or
 * INDEX_TABLE_NONE when out of memory or out of indices (the table is then
 * unchanged). Slots move: a slot from an earlier probe is stale after it. */
uint32_t index_table_add(struct index_table *table, uint64_t hash);

#endif
