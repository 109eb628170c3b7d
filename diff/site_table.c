/* diff/site_table.c: the site table: a name is a site; equal hashes never merge different names. */
#include "diff/site_table.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define SITE_TABLE_INITIAL_SLOTS 64

uint64_t site_table_hash(const char *name, size_t length)
{
  return XXH3_64bits(name, length);
}

static struct site_table_slot *site_table_new_slots(size_t count)
{
  struct site_table_slot *slots = malloc(count * sizeof *slots);
  if (slots)
    for (size_t i = 0; i < count; i++)
      slots[i].index = SITE_TABLE_NONE;
  return slots;
}

int site_table_init(struct site_table *table)
{
  memset(table, 0, sizeof *table);
  table->hash_mask = UINT64_MAX;
  table->slots = site_table_new_slots(SITE_TABLE_INITIAL_SLOTS);
  table->mask = SITE_TABLE_INITIAL_SLOTS - 1;
  return table->slots ? 0 : -1;
}

void site_table_release(struct site_table *table)
{
  for (size_t i = 0; i < table->count; i++)
    free(table->names[i]);
  free(table->names);
  free(table->lengths);
  free(table->ids);
  free(table->kinds);
  free(table->slots);
  memset(table, 0, sizeof *table);
}

/* Spreads a bucket hash over the slots (a masked hash may have few bits). */
static size_t site_table_home(const struct site_table *table, uint64_t bucket_hash)
{
  return (size_t)((bucket_hash * 0x9E3779B97F4A7C15ull) >> 32) & table->mask;
}

static void site_table_place(struct site_table *table, uint64_t bucket_hash, uint32_t index)
{
  size_t i = site_table_home(table, bucket_hash);
  while (table->slots[i].index != SITE_TABLE_NONE)
    i = (i + 1) & table->mask;
  table->slots[i].bucket_hash = bucket_hash;
  table->slots[i].index = index;
}

static int site_table_rehash(struct site_table *table, size_t slot_count)
{
  struct site_table_slot *slots = site_table_new_slots(slot_count);
  if (!slots)
    return -1;
  free(table->slots);
  table->slots = slots;
  table->mask = slot_count - 1;
  for (size_t i = 0; i < table->count; i++)
    site_table_place(table, table->ids[i] & table->hash_mask, (uint32_t)i);
  return 0;
}

int site_table_set_hash_mask(struct site_table *table, uint64_t mask)
{
  uint64_t old_mask = table->hash_mask;
  table->hash_mask = mask;
  if (site_table_rehash(table, table->mask + 1) < 0) {
    table->hash_mask = old_mask;
    return -1;
  }
  return 0;
}

uint32_t site_table_find(const struct site_table *table, const char *name, size_t length)
{
  uint64_t bucket_hash = site_table_hash(name, length) & table->hash_mask;
  for (size_t i = site_table_home(table, bucket_hash);; i = (i + 1) & table->mask) {
    const struct site_table_slot *slot = &table->slots[i];
    if (slot->index == SITE_TABLE_NONE)
      return SITE_TABLE_NONE;
    if (slot->bucket_hash == bucket_hash && table->lengths[slot->index] == length &&
        !memcmp(table->names[slot->index], name, length))
      return slot->index;
  }
}

static int site_table_reserve(struct site_table *table)
{
  if (table->count < table->capacity)
    return 0;
  size_t capacity = table->capacity ? table->capacity * 2 : 32;
  char **names = realloc(table->names, capacity * sizeof *names);
  if (!names)
    return -1;
  table->names = names;
  size_t *lengths = realloc(table->lengths, capacity * sizeof *lengths);
  if (!lengths)
    return -1;
  table->lengths = lengths;
  uint64_t *ids = realloc(table->ids, capacity * sizeof *ids);
  if (!ids)
    return -1;
  table->ids = ids;
  enum diff_site_kind *kinds = realloc(table->kinds, capacity * sizeof *kinds);
  if (!kinds)
    return -1;
  table->kinds = kinds;
  table->capacity = capacity;
  return 0;
}

int site_table_intern(struct site_table *table, const char *name, size_t length,
                      enum diff_site_kind kind, uint32_t *index)
{
  uint32_t found = site_table_find(table, name, length);
  if (found != SITE_TABLE_NONE) {
    *index = found;
    return 0;
  }
  if (site_table_reserve(table) < 0)
    return -1;
  if ((table->count + 1) * 2 > table->mask + 1 && site_table_rehash(table, (table->mask + 1) * 2) < 0)
    return -1;
  char *copy = malloc(length + 1);
  if (!copy)
    return -1;
  memcpy(copy, name, length);
  copy[length] = '\0';
  uint32_t added = (uint32_t)table->count++;
  table->names[added] = copy;
  table->lengths[added] = length;
  table->ids[added] = site_table_hash(name, length);
  table->kinds[added] = kind;
  site_table_place(table, table->ids[added] & table->hash_mask, added);
  *index = added;
  return 0;
}
