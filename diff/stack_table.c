/* diff/stack_table.c: call stacks by content (hash, then frames compared), (site, stack) pairs by open addressing. */
#include "diff/stack_table.h"

#include <stdlib.h>
#include <string.h>

#define STACK_TABLE_INITIAL 64

static void stack_entry_release(struct stack_entry *entry)
{
  for (uint32_t i = 0; i < entry->frame_count && entry->frames; i++)
    free(entry->frames[i].name);
  free(entry->frames);
}

int stack_table_init(struct stack_table *table)
{
  memset(table, 0, sizeof *table);
  table->entries = calloc(STACK_TABLE_INITIAL, sizeof *table->entries);
  table->slots = calloc(STACK_TABLE_INITIAL, sizeof *table->slots);
  if (!table->entries || !table->slots) {
    stack_table_release(table);
    return -1;
  }
  table->capacity = STACK_TABLE_INITIAL;
  table->mask = STACK_TABLE_INITIAL - 1;
  table->count = 1;  /* entry 0: no stack */
  return 0;
}

void stack_table_release(struct stack_table *table)
{
  for (size_t i = 0; i < table->count && table->entries; i++)
    stack_entry_release(&table->entries[i]);
  free(table->entries);
  free(table->slots);
  memset(table, 0, sizeof *table);
}

void stack_table_clear(struct stack_table *table)
{
  for (size_t i = 1; i < table->count; i++)
    stack_entry_release(&table->entries[i]);
  if (table->count > 1)
    memset(table->slots, 0, (table->mask + 1) * sizeof *table->slots);
  table->count = 1;
}

static int stack_frames_equal(const struct stack_entry *entry, const struct diff_frame *frames,
                              uint32_t frame_count)
{
  if (entry->frame_count != frame_count)
    return 0;
  for (uint32_t i = 0; i < frame_count; i++) {
    const struct diff_frame *a = &entry->frames[i], *b = &frames[i];
    if (a->kind != b->kind || a->defined != b->defined || a->line != b->line ||
        strcmp(a->name ? a->name : "", b->name ? b->name : ""))
      return 0;
  }
  return 1;
}

static int stack_table_grow_slots(struct stack_table *table)
{
  size_t size = (table->mask + 1) * 2;
  uint32_t *slots = calloc(size, sizeof *slots);
  if (!slots)
    return -1;
  for (size_t i = 1; i < table->count; i++) {
    size_t j = (size_t)table->entries[i].hash & (size - 1);
    while (slots[j])
      j = (j + 1) & (size - 1);
    slots[j] = (uint32_t)i;
  }
  free(table->slots);
  table->slots = slots;
  table->mask = size - 1;
  return 0;
}

int stack_table_intern(struct stack_table *table, uint64_t hash, const struct diff_frame *frames,
                       uint32_t frame_count, uint32_t *index)
{
  if (!frame_count) {
    *index = 0;
    return 0;
  }
  size_t i = (size_t)hash & table->mask;
  for (; table->slots[i]; i = (i + 1) & table->mask) {
    const struct stack_entry *entry = &table->entries[table->slots[i]];
    if (entry->hash == hash && stack_frames_equal(entry, frames, frame_count)) {
      *index = table->slots[i];
      return 0;
    }
  }
  if (table->count >= UINT32_MAX / 2)
    return -1;
  if (table->count == table->capacity) {
    struct stack_entry *bigger = realloc(table->entries, table->capacity * 2 * sizeof *bigger);
    if (!bigger)
      return -1;
    table->entries = bigger;
    table->capacity *= 2;
  }
  struct stack_entry *entry = &table->entries[table->count];
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
  table->slots[i] = (uint32_t)table->count;
  *index = (uint32_t)table->count++;
  if (table->count * 2 > table->mask + 1 && stack_table_grow_slots(table) < 0)
    return -1;  /* the entry stays; the next intern finds a fuller table */
  return 0;
}

/* ---- Pairs ------------------------------------------------------------------ */

int pair_table_init(struct pair_table *table)
{
  memset(table, 0, sizeof *table);
  table->slots = calloc(STACK_TABLE_INITIAL, sizeof *table->slots);
  if (!table->slots)
    return -1;
  table->mask = STACK_TABLE_INITIAL - 1;
  return 0;
}

void pair_table_release(struct pair_table *table)
{
  free(table->sites);
  free(table->stacks);
  free(table->slots);
  memset(table, 0, sizeof *table);
}

void pair_table_clear(struct pair_table *table)
{
  if (table->count)
    memset(table->slots, 0, (table->mask + 1) * sizeof *table->slots);
  table->count = 0;
  table->has_last = 0;
}

/* A multiplicative hash: the lookup runs once per allocation of a capture
 * with stacks, and a call into XXH3 cost more than the probe. */
static size_t pair_home(uint64_t key, size_t mask)
{
  return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 29) & mask;
}

static int pair_table_grow(struct pair_table *table)
{
  size_t size = (table->mask + 1) * 2;
  uint32_t *slots = calloc(size, sizeof *slots);
  if (!slots)
    return -1;
  for (size_t i = 0; i < table->count; i++) {
    uint64_t key = (uint64_t)table->sites[i] << 32 | table->stacks[i];
    size_t j = pair_home(key, size - 1);
    while (slots[j])
      j = (j + 1) & (size - 1);
    slots[j] = (uint32_t)i + 1;
  }
  free(table->slots);
  table->slots = slots;
  table->mask = size - 1;
  return 0;
}

int pair_table_intern(struct pair_table *table, uint32_t site, uint32_t stack, uint32_t *index)
{
  uint64_t key = (uint64_t)site << 32 | stack;
  if (table->has_last && table->last_key == key) {
    *index = table->last_index;
    return 0;
  }
  if ((table->count + 1) * 2 > table->mask + 1 && pair_table_grow(table) < 0)
    return -1;
  size_t i = pair_home(key, table->mask);
  for (; table->slots[i]; i = (i + 1) & table->mask) {
    uint32_t at = table->slots[i] - 1;
    if (table->sites[at] == site && table->stacks[at] == stack) {
      *index = at;
      goto found;
    }
  }
  if (table->count >= 0x7fffffffu)  /* the live map keeps 31 bits of owner */
    return -1;
  if (table->count == table->capacity) {
    size_t capacity = table->capacity ? table->capacity * 2 : 64;
    uint32_t *sites = realloc(table->sites, capacity * sizeof *sites);
    if (!sites)
      return -1;
    table->sites = sites;
    uint32_t *stacks = realloc(table->stacks, capacity * sizeof *stacks);
    if (!stacks)
      return -1;
    table->stacks = stacks;
    table->capacity = capacity;
  }
  table->sites[table->count] = site;
  table->stacks[table->count] = stack;
  table->slots[i] = (uint32_t)table->count + 1;
  *index = (uint32_t)table->count++;
found:
  table->has_last = 1;
  table->last_key = key;
  table->last_index = *index;
  return 0;
}
