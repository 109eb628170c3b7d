/* diff/site_table.c: the site table: a name is a site; equal hashes never merge different names. */
#include "diff/site_table.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "container/array.h"

uint64_t diff_site_table_hash(const char *name, size_t length)
{
  return XXH3_64bits(name, length);
}

int diff_site_table_init(struct diff_site_table *table)
{
  memset(table, 0, sizeof *table);
  table->hash_mask = UINT64_MAX;
  return index_table_init(&table->index);
}

void diff_site_table_release(struct diff_site_table *table)
{
  for (size_t i = 0; i < table->count; i++)
    free(table->names[i]);
  free(table->names);
  free(table->lengths);
  free(table->ids);
  free(table->kinds);
  index_table_release(&table->index);
  memset(table, 0, sizeof *table);
}

int diff_site_table_set_hash_mask(struct diff_site_table *table, uint64_t mask)
{
  struct index_table index;
  if (index_table_init(&index) < 0)
    return -1;
  for (size_t i = 0; i < table->count; i++)
    if (index_table_add(&index, table->ids[i] & mask) == INDEX_TABLE_NONE) {
      index_table_release(&index);
      return -1;
    }
  index_table_release(&table->index);
  table->index = index;
  table->hash_mask = mask;
  return 0;
}

/* A name being looked up: what the probe compares. */
struct site_table_key {
  const struct diff_site_table *table;
  const char *name;
  size_t length;
};

static int site_table_equal(const void *context, uint32_t index)
{
  const struct site_table_key *key = context;
  return key->table->lengths[index] == key->length &&
         !memcmp(key->table->names[index], key->name, key->length);
}

uint32_t diff_site_table_find(const struct diff_site_table *table, const char *name, size_t length)
{
  struct site_table_key key = {table, name, length};
  uint64_t hash = diff_site_table_hash(name, length) & table->hash_mask;
  return index_table_probe(&table->index, hash, site_table_equal, &key)->index;
}

static int site_table_reserve(struct diff_site_table *table)
{
  if (table->count < table->capacity)
    return 0;
  size_t capacity = table->capacity;
  if (array_reserve((void **)&table->names, &capacity, table->count + 1, sizeof *table->names) != 0 ||
      array_resize((void **)&table->lengths, capacity, sizeof *table->lengths) != 0 ||
      array_resize((void **)&table->ids, capacity, sizeof *table->ids) != 0 ||
      array_resize((void **)&table->kinds, capacity, sizeof *table->kinds) != 0)
    return -1;
  table->capacity = capacity;
  return 0;
}

int diff_site_table_intern(struct diff_site_table *table, const char *name, size_t length,
                      enum diff_site_kind kind, uint32_t *index)
{
  uint32_t found = diff_site_table_find(table, name, length);
  if (found != DIFF_SITE_TABLE_NONE) {
    *index = found;
    return 0;
  }
  if (site_table_reserve(table) < 0)
    return -1;
  char *copy = malloc(length + 1);
  if (!copy)
    return -1;
  memcpy(copy, name, length);
  copy[length] = '\0';
  uint64_t id = diff_site_table_hash(name, length);
  if (index_table_add(&table->index, id & table->hash_mask) == INDEX_TABLE_NONE) {
    free(copy);
    return -1;
  }
  uint32_t added = (uint32_t)table->count++;
  table->names[added] = copy;
  table->lengths[added] = length;
  table->ids[added] = id;
  table->kinds[added] = kind;
  *index = added;
  return 0;
}
