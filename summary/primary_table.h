/* summary/primary_table.h: the primary records: per realloc or free entry and allocating site, what its releases overrode. */
#ifndef LJLEAK_SUMMARY_PRIMARY_TABLE_H
#define LJLEAK_SUMMARY_PRIMARY_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "summary/hash.h"

/* The blocks an entry's reallocs or frees overrode, per allocating site. The
 * records sit in the slots of an open-addressing table (key
 * SUMMARY_PRIMARY_EMPTY_KEY marks a free slot), 32 bytes on a 64-byte
 * aligned table, so that an update touches one cache line: a 40-byte record
 * would straddle two lines in two slots of five. The allocating site's name,
 * read only when printing, is kept apart, by slot. */
struct summary_primary {
  uint64_t key;                 /* entry << 32 | allocating site */
  uint64_t allocated, freed, count;
};
_Static_assert(sizeof(struct summary_primary) == 32, "a record is half a cache line");
#define SUMMARY_PRIMARY_EMPTY_KEY UINT64_MAX

struct summary_primary_table {
  struct summary_primary *slots;
  uint32_t *names;              /* per slot: the allocating site's name when its first block was made */
  size_t mask, count;
};

/* capacity: a power of two. Returns 0, or -1 when out of memory. */
int summary_primary_table_init(struct summary_primary_table *table, size_t capacity);
void summary_primary_table_release(struct summary_primary_table *table);

/* Doubles the slots; records move. Returns 0, or -1 when out of memory. */
int summary_primary_table_grow(struct summary_primary_table *table);

/* The record for key, or the empty slot where it would go. */
static inline struct summary_primary *primary_table_probe(const struct summary_primary_table *table, uint64_t key)
{
  size_t i = hash_u64(key) & table->mask;
  while (table->slots[i].key != SUMMARY_PRIMARY_EMPTY_KEY && table->slots[i].key != key)
    i = (i + 1) & table->mask;
  return &table->slots[i];
}

/* Finds the record for key into *record, made with name and zero sums if
 * new. *slot is a guess tried first, checked by its key: the slot a caller's
 * last record for this kind of key was in; it is set to the record's slot.
 * Inlined into the feeding loop, as it runs for every realloc and free of a
 * known block. Returns 0 for a record found, 1 for one made, or -1 when out
 * of memory. */
static inline __attribute__((always_inline)) int
primary_table_record(struct summary_primary_table *table, uint64_t key, uint32_t name, uint32_t *slot,
                     struct summary_primary **record)
{
  struct summary_primary *found = &table->slots[*slot & table->mask];
  int made = 0;
  if (__builtin_expect(found->key != key, 0)) {
    if ((table->count + 1) * 2 > table->mask + 1 && summary_primary_table_grow(table))
      return -1;
    found = primary_table_probe(table, key);
    if (found->key == SUMMARY_PRIMARY_EMPTY_KEY) {
      *found = (struct summary_primary){key, 0, 0, 0};
      table->names[found - table->slots] = name;
      table->count++;
      made = 1;
    }
    *slot = (uint32_t)(found - table->slots);
  }
  *record = found;
  return made;
}

/* The name of record's allocating site. */
static inline uint32_t primary_table_name(const struct summary_primary_table *table,
                                          const struct summary_primary *record)
{
  return table->names[record - table->slots];
}

#endif
