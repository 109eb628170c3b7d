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
  /* Set by pending_apply_heap for pending_apply_sums: */
  uint32_t entry;               /* the event's entry */
  uint32_t made_by;             /* the version that made the block it released, or SUMMARY_ID_NONE */
  uint64_t found_size;          /* that block's size */
};

/* The way of summary.recent_sites that a location goes to: its fields
 * mixed by a multiply, the top bits taken. */
static inline size_t pending_recent_way(enum memprof_source source, uint64_t location, uint64_t line)
{
  uint64_t mixed = (location ^ line << 32 ^ (uint64_t)source << 60) * UINT64_C(0x9e3779b97f4a7c15);
  return (size_t)(mixed >> 56) & (SUMMARY_RECENT_SITES - 1);
}

/* The site of an event: the previous event's site when the location is the
 * same (events come in runs from one site: a loop allocating, the GC
 * sweeping), else the recent sites' (a few hundred sites take most
 * events), else the site table's. A location's site never changes, so
 * neither can be stale. SUMMARY_ID_NONE when out of memory. */
static inline uint32_t pending_site(struct summary *summary, const struct memprof_event *event)
{
  if (__builtin_expect(summary->last_site != SUMMARY_ID_NONE && event->source == summary->last_source &&
                           event->location == summary->last_location &&
                           event->line == summary->last_line,
                       1))
    return summary->last_site;
  struct summary_recent_site *recent =
      &summary->recent_sites[pending_recent_way(event->source, event->location, event->line)];
  uint32_t site_id = recent->site;
  if (__builtin_expect(recent->source != (uint32_t)event->source || recent->location != event->location ||
                           recent->line != event->line,
                       0)) {
    site_id = summary_site_lookup(summary, event->source, event->location, event->line);
    if (site_id == SUMMARY_ID_NONE)
      return SUMMARY_ID_NONE;
    *recent = (struct summary_recent_site){event->location, event->line, (uint32_t)event->source, site_id};
  }
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

/* An event is applied in two steps, so that a batch can take the first for
 * all its events before the second: the first finds the event's entry and
 * moves its block in the heap map (the map's buckets were prefetched when
 * the events were read), and prefetches the entry and the primary record
 * that the second updates. In event order within each step, the entries
 * and records are made in the same order as one event at a time would
 * make them; the heap map sees its puts and takes in event order too. */

/* The first step: the entry, the block. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_apply_heap(struct summary *summary, struct summary_pending_event *event)
{
  const struct summary_site *site = &summary->sites[event->site];
  uint32_t entry_id = site->entry[event->kind];
  if (__builtin_expect(site->name_epoch != summary->symbol_epoch || entry_id == SUMMARY_ID_NONE, 0)) {
    entry_id = summary_site_entry(summary, event->site, (int)event->kind);
    if (entry_id == SUMMARY_ID_NONE)
      return -1;
    site = &summary->sites[event->site];
  }
  event->entry = entry_id;
  __builtin_prefetch(&summary->entries[entry_id], 1);
  event->made_by = SUMMARY_ID_NONE;
  if (event->kind != KIND_ALLOC) {
    if (heap_map_take(&summary->heap, event->old_address, event->old_hash, &event->found_size,
                      &event->made_by)) {
      const struct summary_version *made_by = &summary->versions[event->made_by];
      const struct summary_primary_table *primaries = &summary->primaries;
      __builtin_prefetch(&primaries->slots[made_by->primary_slot[event->kind] & primaries->mask], 1);
    }
    if (event->kind == KIND_FREE)
      return 0;
  }
  return heap_map_put(&summary->heap, event->new_address, event->new_hash, event->new_size,
                      site->version);
}

/* The second step: the sums of the entry and of the primary record of the
 * block the event released. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_apply_sums(struct summary *summary, const struct summary_pending_event *event)
{
  struct summary_entry *entry = &summary->entries[event->entry];
  entry->events++;
  entry->alloc_bytes += event->new_size;
  entry->free_bytes += event->old_size;
  if (event->made_by == SUMMARY_ID_NONE)
    return 0;
  return pending_link(summary, event->entry, (int)event->kind, event->made_by, event->found_size,
                      event->new_size);
}

/* Applies one event. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_apply(struct summary *summary, struct summary_pending_event *event)
{
  if (pending_apply_heap(summary, event))
    return -1;
  return pending_apply_sums(summary, event);
}

#endif
