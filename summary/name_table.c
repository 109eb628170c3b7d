/* summary/name_table.c: interning the names of the summary's locations. */
#include "summary/name_table.h"

#include <stdlib.h>
#include <string.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  /* names and location keys hash in a few inlined instructions */
#endif
#include <xxhash.h>

#include "container/array.h"
#include "summary/hash.h"

int summary_name_table_init(struct summary_name_table *table)
{
  table->bytes = NULL;
  table->bytes_used = table->bytes_capacity = 0;
  table->names = NULL;
  table->names_capacity = 0;
  return index_table_init(&table->index);
}

void summary_name_table_release(struct summary_name_table *table)
{
  free(table->bytes);
  free(table->names);
  index_table_release(&table->index);
}

/* A text being interned: what the probe compares. */
struct name_key {
  const struct summary_name_table *table;
  const char *text;
  size_t length;
};

static int name_equal(const void *context, uint32_t index)
{
  const struct name_key *key = context;
  size_t length;
  const char *text = name_table_text(key->table, index, &length);
  return length == key->length && !memcmp(text, key->text, length);
}

uint32_t summary_name_table_intern(struct summary_name_table *table, const char *text, size_t length)
{
  struct index_table *index = &table->index;
  uint64_t hash = XXH3_64bits(text, length);
  struct name_key key = {table, text, length};
  uint32_t found = index_table_probe(index, hash, name_equal, &key)->index;
  if (found != INDEX_TABLE_NONE)
    return found;
  size_t id = index->count;
  if (array_reserve((void **)&table->names, &table->names_capacity, id + 1,
                       sizeof *table->names) ||
      array_reserve((void **)&table->bytes, &table->bytes_capacity,
                       table->bytes_used + length + 1, 1))
    return SUMMARY_ID_NONE;
  if (index_table_add(index, hash) == INDEX_TABLE_NONE)
    return SUMMARY_ID_NONE;
  memcpy(table->bytes + table->bytes_used, text, length);
  table->names[id].offset = table->bytes_used;
  table->names[id].length = length;
  table->bytes_used += length;
  return (uint32_t)id;
}

int summary_name_table_compare(const struct summary_name_table *table, uint32_t a, uint32_t b)
{
  size_t length_a, length_b;
  const char *text_a = name_table_text(table, a, &length_a);
  const char *text_b = name_table_text(table, b, &length_b);
  int order = memcmp(text_a, text_b, length_a < length_b ? length_a : length_b);
  if (order)
    return order;
  return (length_a > length_b) - (length_a < length_b);
}
