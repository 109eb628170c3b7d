/* summary/primary_table.c: the primary records' table: set-up and growth. */
#include "summary/primary_table.h"

#include <stdlib.h>

int primary_table_init(struct primary_table *table, size_t capacity)
{
  table->slots = malloc(capacity * sizeof *table->slots);
  if (!table->slots)
    return -1;
  for (size_t i = 0; i < capacity; i++)
    table->slots[i].key = PRIMARY_EMPTY_KEY;
  table->mask = capacity - 1;
  table->count = 0;
  return 0;
}

void primary_table_release(struct primary_table *table)
{
  free(table->slots);
}

int primary_table_grow(struct primary_table *table)
{
  struct primary_table bigger;
  if (primary_table_init(&bigger, 2 * (table->mask + 1)))
    return -1;
  for (size_t i = 0; i <= table->mask; i++)
    if (table->slots[i].key != PRIMARY_EMPTY_KEY)
      *primary_table_probe(&bigger, table->slots[i].key) = table->slots[i];
  bigger.count = table->count;
  free(table->slots);
  *table = bigger;
  return 0;
}
