/* diff/aggregate.c: merges pieces of segments in order into per-site series (aggregate_read.c reads the segments). */
#include "diff/aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/sampling.h"

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
  free(site->series_survived_bytes);
  free(site->series_young_bytes);
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
    free(aggregate->kept[i].blocks), free(aggregate->kept[i].big);
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

static int aggregate_site_reserve(struct diff_aggregate_site *site, size_t capacity)
{
  if (array_resize((void **)&site->series_live_bytes, capacity, sizeof *site->series_live_bytes) < 0 ||
      array_resize((void **)&site->series_live_blocks, capacity, sizeof *site->series_live_blocks) < 0 ||
      array_resize((void **)&site->series_alloc_bytes, capacity, sizeof *site->series_alloc_bytes) < 0 ||
      array_resize((void **)&site->series_free_bytes, capacity, sizeof *site->series_free_bytes) < 0 ||
      array_resize((void **)&site->series_survived_bytes, capacity, sizeof *site->series_survived_bytes) < 0 ||
      array_resize((void **)&site->series_young_bytes, capacity, sizeof *site->series_young_bytes) < 0)
    return -1;
  return 0;
}

/* The owner (site, stack), made when new with zeros for the boundaries before it. */
static int aggregate_owner_add(struct diff_aggregate *aggregate, uint32_t site, uint32_t stack,
                               uint32_t *index)
{
  size_t before = aggregate->owners.count;
  if (array_reserve((void **)&aggregate->data, &aggregate->data_capacity, aggregate->owners.count + 1,
                    sizeof *aggregate->data) != 0)
    return -1;
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
    memset(owner->series_young_bytes, 0, bytes);
    for (size_t k = 0; k < aggregate->boundaries; k++)  /* nothing of it lived, nothing survived */
      owner->series_survived_bytes[k] = k ? 0 : DIFF_AGGREGATE_UNKNOWN;
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
  owner->map_free_bytes += bytes;
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
    site->series_young_bytes[at] = site->young_bytes;
    site->young_bytes = site->young_blocks = 0;
    site->series_alloc_bytes[at] = site->segment_alloc_bytes;
    site->series_free_bytes[at] = site->segment_free_bytes;
    site->segment_alloc_bytes = site->segment_free_bytes = 0;
    /* What lived at the boundary before, young blocks included, less what of it was freed
     * since: the segments' young blocks not counted (diff/segment_piece.c), and of the
     * capture's map's frees not those that can be of blocks born since (a segment that
     * ended between two boundaries), so the figure is never below what truly survived. */
    uint64_t freed = site->held_free_bytes +
                     (site->map_free_bytes > site->born_bytes ? site->map_free_bytes - site->born_bytes : 0);
    site->series_survived_bytes[at] = at == 0                    ? DIFF_AGGREGATE_UNKNOWN
                                      : site->held_bytes > freed ? site->held_bytes - freed
                                                                 : 0;
    site->held_bytes = site->live_bytes;
    site->held_free_bytes = site->map_free_bytes = site->born_bytes = 0;
  }
  aggregate->boundaries++;
  return 0;
}

/* Adds what a piece's sites did: the blocks born in the segment moved live
 * bytes by what they allocated less what they freed. born: the piece ends with
 * no boundary, what it allocated may pass to the capture's map. */
static void aggregate_piece_sites(struct diff_aggregate *aggregate, const struct diff_segment_aggregate *segment,
                                  size_t from, size_t to, const uint32_t *global, int born)
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
    site->held_free_bytes += stats->held_free_bytes;
    site->born_bytes += born ? stats->alloc_bytes : 0;
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
    if (array_resize((void **)&aggregate->kept, aggregate->kept_count + 1, sizeof *aggregate->kept) != 0 ||
        array_resize((void **)&kept->blocks, kept->count + live->count + 1, sizeof *kept->blocks) != 0)
      return -1;
    struct diff_segment_block *blocks = kept->blocks;
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
      else if (diff_segment_block_put(blocks, count++, slot->address, live_map_size(live, slot), slot->site,
                                      &kept->big, &kept->big_count) < 0)
        return -1;
    }
    struct diff_segment_block *fit = realloc(blocks, (count ? count : 1) * sizeof *fit);
    blocks = fit ? fit : blocks;  /* kept to the end of the diff: no room left over */
    aggregate->kept[aggregate->kept_count++] =
        (struct diff_aggregate_kept){kept->boundary, blocks, count, kept->big, kept->big_count};
    kept->blocks = NULL;
    kept->big = NULL;
    kept->big_count = 0;
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
    aggregate_piece_sites(aggregate, segment, s, piece->sites_end, global, !piece->boundary_end);
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
