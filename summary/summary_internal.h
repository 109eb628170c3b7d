/* summary/summary_internal.h: the summary's state, shared by its parts; other stages include only summary/summary.h. */
#ifndef LJLEAK_SUMMARY_SUMMARY_INTERNAL_H
#define LJLEAK_SUMMARY_SUMMARY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "format/memprof.h"
#include "summary/heap_map.h"
#include "summary/id.h"
#include "container/index_table.h"
#include "summary/name_table.h"
#include "summary/primary_table.h"
#include "summary/entry.h"
#include "summary/summary.h"

/* A location as an event gives it, and its site: one way of
 * summary.recent_sites. An unused way has site SUMMARY_ID_NONE and a source
 * no event has. */
struct summary_recent_site {
  uint64_t location, line;
  uint32_t source, site;
};
#define SUMMARY_RECENT_SITES 256  /* a power of two */

struct summary {
  struct memprof_symtab *symtab;
  uint64_t symbol_epoch;        /* a site's name_epoch when its name is current; 0: it may have changed */
  uint64_t events;

  struct summary_site *sites;
  size_t site_capacity;
  struct index_table site_index;

  struct summary_name_table names;

  struct summary_entry *entries;
  size_t entry_count, entry_capacity;

  struct summary_primary_table primaries;

  uint32_t last_site;           /* the previous event's site, or SUMMARY_ID_NONE */
  enum memprof_source last_source;
  uint64_t last_location, last_line;
  uint32_t last_entry[4];       /* that site's entries by event kind (memprof's), or SUMMARY_ID_NONE */
  uint32_t last_version;        /* its version while its name is current, or SUMMARY_ID_NONE */
  /* Sites of recent locations, direct-mapped (pending_site): a quarter of
   * events change location, mostly between a few hundred sites. */
  struct summary_recent_site recent_sites[SUMMARY_RECENT_SITES];

  struct summary_heap_map heap;
  struct summary_version *versions;
  size_t version_count, version_capacity;

  char *name_buffer;            /* scratch for memprof_symtab_name */
  size_t name_buffer_size;

};

#endif
