/* summary/summary.c: a summary's life: made, fed symbols and single events, counted, freed. */
#include "summary/summary.h"

#include <stdlib.h>

#include "summary/hash.h"
#include "summary/pending.h"
#include "summary/summary_internal.h"

struct summary *summary_new(void)
{
  struct summary *summary = calloc(1, sizeof *summary);
  if (!summary)
    return NULL;
  summary->symtab = memprof_symtab_new();
  summary->name_buffer_size = 256;
  summary->name_buffer = malloc(summary->name_buffer_size);
  int failed = !summary->symtab || !summary->name_buffer;
  failed |= index_table_init(&summary->site_index);
  failed |= summary_name_table_init(&summary->names);
  failed |= summary_primary_table_init(&summary->primaries, 64);
  failed |= summary_heap_map_init(&summary->heap);
  if (failed) {
    summary_free(summary);
    return NULL;
  }
  summary->symbol_epoch = 1;
  summary->last_site = SUMMARY_ID_NONE;
  for (size_t i = 0; i < SUMMARY_RECENT_SITES; i++)
    summary->recent_sites[i] = (struct summary_recent_site){0, 0, 0, SUMMARY_ID_NONE};
  return summary;
}

void summary_free(struct summary *summary)
{
  if (!summary)
    return;
  if (summary->symtab)
    memprof_symtab_free(summary->symtab);
  free(summary->sites);
  index_table_release(&summary->site_index);
  summary_name_table_release(&summary->names);
  free(summary->entries);
  summary_primary_table_release(&summary->primaries);
  summary_heap_map_release(&summary->heap);
  free(summary->versions);
  free(summary->name_buffer);
  free(summary);
}

int summary_add_symbol(struct summary *summary, const struct memprof_symbol *symbol)
{
  if (memprof_symtab_add(summary->symtab, symbol))
    return -1;
  /* Only the sites whose names it may change are named again (site.c):
   * naming one costs far more than this test, and a JIT-heavy stream
   * brings a trace symbol every few thousand events. */
  for (size_t i = 0; i < summary->site_index.count; i++) {
    struct summary_site *site = &summary->sites[i];
    uint64_t location = site->source == MEMPROF_SOURCE_TRACE ? site->trace : site->address;
    if (site->name_epoch == summary->symbol_epoch &&
        memprof_symtab_renames(summary->symtab, symbol, site->source, location))
      site->name_epoch = 0;
  }
  summary->last_site = SUMMARY_ID_NONE;  /* its version may have changed */
  return 0;
}

int summary_add_event(struct summary *summary, const struct memprof_event *event)
{
  struct memprof_event normal = *event;
  if (normal.kind == MEMPROF_EVENT_ALLOC)
    normal.old_address = normal.old_size = 0;
  if (normal.kind == MEMPROF_EVENT_FREE)
    normal.new_address = normal.new_size = 0;
  struct summary_pending_event pending;
  int filled = pending_fill(summary, &pending, &normal);
  if (filled)
    return filled < 0 ? -1 : 0;
  pending.old_hash = hash_u64(pending.old_address);
  pending.new_hash = hash_u64(pending.new_address);
  pending.offset = 0;
  summary->events++;
  return pending_apply(summary, &pending);
}

uint64_t summary_event_count(const struct summary *summary)
{
  return summary->events;
}
