/* diff/segment.c: reads a segment's stream, piece by piece, into a partial aggregate: local sites, their churn per piece, touched addresses. */
#include "diff/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  /* a location's hash runs for every event whose location is not the last one */
#endif
#include <xxhash.h>

#include "container/array.h"
#include "diff/sampling.h"
#include "format/capture_layout.h"
#include "format/decode.h"
#include "format/stacks.h"

/* A location as events carry it; source 0 marks an empty slot. */
struct segment_location {
  uint64_t location, line;
  uint32_t source;
  uint32_t site;
};

#define SEGMENT_LOCATIONS_INITIAL 256

/* The per-event steps, inlined into the read loop: a call per event costs more than the step. */
#define SEGMENT_HOT static inline __attribute__((always_inline))

int diff_segment_aggregate_init(struct diff_segment_aggregate *segment)
{
  memset(segment, 0, sizeof *segment);
  segment->young_from = UINT64_MAX;
  segment->lists_touches = 1;
  if (diff_site_table_init(&segment->sites) < 0)
    return -1;
  if (diff_live_map_init(&segment->touched) < 0) {
    diff_site_table_release(&segment->sites);
    return -1;
  }
  segment->locations = calloc(SEGMENT_LOCATIONS_INITIAL, sizeof *segment->locations);
  segment->location_mask = SEGMENT_LOCATIONS_INITIAL - 1;
  segment->name_capacity = 256;
  segment->name = malloc(segment->name_capacity);
  int tables = diff_pair_table_init(&segment->pairs);
  tables |= diff_stack_table_init(&segment->stacks);
  if (!segment->locations || !segment->name || tables < 0) {
    diff_segment_aggregate_release(segment);
    return -1;
  }
  return 0;
}

void diff_segment_aggregate_release(struct diff_segment_aggregate *segment)
{
  diff_site_table_release(&segment->sites);
  diff_live_map_release(&segment->touched);
  free(segment->stats);
  free(segment->touches);
  free(segment->pieces);
  free(segment->piece_sites);
  free(segment->young);
  free(segment->locations);
  free(segment->name);
  diff_pair_table_release(&segment->pairs);
  diff_stack_table_release(&segment->stacks);
  free(segment->stack_of_id);
  diff_segment_aggregate_drop_kept(segment);
  memset(segment, 0, sizeof *segment);
}

int diff_segment_aggregate_reset(struct diff_segment_aggregate *segment)
{
  diff_site_table_release(&segment->sites);
  if (diff_site_table_init(&segment->sites) < 0)
    return -1;
  if (segment->stats)
    memset(segment->stats, 0, segment->stats_capacity * sizeof *segment->stats);
  diff_live_map_clear(&segment->touched);
  if (segment->location_count)
    memset(segment->locations, 0, (segment->location_mask + 1) * sizeof *segment->locations);
  segment->location_count = 0;
  segment->last_source = 0;
  segment->events = 0;
  segment->young_from = UINT64_MAX;
  segment->lists_touches = 1;
  segment->truncated = 0;
  segment->warning[0] = '\0';
  segment->touch_count = segment->piece_count = segment->piece_site_count = 0;
  segment->piece_mark = 0;
  segment->young_count = 0;
  segment->paired = 0;
  diff_pair_table_clear(&segment->pairs);
  diff_stack_table_clear(&segment->stacks);
  if (segment->stack_of_id)
    memset(segment->stack_of_id, 0, segment->stack_id_capacity * sizeof *segment->stack_of_id);
  segment->stack_reader = NULL;
  segment->stack_failed = 0;
  diff_segment_aggregate_drop_kept(segment);
  segment->stack_warning[0] = '\0';
  return 0;
}

/* Appends address to a list of addresses (8 bytes each: the touches of a
 * segment are as many as the addresses it touched). */
static inline int segment_list_add(uint64_t **list, size_t *count, size_t *capacity, uint64_t address)
{
  if (*count == *capacity && array_grow((void **)list, capacity, *count + 1, sizeof **list) < 0)
    return -1;
  (*list)[(*count)++] = address;
  return 0;
}


/* *block, the block at address, made when new (*created), when it was first
 * touched here listed among the touches. 1; 0 for address 0 (no block, nothing
 * to do); -1 when out of memory. */
static inline int segment_touch(struct diff_segment_aggregate *segment, uint64_t address, size_t hash,
                                struct diff_live_block **block, int *created)
{
  if (!address)
    return 0;
  *block = live_map_insert_hashed(&segment->touched, address, hash, created);
  if (!*block || (*created && segment->lists_touches &&
                  segment_list_add(&segment->touches, &segment->touch_count, &segment->touch_capacity,
                                   address) < 0))
    return -1;
  return 1;
}

/* A live block's end (freed, or allocated over): counted as its owner's free. */
static inline void segment_close(struct diff_segment_aggregate *segment, const struct diff_live_block *block,
                                 uint64_t sample)
{
  struct diff_segment_site *owner = &segment->stats[block->site & DIFF_LIVE_MAP_SITE_MASK];
  uint64_t old_size = live_map_size(&segment->touched, block);
  uint64_t bytes = sampling_bytes(sample, old_size);
  owner->free_bytes += bytes;
  owner->frees += sampling_blocks(sample, old_size);
  if ((block->site & DIFF_LIVE_MAP_PIECE) != segment->piece_mark)  /* it lived at the piece's start */
    owner->held_free_bytes += bytes;
}

SEGMENT_HOT int segment_alloc(struct diff_segment_aggregate *segment, uint32_t site,
                                uint64_t address, size_t hash, uint64_t size, uint64_t sample,
                                uint32_t young)
{
  struct diff_live_block *block;
  int created, touched = segment_touch(segment, address, hash, &block, &created);
  if (touched <= 0)
    return touched;
  if (!created && block->site != DIFF_LIVE_MAP_DEAD)  /* an alloc over a live block closes it */
    segment_close(segment, block, sample);
  if (live_map_set_size(&segment->touched, block, size) < 0)
    return -1;
  block->site = site | young | segment->piece_mark;
  struct diff_segment_site *stats = &segment->stats[site];
  stats->alloc_bytes += sampling_bytes(sample, size);
  stats->allocs += sampling_blocks(sample, size);
  if (young && segment_list_add(&segment->young, &segment->young_count, &segment->young_capacity,
                                address) < 0)
    return -1;
  return 0;
}

/* A free of an address first touched here marks it touched (dead): the merge
 * then ends whatever block the capture held there before this segment.
 * *young gets DIFF_LIVE_MAP_YOUNG when the block freed was young. */
SEGMENT_HOT int segment_free(struct diff_segment_aggregate *segment, uint64_t address, size_t hash,
                               uint64_t sample, uint32_t *young)
{
  struct diff_live_block *block;
  *young = 0;
  int created, touched = segment_touch(segment, address, hash, &block, &created);
  if (touched <= 0)
    return touched;
  if (created)
    block->site = DIFF_LIVE_MAP_DEAD;
  else if (block->site != DIFF_LIVE_MAP_DEAD) {
    *young = block->site & DIFF_LIVE_MAP_YOUNG;
    segment_close(segment, block, sample);
    block->site = DIFF_LIVE_MAP_DEAD;
    (void)live_map_set_size(&segment->touched, block, 0);  /* never fails: the size shrinks */
  }
  return 0;
}

int diff_segment_aggregate_alloc(struct diff_segment_aggregate *segment, uint32_t site, uint64_t address,
                            size_t hash, uint64_t size, uint64_t sample)
{
  return segment_alloc(segment, site, address, hash, size, sample, 0);
}

int diff_segment_aggregate_free(struct diff_segment_aggregate *segment, uint64_t address, size_t hash,
                           uint64_t sample)
{
  uint32_t young;
  return segment_free(segment, address, hash, sample, &young);
}

static enum diff_site_kind segment_kind(enum memprof_source source)
{
  switch (source) {
  case MEMPROF_SOURCE_LUA:
    return DIFF_SITE_LUA;
  case MEMPROF_SOURCE_C:
    return DIFF_SITE_C;
  case MEMPROF_SOURCE_TRACE:
    return DIFF_SITE_TRACE;
  default:
    return DIFF_SITE_INTERNAL;
  }
}

SEGMENT_HOT size_t segment_location_home(const struct diff_segment_aggregate *segment, uint64_t location,
                                    uint64_t line, uint32_t source)
{
  /* The line and source as the seed: no 16-byte key built in memory, whose
   * load would wait for the two stores that made it. */
  return (size_t)XXH3_64bits_withSeed(&location, sizeof location, line << 4 | source) &
         segment->location_mask;
}

static int segment_locations_grow(struct diff_segment_aggregate *segment)
{
  size_t old_size = segment->location_mask + 1;
  struct segment_location *old = segment->locations;
  struct segment_location *slots = calloc(old_size * 2, sizeof *slots);
  if (!slots)
    return -1;
  segment->locations = slots;
  segment->location_mask = old_size * 2 - 1;
  for (size_t i = 0; i < old_size; i++) {
    if (!old[i].source)
      continue;
    size_t j = segment_location_home(segment, old[i].location, old[i].line, old[i].source);
    while (slots[j].source)
      j = (j + 1) & segment->location_mask;
    slots[j] = old[i];
  }
  free(old);
  return 0;
}

static void segment_remember_location(struct diff_segment_aggregate *segment,
                                      const struct segment_location *slot)
{
  segment->last_source = slot->source;
  segment->last_location = slot->location;
  segment->last_line = slot->line;
  segment->last_site = slot->site;
}

/* Names the site of a location not in the cache and caches it at slot i
 * (where its probe ended). Out of line: it runs once per location. */
static __attribute__((noinline)) int
segment_name_site(struct diff_segment_aggregate *segment, const struct memprof_symtab *symtab,
                  const struct memprof_event *event, uint64_t location, uint64_t line,
                  uint32_t source, size_t i, uint32_t *site)
{
  size_t length = memprof_symtab_name(symtab, event, MEMPROF_NAMING_STABLE, segment->name,
                                      segment->name_capacity);
  if (length + 1 > segment->name_capacity) {
    char *bigger = realloc(segment->name, length + 1);
    if (!bigger)
      return -1;
    segment->name = bigger;
    segment->name_capacity = length + 1;
    length = memprof_symtab_name(symtab, event, MEMPROF_NAMING_STABLE, segment->name,
                                 segment->name_capacity);
  }
  enum diff_site_kind kind = segment_kind(event->source);
  if (!strcmp(segment->name, "INTERNAL"))
    kind = DIFF_SITE_INTERNAL;
  if (diff_segment_aggregate_site(segment, segment->name, length, kind, site) < 0)
    return -1;
  if ((segment->location_count + 1) * 2 > segment->location_mask + 1) {
    if (segment_locations_grow(segment) < 0)
      return -1;
    i = segment_location_home(segment, location, line, source);
    while (segment->locations[i].source)
      i = (i + 1) & segment->location_mask;
  }
  struct segment_location *slot = &segment->locations[i];
  slot->location = location;
  slot->line = line;
  slot->source = source;
  slot->site = *site;
  segment->location_count++;
  segment_remember_location(segment, slot);
  return 0;
}

/* The local site of an event's location: cached, named on a miss. The key
 * is passed as numbers: built from the event here, gcc pairs it in a vector
 * stored to memory and read back, and every event waits on that. */
SEGMENT_HOT int segment_location_site(struct diff_segment_aggregate *segment,
                                      const struct memprof_symtab *symtab,
                                      const struct memprof_event *event, uint64_t location,
                                      uint64_t line, uint32_t source, uint32_t *site)
{
  if (segment->last_source == source && segment->last_location == location &&
      segment->last_line == line) {  /* runs of events from one place are common */
    *site = segment->last_site;
    return 0;
  }
  size_t i = segment_location_home(segment, location, line, source);
  for (;; i = (i + 1) & segment->location_mask) {
    struct segment_location *slot = &segment->locations[i];
    if (!slot->source)
      break;
    if (slot->source == source && slot->location == location && slot->line == line) {
      *site = slot->site;
      segment_remember_location(segment, slot);
      return 0;
    }
  }
  return segment_name_site(segment, symtab, event, location, line, source, i, site);
}

SEGMENT_HOT int segment_event_site(struct diff_segment_aggregate *segment,
                                   const struct memprof_symtab *symtab,
                                   const struct memprof_event *event, uint32_t *site)
{
  uint32_t source = (uint32_t)event->source;
  uint64_t line = source == MEMPROF_SOURCE_LUA ? event->line : 0;
  uint64_t location = source == MEMPROF_SOURCE_INTERNAL ? 0 : event->location;
  return segment_location_site(segment, symtab, event, location, line,
                               source ? source : 8 /* 0 marks empty slots */, site);
}

/* A new symbol can rename a location (addresses and trace numbers are
 * reused): the locations it may rename are forgotten, to be named again on
 * their next event. The others stay: naming a location costs far more than
 * looking it up, and a JIT-heavy stream brings a trace symbol every few
 * thousand events. The slots are rebuilt without them (no tombstones). */
static void segment_forget_locations(struct diff_segment_aggregate *segment, const struct memprof_symtab *symtab,
                                     const struct memprof_symbol *symbol)
{
  segment->last_source = 0;
  if (!segment->location_count)
    return;
  size_t size = segment->location_mask + 1;
  struct segment_location *old = segment->locations;
  struct segment_location *slots = calloc(size, sizeof *slots);
  if (!slots) {  /* forget them all, as a rebuild would need room */
    memset(old, 0, size * sizeof *old);
    segment->location_count = 0;
    return;
  }
  segment->locations = slots;
  segment->location_count = 0;
  for (size_t i = 0; i < size; i++) {
    if (!old[i].source ||
        memprof_symtab_renames(symtab, symbol, (enum memprof_source)old[i].source, old[i].location))
      continue;
    size_t j = segment_location_home(segment, old[i].location, old[i].line, old[i].source);
    while (slots[j].source)
      j = (j + 1) & segment->location_mask;
    slots[j] = old[i];
    segment->location_count++;
  }
  free(old);
}

/* An event reduced to what the map needs: free old_address (if not 0), then
 * allocate new_address for site (if new_size is not 0). */
struct segment_pending {
  uint32_t site;
  uint32_t young;             /* DIFF_LIVE_MAP_YOUNG when born after young_from */
  uint64_t old_address;
  uint64_t new_address, new_size;
  size_t old_hash, new_hash;
};

#define SEGMENT_PENDING 16  /* a power of two */

SEGMENT_HOT int segment_apply(struct diff_segment_aggregate *segment, const struct segment_pending *op,
                         uint64_t sample)
{
  uint32_t young = op->young, old_young = DIFF_LIVE_MAP_YOUNG;
  if (op->old_address &&
      segment_free(segment, op->old_address, op->old_hash, sample, &old_young) < 0)
    return -1;
  /* A block moved by a realloc is as old as the one it replaces: its object
   * was reachable when it grew (a table's array part resized during the
   * final cycle), where a young block may be garbage that cycle left. */
  if (op->new_size &&
      segment_alloc(segment, op->site, op->new_address, op->new_hash, op->new_size, sample,
                    young & old_young) < 0)
    return -1;
  return 0;
}

static enum format_status segment_out_of_memory(struct format_error *err, const char *path)
{
  return format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", path);
}

/* Names event's site now (the symbols are those of this moment) and queues
 * it as the n-th event of the read into ring, a ring of SEGMENT_PENDING
 * whose map slots are prefetched when they enter and used when they leave:
 * the slot holds event n - SEGMENT_PENDING once the ring is full, which is
 * applied first. The ring and n stay in the caller (in registers, not in a
 * structure). Returns -1 when out of memory. */
SEGMENT_HOT int segment_queue(struct diff_segment_aggregate *segment, struct segment_pending *ring,
                              uint64_t n, uint64_t young_n, uint64_t sample,
                              const struct memprof_symtab *symtab,
                              const struct memprof_event *event)
{
  struct segment_pending *op = &ring[n & (SEGMENT_PENDING - 1)];
  if (n >= SEGMENT_PENDING && segment_apply(segment, op, sample) < 0)
    return -1;
  op->young = n >= young_n ? DIFF_LIVE_MAP_YOUNG : 0;
  op->old_address = 0;
  op->new_size = 0;
  if (event->kind != MEMPROF_EVENT_FREE) {
    if (segment_event_site(segment, symtab, event, &op->site) < 0)
      return -1;
    if (segment->stack_reader && diff_segment_aggregate_pair(segment, segment->events + n, &op->site) < 0)
      return -1;
    if (event->new_size) {
      op->new_address = event->new_address;
      op->new_size = event->new_size;
      op->new_hash = live_map_hash(op->new_address);
      live_map_prefetch(&segment->touched, op->new_hash);
    }
  }
  if (event->kind != MEMPROF_EVENT_ALLOC) {
    op->old_address = event->old_address;
    op->old_hash = live_map_hash(op->old_address);
    live_map_prefetch(&segment->touched, op->old_hash);
  }
  return 0;
}

/* Decodes and queues the events of a span of the reader's window, as long
 * as *n stays below stop when bounded; returns the bytes used. Inlined twice
 * into the read loop, so that the loop that cannot reach stop in this span
 * (each event is a byte at least) tests nothing more per event than it did
 * before pieces. Sets *failed when out of memory. */
SEGMENT_HOT size_t segment_queue_span(struct diff_segment_aggregate *segment, struct segment_pending *ring,
                                      const uint8_t *at, size_t span, int version, uint64_t *n,
                                      uint64_t stop, int bounded, uint64_t young_n, uint64_t sample,
                                      const struct memprof_symtab *symtab, int pext, int *failed)
{
  size_t used = 0;
  uint64_t queued = *n;
  while (used < span && (!bounded || queued < stop)) {
    struct memprof_event event;
    size_t length = memprof_decode_event(at + used, version, &event, pext);
    if (!length)
      break;
    used += length;
    if (segment_queue(segment, ring, queued, young_n, sample, symtab, &event) < 0) {
      *failed = 1;
      break;
    }
    queued++;
  }
  *n = queued;
  return used;
}

/* Reads records up to limit events: runs of events are decoded in place
 * (decode.h) with pext a constant, so that each event is decoded and queued
 * in one pass; symbols, refills, the end and errors come from
 * memprof_reader_next, which is not called once limit events are read (the
 * next piece goes on from there). Sets *status to the reader's last status
 * (FORMAT_OK when it stopped at limit); returns -1 when out of memory. */
static inline __attribute__((always_inline)) int
segment_read_records(struct diff_segment_aggregate *segment, struct memprof_reader *reader,
                     struct memprof_symtab *symtab, uint64_t limit, uint64_t sample,
                     enum format_status *status, int pext)
{
  struct segment_pending ring[SEGMENT_PENDING];
  struct memprof_record record;
  uint64_t n = 0;  /* events queued by this read */
  uint64_t young_n = segment->young_from > segment->events
                         ? segment->young_from - segment->events : 0;
  int failed = 0;
  while (n < limit) {
    const uint8_t *at;
    size_t span = memprof_reader_events_span(reader, &at);
    int version = memprof_reader_events_version(reader);
    size_t used = limit - n > span
                      ? segment_queue_span(segment, ring, at, span, version, &n, limit, 0, young_n,
                                           sample, symtab, pext, &failed)
                      : segment_queue_span(segment, ring, at, span, version, &n, limit, 1, young_n,
                                           sample, symtab, pext, &failed);
    memprof_reader_consume(reader, used);
    if (failed || n >= limit)
      break;
    *status = memprof_reader_next(reader, &record);
    if (*status != FORMAT_OK)
      break;
    if (record.type == MEMPROF_RECORD_SYMBOL) {
      if (memprof_symtab_add(symtab, &record.symbol) < 0) {
        failed = 1;
        break;
      }
      segment_forget_locations(segment, symtab, &record.symbol);
    } else if (segment_queue(segment, ring, n, young_n, sample, symtab, &record.event) < 0) {
      failed = 1;
      break;
    } else {
      n++;
    }
  }
  segment->events += n;
  if (failed)
    return -1;
  /* What is left in the ring, oldest first. */
  for (uint64_t i = n > SEGMENT_PENDING ? n - SEGMENT_PENDING : 0; i < n; i++)
    if (segment_apply(segment, &ring[i & (SEGMENT_PENDING - 1)], sample) < 0)
      return -1;
  return 0;
}

/* The read loop where the reader decodes with pext: compiled for BMI1 and
 * BMI2, whose instructions (andn, blsmsk, tzcnt, shrx) shorten the decoding
 * of every number; called only where the CPU has them. */
MEMPROF_DECODE_BMI2 static int segment_read_bmi2(struct diff_segment_aggregate *segment,
                                                 struct memprof_reader *reader,
                                                 struct memprof_symtab *symtab, uint64_t limit,
                                                 uint64_t sample, enum format_status *status)
{
  return segment_read_records(segment, reader, symtab, limit, sample, status, 1);
}

/* The stream or its sidecar could not be opened: the reader's error, the stream closed. */
static enum format_status segment_open_failed(struct diff_segment_stream *stream,
                                              const struct format_error *open_error,
                                              struct format_error *err)
{
  *err = *open_error;
  diff_segment_stream_close(stream);
  return err->status;
}

enum format_status diff_segment_stream_open(struct diff_segment_stream *stream, const char *path,
                                            enum input_file_how how, struct format_error *err)
{
  memset(stream, 0, sizeof *stream);
  stream->path = path;
  struct format_error open_error;
  const char *slash = strrchr(path, '/');
  int part = capture_layout_classify(slash ? slash + 1 : path) == CAPTURE_LAYOUT_SEGMENT_PART;
  struct stat st;
  stream->reader = memprof_reader_open_as(path, how, &open_error);
  if (!stream->reader)
    return segment_open_failed(stream, &open_error, err);
  stream->empty_part = part && stat(path, &st) == 0 && st.st_size == 0;
  stream->symtab = memprof_symtab_new();
  if (!stream->symtab) {
    diff_segment_stream_close(stream);
    return segment_out_of_memory(err, path);
  }
  char sidecar[4096];
  size_t length = capture_layout_sidecar_name(path, sidecar, sizeof sidecar);
  if (length && lstat(sidecar, &st) == 0) {  /* none: no stacks; a link is one (refused) */
    stream->stacks = stacks_reader_open(sidecar, &open_error);
    if (!stream->stacks && !(part && open_error.status == FORMAT_CUT))
      return segment_open_failed(stream, &open_error, err);
  }
  return FORMAT_OK;
}

void diff_segment_stream_close(struct diff_segment_stream *stream)
{
  if (stream->symtab)
    memprof_symtab_free(stream->symtab);
  if (stream->reader)
    memprof_reader_close(stream->reader);
  if (stream->stacks)
    stacks_reader_close(stream->stacks);
  memset(stream, 0, sizeof *stream);
}

enum format_status diff_segment_aggregate_read_piece(struct diff_segment_aggregate *segment,
                                                     struct diff_segment_stream *stream, uint64_t limit,
                                                     uint64_t sample, struct format_error *err)
{
  if (stream->ended || limit == 0)
    return FORMAT_OK;
  if (stream->empty_part) {  /* made as the capture stopped: cut before its first byte */
    stream->ended = segment->truncated = 1;
    snprintf(segment->warning, sizeof segment->warning,
             "%s: byte 0: empty: the capture ended as it began this segment", stream->path);
    return FORMAT_OK;
  }
  struct memprof_reader *reader = stream->reader;
  enum format_status status = FORMAT_OK;
  segment->stack_reader = stream->stacks;
  if (stream->stacks)
    segment->paired = 1;  /* every owner of this segment is a pair, stackless ones too */
  int read = memprof_reader_pext(reader)
                 ? segment_read_bmi2(segment, reader, stream->symtab, limit, sample, &status)
                 : segment_read_records(segment, reader, stream->symtab, limit, sample, &status, 0);
  segment->stack_reader = NULL;  /* the stream may close before the next piece */
  if (read < 0)
    return segment_out_of_memory(err, stream->path);
  if (status == FORMAT_OK)  /* stopped at limit: the stream goes on */
    return FORMAT_OK;
  stream->ended = 1;
  if (status == FORMAT_CUT) {
    segment->truncated = 1;
    snprintf(segment->warning, sizeof segment->warning, "%s", memprof_reader_error(reader)->message);
  } else if (status != FORMAT_END) {
    *err = *memprof_reader_error(reader);
    return err->status;
  }
  return FORMAT_OK;
}
