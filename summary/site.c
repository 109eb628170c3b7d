/* summary/site.c: Tarantool's entries: location ids, their names under the symbols seen so far, and their entries. */
#include "summary/site.h"

#include <stdlib.h>
#include <string.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  /* names and location keys hash in a few inlined instructions */
#endif
#include <xxhash.h>

#include "container/array.h"
#include "summary/hash.h"
#include "summary/summary_internal.h"

/* A location id being looked up: what the site table's probe compares. */
struct site_key {
  const struct summary_site *sites;
  uint64_t address, line, trace;
};

static int site_equal(const void *context, uint32_t index)
{
  const struct site_key *key = context;
  const struct summary_site *site = &key->sites[index];
  return site->address == key->address && site->line == key->line && site->trace == key->trace;
}

uint32_t summary_site_lookup(struct summary *summary, enum memprof_source source, uint64_t location,
                     uint64_t event_line)
{
  /* Address, line, trace: what the parser's id holds. Sources alternate
   * unpredictably (an allocating site, then the GC), so the key is made by
   * masks rather than a switch. The event's fields come as numbers: read
   * from the event in memory, just stored by the decoder, gcc loads two at
   * once and waits on those stores. */
  uint64_t is_lua = (uint64_t)0 - (source == MEMPROF_SOURCE_LUA);
  uint64_t is_c = (uint64_t)0 - (source == MEMPROF_SOURCE_C);
  uint64_t is_trace = (uint64_t)0 - (source == MEMPROF_SOURCE_TRACE);
  struct site_key key = {summary->sites, location & (is_lua | is_c), event_line & is_lua,
                         location & is_trace};
  struct index_table *table = &summary->site_index;
  /* Eight bytes and a seed, in registers: a key built in memory and hashed
   * from there would wait on the stores that made it. Equality still
   * compares all three. */
  uint64_t folded = key.address ^ key.trace;
  uint64_t hash = XXH3_64bits_withSeed(&folded, sizeof folded, key.line);
  uint32_t found = index_table_probe(table, hash, site_equal, &key)->index;
  if (found != INDEX_TABLE_NONE)
    return found;
  /* A new site: its room first, then its slot. */
  if (array_reserve((void **)&summary->sites, &summary->site_capacity, table->count + 1,
                       sizeof *summary->sites))
    return SUMMARY_ID_NONE;
  uint32_t id = (uint32_t)table->count;
  struct summary_site *site = &summary->sites[id];
  site->address = key.address;
  site->line = key.line;
  site->trace = key.trace;
  site->source = source;
  site->version = SUMMARY_ID_NONE;
  site->name_epoch = 0;
  for (int k = 0; k < KIND_COUNT; k++)
    site->entry[k] = SUMMARY_ID_NONE;
  return index_table_add(table, hash);
}

/* The version (site and name) a site has under the current symbols: its name
 * is computed once, and again only after new symbols arrive. */
static uint32_t site_version(struct summary *summary, uint32_t site_id)
{
  struct summary_site *site = &summary->sites[site_id];
  if (site->version != SUMMARY_ID_NONE && site->name_epoch == summary->symbol_epoch)
    return site->version;
  struct memprof_event event = {.kind = MEMPROF_EVENT_ALLOC, .source = site->source};
  switch (site->source) {
  case MEMPROF_SOURCE_LUA:
    event.location = site->address;
    event.line = site->line;
    break;
  case MEMPROF_SOURCE_C:
    event.location = site->address;
    break;
  case MEMPROF_SOURCE_TRACE:
    event.location = site->trace;
    break;
  default:
    break;
  }
  size_t length = memprof_symtab_name(summary->symtab, &event, MEMPROF_NAMING_TARANTOOL,
                                      summary->name_buffer, summary->name_buffer_size);
  if (length >= summary->name_buffer_size) {
    char *bigger = realloc(summary->name_buffer, length + 1);
    if (!bigger)
      return SUMMARY_ID_NONE;
    summary->name_buffer = bigger;
    summary->name_buffer_size = length + 1;
    length = memprof_symtab_name(summary->symtab, &event, MEMPROF_NAMING_TARANTOOL,
                                 summary->name_buffer, summary->name_buffer_size);
  }
  uint32_t name = summary_name_table_intern(&summary->names, summary->name_buffer, length);
  if (name == SUMMARY_ID_NONE)
    return SUMMARY_ID_NONE;
  site = &summary->sites[site_id];
  site->name_epoch = summary->symbol_epoch;
  if (site->version != SUMMARY_ID_NONE && summary->versions[site->version].name == name)
    return site->version;
  if (summary->version_count >= SUMMARY_HEAP_MAP_VERSION_LIMIT - 1 ||
      array_reserve((void **)&summary->versions, &summary->version_capacity,
                       summary->version_count + 1, sizeof *summary->versions))
    return SUMMARY_ID_NONE;
  summary->versions[summary->version_count] = (struct summary_version){site_id, name, {0}};
  site->version = (uint32_t)summary->version_count++;
  return site->version;
}

static uint32_t site_entry_new(struct summary *summary, int kind, uint32_t name)
{
  if (summary->entry_count >= SUMMARY_ID_NONE ||
      array_reserve((void **)&summary->entries, &summary->entry_capacity,
                       summary->entry_count + 1, sizeof *summary->entries))
    return SUMMARY_ID_NONE;
  struct summary_entry *entry = &summary->entries[summary->entry_count];
  memset(entry, 0, sizeof *entry);
  entry->kind = kind;
  entry->name = name;
  return (uint32_t)summary->entry_count++;
}

uint32_t summary_site_entry(struct summary *summary, uint32_t site_id, int kind)
{
  uint32_t version = site_version(summary, site_id);
  if (version == SUMMARY_ID_NONE)
    return SUMMARY_ID_NONE;
  uint32_t entry_id = summary->sites[site_id].entry[kind];
  if (entry_id == SUMMARY_ID_NONE) {
    entry_id = site_entry_new(summary, kind, summary->versions[version].name);
    if (entry_id == SUMMARY_ID_NONE)
      return SUMMARY_ID_NONE;
    summary->sites[site_id].entry[kind] = entry_id;
  }
  return entry_id;
}
