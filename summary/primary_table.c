/* summary/primary_table.c: the primary records' table: set-up and growth. */
#include "summary/primary_table.h"

#include <stdlib.h>

/* Records on whole cache lines: one never straddles two. */
#define PRIMARY_TABLE_ALIGN 64

int summary_primary_table_init(struct summary_primary_table *table, size_t capacity)
{
  /* capacity * 32 bytes: a multiple of the alignment from 2 slots on */
  size_t bytes = capacity * sizeof *table->slots;
  if (bytes < PRIMARY_TABLE_ALIGN)
    bytes = PRIMARY_TABLE_ALIGN;
  table->slots = aligned_alloc(PRIMARY_TABLE_ALIGN, bytes);
  table->names = malloc(capacity * sizeof *table->names);
  if (!table->slots || !table->names) {
    free(table->slots);
    free(table->names);
    return -1;
  }
  for (size_t i = 0; i < capacity; i++)
    table->slots[i].key = SUMMARY_PRIMARY_EMPTY_KEY;
  table->mask = capacity - 1;
  table->count = 0;
  return 0;
}

void summary_primary_table_release(struct summary_primary_table *table)
{
  free(table->slots);
  free(table->names);
}

int summary_primary_table_grow(struct summary_primary_table *table)
{
  struct summary_primary_table bigger;
  if (summary_primary_table_init(&bigger, 2 * (table->mask + 1)))
    return -1;
  for (size_t i = 0; i <= table->mask; i++)
    if (table->slots[i].key != SUMMARY_PRIMARY_EMPTY_KEY) {
      struct summary_primary *moved = primary_table_probe(&bigger, table->slots[i].key);
      *moved = table->slots[i];
      bigger.names[moved - bigger.slots] = table->names[i];
    }
  bigger.count = table->count;
  summary_primary_table_release(table);
  *table = bigger;
  return 0;
}
