/* diff/stack_table.c: call stacks by content (hash, then frames compared), (site, stack) pairs by their numbers; both indexed by container/index_table.h. */
#include "diff/stack_table.h"

#include <stdlib.h>
#include <string.h>

#include "container/array.h"

#define STACK_TABLE_INITIAL 64

static void stack_entry_release(struct diff_stack_entry *entry)
{
  for (uint32_t i = 0; i < entry->frame_count && entry->frames; i++)
    free(entry->frames[i].name);
  free(entry->frames);
}

int diff_stack_table_init(struct diff_stack_table *table)
{
  memset(table, 0, sizeof *table);
  table->entries = calloc(STACK_TABLE_INITIAL, sizeof *table->entries);
  if (!table->entries || index_table_init(&table->index) < 0) {
    diff_stack_table_release(table);
    return -1;
  }
  table->capacity = STACK_TABLE_INITIAL;
  table->count = 1;  /* entry 0: no stack */
  return 0;
}

void diff_stack_table_release(struct diff_stack_table *table)
{
  for (size_t i = 0; i < table->count && table->entries; i++)
    stack_entry_release(&table->entries[i]);
  free(table->entries);
  index_table_release(&table->index);
  memset(table, 0, sizeof *table);
}

void diff_stack_table_clear(struct diff_stack_table *table)
{
  for (size_t i = 1; i < table->count; i++)
    stack_entry_release(&table->entries[i]);
  index_table_clear(&table->index);
  table->count = 1;
}

/* A stack being looked up: what the probe compares. */
struct stack_key {
  const struct diff_stack_table *table;
  uint64_t hash;
  const struct diff_frame *frames;
  uint32_t frame_count;
};

static int stack_equal(const void *context, uint32_t index)
{
  const struct stack_key *key = context;
  const struct diff_stack_entry *entry = &key->table->entries[index + 1];
  if (entry->hash != key->hash || entry->frame_count != key->frame_count)
    return 0;
  for (uint32_t i = 0; i < key->frame_count; i++) {
    const struct diff_frame *a = &entry->frames[i], *b = &key->frames[i];
    if (a->kind != b->kind || a->defined != b->defined || a->line != b->line ||
        strcmp(a->name ? a->name : "", b->name ? b->name : ""))
      return 0;
  }
  return 1;
}

int diff_stack_table_intern(struct diff_stack_table *table, uint64_t hash, const struct diff_frame *frames,
                       uint32_t frame_count, uint32_t *index)
{
  if (!frame_count) {
    *index = 0;
    return 0;
  }
  struct stack_key key = {table, hash, frames, frame_count};
  uint32_t found = index_table_probe(&table->index, hash, stack_equal, &key)->index;
  if (found != INDEX_TABLE_NONE) {
    *index = found + 1;
    return 0;
  }
  if (table->count >= UINT32_MAX / 2)
    return -1;
  if (array_reserve((void **)&table->entries, &table->capacity, table->count + 1, sizeof *table->entries) != 0)
    return -1;
  struct diff_stack_entry *entry = &table->entries[table->count];
  entry->hash = hash;
  entry->frame_count = 0;
  entry->frames = calloc(frame_count, sizeof *entry->frames);
  if (!entry->frames)
    return -1;
  for (uint32_t f = 0; f < frame_count; f++) {
    entry->frames[f] = frames[f];
    entry->frames[f].name = strdup(frames[f].name ? frames[f].name : "?");
    if (!entry->frames[f].name) {
      stack_entry_release(entry);  /* frame_count counts the names made so far */
      return -1;
    }
    entry->frame_count = f + 1;
  }
  if (index_table_add(&table->index, hash) == INDEX_TABLE_NONE) {
    stack_entry_release(entry);
    return -1;
  }
  *index = (uint32_t)table->count++;
  return 0;
}

/* ---- Pairs ------------------------------------------------------------------ */

int diff_pair_table_init(struct diff_pair_table *table)
{
  memset(table, 0, sizeof *table);
  return index_table_init(&table->index);
}

void diff_pair_table_release(struct diff_pair_table *table)
{
  free(table->sites);
  free(table->stacks);
  index_table_release(&table->index);
  memset(table, 0, sizeof *table);
}

void diff_pair_table_clear(struct diff_pair_table *table)
{
  index_table_clear(&table->index);
  table->count = 0;
  table->has_last = 0;
}

/* A multiplicative hash: the lookup runs once per allocation of a capture
 * with stacks, and a call into XXH3 cost more than the probe. Turned so
 * that its well-mixed high bits place the pair and the rest tag it. */
static uint64_t pair_hash(uint64_t key)
{
  uint64_t mixed = key * 0x9e3779b97f4a7c15ull;
  return mixed >> 29 | mixed << 35;
}

/* A pair being looked up: what the probe compares. */
struct pair_key {
  const struct diff_pair_table *table;
  uint32_t site, stack;
};

static int pair_equal(const void *context, uint32_t index)
{
  const struct pair_key *key = context;
  return key->table->sites[index] == key->site && key->table->stacks[index] == key->stack;
}

int diff_pair_table_intern(struct diff_pair_table *table, uint32_t site, uint32_t stack, uint32_t *index)
{
  uint64_t key = (uint64_t)site << 32 | stack;
  if (table->has_last && table->last_key == key) {
    *index = table->last_index;
    return 0;
  }
  uint64_t hash = pair_hash(key);
  struct pair_key probe = {table, site, stack};
  uint32_t found = index_table_probe(&table->index, hash, pair_equal, &probe)->index;
  if (found == INDEX_TABLE_NONE) {
    if (table->count >= 0x7fffffffu)  /* the live map keeps 31 bits of owner */
      return -1;
    if (table->count == table->capacity) {
      size_t capacity = table->capacity;
      if (array_reserve((void **)&table->sites, &capacity, table->count + 1, sizeof *table->sites) != 0 ||
          array_resize((void **)&table->stacks, capacity, sizeof *table->stacks) != 0)
        return -1;
      table->capacity = capacity;
    }
    if (index_table_add(&table->index, hash) == INDEX_TABLE_NONE)
      return -1;
    table->sites[table->count] = site;
    table->stacks[table->count] = stack;
    found = (uint32_t)table->count++;
  }
  *index = found;
  table->has_last = 1;
  table->last_key = key;
  table->last_index = found;
  return 0;
}
