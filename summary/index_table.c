/* summary/index_table.c: open addressing over items kept in an array elsewhere, rebuilt from kept hashes as it grows. */
#include "summary/index_table.h"

#include <stdlib.h>

int index_table_init(struct index_table *table)
{
  table->slots = malloc(64 * sizeof *table->slots);
  if (!table->slots)
    return -1;
  for (size_t i = 0; i < 64; i++)
    table->slots[i].index = ID_NONE;
  table->mask = 63;
  table->hashes = NULL;
  table->count = table->hashes_capacity = 0;
  return 0;
}

void index_table_release(struct index_table *table)
{
  free(table->slots);
  free(table->hashes);
}

static void index_table_place(struct index_table *table, uint64_t hash, uint32_t index)
{
  size_t i = hash & table->mask;
  while (table->slots[i].index != ID_NONE)
    i = (i + 1) & table->mask;
  table->slots[i].tag = (uint32_t)(hash >> 32);
  table->slots[i].index = index;
}

int index_table_make_room(struct index_table *table)
{
  if (table->count + 1 > ID_NONE - 1)
    return -1;
  if (id_array_reserve((void **)&table->hashes, &table->hashes_capacity, table->count + 1,
                       sizeof *table->hashes))
    return -1;
  size_t capacity = table->mask + 1;
  if ((table->count + 1) * 2 <= capacity)
    return 0;
  struct index_slot *bigger = malloc(2 * capacity * sizeof *bigger);
  if (!bigger)
    return -1;
  free(table->slots);
  table->slots = bigger;
  table->mask = 2 * capacity - 1;
  for (size_t i = 0; i <= table->mask; i++)
    table->slots[i].index = ID_NONE;
  for (size_t i = 0; i < table->count; i++)
    index_table_place(table, table->hashes[i], (uint32_t)i);
  return 0;
}

void index_table_insert(struct index_table *table, struct index_slot *slot, uint64_t hash)
{
  slot->tag = (uint32_t)(hash >> 32);
  slot->index = (uint32_t)table->count;
  table->hashes[table->count++] = hash;
}
