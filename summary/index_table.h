/* summary/index_table.h: open addressing over items kept in an array elsewhere (the sites, the names). */
#ifndef LJLEAK_SUMMARY_INDEX_TABLE_H
#define LJLEAK_SUMMARY_INDEX_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "summary/id.h"

/* Items are never removed, so the table can be rebuilt from the hashes kept
 * here. The owner probes the slots itself (it alone knows how to compare its
 * items), from hash & mask, linearly, up to a slot whose index is ID_NONE. */
struct index_slot {
  uint32_t tag;                 /* high half of the item's hash */
  uint32_t index;               /* the item, or ID_NONE */
};

struct index_table {
  struct index_slot *slots;
  size_t mask;
  uint64_t *hashes;             /* [count] hash of each item */
  size_t count, hashes_capacity;
};

/* Returns 0, or -1 when out of memory. */
int index_table_init(struct index_table *table);
void index_table_release(struct index_table *table);

/* Makes room for one more item: keeps the load at most 1/2, and the hash array
 * large enough. Slots move when it grows: probe after it. Returns -1 when out
 * of memory or when the ids are used up. */
int index_table_make_room(struct index_table *table);

/* Makes the next item (id count) with hash, in slot: the empty slot that
 * ended a probe after index_table_make_room. */
void index_table_insert(struct index_table *table, struct index_slot *slot, uint64_t hash);

#endif
