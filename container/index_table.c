/* container/index_table.c: open addressing over items kept elsewhere, rebuilt from the kept hashes as it grows. */
#include "container/index_table.h"

#include <stdlib.h>

#include "container/array.h"

#define INDEX_TABLE_INITIAL_SLOTS 64

static struct index_slot *slots_new(size_t count)
{
  struct index_slot *slots = malloc(count * sizeof *slots);
  if (slots)
    for (size_t i = 0; i < count; i++)
      slots[i].index = INDEX_TABLE_NONE;
  return slots;
}

int index_table_init(struct index_table *table)
{
  table->slots = slots_new(INDEX_TABLE_INITIAL_SLOTS);
  table->mask = INDEX_TABLE_INITIAL_SLOTS - 1;
  table->hashes = NULL;
  table->count = table->hashes_capacity = 0;
  return table->slots ? 0 : -1;
}

void index_table_release(struct index_table *table)
{
  free(table->slots);
  free(table->hashes);
  table->slots = NULL;
  table->hashes = NULL;
  table->mask = table->count = table->hashes_capacity = 0;
}

void index_table_clear(struct index_table *table)
{
  if (table->count)
    for (size_t i = 0; i <= table->mask; i++)
      table->slots[i].index = INDEX_TABLE_NONE;
  table->count = 0;
}

/* Puts index in the first empty slot of hash's probe. */
static void place(struct index_table *table, uint64_t hash, uint32_t index)
{
  size_t i = hash & table->mask;
  while (table->slots[i].index != INDEX_TABLE_NONE)
    i = (i + 1) & table->mask;
  table->slots[i].tag = (uint32_t)(hash >> 32);
  table->slots[i].index = index;
}

uint32_t index_table_add(struct index_table *table, uint64_t hash)
{
  if (table->count + 1 >= INDEX_TABLE_NONE)
    return INDEX_TABLE_NONE;
  if (array_reserve((void **)&table->hashes, &table->hashes_capacity, table->count + 1, sizeof *table->hashes) != 0)
    return INDEX_TABLE_NONE;
  if ((table->count + 1) * 2 > table->mask + 1) {
    size_t count = (table->mask + 1) * 2;
    struct index_slot *slots = slots_new(count);
    if (!slots)
      return INDEX_TABLE_NONE;
    free(table->slots);
    table->slots = slots;
    table->mask = count - 1;
    for (size_t i = 0; i < table->count; i++)
      place(table, table->hashes[i], (uint32_t)i);
  }
  uint32_t index = (uint32_t)table->count++;
  table->hashes[index] = hash;
  place(table, hash, index);
  return index;
}
