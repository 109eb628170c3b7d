/* summary/site.h: Tarantool's entries: location ids (sites), the names they take as symbols arrive, one entry per id and kind. */
#ifndef LJLEAK_SUMMARY_SITE_H
#define LJLEAK_SUMMARY_SITE_H

#include <stdint.h>

#include "format/memprof.h"

struct summary;

/* Event kinds, as entries are kept and in the order the report prints them. */
enum { KIND_ALLOC, KIND_REALLOC, KIND_FREE, KIND_COUNT };

/* One location id: (address, line, trace number), as Tarantool keys it. */
struct summary_site {
  uint64_t address, line, trace;
  enum memprof_source source;   /* of the first event seen here; used to name it */
  uint32_t version;             /* (site, name) under the current symbols, or SUMMARY_ID_NONE */
  uint64_t name_epoch;          /* symbol epoch in which it was computed */
  uint32_t entry[KIND_COUNT];   /* this id's entry per event kind, or SUMMARY_ID_NONE */
};

/* One line of ALLOCATIONS, REALLOCATIONS or DEALLOCATIONS. */
struct summary_entry {
  int kind;
  uint32_t name;                /* the id's name when the entry was made */
  uint32_t primary_count;       /* records in the primary table */
  uint64_t events, alloc_bytes, free_bytes;
};

/* A site under one name. Names change when symbols arrive, and a block keeps
 * the name its site had when the block was made: blocks record versions. */
struct summary_version {
  uint32_t site, name;
  uint32_t primary_slot[KIND_COUNT];  /* per releasing kind, the slot of the primary
                                      * record last updated for these blocks: a
                                      * guess, checked by its key (here, not in the
                                      * site: one dependent load fewer per free) */
};

/* The site of an event's location, added if new; SUMMARY_ID_NONE when out of memory. */
uint32_t summary_site_lookup(struct summary *summary, enum memprof_source source, uint64_t location,
                     uint64_t line);

/* The entry of a site for a kind, made if new; SUMMARY_ID_NONE when out of memory.
 * The site's version is brought up to date first (symbols may have renamed
 * it). The feeding loop calls it when the site has no entry for the kind yet
 * or symbols arrived since its version was made. */
uint32_t summary_site_entry(struct summary *summary, uint32_t site_id, int kind);

#endif
