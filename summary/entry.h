/* summary/entry.h: Tarantool's entries: location ids (sites), the names they take as symbols arrive, one entry per id and kind; what the summary's state holds of them (summary/site.h looks them up). */
#ifndef LJLEAK_SUMMARY_ENTRY_H
#define LJLEAK_SUMMARY_ENTRY_H

#include <stdint.h>

#include "format/memprof.h"

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

#endif
