/* diff/segment.h: one segment's stream read on its own, piece by piece (from boundary to boundary), into a partial aggregate that the capture merges in order. */
#ifndef LJLEAK_DIFF_SEGMENT_H
#define LJLEAK_DIFF_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "diff/live_map.h"
#include "diff/site_table.h"
#include "diff/stack_table.h"
#include "format/memprof.h"

struct stacks_reader;

/* What a site did within the piece being read, counting only blocks born in
 * the segment (what blocks born before it were is for the merge to know). */
struct diff_segment_site {
  uint64_t alloc_bytes, allocs;  /* every allocation (and the new half of every realloc) */
  uint64_t free_bytes, frees;    /* frees of blocks born in this segment */
  uint64_t held_free_bytes;      /* of those, blocks live (and not young) at the piece's start */
  uint64_t young_bytes, young_blocks;  /* counted when the piece ends: its young blocks */
};

/* A site's part in one piece, kept when the piece ends (sites that did
 * nothing in it have none). */
struct diff_segment_piece_site {
  uint32_t site;                 /* local */
  struct diff_segment_site stats;
};

/* A piece of the segment: the events from one boundary (or the segment's
 * start) to the next (or the stream's end). */
/* A block as it was at a kept boundary (diff_source_boundary.keep): 16 bytes, as a live map's
 * (a heap snapshot's boundary keeps every block live there). */
struct diff_segment_block {
  uint64_t address;
  uint32_t owner;             /* the segment's local owner; the capture's once merged (diff/aggregate.h) */
  uint32_t size;              /* DIFF_LIVE_MAP_BIG_SIZE: 4 GiB or more, its size in the set's big list */
};

/* A kept set's block i at address, of size, made by owner, a big size listed in *big (*big_count
 * of them). -1 when out of memory. */
int diff_segment_block_put(struct diff_segment_block *blocks, size_t i, uint64_t address, uint64_t size,
                           uint32_t owner, struct diff_live_map_big **big, size_t *big_count);

/* The size of a kept set's block (big: its big list, big_count long: a handful at most). */
static inline uint64_t diff_segment_block_size(const struct diff_segment_block *block,
                                               const struct diff_live_map_big *big, size_t big_count)
{
  for (size_t i = 0; block->size == DIFF_LIVE_MAP_BIG_SIZE && i < big_count; i++)
    if (big[i].address == block->address)
      return big[i].size;
  return block->size;
}

/* The blocks of the segment's map at the end of a piece whose boundary is kept: what the
 * capture's map is there, with the blocks the segment did not touch before it added at the
 * merge (diff_aggregate_merge), so that a heap snapshot's boundary needs no second reading. */
struct diff_segment_kept {
  size_t boundary;            /* the boundary's index in the capture */
  size_t touches_end;         /* the segment's touches before it */
  struct diff_segment_block *blocks;
  size_t count;
  struct diff_live_map_big *big;  /* the blocks' sizes of 4 GiB or more */
  size_t big_count;
};

struct diff_segment_piece {
  size_t touches_end;            /* addresses first touched in it: from the last piece's end to this */
  size_t sites_end;              /* its piece sites: likewise */
  int boundary_end;              /* its end is a boundary */
};

/* A segment's partial aggregate. A segment can be read without knowing what
 * came before: its events touch addresses, and what an address held before
 * the segment matters only for the first event that touches it. So the
 * reader keeps every address the segment touched in `touched`, and lists
 * them in `touches` in the order of their first touch: the block the
 * capture held at an address (if any) ended in the piece of that first
 * touch (freed, or closed by an alloc over it). A piece's sites then say
 * what the blocks born in the segment did in it: live bytes at its end move
 * by what was allocated less what was freed. Merging costs one step per
 * touched address and one per site of each piece, whatever the event count
 * and however many pieces cut the segment. Live blocks born after the GC
 * cycle of the boundary that ends their piece started carry DIFF_LIVE_MAP_YOUNG
 * until the piece ends, when they are counted as that piece's young ones. */
struct diff_segment_aggregate {
  struct diff_site_table sites;       /* local site indices, by stable name */
  struct diff_segment_site *stats;    /* [sites.count]: the piece being read */
  size_t stats_capacity;
  struct diff_live_map touched;
  uint64_t events;               /* alloc, free and realloc events read */
  /* Blocks born at event index young_from or later (0-based in the segment,
   * counted as events is) are young: DIFF_LIVE_MAP_YOUNG. UINT64_MAX: none. The
   * reader sets it for each piece; init and reset make it UINT64_MAX. */
  uint64_t young_from;
  int truncated;                 /* the stream was cut; warning says where */
  char warning[FORMAT_ERROR_MESSAGE_SIZE];

  uint64_t *touches;                  /* addresses, in the order of their first touch */
  size_t touch_count, touch_capacity;
  /* 0 for the capture's first segment, where no block lived before: there
   * is nothing for its touches to end, and the capture's map takes its map
   * whole, so they are not listed (8 bytes an address saved). init and
   * reset make it 1. */
  int lists_touches;
  struct diff_segment_piece *pieces;  /* ended pieces, in stream order */
  size_t piece_count, piece_capacity;
  uint32_t piece_mark;                /* the piece being read, as DIFF_LIVE_MAP_PIECE bits */
  struct diff_segment_piece_site *piece_sites;
  size_t piece_site_count, piece_site_capacity;
  uint64_t *young;                    /* addresses of births into DIFF_LIVE_MAP_YOUNG in the piece being read */
  size_t young_count, young_capacity;

  /* (source, location, line) -> local site, valid until the symbols change */
  struct segment_location *locations;
  size_t location_mask, location_count;
  uint64_t last_location, last_line;  /* the last location looked up (last_source 0: none) */
  uint32_t last_source, last_site;
  char *name;                    /* scratch for memprof_symtab_name */
  size_t name_capacity;

  /* A segment with a stack sidecar: the map, the stats and the piece sites
   * follow (site, stack) pairs, numbered by `pairs`, instead of sites
   * (segment_owner_count). stack_reader is the open sidecar while pieces
   * are read (set by diff_segment_aggregate_read_piece), NULL without one. */
  int paired;
  struct diff_pair_table pairs;       /* (local site, local stack) */
  struct diff_stack_table stacks;     /* local stacks, by content */
  uint32_t *stack_of_id;         /* [stack_id_capacity] sidecar id -> local stack; 0 unseen */
  size_t stack_id_capacity;
  struct stacks_reader *stack_reader;
  int stack_failed;              /* the sidecar failed (stack_warning); stacks unknown from there */
  char stack_warning[FORMAT_ERROR_MESSAGE_SIZE];     /* a cut or unreadable sidecar, for the merge to warn about */

  struct diff_segment_kept *kept;     /* the kept boundaries it ended pieces at, in order */
  size_t kept_count;
};

/* The number of owners (what local indices in touches and piece sites
 * count): pairs when paired, else sites. */
static inline size_t segment_owner_count(const struct diff_segment_aggregate *segment)
{
  return segment->paired ? segment->pairs.count : segment->sites.count;
}

/* An owner's local site and local stack (0: none). */
static inline uint32_t segment_owner_site(const struct diff_segment_aggregate *segment, uint32_t owner)
{
  return segment->paired ? segment->pairs.sites[owner] : owner;
}
static inline uint32_t segment_owner_stack(const struct diff_segment_aggregate *segment, uint32_t owner)
{
  return segment->paired ? segment->pairs.stacks[owner] : 0;
}

int diff_segment_aggregate_init(struct diff_segment_aggregate *segment);
void diff_segment_aggregate_release(struct diff_segment_aggregate *segment);

/* Empties segment for the next stream, keeping its memory. Returns -1 when out of memory. */
int diff_segment_aggregate_reset(struct diff_segment_aggregate *segment);

/* A segment's stream, open while its pieces are read: the reader, where it
 * is, and the symbols seen so far, so that each piece goes on where the last
 * one stopped and no piece reads the stream again from its start. */
struct diff_segment_stream {
  struct memprof_reader *reader;
  struct stacks_reader *stacks;  /* its stack sidecar, or NULL when it has none */
  struct memprof_symtab *symtab;
  const char *path;              /* not owned: for messages */
  int ended;                     /* the stream's end (or the cut) was read: nothing more comes */
  int empty_part;                /* a segment being written (*.part) that has no byte yet */
};

/* Opens the stream at path (how: whose name it is, format/input_file.h), and its stack sidecar
 * when there is one (capture_layout_sidecar_name; a file found beside it). A segment being written (path ends in .part), which a
 * capture stopped or killed as it made the files can leave empty or with a sidecar cut in
 * its header, reads as a cut stream: of no event, or without stacks. Returns FORMAT_OK, or
 * FORMAT_BAD_INPUT / FORMAT_NO_MEMORY with err filled (stream is then closed). */
enum format_status diff_segment_stream_open(struct diff_segment_stream *stream, const char *path,
                                            enum input_file_how how, struct format_error *err);
void diff_segment_stream_close(struct diff_segment_stream *stream);

/* Reads the stream's next limit events (UINT64_MAX: up to its end) into
 * segment, as part of the piece being read (segment->young_from set for
 * it). Stops short of limit only at the stream's end: segment->events says
 * how many were read, stream->ended is set, and segment->truncated for a
 * cut stream. sample is the capture's sampling interval (0: none). Returns
 * FORMAT_OK or FORMAT_BAD_INPUT / FORMAT_NO_MEMORY. */
enum format_status diff_segment_aggregate_read_piece(struct diff_segment_aggregate *segment,
                                                     struct diff_segment_stream *stream, uint64_t limit,
                                                     uint64_t sample, struct format_error *err);

/* Ends the piece being read: its young blocks are counted (and old from
 * now on), its sites kept; the next events start a new piece. boundary_end:
 * the piece's end is a boundary. Returns -1 when out of memory. */
/* Keeps the map's live blocks as they are at the end of the piece just ended, whose boundary
 * (the capture's index) is kept. Returns -1 when out of memory. */
int diff_segment_aggregate_keep(struct diff_segment_aggregate *segment, size_t boundary);

/* Frees the kept boundaries' blocks that no merge took. */
void diff_segment_aggregate_drop_kept(struct diff_segment_aggregate *segment);

int diff_segment_aggregate_end_piece(struct diff_segment_aggregate *segment, int boundary_end,
                                uint64_t sample);

/* Applies one event (exposed for tests); site is a local site index, hash is
 * live_map_hash(address). Return -1 when out of memory. */
int diff_segment_aggregate_alloc(struct diff_segment_aggregate *segment, uint32_t site, uint64_t address,
                            size_t hash, uint64_t size, uint64_t sample);
int diff_segment_aggregate_free(struct diff_segment_aggregate *segment, uint64_t address, size_t hash,
                           uint64_t sample);

/* Room for count owners' stats. Returns -1 when out of memory. */
int diff_segment_aggregate_reserve(struct diff_segment_aggregate *segment, size_t count);

/* An allocation's local site turned into its (site, stack) pair, the stack
 * being event's in the sidecar (segment->stack_reader, read in lockstep;
 * diff/segment_stacks.c). Out of line: the common path has no sidecar.
 * Returns -1 when out of memory. */
int diff_segment_aggregate_pair(struct diff_segment_aggregate *segment, uint64_t event, uint32_t *site);

/* The local index of a site named name (added if new). Returns -1 when out of memory. */
int diff_segment_aggregate_site(struct diff_segment_aggregate *segment, const char *name, size_t length,
                           enum diff_site_kind kind, uint32_t *site);

#endif
