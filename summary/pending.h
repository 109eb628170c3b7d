/* summary/pending.h: one event on its way into the summary: its site resolved, then applied to entries, records and the heap map. */
#ifndef LJLEAK_SUMMARY_PENDING_H
#define LJLEAK_SUMMARY_PENDING_H

#include <stdint.h>

#include "summary/site.h"
#include "summary/summary_internal.h"

/* Everything here is inlined into the feeding loop (summary_read.c), which
 * runs it for every event. */

/* One event as the feeding loop keeps it: its entry and site version
 * resolved, the sizes a kind does not carry zero. */
struct summary_pending_event {
  uint32_t kind;                /* MEMPROF_EVENT_ALLOC, _REALLOC or _FREE */
  uint32_t entry;               /* the event's entry (its sums are added when it is filled) */
  uint32_t version;             /* its site's version, for the block it makes */
  uint64_t old_address, old_size, new_address, new_size;
  uint64_t old_hash, new_hash;  /* of the addresses, for the kinds that carry them */
  uint64_t offset;              /* of the record, for error messages */
};

/* The kind of an event (MEMPROF_EVENT_ALLOC, _FREE or _REALLOC) as the
 * report orders kinds (KIND_ALLOC, KIND_REALLOC, KIND_FREE). The feeding
 * loop keeps the event's own kind: mapping it costs a load per event. */
static inline int pending_report_kind(unsigned kind)
{
  return kind == MEMPROF_EVENT_ALLOC ? KIND_ALLOC : kind == MEMPROF_EVENT_REALLOC ? KIND_REALLOC : KIND_FREE;
}

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
static inline __attribute__((always_inline)) uint32_t
pending_site(struct summary *summary, const struct memprof_event *event)
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
  /* A site's entries never change once made; its version changes when
   * symbols rename it, and is taken only while its name is current. */
  const struct summary_site *site = &summary->sites[site_id];
  summary->last_entry[MEMPROF_EVENT_ALLOC] = site->entry[KIND_ALLOC];
  summary->last_entry[MEMPROF_EVENT_FREE] = site->entry[KIND_FREE];
  summary->last_entry[MEMPROF_EVENT_REALLOC] = site->entry[KIND_REALLOC];
  summary->last_version = site->name_epoch == summary->symbol_epoch ? site->version : SUMMARY_ID_NONE;
  summary->last_site = site_id;
  summary->last_source = event->source;
  summary->last_location = event->location;
  summary->last_line = event->line;
  return site_id;
}

/* Fills pending from event; returns 0, 1 for a record that is no allocation
 * event, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_fill(struct summary *summary, struct summary_pending_event *pending, const struct memprof_event *event)
{
  unsigned kind = (unsigned)event->kind;
  if (__builtin_expect(kind == MEMPROF_EVENT_SYMTAB || kind > MEMPROF_EVENT_REALLOC, 0))
    return 1;  /* a symtab event's entries come as symbols */
  /* The reader leaves the fields a kind does not carry zero. */
  pending->kind = kind;
  pending->old_address = event->old_address;
  pending->old_size = event->old_size;
  pending->new_address = event->new_address;
  pending->new_size = event->new_size;
  uint32_t site_id = pending_site(summary, event);
  if (site_id == SUMMARY_ID_NONE)
    return -1;
  uint32_t entry_id = summary->last_entry[kind];
  if (__builtin_expect(entry_id == SUMMARY_ID_NONE || summary->last_version == SUMMARY_ID_NONE, 0)) {
    entry_id = summary_site_entry(summary, site_id, pending_report_kind(kind));
    if (entry_id == SUMMARY_ID_NONE)
      return -1;
    summary->last_entry[kind] = entry_id;
    summary->last_version = summary->sites[site_id].version;
  }
  pending->entry = entry_id;
  pending->version = summary->last_version;
  /* The entry's sums need nothing from the heap map: added here, in event
   * order, so that entries are made in the order events name them. */
  struct summary_entry *entry = &summary->entries[entry_id];
  entry->events++;
  entry->alloc_bytes += event->new_size;
  entry->free_bytes += event->old_size;
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

/* Applies one filled event: moves its block in the heap map (the map's
 * buckets were prefetched when the event was read, a batch earlier), and
 * adds the block it released to its primary record. Events are applied in
 * order, so the heap map sees its puts and takes, and records are made, as
 * they come. Returns 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int
pending_apply(struct summary *summary, const struct summary_pending_event *event)
{
  uint32_t made_by = SUMMARY_ID_NONE;
  uint64_t found_size = 0;
  if (event->kind != MEMPROF_EVENT_ALLOC &&
      heap_map_take(&summary->heap, event->old_address, event->old_hash, &found_size, &made_by) &&
      pending_link(summary, event->entry, pending_report_kind(event->kind), made_by, found_size,
                   event->new_size))
    return -1;
  if (event->kind == MEMPROF_EVENT_FREE)
    return 0;
  return heap_map_put(&summary->heap, event->new_address, event->new_hash, event->new_size,
                      event->version);
}

#endif
