/* diff/aggregate.c: merges pieces of segments in order into per-site series; reads segments on worker threads. */
#include "diff/aggregate.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/sampling.h"
#include "format/stacks.h"

#define AGGREGATE_AHEAD 8  /* touched addresses prefetched ahead in a merge (a power of two) */

int diff_aggregate_init(struct diff_aggregate *aggregate, uint64_t sample)
{
  memset(aggregate, 0, sizeof *aggregate);
  aggregate->sample = sample;
  if (diff_site_table_init(&aggregate->sites) < 0)
    return -1;
  if (diff_live_map_init(&aggregate->live) < 0 || diff_stack_table_init(&aggregate->stacks) < 0 ||
      diff_pair_table_init(&aggregate->owners) < 0) {
    diff_aggregate_release(aggregate);
    return -1;
  }
  return 0;
}

static void aggregate_site_release(struct diff_aggregate_site *site)
{
  free(site->series_live_bytes);
  free(site->series_live_blocks);
  free(site->series_alloc_bytes);
  free(site->series_free_bytes);
}

void diff_aggregate_release(struct diff_aggregate *aggregate)
{
  for (size_t i = 0; i < aggregate->owners.count && aggregate->data; i++)
    aggregate_site_release(&aggregate->data[i]);
  free(aggregate->data);
  diff_site_table_release(&aggregate->sites);
  diff_stack_table_release(&aggregate->stacks);
  diff_pair_table_release(&aggregate->owners);
  diff_live_map_release(&aggregate->live);
  for (size_t i = 0; i < aggregate->kept_count; i++)
    free(aggregate->kept[i].blocks);
  free(aggregate->kept);
  memset(aggregate, 0, sizeof *aggregate);
}

const struct diff_aggregate_kept *diff_aggregate_kept_at(const struct diff_aggregate *aggregate, size_t boundary)
{
  for (size_t i = 0; i < aggregate->kept_count; i++)
    if (aggregate->kept[i].boundary == boundary)
      return &aggregate->kept[i];
  return NULL;
}

static int aggregate_series_resize(uint64_t **series, size_t capacity)
{
  uint64_t *bigger = realloc(*series, capacity * sizeof *bigger);
  if (!bigger)
    return -1;
  *series = bigger;
  return 0;
}

static int aggregate_site_reserve(struct diff_aggregate_site *site, size_t capacity)
{
  if (aggregate_series_resize(&site->series_live_bytes, capacity) < 0 ||
      aggregate_series_resize(&site->series_live_blocks, capacity) < 0 ||
      aggregate_series_resize(&site->series_alloc_bytes, capacity) < 0 ||
      aggregate_series_resize(&site->series_free_bytes, capacity) < 0)
    return -1;
  return 0;
}

/* The owner (site, stack), made when new with zeros for the boundaries before it. */
static int aggregate_owner_add(struct diff_aggregate *aggregate, uint32_t site, uint32_t stack,
                               uint32_t *index)
{
  size_t before = aggregate->owners.count;
  if (aggregate->owners.count == aggregate->data_capacity) {
    size_t capacity = aggregate->data_capacity ? aggregate->data_capacity * 2 : 64;
    struct diff_aggregate_site *bigger = realloc(aggregate->data, capacity * sizeof *bigger);
    if (!bigger)
      return -1;
    aggregate->data = bigger;
    aggregate->data_capacity = capacity;
  }
  if (diff_pair_table_intern(&aggregate->owners, site, stack, index) < 0)
    return -1;
  if (aggregate->owners.count == before)
    return 0;
  struct diff_aggregate_site *owner = &aggregate->data[*index];
  memset(owner, 0, sizeof *owner);
  if (aggregate->series_capacity) {
    if (aggregate_site_reserve(owner, aggregate->series_capacity) < 0) {
      aggregate_site_release(owner);
      memset(owner, 0, sizeof *owner);
      return -1;   /* the owner stays, with NULL series; diff_aggregate_release copes */
    }
    size_t bytes = aggregate->boundaries * sizeof(uint64_t);
    memset(owner->series_live_bytes, 0, bytes);
    memset(owner->series_live_blocks, 0, bytes);
    memset(owner->series_alloc_bytes, 0, bytes);
    memset(owner->series_free_bytes, 0, bytes);
  }
  return 0;
}

/* The global owner of a segment's local owner: its site by name, its stack
 * by content; a new owner gets zeros for the boundaries before it. */
static int aggregate_owner(struct diff_aggregate *aggregate, const struct diff_segment_aggregate *segment,
                           uint32_t local, uint32_t *index)
{
  uint32_t local_site = segment_owner_site(segment, local);
  uint32_t local_stack = segment_owner_stack(segment, local);
  uint32_t site, stack = 0;
  if (diff_site_table_intern(&aggregate->sites, segment->sites.names[local_site],
                        segment->sites.lengths[local_site], segment->sites.kinds[local_site],
                        &site) < 0)
    return -1;
  if (local_stack) {
    const struct diff_stack_entry *entry = &segment->stacks.entries[local_stack];
    if (diff_stack_table_intern(&aggregate->stacks, entry->hash, entry->frames, entry->frame_count,
                           &stack) < 0)
      return -1;
  }
  return aggregate_owner_add(aggregate, site, stack, index);
}

const char *diff_aggregate_made_at(const struct diff_aggregate_at *at, uint64_t address)
{
  const struct diff_aggregate *aggregate = at->aggregate;
  uint32_t owner = UINT32_MAX;
  if (!at->kept) {
    const struct diff_live_block *block = diff_live_map_find(&aggregate->live, address);
    owner = block ? block->site : owner;
  }
  for (size_t i = 0; at->kept && i < at->kept->count && owner == UINT32_MAX; i++)
    if (at->kept->blocks[i].address == address)
      owner = at->kept->blocks[i].owner;
  if (owner >= aggregate->owners.count)
    return NULL;
  uint32_t global = aggregate->owners.sites[owner];
  return global < aggregate->sites.count ? aggregate->sites.names[global] : NULL;
}

int diff_aggregate_owner_named(struct diff_aggregate *aggregate, const char *name, size_t length,
                               enum diff_site_kind kind, uint32_t *index)
{
  uint32_t site;
  if (diff_site_table_intern(&aggregate->sites, name, length, kind, &site) < 0)
    return -1;
  return aggregate_owner_add(aggregate, site, 0, index);
}

void diff_aggregate_move_blocks(struct diff_aggregate *aggregate, const uint32_t *to)
{
  struct diff_live_map *live = &aggregate->live;
  for (size_t i = 0; live->slots && i < live->slot_count; i++) {
    struct diff_live_block *slot = &live->slots[i];
    if (!slot->address || to[slot->site] == DIFF_AGGREGATE_STAY)
      continue;
    uint64_t size = live_map_size(live, slot);
    uint64_t bytes = sampling_bytes(aggregate->sample, size);
    uint64_t blocks = sampling_blocks(aggregate->sample, size);
    struct diff_aggregate_site *from = &aggregate->data[slot->site], *into = &aggregate->data[to[slot->site]];
    from->live_bytes -= bytes;
    from->live_blocks -= blocks;
    into->live_bytes += bytes;
    into->live_blocks += blocks;
    slot->site = to[slot->site];
  }
}


/* Ends the capture's block in slot: it was freed, or closed by an alloc over
 * it, during the segment being merged. The caller removes or reuses the slot. */
static void aggregate_end_block(struct diff_aggregate *aggregate, const struct diff_live_block *slot)
{
  uint64_t size = live_map_size(&aggregate->live, slot);
  struct diff_aggregate_site *owner = &aggregate->data[slot->site];
  uint64_t bytes = sampling_bytes(aggregate->sample, size);
  uint64_t blocks = sampling_blocks(aggregate->sample, size);
  owner->live_bytes -= bytes;
  owner->live_blocks -= blocks;
  owner->segment_free_bytes += bytes;
  owner->frees += blocks;
}

static int aggregate_boundary(struct diff_aggregate *aggregate)
{
  size_t at = aggregate->boundaries;
  if (at == aggregate->series_capacity) {
    size_t capacity = aggregate->series_capacity ? aggregate->series_capacity * 2 : 16;
    for (size_t i = 0; i < aggregate->owners.count; i++)
      if (aggregate_site_reserve(&aggregate->data[i], capacity) < 0)
        return -1;
    aggregate->series_capacity = capacity;
  }
  for (size_t i = 0; i < aggregate->owners.count; i++) {
    struct diff_aggregate_site *site = &aggregate->data[i];
    /* young blocks wait for the next boundary: they may be garbage the
     * segment's final GC cycle could not yet collect */
    site->series_live_bytes[at] = site->live_bytes - site->young_bytes;
    site->series_live_blocks[at] = site->live_blocks - site->young_blocks;
    site->young_bytes = site->young_blocks = 0;
    site->series_alloc_bytes[at] = site->segment_alloc_bytes;
    site->series_free_bytes[at] = site->segment_free_bytes;
    site->segment_alloc_bytes = site->segment_free_bytes = 0;
  }
  aggregate->boundaries++;
  return 0;
}

/* Adds what a piece's sites did: the blocks born in the segment moved live
 * bytes by what they allocated less what they freed. */
static void aggregate_piece_sites(struct diff_aggregate *aggregate, const struct diff_segment_aggregate *segment,
                                  size_t from, size_t to, const uint32_t *global)
{
  for (size_t i = from; i < to; i++) {
    const struct diff_segment_piece_site *entry = &segment->piece_sites[i];
    struct diff_aggregate_site *site = &aggregate->data[global[entry->site]];
    const struct diff_segment_site *stats = &entry->stats;
    site->live_bytes += stats->alloc_bytes - stats->free_bytes;
    site->live_blocks += stats->allocs - stats->frees;
    site->young_bytes += stats->young_bytes;
    site->young_blocks += stats->young_blocks;
    site->segment_alloc_bytes += stats->alloc_bytes;
    site->segment_free_bytes += stats->free_bytes;
    site->allocs += stats->allocs;
    site->frees += stats->frees;
  }
}

/* The hash of address, its slots in both maps asked for. */
static inline size_t aggregate_prefetch(const struct diff_aggregate *aggregate,
                                        const struct diff_segment_aggregate *segment, uint64_t address)
{
  size_t hash = live_map_hash(address);
  live_map_prefetch(&aggregate->live, hash);
  live_map_prefetch(&segment->touched, hash);
  return hash;
}

/* The capture's block at address (if any) ended: freed, or closed by an alloc over it. */
static inline void aggregate_end_at(struct diff_aggregate *aggregate, uint64_t address, size_t hash)
{
  const struct diff_live_block *slot = live_map_find_hashed(&aggregate->live, address, hash);
  if (slot)
    aggregate_end_block(aggregate, slot);
}

/* The capture's map takes what address holds at the segment's end. */
static inline int aggregate_take_address(struct diff_aggregate *aggregate,
                                         const struct diff_segment_aggregate *segment,
                                         const uint32_t *global, uint64_t address, size_t hash)
{
  struct diff_live_map *live = &aggregate->live;
  const struct diff_live_block *held = live_map_find_hashed(&segment->touched, address, hash);
  if (held->site == DIFF_LIVE_MAP_DEAD) {
    struct diff_live_block *slot = live_map_find_hashed(live, address, hash);
    if (slot)
      diff_live_map_remove_slot(live, slot);
    return 0;
  }
  int created;
  struct diff_live_block *slot = live_map_insert_hashed(live, address, hash, &created);
  if (!slot)
    return -1;
  slot->site = global[held->site & DIFF_LIVE_MAP_SITE_MASK];
  if (live_map_set_size(live, slot, live_map_size(&segment->touched, held)) < 0) {
    diff_live_map_remove_slot(live, slot);
    return -1;
  }
  return 0;
}

/* For every address of touches[from, to): ends the capture's block there
 * (take 0), or gives the capture's map what it holds at the segment's end
 * (take 1). The slots of both maps are prefetched AGGREGATE_AHEAD addresses
 * ahead, their hashes kept in a ring so that each is computed once. */
static inline int aggregate_touches(struct diff_aggregate *aggregate, const struct diff_segment_aggregate *segment,
                                    const uint32_t *global, size_t from, size_t to, int take)
{
  const uint64_t *touches = segment->touches;
  size_t ring[AGGREGATE_AHEAD];
  for (size_t i = from; i < to && i < from + AGGREGATE_AHEAD; i++)
    ring[i & (AGGREGATE_AHEAD - 1)] = aggregate_prefetch(aggregate, segment, touches[i]);
  for (size_t t = from; t < to; t++) {
    size_t hash = ring[t & (AGGREGATE_AHEAD - 1)];
    if (t + AGGREGATE_AHEAD < to)
      ring[t & (AGGREGATE_AHEAD - 1)] = aggregate_prefetch(aggregate, segment, touches[t + AGGREGATE_AHEAD]);
    if (!take)
      aggregate_end_at(aggregate, touches[t], hash);
    else if (aggregate_take_address(aggregate, segment, global, touches[t], hash) < 0)
      return -1;
  }
  return 0;
}

/* The capture's map takes the segment's map: its sites made global, the
 * capture's blocks at addresses the segment did not touch added, its dead
 * addresses dropped; the segment gets an empty map. Chosen when the segment
 * touched as many addresses as the capture holds (its first segment, or a
 * program that rebuilt its heap): the capture's map is then the smaller
 * one, and no third map is made beside the two. */
static int aggregate_adopt(struct diff_aggregate *aggregate, struct diff_segment_aggregate *segment,
                           const uint32_t *global)
{
  struct diff_live_map *touched = &segment->touched, *live = &aggregate->live;
  for (size_t i = 0; i < touched->slot_count; i++) {
    struct diff_live_block *block = &touched->slots[i];
    if (block->address && block->site != DIFF_LIVE_MAP_DEAD)
      block->site = global[block->site & DIFF_LIVE_MAP_SITE_MASK];
  }
  for (size_t i = 0; i < live->slot_count; i++) {
    const struct diff_live_block *old = &live->slots[i];
    if (!old->address)
      continue;
    int created;
    struct diff_live_block *block = diff_live_map_insert(touched, old->address, &created);
    if (!block)
      return -1;
    if (!created)
      continue;  /* the segment's block (or its death) replaces the capture's */
    block->site = old->site;
    if (live_map_set_size(touched, block, live_map_size(live, old)) < 0) {
      diff_live_map_remove_slot(touched, block);
      return -1;
    }
  }
  diff_live_map_remove_dead(touched);
  struct diff_live_map taken = *touched;
  diff_live_map_release(live);
  *live = taken;
  return diff_live_map_init(touched);
}

/* The segment's kept boundaries become the capture's: their blocks made the capture's owners,
 * with the capture's blocks at addresses the segment had not touched by then (those it had are
 * marked in the capture's map, then unmarked: owners stay below 2^31). Before the segment's
 * touches change the capture's map. */
#define AGGREGATE_MARK DIFF_LIVE_MAP_YOUNG
static int aggregate_keep(struct diff_aggregate *aggregate, struct diff_segment_aggregate *segment,
                          const uint32_t *global)
{
  struct diff_live_map *live = &aggregate->live;
  for (size_t k = 0; k < segment->kept_count; k++) {
    struct diff_segment_kept *kept = &segment->kept[k];
    struct diff_aggregate_kept *list = realloc(aggregate->kept, (aggregate->kept_count + 1) * sizeof *list);
    if (!list)
      return -1;
    aggregate->kept = list;
    struct diff_segment_block *blocks = realloc(kept->blocks, (kept->count + live->count + 1) * sizeof *blocks);
    if (!blocks)
      return -1;
    kept->blocks = blocks;
    for (size_t i = 0; i < kept->count; i++)
      blocks[i].owner = global[blocks[i].owner];
    size_t count = kept->count;
    for (size_t t = 0; live->count && t < kept->touches_end; t++) {
      struct diff_live_block *slot = diff_live_map_find(live, segment->touches[t]);
      if (slot)
        slot->site |= AGGREGATE_MARK;
    }
    for (size_t i = 0; live->count && i < live->slot_count; i++) {
      struct diff_live_block *slot = &live->slots[i];
      if (!slot->address)
        continue;
      if (slot->site & AGGREGATE_MARK)
        slot->site &= ~AGGREGATE_MARK;
      else
        blocks[count++] = (struct diff_segment_block){slot->address, live_map_size(live, slot), slot->site};
    }
    struct diff_segment_block *fit = realloc(blocks, (count ? count : 1) * sizeof *fit);
    blocks = fit ? fit : blocks;  /* kept to the end of the diff: no room left over */
    list[aggregate->kept_count++] = (struct diff_aggregate_kept){kept->boundary, blocks, count};
    kept->blocks = NULL;
  }
  diff_segment_aggregate_drop_kept(segment);
  return 0;
}

int diff_aggregate_merge(struct diff_aggregate *aggregate, struct diff_segment_aggregate *segment)
{
  size_t local_count = segment_owner_count(segment);
  uint32_t *global = malloc((local_count ? local_count : 1) * sizeof *global);
  if (!global)
    return -1;
  for (size_t i = 0; i < local_count; i++)
    if (aggregate_owner(aggregate, segment, (uint32_t)i, &global[i]) < 0) {
      free(global);
      return -1;
    }
  if (segment->kept_count && aggregate_keep(aggregate, segment, global) < 0) {
    free(global);
    return -1;
  }
  /* Piece by piece: one step per address first touched in it (the block
   * the capture held there, if any, ended in this piece), then its sites,
   * then its boundary. Only the sites' figures are read at a boundary, so
   * the capture's map takes what the touched addresses hold at the
   * segment's end afterwards, in one go (no later step of this segment
   * looks at them again). */
  size_t t = 0, s = 0;
  for (size_t p = 0; p < segment->piece_count; p++) {
    const struct diff_segment_piece *piece = &segment->pieces[p];
    if (aggregate->live.count && segment->lists_touches)
      (void)aggregate_touches(aggregate, segment, global, t, piece->touches_end, 0);  /* cannot fail */
    t = piece->touches_end;
    aggregate_piece_sites(aggregate, segment, s, piece->sites_end, global);
    s = piece->sites_end;
    if (piece->boundary_end && aggregate_boundary(aggregate) < 0) {
      free(global);
      return -1;
    }
  }
  int failed = !segment->lists_touches || segment->touched.count >= aggregate->live.count
                   ? aggregate_adopt(aggregate, segment, global)
                   : aggregate_touches(aggregate, segment, global, 0, segment->touch_count, 1);
  free(global);
  if (failed)
    return -1;
  aggregate->events += segment->events;
  return 0;
}

/* ---- Reading a capture ---------------------------------------------------- */

static void aggregate_fail_memory(struct diff_error *err)
{
  err->status = DIFF_ERROR_MEMORY;
  snprintf(err->message, sizeof err->message, "out of memory");
}

/* Reads segment index of capture into segment (fresh), piece by piece from
 * one stream: each piece up to its boundary line, which it must reach. A
 * stream that ends first is an error at that line, but for a .part (a
 * killed process), whose boundaries from there on are dropped, with the
 * warning in dropped (else left empty). */
static enum diff_status aggregate_read_segment(const struct diff_source *capture, size_t index,
                                               struct diff_segment_aggregate *segment, uint64_t sample,
                                               char *dropped, size_t dropped_size,
                                               struct diff_error *err)
{
  const struct diff_source_segment *owner = &capture->segments[index];
  dropped[0] = '\0';
  segment->lists_touches = index > 0;  /* merged first: the capture holds nothing before it */
  struct diff_segment_stream stream;
  enum diff_status status = diff_segment_stream_open(&stream, owner->path, err);
  for (size_t p = owner->first_piece; status == DIFF_OK && p < owner->first_piece + owner->piece_count;
       p++) {
    const struct diff_source_piece *piece = &capture->pieces[p];
    uint64_t before = segment->events;
    segment->young_from = piece->young_from == UINT64_MAX ? UINT64_MAX : before + piece->young_from;
    status = diff_segment_aggregate_read_piece(segment, &stream, piece->limit, sample, err);
    if (status != DIFF_OK)
      break;
    int reached = piece->boundary == DIFF_SOURCE_NO_BOUNDARY || segment->events - before == piece->limit;
    if (!reached && !owner->partial) {
      const struct diff_source_boundary *boundary = &capture->boundaries[piece->boundary];
      err->status = status = DIFF_ERROR_INPUT;
      snprintf(err->message, sizeof err->message,
               "%s: byte %zu: boundary line: event %llu is past the end of %s (%llu events)",
               capture->index_path, boundary->offset, (unsigned long long)boundary->events,
               owner->path, (unsigned long long)segment->events);
      break;
    }
    int kept = piece->boundary_end && reached && capture->keep_blocks &&
               piece->boundary < capture->boundary_count && capture->boundaries[piece->boundary].keep;
    if (diff_segment_aggregate_end_piece(segment, piece->boundary_end && reached, sample) < 0 ||
        (kept && diff_segment_aggregate_keep(segment, piece->boundary) < 0)) {
      aggregate_fail_memory(err);
      status = err->status;
      break;
    }
    if (!reached) {  /* the .part ends here, on no GC cycle: its boundaries from here on are dropped */
      size_t last = piece->boundary;
      while (last + 1 < capture->boundary_count && capture->boundaries[last + 1].segment == index)
        last++;
      snprintf(dropped, dropped_size,
               "%s: byte %zu: boundary line: event %llu is past the end of %s (%llu events): "
               "boundaries %zu to %zu are dropped",
               capture->index_path, capture->boundaries[piece->boundary].offset,
               (unsigned long long)capture->boundaries[piece->boundary].events, owner->path,
               (unsigned long long)segment->events, piece->boundary + 1, last + 1);
      break;
    }
  }
  diff_segment_stream_close(&stream);
  return status;
}

/* A warning about a cut: to options->warn, or an error under options->strict. */
static enum diff_status aggregate_warn(struct diff_source *capture, const char *warning,
                                       const struct diff_options *options, struct diff_error *err)
{
  capture->info.truncated = 1;
  if (options->strict) {
    err->status = DIFF_ERROR_TRUNCATED;
    snprintf(err->message, sizeof err->message, "%s", warning);
    return err->status;
  }
  if (options->warn)
    options->warn(options->warn_context, warning);
  return DIFF_OK;
}

/* A read segment: warn about a cut, then merge. */
static enum diff_status aggregate_take(struct diff_aggregate *aggregate, struct diff_source *capture,
                                       struct diff_segment_aggregate *segment, const char *dropped,
                                       const struct diff_options *options,
                                       struct diff_error *err)
{
  if (segment->truncated && aggregate_warn(capture, segment->warning, options, err) != DIFF_OK)
    return err->status;
  if (dropped[0] && aggregate_warn(capture, dropped, options, err) != DIFF_OK)
    return err->status;
  if (segment->stack_warning[0] && options->warn)  /* the sites stand; some stacks are unknown */
    options->warn(options->warn_context, segment->stack_warning);
  if (diff_aggregate_merge(aggregate, segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  return DIFF_OK;
}

static enum diff_status aggregate_sequential(struct diff_aggregate *aggregate, struct diff_source *capture,
                                             const struct diff_options *options,
                                             struct diff_error *err)
{
  uint64_t done = 0;
  struct diff_segment_aggregate segment;  /* one, emptied between segments: its memory is reused */
  if (diff_segment_aggregate_init(&segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  char dropped[512];
  for (size_t i = 0; i < capture->count; i++) {
    enum diff_status status = DIFF_OK;
    if (i && diff_segment_aggregate_reset(&segment) < 0) {
      aggregate_fail_memory(err);
      status = err->status;
    }
    if (status == DIFF_OK)
      status = aggregate_read_segment(capture, i, &segment, aggregate->sample, dropped,
                                      sizeof dropped, err);
    if (status == DIFF_OK)
      status = aggregate_take(aggregate, capture, &segment, dropped, options, err);
    if (status != DIFF_OK) {
      diff_segment_aggregate_release(&segment);
      return status;
    }
    done += capture->segments[i].file_bytes;
    if (options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  diff_segment_aggregate_release(&segment);
  return DIFF_OK;
}

/* A stepwise reading: where it stops to call its hook, how far it reads. */
struct aggregate_stepwise {
  const struct diff_aggregate_stops *stops;
  size_t next_stop;              /* the first of stops->at not passed yet */
  size_t boundaries;             /* boundaries read so far (merged or not) */
  int done;                      /* stops->until read: nothing more is wanted */
  diff_aggregate_hook hook;
  void *context;
};

/* One segment for diff_aggregate_capture_stepwise: its pieces read in order
 * from one stream, merged where a stop falls (the segment's blocks so far
 * then in the capture's map), and at its end. */
static enum diff_status aggregate_stepwise_segment(struct diff_aggregate *aggregate,
                                                   struct diff_source *capture, size_t index,
                                                   struct diff_segment_aggregate *segment, int stacks,
                                                   struct aggregate_stepwise *walk,
                                                   struct diff_error *err)
{
  const struct diff_source_segment *owner = &capture->segments[index];
  struct diff_segment_stream stream;
  enum diff_status status = diff_segment_stream_open(&stream, owner->path, err);
  if (status != DIFF_OK)
    return status;
  if (stream.stacks && !stacks) {  /* by site: the stacks are not read */
    stacks_reader_close(stream.stacks);
    stream.stacks = NULL;
  }
  if (diff_segment_aggregate_reset(segment) < 0)
    goto memory;
  segment->lists_touches = index > 0;
  size_t end = owner->first_piece + owner->piece_count;
  for (size_t p = owner->first_piece; p < end && !walk->done; p++) {
    const struct diff_source_piece *piece = &capture->pieces[p];
    uint64_t before = segment->events;
    segment->young_from = piece->young_from == UINT64_MAX ? UINT64_MAX : before + piece->young_from;
    status = diff_segment_aggregate_read_piece(segment, &stream, piece->limit, aggregate->sample, err);
    if (status != DIFF_OK)
      break;
    int reached = piece->boundary == DIFF_SOURCE_NO_BOUNDARY || segment->events - before == piece->limit;
    int boundary = piece->boundary_end && reached;
    if (diff_segment_aggregate_end_piece(segment, boundary, aggregate->sample) < 0)
      goto memory;
    const struct diff_aggregate_stops *stops = walk->stops;
    size_t at = walk->boundaries;
    walk->boundaries += boundary;
    while (walk->next_stop < stops->count && stops->at[walk->next_stop] < at)
      walk->next_stop++;
    int stop = boundary && walk->next_stop < stops->count && stops->at[walk->next_stop] == at;
    walk->done = !reached || (boundary && at >= stops->until);
    if (stop || walk->done || p + 1 == end) {
      if (diff_aggregate_merge(aggregate, segment) < 0 || diff_segment_aggregate_reset(segment) < 0)
        goto memory;
      if (stop && walk->hook(aggregate, at, walk->context) < 0)
        goto memory;
    }
  }
  diff_segment_stream_close(&stream);
  return status;
memory:
  diff_segment_stream_close(&stream);
  aggregate_fail_memory(err);
  return err->status;
}

enum diff_status diff_aggregate_capture_stepwise(struct diff_aggregate *aggregate,
                                                 struct diff_source *capture, int stacks,
                                                 const struct diff_aggregate_stops *stops,
                                                 diff_aggregate_hook hook, void *context,
                                                 struct diff_error *err)
{
  err->status = DIFF_OK;
  err->message[0] = '\0';
  struct diff_segment_aggregate segment;
  if (diff_segment_aggregate_init(&segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  struct aggregate_stepwise walk = {stops, 0, 0, 0, hook, context};
  enum diff_status status = DIFF_OK;
  for (size_t i = 0; i < capture->count && status == DIFF_OK && !walk.done; i++)
    status = aggregate_stepwise_segment(aggregate, capture, i, &segment, stacks, &walk, err);
  diff_segment_aggregate_release(&segment);
  return status;
}

/* Workers claim segments in order and read each one whole, piece by piece
 * from one stream; the main thread merges them in order. A worker waits
 * before claiming a segment more than `window` ahead of the merge, which
 * bounds memory to window segment aggregates, however many pieces boundary
 * lines cut them into. Merged aggregates go back to a pool and are emptied
 * by the worker that takes one, so their tables keep their size from
 * segment to segment and the main thread only merges. */
struct pipeline_slot {
  struct diff_segment_aggregate *segment;  /* owned while ready is 1 */
  enum diff_status status;
  struct diff_error error;
  char dropped[512];                  /* boundaries of a .part dropped: the warning, or "" */
  int ready;
};

struct pipeline {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct diff_source *capture;
  uint64_t sample;
  struct pipeline_slot *slots;   /* [capture->count] */
  struct diff_segment_aggregate **spare;  /* [window] merged, ready to be emptied and reused */
  size_t spare_count;
  size_t next, merged, window;
  int stop;
};

static void pipeline_fail_memory(struct pipeline_slot *slot)
{
  slot->status = DIFF_ERROR_MEMORY;
  snprintf(slot->error.message, sizeof slot->error.message, "out of memory");
}

/* A pooled aggregate emptied, or a new one; NULL when out of memory. */
static struct diff_segment_aggregate *pipeline_take_aggregate(struct diff_segment_aggregate *spare)
{
  if (spare) {
    if (diff_segment_aggregate_reset(spare) == 0)
      return spare;
    diff_segment_aggregate_release(spare);
    free(spare);
    return NULL;
  }
  struct diff_segment_aggregate *segment = malloc(sizeof *segment);
  if (segment && diff_segment_aggregate_init(segment) < 0) {
    free(segment);
    segment = NULL;
  }
  return segment;
}

static void pipeline_drop_aggregate(struct diff_segment_aggregate *segment)
{
  if (segment) {
    diff_segment_aggregate_release(segment);
    free(segment);
  }
}

static void *pipeline_worker(void *argument)
{
  struct pipeline *pipeline = argument;
  for (;;) {
    pthread_mutex_lock(&pipeline->lock);
    while (!pipeline->stop && pipeline->next < pipeline->capture->count &&
           pipeline->next >= pipeline->merged + pipeline->window)
      pthread_cond_wait(&pipeline->changed, &pipeline->lock);
    if (pipeline->stop || pipeline->next >= pipeline->capture->count) {
      pthread_mutex_unlock(&pipeline->lock);
      return NULL;
    }
    size_t index = pipeline->next++;
    struct diff_segment_aggregate *spare =
        pipeline->spare_count ? pipeline->spare[--pipeline->spare_count] : NULL;
    pthread_mutex_unlock(&pipeline->lock);

    struct pipeline_slot *slot = &pipeline->slots[index];
    slot->segment = pipeline_take_aggregate(spare);
    if (!slot->segment)
      pipeline_fail_memory(slot);
    else
      slot->status = aggregate_read_segment(pipeline->capture, index, slot->segment, pipeline->sample,
                                            slot->dropped, sizeof slot->dropped, &slot->error);
    pthread_mutex_lock(&pipeline->lock);
    slot->ready = 1;
    pthread_cond_broadcast(&pipeline->changed);
    pthread_mutex_unlock(&pipeline->lock);
  }
}

static enum diff_status aggregate_parallel(struct diff_aggregate *aggregate, struct diff_source *capture,
                                           const struct diff_options *options,
                                           struct diff_error *err)
{
  size_t jobs = (size_t)options->jobs;
  if (jobs > capture->count)
    jobs = capture->count;
  struct pipeline pipeline = {.capture = capture, .sample = aggregate->sample,
                              .window = jobs + 1};
  pipeline.slots = calloc(capture->count, sizeof *pipeline.slots);
  pipeline.spare = calloc(pipeline.window, sizeof *pipeline.spare);
  pthread_t *threads = calloc(jobs, sizeof *threads);
  if (!pipeline.slots || !pipeline.spare || !threads) {
    free(pipeline.slots);
    free(pipeline.spare);
    free(threads);
    aggregate_fail_memory(err);
    return err->status;
  }
  pthread_mutex_init(&pipeline.lock, NULL);
  pthread_cond_init(&pipeline.changed, NULL);
  size_t started = 0;
  for (; started < jobs; started++)
    if (pthread_create(&threads[started], NULL, pipeline_worker, &pipeline) != 0)
      break;
  enum diff_status status = DIFF_OK;
  if (!started) {
    aggregate_fail_memory(err);
    status = err->status;
  }
  uint64_t done = 0;
  for (size_t i = 0; status == DIFF_OK && i < capture->count; i++) {
    struct pipeline_slot *slot = &pipeline.slots[i];
    pthread_mutex_lock(&pipeline.lock);
    while (!slot->ready)
      pthread_cond_wait(&pipeline.changed, &pipeline.lock);
    pthread_mutex_unlock(&pipeline.lock);
    status = slot->status;
    if (status != DIFF_OK)
      *err = slot->error;
    else
      status = aggregate_take(aggregate, capture, slot->segment, slot->dropped, options, err);
    pthread_mutex_lock(&pipeline.lock);
    if (slot->segment && pipeline.spare_count < pipeline.window)  /* always room: see window */
      pipeline.spare[pipeline.spare_count++] = slot->segment;
    else
      pipeline_drop_aggregate(slot->segment);
    slot->segment = NULL;
    slot->ready = 2;  /* merged */
    pipeline.merged = i + 1;
    if (status != DIFF_OK)
      pipeline.stop = 1;
    pthread_cond_broadcast(&pipeline.changed);
    pthread_mutex_unlock(&pipeline.lock);
    done += capture->segments[i].file_bytes;
    if (status == DIFF_OK && options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  if (status != DIFF_OK) {
    pthread_mutex_lock(&pipeline.lock);
    pipeline.stop = 1;
    pthread_cond_broadcast(&pipeline.changed);
    pthread_mutex_unlock(&pipeline.lock);
  }
  for (size_t i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  for (size_t i = 0; i < capture->count; i++)  /* segments read but not merged (after an error) */
    if (pipeline.slots[i].ready == 1)
      pipeline_drop_aggregate(pipeline.slots[i].segment);
  for (size_t i = 0; i < pipeline.spare_count; i++)
    pipeline_drop_aggregate(pipeline.spare[i]);
  pthread_cond_destroy(&pipeline.changed);
  pthread_mutex_destroy(&pipeline.lock);
  free(pipeline.slots);
  free(pipeline.spare);
  free(threads);
  return status;
}

enum diff_status diff_aggregate_capture(struct diff_aggregate *aggregate, struct diff_source *capture,
                                   const struct diff_options *options, struct diff_error *err)
{
  err->status = DIFF_OK;
  err->message[0] = '\0';
  enum diff_status status = DIFF_OK;
  if (capture->dropped_warning)
    status = aggregate_warn(capture, capture->dropped_warning, options, err);
  if (status == DIFF_OK)
    status = options->jobs > 1 && capture->count > 1
                 ? aggregate_parallel(aggregate, capture, options, err)
                 : aggregate_sequential(aggregate, capture, options, err);
  capture->info.events = aggregate->events;
  return status;
}
