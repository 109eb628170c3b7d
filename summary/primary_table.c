/* summary/primary_table.c: the primary records' table: set-up and growth. */
#include "summary/primary_table.h"

#include <stdlib.h>

int summary_primary_table_init(struct summary_primary_table *table, size_t capacity)
{
  table->slots = malloc(capacity * sizeof *table->slots);
  if (!table->slots)
    return -1;
  for (size_t i = 0; i < capacity; i++)
    table->slots[i].key = SUMMARY_PRIMARY_EMPTY_KEY;
  table->mask = capacity - 1;
  table->count = 0;
  return 0;
}

void summary_primary_table_release(struct summary_primary_table *table)
{
  free(table->slots);
}

int summary_primary_table_grow(struct summary_primary_table *table)
{
  struct summary_primary_table bigger;
  if (summary_primary_table_init(&bigger, 2 * (table->mask + 1)))
    return -1;
  for (size_t i = 0; i <= table->mask; i++)
    if (table->slots[i].key != SUMMARY_PRIMARY_EMPTY_KEY)
      *primary_table_probe(&bigger, table->slots[i].key) = table->slots[i];
  bigger.count = table->count;
  free(table->slots);
  *table = bigger;
  return 0;
}
