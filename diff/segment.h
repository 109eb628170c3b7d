/* diff/segment.h: one segment read on its own into a partial aggregate that the capture merges in order. */
#ifndef LJLEAK_DIFF_SEGMENT_H
#define LJLEAK_DIFF_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "diff/live_map.h"
#include "diff/site_table.h"
#include "format/memprof.h"

/* What a site did within the segment, counting only blocks born in it. */
struct segment_site {
  uint64_t alloc_bytes, allocs;  /* every allocation (and the new half of every realloc) */
  uint64_t free_bytes, frees;    /* frees of blocks born in this segment */
};

/* A segment's partial aggregate. A segment can be read without knowing what
 * came before: its events touch addresses, and what an address held before
 * the segment matters only for the first event that touches it. So the
 * reader keeps every address the segment touched in `touched`: blocks born
 * here and still live at the end carry their site, the others LIVE_MAP_DEAD.
 * Merging then costs one step per touched address, whatever the event count:
 * the block the capture held there (if any) ended in this segment (freed, or
 * closed by an alloc over it), and the live ones are born. Live blocks born
 * after the segment's final GC cycle started carry LIVE_MAP_YOUNG too. */
struct segment_aggregate {
  struct site_table sites;       /* local site indices, by stable name */
  struct segment_site *stats;    /* [sites.count] */
  size_t stats_capacity;
  struct live_map touched;
  uint64_t events;               /* alloc, free and realloc events */
  /* Blocks born at event index young_from or later (0-based, counted as
   * events is) are young: LIVE_MAP_YOUNG. UINT64_MAX: none. The reader sets
   * it before segment_aggregate_read; init and reset make it UINT64_MAX. */
  uint64_t young_from;
  /* The segment ended on no GC cycle (a stop, an exit, a kill): its events
   * count, but its end is no boundary, since its garbage is still live. */
  int cut_short;
  int truncated;                 /* the stream was cut; warning says where */
  char warning[512];

  /* (source, location, line) -> local site, valid until the symbols change */
  struct segment_location *locations;
  size_t location_mask, location_count;
  uint64_t last_location, last_line;  /* the last location looked up (last_source 0: none) */
  uint32_t last_source, last_site;
  char *name;                    /* scratch for memprof_symtab_name */
  size_t name_capacity;
};

int segment_aggregate_init(struct segment_aggregate *segment);
void segment_aggregate_release(struct segment_aggregate *segment);

/* Empties segment for the next stream, keeping its memory. Returns -1 when out of memory. */
int segment_aggregate_reset(struct segment_aggregate *segment);

/* Reads the stream at path into segment (which must be fresh from init).
 * sample is the capture's sampling interval (0: none). Returns DIFF_OK (with
 * truncated set for a cut stream) or DIFF_ERROR_INPUT / DIFF_ERROR_MEMORY. */
enum diff_status segment_aggregate_read(struct segment_aggregate *segment, const char *path,
                                        uint64_t sample, struct diff_error *err);

/* Applies one event (exposed for tests); site is a local site index, hash is
 * live_map_hash(address). Return -1 when out of memory. */
int segment_aggregate_alloc(struct segment_aggregate *segment, uint32_t site, uint64_t address,
                            size_t hash, uint64_t size, uint64_t sample);
int segment_aggregate_free(struct segment_aggregate *segment, uint64_t address, size_t hash,
                           uint64_t sample);

/* The local index of a site named name (added if new). Returns -1 when out of memory. */
int segment_aggregate_site(struct segment_aggregate *segment, const char *name, size_t length,
                           enum diff_site_kind kind, uint32_t *site);

#endif
