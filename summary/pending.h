/* summary/pending.h: one event on its way into the summary: its site resolved, then applied to entries, records and the heap map. */
#ifndef LJLEAK_SUMMARY_PENDING_H
#define LJLEAK_SUMMARY_PENDING_H

#include <stdint.h>

#include "summary/site.h"
#include "summary/summary_internal.h"

/* Everything here is inlined into the feeding loop (summary_read.c), which
 * runs it for every event. */

/* One event as the feeding loop keeps it: its site resolved, its kind as
 * the report orders kinds, the sizes a kind does not carry zero. */
struct summary_pending_event {
  uint32_t kind;                /* KIND_ALLOC, KIND_REALLOC or KIND_FREE */
  uint32_t site;
  uint64_t old_address, old_size, new_address, new_size;
  uint64_t old_hash, new_hash;  /* of the addresses, for the kinds that carry them */
  uint64_t offset;              /* of the record, for error messages */
};

/* The site of an event: the previous event's site when the location is the
 * same (events come in runs from one site: a loop allocating, the GC
 * sweeping), else the site table's. SUMMARY_ID_NONE when out of memory. */
static inline uint32_t pending_site(struct summary *summary, const struct memprof_event *event)
{
  if (__builtin_expect(summary->last_site != SUMMARY_ID_NONE && event->source == summary->last_source &&
                           event->location == summary->last_location &&
                           event->line == summary->last_line,
                       1))
    return summary->last_site;
  uint32_t site_id = summary_site_lookup(summary, event->source, event->location, event->line);
  if (site_id == SUMMARY_ID_NONE)
    return SUMMARY_ID_NONE;
  summary->last_site = site_id;
  summary->last_source = event->source;
  summary->last_location = event->location;
  summary->last_line = event->line;
  return site_id;
}

/* Fills pending from event; returns 0, 1 for a record that is no allocation
 * event, or -1 when out of memory. */
static inline int pending_fill(struct summary *summary, struct summary_pending_event *pending,
                               const struct memprof_event *event)
{
  /* Report kinds by event kind; KIND_COUNT for symtab events (their
   * entries come as symbols) and anything else. */
  static const uint8_t kinds[4] = {
      [MEMPROF_EVENT_SYMTAB] = KIND_COUNT, [MEMPROF_EVENT_ALLOC] = KIND_ALLOC,
      [MEMPROF_EVENT_FREE] = KIND_FREE, [MEMPROF_EVENT_REALLOC] = KIND_REALLOC};
  unsigned kind = (unsigned)event->kind < 4 ? kinds[event->kind] : KIND_COUNT;
  if (__builtin_expect(kind == KIND_COUNT, 0))
    return 1;
  /* The reader leaves the fields a kind does not carry zero. */
  pending->kind = kind;
  pending->old_address = event->old_address;
  pending->old_size = event->old_size;
  pending->new_address = event->new_address;
  pending->new_size = event->new_size;
  uint32_t site_id = pending_site(summary, event);
  if (site_id == SUMMARY_ID_NONE)
    return -1;
  pending->site = site_id;
  return 0;
}

/* Records that entry (of kind) overrode a block of old_size bytes, made by
 * version, with a block of new_size bytes (0 for a free). */
static inline __attribute__((always_inline)) int
pending_link(struct summary *summary, uint32_t entry_id, int kind, uint32_t version,
             uint64_t old_size, uint64_t new_size)
{
  struct summary_version *made_by = &summary->versions[version];
  /* Most of a site's blocks are freed by one location (the GC) and
   * reallocated by one (often the site itself): per kind, the record the
   * site's last block went to is tried first. */
  struct summary_primary *record;
  int made = primary_table_record(&summary->primaries, (uint64_t)entry_id << 32 | made_by->site,
                                  made_by->name, &made_by->primary_slot[kind], &record);
  if (__builtin_expect(made != 0, 0)) {
    if (made < 0)
      return -1;
    summary->entries[entry_id].primary_count++;
  }
  record->allocated += new_size;
  record->freed += old_size;
  record->count++;
  return 0;
}

/* Applies one event. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_apply(struct summary *summary, const struct summary_pending_event *event)
{
  const struct summary_site *site = &summary->sites[event->site];
  uint32_t entry_id = site->entry[event->kind];
  if (__builtin_expect(site->name_epoch != summary->symbol_epoch || entry_id == SUMMARY_ID_NONE, 0)) {
    entry_id = summary_site_entry(summary, event->site, (int)event->kind);
    if (entry_id == SUMMARY_ID_NONE)
      return -1;
    site = &summary->sites[event->site];
  }
  uint32_t version = site->version;
  struct summary_entry *entry = &summary->entries[entry_id];
  entry->events++;
  entry->alloc_bytes += event->new_size;
  entry->free_bytes += event->old_size;
  if (event->kind != KIND_ALLOC) {
    uint64_t old_size;
    uint32_t old_version;
    if (heap_map_take(&summary->heap, event->old_address, event->old_hash, &old_size,
                      &old_version) &&
        pending_link(summary, entry_id, (int)event->kind, old_version, old_size,
                     event->new_size))
      return -1;
    if (event->kind == KIND_FREE)
      return 0;
  }
  return heap_map_put(&summary->heap, event->new_address, event->new_hash, event->new_size,
                      version);
}

#endif
