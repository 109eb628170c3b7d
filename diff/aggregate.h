/* diff/aggregate.h: a whole capture aggregated: the live map carried across pieces of segments, a series per site. */
#ifndef LJLEAK_DIFF_AGGREGATE_H
#define LJLEAK_DIFF_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "diff/source.h"
#include "diff/diff.h"
#include "diff/live_map.h"
#include "diff/segment.h"
#include "diff/site_table.h"
#include "diff/stack_table.h"

/* An owner across the capture: a site, or with stacks a (site, stack) pair. The series arrays hold one entry per boundary. */
struct diff_aggregate_site {
  uint64_t live_bytes, live_blocks;     /* now, young blocks included */
  uint64_t young_bytes, young_blocks;   /* live blocks born young in the piece being merged */
  uint64_t segment_alloc_bytes, segment_free_bytes;  /* since the last boundary */
  uint64_t allocs, frees;
  uint64_t held_bytes;                  /* live at the last boundary, young blocks included */
  /* Since the last boundary: freed of the blocks live at it, as the segments tell (their
   * own blocks); freed of the capture's map's blocks, and allocated in pieces that ended
   * with no boundary (the most of those blocks that can have been born since it). */
  uint64_t held_free_bytes, map_free_bytes, born_bytes;
  uint64_t *series_live_bytes, *series_live_blocks, *series_alloc_bytes, *series_free_bytes;
  uint64_t *series_survived_bytes;      /* at least the bytes still live of the blocks live at
                                           the boundary before (DIFF_AGGREGATE_UNKNOWN: not
                                           known): a fall the live bytes miss, as frees show it */
  uint64_t *series_young_bytes;         /* the young blocks' bytes, left out of series_live_bytes */
};

/* A survived figure not known: the first boundary. */
#define DIFF_AGGREGATE_UNKNOWN UINT64_MAX

/* The capture's blocks at a kept boundary (diff_source_boundary.keep: a heap snapshot's), in
 * no order; owners are the capture's. */
struct diff_aggregate_kept {
  size_t boundary;            /* its index in the capture */
  struct diff_segment_block *blocks;
  size_t count;
  struct diff_live_map_big *big;  /* the blocks' sizes of 4 GiB or more */
  size_t big_count;
};

/* The size of block i of kept. */
static inline uint64_t diff_aggregate_kept_size(const struct diff_aggregate_kept *kept, size_t i)
{
  return diff_segment_block_size(&kept->blocks[i], kept->big, kept->big_count);
}

struct diff_aggregate {
  struct diff_site_table sites;      /* global indices, by stable name */
  struct diff_stack_table stacks;    /* global stacks, by content; 0: none */
  struct diff_pair_table owners;     /* (global site, global stack): without stacks, owner i is site i */
  struct diff_aggregate_site *data;  /* [owners.count] */
  size_t data_capacity;
  struct diff_live_map live;         /* site = global owner index */
  size_t boundaries;
  size_t series_capacity;
  uint64_t events;
  uint64_t sample;              /* sampling interval used to scale (0: none) */
  struct diff_aggregate_kept *kept;  /* the kept boundaries read, in order */
  size_t kept_count;
};

int diff_aggregate_init(struct diff_aggregate *aggregate, uint64_t sample);
void diff_aggregate_release(struct diff_aggregate *aggregate);

/* Merges the next segment, read to its end: its pieces in order, each
 * ending at the next boundary when it says so. The capture's map may take
 * the segment's map (segment->touched is then empty), so segment can be
 * reset and read again but not merged again. A segment that does not list
 * its touches (lists_touches 0) is merged only into an aggregate that holds
 * no block. Returns -1 when out of memory. */
int diff_aggregate_merge(struct diff_aggregate *aggregate, struct diff_segment_aggregate *segment);

/* Reads every segment of capture in order into aggregate, each one's stream
 * once, piece by piece (capture->pieces), options->jobs segments at a time,
 * with at most jobs + 1 segments held at once. A cut segment, or boundary
 * lines dropped past the end of a .part or pointing at a segment that is
 * not there, call options->warn (or fail with FORMAT_CUT under
 * options->strict) and set capture->info.truncated. A boundary line past
 * the end of a listed segment's stream is an input error at its line. */
enum format_status diff_aggregate_capture(struct diff_aggregate *aggregate, struct diff_source *capture,
                                          const struct diff_options *options, struct format_error *err);

/* The blocks live at the kept boundary of index boundary, or NULL when it was not kept (not
 * marked, or not reached). */
const struct diff_aggregate_kept *diff_aggregate_kept_at(const struct diff_aggregate *aggregate, size_t boundary);

/* Where a block is looked up: aggregate's map (kept NULL), or its blocks at a kept boundary. */
struct diff_aggregate_at {
  const struct diff_aggregate *aggregate;
  const struct diff_aggregate_kept *kept;
};

/* The name of the site that made the block at address there, or NULL when no block is there.
 * A kept boundary's blocks are in no order: a look-up there is a scan (for the few containers
 * of a diff). */
const char *diff_aggregate_made_at(const struct diff_aggregate_at *at, uint64_t address);

/* The owner of the site name (made with kind when new), with no stack: for
 * owners of the caller's own (diff/survivors.c). Returns -1 when out of memory. */
int diff_aggregate_owner_named(struct diff_aggregate *aggregate, const char *name, size_t length,
                               enum diff_site_kind kind, uint32_t *index);

/* Gives every live block of owner o to owner to[o] (DIFF_AGGREGATE_STAY:
 * it stays), its live bytes and blocks with it. to has owners.count entries. */
#define DIFF_AGGREGATE_STAY UINT32_MAX
void diff_aggregate_move_blocks(struct diff_aggregate *aggregate, const uint32_t *to);

/* Called at a stop of a stepwise reading, the capture's map then holding
 * every block live at that boundary; returns -1 when out of memory. */
typedef int (*diff_aggregate_hook)(struct diff_aggregate *aggregate, size_t boundary, void *context);

/* Where a stepwise reading stops: at the boundaries at[0..count) (rising
 * indices), and after boundary until it reads no further. */
struct diff_aggregate_stops {
  const size_t *at;
  size_t count;
  size_t until;
};

/* Reads capture into aggregate as diff_aggregate_capture does (by site
 * alone unless stacks), on one thread, and calls hook at each stop, where
 * the segment being read is merged so far; the series are complete up to
 * stops->until. Slower than a first reading: for what needs the blocks
 * themselves at boundaries. Cuts are not warned about again. */
enum format_status diff_aggregate_capture_stepwise(struct diff_aggregate *aggregate,
                                                   struct diff_source *capture, int stacks,
                                                   const struct diff_aggregate_stops *stops,
                                                   diff_aggregate_hook hook, void *context,
                                                   struct format_error *err);

#endif
